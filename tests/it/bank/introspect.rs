//! Runtime introspection end to end, offline: a fixture package served by the loopback index
//! makes members with `setattr` at import time; static reading misses them, introspection
//! installs the package into a scratch venv (from the loopback index) and records them.
//! Needs `python3` (with `venv`) on the machine, as every nbenv user has.

use crate::support::archives::WheelBuilder;
use crate::support::context::TestContext;
use crate::support::server::FixtureFile;

const INIT: &str = r#"
from .core import Frame, make

class _Indexer:
    def __init__(self, name):
        self.name = name

# Like pandas 0.x `DataFrame.ix`: members created in a loop, invisible to static reading.
for _name in ["ix", "iat_old"]:
    setattr(Frame, _name, property(lambda self, n=_name: _Indexer(n)))

# A table computed at import time: static reading cannot list what it serves.
_LEGACY = dict([("legacy_float", float)])

def __getattr__(name):
    if name in _LEGACY:
        return _LEGACY[name]
    raise AttributeError(name)
"#;

const CORE: &str =
    "class Frame:\n    def head(self, n=5):\n        return n\n\ndef make():\n    return Frame()\n";

/// A context with an empty loopback index, with nbenv's default retries.
fn context() -> TestContext {
    TestContext::with_index().env_remove("NBENV_HTTP_RETRIES")
}

/// dynpkg `version`: `init` as its `__init__.py`, beside the `Frame` of [`CORE`].
fn dynpkg(version: &str, init: &str) -> WheelBuilder {
    WheelBuilder::new("dynpkg", version)
        .file("dynpkg/__init__.py", init)
        .file("dynpkg/core.py", CORE)
}

#[test]
fn introspection_records_what_static_reading_misses() {
    let v1 = dynpkg("1.0", INIT);
    // 0.9 had `legacy_float` as a plain assignment: a name 1.0 serves from __getattr__.
    let v09 = dynpkg(
        "0.9",
        "from .core import Frame, make\nlegacy_float = float\n",
    );
    let ctx = context();
    ctx.server()
        .publish_dated("dynpkg", &[(&v09, "2020-01-01"), (&v1, "2020-06-01")]);
    let (code, _, err) = ctx.run(["bank", "add", "dynpkg", "--all-versions"]).parts();
    assert_eq!(code, 0, "{err}");

    // Static reading alone does not know `ix`.
    let (code, _, _) = ctx.run(["bank", "query", "dynpkg.Frame.ix"]).parts();
    assert_eq!(code, 3);

    let (code, out, err) = ctx
        .run(["bank", "introspect", "dynpkg==1.0", "--format", "json"])
        .parts();
    assert_eq!(code, 0, "{out}{err}");
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    let outcome = &report["introspected"][0][2];
    assert_eq!(outcome["outcome"], "recorded", "{report}");

    let (code, out, err) = ctx
        .run(["bank", "query", "dynpkg.Frame.ix", "--format", "json"])
        .parts();
    assert_eq!(code, 0, "{err}");
    let q = serde_json::from_str::<serde_json::Value>(&out).unwrap()["results"].clone();
    assert_eq!(q[0]["present"][0]["first"], "1.0");
    assert_eq!(q[0]["kind"], "property");
    assert!(q[0]["static_present"].as_array().unwrap().is_empty());
    assert_eq!(q[0]["canonical"][0]["path"], "dynpkg.core.Frame.ix");

    // A name served by module __getattr__ is found by probing the names other releases had.
    let (code, out, err) = ctx
        .run(["bank", "query", "dynpkg.legacy_float", "--format", "json"])
        .parts();
    assert_eq!(code, 0, "{err}");
    let q = serde_json::from_str::<serde_json::Value>(&out).unwrap()["results"].clone();
    assert_eq!(q[0]["present"][0]["first"], "0.9");
    assert_eq!(q[0]["present"][0]["last"], "1.0");
    assert_eq!(q[0]["runtime_present"][0]["first"], "1.0");

    let (_, out, _) = ctx.run(["bank", "stats", "--format", "json"]).parts();
    let stats: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(stats["stats"]["introspected_releases"], 1);
}

#[test]
fn releases_that_cannot_be_installed_are_recorded_as_gaps() {
    let w = WheelBuilder::new("winonly", "1.0")
        .tag("cp311-cp311-win_amd64")
        .file("winonly/__init__.py", "x = 1\n");
    let ctx = context();
    ctx.server().publish("winonly", &[FixtureFile::wheel(&w)]);
    let (code, out, err) = ctx
        .run(["bank", "introspect", "winonly", "--format", "json"])
        .parts();
    assert_eq!(code, 0, "{out}{err}");
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    let outcome = &report["introspected"][0][2];
    assert_eq!(outcome["outcome"], "gap");
    assert!(
        outcome["reason"]
            .as_str()
            .unwrap()
            .contains("no wheel fits"),
        "{report}"
    );
}

/// Ctrl-C during an install: the installer is stopped, nothing is recorded for the release,
/// its scratch venv is removed, and nbenv says what was kept and exits with 130.
#[test]
fn ctrl_c_during_an_install_leaves_no_scratch_venv() {
    use std::time::{Duration, Instant};

    let v1 = dynpkg("1.0", INIT);
    let wheel = v1.filename();
    let ctx = context();
    let server = ctx.server();
    server.publish_dated("dynpkg", &[(&v1, "2020-06-01")]);
    let (code, _, err) = ctx.run(["bank", "add", "dynpkg"]).parts();
    assert_eq!(code, 0, "{err}");
    // The installer's download of the wheel hangs; Ctrl-C comes while it waits.
    server.delay_next(&format!("/files/{wheel}"), 5, Duration::from_secs(30));
    let tmp = tempfile::tempdir().unwrap();
    let child = ctx
        .command()
        .args(["bank", "introspect", "dynpkg==1.0"])
        .env("TMPDIR", tmp.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let scratch = || {
        std::fs::read_dir(tmp.path())
            .unwrap()
            .flatten()
            .filter(|e| {
                e.file_name()
                    .to_string_lossy()
                    .starts_with("nbenv-introspect-")
            })
            .count()
    };
    let deadline = Instant::now() + Duration::from_secs(120);
    while scratch() == 0
        || !server
            .log()
            .iter()
            .any(|r| r.path.contains("/simple/dynpkg"))
    {
        assert!(Instant::now() < deadline, "the install never started");
        std::thread::sleep(Duration::from_millis(50));
    }
    let requests = server.log().len();
    while server.log().len() == requests && Instant::now() < deadline {
        // The installer has asked for the page; give it a moment to reach the wheel.
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(500));
    let started = Instant::now();
    // SAFETY: kill(2) on our own child's pid.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(started.elapsed() < Duration::from_secs(20), "{err}");
    assert_eq!(
        err.trim_end().lines().last(),
        Some("interrupted: 0 introspected releases kept; 1 left for the next run"),
        "{err}"
    );
    assert_eq!(scratch(), 0, "a scratch venv was left behind");
    let (_, stats, _) = ctx.run(["bank", "stats", "--format", "json"]).parts();
    let stats: serde_json::Value = serde_json::from_str(&stats).unwrap();
    assert_eq!(stats["stats"]["introspected_releases"], 0, "{stats}");
}

/// rtpkg 1.0 makes names at run time: an alias through `globals()`, a submodule put into
/// `sys.modules`, a name served by module `__getattr__` (which 0.9 defined plainly).
const RT_INIT: &str = r#"
import sys
import types
from .core import Frame, RandomState, Stamp, Result
from .base import Base

# Like pandas 2.0's `DataFrame.sum`: a member of the class at run time, inherited statically.
setattr(Frame, "total", Base.total)

globals()["Alias"] = Frame
_moves = types.ModuleType(__name__ + ".moves")
def _urlencode(query):
    return query
_urlencode.__module__ = __name__
_moves.urlencode = _urlencode
sys.modules[__name__ + ".moves"] = _moves
moves = _moves

# Computed at import time: static reading cannot list what `__getattr__` serves from it.
_LAZY = dict([("lazy_name", 1)])

def __getattr__(name):
    if name in _LAZY:
        return _LAZY[name]
    raise AttributeError(name)
"#;

#[test]
fn runtime_findings_settle_unknowns_and_survive_static_reindexing() {
    const RT_CORE: &str = "import collections\nimport datetime\nfrom .base import Base\n\nclass Frame(Base):\n    def head(self, n=5):\n        return n\n\n\
        class RandomState:\n    def seed(self, s=None):\n        pass\nRandomState.__module__ = 'mtrand'\n\n\
        class Stamp(datetime.datetime):\n    pass\n\n\
        Result = collections.namedtuple('Result', ['statistic', 'pvalue'])\n";
    const RT_BASE: &str = "class Base:\n    def total(self):\n        return 0\n";
    let v09 = WheelBuilder::new("rtpkg", "0.9")
        .file(
            "rtpkg/__init__.py",
            "from .core import Frame\nlazy_name = 1\n",
        )
        .file("rtpkg/core.py", RT_CORE)
        .file("rtpkg/base.py", RT_BASE);
    let v1 = WheelBuilder::new("rtpkg", "1.0")
        .file("rtpkg/__init__.py", RT_INIT)
        .file("rtpkg/core.py", RT_CORE)
        .file("rtpkg/base.py", RT_BASE);
    let ctx = context();
    ctx.server()
        .publish_dated("rtpkg", &[(&v09, "2020-01-01"), (&v1, "2020-06-01")]);
    let query = |api: &str| -> serde_json::Value {
        let (code, out, err) = ctx.run(["bank", "query", api, "--format", "json"]).parts();
        assert_eq!(code, 0, "{api}: {err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        v["results"][0].clone()
    };
    let versions = |report: &serde_json::Value, key: &str| -> Vec<String> {
        report[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                format!(
                    "{}-{}",
                    r["first"].as_str().unwrap(),
                    r["last"].as_str().unwrap()
                )
            })
            .collect()
    };
    let (code, _, err) = ctx.run(["bank", "add", "rtpkg", "--all-versions"]).parts();
    assert_eq!(code, 0, "{err}");
    // Statically, 1.0's `__getattr__` and `globals()` writes leave these unknown.
    let alias_head = query("rtpkg.Alias.head");
    assert_eq!(
        versions(&alias_head, "unknown"),
        ["1.0-1.0"],
        "{alias_head}"
    );
    assert_eq!(versions(&query("rtpkg.lazy_name"), "unknown"), ["1.0-1.0"]);

    let (code, out, err) = ctx
        .run(["bank", "introspect", "rtpkg==1.0", "--format", "json"])
        .parts();
    assert_eq!(code, 0, "{out}{err}");
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        report["introspected"][0][2]["outcome"], "recorded",
        "{report}"
    );

    // Introspection settles them: present where it found them...
    let check = |after: &str| {
        // Settled where introspection found them: an alias made through `globals()`, a name
        // served by `__getattr__`, a member the class has at run time and inherits statically
        // (both sources show), the blind spots of the runtime reader (a class whose
        // `__module__` is not ours by name, members inherited from the standard library,
        // namedtuple fields, static too), and a module made at run time, with its names.
        for (api, key, expected) in [
            ("rtpkg.Alias.head", "present", "1.0-1.0"),
            ("rtpkg.lazy_name", "present", "0.9-1.0"),
            ("rtpkg.Frame.total", "static_present", "0.9-1.0"),
            ("rtpkg.Frame.total", "runtime_present", "1.0-1.0"),
            ("rtpkg.RandomState.seed", "runtime_present", "1.0-1.0"),
            ("rtpkg.Stamp.strftime", "present", "1.0-1.0"),
            ("rtpkg.Result.pvalue", "static_present", "1.0-1.0"),
            ("rtpkg.Result.pvalue", "runtime_present", "1.0-1.0"),
            ("rtpkg.moves.urlencode", "present", "1.0-1.0"),
        ] {
            let report = query(api);
            assert_eq!(
                versions(&report, key),
                [expected],
                "{after}: {api} {key}: {report}"
            );
        }
        assert_eq!(
            query("rtpkg.Alias.head")["canonical"][0]["path"],
            "rtpkg.core.Frame.head"
        );
        // Absent where it listed the module and did not find the name.
        let (code, out, _) = ctx
            .run(["bank", "query", "rtpkg.never_made", "--format", "json"])
            .parts();
        assert_eq!(code, 3, "{after}: {out}");
    };
    check("after introspection");
    let (code, out, _) = ctx
        .run(["bank", "query", "--module", "rtpkg.moves"])
        .parts();
    assert_eq!(code, 0);
    assert!(out.contains("made at run time in 1.0"), "{out}");

    // Indexing 1.0 again statically keeps what introspection found.
    let (code, _, err) = ctx.run(["bank", "add", "rtpkg==1.0", "--force"]).parts();
    assert_eq!(code, 0, "{err}");
    check("after static re-indexing");
    let (_, out, _) = ctx.run(["bank", "stats", "--format", "json"]).parts();
    let stats: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(stats["stats"]["introspected_releases"], 1);

    // A diff compares like with like: 0.9 was not introspected, so 1.0's run-time names are
    // not "added", and `lazy_name` (static in 0.9, run time in 1.0) is not "removed".
    let (code, out, err) = ctx
        .run(["bank", "diff", "rtpkg", "0.9", "1.0", "--format", "json"])
        .parts();
    assert_eq!(code, 0, "{err}");
    let diff: serde_json::Value = serde_json::from_str(&out).unwrap();
    let paths = |key: &str| -> Vec<String> {
        diff[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["path"].as_str().unwrap().to_string())
            .collect()
    };
    // The names 1.0 imports into the package and `moves = _moves` are real, static additions;
    // `Alias` and `moves.urlencode` are run-time names of 1.0 only, and `sys`, `types` other
    // distributions' names.
    assert_eq!(
        paths("added"),
        [
            "rtpkg.Base",
            "rtpkg.RandomState",
            "rtpkg.Result",
            "rtpkg.Stamp",
            "rtpkg.moves"
        ],
        "{diff}"
    );
    assert!(paths("removed").is_empty(), "{diff}");
    assert_eq!(diff["runtime_compared"], false);
}

#[test]
fn introspection_skips_what_is_done_settles_only_unknowns_and_goes_on_past_failures() {
    let v1 = dynpkg("1.0", INIT);
    let v09 = dynpkg("0.9", "from .core import Frame, make\n");
    let ctx = context();
    ctx.server()
        .publish_dated("dynpkg", &[(&v09, "2020-01-01"), (&v1, "2020-06-01")]);
    let run = |args: &[&str]| -> (i32, serde_json::Value, String) {
        let mut all = args.to_vec();
        all.extend(["--format", "json"]);
        let (code, out, err) = ctx.run(&all).parts();
        let v = serde_json::from_str(&out).unwrap_or(serde_json::Value::Null);
        (code, v, err)
    };
    let outcomes = |v: &serde_json::Value| -> Vec<String> {
        v["introspected"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|r| {
                        format!(
                            "{} {}",
                            r[1].as_str().unwrap(),
                            r[2]["outcome"].as_str().unwrap()
                        )
                    })
                    .collect()
            })
            .unwrap_or_default()
    };

    // Only 1.0 has something unknown (a module `__getattr__`): 0.9 is left alone.
    let (code, v, err) = run(&["bank", "introspect", "dynpkg>=0.9", "--unknown-only"]);
    assert_eq!(code, 0, "{v}{err}");
    assert_eq!(outcomes(&v), ["1.0 recorded"], "{v}");
    assert_eq!(v["introspection_settled"], 1);

    // Done already: not installed again...
    let (code, v, err) = run(&["bank", "introspect", "dynpkg==1.0"]);
    assert_eq!(code, 0, "{v}{err}");
    assert!(outcomes(&v).is_empty(), "{v}");
    assert_eq!(v["introspection_skipped"], 1);
    // ...unless asked.
    let (code, v, err) = run(&["bank", "introspect", "dynpkg==1.0", "--force"]);
    assert_eq!(code, 0, "{v}{err}");
    assert_eq!(outcomes(&v), ["1.0 recorded"], "{v}");

    // A project the index does not have fails alone; the others are introspected; exit 6.
    let (code, v, err) = run(&["bank", "introspect", "nosuchpkg", "dynpkg==0.9"]);
    assert_eq!(code, 6, "{v}{err}");
    assert_eq!(outcomes(&v), ["0.9 recorded"], "{v}");
}

#[test]
fn a_run_that_imports_nothing_is_a_gap_with_its_reason() {
    // Like scikit-learn 0.19.2 without numpy: the top-level import fails for a missing
    // dependency; another release imports, but most of its modules do not.
    let broken = WheelBuilder::new("needsdep", "1.0")
        .file("needsdep/__init__.py", "import numpy_that_is_not_there\n")
        .file("needsdep/core.py", "def f():\n    pass\n");
    let mostly = WheelBuilder::new("needsdep", "2.0")
        .file("needsdep/__init__.py", "x = 1\n")
        .file("needsdep/a.py", "import missing_a\n")
        .file("needsdep/b.py", "import missing_b\n")
        .file("needsdep/c.py", "import missing_c\n");
    let ctx = context();
    ctx.server().publish_dated(
        "needsdep",
        &[(&broken, "2021-01-01"), (&mostly, "2021-06-01")],
    );
    let (code, out, err) = ctx
        .run(["bank", "introspect", "needsdep>=1", "--format", "json"])
        .parts();
    assert_eq!(code, 0, "{out}{err}");
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    let outcome = |i: usize| report["introspected"][i][2].clone();
    let (first, second) = (outcome(0), outcome(1));
    assert_eq!(first["outcome"], "gap", "{report}");
    let reason = first["reason"].as_str().unwrap();
    assert!(
        reason.contains("importing `needsdep` failed")
            && reason.contains("numpy_that_is_not_there"),
        "{reason}"
    );
    assert_eq!(second["outcome"], "gap", "{report}");
    let reason = second["reason"].as_str().unwrap();
    assert!(
        reason.contains("most modules failed to import (3 of 4"),
        "{reason}"
    );
    let (_, out, _) = ctx.run(["bank", "stats", "--format", "json"]).parts();
    let stats: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(stats["stats"]["introspected_releases"], 0);
}

#[test]
fn extras_the_release_needs_are_installed_and_heavy_ones_left_out() {
    // Like scikit-learn 0.19.2, whose wheel lists numpy and scipy only under `alldeps`.
    let dep = WheelBuilder::new("depmod", "1.0")
        .file("depmod/__init__.py", "def help():\n    return 1\n");
    let pkg = WheelBuilder::new("extrapkg", "1.0")
        .file(
            "extrapkg/__init__.py",
            "import depmod\nfrom .core import Model\n",
        )
        .file(
            "extrapkg/core.py",
            "class Model:\n    def fit(self):\n        return self\n",
        )
        .file("extrapkg/integrations.py", "import torch\n")
        .file("extrapkg/vision.py", "import visionlib\n")
        .requires("depmod>=1.0; extra == \"alldeps\"")
        .requires("torch>=1.0; extra == \"torch\"")
        .requires("visionlib; extra == \"vision\"");
    // Not heavy by name, but it would pull torch in: left out too.
    let visionlib = WheelBuilder::new("visionlib", "1.0")
        .file("visionlib/__init__.py", "import torch\n")
        .requires("torch>=1.0");
    // 2.0: most modules need torch, which the cap leaves out: they fail as expected, and the
    // run still records the rest.
    let pkg2 = WheelBuilder::new("extrapkg", "2.0")
        .file("extrapkg/__init__.py", "from .core import Model\n")
        .file(
            "extrapkg/core.py",
            "class Model:\n    def fit(self):\n        return self\n",
        )
        .file("extrapkg/a.py", "import torch\n")
        .file("extrapkg/b.py", "import torch\n")
        .file("extrapkg/c.py", "import torch.nn\n")
        .requires("torch>=1.0; extra == \"torch\"");
    let ctx = context();
    let day = "2021-01-01";
    ctx.server().publish_dated("depmod", &[(&dep, day)]);
    ctx.server()
        .publish_dated("visionlib", &[(&visionlib, day)]);
    ctx.server()
        .publish_dated("extrapkg", &[(&pkg, day), (&pkg2, day)]);
    let (code, out, err) = ctx
        .run(["bank", "introspect", "extrapkg==1.0", "--format", "json"])
        .parts();
    assert_eq!(code, 0, "{out}{err}");
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    let outcome = &report["introspected"][0][2];
    assert_eq!(outcome["outcome"], "recorded", "{report}");
    assert_eq!(
        outcome["extras"],
        serde_json::json!(["alldeps", "torch", "vision"]),
        "{report}"
    );
    assert_eq!(
        outcome["extras_left_out"],
        serde_json::json!(["torch", "visionlib"]),
        "{report}"
    );
    let (code, out, err) = ctx
        .run(["bank", "introspect", "extrapkg==2.0", "--format", "json"])
        .parts();
    assert_eq!(code, 0, "{out}{err}");
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    let outcome = &report["introspected"][0][2];
    assert_eq!(outcome["outcome"], "recorded", "{report}");
    assert_eq!(
        outcome["extras_left_out"],
        serde_json::json!(["torch"]),
        "{report}"
    );
    let (code, out, _) = ctx
        .run(["bank", "introspect", "extrapkg==1.0", "--force"])
        .parts();
    assert_eq!(code, 0);
    assert!(
        out.contains("with extras alldeps, torch, vision for its imports; left out of them: torch, visionlib"),
        "{out}"
    );
}

/// `options` is like pandas 0.19's option wrappers, whose `__getattr__` raises KeyError, not
/// AttributeError: reading `options.__name__` once ended the introspection script.
const OLDFRAME_INIT: &str = r#"
import tzdep
from .core import Frame
setattr(Frame, 'ix', property(lambda self: 1))
class _Options(object):
    def __getattr__(self, key):
        return {}[key]
options = _Options()
"#;

/// pandas' `Series.str`: a descriptor that gives a class of the release.
const ACCESSOR: &str = r#"
class StringMethods:
    def __init__(self, data):
        self.data = data
    def contains(self, pat):
        return True
class Accessor:
    def __init__(self, name, accessor):
        self._accessor = accessor
    def __get__(self, obj, cls):
        if obj is None:
            return self._accessor
        return self._accessor(obj)
class Frame:
    str = Accessor("str", StringMethods)
    def head(self):
        return 1
"#;

/// Like pandas before 0.24, whose Requires-Dist `pytz (>=2011k)` is no PEP 440 version: uv
/// refuses to install such a release at all. It goes in without dependencies, after them with
/// the unreadable constraint dropped, and the output says so.
#[test]
fn a_release_whose_metadata_installers_refuse_is_installed_apart_from_its_dependencies() {
    let dep = WheelBuilder::new("tzdep", "2016.10").file("tzdep/__init__.py", "UTC = 0\n");
    let pkg = WheelBuilder::new("oldframe", "0.19")
        .file("oldframe/__init__.py", OLDFRAME_INIT)
        .file("oldframe/core.py", ACCESSOR)
        .requires("tzdep (>=2011k)")
        .requires("pytest ; extra == 'test'");
    let ctx = context();
    ctx.server().publish_dated("tzdep", &[(&dep, "2017-01-01")]);
    ctx.server()
        .publish_dated("oldframe", &[(&pkg, "2017-01-01")]);
    let (code, out, err) = ctx
        .run(["bank", "introspect", "oldframe==0.19", "--format", "json"])
        .parts();
    assert_eq!(code, 0, "{out}{err}");
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    let outcome = &report["introspected"][0][2];
    assert_eq!(outcome["outcome"], "recorded", "{report}");
    assert_eq!(
        outcome["unreadable_metadata"],
        serde_json::json!(["tzdep (>=2011k)"]),
        "{report}"
    );
    // Members of the class an accessor gives are found through it, as users call them.
    for api in ["oldframe.Frame.ix", "oldframe.Frame.str.contains"] {
        let (code, out, _) = ctx.run(["bank", "query", api]).parts();
        assert_eq!(code, 0, "{out}");
        assert!(out.contains("present in:  0.19"), "{api}: {out}");
    }
}

/// `matplotlib.pylab` does `from numpy import *`: names of another distribution that static
/// reading cannot list. At run time they are there; introspection lists them, so a name no
/// release of pylab ever showed statically (`sin`) is present where introspected, never
/// absent.
#[test]
fn a_star_import_of_another_distribution_is_listed_whole_at_run_time() {
    let numlib = WheelBuilder::new("numlib", "1.0").file(
        "numlib/__init__.py",
        "def cos(x):\n    return x\ndef sin(x):\n    return x\n",
    );
    let plotlib = WheelBuilder::new("plotlib", "2.0")
        .file("plotlib/__init__.py", "")
        .file(
            "plotlib/pylab.py",
            "from numlib import *\ndef figure():\n    pass\n",
        )
        .requires("numlib");
    let ctx = context();
    ctx.server()
        .publish_dated("numlib", &[(&numlib, "2020-01-01")]);
    ctx.server()
        .publish_dated("plotlib", &[(&plotlib, "2020-01-01")]);
    let (code, out, err) = ctx
        .run(["bank", "introspect", "plotlib==2.0", "--format", "json"])
        .parts();
    assert_eq!(code, 0, "{out}{err}");
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        report["introspected"][0][2]["outcome"], "recorded",
        "{report}"
    );
    let (code, out, err) = ctx
        .run(["bank", "query", "plotlib.pylab.sin", "--format", "json"])
        .parts();
    assert_eq!(code, 0, "{out}{err}");
    let q = serde_json::from_str::<serde_json::Value>(&out).unwrap()["results"].clone();
    assert_eq!(q[0]["runtime_present"][0]["first"], "2.0", "{q}");
    assert!(
        q[0]["absent"].as_array().is_none_or(|a| a.is_empty()),
        "{q}"
    );
}
