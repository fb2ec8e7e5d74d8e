//! Lazy indexing through `nbenv infer` on an empty bank, against a loopback index with long
//! histories: only the newest release and those around where the used APIs turn are read,
//! the pin is always read, and `--full-history` reads everything to the same answer.

use crate::support::archives::WheelBuilder;
use crate::support::cli::pins;
use crate::support::context::{Run, TestContext};
use crate::support::server::FixtureFile;
use nbenv::bank::store::IndexStatus;
use nbenv::names::DistName;
use nbenv::resolve::evidence::{BankView, SharedBank};

/// Publishes `releases` of `project` (1.0, 2.0, ... n.0); `init(i)` is release i's
/// `__init__.py`, `python(i)` its Requires-Python.
pub(super) fn publish(
    ctx: &TestContext,
    project: &str,
    n: usize,
    init: &dyn Fn(usize) -> String,
    python: &dyn Fn(usize) -> Option<&'static str>,
) {
    let files: Vec<FixtureFile> = (1..=n)
        .map(|i| {
            let mut w = WheelBuilder::new(project, &format!("{i}.0"))
                .file(&format!("{project}/__init__.py"), init(i));
            if let Some(p) = python(i) {
                w = w.requires_python(p);
            }
            FixtureFile {
                upload_time: Some(format!("20{:02}-01-01T00:00:00Z", i)),
                requires_python: python(i).map(str::to_string),
                ..FixtureFile::new(&w.filename(), w.build())
            }
        })
        .collect();
    ctx.server().publish(project, &files);
}

/// `nbenv infer` of a percent script whose one cell is `source`, on Python 3.11.
pub(super) fn infer(ctx: &TestContext, source: &str, extra: &[&str]) -> Run {
    let nb = ctx.write("nb.py", source);
    ctx.infer(&nb, &[&["--python", "3.11"], extra].concat())
}

/// The versions of `project` the bank has indexed, as their major numbers.
fn indexed(ctx: &TestContext, project: &str) -> Vec<usize> {
    let bank = SharedBank::open(&ctx.bank()).unwrap();
    let catalog = bank
        .catalog(&DistName::new(project).unwrap())
        .unwrap()
        .unwrap();
    catalog
        .releases
        .iter()
        .filter(|r| r.index == IndexStatus::Indexed)
        .map(|r| r.version.release()[0] as usize)
        .collect()
}

/// `old_api` until 23.0, removed in 24.0; `kept` always; 40 releases.
fn toolkit(i: usize) -> String {
    let mut s = String::from("def kept():\n    pass\n");
    if i <= 23 {
        s.push_str("def old_api():\n    pass\n");
    }
    s
}

#[test]
fn a_removed_api_is_located_by_reading_a_few_releases_and_the_pin_is_read() {
    let env = TestContext::with_index();
    publish(&env, "toolkit", 40, &toolkit, &|_| None);
    let (code, out, err) = infer(&env, "import toolkit\ntoolkit.old_api()\n", &[]).parts();
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(pins(&out), ["toolkit==23.0"], "{out}");
    assert!(out.contains("(removed in 24.0)"), "{out}");
    let read = indexed(&env, "toolkit");
    // The newest, both neighbours of the turn, and a logarithmic number of others.
    for must in [40, 23, 24] {
        assert!(read.contains(&must), "{must} unread: {read:?}");
    }
    assert!(read.len() <= 12, "read {} of 40: {read:?}", read.len());
    assert!(
        err.contains(&format!("indexed {} releases", read.len())),
        "{err}"
    );

    // The whole history gives the same answer.
    let full = TestContext::with_index();
    publish(&full, "toolkit", 40, &toolkit, &|_| None);
    let (code, out_full, err) = infer(
        &full,
        "import toolkit\ntoolkit.old_api()\n",
        &["--full-history"],
    )
    .parts();
    assert_eq!(code, 0, "{err}");
    assert_eq!(pins(&out_full), pins(&out));
    assert_eq!(indexed(&full, "toolkit").len(), 40);
}

#[test]
fn a_pin_forced_down_by_python_is_read_and_what_that_python_cannot_install_is_not() {
    let env = TestContext::with_index();
    // `api` is missing from 10.0 to 14.0 and back from 15.0; releases from 13.0 on need
    // Python 3.12, so on 3.11 the newest candidate, 12.0, lacks it: the solver must not walk
    // down unread releases one at a time, and the pin must be one that was read. Releases
    // 3.11 cannot install are never pinned there: the search does not read them (the newest,
    // 20.0, is read first, before the index says what it needs).
    let init = |i: usize| {
        if (10..15).contains(&i) {
            "X = 1\n".to_string()
        } else {
            "def api():\n    pass\n".to_string()
        }
    };
    publish(&env, "toolkit", 20, &init, &|i| {
        (i >= 13).then_some(">=3.12")
    });
    let (code, out, err) = infer(&env, "import toolkit\ntoolkit.api()\n", &["-v"]).parts();
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(pins(&out), ["toolkit==9.0"], "{out}\n{err}");
    let read = indexed(&env, "toolkit");
    for must in [20, 12, 9, 10] {
        assert!(read.contains(&must), "{must} unread: {read:?}\n{err}");
    }
    for never in [13, 14, 15, 19] {
        assert!(!read.contains(&never), "{never} read: {read:?}\n{err}");
    }
}

#[test]
fn a_namesake_without_any_used_api_has_its_whole_history_read_and_is_no_requirement() {
    let env = TestContext::with_index();
    publish(
        &env,
        "helpers",
        12,
        &|_| "def other():\n    pass\n".to_string(),
        &|_| None,
    );
    let (code, out, err) = infer(&env, "import helpers\nhelpers.load_data()\n", &[]).parts();
    assert_eq!(code, 0, "{out}{err}");
    assert!(pins(&out).is_empty(), "{out}");
    assert!(out.contains("#   helpers (cell 1)"), "{out}");
    assert_eq!(indexed(&env, "helpers").len(), 12);
}

/// Like pandas 0.x `DataFrame.ix`: members a class method makes with `setattr` under names
/// computed in a loop, which static reading cannot list; `ix` until 3.0, gone from 4.0 (the
/// method stays, so static reading still cannot tell).
pub(super) fn dynpkg(i: usize) -> String {
    let names = if i <= 3 {
        "[\"ix\", \"at_old\"]"
    } else {
        "[\"at_old\"]"
    };
    format!(
        "class Frame:\n    def head(self, n=5):\n        return n\n\n\
         \x20   @classmethod\n    def _create_indexer(cls, name):\n\
         \x20       setattr(cls, name, property(lambda self: 1))\n\n\
         def make():\n    return Frame()\n\n\
         for _name in {names}:\n    Frame._create_indexer(_name)\n"
    )
}

/// Issue 38 item 12: a member used on several values is said once; a member a class of
/// another library the notebook uses has (`framelib.Table.ix`) cannot move dynpkg's pin
/// whatever dynpkg's releases say, so no release is read for it, and it is not noted; `-v`
/// says it.
#[test]
fn unknown_members_are_said_once_and_other_libraries_members_only_at_verbose() {
    let two_makers = |i| format!("{}\ndef build():\n    return Frame()\n", dynpkg(i));
    let env = TestContext::with_index();
    publish(&env, "dynpkg", 6, &two_makers, &|_| None);
    let twice = "import dynpkg\na = dynpkg.make()\nb = dynpkg.build()\na.ix[0]\nb.ix[1]\n";
    let (code, out, err) = infer(&env, twice, &["--no-introspect"]).parts();
    assert_eq!(code, 0, "{out}{err}");
    let notes: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("whether it has"))
        .collect();
    assert_eq!(
        notes,
        [
            "note: dynpkg 6.0: whether it has .ix is unknown (static reading cannot tell; without \
          --no-introspect, nbenv would run it to see)"
        ],
        "{err}"
    );

    let env = TestContext::with_index();
    publish(&env, "dynpkg", 6, &two_makers, &|_| None);
    publish(
        &env,
        "framelib",
        1,
        &|_| {
            "class Table:\n    def ix(self):\n        return 0\n\ndef table():\n    return Table()\n".to_string()
        },
        &|_| None,
    );
    let elsewhere = format!("import framelib\nt = framelib.table()\nt.ix()\n{twice}");
    let (code, out, err) = infer(&env, &elsewhere, &["-v", "--no-introspect"]).parts();
    assert_eq!(code, 0, "{out}{err}");
    assert!(!err.contains("is unknown (static reading"), "{err}");
    assert!(
        err.contains(
            "dynpkg 6.0: whether it has .ix is unknown, and cannot matter: other libraries the \
             notebook uses have them, and the value may be theirs"
        ),
        "{err}"
    );
    let (code, out, err) = infer(&env, &elsewhere, &["--no-introspect"]).parts();
    assert_eq!(code, 0, "{out}{err}");
    assert!(!err.contains("whether it has"), "{err}");
    // With introspection, no release of dynpkg is read back for `.ix`.
    let (code, out, err) = infer(&env, &elsewhere, &["-v"]).parts();
    assert_eq!(code, 0, "{out}{err}");
    assert!(!err.contains("for .ix"), "{err}");
    assert_eq!(pins(&out), ["dynpkg==6.0", "framelib==1.0"], "{out}");
}

#[test]
fn a_pin_hinging_on_what_static_reading_cannot_tell_is_settled_by_introspection() {
    let source = "import dynpkg\ndf = dynpkg.make()\ndf.ix[0]\n";
    let env = TestContext::with_index();
    publish(&env, "dynpkg", 6, &dynpkg, &|_| None);
    let (code, out, err) = infer(&env, source, &["-v"]).parts();
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(pins(&out), ["dynpkg==3.0"], "{out}\n{err}");
    assert!(err.contains("introspecting dynpkg 6.0"), "{err}");
    assert!(err.contains("note: introspected"), "{err}");

    // Without introspection the answer stays unknown, rules nothing out, and is said.
    let env = TestContext::with_index();
    publish(&env, "dynpkg", 6, &dynpkg, &|_| None);
    let (code, out, err) = infer(&env, source, &["--no-introspect"]).parts();
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(pins(&out), ["dynpkg==6.0"], "{out}");
    assert!(
        err.contains("note: dynpkg 6.0: whether it has .ix is unknown"),
        "{err}"
    );

    // With no time for introspection: nothing is introspected, the answer stays unknown, and
    // the note says the budget was spent. A later run with time settles it.
    let env = TestContext::with_index();
    publish(&env, "dynpkg", 6, &dynpkg, &|_| None);
    let (code, out, err) = infer(&env, source, &["-v", "--introspect-budget", "0"]).parts();
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(pins(&out), ["dynpkg==6.0"], "{out}");
    assert!(!err.contains("introspecting dynpkg"), "{err}");
    assert!(
        err.contains("note: the introspection budget (0 s) is spent: 1 release not introspected (dynpkg 6.0)"),
        "{err}"
    );
    assert!(
        err.contains("whether it has .ix is unknown (static reading cannot tell; the introspection budget was spent before it)"),
        "{err}"
    );
    let (code, out, err) = infer(&env, source, &[]).parts();
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(pins(&out), ["dynpkg==3.0"], "{out}\n{err}");
}

#[test]
fn tensorflow_1_code_gets_a_1_x_release_on_a_python_that_has_wheels_for_it() {
    // Like TensorFlow: 1.x has `Session` and wheels only for CPython 3.6-3.7; 2.x dropped
    // `Session` and has wheels for 3.11. No --python: the interpreter is chosen by the evidence.
    let env = TestContext::with_index();
    let release = |v: &str, tags: &[&str], init: &str| -> Vec<FixtureFile> {
        tags.iter()
            .map(|tag| {
                let w = WheelBuilder::new("tflike", v)
                    .tag(tag)
                    .file("tflike/__init__.py", init);
                FixtureFile {
                    upload_time: Some("2019-01-01T00:00:00Z".into()),
                    ..FixtureFile::new(&w.filename(), w.build())
                }
            })
            .collect()
    };
    let v1 = "class Session:\n    pass\ndef constant(x):\n    return x\n";
    let v2 = "def constant(x):\n    return x\n";
    let mut files = Vec::new();
    for v in ["1.13.0", "1.14.0", "1.15.0"] {
        files.extend(release(
            v,
            &[
                "cp36-cp36m-manylinux2010_x86_64",
                "cp37-cp37m-manylinux2010_x86_64",
            ],
            v1,
        ));
    }
    for v in ["2.0.0", "2.15.0"] {
        files.extend(release(v, &["cp311-cp311-manylinux2014_x86_64"], v2));
    }
    env.server().publish("tflike", &files);
    let nb = env.root().join("tf.py");
    std::fs::write(
        &nb,
        "import tflike as tf\nx = tf.constant(1)\nwith tf.Session() as s:\n    pass\n",
    )
    .unwrap();
    let (code, stdout, err) = env.infer(&nb, &[]).parts();
    assert_eq!(code, 0, "{stdout}{err}");
    assert_eq!(pins(&stdout), ["tflike==1.15.0"], "{stdout}");
    assert!(
        stdout.contains("# Python 3.7 (") && stdout.contains("tflike.Session (removed in 2.0.0)"),
        "{stdout}"
    );
}

/// Every release of `dynpkg` aborts its interpreter on import, as TensorFlow 2.20 does under
/// Python 3.12: introspection cannot settle `.ix`, and records why. A later inference does not
/// spend its time on the same release again; `bank introspect --force` would.
#[test]
fn a_release_introspection_could_not_settle_is_not_tried_again_by_a_later_inference() {
    let source = "import dynpkg\ndf = dynpkg.make()\ndf.ix[0]\n";
    let env = TestContext::with_index();
    let aborting = |i: usize| {
        format!(
            "{}\nimport os, sys\nsys.stderr.write('F check failed: already registered\\n')\n\
             sys.stderr.flush()\nos.abort()\n",
            dynpkg(i)
        )
    };
    publish(&env, "dynpkg", 6, &aborting, &|_| None);
    let (code, out, err) = infer(&env, source, &[]).parts();
    assert_eq!(code, 0, "{out}{err}");
    // Said once, in a line: why on each interpreter, not the interpreter's own last words
    // (`-v` and `nbenv bank introspect` show them).
    let note = err
        .lines()
        .find(|l| l.starts_with("note: could not introspect dynpkg 6.0: Python 3."))
        .unwrap_or_else(|| panic!("{err}"));
    let next = err.lines().skip_while(|l| *l != note).nth(1).unwrap_or("");
    assert!(next.starts_with("note: ") || next.is_empty(), "{err}");
    assert!(!err.contains("already registered"), "{err}");
    assert!(!err.contains("warning: dynpkg"), "{err}");
    assert_eq!(pins(&out), ["dynpkg==6.0"], "{out}");

    let (code, out, err) = infer(&env, source, &["-v"]).parts();
    assert_eq!(code, 0, "{out}{err}");
    assert!(!err.contains("could not introspect"), "{err}");
    assert!(!err.contains("introspecting dynpkg"), "{err}");
    assert!(!err.contains("note: introspected"), "{err}");
    assert_eq!(pins(&out), ["dynpkg==6.0"], "{out}");
}
