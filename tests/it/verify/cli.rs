//! `nbenv verify` end to end, offline: a venv built with uv from a loopback index, the
//! notebook run in it, the first failure classified, the environment reused on the next run.
//! Needs `python3` and uv on the machine (`.ci/run` installs uv).

use std::path::PathBuf;
use std::process::Command;

use crate::support::archives::{in_tree_backend, in_tree_sdist, sdist_with_backend, WheelBuilder};
use crate::support::context::{Run, TestContext, Uploaded};
use crate::support::server::FixtureFile;
use crate::support::snapshot::RUNS;

/// What a command printed, stdout then stderr, then its exit code, as
/// `support::snapshot::printed` shows it.
fn printed(code: i32, out: &str, err: &str) -> String {
    format!("{out}{err}[exit {code}]\n")
}

/// `toolkit` 1.0 has `old_api`; 2.0 removed it.
fn context() -> TestContext {
    let ctx = TestContext::with_index();
    let wheels = [
        WheelBuilder::new("toolkit", "1.0").file(
            "toolkit/__init__.py",
            "def old_api():\n    return 41\ndef kept():\n    return 1\n",
        ),
        WheelBuilder::new("toolkit", "2.0")
            .file("toolkit/__init__.py", "def kept():\n    return 1\n"),
    ];
    ctx.publish("toolkit", &wheels, Uploaded::At("2020-01-01T00:00:00Z"));
    ctx
}

fn notebook(ctx: &TestContext) -> PathBuf {
    let cell = |n: u32, source: &str, output: Option<&str>| {
        let outputs = match output {
            Some(text) => serde_json::json!([
                {"output_type": "stream", "name": "stdout", "text": [text]}
            ]),
            None => serde_json::json!([]),
        };
        serde_json::json!({"cell_type": "code", "execution_count": n, "metadata": {},
                           "outputs": outputs, "source": source})
    };
    let nb = serde_json::json!({
        "cells": [
            cell(1, "import toolkit\nprint(toolkit.kept())", Some("1\n")),
            cell(2, "print(toolkit.old_api() + 1)", Some("42\n")),
        ],
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}},
        "nbformat": 4, "nbformat_minor": 2
    });
    let path = ctx.path("nb.ipynb");
    std::fs::write(&path, nb.to_string()).unwrap();
    path
}

/// The environment `verify` built (the only one in the cache).
fn built_env(ctx: &TestContext) -> PathBuf {
    std::fs::read_dir(ctx.cache().join("envs"))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name() != ".locks")
        .map(|e| e.path())
        .next()
        .unwrap()
}

/// `nbenv verify` of the notebook above with `requirements`, on the `python3` on PATH.
fn verify(ctx: &TestContext, requirements: &str, extra: &[&str]) -> Run {
    let req = ctx.write("requirements.txt", requirements);
    let (nb, req, python) = (
        notebook(ctx).display().to_string(),
        req.display().to_string(),
        python3().display().to_string(),
    );
    let mut args = vec!["verify", &nb, "-r", &req, "--python", &python];
    args.push("--no-kernel-runtime");
    args.extend_from_slice(extra);
    ctx.run(args)
}

fn python3() -> PathBuf {
    let out = Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .expect("python3 on PATH");
    PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
}

#[test]
fn a_notebook_that_runs_exits_0_and_its_environment_is_reused() {
    let env = context();
    let (code, out, err) = verify(&env, "toolkit==1.0\n", &[]).parts();
    assert_eq!(code, 0, "{out}{err}");
    // Built (and said so), every cell ran, no error, every stored output reproduced.
    crate::assert_printed!(
        RUNS,
        "verify-runs-and-reproduces",
        printed(code, &out, &err)
    );

    let executed = env.root().join("out").join("executed.ipynb");
    let executed_arg = executed.display().to_string();
    std::fs::create_dir(env.root().join("out")).unwrap();
    let (code, again, err) = verify(&env, "toolkit==1.0\n", &["--executed", &executed_arg]).parts();
    assert_eq!(code, 0, "{again}{err}");
    // Reused, not built again.
    crate::assert_printed!(RUNS, "verify-reused", printed(code, &again, &err));
    // The executed notebook reproduces its stored outputs, read back by nbenv itself.
    let ran = nbenv::notebook::read(&executed).unwrap();
    assert_eq!(ran.cells.len(), 2);
    assert_eq!(ran.cells[1].execution_count, Some(2));
    assert!(
        matches!(ran.cells[1].outputs.as_slice(), [nbenv::notebook::Output::Stream { text, .. }] if text == "42\n"),
        "{:?}",
        ran.cells[1].outputs
    );
    // Both runs are in the bank's run records.
    let (code, out, _) = env.run(["bank", "runs", "--format", "json"]).parts();
    assert_eq!(code, 0);
    let runs: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(runs["runs"], 2, "{out}");
}

#[test]
fn a_removed_api_stops_the_run_with_an_environment_error_and_exit_21() {
    let env = context();
    let (code, out, err) = verify(&env, "toolkit==2.0\n", &[]).parts();
    assert_eq!(code, 21, "{out}{err}");
    // 1 of 2 cells ran before the first error. The bank has not read toolkit: whether
    // another release has `old_api` is unknown.
    crate::assert_printed!(
        RUNS,
        "verify-removed-api-unknown",
        printed(code, &out, &err)
    );
    let (code, _, err) = env
        .run(["bank", "add", "toolkit", "--all-versions"])
        .parts();
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = verify(&env, "toolkit==2.0\n", &[]).parts();
    assert_eq!(code, 21, "{out}{err}");
    assert!(
        out.contains("error        cell 2: environment: `toolkit.old_api` is missing from the installed release (other releases of toolkit have it)"),
        "{out}"
    );

    let (code, json, _) = verify(&env, "toolkit==2.0\n", &["--format", "json"]).parts();
    assert_eq!(code, 21);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["first_failure"]["class"], "environment", "{json}");
    assert_eq!(v["first_failure"]["cell"], 2, "{json}");
    assert_eq!(v["run"]["executability"]["cells_before_first_error"], 1);
    assert_eq!(v["environment"]["reused"], true, "{json}");
}

#[test]
fn requirements_that_cannot_install_exit_22_with_the_installers_words() {
    let env = context();
    let (code, out, err) = verify(&env, "toolkit==9.9\n", &[]).parts();
    assert_eq!(code, 22, "{out}{err}");
    assert!(err.contains("toolkit"), "{err}");
    // Nothing half-built is left to be reused.
    let envs = env.root().join("cache").join("envs");
    let left: Vec<_> = std::fs::read_dir(&envs)
        .map(|d| {
            d.flatten()
                .filter(|e| e.file_name() != ".locks")
                .map(|e| e.path())
                .collect()
        })
        .unwrap_or_default();
    assert!(left.is_empty(), "{left:?}");
}

/// Environments stay within `NBENV_ENV_CACHE_SIZE`: with a budget smaller than one
/// environment, each verify keeps only the one it used; `cache info` counts them.
#[test]
fn built_environments_stay_within_their_budget() {
    let env = context();
    let nb = notebook(&env).display().to_string();
    let python = python3().display().to_string();
    let run = |requirements: &str, args: &[&str]| {
        let req = env.root().join("requirements.txt");
        std::fs::write(&req, requirements).unwrap();
        env.command()
            .args(args)
            .args(if args.is_empty() {
                vec![
                    "verify",
                    &nb,
                    "-r",
                    req.to_str().unwrap(),
                    "--python",
                    &python,
                    "--no-kernel-runtime",
                ]
            } else {
                vec![]
            })
            .env("NBENV_ENV_CACHE_SIZE", "1")
            .output()
            .unwrap()
    };
    let first = run("toolkit==1.0\n", &[]);
    assert!(first.status.success());
    let second = run("toolkit==2.0\n", &[]);
    assert_eq!(second.status.code(), Some(21));
    let err = String::from_utf8_lossy(&second.stderr);
    assert!(err.contains("note: removed the environment"), "{err}");
    let envs = std::fs::read_dir(env.root().join("cache/envs"))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name() != ".locks")
        .count();
    assert_eq!(envs, 1);
    let info = run("", &["cache", "info", "--format", "json"]);
    let json: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    let part = json["parts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["part"] == "environments")
        .unwrap()
        .clone();
    assert_eq!(part["entries"], 1, "{json}");
    assert_eq!(json["environments_budget_bytes"], 1);
}

/// A release whose metadata uv refuses (a requirement on a version pip took in its day,
/// `dep (>=2011k)`, as pandas 0.19 requires pytz) installs with pip instead.
#[test]
fn metadata_uv_refuses_installs_with_pip() {
    let env = context();
    let at = |f: FixtureFile| FixtureFile {
        upload_time: Some("2020-01-01T00:00:00Z".into()),
        ..f
    };
    let old = WheelBuilder::new("toolkit", "0.9")
        .file(
            "toolkit/__init__.py",
            "def old_api():\n    return 41\ndef kept():\n    return 1\n",
        )
        .requires("dep (>=2011k)");
    let dep = WheelBuilder::new("dep", "2012.1").file("dep/__init__.py", "");
    env.server().publish(
        "toolkit",
        &[at(FixtureFile::new(&old.filename(), old.build()))],
    );
    env.server()
        .publish("dep", &[at(FixtureFile::new(&dep.filename(), dep.build()))]);
    let (code, out, err) = verify(&env, "toolkit==0.9\n", &[]).parts();
    assert_eq!(code, 0, "{out}{err}");
    let site = built_env(&env);
    let listed = Command::new(site.join("bin/python"))
        .args(["-c", "import dep, toolkit; print('both')"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&listed.stdout).trim(), "both");
}

/// A pure-Python sdist of `name` 1.0 that builds offline.
fn buildable_sdist(name: &str) -> FixtureFile {
    buildable_sdist_requiring(name, &[])
}

/// As [`buildable_sdist`], its built wheel requiring `requires`, which its sdist's metadata
/// (1.1, as old sdists have) does not say.
fn buildable_sdist_requiring(name: &str, requires: &[&str]) -> FixtureFile {
    let package = format!("{name}/__init__.py");
    let sdist = in_tree_sdist(name, "1.0", requires, &[(&package, "BUILT = True\n")]);
    FixtureFile {
        upload_time: Some("2020-01-01T00:00:00Z".into()),
        ..FixtureFile::new(&format!("{name}-1.0.tar.gz"), sdist)
    }
}

/// Every install runs with `TMPDIR` inside the environment being built, which nbenv removes
/// after: uv with a cache still leaves a lock file in the temporary folder for each
/// setuptools build, and nothing nbenv starts may leave files outside its cache. A wrapper
/// standing in for uv (`NBENV_UV`) records the `TMPDIR` each `pip install` sees.
#[test]
fn installers_keep_their_temporaries_inside_the_environment() {
    let env = context();
    let real = Command::new("sh")
        .args(["-c", "command -v uv"])
        .output()
        .unwrap();
    let real = String::from_utf8_lossy(&real.stdout).trim().to_string();
    assert!(!real.is_empty(), "uv on PATH");
    let log = env.path("tmpdirs.log");
    let wrapper = env.write(
        "uv-wrapper",
        &format!(
            "#!/bin/sh\nif [ \"$1\" = pip ] && [ \"$2\" = install ]; then echo \"${{TMPDIR:-unset}}\" >> '{}'; fi\nexec '{real}' \"$@\"\n",
            log.display()
        ),
    );
    std::fs::set_permissions(
        &wrapper,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let req = env.write("requirements.txt", "toolkit==1.0\n");
    let out = env
        .command()
        .args([
            "verify",
            &notebook(&env).display().to_string(),
            "-r",
            &req.display().to_string(),
            "--python",
            &python3().display().to_string(),
            "--no-kernel-runtime",
        ])
        .env("NBENV_UV", &wrapper)
        .output()
        .unwrap();
    let run = Run::from_output(&out);
    let (code, _, err) = run.parts();
    assert_eq!(code, 0, "{err}");
    let seen = std::fs::read_to_string(&log).unwrap();
    let envs = env.cache().join("envs");
    assert!(!seen.trim().is_empty(), "no install seen");
    for dir in seen.lines() {
        assert!(
            std::path::Path::new(dir).starts_with(&envs),
            "TMPDIR {dir} is outside {}",
            envs.display()
        );
        assert!(!std::path::Path::new(dir).exists(), "{dir} left behind");
    }
}

/// bcolz 1.1.2's `setup.py` imports Cython, which it does not declare and nothing pins: a
/// Cython of before 3.0 is installed first and the sdist built beside it.
#[test]
fn an_sdist_that_needs_cython_to_build_gets_a_cython_before_3() {
    let env = context();
    let backend = backend_running_first(
        "needscy",
        "    import Cython\n    assert Cython.__version__.startswith('0.'), Cython.__version__\n",
    );
    let files = [("needscy/__init__.py", "BUILT = True\n")];
    publish_sdist(
        &env,
        "needscy",
        sdist_with_backend("needscy", "1.0", &[], &backend, &files),
    );
    publish_tool(&env, "cython", "Cython", &["0.29.36", "3.0.0"]);
    assert_eq!(
        built_from_sdist(
            &env,
            "needscy",
            "import needscy, Cython; print(needscy.BUILT, Cython.__version__)"
        ),
        "True 0.29.36"
    );
}

/// bcolz 1.1.2's `setup.py` also reads its version with setuptools_scm (`use_scm_version`),
/// which a build without isolation lacks unless installed: the build comes out as 0.0.0 and
/// installers refuse it. Each retry puts in what the last one showed missing: Cython first,
/// then a setuptools_scm of before 7.
#[test]
fn an_sdist_that_reads_its_version_with_setuptools_scm_gets_one_before_7() {
    let env = context();
    let backend = backend_running_first("needsscm", "    import Cython\n").replace(
        "\n\n\ndef build_wheel(",
        "\ntry:\n    import setuptools_scm\n    assert setuptools_scm.__version__.startswith('6.')\n\
         except ImportError:\n    VERSION = '0.0.0'\n\n\ndef build_wheel(",
    );
    assert!(backend.contains("VERSION = '0.0.0'"), "{backend}");
    let files = [("needsscm/__init__.py", "BUILT = True\n")];
    publish_sdist(
        &env,
        "needsscm",
        sdist_with_backend("needsscm", "1.0", &[], &backend, &files),
    );
    publish_tool(&env, "cython", "Cython", &["0.29.36", "3.0.0"]);
    publish_tool(
        &env,
        "setuptools-scm",
        "setuptools_scm",
        &["6.4.2", "7.0.0"],
    );
    assert_eq!(
        built_from_sdist(
            &env,
            "needsscm",
            "import needsscm, setuptools_scm; print(needsscm.BUILT, setuptools_scm.__version__)"
        ),
        "True 6.4.2"
    );
}

/// Publishes `versions` of a build tool `name` whose package `module` says its version.
fn publish_tool(env: &TestContext, name: &str, module: &str, versions: &[&str]) {
    let wheels: Vec<WheelBuilder> = versions
        .iter()
        .map(|v| {
            WheelBuilder::new(name, v).file(
                &format!("{module}/__init__.py"),
                format!("__version__ = '{v}'\n"),
            )
        })
        .collect();
    env.publish(name, &wheels, Uploaded::At("2020-01-01T00:00:00Z"));
}

/// Verifies requirements whose header says `name` 1.0 is built from its sdist, beside the
/// empty build tools, and returns what `code` prints in the environment built.
fn built_from_sdist(env: &TestContext, name: &str, code: &str) -> String {
    publish_build_tools(env);
    let header = format!(
        "# Generated by nbenv\n# Built from sdists: {name} 1.0 (no resolution from wheels alone)\n"
    );
    let (status, out, err) =
        verify(env, &format!("{header}toolkit==1.0\n{name}==1.0\n"), &[]).parts();
    assert_eq!(status, 0, "{out}{err}");
    let listed = Command::new(built_env(env).join("bin/python"))
        .args(["-c", code])
        .output()
        .unwrap();
    String::from_utf8_lossy(&listed.stdout).trim().to_string()
}

/// Publishes `sdist`, the only file of `name` 1.0.
fn publish_sdist(env: &TestContext, name: &str, sdist: Vec<u8>) {
    env.server().publish(
        name,
        &[FixtureFile {
            upload_time: Some("2020-01-01T00:00:00Z".into()),
            ..FixtureFile::new(&format!("{name}-1.0.tar.gz"), sdist)
        }],
    );
}

/// Empty `setuptools` and `wheel` 1.0: what nbenv installs beside a build it runs without
/// isolation.
fn publish_build_tools(env: &TestContext) {
    for name in ["setuptools", "wheel"] {
        env.publish(
            name,
            &[WheelBuilder::new(name, "1.0").file(&format!("{name}/__init__.py"), "")],
            Uploaded::At("2020-01-01T00:00:00Z"),
        );
    }
}

/// [`in_tree_backend`] for `name` 1.0 whose build runs `first` (Python lines) before it
/// builds, as an old `setup.py` imports what it needs.
fn backend_running_first(name: &str, first: &str) -> String {
    in_tree_backend(name, "1.0", &[]).replace(
        "def build_wheel(",
        &format!(
            "def build_wheel(*args, **kwargs):\n{first}    return _build_wheel(*args, **kwargs)\n\n\ndef _build_wheel("
        ),
    )
}

/// A pin `infer` said is built from its pure-Python sdist is built, everything else still
/// from wheels; without that header line, the sdist is refused.
#[test]
fn pins_the_header_says_are_built_from_pure_sdists_are_built() {
    let env = context();
    for name in ["sdistonly", "unnamed"] {
        env.server().publish(name, &[buildable_sdist(name)]);
    }
    let header = "# Generated by nbenv\n# Built from sdists: sdistonly 1.0 (pure Python)\n";
    let pins = "toolkit==1.0\nsdistonly==1.0\n";
    let (code, out, err) = verify(&env, pins, &[]).parts();
    assert_eq!(code, 22, "wheels only refuse the sdist: {out}{err}");
    let (code, out, err) = verify(&env, &format!("{header}{pins}"), &[]).parts();
    assert_eq!(code, 0, "{out}{err}");
    // Only the pins it names: any other sdist is still refused.
    let (code, out, err) = verify(&env, &format!("{header}{pins}unnamed==1.0\n"), &[]).parts();
    assert_eq!(code, 22, "{out}{err}");
    assert!(err.contains("unnamed"), "{err}");
}

/// An sdist whose build imports numpy (old `setup.py` files did, for `numpy.get_include()`)
/// fails in an isolated build; the pinned numpy is then installed first, with the build
/// tools, and the sdist built beside it.
#[test]
fn an_sdist_that_needs_numpy_to_build_gets_the_pinned_numpy_first() {
    let env = context();
    let backend = backend_running_first("needsnum", "    import numpy\n");
    let files = [("needsnum/__init__.py", "BUILT = True\n")];
    publish_sdist(
        &env,
        "needsnum",
        sdist_with_backend("needsnum", "1.0", &[], &backend, &files),
    );
    env.publish(
        "numpy",
        &[WheelBuilder::new("numpy", "1.0").file("numpy/__init__.py", "")],
        Uploaded::At("2020-01-01T00:00:00Z"),
    );
    publish_build_tools(&env);
    let header = "# Generated by nbenv\n# Built from sdists: needsnum 1.0 (pure Python)\n";
    let (code, out, err) = verify(
        &env,
        &format!("{header}toolkit==1.0\nnumpy==1.0\nneedsnum==1.0\n"),
        &[],
    )
    .parts();
    assert_eq!(code, 0, "{out}{err}");
    let site = built_env(&env);
    let listed = Command::new(site.join("bin/python"))
        .args(["-c", "import needsnum, numpy; print(needsnum.BUILT)"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&listed.stdout).trim(), "True");
}

/// A compiled sdist built beside a pinned numpy is built against that numpy: matplotlib 1.5's
/// `setup.py` fetched the newest numpy when none was installed, and the pinned, older numpy
/// refused the extension at import. Here the build asks its isolated environment for numpy
/// (which would take 2.0) and records the one it found.
#[test]
fn a_compiled_sdist_is_built_against_the_pinned_numpy() {
    let env = context();
    let backend = in_tree_backend("linked", "1.0", &[]).replace(
        "    record = []\n",
        "    import numpy\n    files[NAME + \"/against.py\"] = (\"NUMPY = %r\\n\" % numpy.VERSION).encode()\n    record = []\n",
    );
    let files = [("linked/__init__.py", "from linked.against import NUMPY\n")];
    publish_sdist(
        &env,
        "linked",
        sdist_with_backend("linked", "1.0", &["numpy"], &backend, &files),
    );
    let numpy = |version: &str| {
        WheelBuilder::new("numpy", version)
            .file("numpy/__init__.py", format!("VERSION = '{version}'\n"))
    };
    env.publish(
        "numpy",
        &[numpy("1.0"), numpy("2.0")],
        Uploaded::At("2020-01-01T00:00:00Z"),
    );
    publish_build_tools(&env);
    let header =
        "# Generated by nbenv\n# Built from sdists: linked 1.0 (no resolution from wheels alone)\n";
    let (code, out, err) = verify(
        &env,
        &format!("{header}toolkit==1.0\nnumpy==1.0\nlinked==1.0\n"),
        &[],
    )
    .parts();
    assert_eq!(code, 0, "{out}{err}");
    let site = built_env(&env);
    let against = Command::new(site.join("bin/python"))
        .args(["-c", "import linked; print(linked.NUMPY)"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&against.stdout).trim(), "1.0");
}

/// What a pure-Python sdist pulls in when it is built (bokeh 0.12.7 needs bkcharts, an sdist
/// too, and says so only in its setup.py) may be built as well: only the other pins must be
/// wheels.
#[test]
fn what_a_pure_sdist_pulls_in_may_be_built_too() {
    let env = context();
    env.server().publish(
        "sdistonly",
        &[buildable_sdist_requiring("sdistonly", &["sdistdep"])],
    );
    env.server()
        .publish("sdistdep", &[buildable_sdist("sdistdep")]);
    let header = "# Generated by nbenv\n# Built from sdists: sdistonly 1.0 (pure Python)\n";
    let (code, out, err) = verify(
        &env,
        &format!("{header}toolkit==1.0\nsdistonly==1.0\n"),
        &[],
    )
    .parts();
    assert_eq!(code, 0, "{out}{err}");
}

/// Wheels for everything but the pure sdists are tried first: allowing builds for
/// dependencies from the start lets the installer take a dependency's newest sdist over its
/// last wheel (grpcio for TensorFlow on 2.7) and compile it.
#[test]
fn dependencies_come_as_wheels_when_wheels_will_do() {
    let env = context();
    let at = |f: FixtureFile| FixtureFile {
        upload_time: Some("2020-01-01T00:00:00Z".into()),
        ..f
    };
    env.server()
        .publish("sdistonly", &[buildable_sdist("sdistonly")]);
    let needs = WheelBuilder::new("needsdep", "1.0")
        .file("needsdep/__init__.py", "")
        .requires("wheeldep");
    env.server().publish(
        "needsdep",
        &[at(FixtureFile::new(&needs.filename(), needs.build()))],
    );
    // wheeldep 0.9 is a wheel; 1.0, newer, only an sdist (that builds).
    let wheel =
        WheelBuilder::new("wheeldep", "0.9").file("wheeldep/__init__.py", "BUILT = False\n");
    env.server().publish(
        "wheeldep",
        &[
            at(FixtureFile::new(&wheel.filename(), wheel.build())),
            buildable_sdist("wheeldep"),
        ],
    );
    let header = "# Generated by nbenv\n# Built from sdists: sdistonly 1.0 (pure Python)\n";
    let (code, out, err) = verify(
        &env,
        &format!("{header}toolkit==1.0\nneedsdep==1.0\nsdistonly==1.0\n"),
        &[],
    )
    .parts();
    assert_eq!(code, 0, "{out}{err}");
    let site = built_env(&env);
    let built = Command::new(site.join("bin/python"))
        .args(["-c", "import wheeldep; print(wheeldep.BUILT)"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&built.stdout).trim(), "False");
}

/// Issue 38 item 14: two runs that need the same tool at once (virtualenv, for Python 2.7
/// environments) install it once: the second waits for the first and finds it working,
/// instead of installing a copy over the one the first is about to use.
#[test]
fn two_runs_needing_a_tool_at_once_install_it_once() {
    let server = crate::support::server::TestServer::start(crate::support::server::PageMode::Html);
    let wheel = WheelBuilder::new("virtualenv", "20.21.0")
        .file("virtualenv/__init__.py", "")
        .file("virtualenv/__main__.py", "print('virtualenv 20.21.0')\n");
    let file = FixtureFile::new(&wheel.filename(), wheel.build());
    let name = file.filename.clone();
    server.publish("virtualenv", &[file]);
    // Both runs are inside the install when the wheel is served.
    server.delay_next(
        &format!("/files/{name}"),
        2,
        std::time::Duration::from_secs(2),
    );
    let dir = tempfile::tempdir().unwrap();
    let interpreters = nbenv::python::discover();
    let index = server.index_url();
    let runs: Vec<_> = (0..2)
        .map(|_| {
            let tools = nbenv::python::Tools::new(dir.path(), Some(index.clone()), &interpreters);
            std::thread::spawn(move || tools.virtualenv())
        })
        .collect();
    for run in runs {
        let python = run.join().unwrap().expect("the tool is there");
        let out = Command::new(&python)
            .args(["-m", "virtualenv", "--version"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
    }
    assert_eq!(server.requests_for(&name).len(), 1, "{:?}", server.log());
}

/// An install of `slowpkg` cut off by its deadline (6 s) while its download stalls, by
/// `installer` (`None`: the one nbenv's tools choose, which must be uv) into a new environment
/// in `dir`, with or without a cache: whether the environment's [`INSTALLER_TMP`] held
/// something meanwhile, whether it is gone after, and the install's result.
///
/// [`INSTALLER_TMP`]: nbenv::python::INSTALLER_TMP
fn cut_off_install(
    dir: &std::path::Path,
    installer: Option<nbenv::python::Installer>,
    no_cache: bool,
) -> (
    bool,
    bool,
    Result<nbenv::python::Finished, nbenv::python::VenvError>,
) {
    let server = crate::support::server::TestServer::start(crate::support::server::PageMode::Html);
    let wheel = WheelBuilder::new("slowpkg", "1.0")
        .file("slowpkg/__init__.py", "")
        .file("slowpkg/data.txt", "x".repeat(1 << 10));
    let file = FixtureFile::new(&wheel.filename(), wheel.build());
    let name = file.filename.clone();
    server.publish("slowpkg", &[file]);
    // The download hangs past the install's deadline: the installer is cut off in the middle.
    server.delay_next(
        &format!("/files/{name}"),
        5,
        std::time::Duration::from_secs(20),
    );
    // uv's own cache (its interpreter records) in the test's folder, as nbenv's commands keep
    // it in nbenv's cache; nextest runs each test in a process of its own.
    std::env::set_var("UV_CACHE_DIR", dir.join("uv-cache"));
    let interpreters = nbenv::python::discover();
    let tools = nbenv::python::Tools::new(dir.join("tools"), None, &interpreters);
    let installer = installer.unwrap_or_else(|| {
        let (chosen, _) = tools.installer();
        assert!(
            matches!(chosen, nbenv::python::Installer::Uv(_)),
            "this test needs uv"
        );
        chosen
    });
    let host = interpreters
        .iter()
        .max_by_key(|i| i.version)
        .unwrap()
        .clone();
    let root = dir.join("env");
    let limit = std::time::Duration::from_secs(120);
    let venv = nbenv::python::Venv::create(&root, &host, &installer, &tools, limit).unwrap();
    let index = server.index_url();
    let install = std::thread::spawn(move || {
        venv.install(
            &["slowpkg".to_string()],
            &nbenv::python::InstallOptions {
                only_binary: true,
                index_url: Some(index),
                no_cache,
                timeout: std::time::Duration::from_secs(6),
                ..nbenv::python::InstallOptions::default()
            },
        )
    });
    let scratch = root.join(nbenv::python::INSTALLER_TMP);
    let started = std::time::Instant::now();
    let mut seen = false;
    while started.elapsed() < std::time::Duration::from_secs(5) && !seen {
        seen = std::fs::read_dir(&scratch).is_ok_and(|mut d| d.next().is_some());
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let result = install.join().unwrap();
    (seen, !scratch.exists(), result)
}

/// pip's temporaries (`pip-unpack-*`, `pip-install-*`, ...) of any install go in a folder
/// inside the environment too, not `TMPDIR`, and the folder goes when the install ends, here
/// cut off by its deadline (Python 2.7's environments install with pip).
#[test]
fn a_pip_install_keeps_its_temporaries_in_the_environment() {
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    // The system's temporary directory, as every child sees it.
    std::env::set_var("TMPDIR", &tmp);
    let (seen, gone, result) =
        cut_off_install(dir.path(), Some(nbenv::python::Installer::Pip), false);
    assert!(seen, "no temporary folder of pip's in the environment");
    assert!(
        matches!(result, Err(nbenv::python::VenvError::Timeout { .. })),
        "{result:?}"
    );
    assert!(gone, "the environment's temporary folder was left behind");
    let left: Vec<_> = std::fs::read_dir(&tmp)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .filter(|n| n.to_string_lossy().starts_with("pip-"))
        .collect();
    assert!(left.is_empty(), "pip left {left:?} in TMPDIR");
}

/// Issue 38 F13: an install that keeps no cache (introspection's) gives uv's temporary cache
/// a folder inside the environment, not `TMPDIR`, where a cut-off install left 60–78 MB each;
/// the folder goes when the install ends, here cut off by its deadline.
#[test]
fn an_install_without_a_cache_keeps_its_temporaries_in_the_environment() {
    let dir = tempfile::tempdir().unwrap();
    let (seen, gone, result) = cut_off_install(dir.path(), None, true);
    assert!(seen, "no temporary folder of uv's in the environment");
    assert!(
        matches!(result, Err(nbenv::python::VenvError::Timeout { .. })),
        "{result:?}"
    );
    assert!(gone, "the environment's temporary folder was left behind");
}
