//! The text people read: every command's help and human output, as reviewed snapshots
//! (`tests/it/cli/snapshots/`). A change of wording or alignment shows up as a diff to accept with
//! `cargo insta review` (or `INSTA_UPDATE=always cargo nextest run -E 'test(/^cli::human::/)'`), never by
//! accident. The index is the loopback fixture server; ports, temporary paths and timings are
//! replaced by placeholders.

use std::path::Path;

use crate::support::archives::WheelBuilder;
use crate::support::context::{bare_command, TestContext, Uploaded};
use crate::support::server::{FixtureFile, PageMode, TestServer};

use crate::support::snapshot::run;

/// The subcommands `nbenv ARGS --help` lists (without `help`), as paths from the top.
fn subcommands(args: &[String]) -> Vec<Vec<String>> {
    let out = run(bare_command().args(args).arg("--help"));
    out.lines()
        .skip_while(|l| *l != "Commands:")
        .skip(1)
        .take_while(|l| !l.is_empty())
        // A command's line starts two spaces in; its wrapped description, further in.
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(|name| args.iter().cloned().chain([name.to_string()]).collect())
        .collect()
}

/// The help of every command and subcommand: found from the help itself, so that a new
/// command cannot go without a snapshot (a missing snapshot fails the test).
#[test]
fn help() {
    let mut commands: Vec<Vec<String>> = vec![vec![]];
    let mut i = 0;
    while i < commands.len() {
        let more = subcommands(&commands[i]);
        commands.extend(more);
        i += 1;
    }
    let names: Vec<String> = commands.iter().map(|c| c.join(" ")).collect();
    for known in [
        "infer",
        "restore",
        "verify",
        "batch",
        "bank check",
        "cache prune",
    ] {
        assert!(
            names.iter().any(|n| n == known),
            "{known} not found in {names:?}"
        );
    }
    for args in commands {
        let name = if args.is_empty() {
            "help-nbenv".to_string()
        } else {
            format!("help-{}", args.join("-"))
        };
        let out = run(bare_command().args(args).arg("--help"));
        snapshot!(name, out);
    }
    // The short form too, for the top level: what most users see first.
    snapshot!("help-nbenv-short", run(bare_command().arg("-h")));
}

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/notebooks")
        .join(name)
        .to_str()
        .unwrap()
        .to_string()
}

#[test]
fn usage_output() {
    for name in [
        "sklearn_old.ipynb",
        "magics_awkward.ipynb",
        "with_helper/analysis.ipynb",
        "python2.ipynb",
        "percent_script.py",
    ] {
        // Relative to the repository, as the README runs it.
        let out = run(bare_command()
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(["usage", &format!("fixtures/notebooks/{name}")]));
        snapshot!(format!("usage-{}", name.replace('/', "-")), out);
    }
    let out = run(bare_command()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "usage",
            "fixtures/notebooks/sklearn_old.ipynb",
            "--format",
            "json",
        ]));
    snapshot!("usage-sklearn_old.ipynb-json", out);
    let _ = fixture;
}

fn wheel(name: &str, version: &str, init: &str) -> FixtureFile {
    let w = WheelBuilder::new(name, version)
        .file(&format!("{}/__init__.py", name.replace('-', "_")), init)
        .requires("numpy>=1.10")
        .requires_python(">=3.7");
    FixtureFile {
        upload_time: Some("2020-01-02T03:04:05Z".into()),
        requires_python: Some(">=3.7".into()),
        ..FixtureFile::new(&w.filename(), w.build())
    }
}

/// `toolkit` 1.0 (`helper(a)` and `gone`) and 2.0 (`helper(a, b=1)` and `Model.fit`), as
/// [`wheel`]s, on a loopback index; the bank empty.
pub(super) fn helper_history() -> TestContext {
    let server = TestServer::start(PageMode::Json);
    server.publish(
        "toolkit",
        &[
            wheel("toolkit", "1.0", "def helper(a):\n    return a\n\ndef gone():\n    pass\n"),
            wheel("toolkit", "2.0", "def helper(a, b=1):\n    return a\n\nclass Model:\n    def fit(self, X):\n        return self\n"),
        ],
    );
    TestContext::with_server(server)
}

#[test]
fn index_and_bank_output() {
    let ctx = helper_history();
    let nbenv = |args: &[&str]| run(ctx.command().args(args));
    let runs: &[(&str, &[&str])] = &[
        ("index-releases", &["index", "releases", "toolkit"]),
        ("index-files", &["index", "files", "toolkit==1.0"]),
        ("index-files-missing", &["index", "files", "toolkit==9.9"]),
        ("index-metadata", &["index", "metadata", "toolkit==2.0"]),
        (
            "index-releases-json",
            &["index", "releases", "toolkit", "--format", "json"],
        ),
        (
            "index-files-json",
            &["index", "files", "toolkit==1.0", "--format", "json"],
        ),
        (
            "index-metadata-json",
            &["index", "metadata", "toolkit==2.0", "--format", "json"],
        ),
        ("bank-query-no-bank", &["bank", "query", "toolkit.helper"]),
        ("bank-add", &["bank", "add", "toolkit", "--all-versions"]),
        ("bank-add-again", &["bank", "add", "toolkit==2.0"]),
        ("bank-add-no-match", &["bank", "add", "toolkit>=3"]),
        ("bank-query", &["bank", "query", "toolkit.helper"]),
        ("bank-query-gone", &["bank", "query", "toolkit.gone"]),
        (
            "bank-query-module",
            &["bank", "query", "--module", "toolkit"],
        ),
        ("bank-query-miss", &["bank", "query", "pandas.DataFrame.ix"]),
        ("bank-diff", &["bank", "diff", "toolkit", "1.0", "2.0"]),
        (
            "bank-diff-missing",
            &["bank", "diff", "toolkit", "1.0", "3.0"],
        ),
        ("bank-stats", &["bank", "stats"]),
        (
            "bank-query-json",
            &["bank", "query", "toolkit.helper", "--format", "json"],
        ),
        (
            "bank-query-module-json",
            &["bank", "query", "--module", "toolkit", "--format", "json"],
        ),
        (
            "bank-diff-json",
            &["bank", "diff", "toolkit", "1.0", "2.0", "--format", "json"],
        ),
        ("bank-stats-json", &["bank", "stats", "--format", "json"]),
    ];
    for (name, args) in runs {
        snapshot!(*name, nbenv(args));
    }
}

/// Releases of `project`, each a wheel whose `__init__.py` is the source given, uploaded a
/// year apart from 2010.
fn wheels(project: &str, releases: &[(&str, &str)]) -> Vec<WheelBuilder> {
    releases
        .iter()
        .map(|(version, init)| {
            WheelBuilder::new(project, version).file(&format!("{project}/__init__.py"), init)
        })
        .collect()
}

/// A notebook of code cells in the context's directory, with a Python 3 kernel; its path.
pub(super) fn notebook(ctx: &TestContext, name: &str, cells: &[&str]) -> String {
    let path = ctx.write(name, &crate::support::corpus::ipynb(cells));
    path.display().to_string()
}

/// `toolkit` 1.0 has `old_api`, 2.0 removed it; `dep` 1.0 is what 2.0 needs.
pub(super) fn toolkit_context() -> TestContext {
    let ctx = TestContext::with_index();
    let toolkit = [
        WheelBuilder::new("toolkit", "1.0").file(
            "toolkit/__init__.py",
            "def old_api():\n    return 41\ndef kept():\n    return 1\n",
        ),
        WheelBuilder::new("toolkit", "2.0")
            .file("toolkit/__init__.py", "def kept():\n    return 1\n")
            .requires("dep>=1"),
    ];
    ctx.publish("toolkit", &toolkit, Uploaded::Yearly(2010));
    ctx.publish(
        "dep",
        &wheels("dep", &[("1.0", "X = 1\n")]),
        Uploaded::Yearly(2010),
    );
    ctx
}

/// `infer`: the pins with the evidence behind them, and the refusal when no release installs.
#[test]
fn infer_output() {
    let ctx = toolkit_context();
    let nb = notebook(
        &ctx,
        "nb.ipynb",
        &["import toolkit\nimport helpers", "toolkit.old_api()"],
    );
    ctx.write("helpers.py", "def load():\n    pass\n");
    // The machine's python3, so that it is installed here wherever the test runs.
    let python = crate::support::cli::python3_version();
    let infer = |nb: &str| run(ctx.command().args(["infer", nb, "--python", &python]));
    run_snapshot!("infer-pins", infer(&nb));
    let json = run(ctx
        .command()
        .args(["infer", &nb, "--python", &python, "--format", "json"]));
    run_snapshot!("infer-json", json);

    let py2 = TestContext::with_index();
    let only = WheelBuilder::new("toolkit", "1.0")
        .tag("py2-none-any")
        .file("toolkit/__init__.py", "def old_api():\n    pass\n");
    py2.publish("toolkit", &[only], Uploaded::Yearly(2010));
    let nb = notebook(&py2, "nb.ipynb", &["import toolkit\ntoolkit.old_api()"]);
    let out = run(py2.command().args(["infer", &nb, "--python", &python]));
    run_snapshot!("infer-no-environment", out);
}

/// `verify`: a run to the end, and a stop at an environment error with its classification.
#[test]
fn verify_output() {
    let ctx = toolkit_context();
    let nb = notebook(
        &ctx,
        "nb.ipynb",
        &[
            "import toolkit\nprint(toolkit.kept())",
            "print(toolkit.old_api() + 1)",
        ],
    );
    let python = crate::support::cli::python3_version();
    let verify = |pins: &str, format: &str| {
        let req = ctx.write("requirements.txt", pins).display().to_string();
        run(ctx.command().args([
            "verify",
            &nb,
            "-r",
            &req,
            "--python",
            &python,
            "--no-kernel-runtime",
            "--format",
            format,
        ]))
    };
    run_snapshot!("verify-ran", verify("toolkit==1.0\n", "text"));
    run_snapshot!("verify-ran-json", verify("toolkit==1.0\n", "json"));
    run_snapshot!(
        "verify-environment-error",
        verify("toolkit==2.0\ndep==1.0\n", "text")
    );
    // uv installed with nbenv's cache inside the context, not the machine's.
    assert!(ctx.uv_cache().is_dir(), "{}", ctx.uv_cache().display());
}

/// `restore`: rounds that learn from an environment error, and an end at the code's own
/// error that no round can fix.
#[test]
fn restore_output() {
    let ctx = TestContext::with_server(crate::support::toolkit::python2_only_api_index());
    let python = crate::support::cli::python3_version();
    let restore = |nb: &str, format: &str| {
        run(ctx.command().args([
            "restore",
            nb,
            "--python",
            &python,
            "--no-kernel-runtime",
            "--no-kernel-spec",
            "--format",
            format,
        ]))
    };
    let nb = notebook(
        &ctx,
        "nb.ipynb",
        &["import toolkit", "print(toolkit.old_api() + 1)"],
    );
    run_snapshot!("restore-rounds", restore(&nb, "text"));
    run_snapshot!("restore-rounds-json", restore(&nb, "json"));
    let nb = notebook(
        &ctx,
        "bug.ipynb",
        &["import toolkit", "raise ValueError('the code is wrong')"],
    );
    run_snapshot!("restore-code-error", restore(&nb, "text"));
}

/// `batch`: a corpus measured at the usage stage, and a corpus that is not there.
#[test]
fn batch_output() {
    let ctx = TestContext::new().env("NBENV_INDEX_TTL", "0");
    notebook(&ctx, "corpus/plain.ipynb", &["x = 1", "print(x + 1)"]);
    notebook(
        &ctx,
        "corpus/sub/uses.ipynb",
        &["import numpy as np", "np.zeros(3)"],
    );
    ctx.write("corpus/broken.ipynb", "{\"cells\": [");
    let (corpus, out) = (ctx.path("corpus"), ctx.path("records.jsonl"));
    let batch = |corpus: &Path| {
        run(ctx
            .command()
            .arg("batch")
            .arg(corpus)
            .args(["--stage", "usage", "--jobs", "1", "--out"])
            .arg(&out))
    };
    run_snapshot!("batch-usage", batch(&corpus));
    run_snapshot!("batch-no-corpus", batch(&ctx.path("no/such/dir")));
    // `report` over the records the first batch wrote.
    for (name, format) in [
        ("report", "text"),
        ("report-markdown", "markdown"),
        ("report-json", "json"),
    ] {
        let report = run(ctx
            .command()
            .arg("report")
            .arg(&out)
            .args(["--format", format]));
        run_snapshot!(name, report);
    }
}

/// What the cache holds, as people read it (`512 B`, `3.4 KiB`) and in JSON, but not the
/// budgets (defaults, the same everywhere); and the table's size column, whose width follows
/// the widest size, at one width.
pub(super) const CACHE_SIZES: &[(&str, &str)] = &[
    (r"ENTRIES +SIZE", "ENTRIES  SIZE"),
    (r"  +\d+(\.\d)? (B|KiB|MiB|GiB)\b", "  [size]"),
    (r"(: |; |, )\d+(\.\d)? (B|KiB|MiB|GiB)\b", "$1[size]"),
    (
        r#""(bytes|budgeted_bytes|environments_counted_bytes|environments_shared_bytes|freed_bytes)": \d+"#,
        r#""$1": [size]"#,
    ),
];

/// A bank's and a snapshot's sizes, as people read them and in JSON.
const SNAPSHOT_SIZES: &[(&str, &str)] = &[
    (r"\b\d+(\.\d)? (B|KiB|MiB|GiB)\b", "[size]"),
    (
        r#""(snapshot_bytes|db_len|payload_len)": \d+"#,
        r#""$1": [size]"#,
    ),
];

/// A bank that read `toolkit` 1.0 and 2.0 from the loopback index, its cache holding what
/// that fetched; the temporary directory (where scratch venvs are looked for) inside it.
pub(super) fn added_context() -> TestContext {
    let server = TestServer::start(PageMode::Json);
    server.publish(
        "toolkit",
        &[
            wheel("toolkit", "1.0", "def helper(a):\n    return a\n"),
            wheel("toolkit", "2.0", "def helper(a, b=1):\n    return a\n"),
        ],
    );
    let ctx = TestContext::with_server(server);
    let tmp = ctx.path("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let ctx = ctx.env("TMPDIR", &tmp);
    let out = run(ctx
        .command()
        .args(["bank", "add", "toolkit", "--all-versions"]));
    assert!(out.ends_with("[exit 0]\n"), "{out}");
    ctx
}

/// `cache info` and `cache prune --dry-run` on a cache that holds what a `bank add` fetched.
#[test]
fn cache_output() {
    let ctx = added_context();
    let nbenv = |args: &[&str]| run(ctx.command().args(args));
    for (name, args) in [
        ("cache-info", &["cache", "info"][..]),
        ("cache-info-json", &["cache", "info", "--format", "json"]),
        ("cache-prune-dry-run", &["cache", "prune", "--dry-run"]),
        (
            "cache-prune-dry-run-json",
            &["cache", "prune", "--dry-run", "--format", "json"],
        ),
    ] {
        let out = nbenv(args);
        filtered_snapshot!(CACHE_SIZES, name, out);
    }
}

/// `bank check` on a healthy bank, and `bank export` of it to a file that `bank import`
/// installs in a context with no bank.
#[test]
fn bank_check_export_import_output() {
    let ctx = added_context();
    let nbenv = |ctx: &TestContext, args: &[&str]| run(ctx.command().args(args));
    let extra: Vec<(&str, &str)> = SNAPSHOT_SIZES
        .iter()
        .copied()
        .chain([
            (r"[0-9a-f]{64}", "[sha256]"),
            (r"ratio \d+\.\d+", "ratio [ratio]"),
            (r#""ratio": \d+(\.\d+)?(e-?\d+)?"#, r#""ratio": [ratio]"#),
            (r"\d+ MB/s", "[rate]"),
            (r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", "[instant]"),
            (
                r#""nbenv_version": "[^"]+""#,
                r#""nbenv_version": "[version]""#,
            ),
        ])
        .collect();
    for (name, args) in [
        ("bank-check", &["bank", "check"][..]),
        ("bank-check-json", &["bank", "check", "--format", "json"]),
    ] {
        let out = nbenv(&ctx, args);
        filtered_snapshot!(extra, name, out);
    }
    let file = ctx.path("bank.nbsnap").display().to_string();
    let json_file = ctx.path("bank-json.nbsnap").display().to_string();
    for (name, args) in [
        ("bank-export", &["bank", "export", &file][..]),
        (
            "bank-export-json",
            &["bank", "export", &json_file, "--format", "json"],
        ),
    ] {
        let out = nbenv(&ctx, args);
        filtered_snapshot!(extra, name, out);
    }
    for (name, format) in [("bank-import", "text"), ("bank-import-json", "json")] {
        let fresh = TestContext::new();
        let out = nbenv(&fresh, &["bank", "import", &file, "--format", format]);
        filtered_snapshot!(extra, name, out);
    }
}

/// `bank runs` after a restoration recorded its rounds, one of which found a release that
/// fails to import.
#[test]
fn bank_runs_output() {
    let ctx = TestContext::with_index();
    let toolkit = [
        WheelBuilder::new("toolkit", "1.0").file("toolkit/__init__.py", "def api():\n    return 41\n"),
        // An ImportError on a condition static reading cannot decide: the bank believes it
        // imports, the run finds it does not.
        WheelBuilder::new("toolkit", "2.0").file(
            "toolkit/__init__.py",
            "def api():\n    return 41\nimport os\nif 'NBENV_NEVER_SET' not in os.environ:\n    raise ImportError('toolkit._core: module compiled against API version 0x10')\n",
        ),
    ];
    ctx.publish("toolkit", &toolkit, Uploaded::Yearly(2010));
    let nb = notebook(
        &ctx,
        "nb.ipynb",
        &["import toolkit\nprint(toolkit.api() + 1)"],
    );
    let python = crate::support::cli::python3_version();
    let out = run(ctx.command().args([
        "restore",
        &nb,
        "--python",
        &python,
        "--no-kernel-runtime",
        "--no-kernel-spec",
    ]));
    assert!(out.ends_with("[exit 0]\n"), "{out}");
    let dates: &[(&str, &str)] = &[(r"\d{4}-\d\d-\d\d\b", "[date]")];
    for (name, format) in [("bank-runs", "text"), ("bank-runs-json", "json")] {
        let out = run(ctx.command().args(["bank", "runs", "--format", format]));
        filtered_snapshot!(dates, name, out);
    }
}
