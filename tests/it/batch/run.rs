//! `nbenv batch --stage verify|restore` end to end, offline: a loopback index with `toolkit`
//! (1.0 defines `old_api`; static reading believes 2.0 does too, but 2.0 defines it only
//! under Python 2), and a corpus with a notebook that runs as it is, one that nbenv restores
//! in its second round, one whose own code fails, and one that is not JSON. Each notebook
//! runs first as it was (a bare environment, the pipeline's interpreter, or not at all),
//! then in nbenv's environment; the records carry executability before and after, the
//! error sequence, the verdict, and `nbenv report` counts them.
//! Needs `python3` (3.11, as on this image and CI) and uv.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use crate::support::cli::python3_version;
use crate::support::context::TestContext;
use crate::support::toolkit::python2_only_api_index;
use serde_json::{json, Value};

fn ipynb(cells: &[&str]) -> String {
    let cells: Vec<Value> = cells
        .iter()
        .enumerate()
        .map(|(i, src)| {
            json!({"cell_type": "code", "execution_count": i + 1, "metadata": {},
                   "outputs": [], "source": src})
        })
        .collect();
    json!({"cells": cells,
           "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}},
           "nbformat": 4, "nbformat_minor": 2})
    .to_string()
}

fn corpus(dir: &Path) -> std::path::PathBuf {
    let corpus = dir.join("corpus");
    std::fs::create_dir_all(&corpus).unwrap();
    let write = |name: &str, text: &str| std::fs::write(corpus.join(name), text).unwrap();
    write("plain.ipynb", &ipynb(&["x = 1", "print(x + 1)"]));
    write(
        "old.ipynb",
        &ipynb(&["import toolkit", "print(toolkit.old_api() + 1)"]),
    );
    write(
        "bug.ipynb",
        &ipynb(&["import toolkit", "raise ValueError('the code is wrong')"]),
    );
    write("broken.ipynb", "{\"cells\": [");
    corpus
}

fn records(path: &Path) -> BTreeMap<String, Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .map(|r| (r["path"].as_str().unwrap().to_string(), r))
        .collect()
}

fn batch(ctx: &TestContext, stage: &str, out: &Path, extra: &[&str]) -> String {
    let corpus = ctx.path("corpus");
    let python = python3_version();
    let mut args: Vec<&str> = vec![
        "batch",
        corpus.to_str().unwrap(),
        "--stage",
        stage,
        "--python",
        &python,
        "--no-kernel-runtime",
        "--jobs",
        "2",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let (code, _, err) = ctx.run(&args).parts();
    assert_eq!(code, 0, "{err}");
    err
}

#[test]
fn stage_restore_measures_before_and_after_and_judges_each_notebook() {
    let server = python2_only_api_index();
    let ctx = TestContext::with_server(server);
    corpus(ctx.root());
    let out = ctx.root().join("restore.jsonl");
    let err = batch(&ctx, "restore", &out, &[]);
    assert!(err.contains("measured 4 notebooks"), "{err}");
    // `ok` counts what was measured; what ran is counted apart (bug.ipynb is ok, and stops).
    assert!(
        err.contains("3 ok, 1 error (ok: measured, whether or not it ran); ran to the end: 2 of 3"),
        "{err}"
    );
    let recs = records(&out);

    let plain = &recs["plain.ipynb"];
    assert_eq!(plain["status"], "ok", "{plain}");
    assert_eq!(plain["verdict"], json!({"kind": "executable"}));
    assert_eq!(
        plain["executability_before"],
        json!({"cells_ran": 2, "code_cells": 2})
    );
    assert_eq!(plain["error_sequence"], json!([]));

    // As it was (a bare environment): no toolkit. nbenv's first round pins 2.0, which
    // lacks old_api on Python 3; the second pins 1.0 and runs.
    let old = &recs["old.ipynb"];
    assert_eq!(old["status"], "ok", "{old}");
    assert_eq!(
        old["executability_before"],
        json!({"cells_ran": 0, "code_cells": 2, "first_error_cell": 1})
    );
    assert_eq!(old["first_error"]["ename"], "ModuleNotFoundError", "{old}");
    assert_eq!(old["first_error"]["class"], "environment");
    let sequence = old["error_sequence"].as_array().unwrap();
    assert_eq!(sequence.len(), 1, "{old}");
    assert_eq!(sequence[0]["cell"], 2);
    assert_eq!(sequence[0]["ename"], "AttributeError");
    assert_eq!(
        old["executability_after"],
        json!({"cells_ran": 2, "code_cells": 2})
    );
    assert_eq!(
        old["verdict"],
        json!({"kind": "restorable", "by": "environment"})
    );
    assert_eq!(
        old["environment"]["requirements"],
        json!([{"dist": "toolkit", "version": "1.0"}])
    );
    assert!(old["timings"]["run_ms"].as_f64().unwrap() > 0.0);

    // The code's own error, in nbenv's environment too: pathological.
    let bug = &recs["bug.ipynb"];
    assert_eq!(bug["verdict"], json!({"kind": "pathological"}), "{bug}");
    assert_eq!(bug["error_sequence"][0]["ename"], "ValueError");
    assert_eq!(
        bug["executability_after"],
        json!({"cells_ran": 1, "code_cells": 2, "first_error_cell": 2})
    );

    assert_eq!(recs["broken.ipynb"]["status"], "error");
    assert_eq!(recs["broken.ipynb"]["error"]["kind"], "broken_json");

    // The report counts them.
    let (code, stdout, err) = ctx
        .run(["report", out.to_str().unwrap(), "--format", "json"])
        .parts();
    assert_eq!(code, 0, "{err}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    let o = &report["outcomes"];
    assert_eq!(
        (
            &o["judged"],
            &o["executable"],
            &o["restorable"],
            &o["restored"],
            &o["pathological"]
        ),
        (&json!(3), &json!(1), &json!(1), &json!(1), &json!(1)),
        "{o}"
    );

    // Run again on the same output: nothing is measured twice.
    let err = batch(&ctx, "restore", &out, &[]);
    assert!(err.contains("nothing new to measure"), "{err}");
}

#[test]
fn stage_verify_runs_once_and_the_baseline_is_the_callers_choice() {
    let server = python2_only_api_index();
    let ctx = TestContext::with_server(server);
    corpus(ctx.root());

    // One round, no repair: old.ipynb stops where 2.0 lacks old_api.
    let out = ctx.root().join("verify.jsonl");
    batch(&ctx, "verify", &out, &["--before", "none"]);
    let recs = records(&out);
    let old = &recs["old.ipynb"];
    assert_eq!(old["stage"], "verify");
    assert!(old.get("executability_before").is_none(), "{old}");
    // Without a run before, the first round's error is the first error.
    assert_eq!(old["first_error"]["ename"], "AttributeError", "{old}");
    assert_eq!(
        old["executability_after"],
        json!({"cells_ran": 1, "code_cells": 2, "first_error_cell": 2})
    );
    assert_eq!(
        old["environment"]["requirements"],
        json!([{"dist": "toolkit", "version": "2.0"}])
    );
    assert_eq!(
        old["verdict"],
        json!({"kind": "restorable", "by": "environment"})
    );

    // The pipeline's interpreter as the environment before: python3 itself.
    let python3 = String::from_utf8(
        Command::new("python3")
            .args(["-c", "import sys; print(sys.executable)"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let out = ctx.root().join("supplied.jsonl");
    batch(&ctx, "verify", &out, &["--before", python3.trim()]);
    let recs = records(&out);
    assert_eq!(
        recs["plain.ipynb"]["executability_before"],
        json!({"cells_ran": 2, "code_cells": 2})
    );
    assert_eq!(
        recs["old.ipynb"]["executability_before"]["first_error_cell"],
        1
    );

    // An interpreter that is not one is refused before anything runs.
    let (code, _, err) = ctx
        .run([
            "batch",
            ctx.root().join("corpus").to_str().unwrap(),
            "--stage",
            "verify",
            "--before",
            "/no/such/python",
            "--out",
            ctx.root().join("never.jsonl").to_str().unwrap(),
        ])
        .parts();
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("/no/such/python"), "{err}");
    assert!(!ctx.root().join("never.jsonl").exists());
}
