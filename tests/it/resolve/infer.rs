//! `nbenv infer` end to end against a loopback index, on an empty bank: what the notebook
//! needs is indexed on demand, resolved on a Python, and written with the evidence behind
//! each pin; helper modules are never requirements; conflicts exit 20 naming both sides.

use std::path::{Path, PathBuf};

use crate::support::archives::WheelBuilder;
use crate::support::cli::pins;
use crate::support::context::{Run, TestContext, Uploaded};
use crate::support::server::FixtureFile;
use crate::support::snapshot::STATIC;

/// What differs between machines in what `infer` prints, beyond [`STATIC`]: where the Python
/// asked for is installed and how much was downloaded. The Python's version stays: the tests
/// name the one they ask for.
const MACHINE: &[(&str, &str)] = &[
    (
        r"installed here at (/[\w.+-]+)+/bin/python[0-9.]*",
        "installed here at [python]",
    ),
    (r"\(\d+(\.\d+)? ?[KMG]?i?B downloaded", "([size] downloaded"),
];

/// What a command printed (`printed`), against the snapshot `$name` in
/// `tests/it/cli/snapshots/`, with the [`STATIC`] and [`MACHINE`] placeholders.
/// `snapshot!(EXTRA, ...)` applies the placeholders `EXTRA` after those.
macro_rules! snapshot {
    ($name:expr, $text:expr) => {
        snapshot!(&[] as &[(&str, &str)], $name, $text)
    };
    ($extra:expr, $name:expr, $text:expr) => {{
        let filters: Vec<(&str, &str)> = STATIC
            .iter()
            .chain(MACHINE.iter())
            .chain($extra.iter())
            .copied()
            .collect();
        crate::assert_printed!(filters, $name, $text);
    }};
}

/// The sha256 of an archive, in a lock: the tests compare the ones they compute themselves.
const HASHES: &[(&str, &str)] = &[(r"sha256:[0-9a-f]{64}", "sha256:[hash]")];

/// What a command printed, stdout then stderr, then its exit code, as
/// `support::snapshot::printed` shows it.
fn printed(code: i32, out: &str, err: &str) -> String {
    format!("{out}{err}[exit {code}]\n")
}

/// An index with `toolkit` (1.0 has `old_api`, 2.0 removed it and needs `dep`, 3.0 is the
/// newest) and `dep` (1.0, 2.0).
fn context() -> TestContext {
    let ctx = TestContext::with_index();
    let toolkit = [
        WheelBuilder::new("toolkit", "1.0").file(
            "toolkit/__init__.py",
            "def old_api():\n    pass\ndef kept():\n    pass\n",
        ),
        WheelBuilder::new("toolkit", "2.0")
            .file("toolkit/__init__.py", "def kept():\n    pass\n")
            .requires("dep>=1"),
        WheelBuilder::new("toolkit", "3.0")
            .file("toolkit/__init__.py", "def kept():\n    pass\n")
            .requires("dep>=2"),
    ];
    publish(&ctx, "toolkit", &toolkit);
    publish(
        &ctx,
        "dep",
        &[
            WheelBuilder::new("dep", "1.0").file("dep/__init__.py", "X = 1\n"),
            WheelBuilder::new("dep", "2.0").file("dep/__init__.py", "X = 2\n"),
        ],
    );
    ctx
}

/// Releases uploaded a year apart from 2010, in the order given.
fn publish(ctx: &TestContext, project: &str, wheels: &[WheelBuilder]) {
    ctx.publish(project, wheels, Uploaded::Yearly(2010));
}

/// `split`: 1.0 has `old`, 2.0 has `new` instead.
fn publish_split(ctx: &TestContext) {
    publish(
        ctx,
        "split",
        &[
            WheelBuilder::new("split", "1.0").file("split/__init__.py", "def old():\n    pass\n"),
            WheelBuilder::new("split", "2.0").file("split/__init__.py", "def new():\n    pass\n"),
        ],
    );
}

fn notebook(ctx: &TestContext, source: &str) -> PathBuf {
    ctx.write("nb.py", source)
}

/// nbenv on a machine with no Python at all: no pyenv, nothing on `PATH`.
fn run_without_pythons(ctx: &TestContext, args: &[&str]) -> Run {
    let nothing = ctx.path("no-pythons");
    std::fs::create_dir_all(&nothing).unwrap();
    let mut cmd = ctx.command();
    cmd.env("PATH", &nothing)
        .env("PYENV_ROOT", &nothing)
        .args(args);
    Run::from_output(&cmd.output().unwrap())
}

/// `nbenv infer NOTEBOOK --python 3.11 EXTRA...`.
fn infer(ctx: &TestContext, notebook: &Path, extra: &[&str]) -> Run {
    ctx.infer(notebook, &[&["--python", "3.11"], extra].concat())
}

#[test]
fn an_empty_bank_is_filled_on_demand_and_every_pin_says_why() {
    let env = context();
    let nb = notebook(
        &env,
        "import toolkit\nimport helpers\n\ntoolkit.old_api()\nhelpers.load()\n",
    );
    let (code, out, err) = infer(&env, &nb, &[]).parts();
    assert_eq!(code, 0, "{out}{err}");
    // old_api was removed in 2.0: the pin is the release that has it, not the newest. A
    // helper module that was not copied along is named, never required; what the notebook
    // needs of toolkit is indexed, and said.
    assert_eq!(pins(&out), ["toolkit==1.0"], "{out}");
    snapshot!("infer-filled-on-demand", printed(code, &out, &err));

    // Once indexed, the bank answers: nothing is indexed again.
    let (code, again, err) = infer(&env, &nb, &[]).parts();
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("indexing"), "{err}");
    assert_eq!(pins(&again), pins(&out));
}

#[test]
fn newest_allowed_release_with_its_dependencies_in_the_json() {
    let env = context();
    let nb = notebook(&env, "import toolkit\ntoolkit.kept()\n");
    let (code, out, err) = infer(&env, &nb, &[]).parts();
    assert_eq!(code, 0, "{err}");
    // Transitive dependencies are not requirements of the notebook.
    assert_eq!(pins(&out), ["toolkit==3.0"], "{out}");

    let target = env.root().join("out.json");
    let (code, _, err) = infer(
        &env,
        &nb,
        &["--format", "json", "-o", target.to_str().unwrap()],
    )
    .parts();
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&target).unwrap()).unwrap();
    assert_eq!(v["schema_version"], 1);
    assert_eq!(v["python"]["version"], "3.11");
    let pins = v["solution"]["pins"].as_array().unwrap();
    let dep = pins.iter().find(|p| p["dist"] == "dep").unwrap();
    assert_eq!(dep["version"], "2.0");
    assert_eq!(dep["required_by"][0]["kind"], "dependency");
    assert_eq!(dep["required_by"][0]["parent"], "toolkit");
}

#[test]
fn a_pip_install_line_is_honoured() {
    let env = context();
    let nb = notebook(
        &env,
        "!pip install toolkit==2.0\nimport toolkit\ntoolkit.kept()\n",
    );
    let (code, out, err) = infer(&env, &nb, &[]).parts();
    assert_eq!(code, 0, "{err}");
    assert_eq!(pins(&out), ["toolkit==2.0"], "{out}");
}

/// An API only a release without a wheel for the target has: the evidence gives way (an
/// API used once is the weakest there is), the requirements are still written, and the
/// warning says what was set aside and why.
#[test]
fn evidence_no_python_can_satisfy_gives_way_and_says_so() {
    let env = context();
    // toolkit 1.0, the only release with old_api, has a wheel for Python 2 only.
    env.server().publish(
        "toolkit",
        &[
            FixtureFile::wheel(
                &WheelBuilder::new("toolkit", "1.0")
                    .tag("py2-none-any")
                    .file("toolkit/__init__.py", "def old_api():\n    pass\n"),
            ),
            FixtureFile::wheel(
                &WheelBuilder::new("toolkit", "2.0")
                    .file("toolkit/__init__.py", "def kept():\n    pass\n"),
            ),
        ],
    );
    let nb = notebook(&env, "import toolkit\ntoolkit.old_api()\n");
    let (code, out, err) = infer(&env, &nb, &[]).parts();
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(pins(&out), ["toolkit==2.0"], "{out}");
    assert!(
        err.contains(
            "warning: toolkit: cell 1 uses toolkit.old_api (removed in 2.0) (no Python the \
             notebook allows has a full resolution with it; dropped)"
        ),
        "{err}"
    );
    let (code, json, err) = infer(&env, &nb, &["--format", "json"]).parts();
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let record = &v["evidence"]["distributions"][0]["records"][1];
    assert_eq!(record["source"]["api"], "toolkit.old_api", "{record}");
    assert_eq!(record["rank"], "single", "{record}");
    assert_eq!(
        record["effect"],
        serde_json::json!({"kind": "dropped", "why": "no_resolution"})
    );
}

/// Exit 20 is for imports that cannot be installed at all; it always says why, on stderr
/// and, asked for JSON, in the document it writes.
#[test]
fn an_import_nothing_installs_exits_20_with_its_reason_in_text_and_json() {
    let env = context();
    let py2 = WheelBuilder::new("toolkit", "1.0")
        .tag("py2-none-any")
        .file("toolkit/__init__.py", "def old_api():\n    pass\n");
    env.server().publish("toolkit", &[FixtureFile::wheel(&py2)]);
    let nb = notebook(&env, "import toolkit\ntoolkit.old_api()\n");
    let (code, out, err) = infer(&env, &nb, &[]).parts();
    assert_eq!(code, 20, "{out}{err}");
    assert!(out.is_empty(), "{out}");
    // Why, once: no "see why above".
    snapshot!("infer-nothing-installs", printed(code, &out, &err));
    let (code, json, _) = infer(&env, &nb, &["--format", "json"]).parts();
    assert_eq!(code, 20);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["schema_version"], 1);
    assert_eq!(v["error"]["kind"], "no_solution");
    assert_eq!(v["error"]["tried"][0]["python"], "3.11");
    assert!(
        v["error"]["tried"][0]["why"]
            .as_str()
            .unwrap()
            .contains("no wheel for CPython 3.11"),
        "{v}"
    );
    // Building from source is not the question here: an sdist-only escape does not exist.
    let (code, _, _) = infer(&env, &nb, &["--allow-sdist"]).parts();
    assert_eq!(code, 20);
}

#[test]
fn a_broken_notebook_is_refused_with_its_own_code() {
    let env = context();
    let path = env.root().join("broken.ipynb");
    std::fs::write(&path, "{\"cells\": [").unwrap();
    let (code, _, err) = env.run(["infer", path.to_str().unwrap()]).parts();
    assert_eq!(code, 10, "{err}");
    assert!(err.contains("broken.ipynb"), "{err}");
}

#[test]
fn a_namesake_on_the_index_without_the_used_apis_is_no_requirement() {
    let env = context();
    // `helpers` on the index installs a module of that name, with none of what the notebook
    // calls; `pyutils` installs another module altogether.
    publish(
        &env,
        "helpers",
        &[WheelBuilder::new("helpers", "1.0")
            .file("helpers/__init__.py", "def other():\n    pass\n")],
    );
    publish(
        &env,
        "pyutils",
        &[WheelBuilder::new("pyutils", "1.0").file("something_else/__init__.py", "X = 1\n")],
    );
    let nb = notebook(&env, "import toolkit\nimport helpers\nimport utils\ntoolkit.kept()\nhelpers.load()\nutils.go()\n");
    let (code, out, err) = infer(&env, &nb, &[]).parts();
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(pins(&out), ["toolkit==3.0"], "{out}");
    // helpers lacks every API used; utils has no provider at all.
    snapshot!("infer-namesake", printed(code, &out, &err));
}

#[test]
fn the_lock_pins_the_whole_closure_with_hashes_pip_checks() {
    let env = context();
    let nb = notebook(&env, "import toolkit\ntoolkit.kept()\n");
    let (code, out, err) = infer(&env, &nb, &["--format", "lock"]).parts();
    assert_eq!(code, 0, "{err}");
    let wheel = |name: &str, v: &str, body: &str| {
        WheelBuilder::new(name, v)
            .file(&format!("{name}/__init__.py"), body)
            .build()
    };
    // The same bytes the index serves, so the same sha256.
    let dep = crate::support::server::sha256_hex(&wheel("dep", "2.0", "X = 2\n"));
    assert!(
        out.contains(&format!("dep==2.0 \\\n    --hash=sha256:{dep}\n")),
        "{out}"
    );
    // Each pin says why it is there; every one has a hash.
    snapshot!(HASHES, "infer-lock", printed(code, &out, &err));
}

/// The notebook's era (its last commit, by default) is a preference for every release
/// chosen: the newest of then wins, a newer one only where none of then fits (said in the
/// header), and a dependency held below its newest is listed, since an installer would take
/// the newest. `--date DATE` sets the era, `--date none` turns it off, `--exclude-newer` caps.
#[test]
fn the_notebooks_era_is_preferred_for_roots_and_dependencies() {
    let env = context();
    // upper 1.0 needs low>=1; low 1.0, 2.0, 3.0 are a year apart from 2010.
    publish(
        &env,
        "upper",
        &[WheelBuilder::new("upper", "1.0")
            .file("upper/__init__.py", "def up():\n    pass\n")
            .requires("low>=1")],
    );
    publish(
        &env,
        "low",
        &["1.0", "2.0", "3.0"].map(|v| WheelBuilder::new("low", v).file("low/__init__.py", "")),
    );
    let nb = notebook(
        &env,
        "import toolkit\ntoolkit.kept()\nimport upper\nupper.up()\n",
    );
    // No repository, no stored versions: no era, the newest.
    let (code, out, err) = infer(&env, &nb, &[]).parts();
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains("# Era:"), "{out}");
    assert_eq!(pins(&out), ["toolkit==3.0", "upper==1.0"], "{out}");
    crate::support::git::commit(env.root(), &["nb.py"], "2011-06-01T12:00:00Z");
    // toolkit 3.0 and low 3.0 came in 2012, after the notebook's commit.
    let (code, out, err) = infer(&env, &nb, &[]).parts();
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        pins(&out),
        ["low==2.0", "toolkit==2.0", "upper==1.0"],
        "{out}"
    );
    // The header names the era; low, held below its newest, is listed with why.
    snapshot!("infer-era-of-the-commit", printed(code, &out, &err));
    // An era before every release: the first after it, not the newest, and the header
    // names what is newer.
    let (code, out, err) = infer(&env, &nb, &["--date", "2009-01-01"]).parts();
    assert_eq!(code, 0, "{err}");
    snapshot!("infer-era-before-every-release", printed(code, &out, &err));
    assert_eq!(
        pins(&out),
        ["low==1.0", "toolkit==1.0", "upper==1.0"],
        "{out}"
    );
    // Off: the newest, whatever git says.
    let (code, out, err) = infer(&env, &nb, &["--date", "none"]).parts();
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains("# Era:"), "{out}");
    assert_eq!(pins(&out), ["toolkit==3.0", "upper==1.0"], "{out}");
    // A cap is a cap: nothing after it counts, era or not.
    let (code, out, err) = infer(
        &env,
        &nb,
        &["--exclude-newer", "2011-06-01", "--date", "none"],
    )
    .parts();
    assert_eq!(code, 0, "{err}");
    assert_eq!(pins(&out), ["toolkit==2.0", "upper==1.0"], "{out}");
    let (code, _, err) = infer(&env, &nb, &["--date", "yesterday"]).parts();
    assert_eq!(code, 2, "{err}");
}

#[test]
fn ranges_are_the_releases_the_evidence_allows_that_install_here() {
    let env = context();
    let with_f = "def f():\n    pass\n";
    let files: Vec<FixtureFile> = [
        ("1.0", "py3-none-any", with_f),
        ("2.0", "py2-none-any", with_f),
        ("3.0", "py3-none-any", with_f),
        ("4.0", "py3-none-any", "def g():\n    pass\n"),
    ]
    .iter()
    .map(|(v, tag, src)| {
        FixtureFile::wheel(
            &WheelBuilder::new("gappy", v)
                .tag(tag)
                .file("gappy/__init__.py", src),
        )
    })
    .collect();
    env.server().publish("gappy", &files);
    let nb = notebook(&env, "import gappy\ngappy.f()\n");
    let (code, out, err) = infer(&env, &nb, &["--ranges"]).parts();
    assert_eq!(code, 0, "{out}{err}");
    // f is gone in 4.0; 2.0 has no wheel for Python 3.
    assert_eq!(pins(&out), ["gappy>=1.0,<=3.0,!=2.0"], "{out}");
    let (code, _, err) = infer(&env, &nb, &["--ranges", "--format", "json"]).parts();
    assert_eq!(code, 2, "{err}");
}

/// A wild notebook's `%pip install cv2` (a name not on the index; its stored output shows it
/// never ran) made every Python "no solution": an install line of a project the index does
/// not have is set aside with a warning, and the notebook's imports resolve as any other.
#[test]
fn an_install_line_of_a_project_not_on_the_index_is_set_aside() {
    let env = context();
    let nb = env.write(
        "nb.ipynb",
        &ipynb("!pip install ghostpkg\nimport toolkit\ntoolkit.kept()\n"),
    );
    let (code, out, err) = infer(&env, &nb, &[]).parts();
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(pins(&out), ["toolkit==3.0"], "{out}");
    assert!(
        err.contains("warning: cell 1 installs ghostpkg, which is not on the index: set aside"),
        "{err}"
    );
    assert_eq!(
        err.matches("installs ghostpkg").count(),
        1,
        "said once: {err}"
    );
}

/// A minimal nbformat 4 notebook of one code cell.
fn ipynb(source: &str) -> String {
    serde_json::json!({
        "nbformat": 4, "nbformat_minor": 5, "metadata": {},
        "cells": [{"cell_type": "code", "metadata": {}, "execution_count": null,
                   "outputs": [], "source": source}]
    })
    .to_string()
}

/// [`ipynb`] saved on Python 3.5.2 (its kernel and language_info say so), as `py35.ipynb`.
fn py35_notebook(env: &TestContext, source: &str) -> PathBuf {
    let mut notebook: serde_json::Value = serde_json::from_str(&ipynb(source)).unwrap();
    notebook["metadata"] = serde_json::json!({
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
        "language_info": {"name": "python", "version": "3.5.2"}
    });
    env.write("py35.ipynb", &notebook.to_string())
}

#[test]
fn a_folder_gets_one_environment_and_each_pin_names_the_notebook_that_forced_it() {
    let env = context();
    publish_split(&env);
    let dir = env.write_files(
        "repo",
        &[
            ("a.ipynb", &ipynb("import toolkit\ntoolkit.kept()\n")),
            ("sub/b.ipynb", &ipynb("import toolkit\ntoolkit.old_api()\n")),
            // A checkpoint copy is not a notebook of the repository.
            (
                "sub/.ipynb_checkpoints/b-checkpoint.ipynb",
                &ipynb("import split\nsplit.new()\n"),
            ),
        ],
    );
    let (code, out, err) = infer(&env, &dir, &[]).parts();
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(pins(&out), ["toolkit==1.0"], "{out}");
    assert!(
        out.contains("toolkit==1.0  # sub/b.ipynb cell 1 uses toolkit.old_api (removed in 2.0)"),
        "{out}"
    );

    // Two notebooks that need different releases of split: no joint environment, both named.
    env.write_files(
        "repo",
        &[
            ("c.ipynb", &ipynb("import split\nsplit.old()\n")),
            ("d.ipynb", &ipynb("import split\nsplit.new()\n")),
        ],
    );
    let (code, out, err) = infer(&env, &dir, &[]).parts();
    assert_eq!(code, 20, "{out}{err}");
    snapshot!(
        "infer-folder-no-version-in-common",
        printed(code, &out, &err)
    );

    let empty = env.root().join("nothing");
    std::fs::create_dir_all(&empty).unwrap();
    let (code, _, err) = infer(&env, &empty, &[]).parts();
    assert_eq!(code, 3, "{err}");
}

#[test]
fn without_indexing_what_the_bank_lacks_is_resolved_without_api_evidence_and_said() {
    let env = context();
    // `six` is in nbenv's package list, so it is a candidate without the bank or the index.
    publish(
        &env,
        "six",
        &[
            WheelBuilder::new("six", "1.0").file("six.py", "def old(): pass\n"),
            WheelBuilder::new("six", "2.0").file("six.py", "def new(): pass\n"),
        ],
    );
    let nb = notebook(&env, "import six\nsix.old()\n");
    let (code, out, err) = infer(&env, &nb, &["--no-index"]).parts();
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("the bank lacks six: resolved without API evidence for it"),
        "{err}"
    );
    // No evidence: the newest release, which an indexed bank would have ruled out.
    assert_eq!(pins(&out), ["six==2.0"], "{out}");
    let (code, out, err) = infer(&env, &nb, &[]).parts();
    assert_eq!(code, 0, "{err}");
    assert_eq!(pins(&out), ["six==1.0"], "{out}");
}

#[test]
fn the_local_modules_a_notebook_imports_bring_their_requirements_and_evidence() {
    let env = context();
    publish_split(&env);
    let dir = env.write_files(
        "repo",
        &[
            (
                "analysis.ipynb",
                &ipynb("import helpers\nfrom pkg.sub import plot\nhelpers.load()\nplot()\n"),
            ),
            // `import helpers` runs helpers.py: its API use pins toolkit, and it imports
            // chain, which imports dep (and helpers again: a cycle is read once).
            (
                "helpers.py",
                "import toolkit\nimport chain\n\n\ndef load():\n    return toolkit.old_api()\n",
            ),
            ("chain.py", "import dep\nimport helpers\n"),
            ("pkg/__init__.py", ""),
            (
                "pkg/sub.py",
                "import split\n\ndef plot():\n    split.new()\n",
            ),
            // Beside the notebook but never imported: asks for nothing.
            ("unused.py", "import never_imported_pkg\n"),
        ],
    );

    let nb = dir.join("analysis.ipynb");
    let (code, out, err) = infer(&env, &nb, &[]).parts();
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(
        pins(&out),
        ["dep==2.0", "split==2.0", "toolkit==1.0"],
        "{out}"
    );
    // Each pin names the module that asked for it. Only the newest split was read, and it
    // has `new`: nothing constrains it, the import asked for it. unused.py is never named.
    snapshot!("infer-local-modules", printed(code, &out, &err));
}

#[test]
fn without_a_resolution_from_wheels_the_sdists_are_built_and_said_unless_wheels_only() {
    let env = context();
    // Like langid or jieba: never a wheel, only sdists, with a C extension to build.
    let sdist = |version: &str, source: &str| {
        FixtureFile::sdist(
            "speedy",
            version,
            &[("speedy.py", source), ("_speedups.c", "int fast(void);\n")],
        )
        .uploaded("2016-01-01")
    };
    env.server().publish(
        "speedy",
        &[
            sdist("1.0", "def detect():\n    pass\n"),
            sdist("1.1", "def detect():\n    pass\n"),
        ],
    );
    let (code, _, err) = env.run(["bank", "add", "speedy", "--all-versions"]).parts();
    assert_eq!(code, 0, "{err}");
    let nb = notebook(&env, "import speedy\nimport toolkit\ntoolkit.kept()\n");
    let (code, out, err) = infer(&env, &nb, &[]).parts();
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(pins(&out), ["speedy==1.1", "toolkit==3.0"], "{out}");
    // Said in the header and on stderr.
    snapshot!("infer-built-from-sdists", printed(code, &out, &err));
    let (code, json, err) = infer(&env, &nb, &["--format", "json"]).parts();
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        v["sdist_fallback"]["built"],
        serde_json::json!([["speedy", "1.1"]]),
        "{}",
        v["sdist_fallback"]
    );
    assert!(
        v["sdist_fallback"]["wheels_only"][0]["why"]
            .as_str()
            .unwrap()
            .contains("only an sdist not known to be pure Python"),
        "{}",
        v["sdist_fallback"]
    );

    // Asked for wheels only: no environment, and why.
    let (code, out, err) = infer(&env, &nb, &["--wheels-only"]).parts();
    assert_eq!(code, 20, "{out}{err}");
    snapshot!(
        "infer-wheels-only-no-environment",
        printed(code, &out, &err)
    );
    // On every Python nbenv knows: each reason once, and the option named once.
    let (code, out, err) = env.infer(&nb, &["--wheels-only"]).parts();
    assert_eq!(code, 20, "{out}{err}");
    assert_eq!(
        err.matches("(the same on each): Because").count(),
        1,
        "{err}"
    );
    assert_eq!(err.matches("on CPython 3.").count(), 0, "{err}");
    assert_eq!(err.matches("--allow-sdist builds them").count(), 1, "{err}");
    // A distribution that has a wheel for the target in some release is never built: its
    // API in an sdist-only release gives way instead.
    let mixed_sdist = FixtureFile::sdist(
        "mixed",
        "1.0",
        &[
            ("mixed.py", "def old_api():\n    pass\n"),
            ("_mixed.pyx", "def fast():\n    pass\n"),
        ],
    )
    .uploaded("2016-01-01");
    let mixed_wheel =
        WheelBuilder::new("mixed", "2.0").file("mixed.py", "def new_api():\n    pass\n");
    env.server()
        .publish("mixed", &[mixed_sdist, FixtureFile::wheel(&mixed_wheel)]);
    let (code, _, err) = env.run(["bank", "add", "mixed", "--all-versions"]).parts();
    assert_eq!(code, 0, "{err}");
    let nb = notebook(&env, "import mixed\nmixed.old_api()\n");
    let (code, out, err) = infer(&env, &nb, &[]).parts();
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(pins(&out), ["mixed==2.0"], "{out}");
    // Nothing built from an sdist, nothing said of sdists: mixed.old_api is dropped.
    snapshot!("infer-api-of-an-sdist-gives-way", printed(code, &out, &err));
    // A notebook with a resolution from wheels says nothing of sdists.
    let nb = notebook(&env, "import toolkit\ntoolkit.kept()\n");
    let (code, out, _) = infer(&env, &nb, &[]).parts();
    assert_eq!(code, 0);
    assert!(!out.contains("sdist"), "{out}");
}

/// Case 5 of the repair issue: tensorflow 2.6 needs `wrapt~=1.12.1`, which has only an
/// sdist, while other wrapt releases have wheels; building that sdist is the last resort
/// before exit 20, and the output says so (release by release, a wheel still goes first).
#[test]
fn an_sdist_a_dependency_pins_is_built_rather_than_no_resolution() {
    let env = context();
    let deep = WheelBuilder::new("deep", "2.6")
        .file("deep/__init__.py", "def run():\n    pass\n")
        .requires("wr~=1.12.1");
    env.server().publish_dated("deep", &[(&deep, "2021-08-01")]);
    let wr_sdist = FixtureFile::sdist(
        "wr",
        "1.12.1",
        &[
            ("wr/__init__.py", "X = 1\n"),
            ("wr/_wrappers.c", "int w(void);\n"),
        ],
    )
    .uploaded("2020-03-01");
    let wheel = |v: &str| {
        let w = WheelBuilder::new("wr", v)
            .tag("cp311-cp311-manylinux_2_17_x86_64")
            .file("wr/__init__.py", "X = 1\n");
        FixtureFile::wheel(&w).uploaded("2021-01-01")
    };
    env.server()
        .publish("wr", &[wheel("1.11.2"), wr_sdist, wheel("1.13.0")]);
    let nb = notebook(&env, "import deep\ndeep.run()\n");
    let (code, out, err) = infer(&env, &nb, &[]).parts();
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(pins(&out), ["deep==2.6"], "{out}");
    assert!(
        out.contains("\n# Built from sdists: wr 1.12.1 (no resolution from wheels alone"),
        "{out}"
    );
    // Refusing builds keeps the exit 20, with why.
    let (code, _, err) = infer(&env, &nb, &["--wheels-only"]).parts();
    assert_eq!(code, 20, "{err}");
}

/// An sdist of pure Python: a `setup.py` that builds no extension and one package.
fn pure_sdist(name: &str, version: &str, files: &[(&str, &str)]) -> FixtureFile {
    let setup =
        format!("from setuptools import setup\nsetup(name='{name}', version='{version}')\n");
    let mut all = vec![("setup.py", setup.as_str())];
    all.extend_from_slice(files);
    FixtureFile::sdist(name, version, &all).uploaded("2016-06-05")
}

/// Like seaborn: `oldplot` 0.7.1, with `distplot`, is only a pure-Python sdist; 0.8, a
/// wheel, has `histplot` instead.
fn publish_oldplot(env: &TestContext) {
    let newer = WheelBuilder::new("oldplot", "0.8")
        .file("oldplot/__init__.py", "def histplot():\n    pass\n");
    env.server().publish(
        "oldplot",
        &[
            pure_sdist(
                "oldplot",
                "0.7.1",
                &[("oldplot/__init__.py", "def distplot():\n    pass\n")],
            ),
            FixtureFile::wheel(&newer).uploaded("2017-07-08"),
        ],
    );
}

#[test]
fn a_release_with_only_a_pure_python_sdist_is_pinned_and_said_to_be_built() {
    let env = context();
    // The API the notebook uses is only in a release published as an sdist of pure Python.
    publish_oldplot(&env);
    let nb = notebook(&env, "import oldplot\noldplot.distplot()\n");
    let (code, out, err) = infer(&env, &nb, &[]).parts();
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(pins(&out), ["oldplot==0.7.1"], "{out}");
    // Built because it is pure Python, not for want of a resolution from wheels.
    snapshot!("infer-pure-python-sdist", printed(code, &out, &err));
    let (code, json, err) = infer(&env, &nb, &["--format", "json"]).parts();
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["pure_sdists"], serde_json::json!([["oldplot", "0.7.1"]]));
    assert!(v["sdist_fallback"].is_null(), "{}", v["sdist_fallback"]);
    let (code, lock, err) = infer(&env, &nb, &["--format", "lock"]).parts();
    assert_eq!(code, 0, "{err}");
    snapshot!(
        HASHES,
        "infer-pure-python-sdist-lock",
        printed(code, &lock, &err)
    );
    // Asked for wheels only: the API used once gives way to the release that has a wheel,
    // and the warning says so.
    let (code, out, err) = infer(&env, &nb, &["--wheels-only"]).parts();
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(pins(&out), ["oldplot==0.8"], "{out}");
    snapshot!(
        "infer-pure-python-sdist-wheels-only",
        printed(code, &out, &err)
    );
}

#[test]
fn a_project_that_never_published_a_wheel_provides_the_modules_its_sdist_holds() {
    let env = context();
    // Like pydotplus: only sdists, its package under lib/, named in its egg-info.
    let files = |version: &str| -> Vec<(&'static str, String)> {
        vec![
            (
                "lib/dotlike/__init__.py",
                format!("__version__ = '{version}'\ndef graph_from_dot_data(data):\n    pass\n"),
            ),
            ("lib/dotlike.egg-info/top_level.txt", "dotlike\n".into()),
        ]
    };
    let release = |version: &str| {
        let owned = files(version);
        let borrowed: Vec<(&str, &str)> = owned.iter().map(|(p, d)| (*p, d.as_str())).collect();
        pure_sdist("dotlike", version, &borrowed)
    };
    env.server()
        .publish("dotlike", &[release("2.0.1"), release("2.0.2")]);
    // A namesake whose sdist holds another module provides nothing.
    env.server().publish(
        "dotother",
        &[pure_sdist(
            "dotother",
            "1.0",
            &[("elsewhere/__init__.py", "")],
        )],
    );
    let nb = notebook(
        &env,
        "import dotlike\nimport dotother\ng = dotlike.graph_from_dot_data('digraph {}')\n",
    );
    let (code, out, err) = infer(&env, &nb, &[]).parts();
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(pins(&out), ["dotlike==2.0.2"], "{out}");
    snapshot!("infer-modules-of-an-sdist", printed(code, &out, &err));
}

#[test]
fn no_pre_release_is_pinned_while_a_final_release_will_do() {
    let env = context();
    let plot = |version: &str| {
        WheelBuilder::new("plotlib", version).file("plotlib/__init__.py", "def plot():\n    pass\n")
    };
    publish(
        &env,
        "plotlib",
        &[plot("2.2.2"), plot("2.2.3"), plot("3.0.0rc2")],
    );
    // The newest `styles` asks for plotlib's release candidate: newest first would pin it.
    publish(
        &env,
        "styles",
        &[
            WheelBuilder::new("styles", "0.8").file("styles/__init__.py", "def set():\n    pass\n"),
            WheelBuilder::new("styles", "0.9")
                .file("styles/__init__.py", "def set():\n    pass\n")
                .requires("plotlib>=3.0.0rc1"),
        ],
    );
    let nb = notebook(
        &env,
        "import plotlib\nimport styles\nstyles.set()\nplotlib.plot()\n",
    );
    let (code, out, err) = infer(&env, &nb, &[]).parts();
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(pins(&out), ["plotlib==2.2.3", "styles==0.8"], "{out}");
    // A notebook that asks for the release candidate gets it.
    let nb = notebook(
        &env,
        "!pip install plotlib==3.0.0rc2\nimport plotlib\nimport styles\nstyles.set()\n",
    );
    let (code, out, err) = infer(&env, &nb, &[]).parts();
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(pins(&out), ["plotlib==3.0.0rc2", "styles==0.9"], "{out}");
}

#[test]
fn offline_an_sdist_never_surveyed_is_not_pure_and_nothing_fails() {
    let env = context();
    publish_oldplot(&env);
    // The notebook installs the release itself: evidence that never gives way.
    let nb = notebook(
        &env,
        "!pip install oldplot==0.7.1\nimport oldplot\noldplot.distplot()\n",
    );
    let nb = nb.to_str().unwrap();
    // Online, wheels only and no archive kept: the bank and the index pages are filled, and
    // the sdist is neither surveyed nor kept.
    let (code, out, err) = env
        .run([
            "--cache-size",
            "0",
            "infer",
            nb,
            "--python",
            "3.11",
            "--wheels-only",
        ])
        .parts();
    assert_eq!(code, 20, "{out}{err}");
    // Offline, the sdist cannot be surveyed: not pure, said so, and no error beyond exit 20.
    let (code, out, err) = env
        .run([
            "--offline",
            "--cache-size",
            "0",
            "infer",
            nb,
            "--python",
            "3.11",
        ])
        .parts();
    assert_eq!(code, 20, "{out}{err}");
    assert!(
        err.contains("0.7.1 cannot be installed on CPython 3.11 (no wheel for CPython 3.11, only an sdist not known to be pure Python)"),
        "{err}"
    );
    // Online, it is surveyed, and counts.
    let (code, out, err) = env
        .run(["--cache-size", "0", "infer", nb, "--python", "3.11"])
        .parts();
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(pins(&out), ["oldplot==0.7.1"], "{out}");
    assert!(out.contains("(pure Python)"), "{out}");
}

#[test]
fn python_3_5_is_a_target_its_wheels_resolve_for() {
    let env = context();
    let arch = std::env::consts::ARCH;
    let wheel = |version: &str, tag: String| {
        FixtureFile::wheel(
            &WheelBuilder::new("oldlib", version)
                .tag(&tag)
                .file("oldlib/__init__.py", "def f():\n    pass\n"),
        )
    };
    env.server().publish(
        "oldlib",
        &[
            wheel("1.0", format!("cp35-cp35m-manylinux1_{arch}")),
            wheel("2.0", format!("cp36-cp36m-manylinux1_{arch}")),
        ],
    );
    let nb = notebook(&env, "import oldlib\noldlib.f()\n");
    let nb = nb.to_str().unwrap();
    let (code, out, err) = run_without_pythons(&env, &["infer", nb, "--python", "3.5"]).parts();
    assert_eq!(code, 0, "{out}{err}");
    // 2.0 has a wheel for 3.6 only.
    assert_eq!(pins(&out), ["oldlib==1.0"], "{out}");
    assert!(out.contains("# Python 3.5 (not installed here)"), "{out}");
    let (code, out, err) = run_without_pythons(&env, &["infer", nb, "--python", "3.6"]).parts();
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(pins(&out), ["oldlib==2.0"], "{out}");

    // A notebook saved on 3.5 whose dependency has wheels for 3.5 alone resolves there.
    let path = py35_notebook(&env, "import only35\nonly35.f()\n");
    let w = WheelBuilder::new("only35", "1.0")
        .tag(&format!("cp35-cp35m-manylinux1_{arch}"))
        .file("only35/__init__.py", "def f():\n    pass\n");
    env.server().publish("only35", &[FixtureFile::wheel(&w)]);
    let (code, out, err) = run_without_pythons(&env, &["infer", path.to_str().unwrap()]).parts();
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(pins(&out), ["only35==1.0"], "{out}");
    assert!(out.contains("# Python 3.5 (not installed here)"), "{out}");
}

/// scikit-learn 0.19.1 imports scipy whenever it is imported but declares it only under an
/// extra: `pip install -r` of the roots alone gives an environment where `import sklearn`
/// fails. The bank read that import when it indexed the release, so scipy is pinned too,
/// with why, on an empty bank (scipy is taken as the provider because the release's own
/// Requires-Dist names it); JSON and the lock say it as well.
#[test]
fn a_distribution_a_release_imports_undeclared_is_pinned_with_why() {
    let env = context();
    publish(
        &env,
        "scikit-learn",
        &[WheelBuilder::new("scikit-learn", "0.19.1")
            .file(
                "sklearn/__init__.py",
                "try:\n    __SKLEARN_SETUP__\nexcept NameError:\n    __SKLEARN_SETUP__ = False\n\
                 if __SKLEARN_SETUP__:\n    pass\nelse:\n    from .base import clone\n",
            )
            .file(
                "sklearn/base.py",
                "import copy\nfrom scipy import sparse\ndef clone(x):\n    return copy.copy(x)\n",
            )
            .requires("scipy>=0.13.3; extra == 'alldeps'")],
    );
    publish(
        &env,
        "scipy",
        &[
            WheelBuilder::new("scipy", "1.4.1").file("scipy/sparse/__init__.py", "X = 1\n"),
            WheelBuilder::new("scipy", "1.5.4").file("scipy/sparse/__init__.py", "X = 1\n"),
        ],
    );
    let nb = notebook(&env, "import sklearn\nsklearn.clone(1)\n");
    let (code, out, err) = infer(&env, &nb, &[]).parts();
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(
        pins(&out),
        ["scikit-learn==0.19.1", "scipy==1.5.4"],
        "{out}"
    );
    assert!(
        out.contains("scipy==1.5.4  # scikit-learn 0.19.1 imports scipy (undeclared)\n"),
        "{out}"
    );

    let (code, json, err) = infer(&env, &nb, &["--format", "json"]).parts();
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let scipy = v["solution"]["pins"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["dist"] == "scipy")
        .unwrap_or_else(|| panic!("{json}"));
    assert_eq!(
        scipy["required_by"],
        serde_json::json!([{
            "kind": "imported",
            "parent": "scikit-learn",
            "parent_version": "0.19.1",
            "modules": ["scipy"],
        }])
    );

    let (code, lock, err) = infer(&env, &nb, &["--format", "lock"]).parts();
    assert_eq!(code, 0, "{err}");
    assert!(
        lock.contains("# via scikit-learn (imports it)\nscipy==1.5.4"),
        "{lock}"
    );
}

/// Standalone keras 2.10 declares nothing but imports `tensorflow.compat.v2` whenever it is
/// imported; tensorflow 1.1 has no such module. A notebook held to tensorflow 1.1 gets the
/// keras that imports nothing of tensorflow at import time, never the pair that cannot work.
#[test]
fn a_pair_the_bank_shows_incompatible_is_never_emitted() {
    let env = context();
    publish(
        &env,
        "keras",
        &[
            WheelBuilder::new("keras", "2.0.8").file(
                "keras/__init__.py",
                "from . import backend\ndef Sequential():\n    pass\n",
            )
            .file(
                "keras/backend/__init__.py",
                "if _BACKEND == 'theano':\n    from theano import tensor\nelse:\n    from tensorflow import nn\n",
            ),
            WheelBuilder::new("keras", "2.10.0").file(
                "keras/__init__.py",
                "import tensorflow.compat.v2 as tf\ndef Sequential():\n    pass\n",
            ),
        ],
    );
    publish(
        &env,
        "tensorflow",
        &[
            WheelBuilder::new("tensorflow", "1.1.0")
                .file("tensorflow/__init__.py", "def placeholder():\n    pass\n"),
            WheelBuilder::new("tensorflow", "2.10.0")
                .file("tensorflow/__init__.py", "from tensorflow import compat\n")
                .file("tensorflow/compat/__init__.py", "")
                .file(
                    "tensorflow/compat/v2/__init__.py",
                    "def function():\n    pass\n",
                ),
        ],
    );
    let (code, out, err) = env.run(["bank", "add", "keras", "tensorflow"]).parts();
    assert_eq!(code, 0, "{out}{err}");
    let nb = notebook(
        &env,
        "import keras\nimport tensorflow as tf\nx = tf.placeholder()\nm = keras.Sequential()\n",
    );
    let (code, out, err) = infer(&env, &nb, &[]).parts();
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(pins(&out), ["keras==2.0.8", "tensorflow==1.1.0"], "{out}");
}

/// A member of an object traced to a library class is a guess (the instance may be of
/// another class: torch 0.4's `Variable(x)` is a Tensor, whose `.data` the bank cannot see),
/// and where the notebook last ran outranks it: the guess gives way on the recorded Python
/// before a newer one is tried.
#[test]
fn a_guess_gives_way_before_the_recorded_python_does() {
    let env = context();
    let lib = |version: &str, body: &str, python: &str| {
        WheelBuilder::new("gradlib", version)
            .file("gradlib/__init__.py", body)
            .requires_python(python)
    };
    publish(
        &env,
        "gradlib",
        &[
            lib("0.4", "class Variable(object):\n    pass\n", ">=3.5"),
            lib("2.0", "class Variable(object):\n    data = None\n", ">=3.8"),
        ],
    );
    let path = py35_notebook(
        &env,
        "import gradlib\nv = gradlib.Variable()\nprint(v.data)\n",
    );
    let (code, out, err) = run_without_pythons(&env, &["infer", path.to_str().unwrap()]).parts();
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(pins(&out), ["gradlib==0.4"], "{out}");
    // The recorded Python 3.5 (not installed here) stands; gradlib.Variable.data is dropped.
    snapshot!("infer-a-guess-gives-way", printed(code, &out, &err));
}

/// An import no conventional name provides (`pyfancy`, published as `python-fancy`) is
/// resolved by a distribution the repository declares under a name that resembles it, once
/// its wheel shows it installs the module; without the declaration, nothing provides it.
#[test]
fn a_declared_distribution_whose_name_resembles_the_import_provides_it() {
    let env = context();
    publish(
        &env,
        "python-fancy",
        &[WheelBuilder::new("python-fancy", "1.0")
            .file("pyfancy/__init__.py", "def go():\n    pass\n")],
    );
    let nb = notebook(&env, "import pyfancy\npyfancy.go()\n");
    let (code, out, err) = infer(&env, &nb, &[]).parts();
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("#   pyfancy (cell 1): no distribution provides it"),
        "{out}"
    );
    env.write("requirements.txt", "numpy\npython-fancy\n");
    let (code, out, err) = infer(&env, &nb, &[]).parts();
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(pins(&out), ["python-fancy==1.0"], "{out}");
}

/// A local module's reading gives way to the notebook's own: helpers.py calls `split.old`
/// (only 1.0) and the notebook's cell `split.new` (only 2.0). The notebook's need stands, the
/// module's is dropped with a warning, where the two used to stop `infer` with a conflict.
#[test]
fn a_local_modules_evidence_gives_way_to_the_notebooks_own() {
    let env = context();
    publish_split(&env);
    let dir = env.write_files(
        "repo",
        &[
            (
                "analysis.ipynb",
                &ipynb("import helpers\nimport split\nsplit.new()\n"),
            ),
            (
                "helpers.py",
                "import split\n\n\ndef load():\n    return split.old()\n",
            ),
        ],
    );
    let (code, out, err) = infer(&env, &dir.join("analysis.ipynb"), &["--full-history"]).parts();
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(pins(&out), ["split==2.0"], "{out}");
    // What helpers.py needs of split is dropped, with a warning.
    snapshot!("infer-a-local-module-gives-way", printed(code, &out, &err));
}

/// Two distributions install `slugify`: `slugify`, the import's own name (a Python 2 package
/// whose code calls `unicode`), and `awesome-slugify`. The import's own name wins when
/// nothing else tells them apart; the repository's requirements.txt declaring
/// `awesome-slugify` does.
#[test]
fn a_provider_the_repository_declares_wins_over_the_imports_own_name() {
    let env = context();
    publish(
        &env,
        "slugify",
        &[WheelBuilder::new("slugify", "0.0.1").file(
            "slugify/__init__.py",
            "def slugify(s):\n    return unicode(s)\n",
        )],
    );
    publish(
        &env,
        "awesome-slugify",
        &[WheelBuilder::new("awesome-slugify", "1.6.5")
            .file("slugify/__init__.py", "def slugify(s):\n    return s\n")],
    );
    let nb = notebook(&env, "from slugify import slugify\nslugify('a b')\n");
    let (code, out, err) = infer(&env, &nb, &[]).parts();
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(pins(&out), ["slugify==0.0.1"], "{out}");
    env.write("requirements.txt", "numpy\nawesome-slugify\n");
    let (code, out, err) = infer(&env, &nb, &[]).parts();
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(pins(&out), ["awesome-slugify==1.6.5"], "{out}");
}

/// Issue 38 item 11: the requirements do not change with what the bank happened to index.
/// `geo` imports `numbase` and declares `panda`, which declares `numbase`: inferred on a bank
/// that knows only what the notebook needed, then again after `bank add` indexed the
/// dependencies too, the requirements are the same, and neither calls numbase undeclared.
#[test]
fn the_requirements_do_not_change_as_the_bank_learns_the_dependencies() {
    let env = context();
    publish(
        &env,
        "geo",
        &[WheelBuilder::new("geo", "1.0")
            .file(
                "geo/__init__.py",
                "import numbase\ndef f():\n    return numbase.X\n",
            )
            .requires("panda")],
    );
    publish(
        &env,
        "panda",
        &[WheelBuilder::new("panda", "1.0")
            .file("panda/__init__.py", "import numbase\n")
            .requires("numbase")],
    );
    publish(
        &env,
        "numbase",
        &[WheelBuilder::new("numbase", "1.0").file("numbase/__init__.py", "X = 1\n")],
    );
    let nb = notebook(&env, "import geo\ngeo.f()\n");
    let (code, first, err) = infer(&env, &nb, &[]).parts();
    assert_eq!(code, 0, "{first}{err}");
    let (code, _, err) = env
        .run(["bank", "add", "panda", "numbase", "--all-versions"])
        .parts();
    assert_eq!(code, 0, "{err}");
    let (code, second, err) = infer(&env, &nb, &[]).parts();
    assert_eq!(code, 0, "{second}{err}");
    assert_eq!(first, second);
    assert!(!second.contains("(undeclared)"), "{second}");
}
