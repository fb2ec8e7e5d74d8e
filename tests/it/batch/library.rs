//! `batch` as a library function on plain settings, with no process: what the summary says
//! comes back as a value, the progress through the reporter, and a second call resumes.

use std::collections::BTreeMap;

use nbenv::commands::batch::{run, BatchSettings};
use nbenv::measure::{Stage, Status};
use nbenv::reporter::{Event, Recorder};

use crate::support::context::TestContext;
use crate::support::corpus::{ipynb, write};
use crate::support::toolkit::python2_only_api_index;

#[test]
fn batch_runs_as_a_library_function_on_plain_settings() {
    let ctx = TestContext::with_server(python2_only_api_index());
    let corpus = ctx.root().join("corpus");
    write(
        &corpus,
        "old.ipynb",
        &ipynb(&["import toolkit", "print(toolkit.old_api() + 1)"]),
    );
    write(&corpus, "broken.ipynb", "{\"cells\": [");
    let out = ctx.root().join("records.jsonl");
    let settings = BatchSettings {
        stage: Stage::Infer,
        jobs: 1,
        ..BatchSettings::new(vec![corpus], out.clone())
    };
    let global = ctx.settings();

    let said = Recorder::default();
    let done = run(&global, &settings, std::io::empty(), &said).unwrap();
    assert_eq!((done.corpus, done.notebooks), (2, 2));
    assert_eq!((done.written, done.skipped), (2, 0));
    assert_eq!(
        done.tally.statuses,
        BTreeMap::from([(Status::Ok, 1), (Status::Error, 1)])
    );
    assert!(done.stop.is_none(), "{:?}", done.stop);
    assert_eq!(std::fs::read_to_string(&out).unwrap().lines().count(), 2);
    // The progress went through the reporter: one task, advanced once a notebook.
    let events = said.events();
    assert!(
        events.contains(&Event::Task("notebooks".into())),
        "{events:?}"
    );
    let advanced = events
        .iter()
        .filter(|e| matches!(e, Event::Advance(_)))
        .count();
    assert_eq!(advanced, 2, "{events:?}");

    // Run again on the same output: nothing new, both skipped.
    let again = run(&global, &settings, std::io::empty(), &Recorder::default()).unwrap();
    assert_eq!((again.written, again.skipped), (0, 2));
}
