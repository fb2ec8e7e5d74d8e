//! Soft evidence and the PEP 751 lock, end to end against a loopback index on an empty bank:
//! versions the stored outputs show and what the repository declares beside the notebook
//! narrow the versions only where the notebook's own evidence allows, are dropped with a
//! warning naming their place otherwise, and never add a requirement; Binder's runtime.txt
//! steers the Python; `--format pylock` writes a lock a TOML reader accepts, with the
//! specification's keys and the files' hashes.

use std::path::{Path, PathBuf};

use nbenv::notebook::{DeclarationKind, Declarations, DeclaredAt, DeclaredRequirement};
use nbenv::resolve::evidence::{
    gather, DropReason, Effect, EvidenceSource, MemoryBank, Relaxation, Sources,
};

use crate::support::archives::WheelBuilder;
use crate::support::cli::pins;
use crate::support::context::{Run, TestContext, Uploaded};
use crate::support::server::{sha256_hex, FixtureFile};

/// The index above, and a repository folder (`repo/`, with a `.git`) for the notebook, so
/// that declarations are looked for there and no higher.
fn context() -> TestContext {
    let ctx = TestContext::with_index();
    publish(&ctx, "toolkit", &toolkit_wheels());
    publish(&ctx, "dep", &dep_wheels());
    std::fs::create_dir_all(ctx.path("repo/.git")).unwrap();
    ctx
}

/// Releases uploaded a year apart from 2010, in the order given.
fn publish(ctx: &TestContext, project: &str, wheels: &[WheelBuilder]) {
    ctx.publish(project, wheels, Uploaded::Yearly(2010));
}

/// Writes a file of the repository.
fn write(ctx: &TestContext, name: &str, text: &str) -> PathBuf {
    ctx.write(&format!("repo/{name}"), text)
}

/// An nbformat 4 notebook under `repo/notebooks/` of one code cell with a stdout output.
fn notebook(ctx: &TestContext, source: &str, stdout: &str) -> PathBuf {
    let outputs = if stdout.is_empty() {
        serde_json::json!([])
    } else {
        serde_json::json!([{"output_type": "stream", "name": "stdout", "text": stdout}])
    };
    let nb = serde_json::json!({
        "nbformat": 4, "nbformat_minor": 5, "metadata": {},
        "cells": [{"cell_type": "code", "metadata": {}, "execution_count": 1,
                   "outputs": outputs, "source": source}]
    });
    write(ctx, "notebooks/nb.ipynb", &nb.to_string())
}

/// `nbenv infer NOTEBOOK --python 3.11 EXTRA...`.
fn infer_311(ctx: &TestContext, notebook: &Path, extra: &[&str]) -> Run {
    ctx.infer(notebook, &[&["--python", "3.11"], extra].concat())
}

/// `toolkit` 1.0 has `old_api`, 2.0 removed it and needs `dep>=1`, 3.0 needs `dep>=2`.
fn toolkit_wheels() -> [WheelBuilder; 3] {
    [
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
    ]
}

fn dep_wheels() -> [WheelBuilder; 2] {
    [
        WheelBuilder::new("dep", "1.0").file("dep/__init__.py", "X = 1\n"),
        WheelBuilder::new("dep", "2.0").file("dep/__init__.py", "X = 2\n"),
    ]
}

#[test]
fn a_printed_version_is_honoured_when_the_api_evidence_allows_it() {
    let env = context();
    let nb = notebook(
        &env,
        "import toolkit\nprint(toolkit.__version__)\ntoolkit.kept()\n",
        "2.0\n",
    );
    let (code, out, err) = infer_311(&env, &nb, &[]).parts();
    assert_eq!(code, 0, "{out}{err}");
    // Without the output, 3.0 (the newest with `kept`); the notebook last ran with 2.0.
    assert_eq!(pins(&out), ["toolkit==2.0"], "{out}");
    assert!(
        out.contains("toolkit==2.0  # cell 1 printed toolkit.__version__ 2.0"),
        "{out}"
    );
    assert!(!err.contains("dropped"), "{err}");
}

#[test]
fn a_printed_version_contradicting_an_api_is_dropped_with_a_warning() {
    let env = context();
    // old_api is gone from 2.0 on: the printed 2.0 cannot be what ran this code.
    let nb = notebook(
        &env,
        "import toolkit\nprint(toolkit.__version__)\ntoolkit.old_api()\n",
        "2.0\n",
    );
    let (code, out, err) = infer_311(&env, &nb, &["--format", "json"]).parts();
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        err.contains(
            "warning: toolkit: cell 1 printed toolkit.__version__ 2.0 \
             (no release still allowed satisfies it; dropped)"
        ),
        "{err}"
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let toolkit = v["solution"]["pins"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["dist"] == "toolkit")
        .unwrap();
    assert_eq!(toolkit["version"], "1.0");
    let records = v["evidence"]["distributions"][0]["records"]
        .as_array()
        .unwrap();
    let shown = records
        .iter()
        .find(|r| r["source"]["kind"] == "output")
        .unwrap();
    assert_eq!(shown["strength"], "soft");
    assert_eq!(shown["source"]["shown"]["by"], "printed");
    assert_eq!(shown["effect"]["kind"], "dropped");
    assert_eq!(shown["effect"]["why"], "contradicts");
}

#[test]
fn pips_report_of_what_it_installed_pins_the_installed_distribution_only() {
    let env = context();
    let nb = notebook(
        &env,
        "!pip install toolkit\nimport toolkit\ntoolkit.kept()\n",
        "Collecting toolkit\nSuccessfully installed dep-1.0 toolkit-2.0\n",
    );
    let (code, out, err) = infer_311(&env, &nb, &[]).parts();
    assert_eq!(code, 0, "{out}{err}");
    // dep was installed along, not asked for: still no requirement of the notebook.
    assert_eq!(pins(&out), ["toolkit==2.0"], "{out}");
    assert!(
        out.contains("cell 1's pip output shows 2.0 installed"),
        "{out}"
    );
}

#[test]
fn a_soft_version_with_no_wheel_for_the_python_is_set_aside_and_said() {
    let env = context();
    // toolkit 1.0 has a Python 2 wheel only: the printed 1.0 cannot be installed on 3.11.
    let py2 = WheelBuilder::new("toolkit", "1.0")
        .tag("py2-none-any")
        .file("toolkit/__init__.py", "def kept():\n    pass\n");
    let [_, two, three] = toolkit_wheels();
    let mut files = vec![FixtureFile::new(&py2.filename(), py2.build())];
    files.extend(
        [two, three]
            .iter()
            .map(|w| FixtureFile::new(&w.filename(), w.build())),
    );
    env.server().publish("toolkit", &files);
    let nb = notebook(
        &env,
        "import toolkit\nprint(toolkit.__version__)\ntoolkit.kept()\n",
        "1.0\n",
    );
    let (code, out, err) = infer_311(&env, &nb, &[]).parts();
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(pins(&out), ["toolkit==3.0"], "{out}");
    assert!(
        err.contains(
            "cell 1 printed toolkit.__version__ 1.0 \
             (no Python the notebook allows has a full resolution with it; dropped)"
        ),
        "{err}"
    );
}

/// Setting every soft piece aside because one cannot be had (a printed version with no wheel
/// here) drops only what the pin then violates: a keyword the pinned release takes was not
/// dropped, and is not reported so.
#[test]
fn what_the_pin_satisfies_after_a_relaxation_is_honoured_not_dropped() {
    let env = context();
    let kept = |version: &str, signature: &str| {
        WheelBuilder::new("toolkit", version).file(
            "toolkit/__init__.py",
            format!("def kept({signature}):\n    pass\n"),
        )
    };
    // 1.0 (Python 2 only) and 3.0 take `size`; 2.0 does not.
    let py2 = kept("1.0", "size=None").tag("py2-none-any");
    let files: Vec<FixtureFile> = [py2, kept("2.0", ""), kept("3.0", "size=None")]
        .iter()
        .map(|w| FixtureFile::new(&w.filename(), w.build()))
        .collect();
    env.server().publish("toolkit", &files);
    let nb = notebook(
        &env,
        "import toolkit\nprint(toolkit.__version__)\ntoolkit.kept(size=1)\n",
        "1.0\n",
    );
    // The whole history, so that 2.0 is known to lack the keyword.
    let (code, out, err) = infer_311(&env, &nb, &["--full-history"]).parts();
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(pins(&out), ["toolkit==3.0"], "{out}");
    assert!(err.contains("printed toolkit.__version__ 1.0"), "{err}");
    assert!(!err.contains("size="), "{err}");
    let (code, json, err) = infer_311(&env, &nb, &["--format", "json"]).parts();
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let records = v["evidence"]["distributions"][0]["records"]
        .as_array()
        .unwrap();
    let effect = |kind: &str| {
        records
            .iter()
            .find(|r| r["source"]["kind"] == kind)
            .map(|r| r["effect"].clone())
            .unwrap()
    };
    assert_eq!(
        effect("output"),
        serde_json::json!({"kind": "dropped", "why": "no_resolution"})
    );
    assert_eq!(effect("keyword"), serde_json::json!({"kind": "constrains"}));
    assert_eq!(
        v["evidence"]["distributions"][0]["allowed"],
        serde_json::json!(["1.0", "3.0"])
    );
}

#[test]
fn requirements_beside_the_notebook_narrow_versions_and_add_nothing() {
    let env = context();
    let requirements = write(
        &env,
        "requirements.txt",
        "# what the course used\npandas==0.25.3\ntoolkit<3  # newer breaks the plots\n",
    );
    let nb = notebook(&env, "import toolkit\ntoolkit.kept()\n", "");
    let (code, out, err) = infer_311(&env, &nb, &[]).parts();
    assert_eq!(code, 0, "{out}{err}");
    // pandas is declared but never imported: no requirement.
    assert_eq!(pins(&out), ["toolkit==2.0"], "{out}");
    assert!(
        out.contains(&format!(
            "toolkit==2.0  # {}:3 declares toolkit<3",
            requirements.display()
        )),
        "{out}"
    );
    // Turned off, the newest release the API evidence allows.
    let (code, out, err) = infer_311(&env, &nb, &["--no-declarations"]).parts();
    assert_eq!(code, 0, "{err}");
    assert_eq!(pins(&out), ["toolkit==3.0"], "{out}");
}

#[test]
fn a_declaration_contradicting_the_api_evidence_is_dropped_naming_file_and_line() {
    let env = context();
    let requirements = write(&env, "requirements.txt", "numpy\ntoolkit>=2\n");
    // Nearer the notebook, read first: agrees with the notebook's evidence.
    write(
        &env,
        "notebooks/environment.yml",
        "dependencies:\n  - toolkit=1.0\n",
    );
    let nb = notebook(&env, "import toolkit\ntoolkit.old_api()\n", "");
    let (code, out, err) = infer_311(&env, &nb, &[]).parts();
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(pins(&out), ["toolkit==1.0"], "{out}");
    assert!(
        err.contains(&format!(
            "warning: toolkit: {}:2 declares toolkit>=2 (no release still allowed satisfies it; dropped)",
            requirements.display()
        )),
        "{err}"
    );
    assert_eq!(err.matches("dropped").count(), 1, "{err}");
}

#[test]
fn runtime_txt_steers_the_python_when_the_notebook_allows_it() {
    let env = context();
    let runtime = write(&env, "binder/runtime.txt", "python-3.7\n");
    let nb = notebook(&env, "import toolkit\ntoolkit.kept()\n", "");
    let (code, out, err) = env.infer(&nb, &[]).parts();
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("# Python 3.7 ("), "{out}");
    assert!(
        out.contains(&format!(
            "declared by {}:1, allowed by the notebook",
            runtime.display()
        )),
        "{out}"
    );

    // An assignment expression needs 3.8: the declaration is passed over, and said.
    let nb = notebook(
        &env,
        "import toolkit\nif (k := toolkit.kept()):\n    pass\n",
        "",
    );
    let (code, out, err) = env.infer(&nb, &[]).parts();
    assert_eq!(code, 0, "{out}{err}");
    assert!(!out.contains("# Python 3.7 ("), "{out}");
    assert!(
        out.contains(&format!(
            "{}:1 declares Python 3.7, which the notebook rules out",
            runtime.display()
        )),
        "{out}"
    );

    // --python decides alone.
    let nb = notebook(&env, "import toolkit\ntoolkit.kept()\n", "");
    let (code, out, _) = infer_311(&env, &nb, &[]).parts();
    assert_eq!(code, 0);
    assert!(out.contains("# Python 3.11 (") && out.contains("asked for with --python"));
}

#[test]
fn a_broken_environment_yml_is_a_warning_naming_the_file() {
    let env = context();
    let yml = write(
        &env,
        "environment.yml",
        "name: course\ndependencies:\n  - toolkit=1.0\n  - [unclosed\n",
    );
    let nb = notebook(&env, "import toolkit\ntoolkit.kept()\n", "");
    let (code, out, err) = infer_311(&env, &nb, &[]).parts();
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        err.contains(&format!("warning: {}:", yml.display())) && err.contains("not valid YAML"),
        "{err}"
    );
    // Nothing of the broken file is used.
    assert_eq!(pins(&out), ["toolkit==3.0"], "{out}");
}

#[test]
fn the_pylock_has_the_specifications_keys_and_every_files_hash() {
    let env = context();
    let nb = notebook(&env, "import toolkit\ntoolkit.kept()\n", "");
    let target = env.root().join("pylock.toml");
    let (code, _, err) = infer_311(
        &env,
        &nb,
        &["--format", "pylock", "-o", target.to_str().unwrap()],
    )
    .parts();
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&target).unwrap();
    let lock: toml::Table = toml::from_str(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(lock["lock-version"].as_str(), Some("1.0"), "{text}");
    assert_eq!(lock["created-by"].as_str(), Some("nbenv"));
    assert_eq!(lock["requires-python"].as_str(), Some("==3.11.*"));
    let environments = lock["environments"].as_array().unwrap();
    assert!(environments[0]
        .as_str()
        .unwrap()
        .starts_with("python_version == \"3.11\""));
    let packages = lock["packages"].as_array().unwrap();
    let names: Vec<&str> = packages
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["dep", "toolkit"]);
    let expected = [
        ("dep", "2.0", &dep_wheels()[1], "2011-01-01T00:00:00Z"),
        (
            "toolkit",
            "3.0",
            &toolkit_wheels()[2],
            "2012-01-01T00:00:00Z",
        ),
    ];
    for (package, (name, version, wheel, uploaded)) in packages.iter().zip(expected) {
        assert_eq!(package["name"].as_str(), Some(name));
        assert_eq!(package["version"].as_str(), Some(version));
        assert_eq!(
            package["index"].as_str(),
            Some(env.server().index_url().as_str())
        );
        let wheels = package["wheels"].as_array().unwrap();
        assert_eq!(wheels.len(), 1);
        let w = &wheels[0];
        let bytes = wheel.build();
        assert_eq!(w["name"].as_str(), Some(wheel.filename().as_str()));
        assert!(w["url"]
            .as_str()
            .unwrap()
            .ends_with(&format!("/files/{}", wheel.filename())));
        assert_eq!(
            w["hashes"]["sha256"].as_str(),
            Some(sha256_hex(&bytes).as_str())
        );
        assert_eq!(w["size"].as_integer(), Some(bytes.len() as i64));
        // A TOML datetime, not a string.
        let time = w["upload-time"].as_datetime().unwrap();
        assert_eq!(time.to_string(), uploaded);
    }
    assert_eq!(
        packages[1]["dependencies"].as_array().unwrap()[0]["name"].as_str(),
        Some("dep")
    );
    assert!(lock["tool"]["nbenv"]["python"]
        .as_str()
        .unwrap()
        .starts_with("Python 3.11"));
}

/// On an in-memory bank: setting soft evidence aside drops the declarations first, then the
/// notebook's own soft evidence, and applies what is left again.
#[test]
fn relaxing_sets_declarations_aside_first_then_all_soft_evidence() {
    let mut bank = MemoryBank::new();
    bank.releases("toolkit", &["1.0", "2.0", "3.0"])
        .provides("toolkit", "toolkit", &["1.0", "2.0", "3.0"])
        .api("toolkit", "toolkit.load", &["1.0", "2.0", "3.0"], &[])
        .member("toolkit", "ix", &["1.0", "2.0"], &[]);
    let mut usage =
        crate::support::usage::usage_of_source("import toolkit\ndf = toolkit.load()\ndf.ix[0]\n");
    let requirement = nbenv::names::parse_requirement("toolkit<2").unwrap();
    usage.attach_declarations(Declarations {
        files: vec!["requirements.txt".into()],
        requirements: vec![DeclaredRequirement {
            name: nbenv::names::DistName::new("toolkit").unwrap(),
            text: requirement.to_string(),
            requirement,
            kind: DeclarationKind::RequirementsFile,
            at: DeclaredAt {
                file: "requirements.txt".into(),
                line: 1,
            },
        }],
        ..Declarations::default()
    });
    let versions = |e: &nbenv::resolve::evidence::Evidence| -> Vec<String> {
        e.distributions[0]
            .allowed
            .iter()
            .map(ToString::to_string)
            .collect()
    };
    let effect = |e: &nbenv::resolve::evidence::Evidence, declared: bool| -> Effect {
        e.distributions[0]
            .records
            .iter()
            .find(|r| {
                matches!(r.source, EvidenceSource::Declared { .. }) == declared
                    && r.strength == nbenv::resolve::evidence::Strength::Soft
            })
            .unwrap()
            .effect
    };
    let all = gather(&usage, &bank, &Sources::built_in()).unwrap();
    assert_eq!(versions(&all), ["1.0"]);

    let without_declarations = all.relaxed(Relaxation::Declarations).unwrap();
    assert_eq!(versions(&without_declarations), ["1.0", "2.0"]);
    assert_eq!(
        effect(&without_declarations, true),
        Effect::Dropped(DropReason::NoResolution)
    );
    assert_eq!(effect(&without_declarations, false), Effect::Constrains);
    // Nothing declared is left to set aside.
    assert!(without_declarations
        .relaxed(Relaxation::Declarations)
        .is_none());

    let hard_only = all.relaxed(Relaxation::AllSoft).unwrap();
    assert_eq!(versions(&hard_only), ["1.0", "2.0", "3.0"]);
    assert_eq!(
        effect(&hard_only, false),
        Effect::Dropped(DropReason::NoResolution)
    );
    assert!(hard_only.relaxed(Relaxation::AllSoft).is_none());
}

/// A notebook outside git takes its era from what its stored outputs show it ran with: the
/// newest upload among those releases. Its other distributions are then chosen of that era.
#[test]
fn the_versions_stored_outputs_show_date_the_era() {
    let env = context();
    let nb = notebook(
        &env,
        "import dep, toolkit\nprint(dep.__version__)\ntoolkit.kept()\n",
        "1.0\n",
    );
    let (code, out, err) = infer_311(&env, &nb, &[]).parts();
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains(
            "# Era: 2010-01-01 (its stored outputs show dep 1.0): releases of then preferred"
        ),
        "{out}"
    );
    // dep 1.0 and toolkit 1.0 are the releases of 2010.
    assert_eq!(pins(&out), ["dep==1.0", "toolkit==1.0"], "{out}");
    // Without it, the newest toolkit that takes the dep 1.0 the output shows.
    let (code, out, err) = infer_311(&env, &nb, &["--date", "none"]).parts();
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(pins(&out), ["dep==1.0", "toolkit==2.0"], "{out}");
}
