//! The report's tables on hand-written records, every number known in advance: two shard
//! files with a notebook in both (its later record wins), runs before and after restore,
//! triage, resolved environments and failing releases.

use std::path::Path;

use serde_json::{json, Value};

use crate::support::context::bare_command;
use nbenv::measure::jsonl::parse_records;
use nbenv::measure::{merge, Report};

fn exe(ran: u32, of: u32) -> Value {
    if ran < of {
        json!({"cells_ran": ran, "code_cells": of, "first_error_cell": ran + 1})
    } else {
        json!({"cells_ran": ran, "code_cells": of})
    }
}

fn error(ename: &str, class: &str, cause: &str) -> Value {
    json!({"class": class, "cause": cause, "ename": ename, "message": "…"})
}

fn env(python: &str, reqs: &[(&str, &str)], deps: &[(&str, &str)]) -> Value {
    let list = |l: &[(&str, &str)]| -> Vec<Value> {
        l.iter()
            .map(|(d, v)| json!({"dist": d, "version": v}))
            .collect()
    };
    json!({"python": python, "python_installed": true, "requirements": list(reqs),
           "dependencies": list(deps)})
}

fn record(path: &str, stage: &str, status: &str, extra: Value) -> String {
    let mut r = json!({"schema": 1, "nbenv": "0.1.0", "path": path, "sha256": format!("{path}-hash"),
                       "stage": stage, "status": status, "timings": {"total_ms": 1.0}});
    for (k, v) in extra.as_object().unwrap() {
        r[k] = v.clone();
    }
    r.to_string() + "\n"
}

fn triage(extra: Value) -> Value {
    let mut t = json!({"parseable": true, "python2": false, "imports": [],
                       "local_modules_missing": [], "data_files": [], "network": [],
                       "stored_errors": []});
    for (k, v) in extra.as_object().unwrap() {
        t[k] = v.clone();
    }
    t
}

fn shard_a() -> String {
    [
        record(
            "n1.ipynb",
            "verify",
            "ok",
            json!({"executability_before": exe(5, 5), "verdict": {"kind": "executable"},
                   "environment": env("3.8", &[("pandas", "1.0.0")], &[("numpy", "1.18.0")])}),
        ),
        record(
            "n2.ipynb",
            "restore",
            "ok",
            json!({"executability_before": exe(2, 10), "executability_after": exe(10, 10),
                   "first_error": error("ModuleNotFoundError", "environment", "missing_module"),
                   "error_sequence": [error("ModuleNotFoundError", "environment", "missing_module")],
                   "verdict": {"kind": "restorable", "by": "environment"},
                   "environment": env("3.8", &[("pandas", "1.0.0")], &[("numpy", "1.18.0")]),
                   "release_failures": [{"dist": "numpy", "version": "1.18.0", "python": "3.8", "kind": "import"}]}),
        ),
        record(
            "n3.ipynb",
            "restore",
            "ok",
            json!({"executability_before": exe(0, 4), "executability_after": exe(1, 4),
                   "first_error": error("FileNotFoundError", "data_input", "missing_file"),
                   "error_sequence": [error("FileNotFoundError", "data_input", "missing_file"),
                                      error("FileNotFoundError", "data_input", "missing_file")],
                   "verdict": {"kind": "restorable", "by": "data_input"},
                   "environment": env("3.7", &[("pandas", "0.25.3")], &[])}),
        ),
        record(
            "n4.ipynb",
            "verify",
            "ok",
            json!({"executability_before": exe(3, 6),
                   "first_error": error("ValueError", "code", "raised"),
                   "verdict": {"kind": "pathological"},
                   "environment": env("3.8", &[("pandas", "1.0.0")], &[("numpy", "1.18.0")]),
                   "release_failures": [{"dist": "pandas", "version": "1.0.0", "python": "3.8", "kind": "install"}]}),
        ),
        record(
            "n5.ipynb",
            "usage",
            "ok",
            json!({"triage": triage(json!({"parseable": false, "python2": true,
                   "syntax_errors": [{"cell": 1, "line": 1}],
                   "stored_errors": [{"cell": 2, "ename": "NameError", "class": "code"},
                                     {"cell": 3, "ename": "NameError", "class": "code"}]}))}),
        ),
    ]
    .concat()
}

fn shard_b() -> String {
    [
        // n1 again, further: restore replaces its verify record.
        record(
            "n1.ipynb",
            "restore",
            "ok",
            json!({"executability_before": exe(5, 5), "executability_after": exe(5, 5),
                   "verdict": {"kind": "executable"},
                   "environment": env("3.8", &[("pandas", "1.0.0")], &[("numpy", "1.18.0")])}),
        ),
        record(
            "n6.ipynb",
            "infer",
            "no_solution",
            json!({"error": {"kind": "no_solution", "message": "Python 3.11: …"},
                   "triage": triage(json!({
                       "unresolved_imports": [{"import": "foo", "reason": "no_provider"}],
                       "data_files": [{"path": "x.csv", "call": "pandas.read_csv", "at": {"cell": 2, "line": 1}, "state": "missing"}],
                       "network": [{"kind": "url", "detail": "https://x.org", "at": {"cell": 1, "line": 2}}]}))}),
        ),
        record(
            "n7.ipynb",
            "usage",
            "error",
            json!({"error": {"kind": "broken_json", "message": "n7.ipynb: broken JSON"}}),
        ),
    ]
    .concat()
}

fn report() -> Report {
    let a = parse_records(Path::new("a.jsonl"), shard_a().as_bytes()).unwrap();
    let b = parse_records(Path::new("b.jsonl"), shard_b().as_bytes()).unwrap();
    assert!(
        a.malformed.is_empty() && b.malformed.is_empty(),
        "{:?}",
        a.malformed
    );
    Report::of(&merge(a.records.into_iter().chain(b.records)))
}

#[test]
fn the_counts_are_exact() {
    let r = serde_json::to_value(report()).unwrap();
    assert_eq!(r["notebooks"], 7);
    assert_eq!(r["records_read"], 8);
    assert_eq!(r["records_replaced"], 1);
    assert_eq!(
        r["statuses"],
        json!([{"value": "ok", "notebooks": 5}, {"value": "no_solution", "notebooks": 1},
               {"value": "error", "notebooks": 1}])
    );
    assert_eq!(
        r["stages"],
        json!([{"value": "restore", "notebooks": 3}, {"value": "usage", "notebooks": 2},
               {"value": "infer", "notebooks": 1}, {"value": "verify", "notebooks": 1}])
    );
    assert_eq!(
        r["outcomes"],
        json!({"judged": 4, "executable": 1, "restorable": 2,
               "restorable_by": [{"value": "environment", "notebooks": 1},
                                 {"value": "data_input", "notebooks": 1}],
               "pathological": 1, "unknown": 0, "restored": 1, "not_run": 3})
    );
    assert_eq!(
        r["triage"],
        json!({"triaged": 2, "unparseable": 1, "python2": 1, "resolved": 1,
               "unresolved_imports": 1, "missing_local_modules": 0, "reading_files": 1,
               "missing_data_files": 1, "network": 1, "stored_errors": 1,
               "stored_error_classes": [{"value": "code", "notebooks": 1}],
               "no_static_blocker": 0})
    );
    let buckets: Vec<(String, u64, u64)> = r["executability"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["before"] != 0 || b["after"] != 0)
        .map(|b| {
            (
                b["label"].as_str().unwrap().to_string(),
                b["before"].as_u64().unwrap(),
                b["after"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        buckets,
        [
            ("0%".to_string(), 1, 0),
            ("20–30%".to_string(), 1, 1),
            ("50–60%".to_string(), 1, 0),
            ("100%".to_string(), 1, 2),
        ]
    );
    assert_eq!(r["executability"].as_array().unwrap().len(), 12);
    assert_eq!(
        r["error_types"],
        json!({
            "stored": [{"name": "NameError", "class": "code", "notebooks": 1}],
            "before": [{"name": "FileNotFoundError", "class": "data_input", "notebooks": 1},
                       {"name": "ModuleNotFoundError", "class": "environment", "notebooks": 1},
                       {"name": "ValueError", "class": "code", "notebooks": 1}],
            // n2 ran to the end after repair: only n3 still stops.
            "after": [{"name": "FileNotFoundError", "class": "data_input", "notebooks": 1}],
        })
    );
    assert_eq!(
        r["distributions"],
        json!([{"dist": "pandas", "notebooks": 4,
                "versions": [{"value": "1.0.0", "notebooks": 3}, {"value": "0.25.3", "notebooks": 1}]}])
    );
    assert_eq!(
        r["pythons"],
        json!([{"value": "3.8", "notebooks": 3}, {"value": "3.7", "notebooks": 1}])
    );
    let third = 1.0 / 3.0;
    assert_eq!(
        r["release_failures"],
        json!([
            {"dist": "numpy", "version": "1.18.0", "python": "3.8", "tried": 3,
             "install_failures": 0, "import_failures": 1, "rate": third},
            {"dist": "pandas", "version": "1.0.0", "python": "3.8", "tried": 3,
             "install_failures": 1, "import_failures": 0, "rate": third},
        ])
    );
}

#[test]
fn the_tables_say_it() {
    let tables = report().tables();
    let ids: Vec<&str> = tables.iter().map(|t| t.id).collect();
    assert_eq!(
        ids,
        [
            "statuses",
            "outcomes",
            "triage",
            "executability",
            "errors-stored",
            "errors-before",
            "errors-after",
            "distributions",
            "pythons",
            "release-failures"
        ]
    );
    let outcomes = &tables[1];
    assert_eq!(
        outcomes.rows,
        [
            ["executable: ran to the end as it was", "1", "25.0%"],
            [
                "restorable: stopped at the environment or its data",
                "2",
                "50.0%"
            ],
            ["  by environment", "1", "25.0%"],
            ["  by data/input", "1", "25.0%"],
            ["  ran to the end after repair", "1", "25.0%"],
            [
                "pathological: stopped at its own code, which no environment repairs",
                "1",
                "25.0%"
            ],
        ]
    );
    let releases = &tables[9];
    assert_eq!(
        releases.rows[0],
        ["numpy 1.18.0", "3.8", "3", "0", "1", "33.3%"]
    );
    assert_eq!(
        tables[7].rows,
        [["pandas", "4", "100.0%", "1.0.0 (3), 0.25.3 (1)"]]
    );
}

#[test]
fn the_command_reads_shards_and_prints_markdown() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.jsonl");
    let b = dir.path().join("b.jsonl");
    std::fs::write(&a, shard_a()).unwrap();
    // A batch killed mid-write: the last line is cut short, and said.
    std::fs::write(&b, shard_b() + "{\"schema\":1,\"pa").unwrap();
    let out = bare_command()
        .args(["report", "--format", "markdown"])
        .args([&a, &b])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("b.jsonl:4: ignoring a last line cut short"),
        "{stderr}"
    );
    assert!(stdout.contains("### Executable, restorable, pathological (4 notebooks run)\n\n| outcome | notebooks | share |\n| --- | ---: | ---: |\n| executable: ran to the end as it was | 1 | 25.0% |\n"), "{stdout}");
    assert!(
        stdout.contains("| &nbsp;&nbsp;by environment | 1 | 25.0% |"),
        "{stdout}"
    );

    let missing = dir.path().join("none.jsonl");
    let out = bare_command().arg("report").arg(&missing).output().unwrap();
    assert_eq!(out.status.code(), Some(3));
}

/// Errors after nbenv's rounds: a verify record's one run counts, and so does a restore
/// record whose environment never built (it stops at the install failure).
#[test]
fn errors_after_count_verify_runs_and_environments_never_built() {
    let records = [
        record(
            "v.ipynb",
            "verify",
            "ok",
            json!({"executability_before": exe(0, 3),
                   "first_error": error("ModuleNotFoundError", "environment", "missing_module"),
                   "executability_after": exe(1, 3),
                   "error_sequence": [error("FileNotFoundError", "data_input", "missing_file")],
                   "verdict": {"kind": "restorable", "by": "data_input"}}),
        ),
        record(
            "r.ipynb",
            "restore",
            "ok",
            json!({"executability_before": exe(0, 3),
                   "first_error": error("ModuleNotFoundError", "environment", "missing_module"),
                   "error_sequence": [{"class": "install", "cause": "install", "message": "…"}],
                   "verdict": {"kind": "restorable", "by": "install"}}),
        ),
    ]
    .concat();
    let read = parse_records(Path::new("x.jsonl"), records.as_bytes()).unwrap();
    let report = Report::of(&merge(read.records));
    let after: Vec<(String, usize)> = report
        .error_types
        .after
        .iter()
        .map(|e| (e.name.clone(), e.notebooks))
        .collect();
    assert_eq!(
        after,
        [
            ("FileNotFoundError".to_string(), 1),
            ("install".to_string(), 1)
        ]
    );
    assert_eq!(report.error_classes.runs_after, 2);
}

/// A notebook stopped at an error the bank could not place, and one that stored such an
/// error: counted apart, as unknown, in the outcomes, the triage and the error tables.
#[test]
fn unknown_errors_are_counted_apart() {
    let records = [
        record(
            "u1.ipynb",
            "verify",
            "ok",
            json!({"executability_before": exe(1, 3),
                   "first_error": error("AttributeError", "unknown", "missing_api"),
                   "verdict": {"kind": "unknown"}}),
        ),
        record(
            "u2.ipynb",
            "usage",
            "ok",
            json!({"triage": triage(json!({
                   "stored_errors": [{"cell": 2, "ename": "AttributeError", "class": "unknown"}]}))}),
        ),
    ]
    .concat();
    let parsed = parse_records(Path::new("u.jsonl"), records.as_bytes()).unwrap();
    let report = Report::of(&merge(parsed.records));
    assert_eq!(report.outcomes.unknown, 1);
    assert_eq!(report.outcomes.judged, 1);
    let tables = report.tables();
    let rows = |id: &str| tables.iter().find(|t| t.id == id).unwrap().rows.clone();
    assert!(
        rows("outcomes").contains(&vec![
            "unknown (environment or code: the bank could not tell)".to_string(),
            "1".into(),
            "100.0%".into()
        ]),
        "{:?}",
        rows("outcomes")
    );
    assert!(
        rows("triage").contains(&vec![
            "  of class unknown".to_string(),
            "1".into(),
            "100.0%".into()
        ]),
        "{:?}",
        rows("triage")
    );
    assert_eq!(rows("errors-before"), [["AttributeError", "unknown", "1"]]);
    assert_eq!(rows("errors-stored"), [["AttributeError", "unknown", "1"]]);
}

/// Stage restore's notebooks by the mode kept: modernized, in the era after a modern try,
/// in the era alone (a record made before `--prefer` is one); each with how many ran to the
/// end. Records that never say their mode leave the report as it was.
#[test]
fn restorations_are_counted_by_mode() {
    let modern = |ran: bool| json!({"changes": 2, "unmoved": 1, "ran": ran});
    let records = [
        record(
            "m1.ipynb",
            "restore",
            "ok",
            json!({"executability_after": exe(4, 4), "mode": "modern", "modern": modern(true)}),
        ),
        record(
            "m2.ipynb",
            "restore",
            "ok",
            json!({"executability_after": exe(3, 3), "mode": "modern", "modern": modern(true)}),
        ),
        record(
            "e1.ipynb",
            "restore",
            "ok",
            json!({"executability_after": exe(5, 5), "mode": "era",
                   "modern": {"changes": 0, "unmoved": 0, "ran": false, "stop": "code"}}),
        ),
        record(
            "e2.ipynb",
            "restore",
            "ok",
            json!({"executability_after": exe(1, 5), "mode": "era", "modern": modern(false)}),
        ),
        record(
            "o1.ipynb",
            "restore",
            "ok",
            json!({"executability_after": exe(2, 2), "mode": "era"}),
        ),
        // Before `--prefer`: the era's, nothing modern tried.
        record(
            "o2.ipynb",
            "restore",
            "ok",
            json!({"executability_after": exe(0, 2)}),
        ),
        record(
            "v.ipynb",
            "verify",
            "ok",
            json!({"executability_after": exe(2, 2)}),
        ),
    ]
    .concat();
    let read = parse_records(Path::new("x.jsonl"), records.as_bytes()).unwrap();
    assert!(read.malformed.is_empty(), "{:?}", read.malformed);
    let report = Report::of(&merge(read.records));
    let modes = report.modes.as_ref().expect("records say their mode");
    let counts = |c: &nbenv::measure::report::ModeCount| (c.notebooks, c.ran);
    assert_eq!(counts(&modes.modern), (2, 2));
    assert_eq!(counts(&modes.era_after_modern), (2, 1));
    assert_eq!(counts(&modes.era_only), (2, 1));

    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["modes"]["era_after_modern"]["ran"], 1);
    let table = report
        .tables()
        .into_iter()
        .find(|t| t.id == "modes")
        .expect("a table of modes");
    assert_eq!(
        table.rows,
        [
            ["modern (the modernized notebook kept)", "2", "2", "100.0%"],
            ["era after a modern try", "2", "1", "50.0%"],
            ["era only", "2", "1", "50.0%"],
        ]
    );

    // Records that never say their mode: no table, no field.
    let old = parse_records(Path::new("o.jsonl"), shard_a().as_bytes()).unwrap();
    let report = Report::of(&merge(old.records));
    assert!(report.modes.is_none());
    assert!(report.tables().iter().all(|t| t.id != "modes"));
    assert!(serde_json::to_value(&report)
        .unwrap()
        .get("modes")
        .is_none());
}
