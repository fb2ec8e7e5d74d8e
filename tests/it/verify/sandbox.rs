//! `--sandbox`, offline. Where this system allows a network namespace, a confined run cannot
//! reach a server a plain run reaches, gets a temporary HOME and none of the caller's
//! variables, and stops at its limits. The refusal is tested always: inside a user
//! namespace whose network-namespace limit is set to 0 (where the system allows that), or
//! directly on a system that allows no namespaces at all.

use std::io::Write;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use nbenv::notebook::failure::{FailureClass, FailureContext};
use nbenv::notebook::{self, AnalyzeOptions, Notebook, Output};
use nbenv::verify::{run_notebook, sandbox, KernelMode, RunOptions};

fn python3() -> PathBuf {
    let out = Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .expect("python3 on PATH");
    PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
}

fn notebook(dir: &Path, cells: &[&str]) -> Notebook {
    let cells: Vec<serde_json::Value> = cells
        .iter()
        .map(|s| {
            serde_json::json!({"cell_type": "code", "execution_count": null, "metadata": {},
                               "outputs": [], "source": s})
        })
        .collect();
    let nb =
        serde_json::json!({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 2});
    let path = dir.join("nb.ipynb");
    std::fs::write(&path, nb.to_string()).unwrap();
    notebook::read(&path).unwrap()
}

fn printed(run: &nbenv::verify::NotebookRun, cell: u32) -> String {
    run.cells
        .iter()
        .find(|c| c.cell == cell)
        .map(|c| {
            c.outputs
                .iter()
                .filter_map(|o| match o {
                    Output::Stream { text, .. } => Some(text.as_str()),
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default()
}

fn options(sandbox: bool) -> RunOptions {
    RunOptions {
        kernel: KernelMode::Plain,
        cell_timeout: Duration::from_secs(60),
        total_timeout: Duration::from_secs(120),
        env: vec![("NBENV_TEST_SECRET".into(), "hunter2".into())],
        sandbox,
        ..RunOptions::default()
    }
}

#[test]
fn a_sandboxed_run_has_no_network_no_home_and_none_of_the_callers_variables() {
    if let Err(e) = sandbox::check() {
        eprintln!("this system allows no network namespace ({e}): the refusal test covers it");
        return;
    }
    // A server the plain run reaches.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut s = stream;
            let _ = s.write_all(b"hello\n");
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let connect = format!(
        "import socket\ns = socket.create_connection(('127.0.0.1', {port}), timeout=5)\nprint(s.recv(5).decode())"
    );
    let cells = [
        "import os\nprint(os.environ.get('NBENV_TEST_SECRET'))\nprint(os.path.expanduser('~'))",
        connect.as_str(),
    ];
    let nb = notebook(dir.path(), &cells);
    std::env::set_var("NBENV_TEST_CALLER", "x");

    let plain = run_notebook(&nb, &python3(), &options(false)).unwrap();
    assert!(plain.executability.complete(), "{:?}", plain.cells);
    assert!(printed(&plain, 2).contains("hello"));
    assert!(printed(&plain, 1).contains("hunter2"));

    let confined = run_notebook(&nb, &python3(), &options(true)).unwrap();
    let first = printed(&confined, 1);
    // Variables nbenv sets for the run are there; the caller's HOME is not.
    assert!(first.contains("hunter2"), "{first}");
    let home = first.lines().nth(1).unwrap_or_default().to_string();
    let caller_home = std::env::var("HOME").unwrap_or_default();
    assert_ne!(home, caller_home, "{first}");
    assert!(home.ends_with("/home"), "{first}");
    // The connection fails, and is classified as the network (data/input), not the code.
    assert_eq!(confined.executability.cells_before_first_error, 1);
    let usage = notebook::analyze(&nb, &AnalyzeOptions::default());
    let failure = confined
        .first_failure(&FailureContext::new(&nb, &usage))
        .expect("the connection failed");
    assert_eq!(failure.class, FailureClass::DataInput, "{failure:?}");
}

#[test]
fn a_sandboxed_run_has_its_limits_and_stops_at_them() {
    if sandbox::check().is_err() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let nb = notebook(
        dir.path(),
        &[
            "import resource\nfor r in ('AS', 'CPU', 'FSIZE', 'NPROC'):\n    print(r, resource.getrlimit(getattr(resource, 'RLIMIT_' + r))[0])",
            "x = bytearray(20 << 30)",
        ],
    );
    let confined = run_notebook(&nb, &python3(), &options(true)).unwrap();
    let limits = printed(&confined, 1);
    let expected = sandbox::SandboxLimits::for_run(Duration::from_secs(120));
    for (name, value) in [
        ("AS", expected.address_space),
        ("CPU", expected.cpu_seconds),
        ("FSIZE", expected.file_size),
        ("NPROC", expected.processes),
    ] {
        assert!(limits.contains(&format!("{name} {value}\n")), "{limits}");
    }
    // 20 GiB is past the 16 GiB of address space: MemoryError, a resource failure.
    let usage = notebook::analyze(&nb, &AnalyzeOptions::default());
    let failure = confined
        .first_failure(&FailureContext::new(&nb, &usage))
        .expect("the allocation failed");
    assert_eq!(failure.cell, Some(2));
    assert_eq!(failure.class, FailureClass::Resource, "{failure:?}");
}

/// The command `nbenv ARGS` run where no network namespace can be made: inside a user
/// namespace whose limits on new network and user namespaces are 0. `None` when this system
/// cannot set that up (no user namespaces): then it refuses sandboxes by itself.
fn without_namespaces(args: &[&str]) -> Option<std::process::Output> {
    let setup = Command::new("unshare")
        .args([
            "-r",
            "sh",
            "-c",
            "echo 0 > /proc/sys/user/max_net_namespaces",
        ])
        .output()
        .ok()?;
    if !setup.status.success() {
        return None;
    }
    let script = "echo 0 > /proc/sys/user/max_net_namespaces && \
                  echo 0 > /proc/sys/user/max_user_namespaces && exec \"$@\"";
    Command::new("unshare")
        .args(["-r", "sh", "-c", script, "sh", env!("CARGO_BIN_EXE_nbenv")])
        .args(args)
        .env("NBENV_HTTP_RETRIES", "0")
        .output()
        .ok()
}

#[test]
fn a_sandbox_the_system_does_not_allow_is_refused_before_anything_is_built() {
    let dir = tempfile::tempdir().unwrap();
    notebook(dir.path(), &["print(1)"]);
    std::fs::write(dir.path().join("requirements.txt"), "").unwrap();
    let cache = dir.path().join("cache");
    let (nb, req, cache_arg, bank) = (
        dir.path().join("nb.ipynb").display().to_string(),
        dir.path().join("requirements.txt").display().to_string(),
        cache.display().to_string(),
        dir.path().join("bank.sqlite3").display().to_string(),
    );
    let args = [
        "--cache-dir",
        &cache_arg,
        "--bank",
        &bank,
        "verify",
        &nb,
        "-r",
        &req,
        "--sandbox",
    ];
    let out = match without_namespaces(&args) {
        Some(out) => out,
        None if sandbox::check().is_err() => Command::new(env!("CARGO_BIN_EXE_nbenv"))
            .args(args)
            .output()
            .unwrap(),
        None => panic!("namespaces are allowed here but cannot be restricted to test refusal"),
    };
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(23), "{err}");
    assert!(err.contains("--sandbox needs a network namespace"), "{err}");
    assert!(!cache.join("envs").exists(), "nothing was built");
}

/// Whether sandboxed runs can start here; says why not when they cannot.
fn sandbox_here() -> bool {
    match sandbox::check() {
        Ok(_) => true,
        Err(e) => {
            eprintln!("skipped: this system allows no sandbox ({e}); the refusal test covers it");
            false
        }
    }
}

/// An entry of this process's environment as it was started (what `/proc/<pid>/environ`
/// shows), none the sandbox sets itself.
fn own_environment_entry() -> Option<String> {
    let environ = std::fs::read("/proc/self/environ").ok()?;
    let ours = [
        "PATH",
        "HOME",
        "LANG",
        "TMPDIR",
        "MPLBACKEND",
        "IPYTHONDIR",
        "PYTHONIOENCODING",
    ];
    environ
        .split(|b| *b == 0)
        .filter_map(|e| std::str::from_utf8(e).ok())
        .find(|e| {
            e.split_once('=').is_some_and(|(name, value)| {
                !ours.contains(&name) && !name.starts_with("XDG_") && value.len() > 2
            }) && !e.contains(['\'', '\\', '\n'])
        })
        .map(str::to_string)
}

/// The caller's environment and processes are out of sight: no process the runner can see
/// has the caller's environment (nbenv's parent was readable through `/proc/<ppid>/environ`),
/// and it sees a handful of processes, not the host's.
#[test]
fn a_sandboxed_run_sees_neither_the_caller_nor_the_hosts_processes() {
    if !sandbox_here() {
        return;
    }
    let Some(entry) = own_environment_entry() else {
        eprintln!("skipped: this test process was started with no environment to look for");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let probe = format!(
        "import os\nentry = b'{entry}'\nfound, pids = [], [p for p in os.listdir('/proc') if p.isdigit()]\n\
         for pid in pids:\n    try:\n        data = open('/proc/%s/environ' % pid, 'rb').read()\n    \
         except (IOError, OSError):\n        continue\n    if entry in data.split(b'\\0'):\n        found.append(pid)\n\
         print('found %s of %d' % (found, len(pids)))"
    );
    let nb = notebook(dir.path(), &[probe.as_str()]);
    let plain = run_notebook(&nb, &python3(), &options(false)).unwrap();
    assert!(
        !printed(&plain, 1).contains("found []"),
        "{:?}",
        plain.cells
    );
    let confined = run_notebook(&nb, &python3(), &options(true)).unwrap();
    let seen = printed(&confined, 1);
    assert!(
        seen.starts_with("found [] of "),
        "{seen} {:?}",
        confined.cells
    );
    let count: usize = seen.trim().rsplit(' ').next().unwrap().parse().unwrap();
    assert!(count <= 4, "{seen}");
}

/// A Unix socket of the host's (a path a plain run connects to) cannot be reached; a socket
/// pair, which asyncio needs, still can be made.
#[test]
fn a_sandboxed_run_reaches_no_unix_socket_of_the_host() {
    if !sandbox_here() {
        return;
    }
    let sockets = tempfile::tempdir().unwrap();
    let path = sockets.path().join("s");
    let listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut s = stream;
            let _ = s.write_all(b"hello");
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let connect = format!(
        "import socket\ns = socket.socket(socket.AF_UNIX)\ns.settimeout(5)\ns.connect('{}')\nprint(s.recv(5).decode())",
        path.display()
    );
    let pair = "import asyncio, socket\na, b = socket.socketpair()\na.sendall(b'pair')\nprint(b.recv(4).decode())\n\
                loop = asyncio.new_event_loop()\nprint(loop.run_until_complete(asyncio.sleep(0, result='loop')))\nloop.close()";
    let nb = notebook(dir.path(), &[pair, connect.as_str()]);
    let plain = run_notebook(&nb, &python3(), &options(false)).unwrap();
    assert!(printed(&plain, 2).contains("hello"), "{:?}", plain.cells);

    let confined = run_notebook(&nb, &python3(), &options(true)).unwrap();
    assert_eq!(
        printed(&confined, 1),
        "pair\nloop\n",
        "{:?}",
        confined.cells
    );
    assert_eq!(
        confined.executability.cells_before_first_error, 1,
        "{:?}",
        confined.cells
    );
    assert_eq!(
        confined.first_error_name(),
        Some("PermissionError"),
        "{:?}",
        confined.cells
    );
}

/// What a sandboxed run may write: its folder, HOME, TMPDIR, `/dev/shm`. Not the
/// environment's site-packages (a `.pth` file there would run in every later run), nor
/// anything else.
#[test]
fn a_sandboxed_run_writes_only_its_own_folders() {
    if !sandbox_here() {
        return;
    }
    let envs = tempfile::tempdir().unwrap();
    let venv = envs.path().join("venv");
    let made = Command::new(python3())
        .args(["-m", "venv", "--without-pip"])
        .arg(&venv)
        .status()
        .unwrap();
    assert!(made.success());
    let outside = envs.path().join("outside.txt");
    for left in ["/tmp/nbenv-probe-outside", "/dev/shm/nbenv-probe"] {
        let _ = std::fs::remove_file(left);
    }
    let dir = tempfile::tempdir().unwrap();
    let writable = "import os, tempfile\nopen('here.txt', 'w').write('x')\n\
                    open(os.path.expanduser('~/home.txt'), 'w').write('x')\n\
                    tempfile.NamedTemporaryFile().write(b'x')\n\
                    open('/dev/shm/nbenv-probe', 'w').write('x')\nprint('written')";
    let probe = format!(
        "import os, sysconfig\nfor path in (os.path.join(sysconfig.get_paths()['purelib'], 'nbenv-probe.pth'), '{}', '/tmp/nbenv-probe-outside'):\n    \
         try:\n        open(path, 'w').write('import os\\n')\n        print('written ' + path)\n    \
         except (IOError, OSError) as e:\n        print('refused %s' % e.errno)",
        outside.display()
    );
    // Without capabilities, nothing is mounted back.
    let remount = "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n\
                   print(libc.umount2(b'/proc', 2), ctypes.get_errno())\n\
                   print(libc.mount(None, b'/', None, 0x20 | 0x1000, None), ctypes.get_errno())";
    let nb = notebook(dir.path(), &[writable, probe.as_str(), remount]);
    let confined = run_notebook(&nb, &venv.join("bin/python"), &options(true)).unwrap();
    assert_eq!(printed(&confined, 1), "written\n", "{:?}", confined.cells);
    let refused = printed(&confined, 2);
    assert_eq!(
        refused,
        format!("refused {0}\nrefused {0}\nrefused {0}\n", libc::EROFS),
        "{:?}",
        confined.cells
    );
    let eperm = format!("-1 {}\n", libc::EPERM);
    assert_eq!(
        printed(&confined, 3),
        eperm.repeat(2),
        "{:?}",
        confined.cells
    );
    let site = std::fs::read_dir(venv.join("lib"))
        .unwrap()
        .flatten()
        .map(|d| d.path().join("site-packages/nbenv-probe.pth"))
        .next()
        .unwrap();
    assert!(!site.exists() && !outside.exists());
    assert!(!Path::new("/tmp/nbenv-probe-outside").exists());
    assert!(
        !Path::new("/dev/shm/nbenv-probe").exists(),
        "a private /dev/shm"
    );
}

/// A child in a session of its own (`start_new_session`: out of the process group nbenv
/// kills) does not outlive the run.
#[test]
fn nothing_a_sandboxed_run_starts_outlives_it() {
    if !sandbox_here() {
        return;
    }
    let token = format!(
        "nbenv-probe-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    );
    let dir = tempfile::tempdir().unwrap();
    let cell = format!(
        "import subprocess, sys\np = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)', '{token}'], start_new_session=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\nprint(p.pid)"
    );
    let nb = notebook(dir.path(), &[cell.as_str()]);
    let confined = run_notebook(&nb, &python3(), &options(true)).unwrap();
    assert!(confined.executability.complete(), "{:?}", confined.cells);
    let survivors = |kill: bool| {
        let mut found = Vec::new();
        for entry in std::fs::read_dir("/proc").unwrap().flatten() {
            let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
                continue;
            };
            let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
            if String::from_utf8_lossy(&cmdline).contains(&token) {
                if kill {
                    // SAFETY: kill(2) on a process this test started.
                    unsafe { libc::kill(pid, libc::SIGKILL) };
                }
                found.push(pid);
            }
        }
        found
    };
    let deadline = std::time::Instant::now() + Duration::from_secs(2);
    while !survivors(false).is_empty() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(survivors(true), Vec::<i32>::new(), "outlived the run");
}

/// The number of processes is bounded by a cgroup of the run's own (`RLIMIT_NPROC` does not
/// bind root), where the system lets nbenv make one.
#[test]
fn a_sandboxed_run_has_a_process_limit_that_binds_root() {
    match sandbox::check() {
        Err(e) => return eprintln!("skipped: this system allows no sandbox ({e})"),
        Ok(sandbox::ProcessLimit::RlimitOnly { reason }) => {
            return eprintln!("skipped: no cgroup can be made here ({reason})")
        }
        Ok(sandbox::ProcessLimit::Cgroup) => {}
    }
    let dir = tempfile::tempdir().unwrap();
    let cell = "import os\nfor line in open('/proc/self/cgroup'):\n    \
                num, controllers, path = line.rstrip('\\n').split(':', 2)\n    \
                for root in ('/sys/fs/cgroup/pids', '/sys/fs/cgroup'):\n        \
                limit = root + path + '/pids.max'\n        \
                if ('pids' in controllers.split(',') or num == '0') and path != '/' and os.path.exists(limit):\n            \
                print('pids.max ' + open(limit).read().strip())";
    let nb = notebook(dir.path(), &[cell]);
    let confined = run_notebook(&nb, &python3(), &options(true)).unwrap();
    let expected = sandbox::SandboxLimits::for_run(Duration::from_secs(120)).processes;
    assert!(
        printed(&confined, 1).contains(&format!("pids.max {expected}\n")),
        "{:?}",
        confined.cells
    );
}

/// The runner's end reaches nbenv through the namespace's init: killed by a signal, or out
/// of time.
#[test]
fn a_sandboxed_runner_ends_as_it_would_unconfined() {
    if !sandbox_here() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let nb = notebook(
        dir.path(),
        &[
            "print(1)",
            "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)",
        ],
    );
    let killed = run_notebook(&nb, &python3(), &options(true)).unwrap();
    assert_eq!(
        killed.end,
        nbenv::verify::RunEnd::Killed { signal: Some(9) },
        "{:?}",
        killed.cells
    );
    let nb = notebook(dir.path(), &["import time\ntime.sleep(60)"]);
    let opts = RunOptions {
        total_timeout: Duration::from_secs(3),
        ..options(true)
    };
    let started = std::time::Instant::now();
    let slow = run_notebook(&nb, &python3(), &opts).unwrap();
    assert_eq!(
        slow.end,
        nbenv::verify::RunEnd::TimedOut,
        "{:?}",
        slow.cells
    );
    assert!(started.elapsed() < Duration::from_secs(20));
}
