//! The command line as a user meets it: exit codes that match the reference's table, messages
//! that say each cause once and suggest the next step, validation of what users type, JSON
//! documents, `-q`, completions, the built-in package list and Ctrl-C. Everything runs against
//! a loopback index; nothing touches the network.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use crate::support::archives::WheelBuilder;
use crate::support::context::{bare, bare_command, TestContext};
use crate::support::server::{FixtureFile, PageMode, TestServer};
use crate::support::snapshot::printed;

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn wheel(name: &str, version: &str) -> FixtureFile {
    let module = name.replace('-', "_");
    let w = WheelBuilder::new(name, version).file(
        &format!("{module}/__init__.py"),
        "def helper(a):\n    return a\n",
    );
    FixtureFile::new(&w.filename(), w.build())
}

/// `six` 1.15.0, 1.16.0 and 1.17.0, and `toolkit` 1.0 to 6.0.
fn setup() -> TestContext {
    let server = TestServer::start(PageMode::Json);
    server.publish(
        "six",
        &["1.15.0", "1.16.0", "1.17.0"].map(|v| wheel("six", v)),
    );
    server.publish(
        "toolkit",
        &["1.0", "2.0", "3.0", "4.0", "5.0", "6.0"].map(|v| wheel("toolkit", v)),
    );
    TestContext::with_server(server)
}

fn notebook(dir: &Path, name: &str, contents: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path
}

const NOTEBOOK: &str = r#"{"nbformat": 4, "nbformat_minor": 2, "metadata": {},
  "cells": [{"cell_type": "code", "source": "import six\nsix.moves.range(3)", "outputs": []}]}"#;

// ---- exit codes -------------------------------------------------------------------------

#[test]
fn offline_with_an_empty_cache_is_a_network_failure_not_a_partial_one() {
    let env = setup();
    let out = env.output(["--offline", "bank", "add", "six==1.16.0"]);
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    assert!(stdout(&out).contains("--offline"), "{}", stdout(&out));
}

#[test]
fn an_unreachable_index_is_a_network_failure() {
    let env = setup();
    let out = bare_command()
        .args(["--index-url", "http://127.0.0.1:9/simple/", "--cache-dir"])
        .arg(env.cache())
        .arg("--bank")
        .arg(env.bank())
        .args(["bank", "add", "six"])
        .env("NBENV_HTTP_RETRIES", "0")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
}

#[test]
fn a_selection_that_matches_no_release_is_not_found() {
    let env = setup();
    for spec in ["six==99", "six>=2.0"] {
        let out = env.output(["bank", "add", spec]);
        assert_eq!(out.status.code(), Some(3), "{spec}: {}", stderr(&out));
        assert!(
            stdout(&out).contains("(latest: 1.17.0, 1.16.0, 1.15.0)"),
            "{spec}: {}",
            stdout(&out)
        );
    }
    let out = env.output(["bank", "introspect", "six==99"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(stdout(&out).contains("latest: 1.17.0"), "{}", stdout(&out));
}

#[test]
fn partial_only_when_something_was_done() {
    let env = setup();
    let out = env.output(["bank", "add", "six", "no-such-project"]);
    assert_eq!(out.status.code(), Some(6), "{}", stderr(&out));
    let out = env.output(["bank", "add", "no-such-project", "six==99"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
}

#[test]
fn build_only_a_name_outside_the_list_is_not_found() {
    let env = setup();
    let out = env.output(["bank", "build", "--only", "not-in-list"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("`not-in-list` is not in the built-in package list"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_directory_given_as_the_bank_is_refused_with_a_reason() {
    let env = setup();
    for (name, args) in [
        ("bank-is-a-directory-stats", &["bank", "stats"][..]),
        ("bank-is-a-directory-add", &["bank", "add", "six"][..]),
    ] {
        let out = bare_command()
            .arg("--bank")
            .arg(env.root())
            .arg("--index-url")
            .arg(env.server().index_url())
            .arg("--cache-dir")
            .arg(env.cache())
            .args(args)
            .output()
            .unwrap();
        // Exit 7, with the reason ("is a directory"), not SQLite's "disk I/O error".
        snapshot!(name, printed(&out));
    }
}

#[test]
fn python_in_a_text_file_is_not_a_notebook() {
    let dir = tempfile::tempdir().unwrap();
    let path = notebook(dir.path(), "code.txt", b"import os\nprint(os.getcwd())\n");
    let out = bare(["usage", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(11), "{}", stderr(&out));
    assert!(stderr(&out).contains("code.txt"), "{}", stderr(&out));
}

/// F15: a notebook path that links to a file that is not a notebook (`x.ipynb ->
/// /etc/shadow`) quotes nothing of that file, in stderr or in a batch record; the message says
/// what kind of file it looks like.
#[test]
fn a_link_to_a_file_that_is_not_a_notebook_quotes_nothing_of_it() {
    let dir = tempfile::tempdir().unwrap();
    let secret = dir.path().join("shadow");
    std::fs::write(&secret, "root:$6$hashhashhash:19000:0:99999:7:::\n").unwrap();
    let link = dir.path().join("x.ipynb");
    std::os::unix::fs::symlink(&secret, &link).unwrap();
    let out = bare(["usage", link.to_str().unwrap()]);
    // Exit 11, the link named, and what kind of file it looks like.
    snapshot!("usage-link-to-a-text-file", printed(&out));
    // Whatever the wording, nothing of the file it links to.
    let err = stderr(&out);
    assert!(!err.contains("root") && !err.contains("hash"), "{err}");

    let records = dir.path().join("records.jsonl");
    let out = bare([
        "batch",
        dir.path().to_str().unwrap(),
        "--stage",
        "usage",
        "--out",
        records.to_str().unwrap(),
    ]);
    let text = std::fs::read_to_string(&records).unwrap_or_default();
    assert!(text.contains("x.ipynb"), "{text} {}", stderr(&out));
    assert!(!text.contains("root") && !text.contains("hash"), "{text}");
    assert!(!stderr(&out).contains("hash"), "{}", stderr(&out));
}

#[test]
fn a_notebook_with_a_byte_order_mark_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = [&b"\xEF\xBB\xBF"[..], NOTEBOOK.as_bytes()].concat();
    let path = notebook(dir.path(), "bom.ipynb", &bytes);
    let out = bare(["usage", path.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("third-party  six"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn bad_environment_values_are_usage_errors_naming_the_variable() {
    let env = setup();
    let out = env
        .command_with(["index", "releases", "six"])
        .env("NBENV_HTTP_TIMEOUT", "abc")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("NBENV_HTTP_TIMEOUT"),
        "{}",
        stderr(&out)
    );

    let out = bare(["--index-url", "not a url", "index", "releases", "six"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("not a url"), "{}", stderr(&out));

    let out = env
        .command_with(["index", "releases", "six"])
        .env("NBENV_OFFLINE", "maybe")
        .output()
        .unwrap();
    // Exit 2, naming the variable (not the flag it stands for).
    snapshot!("env-offline-not-a-boolean", printed(&out));
}

#[test]
fn environment_booleans_take_the_usual_spellings() {
    let env = setup();
    assert!(env.output(["index", "releases", "six"]).status.success());
    for on in ["1", "true", "yes", "YES"] {
        let out = env
            .command_with(["index", "releases", "never-fetched"])
            .env("NBENV_OFFLINE", on)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(4), "{on}: {}", stderr(&out));
        assert!(stderr(&out).contains("--offline"), "{}", stderr(&out));
    }
    for off in ["0", "false", "no"] {
        let out = env
            .command_with(["index", "releases", "six"])
            .env("NBENV_OFFLINE", off)
            .output()
            .unwrap();
        assert!(out.status.success(), "{off}: {}", stderr(&out));
    }
}

// ---- validation -------------------------------------------------------------------------

#[test]
fn usage_python_accepts_known_versions_only() {
    let dir = tempfile::tempdir().unwrap();
    let nb = notebook(
        dir.path(),
        "nb.ipynb",
        br#"{"nbformat": 4, "nbformat_minor": 2, "metadata": {},
  "cells": [{"cell_type": "code", "source": "import asyncio, json, tomllib, annotationlib", "outputs": []}]}"#,
    );
    let nb = nb.to_str().unwrap();
    let out = bare(["usage", nb, "--python", "3.14", "--format", "json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["third_party"], serde_json::json!([]), "{v}");
    // asyncio came with 3.4: on 3.3 it is the PyPI backport.
    let third_party = |python: &[&str]| {
        let mut args = vec!["usage", nb, "--format", "json"];
        for p in python {
            args.extend(["--python", p]);
        }
        let out = bare(&args);
        assert!(out.status.success(), "{}", stderr(&out));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let names: Vec<String> = v["third_party"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect();
        names
    };
    assert_eq!(
        third_party(&["3.3"]),
        ["annotationlib", "asyncio", "tomllib"]
    );
    assert_eq!(third_party(&["3.4", "3.5"]), ["annotationlib", "tomllib"]);
    for bad in ["3.14.1", "3.2", "2.6", "4.0", "99.99", "three"] {
        let out = bare(["usage", nb, "--python", bad]);
        assert_eq!(out.status.code(), Some(2), "{bad}: {}", stderr(&out));
        assert!(
            stderr(&out).contains(
                "known: 2.7, 3.3, 3.4, 3.5, 3.6, 3.7, 3.8, 3.9, 3.10, 3.11, 3.12, 3.13, 3.14"
            ),
            "{bad}: {}",
            stderr(&out)
        );
    }
}

#[test]
fn counts_of_zero_are_refused() {
    let env = setup();
    for args in [
        &["bank", "add", "six", "--latest", "0"][..],
        &["bank", "add", "six", "--jobs", "0"][..],
        &["bank", "build", "--latest", "0"][..],
    ] {
        let out = env.output(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains("at least 1"), "{}", stderr(&out));
    }
}

// ---- output -----------------------------------------------------------------------------

#[test]
fn every_json_document_carries_the_same_schema_version() {
    let env = setup();
    let dir = tempfile::tempdir().unwrap();
    let nb = notebook(dir.path(), "nb.ipynb", NOTEBOOK.as_bytes());
    let runs: Vec<Vec<&str>> = vec![
        vec![
            "bank", "add", "toolkit", "--latest", "2", "--format", "json",
        ],
        vec!["bank", "query", "toolkit.helper", "--format", "json"],
        vec!["bank", "query", "--module", "toolkit", "--format", "json"],
        vec!["bank", "diff", "toolkit", "5.0", "6.0", "--format", "json"],
        vec!["bank", "moves", "toolkit", "--format", "json"],
        vec!["bank", "stats", "--format", "json"],
        vec!["index", "releases", "six", "--format", "json"],
        vec!["index", "files", "six==1.16.0", "--format", "json"],
        vec!["index", "metadata", "six==1.16.0", "--format", "json"],
        vec!["usage", nb.to_str().unwrap(), "--format", "json"],
    ];
    for args in runs {
        let out = env.output(&args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["schema_version"], 1, "{args:?}: {v}");
        assert!(
            stdout(&out).starts_with("{\n  \"schema_version\": 1,"),
            "{args:?}"
        );
    }
}

#[test]
fn quiet_still_prints_the_result_and_the_summary() {
    let env = setup();
    let out = env.output(["-q", "bank", "add", "six"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with("indexed 1 release of 1 distribution"),
        "{}",
        stdout(&out)
    );
    assert!(stderr(&out).is_empty(), "{}", stderr(&out));
    let out = env.output(["-q", "bank", "query", "six.helper"]);
    assert!(
        stdout(&out).starts_with("six.helper (six, function)"),
        "{}",
        stdout(&out)
    );
    let out = env.output(["-q", "index", "releases", "six"]);
    assert!(
        stdout(&out).starts_with("six (3 releases"),
        "{}",
        stdout(&out)
    );
}

// ---- messages ---------------------------------------------------------------------------

#[test]
fn each_cause_is_said_once() {
    let out = bare(["usage", "/nonexistent/nb.ipynb"]);
    assert_eq!(out.status.code(), Some(14));
    assert_eq!(
        stderr(&out).matches("No such file or directory").count(),
        1,
        "{}",
        stderr(&out)
    );

    let env = setup();
    let out = env.output(["index", "releases", "six", "nonexistent-xyz"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert_eq!(
        stderr(&out).matches("was not found").count(),
        1,
        "{}",
        stderr(&out)
    );
    assert_eq!(stderr(&out).lines().count(), 2, "{}", stderr(&out));
    assert!(stdout(&out).starts_with("six (3 releases"));

    let out = env.output(["--offline", "bank", "add", "six"]);
    assert_eq!(out.status.code(), Some(4));
    let all = format!("{}{}", stdout(&out), stderr(&out));
    assert_eq!(all.matches("forbids fetching").count(), 1, "{all}");
}

#[test]
fn json_mode_failures_point_at_the_json() {
    let env = setup();
    let out = env.output(["bank", "add", "six", "no-such-project", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["report"]["failed"][0]["kind"], "not_found");
    // Exit 6; stderr points at the JSON's `failed`, not at "warnings above".
    run_snapshot!("bank-add-partial-json", printed(&out));
}

#[test]
fn usage_lines_do_not_show_options_set_from_the_environment() {
    let out = bare_command()
        .args(["bank", "query"])
        .env("NBENV_BANK", "/tmp/b.sqlite3")
        .env("NBENV_CACHE_DIR", "/tmp/c")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("Usage: nbenv bank query <API>"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn misses_suggest_the_next_step() {
    let env = setup();
    assert!(env.output(["bank", "add", "six"]).status.success());
    let out = env.output(["bank", "query", "pandas.DataFrame.ix"]);
    assert_eq!(out.status.code(), Some(3));
    assert!(
        stderr(&out).contains("`nbenv bank add pandas`"),
        "{}",
        stderr(&out)
    );
    // Named as the package list (and the index) spell it.
    let out = env.output(["bank", "query", "PIL.Image.open"]);
    assert!(
        stderr(&out).contains("`nbenv bank add Pillow`"),
        "{}",
        stderr(&out)
    );
    let out = env.output(["bank", "query", "sklearn.svm.SVC"]);
    assert!(
        stderr(&out).contains("`nbenv bank add scikit-learn`"),
        "{}",
        stderr(&out)
    );
    // The distribution is there, the API is not: index more of its history.
    let out = env.output(["bank", "query", "six.gone"]);
    assert!(stderr(&out).contains("--all-versions"), "{}", stderr(&out));

    // Exit 3, and only the release not indexed (1.17.0 is), with the command that indexes it.
    snapshot!(
        "bank-diff-not-indexed",
        env.printed(["bank", "diff", "six", "1.16.0", "1.17.0"])
    );
}

// ---- help, completions, package list -----------------------------------------------------

/// The snapshot `cli::human::help` takes of the same help: that both releases must be
/// indexed, `--format`'s values, and the global options (`--cache-dir` among them) in a section
/// of their own.
#[test]
fn help_groups_global_options_and_describes_diff() {
    snapshot!("help-bank-diff", printed(&bare(["bank", "diff", "--help"])));
}

#[test]
fn completions_for_each_shell() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let out = bare(["completions", shell]);
        assert!(out.status.success(), "{shell}: {}", stderr(&out));
        let script = stdout(&out);
        assert!(
            script.contains("nbenv") && script.contains("introspect"),
            "{shell}"
        );
    }
    assert_eq!(bare(["completions", "tcsh"]).status.code(), Some(2));
}

#[test]
fn the_package_list_is_built_in() {
    let env = setup();
    let elsewhere = tempfile::tempdir().unwrap();
    let out = env
        .command_with([
            "bank",
            "build",
            "--only",
            "six",
            "--latest",
            "1",
            "--no-introspect",
        ])
        .current_dir(elsewhere.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).starts_with("indexed 1 release of 1 distribution"));

    let list = elsewhere.path().join("mine.txt");
    std::fs::write(&list, "toolkit\n").unwrap();
    let out = env.output([
        "bank",
        "build",
        "--packages",
        list.to_str().unwrap(),
        "--latest",
        "2",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).starts_with("indexed 2 releases of 1 distribution"));
}

// ---- Ctrl-C -----------------------------------------------------------------------------

#[test]
fn ctrl_c_keeps_finished_releases_says_so_and_exits_130() {
    let env = setup();
    let tmp = tempfile::tempdir().unwrap();
    // Release 2.0 answers after a pause: Ctrl-C arrives while it is in flight.
    env.server().delay_next(
        "/files/toolkit-2.0-py3-none-any.whl",
        1,
        Duration::from_secs(3),
    );
    let child = env
        .command_with(["bank", "add", "toolkit", "--all-versions", "--jobs", "1"])
        .env("TMPDIR", tmp.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let out = env.output(["bank", "stats", "--format", "json"]);
        if out.status.success() {
            let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            if v["stats"]["indexed_releases"] == 1 {
                break;
            }
        }
        assert!(Instant::now() < deadline, "the build never indexed 1.0");
        std::thread::sleep(Duration::from_millis(20));
    }
    // 1.0 is written; 2.0 waits on the index.
    std::thread::sleep(Duration::from_millis(500));
    // SAFETY: kill(2) on our own child's pid.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(130),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    assert_eq!(
        stderr(&out).trim_end().lines().last(),
        Some("interrupted: 2 releases kept; 4 left for the next run"),
        "{}",
        stderr(&out)
    );
    let leftovers: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");

    // The next run indexes what was left.
    let out = env.output(["bank", "add", "toolkit", "--all-versions"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with("indexed 4 releases of 1 distribution"),
        "{}",
        stdout(&out)
    );
}

/// On a terminal `error:` is bold red, as uv and cargo print it; `NO_COLOR` keeps it plain,
/// and a pipe is never coloured. The terminal is `script`'s pseudo-terminal (util-linux).
#[test]
fn labels_are_coloured_on_a_terminal_unless_no_color() {
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("skipped: no `script` to give nbenv a terminal");
        return;
    }
    let on_a_terminal = |no_color: Option<&str>| -> String {
        let line = format!(
            "{} usage /nonexistent/nb.ipynb",
            env!("CARGO_BIN_EXE_nbenv")
        );
        let mut cmd = Command::new("script");
        cmd.args(["-qec", &line, "/dev/null"])
            .env_remove("NO_COLOR")
            .env_remove("CLICOLOR_FORCE");
        if let Some(v) = no_color {
            cmd.env("NO_COLOR", v);
        }
        let out = cmd.output().unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let coloured = on_a_terminal(None);
    assert!(coloured.contains("\x1b[1;31merror\x1b[0m"), "{coloured:?}");
    let plain = on_a_terminal(Some("1"));
    assert!(
        plain.contains("error: ") && !plain.contains('\x1b'),
        "{plain:?}"
    );
    let piped = bare_command()
        .args(["usage", "/nonexistent/nb.ipynb"])
        .env_remove("NO_COLOR")
        .output()
        .unwrap();
    let piped = String::from_utf8_lossy(&piped.stderr);
    assert!(
        piped.starts_with("error: ") && !piped.contains('\x1b'),
        "{piped:?}"
    );
}

/// `nbenv ... | head` closing the pipe before nbenv writes is not a failure: results go to
/// stdout through the printer, whose write returns the error (`print!` panicked, exit 101).
#[test]
fn a_reader_that_closed_the_pipe_is_not_a_failure() {
    let ctx = TestContext::with_index();
    ctx.server().publish(
        "toolkit",
        &[FixtureFile::wheel(
            &WheelBuilder::new("toolkit", "1.0").file("toolkit/__init__.py", "X = 1\n"),
        )],
    );
    let added = ctx.run(["bank", "add", "toolkit"]);
    assert_eq!(added.code, 0, "{}", added.text());
    // A pipe whose reader is gone before nbenv starts: every write meets EPIPE.
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = ctx
        .command()
        .args(["bank", "runs"])
        .stdout(writer)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}
