//! What the bank says must be true, end to end against a loopback index: unknown kept apart
//! from absent (and real removals still absent), the right file for each release, lazy
//! exports, shims that only raise, Python 2 imports, and schema upgrades.

use std::path::Path;

use crate::support::archives::{sdist_tar_gz, WheelBuilder};
use crate::support::context::{bare_command, TestContext};
use crate::support::server::FixtureFile;

fn ok(ctx: &TestContext, args: &[&str]) -> String {
    let run = ctx.run(args);
    assert_eq!(run.code, 0, "{args:?}: {}", run.text());
    run.stdout
}

fn json(ctx: &TestContext, args: &[&str]) -> serde_json::Value {
    let mut all = args.to_vec();
    all.extend(["--format", "json"]);
    serde_json::from_str(&ok(ctx, &all)).unwrap()
}

/// The query report for `api` in its one distribution.
fn query(ctx: &TestContext, api: &str) -> serde_json::Value {
    let v = json(ctx, &["bank", "query", api]);
    v["results"][0].clone()
}

/// `[[first, last], ...]` of a report's runs.
fn runs(report: &serde_json::Value, key: &str) -> Vec<(String, String)> {
    report[key]
        .as_array()
        .unwrap_or_else(|| panic!("no {key} in {report}"))
        .iter()
        .map(|r| {
            (
                r["first"].as_str().unwrap().to_string(),
                r["last"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn run(first: &str, last: &str) -> (String, String) {
    (first.to_string(), last.to_string())
}

fn wheel(w: WheelBuilder, upload: &str) -> FixtureFile {
    FixtureFile {
        upload_time: Some(format!("{upload}T00:00:00Z")),
        ..FixtureFile::new(&w.filename(), w.build())
    }
}

const CORE: &str = "class Model:\n    def fit(self, X):\n        self.coef_ = X\n        return self\n\ndef old_func():\n    pass\n";

/// lazylib 1.0: plain re-exports. 2.0: the package serves its names lazily through a module
/// `__getattr__`, with `Model` under `if TYPE_CHECKING:`. 3.0: plain again, `old_func` and the
/// `legacy` submodule removed.
fn lazylib() -> Vec<FixtureFile> {
    let plain = |version: &str, init: &str, legacy: bool| {
        let mut w = WheelBuilder::new("lazylib", version)
            .file("lazylib/__init__.py", init)
            .file("lazylib/core.py", CORE);
        if legacy {
            w = w.file("lazylib/legacy.py", "def helper():\n    pass\n");
        }
        w
    };
    vec![
        wheel(
            plain("1.0", "from .core import Model, old_func\nfrom . import legacy\n", true),
            "2019-01-01",
        ),
        wheel(
            plain(
                "2.0",
                "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .core import Model\n\
                 def __getattr__(name):\n    import importlib\n    return getattr(importlib.import_module('.core', __name__), name)\n\
                 from . import legacy\n",
                true,
            ),
            "2020-01-01",
        ),
        wheel(plain("3.0", "from .core import Model\n", false), "2021-01-01"),
    ]
}

#[test]
fn unknown_is_kept_apart_from_absent() {
    let env = TestContext::with_index();
    env.server().publish("lazylib", &lazylib());
    ok(&env, &["bank", "add", "lazylib", "--all-versions"]);

    // Found through the TYPE_CHECKING import the `__getattr__` serves.
    let model = query(&env, "lazylib.Model");
    assert_eq!(runs(&model, "present"), [run("1.0", "3.0")], "{model}");
    assert!(runs(&model, "unknown").is_empty());

    // Behind `__getattr__` in 2.0, static reading cannot rule the name out; 3.0 removed it.
    let old = query(&env, "lazylib.old_func");
    assert_eq!(runs(&old, "present"), [run("1.0", "1.0")], "{old}");
    assert_eq!(runs(&old, "unknown"), [run("2.0", "2.0")], "{old}");
    assert_eq!(runs(&old, "absent"), [run("3.0", "3.0")], "{old}");
    assert_eq!(old["unknown_through"][0]["through"], "lazylib");

    // A real removal is absent, not unknown: the submodule is gone in 3.0.
    let helper = query(&env, "lazylib.legacy.helper");
    assert_eq!(runs(&helper, "present"), [run("1.0", "2.0")]);
    assert!(runs(&helper, "unknown").is_empty(), "{helper}");
    assert_eq!(runs(&helper, "absent"), [run("3.0", "3.0")]);

    // Attributes set in methods are members: `coef_` after `fit`.
    let coef = query(&env, "lazylib.Model.coef_");
    assert_eq!(runs(&coef, "present"), [run("1.0", "3.0")], "{coef}");
    assert_eq!(coef["kind"], "attribute");

    // The text says which releases are unknown, and why, apart from the absent ones.
    let text = ok(&env, &["bank", "query", "lazylib.old_func"]);
    assert!(
        text.contains("unknown in:  2.0 (static reading cannot see through lazylib)"),
        "{text}"
    );
    assert!(text.contains("absent in:   3.0"), "{text}");

    // stats reports the unknown share.
    let stats = json(&env, &["bank", "stats"])["stats"].clone();
    assert!(stats["unknown_pairs"].as_u64().unwrap() > 0, "{stats}");
    assert_eq!(
        stats["unknown_by_distribution"][0]["distribution"],
        "lazylib"
    );
}

#[test]
fn an_api_only_possible_somewhere_is_still_reported() {
    // Nothing finds `lazylib.made_up`, but 2.0 could serve it: the answer is "unknown there",
    // which the resolver treats as unconstrained, not "no such API".
    let env = TestContext::with_index();
    env.server().publish("lazylib", &lazylib());
    ok(&env, &["bank", "add", "lazylib", "--all-versions"]);
    let made_up = query(&env, "lazylib.made_up");
    assert!(runs(&made_up, "present").is_empty());
    assert_eq!(runs(&made_up, "unknown"), [run("2.0", "2.0")]);
    assert_eq!(
        runs(&made_up, "absent"),
        [run("1.0", "1.0"), run("3.0", "3.0")]
    );
}

#[test]
fn releases_not_indexed_are_not_absent() {
    let env = TestContext::with_index();
    env.server().publish("lazylib", &lazylib());
    ok(&env, &["bank", "add", "lazylib==3.0"]);
    let old = query(&env, "lazylib.Model");
    assert_eq!(runs(&old, "present"), [run("3.0", "3.0")]);
    assert!(runs(&old, "absent").is_empty());
    let not_indexed: Vec<&str> = old["not_indexed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(not_indexed, ["1.0", "2.0"]);
}

#[test]
fn each_release_is_read_from_a_file_with_its_sources() {
    let env = TestContext::with_index();
    let code = "def relu(x):\n    return x\n";
    // 2.15-like: a Linux wheel with the code, Windows and aarch64 meta wheels with none.
    let linux = WheelBuilder::new("tfish", "2.15.0")
        .tag("cp311-cp311-manylinux_2_17_x86_64")
        .file("tfish/__init__.py", "from .nn import relu\n")
        .file("tfish/nn.py", code)
        .file(
            "tfish/_big.py",
            "# padding so that the meta wheels are far smaller\n".repeat(2000),
        )
        .stored()
        .requires("numpy>=1.23");
    let windows = WheelBuilder::new("tfish", "2.15.0")
        .tag("cp311-cp311-win_amd64")
        .requires("tfish-intel==2.15.0; platform_system == \"Windows\"");
    let aarch64 = WheelBuilder::new("tfish", "2.15.0")
        .tag("cp311-cp311-manylinux_2_17_aarch64")
        .requires("tfish-cpu-aws==2.15.0");
    // 2.14: only meta wheels and an sdist with the code: the sdist is read.
    let meta_only = WheelBuilder::new("tfish", "2.14.0")
        .tag("cp311-cp311-win_amd64")
        .requires("tfish-intel==2.14.0");
    let sdist = sdist_tar_gz(
        "tfish",
        "2.14.0",
        &[
            ("setup.py", ""),
            ("tfish/__init__.py", "from .nn import relu\n"),
            ("tfish/nn.py", code),
        ],
        "Metadata-Version: 1.1\nName: tfish\nVersion: 2.14.0\n",
    );
    env.server().publish(
        "tfish",
        &[
            wheel(windows, "2023-11-14"),
            wheel(aarch64, "2023-11-14"),
            wheel(linux, "2023-11-14"),
            wheel(meta_only, "2023-09-01"),
            FixtureFile::new("tfish-2.14.0.tar.gz", sdist),
        ],
    );
    // A metapackage: every file only requires the distribution with the code.
    let meta = WheelBuilder::new("qiskitish", "0.45.0").requires("qiskitish-terra==0.25.0");
    // Compiled only.
    let compiled = WheelBuilder::new("fastjsonish", "3.9.0")
        .tag("cp311-cp311-manylinux_2_17_x86_64")
        .file("fastjsonish.cpython-311-x86_64-linux-gnu.so", b"\x7fELF");
    let terra = WheelBuilder::new("qiskitish-terra", "0.25.0").file(
        "qiskitish/__init__.py",
        "def transpile(circuit):\n    pass\n",
    );
    env.server()
        .publish("qiskitish", &[wheel(meta, "2023-10-01")]);
    env.server()
        .publish("qiskitish-terra", &[wheel(terra, "2023-10-01")]);
    env.server()
        .publish("fastjsonish", &[wheel(compiled, "2023-10-01")]);

    ok(&env, &["bank", "add", "tfish", "--all-versions"]);
    ok(
        &env,
        &["bank", "add", "qiskitish", "qiskitish-terra", "fastjsonish"],
    );
    // The metapackage's import name leads to the distribution with the code.
    let module = ok(&env, &["bank", "query", "--module", "qiskitish"]);
    assert!(
        module.contains("qiskitish: qiskitish is a metapackage in 0.45.0 (of 1 indexed releases): the code is in qiskitish-terra"),
        "{module}"
    );
    assert!(
        module.contains("qiskitish: qiskitish-terra in 0.25.0"),
        "{module}"
    );
    let relu = query(&env, "tfish.relu");
    assert_eq!(runs(&relu, "present"), [run("2.14.0", "2.15.0")], "{relu}");

    let bank = rusqlite::Connection::open(env.bank()).unwrap();
    let file = |version: &str| -> String {
        bank.query_row(
            "SELECT file_name FROM releases WHERE version = ?1",
            [version],
            |r| r.get(0),
        )
        .unwrap()
    };
    assert!(
        file("2.15.0").contains("manylinux_2_17_x86_64"),
        "{}",
        file("2.15.0")
    );
    assert_eq!(file("2.14.0"), "tfish-2.14.0.tar.gz");
    // Requires-Dist from the Linux wheel; the meta wheels' own kept per file.
    let requires: Vec<String> = bank
        .prepare("SELECT requirement FROM requires_dist JOIN releases r ON r.id = release_id WHERE r.version = '2.15.0'")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(requires, ["numpy>=1.23"]);
    let per_file: Vec<(String, String)> = bank
        .prepare("SELECT file_name, requirement FROM file_requires_dist ORDER BY file_name")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(per_file.len(), 2, "{per_file:?}");
    assert!(per_file[1].0.contains("win_amd64") && per_file[1].1.starts_with("tfish-intel"));

    let stats = json(&env, &["bank", "stats"])["stats"].clone();
    let sourceless: Vec<(String, String, String)> = stats["sourceless_releases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["distribution"].as_str().unwrap().to_string(),
                r["reason"].as_str().unwrap().to_string(),
                r["detail"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    assert_eq!(
        sourceless,
        [
            ("fastjsonish".into(), "compiled-only".into(), String::new()),
            (
                "qiskitish".into(),
                "metapackage".into(),
                "qiskitish-terra".into()
            ),
        ]
    );
}

#[test]
fn versioned_sdist_layouts_are_read() {
    // regex before wheels: `Python2/` and `Python3/` beside each other; uncertainties:
    // `uncertainties-py23/` and `-py27/` installed as `uncertainties`.
    let env = TestContext::with_index();
    let regexish = sdist_tar_gz(
        "regexish",
        "2016.1.10",
        &[
            ("setup.py", ""),
            (
                "Python2/regexish.py",
                "def compile(p, flags=0):\n    pass\ndef py2_only():\n    pass\n",
            ),
            (
                "Python3/regexish.py",
                "def compile(p, flags=0):\n    pass\n",
            ),
            ("Python3/test_regexish.py", "def test():\n    pass\n"),
            ("docs/conf.py", ""),
        ],
        "Metadata-Version: 1.1\nName: regexish\nVersion: 2016.1.10\n",
    );
    let unc = sdist_tar_gz(
        "uncish",
        "3.0.1",
        &[
            ("setup.py", ""),
            ("uncish-py23/__init__.py", "from .core import ufloat\n"),
            ("uncish-py23/core.py", "def ufloat(n, s):\n    pass\n"),
            ("uncish-py27/__init__.py", "from .core import ufloat, new\n"),
            (
                "uncish-py27/core.py",
                "def ufloat(n, s):\n    pass\ndef new():\n    pass\n",
            ),
        ],
        "Metadata-Version: 1.1\nName: uncish\nVersion: 3.0.1\n",
    );
    env.server().publish(
        "regexish",
        &[FixtureFile::new("regexish-2016.1.10.tar.gz", regexish)],
    );
    env.server()
        .publish("uncish", &[FixtureFile::new("uncish-3.0.1.tar.gz", unc)]);
    ok(&env, &["bank", "add", "regexish", "uncish"]);
    assert_eq!(runs(&query(&env, "regexish.compile"), "present").len(), 1);
    assert_eq!(env.run(["bank", "query", "regexish.py2_only"]).code, 3);
    assert_eq!(runs(&query(&env, "uncish.new"), "present").len(), 1);
    let stats = json(&env, &["bank", "stats"])["stats"].clone();
    assert!(
        stats["sourceless_releases"].as_array().unwrap().is_empty(),
        "{stats}"
    );
}

#[test]
fn shims_that_only_raise_are_absent_with_their_message() {
    let env = TestContext::with_index();
    let v3 = WheelBuilder::new("plotish", "3.10.0")
        .file("plotish/__init__.py", "from . import graph_objs\n")
        .file("plotish/graph_objs.py", "class Figure:\n    pass\n")
        .file(
            "plotish/plotly/__init__.py",
            "def sign_in(user, key):\n    pass\n",
        );
    let v4 = WheelBuilder::new("plotish", "4.0.0")
        .file("plotish/__init__.py", "from . import graph_objs\n")
        .file("plotish/graph_objs.py", "class Figure:\n    pass\n")
        .file(
            "plotish/plotly/__init__.py",
            "from _plotish_future_ import _chart_studio_error\n_chart_studio_error('plotly')\n",
        )
        .file(
            "_plotish_future_/__init__.py",
            "def _chart_studio_error(submodule):\n    raise ImportError('The plotish.{} module is deprecated, please install the chart-studio package'.format(submodule))\n",
        );
    env.server().publish(
        "plotish",
        &[wheel(v3, "2019-01-01"), wheel(v4, "2019-07-01")],
    );
    ok(&env, &["bank", "add", "plotish", "--all-versions"]);
    let sign_in = query(&env, "plotish.plotly.sign_in");
    assert_eq!(runs(&sign_in, "present"), [run("3.10.0", "3.10.0")]);
    assert_eq!(
        runs(&sign_in, "absent"),
        [run("4.0.0", "4.0.0")],
        "{sign_in}"
    );
    assert_eq!(sign_in["raising_modules"][0]["module"], "plotish.plotly");
    let module = ok(&env, &["bank", "query", "--module", "plotish.plotly"]);
    assert!(
        module.contains(
            "raises on import in 4.0.0: ImportError: The plotish.{} module is deprecated"
        ),
        "{module}"
    );
}

#[test]
fn python2_releases_resolve_implicit_relative_imports() {
    // requests 0.3–0.6: `from core import *` in the package means `requests.core`.
    let env = TestContext::with_index();
    let sdist = sdist_tar_gz(
        "reqish",
        "0.6.0",
        &[
            ("setup.py", ""),
            ("reqish/__init__.py", "from core import *\n"),
            (
                "reqish/core.py",
                "__all__ = ['get']\ndef get(url, params=None):\n    pass\n",
            ),
        ],
        "Metadata-Version: 1.0\nName: reqish\nVersion: 0.6.0\n",
    );
    env.server()
        .publish("reqish", &[FixtureFile::new("reqish-0.6.0.tar.gz", sdist)]);
    ok(&env, &["bank", "add", "reqish"]);
    let get = query(&env, "reqish.get");
    assert_eq!(runs(&get, "present"), [run("0.6.0", "0.6.0")], "{get}");
    assert_eq!(get["canonical"][0]["path"], "reqish.core.get");
}

#[test]
fn a_bank_of_schema_1_is_upgraded() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bank.sqlite3");
    make_v1_bank(&path);
    // The first reader upgrades it (queries need the new tables), and answers.
    let out = bare_command()
        .arg("--bank")
        .arg(&path)
        .args(["bank", "stats", "--format", "json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["stats"]["schema_version"],
        nbenv::bank::store::SCHEMA_VERSION
    );
    // Paths stored as one dictionary blob are still found (schema 3 keeps them in chunks).
    let out = bare_command()
        .arg("--bank")
        .arg(&path)
        .args(["bank", "query", "toolkit.thing", "--format", "json"])
        .output()
        .unwrap();
    let q: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        q["results"][0]["canonical"][0]["path"], "toolkit.Thing",
        "{q}"
    );
    let bank = rusqlite::Connection::open(&path).unwrap();
    let version: u32 = bank
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .unwrap();
    assert_eq!(version, nbenv::bank::store::SCHEMA_VERSION);
    // The introspected release's link was kept as a runtime link too; the other's was not.
    let runtime: Vec<u8> = bank
        .query_row("SELECT runtime FROM aliases", [], |r| r.get(0))
        .unwrap();
    let set = nbenv::bank::store::ReleaseSet::decode(&runtime).unwrap();
    assert_eq!(
        set.iter().collect::<Vec<_>>(),
        [nbenv::bank::store::Slot(1)]
    );
    // What the releases import was not read by schema 1: not known, never "nothing".
    let rows: i64 = bank
        .query_row("SELECT count(*) FROM import_time", [], |r| r.get(0))
        .unwrap();
    assert_eq!(rows, 0);
    let out = bare_command()
        .arg("--bank")
        .arg(&path)
        .args([
            "bank",
            "query",
            "--imports",
            "toolkit==1.0",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let q: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(q["imports"], serde_json::Value::Null, "{q}");
}

/// A bank as schema 1 wrote it: one distribution, two releases (the second introspected),
/// one alias link seen in both.
fn make_v1_bank(path: &Path) {
    let bank = rusqlite::Connection::open(path).unwrap();
    bank.execute_batch(include_str!("../../fixtures/bank_schema_v1.sql"))
        .unwrap();
}

#[test]
fn names_are_shown_as_the_distribution_spells_them() {
    let env = TestContext::with_index();
    let w = WheelBuilder::new("Pillowish", "9.0").file(
        "PILish/__init__.py",
        "class Image:\n    def resize(self, size):\n        pass\n",
    );
    env.server().publish("pillowish", &[wheel(w, "2022-01-01")]);
    ok(&env, &["bank", "add", "pillowish"]);
    let text = ok(&env, &["bank", "query", "PILish.Image.resize"]);
    assert!(
        text.starts_with("PILish.Image.resize (Pillowish, method)"),
        "{text}"
    );
    let module = ok(&env, &["bank", "query", "--module", "PILish"]);
    assert!(module.starts_with("PILish: Pillowish in 9.0"), "{module}");
    // JSON keeps the normalized name for matching, and the spelling beside it.
    let report = query(&env, "PILish.Image.resize");
    assert_eq!(report["distribution"], "pillowish");
    assert_eq!(report["display_name"], "Pillowish");
}

/// A source file past 4 MiB is a data table (spacy's lemma lookups run to tens of MB, and
/// parsing them took hundreds of MB of memory): it is not parsed, and its module is opaque,
/// so what it holds is unknown rather than absent. The rest of the release is read as usual.
#[test]
fn huge_source_files_are_opaque_not_parsed() {
    let env = TestContext::with_index();
    let mut table = String::from("LOOKUP = {\n");
    for i in 0..200_000 {
        table.push_str(&format!("    \"word{i}\": \"lemma{i}\",\n"));
    }
    table.push_str(
        "}\ndef lemmatize(word):\n    return LOOKUP[word]\ndef reverse(word):\n    pass\n",
    );
    assert!(table.len() > 4 << 20);
    let w = WheelBuilder::new("lemmas", "1.0")
        .file("lemmas/__init__.py", "from .tables import lemmatize\n")
        .file("lemmas/tables.py", &table)
        .file("lemmas/core.py", "def tokenize(text):\n    pass\n");
    env.server().publish("lemmas", &[wheel(w, "2020-01-01")]);
    ok(&env, &["bank", "add", "lemmas"]);
    let reverse = query(&env, "lemmas.tables.reverse");
    assert_eq!(runs(&reverse, "unknown"), [run("1.0", "1.0")], "{reverse}");
    // Imported from it by the package: the import succeeds, so the name is there.
    let lemmatize = query(&env, "lemmas.lemmatize");
    assert_eq!(
        runs(&lemmatize, "present"),
        [run("1.0", "1.0")],
        "{lemmatize}"
    );
    let tokenize = query(&env, "lemmas.core.tokenize");
    assert_eq!(
        runs(&tokenize, "present"),
        [run("1.0", "1.0")],
        "{tokenize}"
    );
}

/// `bank query --imports` shows what a release imports from outside itself whenever it is
/// imported: what the resolver adds as dependencies. A guarded import is not among them.
#[test]
fn a_release_s_imports_at_import_time_are_queried() {
    let env = TestContext::with_index();
    let w = WheelBuilder::new("learnish", "0.19.1")
        .file("learnish/__init__.py", "from .base import clone\n")
        .file(
            "learnish/base.py",
            "import numpy as np\nfrom scipy import sparse\ntry:\n    import pandas\nexcept ImportError:\n    pandas = None\ndef clone(x):\n    return x\n",
        );
    env.server().publish("learnish", &[wheel(w, "2017-10-23")]);
    ok(&env, &["bank", "add", "learnish"]);
    let text = ok(&env, &["bank", "query", "--imports", "learnish==0.19.1"]);
    assert_eq!(
        text,
        "learnish 0.19.1 imports, whenever it is imported:\n  numpy\n  scipy.sparse\n"
    );
    let unknown = ok(
        &env,
        &[
            "bank",
            "query",
            "--imports",
            "learnish==0.19.1",
            "--format",
            "json",
        ],
    );
    let v: serde_json::Value = serde_json::from_str(&unknown).unwrap();
    assert_eq!(v["imports"], serde_json::json!(["numpy", "scipy.sparse"]));
}
