//! `nbenv restore` end to end, offline: the bank (static reading) believes `toolkit` 2.0 has
//! `old_api`, which it defines only under Python 2; the run on Python 3 fails there, the
//! failure becomes evidence (2.0 ruled out), and the second round pins 1.0 and runs.
//! Needs `python3` (3.11, as on this image and CI) and uv.

use crate::support::archives::{sdist_tar_gz, WheelBuilder};
use crate::support::cli::{pins, python3_version};
use crate::support::context::TestContext;
use crate::support::server::FixtureFile;
use crate::support::snapshot::RUNS;
use crate::support::toolkit::python2_only_api_index;
use nbenv::notebook::Output;

/// What a command printed (`printed`), against the snapshot `$name` in
/// `tests/it/cli/snapshots/`, with the [`RUNS`] placeholders; but the Python's version is a
/// placeholder only where it is this machine's `python3`, the one the tests run on: a version
/// a notebook recorded stays. `snapshot!(EXTRA, ...)` applies the placeholders `EXTRA` after
/// those.
macro_rules! snapshot {
    ($name:expr, $text:expr) => {
        snapshot!(&[] as &[(&str, &str)], $name, $text)
    };
    ($extra:expr, $name:expr, $text:expr) => {{
        let version = python3_version().replace('.', r"\.");
        let this_python = [
            (
                format!(r"(C?Python) {version}(\.\d+)?\b"),
                "$1 [python-version]",
            ),
            (
                format!(r#""python": "{version}(\.\d+)?""#),
                r#""python": "[python-version]""#,
            ),
        ];
        let filters: Vec<(&str, &str)> = this_python
            .iter()
            .map(|(pattern, placeholder)| (pattern.as_str(), *placeholder))
            .chain(
                RUNS.iter()
                    .copied()
                    .filter(|(pattern, _)| !pattern.contains(r"3\.\d+")),
            )
            .chain($extra.iter().copied())
            .collect();
        crate::assert_printed!(filters, $name, $text);
    }};
}

/// The day a run was recorded, which `bank runs` and the notes on a release passed over name.
const RUN_DAYS: &[(&str, &str)] = &[(r"\b\d{4}-\d\d-\d\d\b", "[day]")];

/// The Python `infer` chooses for a notebook that records none: the newest installed here
/// (this machine's `python3` where that is the newest).
const NEWEST_PYTHON: &[(&str, &str)] = &[(
    r"# Python (3\.\d+|\[python-version\]) \(installed here",
    "# Python [newest-python] (installed here",
)];

/// What a command printed, stdout then stderr, then its exit code, as
/// `support::snapshot::printed` shows it.
fn printed(code: i32, out: &str, err: &str) -> String {
    format!("{out}{err}[exit {code}]\n")
}

#[test]
fn an_environment_error_becomes_evidence_and_the_next_round_runs() {
    let ctx = TestContext::with_server(python2_only_api_index());
    let nb = two_cells(ctx.root(), "import toolkit", "print(toolkit.old_api() + 1)");
    let (python, output) = (
        python3_version(),
        ctx.root().join("requirements.txt").display().to_string(),
    );
    let executed = ctx.root().join("executed.ipynb").display().to_string();
    let args = [
        "restore",
        &nb,
        "--python",
        &python,
        "--no-kernel-runtime",
        "--no-kernel-spec",
        "--executed",
        &executed,
        "-o",
        &output,
    ];
    let (code, out, err) = ctx.run(args).parts();
    assert_eq!(code, 0, "{err}");
    // Round 1 on toolkit 2.0 stops at cell 2 (environment), round 2 runs, and the way to
    // use the environment is said.
    snapshot!(
        "restore-environment-error-next-round",
        printed(code, &out, &err)
    );
    let written = std::fs::read_to_string(ctx.root().join("requirements.txt")).unwrap();
    assert!(written.contains("toolkit==1.0"), "{written}");

    // The executed notebook: what the last run printed, readable as a notebook.
    let ran = nbenv::notebook::read(&executed).unwrap();
    let printed: Vec<&Output> = ran.cells[1].outputs.iter().collect();
    assert!(
        matches!(printed.as_slice(), [Output::Stream { text, .. }] if text.trim() == "42"),
        "{printed:?}"
    );
    assert_eq!(ran.cells[1].execution_count, Some(2));

    // Only the final environment is kept (hidden entries are locks).
    let envs = std::fs::read_dir(ctx.root().join("cache/envs"))
        .unwrap()
        .flatten()
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .count();
    assert_eq!(envs, 1);

    // Both rounds are recorded; a missing API rules a release out for this notebook only,
    // so no release is recorded as broken.
    let (code, out, err) = ctx.run(["bank", "runs", "--format", "json"]).parts();
    assert_eq!(code, 0, "{err}");
    let runs: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(runs["runs"], 2, "{out}");
    assert_eq!(runs["failed_releases"], serde_json::json!([]), "{out}");
}

/// `toolkit` 2.0 is an sdist whose build fails; 1.0 is a wheel. With sdists allowed the
/// resolver picks 2.0; the install fails naming it; the next round does without it and runs;
/// the failure is in the bank, so a later `infer` passes 2.0 over on this Python, until the
/// run records are forgotten.
#[test]
fn a_release_that_fails_to_install_is_passed_over_then_and_later() {
    let wheel = WheelBuilder::new("toolkit", "1.0")
        .file("toolkit/__init__.py", "def api():\n    return 41\n");
    let pkg_info = "Metadata-Version: 2.1\nName: toolkit\nVersion: 2.0\n";
    let sdist = sdist_tar_gz(
        "toolkit",
        "2.0",
        &[
            (
                "setup.py",
                "raise SystemExit('this release does not build')\n",
            ),
            ("toolkit/__init__.py", "def api():\n    return 41\n"),
        ],
        pkg_info,
    );
    let ctx = TestContext::with_index();
    ctx.server().publish(
        "toolkit",
        &[
            FixtureFile::wheel(&wheel).uploaded(IN_2020),
            FixtureFile::new("toolkit-2.0.tar.gz", sdist).uploaded(IN_2020),
        ],
    );
    let nb = one_cell(ctx.root(), "import toolkit\nprint(toolkit.api() + 1)");
    let python = python3_version();
    let restore = [
        "restore",
        &nb,
        "--python",
        &python,
        "--allow-sdist",
        "--no-kernel-runtime",
        "--no-kernel-spec",
    ];
    let (code, out, err) = ctx.run(restore).parts();
    assert_eq!(code, 0, "{err}");
    assert_eq!(pins(&out), ["toolkit==1.0"], "{out}");
    // Round 1's install of toolkit 2.0 fails, and it is passed over from now on.
    snapshot!(RUN_DAYS, "restore-install-fails", printed(code, &out, &err));

    let (code, out, err) = ctx.run(["bank", "runs"]).parts();
    assert_eq!(code, 0, "{err}");
    snapshot!(
        RUN_DAYS,
        "restore-install-fails-bank-runs",
        printed(code, &out, &err)
    );

    let infer = ["infer", &nb, "--python", &python, "--allow-sdist"];
    let (code, out, err) = ctx.run(infer).parts();
    assert_eq!(code, 0, "{err}");
    assert_eq!(pins(&out), ["toolkit==1.0"], "{out}");
    assert!(
        err.contains(&format!(
            "note: passed over toolkit 2.0: failed to install on Python {python} in a run on"
        )),
        "{err}"
    );

    let (code, _, err) = ctx.run(["bank", "runs", "--forget"]).parts();
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("forgot 2 runs"), "{err}");
    let (code, out, err) = ctx.run(infer).parts();
    assert_eq!(code, 0, "{err}");
    assert_eq!(pins(&out), ["toolkit==2.0"], "{out}");
}

/// `toolkit` 2.0 imports but says it was built against other binaries (an ImportError raised
/// in its own code, on a condition static reading cannot decide, so the bank believes it
/// imports): the release is broken on this Python whatever the notebook, recorded so, and
/// the next round does without it.
#[test]
fn a_release_that_fails_to_import_is_recorded_broken_and_passed_over() {
    let ctx = toolkit_index(&[
        ("1.0", "def api():\n    return 41\n"),
        (
            "2.0",
            "def api():\n    return 41\n_core = None\ndef _load():\n    raise ImportError('toolkit._core: module compiled against API version 0x10 but this version of numpy is 0xe')\nimport os\nif 'NBENV_NEVER_SET' not in os.environ:\n    _load()\n",
        ),
    ]);
    let nb = one_cell(ctx.root(), "import toolkit\nprint(toolkit.api() + 1)");
    let python = python3_version();
    let (code, out, err) = restore_plainly(&ctx, &nb);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains(&format!(
            "round 1: toolkit 2.0 failed to import on Python {python}: passed over from now on"
        )),
        "{err}"
    );
    assert_eq!(pins(&out), ["toolkit==1.0"], "{out}");
    let (_, out, _) = ctx.run(["bank", "runs"]).parts();
    assert!(
        out.contains(&format!("toolkit 2.0 on Python {python}: failed to import")),
        "{out}"
    );
}

/// `toolkit` imports `helperlib` without requiring it in its metadata (as scikit-learn 0.19
/// imports scipy, declared only under an extra). On an empty bank nothing says which
/// distribution provides `helperlib`, so the bank's reading of toolkit's imports adds nothing:
/// the first round's environment lacks it, the run shows the library's import failing, and
/// the next round resolves `helperlib` as a requirement, saying why.
#[test]
fn a_module_a_library_imports_undeclared_becomes_a_requirement() {
    let (code, out, err) = restore_toolkit_importing_helperlib(false);
    assert_eq!(code, 0, "{err}");
    assert_eq!(pins(&out), ["helperlib==1.0", "toolkit==1.0"], "{out}");
    // helperlib's pin says it was seen in a run.
    snapshot!(
        "restore-undeclared-import-seen-in-a-run",
        printed(code, &out, &err)
    );
}

/// The same, with a bank that knows `helperlib` (indexed before): the bank's reading of
/// toolkit's imports puts it in the first round's requirements, and no second round is
/// needed to learn it.
#[test]
fn a_module_a_library_imports_undeclared_is_required_from_the_first_round() {
    let (code, out, err) = restore_toolkit_importing_helperlib(true);
    assert_eq!(code, 0, "{err}");
    assert_eq!(pins(&out), ["helperlib==1.0", "toolkit==1.0"], "{out}");
    // One round; helperlib's pin says toolkit imports it.
    snapshot!("restore-undeclared-import-known", printed(code, &out, &err));
}

/// `nbenv restore` of a notebook using `toolkit`, which imports `helperlib` undeclared;
/// with `helperlib` indexed in the bank first when `bank_knows_helperlib`.
fn restore_toolkit_importing_helperlib(bank_knows_helperlib: bool) -> (i32, String, String) {
    let ctx = toolkit_index(&[(
        "1.0",
        "import helperlib\ndef api():\n    return helperlib.VALUE\n",
    )]);
    let helper =
        WheelBuilder::new("helperlib", "1.0").file("helperlib/__init__.py", "VALUE = 41\n");
    ctx.server()
        .publish_dated("helperlib", &[(&helper, IN_2020)]);
    if bank_knows_helperlib {
        let (code, _, err) = ctx.run(["bank", "add", "helperlib"]).parts();
        assert_eq!(code, 0, "{err}");
    }
    let nb = two_cells(ctx.root(), "import toolkit", "print(toolkit.api() + 1)");
    restore_plainly(&ctx, &nb)
}

/// A name every release defines, missing at run time: `toolkit` defines `imread` in
/// `toolkit.imaging`, imported under `try`/`except ImportError`, and `imaging` imports
/// `imagelib`, undeclared, falling back on a module of old (scipy.misc.imread, PIL and
/// `Image`). The run lacks `toolkit.imread`; the
/// release is not at fault, so no other toolkit is tried: importing `toolkit.imaging` in the
/// run's environment shows `imagelib` missing, and the next round installs it.
#[test]
fn a_name_the_installed_release_defines_but_cannot_import_asks_for_what_it_imports() {
    let toolkit = |version: &str| {
        WheelBuilder::new("toolkit", version)
            .file(
                "toolkit/__init__.py",
                "try:\n    from .imaging import imread\nexcept ImportError:\n    pass\n",
            )
            .file(
                "toolkit/imaging.py",
                "try:\n    import imagelib\nexcept ImportError:\n    import OldImagelib as imagelib\ndef imread(path):\n    return imagelib.VALUE\n",
            )
    };
    let imagelib =
        WheelBuilder::new("imagelib", "1.0").file("imagelib/__init__.py", "VALUE = 41\n");
    let ctx = TestContext::with_index();
    ctx.server().publish_dated(
        "toolkit",
        &[(&toolkit("1.0"), IN_2020), (&toolkit("2.0"), IN_2020)],
    );
    ctx.server()
        .publish_dated("imagelib", &[(&imagelib, IN_2020)]);
    let nb = two_cells(
        ctx.root(),
        "import toolkit",
        "print(toolkit.imread('x.png') + 1)",
    );
    let (code, out, err) = restore_plainly(&ctx, &nb);
    assert_eq!(code, 0, "{err}");
    assert_eq!(pins(&out), ["imagelib==1.0", "toolkit==2.0"], "{out}");
    // Said why; toolkit 1.0 never tried.
    snapshot!(
        "restore-defined-but-cannot-import",
        printed(code, &out, &err)
    );
}

/// A name the installed release binds only when its data is there: `toolkit.corpus` binds
/// `library` under `try: ... except IOError: pass`, reading a corpus downloaded apart (cltk's
/// `latinlibrary`). The run lacks it; importing the module in the run's environment shows
/// the error it swallowed: the data, not a release, so no other toolkit is tried.
#[test]
fn a_name_bound_only_when_its_data_is_there_is_the_datas() {
    let toolkit = |version: &str| {
        WheelBuilder::new("toolkit", version)
            .file("toolkit/__init__.py", "")
            .file(
                "toolkit/corpus.py",
                "try:\n    library = open('/nonexistent-nbenv-corpus/library.txt').read()\nexcept IOError:\n    pass\n",
            )
    };
    let ctx = TestContext::with_index();
    ctx.server().publish_dated(
        "toolkit",
        &[(&toolkit("1.0"), IN_2020), (&toolkit("2.0"), IN_2020)],
    );
    let nb = two_cells(
        ctx.root(),
        "from toolkit.corpus import library",
        "print(len(library))",
    );
    let (code, out, err) = restore_plainly(&ctx, &nb);
    assert_eq!(code, 21, "{err}");
    // The data's, at once: no round 2.
    snapshot!(
        "restore-bound-only-with-its-data",
        printed(code, &out, &err)
    );
}

/// `toolkit` imports `dep.auto`, which `dep` gained in 2.0 (2021); the notebook's era
/// (2020) holds `dep`, a dependency only, at 1.0. The run's missing submodule makes `dep` a
/// distribution the notebook needs with a release that has it: round 2 installs dep 2.0,
/// where it used to resolve the same environment again and stop.
#[test]
fn a_submodule_a_dependency_lacks_asks_for_a_release_that_has_it() {
    let toolkit = WheelBuilder::new("toolkit", "1.0")
        .file("toolkit/__init__.py", "from dep.auto import VALUE\n")
        .requires("dep");
    let old = WheelBuilder::new("dep", "1.0").file("dep/__init__.py", "");
    let new = WheelBuilder::new("dep", "2.0")
        .file("dep/__init__.py", "")
        .file("dep/auto.py", "VALUE = 41\n");
    let ctx = TestContext::with_index();
    ctx.server()
        .publish_dated("toolkit", &[(&toolkit, IN_2020)]);
    ctx.server()
        .publish_dated("dep", &[(&old, IN_2020), (&new, "2021-06-01")]);
    let nb = two_cells(ctx.root(), "import toolkit", "print(toolkit.VALUE + 1)");
    let python = python3_version();
    let (code, out, err) = ctx
        .run([
            "restore",
            &nb,
            "--python",
            &python,
            "--date",
            "2020-06-01",
            "--no-kernel-runtime",
            "--no-kernel-spec",
        ])
        .parts();
    assert_eq!(code, 0, "{err}");
    assert_eq!(pins(&out), ["dep==2.0", "toolkit==1.0"], "{out}");
    // Round 1 had dep 1.0.
    snapshot!(
        "restore-submodule-a-dependency-lacks",
        printed(code, &out, &err)
    );
}

/// `toolkit` calls `unicode`, a Python 2 builtin, where the notebook's own reading cannot
/// see it. On Python 3 the run raises NameError there: the round says the code needs
/// Python 2 and the next resolution asks for it. Only Python 3 is installed for the test, so
/// the restore ends there, saying so, rather than running the same environment again.
#[test]
fn code_this_python_cannot_run_asks_for_the_python_that_can() {
    let ctx = toolkit_index(&[("1.0", "def slug(s):\n    return unicode(s).lower()\n")]);
    let nb = two_cells(ctx.root(), "import toolkit", "print(toolkit.slug('A'))");
    let executable = std::process::Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .unwrap();
    let executable = String::from_utf8_lossy(&executable.stdout)
        .trim()
        .to_string();
    let nothing = ctx.path("no-pythons");
    std::fs::create_dir_all(&nothing).unwrap();
    let mut cmd = ctx.command_with(["restore", &nb, "--no-kernel-runtime", "--no-kernel-spec"]);
    cmd.env("PATH", &nothing)
        .env("PYENV_ROOT", &nothing)
        .env("NBENV_PYTHON", &executable);
    let (code, out, err) =
        crate::support::context::Run::from_output(&cmd.output().unwrap()).parts();
    assert_ne!(code, 0, "{err}");
    // Python 2 asked for, none installed, said.
    snapshot!("restore-code-needs-python-2", printed(code, &out, &err));
}

/// `'Series' object has no attribute 'order'`, raised by the library's own `__getattr__`:
/// the notebook's reading cannot say which class the value was, but the bank, which has
/// indexed every release, knows a class `Series` whose `order` only 1.0 had. That member
/// becomes evidence, and round 2 installs 1.0 at once, where the search would have tried 2.0
/// first.
#[test]
fn a_member_named_by_its_types_short_name_becomes_evidence_for_the_release_that_had_it() {
    let with_order = "class Series:\n    def order(self):\n        return 41\ndef make():\n    return Series()\n";
    let without = "class Series:\n    def sort_values(self):\n        return 41\n    def __getattr__(self, name):\n        raise AttributeError(\"'Series' object has no attribute '%s'\" % name)\ndef make():\n    return Series()\n";
    let ctx = toolkit_index(&[
        ("1.0", with_order),
        ("2.0", without),
        ("3.0", without),
        ("4.0", without),
    ]);
    let nb = two_cells(
        ctx.root(),
        "import toolkit\nvalues = [getattr(toolkit, 'make')()]",
        "print(values[0].order() + 1)",
    );
    let (code, _, err) = ctx
        .run(["bank", "add", "toolkit", "--all-versions"])
        .parts();
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = restore_plainly(&ctx, &nb);
    assert_eq!(code, 0, "{err}");
    assert_eq!(pins(&out), ["toolkit==1.0"], "{out}");
    // The member named by its type's short name; round 2 runs, no round 3.
    snapshot!(
        "restore-member-of-a-short-type-name",
        printed(code, &out, &err)
    );
}

/// A cell runs `ffmpeg`, which this machine lacks; imageio-ffmpeg ships a build of it. Round
/// 2 installs that distribution, the environment has the build in its `bin/` as `ffmpeg`, and
/// the run finds it there.
#[test]
fn a_program_a_pypi_distribution_ships_is_installed_with_it() {
    let build = WheelBuilder::new("imageio-ffmpeg", "0.4.2")
        .file("imageio_ffmpeg/__init__.py", "")
        .file(
            "imageio_ffmpeg/binaries/ffmpeg-linux64-v4.2.2",
            "#!/bin/sh\necho fake ffmpeg 4.2.2\n",
        );
    let ctx = TestContext::with_index();
    ctx.server()
        .publish_dated("imageio-ffmpeg", &[(&build, IN_2020)]);
    let nb = two_cells(
        ctx.root(),
        "import subprocess",
        "print(subprocess.check_output(['ffmpeg', '-version']).decode().strip())",
    );
    let (code, out, err) = restore_plainly(&ctx, &nb);
    assert_eq!(code, 0, "{err}");
    assert_eq!(pins(&out), ["imageio-ffmpeg==0.4.2"], "{out}");
    snapshot!(
        "restore-program-a-distribution-ships",
        printed(code, &out, &err)
    );
}

/// When the fixtures of the loopback index were uploaded: in 2020, inside every era the tests
/// use.
const IN_2020: &str = "2020-01-01";

/// A context whose index has releases of `toolkit` (version, source of its `__init__.py`),
/// each a wheel uploaded [`IN_2020`].
fn toolkit_index(releases: &[(&str, &str)]) -> TestContext {
    let wheels: Vec<WheelBuilder> = releases
        .iter()
        .map(|(version, source)| {
            WheelBuilder::new("toolkit", version).file("toolkit/__init__.py", source)
        })
        .collect();
    let dated: Vec<(&WheelBuilder, &str)> = wheels.iter().map(|w| (w, IN_2020)).collect();
    let ctx = TestContext::with_index();
    ctx.server().publish_dated("toolkit", &dated);
    ctx
}

/// A notebook of the code cells `sources`, run once each in order, on a `python3` kernel.
fn notebook(sources: &[&str]) -> serde_json::Value {
    let cells: Vec<serde_json::Value> = sources
        .iter()
        .enumerate()
        .map(|(i, source)| {
            serde_json::json!({"cell_type": "code", "execution_count": i + 1, "metadata": {},
                               "outputs": [], "source": source})
        })
        .collect();
    serde_json::json!({
        "cells": cells,
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}},
        "nbformat": 4, "nbformat_minor": 2
    })
}

/// Writes `notebook` as `nb.ipynb` in `dir`; its path.
fn write_notebook(dir: &std::path::Path, notebook: &serde_json::Value) -> String {
    let nb = dir.join("nb.ipynb");
    std::fs::write(&nb, notebook.to_string()).unwrap();
    nb.display().to_string()
}

/// Writes a notebook of one code cell in `dir`; its path.
fn one_cell(dir: &std::path::Path, source: &str) -> String {
    write_notebook(dir, &notebook(&[source]))
}

/// Writes a notebook of two code cells in `dir`; its path.
fn two_cells(dir: &std::path::Path, first: &str, second: &str) -> String {
    write_notebook(dir, &notebook(&[first, second]))
}

/// `restore` of the notebook at `nb` on this machine's python3, without the kernel runtime
/// or a kernel spec.
fn restore_plainly(ctx: &TestContext, nb: &str) -> (i32, String, String) {
    let python = python3_version();
    let args = [
        "restore",
        nb,
        "--python",
        &python,
        "--no-kernel-runtime",
        "--no-kernel-spec",
    ];
    ctx.run(args).parts()
}

/// Three releases of `toolkit`: only 1.0's `fit` takes `size`. The notebook passes it through
/// `**params`, so its evidence does not name it; the newest release refuses it, the bank shows
/// 1.0 takes it, and the keyword becomes evidence: the next round pins 1.0 at once, not 2.0
/// first.
#[test]
fn a_refused_keyword_becomes_keyword_evidence_for_the_next_round() {
    let ctx = toolkit_index(&[
        ("1.0", "def fit(x, size=1):\n    return x + size\n"),
        ("2.0", "def fit(x):\n    return x\n"),
        ("3.0", "def fit(x):\n    return x\n"),
    ]);
    let nb = two_cells(
        ctx.root(),
        "import toolkit\nparams = {'size': 2}",
        "print(toolkit.fit(40, **params))",
    );
    let (code, out, err) = restore_plainly(&ctx, &nb);
    assert_eq!(code, 0, "{err}");
    assert_eq!(pins(&out), ["toolkit==1.0"], "{out}");
    // Round 1 on toolkit 3.0. The bank had indexed only 3.0 then: whether another release
    // takes `size` was unknown ("unknown"), and a round tried it; no round 3.
    snapshot!("restore-refused-keyword", printed(code, &out, &err));
}

/// `toolkit` 1.0's `hist` names `normed`; from 2.0 on it takes `**kwargs`, which refuse it
/// further in (matplotlib 3.1's `hist` and a `Rectangle`). The bank cannot tell which of the
/// later releases refuse `normed=`; the run shows the newest does, and every release whose
/// `hist` reads as its does, indexed or lying between such ones, is ruled out with it: the
/// second round pins 1.0, where one release per round would have run out of rounds.
#[test]
fn a_keyword_refused_behind_kwargs_rules_out_every_release_that_reads_alike() {
    let kwargs = "def hist(x, bins=10, **kwargs):\n    _update(kwargs)\n    return x\n\n\
                  def _update(props):\n    for k in props:\n        \
                  raise TypeError('set() got an unexpected keyword argument %r' % k)\n";
    let ctx = toolkit_index(&[
        (
            "1.0",
            "def hist(x, bins=10, normed=False, **kwargs):\n    return x\n",
        ),
        ("2.0", kwargs),
        ("2.1", kwargs),
        ("2.2", kwargs),
        ("2.3", kwargs),
        ("2.4", kwargs),
    ]);
    let nb = two_cells(
        ctx.root(),
        "import toolkit",
        "print(toolkit.hist(42, 20, normed=True))",
    );
    let (code, out, err) = restore_plainly(&ctx, &nb);
    assert_eq!(code, 0, "{err}");
    assert_eq!(pins(&out), ["toolkit==1.0"], "{out}");
    // Round 1 on toolkit 2.4; round 2 pins 1.0 and runs, no round 3.
    snapshot!(
        "restore-keyword-refused-behind-kwargs",
        printed(code, &out, &err)
    );
}

/// A member no release of `toolkit` ever had (`sortt` for `sort`): the code's, and the rounds
/// stop at once rather than trying release after release.
#[test]
fn a_name_no_release_had_ends_the_rounds_as_the_codes() {
    let ctx = toolkit_index(&[
        (
            "1.0",
            "class Table:\n    def sort(self):\n        return 41\n",
        ),
        (
            "2.0",
            "class Table:\n    def sort(self):\n        return 42\n",
        ),
    ]);
    let nb = two_cells(
        ctx.root(),
        "import toolkit\nt = toolkit.Table()",
        "print(t.sortt())",
    );
    // Both releases in the bank, as a warm bank has them.
    let (code, _, err) = ctx
        .run(["bank", "add", "toolkit", "--all-versions"])
        .parts();
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = restore_plainly(&ctx, &nb);
    // The code's, at once: no round 2.
    snapshot!("restore-name-no-release-had", printed(code, &out, &err));
}

/// The notebook last ran on Python 3.5, which is not installed here: restore runs it on the
/// installed interpreter nearest that one (the only one here), says which and why, and never
/// claims a `--python` was asked for.
#[test]
fn a_recorded_python_not_installed_runs_on_the_nearest_installed_one() {
    let ctx = TestContext::with_server(python2_only_api_index());
    let mut last_ran_on_35 = notebook(&["import toolkit", "print(toolkit.old_api() + 1)"]);
    last_ran_on_35["metadata"]["language_info"] =
        serde_json::json!({"name": "python", "version": "3.5.2"});
    let nb = write_notebook(ctx.root(), &last_ran_on_35);
    // The only interpreter this run can see: the test's own python3, by its versioned name.
    let python = python3_version();
    let real = std::process::Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .unwrap();
    let real = String::from_utf8_lossy(&real.stdout).trim().to_string();
    let bin = ctx.root().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(&real, bin.join(format!("python{python}"))).unwrap();
    let uv = std::process::Command::new("sh")
        .args(["-c", "command -v uv"])
        .output()
        .unwrap();
    let uv = String::from_utf8_lossy(&uv.stdout).trim().to_string();
    let output = ctx.root().join("requirements.txt");
    let out = ctx
        .command()
        .args(["restore", &nb, "--no-kernel-runtime"])
        .args(["--no-kernel-spec", "-o", output.to_str().unwrap()])
        .env("PATH", &bin)
        .env("PYENV_ROOT", ctx.root().join("no-pyenv"))
        .env("NBENV_UV", &uv)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    // Round 1 on this Python (never "Python ?"), and why.
    snapshot!(
        "restore-nearest-python-installed",
        crate::support::snapshot::printed(&out)
    );
    let written = std::fs::read_to_string(&output).unwrap();
    assert!(!written.contains("asked for with --python"), "{written}");
    assert!(
        written.contains(&format!(
            "# Python {python} (installed here at {}): the nearest to Python 3.5 (where the \
             notebook last ran: language_info 3.5.2) that is installed here and has a full \
             resolution",
            bin.join(format!("python{python}")).display()
        )),
        "{written}"
    );
}

/// A relative `--cache-dir` and `--bank`, or `NBENV_CACHE_DIR` and `NBENV_BANK`, mean the
/// directory where nbenv was started, even though the notebook runs in its own directory:
/// the environment is built, the notebook runs in it, and the cache and bank are where the
/// user said.
#[test]
fn relative_cache_and_bank_paths_mean_where_nbenv_was_started() {
    let server = python2_only_api_index();
    let ctx = TestContext::with_server(server);
    let server = ctx.server();
    let (nbs, work) = (ctx.root().join("nbs"), ctx.root().join("work"));
    std::fs::create_dir_all(&nbs).unwrap();
    std::fs::create_dir_all(&work).unwrap();
    let nb = one_cell(&nbs, "import toolkit\nprint(toolkit.__name__)");
    let python = python3_version();
    let restore = |options: &[&str], vars: &[(&str, &str)]| {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_nbenv"));
        cmd.current_dir(&work)
            .args(["--index-url", &server.index_url()])
            .args(options)
            .args(["restore", &nb, "--python", &python])
            .args([
                "--no-kernel-runtime",
                "--no-kernel-spec",
                "--format",
                "json",
            ])
            .args(["-o", "requirements.txt"])
            .env("NBENV_HTTP_RETRIES", "0")
            .env_remove("NBENV_CACHE_DIR")
            .env_remove("NBENV_BANK");
        for (k, v) in vars {
            cmd.env(k, v);
        }
        let out = cmd.output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(0), "{options:?} {vars:?}: {err}");
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(report["stopped"], "ran", "{report}");
        // Reported as it is, usable from anywhere.
        let root = std::path::PathBuf::from(report["environment"]["root"].as_str().unwrap());
        assert!(root.is_absolute(), "{}", root.display());
        assert!(root.join("bin/python").exists(), "{}", root.display());
        root
    };
    let root = restore(
        &["--cache-dir", "opt/cache", "--bank", "opt/bank.sqlite3"],
        &[],
    );
    assert!(
        root.starts_with(work.join("opt/cache/envs")),
        "{}",
        root.display()
    );
    assert!(work.join("opt/bank.sqlite3").is_file());
    let root = restore(
        &[],
        &[
            ("NBENV_CACHE_DIR", "var/cache"),
            ("NBENV_BANK", "var/bank.sqlite3"),
        ],
    );
    assert!(
        root.starts_with(work.join("var/cache/envs")),
        "{}",
        root.display()
    );
    assert!(work.join("var/bank.sqlite3").is_file());
    assert!(!nbs.join("opt").exists() && !nbs.join("var").exists());
}

/// A module the notebook imports that nothing beside it, in its repository or on the index
/// provides is a file its author never published: the first round stops there as data/input,
/// and no round is spent searching an environment for it.
#[test]
fn a_module_nothing_provides_stops_as_data_without_another_round() {
    let ctx = toolkit_index(&[("1.0", "VALUE = 1\n")]);
    let nb = two_cells(ctx.root(), "import toolkit", "import mean_tests");
    let (code, out, err) = restore_plainly(&ctx, &nb);
    assert_ne!(code, 0, "{err}");
    // Data/input, at once: no round 2.
    snapshot!("restore-module-nothing-provides", printed(code, &out, &err));
}

/// A notebook in `notebooks/` importing its repository's own package: `infer` names the
/// package as a path requirement with its evidence, and `restore` runs it with the
/// repository's root on `sys.path`, saying so, without installing (or writing into) it.
#[test]
fn the_repositorys_own_package_is_a_path_requirement_and_on_the_path() {
    let ctx = TestContext::with_index();
    let repo = ctx.write_files(
        "repo",
        &[
            (
                "setup.py",
                "from setuptools import setup\nsetup(name='mypkg', packages=['mypkg'])\n",
            ),
            ("mypkg/__init__.py", "def answer():\n    return 42\n"),
        ],
    );
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    std::fs::create_dir_all(repo.join("notebooks")).unwrap();
    let nb = two_cells(
        &repo.join("notebooks"),
        "import mypkg",
        "print(mypkg.answer())",
    );
    let (code, out, err) = ctx.infer(std::path::Path::new(&nb), &[]).parts();
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(&format!(
            "-e {}  # cell 1 imports mypkg, which ../setup.py names: the repository's own package\n",
            repo.display()
        )),
        "{out}"
    );
    // The path requirement, and the package among what is not a requirement, with why.
    snapshot!(
        NEWEST_PYTHON,
        "restore-own-package-infer",
        printed(code, &out, &err)
    );
    let before: Vec<_> = std::fs::read_dir(&repo)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    let (code, out, err) = restore_plainly(&ctx, &nb);
    assert_eq!(code, 0, "{err}");
    // .. on sys.path for the run, said.
    snapshot!("restore-own-package", printed(code, &out, &err));
    let after: Vec<_> = std::fs::read_dir(&repo)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(
        before.len(),
        after.len(),
        "nothing written into the repository"
    );
}

/// A sub-project deeper in the repository (`packages/DeDist/`, no `__init__.py`), imported as
/// its author had it on `PYTHONPATH`: the repository's module, its folder on `sys.path`, and,
/// being a namespace package, a Python 3.3 or later; never a missing module.
#[test]
fn a_sub_project_deeper_in_the_repository_is_on_the_path() {
    let ctx = TestContext::with_index();
    let repo = ctx.write_files(
        "repo",
        &[
            ("packages/DeDist/README.md", "# DeDist\n"),
            (
                "packages/DeDist/dedist/__init__.py",
                "def answer():\n    return 42\n",
            ),
        ],
    );
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    let nb = two_cells(&repo, "from DeDist import dedist", "print(dedist.answer())");
    let (code, out, err) = ctx.infer(std::path::Path::new(&nb), &[]).parts();
    assert_eq!(code, 0, "{err}");
    // The repository's module, and Python >=3.3 for a namespace package.
    snapshot!(
        NEWEST_PYTHON,
        "restore-sub-project-infer",
        printed(code, &out, &err)
    );
    let (code, out, err) = restore_plainly(&ctx, &nb);
    assert_eq!(code, 0, "{err}");
    // packages on sys.path for the run, said.
    snapshot!("restore-sub-project", printed(code, &out, &err));
}

/// `import pkg_resources` on the newest Python: new environments carry no setuptools, and its
/// newest release no longer ships `pkg_resources`. The bank reads which releases have the
/// module like any API, and the restore pins the last that has it.
#[test]
fn pkg_resources_pins_the_last_setuptools_that_ships_it() {
    let release = |version: &str, with_pkg_resources: bool| {
        let mut w = WheelBuilder::new("setuptools", version).file(
            "setuptools/__init__.py",
            format!("__version__ = '{version}'\n"),
        );
        if with_pkg_resources {
            w = w.file(
                "pkg_resources/__init__.py",
                "def require(name):\n    return [name]\n",
            );
        }
        w
    };
    let ctx = TestContext::with_index();
    ctx.server().publish_dated(
        "setuptools",
        &[
            (&release("80.0", true), IN_2020),
            (&release("81.0", true), IN_2020),
            (&release("82.0", false), IN_2020),
        ],
    );
    let nb = two_cells(
        ctx.root(),
        "import pkg_resources",
        "print(pkg_resources.require('x'))",
    );
    let (code, out, err) = restore_plainly(&ctx, &nb);
    assert_eq!(code, 0, "{err}");
    // setuptools 81.0, the last with pkg_resources.
    snapshot!("restore-pkg-resources", printed(code, &out, &err));
}

/// A round whose resolution repeats the last environment is not announced: a library asking
/// for a distribution that is installed already teaches a requirement, the next resolution is
/// the same, and the rounds stop there without a "round 2" line that never ran.
#[test]
fn a_round_that_would_repeat_the_last_is_never_announced() {
    let ctx = toolkit_index(&[(
        "1.0",
        "def fit():\n    raise ImportError(\"Missing optional dependency 'toolkit'.\")\n",
    )]);
    let nb = two_cells(ctx.root(), "import toolkit", "toolkit.fit()");
    let (code, out, err) = restore_plainly(&ctx, &nb);
    // Round 1 stops at cell 2, and no "round 2" is announced.
    snapshot!("restore-repeat-never-announced", printed(code, &out, &err));
}

/// A resolution that installs what the last round installed, its requirements differing only
/// in comments (a module a library imports that nothing provides, now listed under "Not
/// requirements"), is a repeat: the rounds end without building or running it again.
#[test]
fn a_round_that_differs_only_in_comments_is_a_repeat() {
    let ctx = toolkit_index(&[(
        "1.0",
        "def fit():\n    import nbenv_nowhere_backend\n    return nbenv_nowhere_backend\n",
    )]);
    let nb = two_cells(ctx.root(), "import toolkit", "toolkit.fit()");
    let (code, out, err) = restore_plainly(&ctx, &nb);
    // Round 1 stops at cell 2, and no "round 2" is announced.
    snapshot!("restore-repeat-but-for-comments", printed(code, &out, &err));
}

/// Every command that runs a notebook prints one JSON document with `--format json` (a
/// modernize that runs nests the restoration under `run`), and a batch writes one per line:
/// each parses whole, with the schema version first.
#[test]
fn every_running_command_prints_one_json_document() {
    let ctx = toolkit_index(&[("1.0", "VALUE = 1\n")]);
    let nb = two_cells(ctx.root(), "import toolkit", "print(toolkit.VALUE)");
    let python = python3_version();
    let reqs = ctx.path("reqs.txt");
    std::fs::write(&reqs, "toolkit==1.0\n").unwrap();
    let records = ctx.path("records.jsonl");
    let plain = [
        "--python",
        python.as_str(),
        "--no-kernel-runtime",
        "--no-kernel-spec",
    ];
    let runs: Vec<Vec<&str>> = vec![
        [&["restore", nb.as_str()][..], &plain, &["--format", "json"]].concat(),
        [
            &["modernize", nb.as_str()][..],
            &plain,
            &["--format", "json"],
        ]
        .concat(),
        vec![
            "verify",
            nb.as_str(),
            "-r",
            reqs.to_str().unwrap(),
            "--python",
            python.as_str(),
            "--no-kernel-runtime",
            "--format",
            "json",
        ],
        vec!["cache", "info", "--format", "json"],
    ];
    for args in runs {
        let (code, out, err) = ctx.run(&args).parts();
        assert_eq!(code, 0, "{args:?}: {err}");
        let v: serde_json::Value = serde_json::from_str(&out)
            .unwrap_or_else(|e| panic!("{args:?}: not one JSON document ({e}): {out}"));
        assert!(
            out.starts_with("{\n  \"schema_version\": 1,"),
            "{args:?}: {out}"
        );
        if args[0] == "modernize" {
            assert_eq!(v["run"]["stopped"], "ran", "{v}");
        }
    }
    let (code, _, err) = ctx
        .run([
            "batch",
            ctx.root().to_str().unwrap(),
            "--stage",
            "restore",
            "--python",
            &python,
            "--no-kernel-runtime",
            "--out",
            records.to_str().unwrap(),
        ])
        .parts();
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&records).unwrap();
    assert!(!text.trim().is_empty(), "{err}");
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(v["schema"], 1, "{line}");
    }
}

/// The command as a library function: settings in, what it did out, no process. The same
/// two rounds as the command line's (`toolkit` 2.0 refuted by the run, 1.0 runs).
#[test]
fn restore_runs_as_a_library_function_on_plain_settings() {
    use nbenv::commands::restore::{run, RestoreSettings};
    use nbenv::reporter::{Event, Recorder};
    use nbenv::restore::Stop;

    let ctx = TestContext::with_server(python2_only_api_index());
    let nb = two_cells(ctx.root(), "import toolkit", "print(toolkit.old_api() + 1)");
    let global = ctx.settings();
    // nextest runs each test in a process of its own: uv's cache is the test's.
    global.confine_installer_caches();
    let output = ctx.root().join("requirements.txt");
    let settings = RestoreSettings {
        python: nbenv::python::PythonVersion::parse(&python3_version()),
        kernel_runtime: false,
        kernel_spec: false,
        output: Some(output.clone()),
        ..RestoreSettings::new(nb.into())
    };
    let said = Recorder::default();
    let done = run(&global, &settings, &said).unwrap();
    assert_eq!(done.stopped, Stop::Ran);
    assert_eq!(pins(&done.rounds[0].requirements), ["toolkit==2.0"]);
    assert_eq!(pins(&done.kept.requirements), ["toolkit==1.0"]);
    assert_eq!(done.rounds.len(), 2);
    assert_eq!(
        std::fs::read_to_string(&output).unwrap(),
        done.kept.requirements
    );
    let kept = done.environment.expect("the final environment is kept");
    assert!(kept.root.starts_with(ctx.cache().join("envs")), "{kept:?}");
    assert_eq!(kept.kernel, None, "no kernel was asked for");
    // The rounds were said as they went, through the reporter.
    let rounds: Vec<u32> = said
        .events()
        .iter()
        .filter_map(|e| match e {
            Event::Round(n, _) => Some(*n),
            _ => None,
        })
        .collect();
    assert!(rounds.contains(&1) && rounds.contains(&2), "{rounds:?}");
    assert!(ctx.cache().join("uv").is_dir(), "uv's cache is nbenv's");
}
