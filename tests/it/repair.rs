//! Repair as a search guided by the notebook's own record, end to end against a loopback
//! index: a cell whose stored outputs show it ran for its author and raises now points at
//! the libraries it ran through; the first repair jumps to the notebook's era, the next ones
//! bisect; what a run refuted is never written and never tried again, in this restoration or
//! the next; the era is preferred for dependencies too. Needs `python3` and uv.

use std::path::Path;

use crate::support::archives::{in_tree_sdist, WheelBuilder};
use crate::support::cli::{pins, python3_version};
use crate::support::context::{Run, TestContext, Uploaded};
use crate::support::git::commit;
use crate::support::server::FixtureFile;
use crate::support::snapshot::RUNS;

/// What a command printed (`printed`), against the snapshot `$name` in
/// `tests/it/cli/snapshots/`, with the [`RUNS`] placeholders.
macro_rules! snapshot {
    ($name:expr, $text:expr) => {
        crate::assert_printed!(RUNS, $name, $text)
    };
}

/// What a command printed, stdout then stderr, then its exit code, as
/// `support::snapshot::printed` shows it.
fn printed(code: i32, out: &str, err: &str) -> String {
    format!("{out}{err}[exit {code}]\n")
}

/// A notebook of code cells, each `(source, stored stdout)`: a stored output and an
/// execution count say the cell ran for its author.
fn notebook(dir: &Path, cells: &[(&str, &str)]) -> String {
    let cells: Vec<serde_json::Value> = cells
        .iter()
        .enumerate()
        .map(|(i, (source, stdout))| {
            let outputs = if stdout.is_empty() {
                serde_json::json!([])
            } else {
                serde_json::json!([{"output_type": "stream", "name": "stdout", "text": stdout}])
            };
            serde_json::json!({"cell_type": "code", "execution_count": i + 1, "metadata": {},
                               "outputs": outputs, "source": source})
        })
        .collect();
    write_notebook(dir, cells)
}

/// A notebook of code cells, each `(source, stored execution count)`.
fn counted_notebook(dir: &Path, cells: &[(&str, u32)]) -> String {
    let cells = cells
        .iter()
        .map(|(source, count)| {
            serde_json::json!({"cell_type": "code", "execution_count": count, "metadata": {},
                               "outputs": [], "source": source})
        })
        .collect();
    write_notebook(dir, cells)
}

/// `dir/nb.ipynb` with these cells and a Python 3 kernel; its path.
fn write_notebook(dir: &Path, cells: Vec<serde_json::Value>) -> String {
    let nb = serde_json::json!({
        "cells": cells,
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}},
        "nbformat": 4, "nbformat_minor": 2
    });
    let path = dir.join("nb.ipynb");
    std::fs::write(&path, nb.to_string()).unwrap();
    path.display().to_string()
}

/// `restore` on this machine's python3, plainly (no kernel runtime, no kernel spec).
fn restore(ctx: &TestContext, nb: &str, extra: &[&str]) -> Run {
    let python = python3_version();
    let mut args = vec![
        "restore",
        nb,
        "--python",
        &python,
        "--no-kernel-runtime",
        "--no-kernel-spec",
    ];
    args.extend_from_slice(extra);
    ctx.run(args)
}

/// `calc` 1.0 to 1.3, a year apart from 2010: from 1.2 on, `solve` raises inside the library
/// where it used to return a value (a change of behaviour no bank sees).
fn calc(ctx: &TestContext) {
    calc_raising_from_12(
        ctx,
        "def solve(x):\n    return _check(x)\n\ndef _check(x):\n    raise ValueError('matrix is singular')\n",
    );
}

/// `calc` 1.0 to 1.3, a year apart from 2010: 1.0 and 1.1 return `x * 2`, 1.2 and 1.3 are
/// `raises`.
fn calc_raising_from_12(ctx: &TestContext, raises: &str) {
    let works = "def solve(x):\n    return x * 2\n";
    let wheels = [
        ("1.0", works),
        ("1.1", works),
        ("1.2", raises),
        ("1.3", raises),
    ]
    .map(|(v, src)| WheelBuilder::new("calc", v).file("calc/__init__.py", src));
    ctx.publish("calc", &wheels, Uploaded::Yearly(2010));
}

/// Case 3: the cell's stored output shows it ran for its author; today it raises inside the
/// library. That is the environment's (behaviour changed), not the notebook's code: the
/// rounds search calc's releases and the notebook runs.
#[test]
fn a_cell_that_worked_for_its_author_and_raises_now_is_the_environments() {
    let ctx = TestContext::with_index();
    calc(&ctx);
    let nb = notebook(
        ctx.root(),
        &[("import calc", ""), ("print(calc.solve(21))", "42\n")],
    );
    let (code, out, err) = restore(&ctx, &nb, &[]).parts();
    assert_eq!(code, 0, "{err}");
    assert_eq!(pins(&out), ["calc==1.1"], "{out}");
    // The environment's, since the stored output shows the cell ran; calc 1.1 next.
    snapshot!("repair-worked-for-its-author", printed(code, &out, &err));
}

/// Item 7 within the search: `calc` 1.0 and 1.1 published only sdists, of a project whose
/// later releases have binary wheels (pyproj before 2.0 on Linux's Python 2.7). 1.3 and 1.2,
/// the releases with a wheel, refuse the cell; with none left, the search builds 1.1 from its
/// sdist and the notebook runs. `--wheels-only` refuses the build.
#[test]
fn with_no_wheel_left_the_search_builds_a_release_from_its_sdist() {
    let ctx = TestContext::with_index();
    let works = "def solve(x):\n    return x * 2\n";
    let raises = "def solve(x):\n    raise ValueError('matrix is singular')\n";
    let nodot = python3_version().replace('.', "");
    let binary = format!("cp{nodot}-cp{nodot}-manylinux_2_17_x86_64");
    let sdist = |v: &str, year: u32| FixtureFile {
        upload_time: Some(format!("{year}-01-01T00:00:00Z")),
        ..FixtureFile::new(
            &format!("calc-{v}.tar.gz"),
            in_tree_sdist("calc", v, &[], &[("calc/__init__.py", works)]),
        )
    };
    let wheel = |v: &str, year: u32| {
        let w = WheelBuilder::new("calc", v)
            .tag(&binary)
            .file("calc/__init__.py", raises);
        FixtureFile {
            upload_time: Some(format!("{year}-01-01T00:00:00Z")),
            ..FixtureFile::new(&w.filename(), w.build())
        }
    };
    ctx.server().publish(
        "calc",
        &[
            sdist("1.0", 2010),
            sdist("1.1", 2011),
            wheel("1.2", 2012),
            wheel("1.3", 2013),
        ],
    );
    let nb = notebook(
        ctx.root(),
        &[("import calc", ""), ("print(calc.solve(21))", "42\n")],
    );
    let (code, out, err) = restore(&ctx, &nb, &["--date", "none"]).parts();
    assert_eq!(code, 0, "{err}");
    assert_eq!(pins(&out), ["calc==1.1"], "{out}");
    // Built from its sdist, with why, in the search's line and the header.
    snapshot!("repair-search-builds-an-sdist", printed(code, &out, &err));
    // A rerun: what the first refuted (1.3, 1.2 and every newer release) leaves no wheel,
    // so round 1 builds within those bounds (no resolution from wheels alone), as the first
    // run's search did in its round 3.
    let (code, out, err) = restore(&ctx, &nb, &["--date", "none"]).parts();
    assert_eq!(code, 0, "{err}");
    assert_eq!(pins(&out), ["calc==1.1"], "{out}");
    assert!(err.contains("round 1: Python"), "{err}");
    assert!(!err.contains("round 2"), "{err}");
    let (code, _, err) = ctx.run(["bank", "runs", "--forget"]).parts();
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = restore(&ctx, &nb, &["--date", "none", "--wheels-only"]).parts();
    assert_eq!(code, 21, "{err}");
    // 1.3, then 1.2, both stopped; nothing built from an sdist.
    snapshot!("repair-search-wheels-only", printed(code, &out, &err));
}

/// A library whose code the run's Python cannot read (`async` as a parameter name, a keyword
/// since 3.7), released before that Python came out, is too old for it: the search moves up
/// to the first release after the Python, not down through older ones that fail alike.
#[test]
fn a_release_too_old_for_the_python_moves_the_search_up() {
    let ctx = TestContext::with_index();
    let old = "def solve(x, async=False):\n    return x * 2\n";
    let new = "def solve(x, is_async=False):\n    return x * 2\n";
    let wheel = |v: &str, src: &str, day: &str| {
        let w = WheelBuilder::new("calc", v).file("calc/__init__.py", src);
        FixtureFile {
            upload_time: Some(format!("{day}T00:00:00Z")),
            ..FixtureFile::new(&w.filename(), w.build())
        }
    };
    ctx.server().publish(
        "calc",
        &[
            wheel("1.0", old, "2015-01-01"),
            wheel("1.1", old, "2016-01-01"),
            wheel("2.0", new, "2025-01-01"),
        ],
    );
    let nb = notebook(
        ctx.root(),
        &[("import calc", ""), ("print(calc.solve(21))", "42\n")],
    );
    let (code, out, err) = restore(&ctx, &nb, &["--date", "2016-06-01"]).parts();
    assert_eq!(code, 0, "{err}");
    assert_eq!(pins(&out), ["calc==2.0"], "{out}");
    // The era's release first (calc 1.1), then up to the first after this Python.
    snapshot!("repair-too-old-for-the-python", printed(code, &out, &err));
}

/// The standard library raising on a library's behalf is the library's doing: matplotlib
/// 3.1.2 runs `convert --version` through `subprocess.check_output` when it is imported, and a
/// `convert` that exits 1 raised `CalledProcessError` there, classed the notebook's code since
/// the innermost frame was `subprocess`. Now it is behaviour changed and the search runs.
#[test]
fn the_standard_library_raising_for_a_library_is_the_librarys() {
    let ctx = TestContext::with_index();
    calc_raising_from_12(
        &ctx,
        "import subprocess, sys\n\ndef solve(x):\n    subprocess.check_output([sys.executable, '-c', 'raise SystemExit(1)'])\n    return x * 2\n",
    );
    let nb = notebook(
        ctx.root(),
        &[("import calc", ""), ("print(calc.solve(21))", "42\n")],
    );
    let (code, out, err) = restore(&ctx, &nb, &[]).parts();
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains(
            "round 1: stopped at cell 2 (code cell 2 of 2): environment: CalledProcessError now"
        ),
        "{err}"
    );
    assert_eq!(pins(&out), ["calc==1.1"], "{out}");
}

/// The same error in a cell with no stored record of running stays the notebook's code.
#[test]
fn a_cell_with_no_record_of_running_keeps_its_error() {
    let ctx = TestContext::with_index();
    calc(&ctx);
    let nb = ctx.root().join("nb.ipynb");
    let doc = serde_json::json!({
        "cells": [
            {"cell_type": "code", "execution_count": null, "metadata": {}, "outputs": [],
             "source": "import calc"},
            {"cell_type": "code", "execution_count": null, "metadata": {}, "outputs": [],
             "source": "print(calc.solve(21))"}
        ],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 2
    });
    std::fs::write(&nb, doc.to_string()).unwrap();
    let (code, out, err) = restore(&ctx, &nb.display().to_string(), &[]).parts();
    assert_eq!(code, 21, "{err}");
    // The code's: no round 2.
    snapshot!("repair-no-record-of-running", printed(code, &out, &err));
}

/// Case 2 and item 5: out of rounds, the requirements are what the search would run next,
/// never the release the run refuted; a second restoration reads what the first refuted
/// from the bank and does not try it again.
#[test]
fn a_refuted_release_is_never_written_nor_tried_again() {
    let ctx = TestContext::with_index();
    calc(&ctx);
    let nb = notebook(
        ctx.root(),
        &[("import calc", ""), ("print(calc.solve(21))", "42\n")],
    );
    let out = ctx.path("requirements.txt");
    let (code, _, err) = restore(
        &ctx,
        &nb,
        &["--max-rounds", "1", "-o", out.to_str().unwrap()],
    )
    .parts();
    assert_eq!(code, 21, "{err}");
    assert!(err.contains("not restored: --max-rounds reached"), "{err}");
    let written = std::fs::read_to_string(&out).unwrap();
    assert_eq!(pins(&written), ["calc==1.1"], "{written}");
    assert!(
        written.contains("# Not run: the rounds ran out (--max-rounds 1)"),
        "{written}"
    );
    assert!(
        written.contains("calc 1.3 (cell 2, and every newer release)"),
        "{written}"
    );
    // The rerun starts past what the first one refuted.
    let (code, out, err) = restore(&ctx, &nb, &[]).parts();
    assert_eq!(code, 0, "{err}");
    assert_eq!(pins(&out), ["calc==1.1"], "{out}");
    // calc 1.3 is said to be refuted, and round 1 is 1.2: 1.3 is never tried.
    snapshot!("repair-refuted-not-tried-again", printed(code, &out, &err));
    // Forgetting the run records forgets what they refuted.
    let (code, _, err) = ctx.run(["bank", "runs", "--forget"]).parts();
    assert_eq!(code, 0, "{err}");
    let (_, _, err) = restore(&ctx, &nb, &["--max-rounds", "1"]).parts();
    assert!(err.contains("calc==1.3"), "{err}");
}

/// A rerun keeps the bounds the first run's search set, not only the releases it tried:
/// calc 1.2 (the era's) failed, so 1.3 is taken to fail too. Rerun without the era
/// preference, round 1 is 1.1, not the newest (1.3), which the first run never tried.
#[test]
fn a_rerun_keeps_the_bounds_the_first_run_set() {
    let ctx = TestContext::with_index();
    calc(&ctx);
    let nb = notebook(
        ctx.root(),
        &[("import calc", ""), ("print(calc.solve(21))", "42\n")],
    );
    let (code, _, err) = restore(&ctx, &nb, &["--max-rounds", "1", "--date", "2012-06-01"]).parts();
    assert_eq!(code, 21, "{err}");
    assert!(
        err.contains("round 1: Python") && err.contains("calc==1.2"),
        "{err}"
    );
    let (code, out, err) = restore(&ctx, &nb, &["--date", "none"]).parts();
    assert_eq!(code, 0, "{err}");
    assert_eq!(pins(&out), ["calc==1.1"], "{out}");
    assert!(!err.contains("calc==1.3"), "{err}");
    snapshot!("repair-rerun-keeps-the-bounds", printed(code, &out, &err));
}

/// Run out of order by its author: cell 2 uses `y`, which cell 3 defines, and the stored
/// counts say cell 3 ran first. Top to bottom it stops at a NameError no environment
/// repairs; the next round runs cell 3 before cell 2, on the same environment, and the
/// requirements say so. Only that cell moves: cell 4's count is the lowest (the `x` it
/// used came from a cell deleted since), and running every cell by its count would stop
/// there. Where the counts do not show it, the stop stays the code's.
#[test]
fn a_cell_its_author_ran_first_runs_first_again() {
    let ctx = TestContext::with_index();
    let cells = [
        ("x = 1", 10),
        ("print(x + y)", 12),
        ("y = 2", 11),
        ("z = x * 3\nprint(z)", 2),
    ];
    let nb = counted_notebook(ctx.root(), &cells);
    let out = ctx.path("requirements.txt");
    let (code, _, err) = restore(&ctx, &nb, &["-o", out.to_str().unwrap()]).parts();
    assert_eq!(code, 0, "{err}");
    let written = std::fs::read_to_string(&out).unwrap();
    assert!(
        written.contains("# Ran as its author did: cell 3 before cell 2"),
        "{written}"
    );
    snapshot!("repair-author-order", printed(code, &written, &err));
    // `verify -r` reads the header and runs the cells so too.
    let python = python3_version();
    let verify = [
        "verify",
        &nb,
        "-r",
        out.to_str().unwrap(),
        "--python",
        &python,
        "--no-kernel-runtime",
    ];
    let (code, _, err) = ctx.run(verify).parts();
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("ran as its author did (cell 3 before cell 2): running it so"),
        "{err}"
    );

    let in_file_order = [("x = 1", 1), ("print(x + y)", 2), ("y = 2", 3)];
    let nb = counted_notebook(ctx.root(), &in_file_order);
    let (code, _, err) = restore(&ctx, &nb, &[]).parts();
    assert_eq!(code, 21, "{err}");
    assert!(!err.contains("round 2"), "{err}");
    assert!(!err.contains("before cell"), "{err}");
}

/// A cell past its time limit is no environment's fault, nor the notebook's code: the stop
/// says which, and the option that gives it more time.
#[test]
fn a_cell_past_its_time_limit_says_which_option_gives_it_more() {
    let ctx = TestContext::with_index();
    let nb = counted_notebook(ctx.root(), &[("import time\ntime.sleep(60)", 1)]);
    let (code, _, err) = restore(&ctx, &nb, &["--cell-timeout", "1"]).parts();
    assert_eq!(code, 21, "{err}");
    assert!(
        err.contains(
            "not restored: the first error is not the environment's (a cell ran past its time \
             limit: --cell-timeout gives it more)"
        ),
        "{err}"
    );
}

/// Case 1: a keyword the newest releases refuse behind `**kwargs`, each signature reading
/// otherwise (the bank cannot tell which releases refuse it). The rounds halve the releases
/// left open instead of walking back one release a round (five rounds here); with the
/// notebook's era, its release is the first one tried.
#[test]
fn a_keyword_hidden_by_kwargs_is_bisected_and_the_era_comes_first() {
    let ctx = TestContext::with_index();
    let takes = "def plot(x, hold=False):\n    return x\n";
    let refuses = |i: usize| {
        format!(
            "def plot(x, width={i}, **kwargs):\n    _set(kwargs)\n    return x\n\n\
             def _set(props):\n    for k in props:\n        \
             raise TypeError('set() got an unexpected keyword argument %r' % k)\n"
        )
    };
    let mut wheels: Vec<WheelBuilder> = ["1.0", "1.1", "1.2"]
        .iter()
        .map(|v| WheelBuilder::new("plotkit", v).file("plotkit/__init__.py", takes))
        .collect();
    for (i, v) in ["2.0", "2.1", "2.2", "2.3", "2.4"].iter().enumerate() {
        wheels.push(WheelBuilder::new("plotkit", v).file("plotkit/__init__.py", refuses(i)));
    }
    ctx.publish("plotkit", &wheels, Uploaded::Yearly(2010));
    let dir = ctx.path("repo");
    std::fs::create_dir_all(&dir).unwrap();
    let nb = notebook(
        &dir,
        &[
            ("import plotkit", ""),
            ("print(plotkit.plot(42, hold=True))", "42\n"),
        ],
    );
    commit(&dir, &["."], "2012-06-01T12:00:00Z");
    // Without the era, the newest first, then halves.
    let (code, out, err) = restore(&ctx, &nb, &["--max-rounds", "3", "--date", "none"]).parts();
    assert_eq!(code, 0, "{err}");
    assert!(pins(&out)[0].starts_with("plotkit==1."), "{out}");
    // plotkit 2.4 first, then the middle of the releases left open.
    snapshot!("repair-kwargs-bisected", printed(code, &out, &err));
    // With its era (the commit of 2012), 1.2 from the first round: no round 2.
    let (code, out, err) = restore(&ctx, &nb, &[]).parts();
    assert_eq!(code, 0, "{err}");
    assert_eq!(pins(&out), ["plotkit==1.2"], "{out}");
    snapshot!("repair-kwargs-era-first", printed(code, &out, &err));
}

/// Case 8: a dependency's newer release breaks the library above it (protobuf 4 under a
/// tensorflow of 2021). The era preference holds the dependency at the notebook's date from
/// the first round, and lists it; without an era, the failure inside the dependency makes
/// it the first suspect, and the search moves it.
#[test]
fn a_dependency_drifted_past_the_era_is_held_or_searched() {
    let ctx = TestContext::with_index();
    ctx.publish(
        "top",
        &[WheelBuilder::new("top", "1.0")
            .file("top/__init__.py", "import base\nVALUE = base.make()\n")
            .requires("base>=1")],
        Uploaded::At("2011-01-01T00:00:00Z"),
    );
    let good = "def make():\n    return 42\n";
    let bad = "def make():\n    raise TypeError('Descriptors cannot not be created directly')\n";
    ctx.publish(
        "base",
        &[
            WheelBuilder::new("base", "1.0").file("base/__init__.py", good),
            WheelBuilder::new("base", "1.1").file("base/__init__.py", good),
            WheelBuilder::new("base", "2.0").file("base/__init__.py", bad),
        ],
        Uploaded::Yearly(2010),
    );
    let dir = ctx.path("repo");
    std::fs::create_dir_all(&dir).unwrap();
    let nb = notebook(&dir, &[("import top\nprint(top.VALUE)", "42\n")]);
    commit(&dir, &["."], "2011-06-01T12:00:00Z");
    let (code, out, err) = restore(&ctx, &nb, &[]).parts();
    assert_eq!(code, 0, "{err}");
    // base held to the era, and listed with why: no round 2.
    snapshot!("repair-dependency-held", printed(code, &out, &err));
    let (code, out, err) = restore(&ctx, &nb, &["--date", "none"]).parts();
    assert_eq!(code, 0, "{err}");
    // The TypeError inside base makes it the first suspect; base 1.x runs.
    snapshot!("repair-dependency-searched", printed(code, &out, &err));
}

/// A library's import of another distribution's API that the installed release lacks
/// (seaborn 0.8's `from pandas.core.series import remove_na` under pandas 1.x): the traceback
/// ends in the library's frame, but the release to move is the one lacking the name.
#[test]
fn the_release_lacking_a_name_a_library_imports_is_searched_first() {
    let ctx = TestContext::with_index();
    ctx.publish(
        "top",
        &[WheelBuilder::new("top", "1.0")
            .file(
                "top/__init__.py",
                "from base.core import helper\nVALUE = helper()\n",
            )
            .requires("base>=1")],
        Uploaded::At("2011-01-01T00:00:00Z"),
    );
    let has = "def helper():\n    return 42\n";
    let lacks = "def other():\n    return 0\n";
    let base = |v: &str, core: &str| {
        WheelBuilder::new("base", v)
            .file("base/__init__.py", "")
            .file("base/core.py", core)
    };
    ctx.publish(
        "base",
        &[base("1.0", has), base("1.1", has), base("2.0", lacks)],
        Uploaded::Yearly(2010),
    );
    let dir = ctx.path("repo");
    std::fs::create_dir_all(&dir).unwrap();
    let nb = notebook(&dir, &[("import top\nprint(top.VALUE)", "42\n")]);
    let (code, out, err) = restore(&ctx, &nb, &["--date", "none"]).parts();
    assert_eq!(code, 0, "{err}");
    // base searched, never top.
    snapshot!("repair-release-lacking-a-name", printed(code, &out, &err));
}

/// A release of the era that fails, rebuilt as a post-release after it (graphillion
/// 1.11.post1): the same code, so not taken to fail as newer releases are. The search tries it
/// next, on the same Python, and the notebook runs.
#[test]
fn a_rebuild_of_the_failing_release_is_tried_next() {
    let ctx = TestContext::with_index();
    let works = "def solve(x):\n    return x * 2\n";
    let raises = "def solve(x):\n    raise ImportError('extension built against another numpy')\n";
    let wheels = [
        ("1.0", works),
        ("1.1", raises),
        ("1.1.post1", works),
        ("1.2", raises),
    ]
    .map(|(v, src)| WheelBuilder::new("calc", v).file("calc/__init__.py", src));
    ctx.publish("calc", &wheels, Uploaded::Yearly(2010));
    let dir = ctx.path("repo");
    std::fs::create_dir_all(&dir).unwrap();
    let nb = notebook(&dir, &[("import calc\nprint(calc.solve(21))", "42\n")]);
    commit(&dir, &["."], "2011-06-01T12:00:00Z");
    let (code, out, err) = restore(&ctx, &nb, &[]).parts();
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains(
            "searching: calc 1.1 failed: trying 1.1.post1 next, a rebuild of the same release"
        ),
        "{err}"
    );
    assert_eq!(pins(&out), ["calc==1.1.post1"], "{out}");
}
