//! Two runs on one bank wait for each other only over the distributions both need: a run
//! indexing `alpha` holds back another `infer` that needs `alpha`, not one that needs `beta`.

use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::support::archives::WheelBuilder;
use crate::support::context::{Run, TestContext};
use crate::support::server::FixtureFile;
use nbenv::bank::store::DistClaims;
use nbenv::names::DistName;

fn publish(ctx: &TestContext, project: &str) {
    let files: Vec<FixtureFile> = (1..=3)
        .map(|i| {
            let w = WheelBuilder::new(project, &format!("{i}.0"))
                .file(&format!("{project}/__init__.py"), "def f():\n    pass\n");
            FixtureFile {
                upload_time: Some(format!("202{i}-01-01T00:00:00Z")),
                ..FixtureFile::new(&w.filename(), w.build())
            }
        })
        .collect();
    ctx.server().publish(project, &files);
}

/// `nbenv infer -v` of a script calling `project.f()`, started, not waited for.
fn start_infer(ctx: &TestContext, project: &str) -> std::process::Child {
    let nb = ctx.write(
        &format!("{project}.py"),
        &format!("import {project}\n{project}.f()\n"),
    );
    ctx.command_with(["infer", "-v", "--python", "3.11"])
        .arg(nb)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the nbenv binary runs")
}

fn finished_within(child: &mut std::process::Child, limit: Duration) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if child.try_wait().unwrap().is_some() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

#[test]
fn an_infer_waits_for_a_run_holding_what_it_needs_and_only_that() {
    let ctx = TestContext::with_index();
    publish(&ctx, "alpha");
    publish(&ctx, "beta");
    // Another run (this test) is writing alpha to the bank.
    let other_run = DistClaims::of_bank(&ctx.bank())
        .claim(&[DistName::new("alpha").unwrap()], &|| false)
        .unwrap();

    let mut needs_alpha = start_infer(&ctx, "alpha");
    let mut needs_beta = start_infer(&ctx, "beta");
    assert!(
        finished_within(&mut needs_beta, Duration::from_secs(60)),
        "a run needing only beta does not wait for the one writing alpha"
    );
    let beta = Run::from_output(&needs_beta.wait_with_output().unwrap());
    assert!(beta.success(), "{}", beta.text());
    assert!(beta.stdout.contains("beta=="), "{}", beta.text());

    if finished_within(&mut needs_alpha, Duration::from_secs(2)) {
        let alpha = Run::from_output(&needs_alpha.wait_with_output().unwrap());
        panic!(
            "a run needing alpha waits while alpha is claimed:\n{}",
            alpha.text()
        );
    }
    drop(other_run);
    let alpha = Run::from_output(&needs_alpha.wait_with_output().unwrap());
    assert!(alpha.success(), "{}", alpha.text());
    assert!(alpha.stdout.contains("alpha=="), "{}", alpha.text());
    assert!(
        alpha
            .stderr
            .contains("for another run writing alpha to the bank"),
        "{}",
        alpha.text()
    );
}
