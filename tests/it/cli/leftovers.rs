//! Nothing left behind: a `kill -9` of nbenv takes the notebook it runs and the installer it
//! waits for along, children of theirs too; the temporary files and directories a killed run
//! leaves are shown by `nbenv cache info`, removed by `nbenv cache prune` and by the next run
//! that works there, and those of a run still going are left alone. Offline, against the
//! loopback index; needs `python3` and uv on the machine, as `verify::cli` does.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::archives::WheelBuilder;
use crate::support::context::{TestContext, Uploaded};
use nbenv::python::DieWithNbenv;

/// An owner that never ran: process ids above the kernel's pid_max (4194304 at most).
const DEAD: &str = "99999999.5";

/// `toolkit` 1.0 on the index; the context's `tmp/` stands for the system's temporary
/// directory.
fn context() -> TestContext {
    let ctx = TestContext::with_index();
    let wheel = WheelBuilder::new("toolkit", "1.0").file("toolkit/__init__.py", "x = 1\n");
    ctx.publish("toolkit", &[wheel], Uploaded::At("2020-01-01T00:00:00Z"));
    std::fs::create_dir_all(ctx.path("tmp")).unwrap();
    let (tmp, uv_cache) = (ctx.path("tmp"), ctx.path("uv-cache"));
    // A cache of the user's (not pruned): `cache prune` then never waits for the lock of a
    // uv that a live run's install holds.
    ctx.env("TMPDIR", tmp).env("UV_CACHE_DIR", uv_cache)
}

fn command(ctx: &TestContext, args: &[&str]) -> Command {
    let mut cmd = ctx.command();
    cmd.args(args);
    cmd
}

fn run(ctx: &TestContext, args: &[&str]) -> String {
    let out = ctx.run(args);
    assert!(out.success(), "{args:?}: {}", out.text());
    out.text()
}

/// `nb.ipynb`, whose one cell is `source`, and `requirements.txt` asking for toolkit, in the
/// context's directory: their paths.
fn write_notebook(ctx: &TestContext, source: &str) -> (PathBuf, PathBuf) {
    let nb = serde_json::json!({
        "cells": [{"cell_type": "code", "execution_count": 1, "metadata": {},
                   "outputs": [], "source": source}],
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}},
        "nbformat": 4, "nbformat_minor": 2
    });
    std::fs::write(ctx.path("nb.ipynb"), nb.to_string()).unwrap();
    std::fs::write(ctx.path("requirements.txt"), "toolkit==1.0\n").unwrap();
    (ctx.path("nb.ipynb"), ctx.path("requirements.txt"))
}

/// `nbenv verify` of a notebook whose one cell is `source`, started and not waited for.
fn start_verify(ctx: &TestContext, source: &str) -> Child {
    let (nb, req) = write_notebook(ctx, source);
    let python = python3();
    command(
        ctx,
        &[
            "verify",
            nb.to_str().unwrap(),
            "-r",
            req.to_str().unwrap(),
            "--python",
            python.to_str().unwrap(),
            "--no-kernel-runtime",
        ],
    )
    .stdout(Stdio::null())
    .stderr(Stdio::null())
    // Nor does a test that fails or times out leave it running.
    .die_with_nbenv()
    .spawn()
    .unwrap()
}

/// The part `name` of `nbenv cache info --format json`: (entries, bytes).
fn part(ctx: &TestContext, name: &str) -> (u64, u64) {
    let out = command(ctx, &["cache", "info", "--format", "json"])
        .output()
        .unwrap();
    let info: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let part = info["parts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["part"] == name)
        .unwrap_or_else(|| panic!("no part {name}: {info}"));
    (
        part["entries"].as_u64().unwrap(),
        part["bytes"].as_u64().unwrap(),
    )
}

/// The environments' directory entries that are unfinished builds (`.<key>-<owner>`).
fn builds(ctx: &TestContext) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(ctx.path("cache/envs"))
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.starts_with('.') && name != ".locks"
        })
        .map(|e| e.path())
        .collect();
    found.sort();
    found
}

fn python3() -> PathBuf {
    let out = Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .expect("python3 on PATH");
    PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
}

/// Whether `pid` runs (a zombie has ended; only its entry waits for a parent).
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| s.rsplit_once(')')?.1.trim_start().chars().next())
        .is_some_and(|state| state != 'Z')
}

/// The running processes whose command line mentions `text`.
fn processes_mentioning(text: &str) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        if String::from_utf8_lossy(&cmdline).contains(text) && alive(pid) {
            found.push(pid);
        }
    }
    found
}

fn cmdline(pid: u32) -> String {
    let bytes = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    String::from_utf8_lossy(&bytes).replace('\0', " ")
}

fn wait_for<T>(what: &str, limit: Duration, mut probe: impl FnMut() -> Option<T>) -> T {
    let start = Instant::now();
    loop {
        if let Some(found) = probe() {
            return found;
        }
        assert!(start.elapsed() < limit, "no {what} within {limit:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Kills nbenv as `kill -9` does, and reaps it.
fn kill_9(mut nbenv: Child) {
    nbenv.kill().unwrap();
    nbenv.wait().unwrap();
}

/// The tag of this test process as nbenv writes an owner in temporary names: a live owner.
fn live_owner() -> String {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap();
    let start = stat
        .rsplit_once(')')
        .unwrap()
        .1
        .split_whitespace()
        .nth(19)
        .unwrap();
    format!("{}.{start}", std::process::id())
}

/// The notebook's Python and a child of its own die with nbenv; the run's scratch directory,
/// left behind, is shown as abandoned and pruned.
#[test]
fn a_killed_run_takes_the_notebook_and_its_children_along() {
    let env = context();
    let mark = env.path("running");
    let source = format!(
        "import os, subprocess, time\n\
         child = subprocess.Popen(['sleep', '60'])\n\
         with open({tmp:?}, 'w') as f:\n    f.write('%d %d\\n' % (os.getpid(), child.pid))\n\
         os.rename({tmp:?}, {mark:?})\n\
         time.sleep(60)\n",
        tmp = format!("{}.tmp", mark.display()),
        mark = mark.display().to_string(),
    );
    let mut nbenv = start_verify(&env, &source);
    let pids = wait_for("running notebook", Duration::from_secs(120), || {
        if let Ok(Some(status)) = nbenv.try_wait() {
            panic!("nbenv ended before the cell ran: {status}");
        }
        std::fs::read_to_string(&mark).ok()
    });
    let pids: Vec<u32> = pids
        .split_whitespace()
        .map(|p| p.parse().unwrap())
        .collect();
    assert!(pids.iter().all(|&p| alive(p)), "{pids:?}");
    kill_9(nbenv);
    let start = Instant::now();
    while pids.iter().any(|&p| alive(p)) && start.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let living: Vec<u32> = pids.into_iter().filter(|&p| alive(p)).collect();
    for &pid in &living {
        // SAFETY: kill(2) of a process this test started (through nbenv); nothing shared.
        unsafe { libc::kill(pid as i32, libc::SIGKILL) };
    }
    assert!(
        living.is_empty(),
        "the runner or its child outlived nbenv: {living:?}"
    );

    // The run's scratch directory stays behind, shown as abandoned and pruned.
    let scratch = std::fs::read_dir(env.path("tmp"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("nbenv-run-")
        })
        .expect("the killed run's scratch directory");
    assert_eq!(part(&env, "abandoned_scratch_venvs").0, 1);
    run(&env, &["cache", "prune"]);
    assert!(!scratch.exists());
}

/// uv, stalled on a download, is killed with nbenv; the unfinished build it leaves in the
/// environments' directory is kept while its run lives, shown and removed by `cache prune`
/// once it is dead; the next run removes other killed runs' builds and scratch directories.
#[test]
fn a_killed_install_leaves_no_installer_and_its_unfinished_build_goes() {
    let env = context();
    let wheel = WheelBuilder::new("toolkit", "1.0").filename();
    env.server()
        .delay_next(&format!("/files/{wheel}"), 1, Duration::from_secs(60));
    let nbenv = start_verify(&env, "import toolkit\n");
    let envs = env.path("cache/envs").display().to_string();
    // The install, waiting for the wheel: its command line names the environment.
    let installers = wait_for("installer", Duration::from_secs(60), || {
        let found: Vec<u32> = processes_mentioning(&envs)
            .into_iter()
            .filter(|p| cmdline(*p).contains(" install "))
            .collect();
        (!found.is_empty()).then_some(found)
    });
    let building = builds(&env);
    assert_eq!(building.len(), 1, "{building:?}");
    // Its run is alive: neither shown nor removed.
    assert_eq!(part(&env, "leftovers").0, 0);
    run(&env, &["cache", "prune"]);
    assert!(building[0].exists());

    kill_9(nbenv);
    let start = Instant::now();
    while !processes_mentioning(&envs).is_empty() && start.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let living = processes_mentioning(&envs);
    for &pid in &living {
        // SAFETY: kill(2) of a process this test started (through nbenv); nothing shared.
        unsafe { libc::kill(pid as i32, libc::SIGKILL) };
    }
    assert!(
        living.is_empty(),
        "the installer outlived nbenv: {living:?} of {installers:?}"
    );

    let (entries, bytes) = part(&env, "leftovers");
    assert_eq!(entries, 1);
    assert!(bytes > 0);
    let out = run(&env, &["cache", "prune"]);
    assert!(
        out.contains("removed left by killed runs: 1 entry"),
        "{out}"
    );
    assert!(!building[0].exists());
    assert_eq!(part(&env, "leftovers").0, 0);

    // Another killed run's build, of another environment: the next run removes it.
    let other = env.path(&format!("cache/envs/.0123abcd-{DEAD}"));
    std::fs::create_dir_all(other.join("bin")).unwrap();
    std::fs::write(other.join("bin/python"), "").unwrap();
    // And a killed run's scratch directory.
    let scratch = env.path(&format!("tmp/nbenv-run-{DEAD}-abc"));
    std::fs::create_dir_all(scratch.join("work")).unwrap();
    let source = "import toolkit\nprint(toolkit.x)\n";
    let mut next = start_verify(&env, source);
    assert!(next.wait().unwrap().success());
    assert!(!other.exists());
    assert!(!scratch.exists());
    assert!(builds(&env).is_empty(), "{:?}", builds(&env));
}

/// Beside the bank: the temporaries of killed imports and exports are shown and pruned, a
/// live run's are kept; an export removes those in its folder, an import those beside its
/// bank.
#[test]
fn leftovers_beside_the_bank_and_the_snapshot_go_and_live_ones_stay() {
    let env = context();
    let live = format!(".nbenv-import-{}-abc", live_owner());
    let dead = [
        format!(".nbenv-import-{DEAD}-abc"),
        format!(".nbenv-snapshot-{DEAD}-abc"),
    ];
    for name in dead.iter().chain([&live]) {
        std::fs::write(env.path(name), vec![7u8; 1000]).unwrap();
    }
    let export = env.path(&format!(".nbenv-export-{DEAD}-abc"));
    std::fs::create_dir(&export).unwrap();
    std::fs::write(export.join("bank.sqlite3"), vec![7u8; 500]).unwrap();
    assert_eq!(part(&env, "bank_leftovers"), (3, 2500));
    let out = run(&env, &["cache", "prune"]);
    assert!(
        out.contains("removed left beside the bank: 3 entries"),
        "{out}"
    );
    assert!(env.path(&live).exists());
    assert!(dead.iter().all(|n| !env.path(n).exists()) && !export.exists());
    assert_eq!(part(&env, "bank_leftovers"), (0, 0));

    // The next export removes what killed ones left in its folder; the next import, what
    // killed imports left beside the bank.
    run(&env, &["bank", "add", "toolkit", "--all-versions"]);
    let out_dir = env.path("out");
    std::fs::create_dir(&out_dir).unwrap();
    let left_in_out = out_dir.join(format!(".nbenv-snapshot-{DEAD}-abc"));
    std::fs::write(&left_in_out, "x").unwrap();
    let snapshot = out_dir.join("bank.nbenv");
    run(&env, &["bank", "export", snapshot.to_str().unwrap()]);
    assert!(!left_in_out.exists());
    let left_beside = env.path(&format!(".nbenv-import-{DEAD}-def"));
    std::fs::write(&left_beside, "x").unwrap();
    run(
        &env,
        &["bank", "import", "--force", snapshot.to_str().unwrap()],
    );
    assert!(!left_beside.exists());
    assert!(env.path(&live).exists());
}

/// What a killed import leaves is the layout the test above makes: a temporary file named for
/// its owner beside the bank.
#[test]
fn a_killed_import_leaves_a_temporary_named_for_its_owner() {
    let env = context();
    run(&env, &["bank", "add", "toolkit", "--all-versions"]);
    let snapshot = env.path("bank.nbenv");
    run(&env, &["bank", "export", snapshot.to_str().unwrap()]);
    env.server().route(
        "/bank.nbenv",
        std::fs::read(&snapshot).unwrap(),
        "application/octet-stream",
    );
    env.server()
        .stall_next("/bank.nbenv", 1, Duration::from_secs(60));
    let target = env.path("other/bank.sqlite3");
    let nbenv = env
        .command()
        .arg("--bank")
        .arg(&target)
        .args(["bank", "import", &env.server().url("/bank.nbenv")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .die_with_nbenv()
        .spawn()
        .unwrap();
    let dir = target.parent().unwrap().to_path_buf();
    let temporary = wait_for("temporary", Duration::from_secs(30), || {
        temporaries(&dir).into_iter().next()
    });
    let pid = nbenv.id();
    kill_9(nbenv);
    let name = temporary
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    assert!(name.starts_with(&format!(".nbenv-import-{pid}.")), "{name}");
    assert!(temporary.exists());
    // The next import there removes it.
    let again = env
        .command()
        .arg("--bank")
        .arg(&target)
        .args(["bank", "import", snapshot.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(again.status.success(), "{again:?}");
    assert!(temporaries(&dir).is_empty(), "{:?}", temporaries(&dir));
}

fn temporaries(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(".nbenv-"))
        .map(|e| e.path())
        .collect()
}

/// The processes whose environment holds `marker` (`NAME=value`): everything nbenv started
/// for one trial, children of children too, wherever they moved (another group, a session of
/// their own, another parent).
fn processes_with_env(marker: &str) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(environ) = std::fs::read(entry.path().join("environ")) else {
            continue;
        };
        if environ.split(|&b| b == 0).any(|v| v == marker.as_bytes()) && alive(pid) {
            found.push(pid);
        }
    }
    found
}

/// F12: `kill -9` of nbenv at random moments of a run without `--sandbox` (building the
/// environment, starting the runner, running a cell that has a child of its own), 50 times
/// unless `NBENV_TEST_KILLS`: after each, nothing nbenv started is left running. Each trial
/// builds its environment in a cache of its own, so the moments cover the build as well as
/// the run.
#[test]
fn no_kill_at_any_moment_leaves_a_survivor() {
    let kills: usize = std::env::var("NBENV_TEST_KILLS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(50);
    let env = context();
    let mark = env.path("running");
    let source = format!(
        "import subprocess, time\n\
         child = subprocess.Popen(['sleep', '60'])\n\
         open({mark:?}, 'w').close()\n\
         time.sleep(60)\n",
        mark = mark.display().to_string(),
    );
    // One trial: nbenv with a marker in its environment and a cache of its own, killed after
    // `after` (or, when `None`, once the cell runs: the calibration). Returns how long it ran
    // and what outlived it.
    let (nb, req) = write_notebook(&env, &source);
    let trial = |n: usize, after: Option<Duration>| -> (Duration, Vec<String>) {
        let marker = format!("NBENV_KILL_TRIAL={}-{n}", std::process::id());
        let _ = std::fs::remove_file(&mark);
        let cache = env.path(&format!("kill-cache-{n}"));
        let mut nbenv = {
            let (name, value) = marker.split_once('=').unwrap();
            command(
                &env,
                &[
                    "--cache-dir",
                    cache.to_str().unwrap(),
                    "verify",
                    nb.to_str().unwrap(),
                    "-r",
                    req.to_str().unwrap(),
                    "--python",
                    python3().to_str().unwrap(),
                    "--no-kernel-runtime",
                ],
            )
            .env(name, value)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .die_with_nbenv()
            .spawn()
            .unwrap()
        };
        let start = Instant::now();
        match after {
            Some(after) => std::thread::sleep(after),
            None => {
                wait_for("running cell", Duration::from_secs(120), || {
                    if let Ok(Some(status)) = nbenv.try_wait() {
                        panic!("nbenv ended before the cell ran: {status}");
                    }
                    mark.exists().then_some(())
                });
            }
        }
        let ran = start.elapsed();
        kill_9(nbenv);
        // What dies with nbenv dies within moments; give it a second.
        let settle = Instant::now();
        let mut living = processes_with_env(&marker);
        while !living.is_empty() && settle.elapsed() < Duration::from_secs(2) {
            std::thread::sleep(Duration::from_millis(50));
            living = processes_with_env(&marker);
        }
        let described = living
            .iter()
            .map(|&p| format!("{p}: {}", cmdline(p)))
            .collect();
        for &pid in &living {
            // SAFETY: kill(2) of a process this test started (through nbenv); nothing shared.
            unsafe { libc::kill(pid as i32, libc::SIGKILL) };
        }
        let _ = std::fs::remove_dir_all(&cache);
        (ran, described)
    };
    let (full, survivors) = trial(0, None);
    assert!(survivors.is_empty(), "calibration: {survivors:#?}");
    let mut state: u64 = 0x6b11_1ed5_eed5;
    let mut failures = Vec::new();
    for n in 1..=kills {
        // xorshift64*: a moment in [0, full + 20%).
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        let r = state.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11;
        let at = full.mul_f64(1.2 * (r as f64 / (1u64 << 53) as f64));
        let (_, survivors) = trial(n, Some(at));
        if !survivors.is_empty() {
            failures.push(format!("killed at {at:?}: {survivors:?}"));
        }
    }
    eprintln!(
        "{kills} kills over {full:?} (the time to the running cell): {} left a survivor",
        failures.len()
    );
    assert!(failures.is_empty(), "{failures:#?}");
}
