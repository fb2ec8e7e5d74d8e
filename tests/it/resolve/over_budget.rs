//! The introspection budget's record, end to end: releases an inference planned to introspect
//! but left unstarted when its budget ran out are recorded as not settled, so the next
//! inference of the notebook spends nothing on them (`nbenv bank introspect` settles them).
//! A release no interpreter here can install from a wheel takes no part in the budget.

use super::lazy::{dynpkg, infer, publish};
use crate::support::archives::sdist_tar_gz;
use crate::support::cli::pins;
use crate::support::context::TestContext;
use crate::support::server::FixtureFile;
use nbenv::bank::introspect::OVER_BUDGET;
use nbenv::bank::store::{RuntimeStatus, Store};
use nbenv::names::DistName;

/// A release that makes `Frame.ix` (or not) at import time, which static reading cannot
/// tell, and takes seconds to import: more than a budget of one second holds.
fn slow(i: usize) -> String {
    format!("import time\ntime.sleep(5)\n{}", dynpkg(i))
}

/// Like [`slow`], but the newest release plainly lacks `ix`: locating where it went needs an
/// older release introspected, planned only after the newest is read.
fn turning(i: usize) -> String {
    if i == 6 {
        return "class Frame:\n    def head(self, n=5):\n        return n\n\n\
                def make():\n    return Frame()\n"
            .into();
    }
    slow(i)
}

/// Each release of `project` the bank has, with what introspection recorded of it.
fn runtime(ctx: &TestContext, project: &str) -> Vec<(String, Option<RuntimeStatus>, String)> {
    let store = Store::open(&ctx.bank()).unwrap();
    let dist = store
        .distribution_id(&DistName::new(project).unwrap())
        .unwrap()
        .unwrap();
    store
        .releases(dist)
        .unwrap()
        .into_iter()
        .map(|r| {
            let detail = r.runtime_detail.unwrap_or_default();
            (r.version.to_string(), r.runtime_status, detail)
        })
        .collect()
}

/// The releases of `project` recorded as left unstarted by the budget.
fn over_budget(ctx: &TestContext, project: &str) -> Vec<String> {
    runtime(ctx, project)
        .into_iter()
        .filter(|(_, status, why)| *status == Some(RuntimeStatus::Gap) && why == OVER_BUDGET)
        .map(|(v, _, _)| v)
        .collect()
}

/// The first introspection round holds the newest `slowa` and `slowb`: the first started
/// spends the whole budget, the other is left unstarted in the round. `dynpkg` 5.0 is planned
/// in a later round, once the budget is spent. Both are recorded, and a second inference of
/// the notebook introspects nothing.
#[test]
fn releases_the_budget_left_unstarted_are_not_introspected_by_the_next_inference() {
    let source = "import dynpkg, slowa, slowb\n\
                  df = dynpkg.make()\ndf.ix[0]\n\
                  a = slowa.make()\na.ix[0]\n\
                  b = slowb.make()\nb.ix[0]\n";
    let env = TestContext::with_index();
    publish(&env, "dynpkg", 6, &turning, &|_| None);
    publish(&env, "slowa", 1, &slow, &|_| None);
    publish(&env, "slowb", 1, &slow, &|_| None);
    let budget = ["-v", "--introspect-budget", "1"];
    let (code, out, err) = infer(&env, source, &budget).parts();
    assert_eq!(code, 0, "{out}{err}");
    let first = pins(&out);
    assert_eq!(first.len(), 3, "{out}");
    // Left unstarted in a round: one of the two newest.
    let in_round = [over_budget(&env, "slowa"), over_budget(&env, "slowb")].concat();
    assert_eq!(in_round, ["1.0"], "{err}");
    // Planned after the budget was spent.
    assert_eq!(over_budget(&env, "dynpkg"), ["5.0"], "{err}");
    let before: Vec<_> = ["dynpkg", "slowa", "slowb"]
        .iter()
        .map(|p| runtime(&env, p))
        .collect();
    // Nothing was settled: what static reading cannot tell stays unknown.
    assert!(
        before
            .iter()
            .flatten()
            .all(|(_, status, _)| *status != Some(RuntimeStatus::Ok)),
        "{before:?}"
    );

    // A second inference of the same notebook introspects nothing, and leaves the bank as it
    // was.
    let (code, out, err) = infer(&env, source, &budget).parts();
    assert_eq!(code, 0, "{out}{err}");
    assert!(!err.contains("introspecting "), "{err}");
    assert!(!err.contains("budget ran out"), "{err}");
    let after: Vec<_> = ["dynpkg", "slowa", "slowb"]
        .iter()
        .map(|p| runtime(&env, p))
        .collect();
    assert_eq!(after, before);
    assert_eq!(pins(&out), first, "{out}\n{err}");
}

/// Like scikit-learn 0.12.1: `zoldpkg` 1.0 is only an sdist, so no interpreter here can
/// install it from a wheel. Planned in the same round as `slowa` 1.0, after it, it is recorded
/// with why at once, not as left over by the budget that `slowa` spends; `bank introspect`
/// looks again (another machine may have the interpreter) and says why.
#[test]
fn a_release_no_interpreter_here_installs_is_recorded_as_such_and_takes_no_budget() {
    let source = "import slowa, zoldpkg\n\
                  a = slowa.make()\na.ix[0]\n\
                  z = zoldpkg.make()\nz.ix[0]\n";
    let env = TestContext::with_index();
    publish(&env, "slowa", 1, &slow, &|_| None);
    let pkg_info = "Metadata-Version: 1.1\nName: zoldpkg\nVersion: 1.0\n";
    env.server().publish(
        "zoldpkg",
        &[FixtureFile {
            upload_time: Some("2014-01-01T00:00:00Z".into()),
            ..FixtureFile::new(
                "zoldpkg-1.0.tar.gz",
                sdist_tar_gz(
                    "zoldpkg",
                    "1.0",
                    &[("zoldpkg/__init__.py", &dynpkg(1))],
                    pkg_info,
                ),
            )
        }],
    );
    let (code, out, err) = infer(&env, source, &["-v", "--introspect-budget", "1"]).parts();
    assert_eq!(code, 0, "{out}{err}");
    assert!(err.contains("introspecting zoldpkg 1.0"), "{err}");
    assert!(
        err.contains("note: could not introspect zoldpkg 1.0: no wheel fits an interpreter"),
        "{err}"
    );
    let zold = runtime(&env, "zoldpkg");
    assert_eq!(zold.len(), 1, "{zold:?}");
    let (_, status, why) = &zold[0];
    assert_eq!(*status, Some(RuntimeStatus::Gap), "{zold:?}");
    assert!(
        why.starts_with("no wheel fits an interpreter on this machine (wheels for: none;"),
        "{why}"
    );

    let (code, out, err) = env
        .run(["bank", "introspect", "zoldpkg==1.0", "--format", "json"])
        .parts();
    assert_eq!(code, 0, "{out}{err}");
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    let outcome = &report["introspected"][0][2];
    assert_eq!(outcome["outcome"], "gap", "{report}");
    assert!(
        outcome["reason"]
            .as_str()
            .is_some_and(|r| r.starts_with("no wheel fits")),
        "{report}"
    );
}
