//! Stage restore with `--prefer modern`: each notebook modernized with the bank's facts and
//! restored on the newest installed Python first, in its era when that does not run to the
//! end, both within the notebook's one time limit. The order and the fallback are the
//! library's ([`crate::modernize::prefer::prefer`]); the modernized copy is removed after
//! each notebook (a killed batch's copies carry nbenv's temporary names, and the next
//! modernized copy written in that directory removes them).

use crate::measure::record::ModernAttempt;
use crate::modernize::prefer::Preferred;
use crate::modernize::restoring::{Attempt, AttemptError, Evidence, Restoring};
use crate::modernize::Modernized;
use crate::notebook::{Notebook, Usage};
use crate::resolve::options::{Indexing, InferOptions, Introspect, PythonSource};
use crate::restore::{RoundsSpec, Stop};

use super::{Batch, Job, Runner};

/// A batch's steps for one notebook: the library's, with what the batch found once.
pub(super) fn steps<'a>(
    batch: &'a Batch<'_>,
    runner: &'a Runner,
    job: &'a Job<'a>,
    nb: &'a Notebook,
    infer_args: &'a InferOptions,
    usages: &'a mut Vec<(String, Usage)>,
    spec: &'a RoundsSpec<'a>,
) -> Restoring<'a> {
    let session = batch.session.expect("opened for the running stages");
    // What the moves need to be seen, indexed as `nbenv modernize` indexes it (unless the
    // batch never indexes), within the notebook's time.
    let evidence = (infer_args.indexing != Indexing::Never && !session.offline).then(|| Evidence {
        options: infer_args.clone(),
        run: spec.infer,
        within: match infer_args.introspect {
            Introspect::Within(d) => d,
            Introspect::Never => std::time::Duration::ZERO,
        },
    });
    Restoring {
        reporter: batch.reporter,
        session,
        input: &job.input.file,
        nb,
        bytes: &job.bytes,
        analyze: &batch.analyze,
        options: infer_args,
        usages,
        spec,
        analysis: std::time::Duration::ZERO,
        // The newest installed first, then the next newest with a resolution.
        modern_python: runner.modern_python,
        modern_source: PythonSource::NewestInstalled,
        evidence,
        bank: batch.bank_file.as_deref(),
        ran_on: None,
    }
}

/// How the modern attempt fared, as the record keeps it; `None` when it was not tried.
pub(super) fn attempt_of(
    done: &Preferred<Modernized, Attempt, AttemptError>,
) -> Option<ModernAttempt> {
    let modernized = done.modernized.as_ref()?;
    let mut attempt = ModernAttempt {
        changes: 0,
        unmoved: 0,
        python3: 0,
        candidates: None,
        ran: false,
        stop: None,
        error: None,
        failure: None,
        kinds: Default::default(),
        met: 0,
        moved_by_runs: 0,
    };
    match modernized {
        Ok(m) => {
            attempt.changes = m.report.kept_changes(done.candidates);
            attempt.unmoved = m.report.unmoved.len();
            attempt.python3 = m.report.python3.converted.len();
            attempt.candidates = done.candidates;
        }
        Err(e) => attempt.error = Some(e.to_string()),
    }
    if let (Ok(m), Some(Ok(r))) = (modernized, &done.modern) {
        // The code a run moved forward is the code that ran.
        let report = r
            .restored
            .forwarded
            .as_ref()
            .map_or(&m.report, |f| &f.modernized.report);
        attempt.changes = report.kept_changes(done.candidates);
        attempt.unmoved = report.unmoved.len();
        attempt.kinds = report.kept_kinds(done.candidates);
        attempt.met = report.met.len();
        attempt.moved_by_runs = report.met.iter().filter(|m| m.moved).count();
    }
    match &done.modern {
        Some(Ok(r)) => {
            attempt.ran = r.restored.stopped == Stop::Ran;
            let failure = r
                .restored
                .rounds
                .last()
                .and_then(|l| l.first_failure.as_ref());
            attempt.stop = failure.map(|f| f.class);
            attempt.failure = failure.map(|f| f.located());
        }
        Some(Err(e)) => attempt.error = Some(e.to_string()),
        None => {}
    }
    Some(attempt)
}
