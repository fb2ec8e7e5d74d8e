//! Children die with nbenv. A `kill -9` of nbenv (or of a batch worker) leaves no runner, no
//! installer and none of their own children running on: each child nbenv starts asks the
//! kernel for `SIGKILL` when nbenv goes ([`DieWithNbenv`]), and the long-running ones (every
//! [`super::run_capped`], which puts its child in a process group of its own) are watched by a
//! small shell that kills the whole group once nbenv is gone ([`GroupWatch`]): the parent-death
//! signal reaches only the direct child, and uv's workers, pip's builds or a notebook's own
//! subprocesses are its grandchildren. A grandchild that leaves the group (`setsid`, a daemon)
//! is beyond both.
//!
//! The parent-death signal fires when the *thread* that started the child ends, not the
//! process. Every spawn in nbenv waits for its child on the thread that started it
//! (`output()`, `status()`, `run_capped`'s wait loop, including on the batch's and the
//! introspection's worker threads), so that thread outlives the child; the group's watch is
//! tied to a pipe, which only the process's end closes.

use std::io::Write;
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin, Command, Stdio};

/// Set, in a forked child, by an earlier hook that moved it below an init of nbenv's own (the
/// sandbox's PID namespace: `crate::verify::sandbox`): its parent is then that init, which
/// dies with nbenv and takes the child with it, so the parent check below does not apply.
pub static UNDER_NBENVS_INIT: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// Asks for the child to be killed when nbenv dies.
pub trait DieWithNbenv {
    /// Sets the child's parent-death signal to `SIGKILL`; a child whose parent died before
    /// that took effect does not start.
    fn die_with_nbenv(&mut self) -> &mut Self;
}

impl DieWithNbenv for Command {
    fn die_with_nbenv(&mut self) -> &mut Self {
        let parent = std::process::id() as libc::pid_t;
        // SAFETY: runs in the forked child before exec, and calls only prctl(2) and
        // getppid(2), which are async-signal-safe; nothing allocates.
        unsafe {
            self.pre_exec(move || {
                let death = libc::SIGKILL as libc::c_ulong;
                if libc::prctl(libc::PR_SET_PDEATHSIG, death, 0, 0, 0) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                // nbenv died between the fork and the prctl: the signal will never come.
                let under_init = UNDER_NBENVS_INIT.load(std::sync::atomic::Ordering::Relaxed);
                if !under_init && libc::getppid() != parent {
                    return Err(std::io::Error::from_raw_os_error(libc::ESRCH));
                }
                Ok(())
            })
        }
    }
}

/// Kills the process group `pgid` when nbenv dies before this is dropped. A shell reads a
/// pipe only nbenv holds the writing end of: a line (written on drop) lets it go quietly; the
/// end of the pipe, which the kernel makes when nbenv dies however it dies, makes it kill the
/// group. It ignores the terminal's signals (in a group of its own, too), so a Ctrl-C to
/// nbenv stops it only through nbenv.
pub struct GroupWatch {
    watcher: Option<(Child, ChildStdin)>,
}

/// The watcher's script; `$1` is the group.
const WATCH: &str = "trap '' INT QUIT HUP TERM TSTP; read -r _ || kill -s KILL -- -\"$1\"";

impl GroupWatch {
    /// Watches `pgid`. Best effort: without a shell, the group is only as safe as the
    /// parent-death signal of its leader makes it.
    pub fn start(pgid: u32) -> Self {
        let watcher = Command::new("/bin/sh")
            .args(["-c", WATCH, "nbenv-watch"])
            .arg(pgid.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .ok()
            .and_then(|mut child| {
                let stdin = child.stdin.take()?;
                Some((child, stdin))
            });
        Self { watcher }
    }
}

impl Drop for GroupWatch {
    fn drop(&mut self) {
        if let Some((mut child, mut stdin)) = self.watcher.take() {
            let _ = stdin.write_all(b"done\n");
            drop(stdin);
            let _ = child.wait();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    fn alive(pid: i32) -> bool {
        // A zombie has exited; only its entry waits for its parent.
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|s| {
                let state = s.rsplit_once(')')?.1.trim_start().chars().next()?;
                Some(state != 'Z')
            })
            .unwrap_or(false)
    }

    fn gone_within(pid: i32, limit: Duration) -> bool {
        let start = Instant::now();
        while start.elapsed() < limit {
            if !alive(pid) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }

    /// nbenv starts a child that dies with it, in a group of its own with a grandchild, and
    /// watches the group; nbenv's end kills both.
    /// Without the watch the grandchild lives on; without the death signal, the child.
    #[test]
    fn a_killed_parent_takes_its_child_and_the_childs_group_along() {
        let dir = tempfile::tempdir().unwrap();
        let pids = dir.path().join("pids");
        // The stand-in for nbenv is a thread (a forked copy of the test process could not run
        // Rust safely): its end fires the death signal, and the watch's pipe is closed by
        // dropping it without its line.
        let pids_in = pids.clone();
        let nbenv = std::thread::spawn(move || {
            let mut cmd = Command::new("sh");
            cmd.args(["-c", "sleep 60 & echo $$ $! > \"$0\"; wait"])
                .arg(&pids_in)
                .process_group(0)
                .die_with_nbenv();
            let child = cmd.spawn().unwrap();
            let mut watch = GroupWatch::start(child.id());
            let start = Instant::now();
            let text = loop {
                match std::fs::read_to_string(&pids_in) {
                    Ok(t) if t.ends_with('\n') => break t,
                    _ if start.elapsed() > Duration::from_secs(10) => panic!("no pids"),
                    _ => std::thread::sleep(Duration::from_millis(20)),
                }
            };
            // nbenv "dies": its thread ends and the watch's pipe closes without a line.
            std::mem::forget(child);
            let (watcher, stdin) = watch.watcher.take().unwrap();
            drop(stdin);
            std::mem::forget(watcher);
            text
        });
        let text = nbenv.join().unwrap();
        let ids: Vec<i32> = text
            .split_whitespace()
            .map(|p| p.parse().unwrap())
            .collect();
        for pid in ids {
            assert!(gone_within(pid, Duration::from_secs(5)), "{pid} lives on");
        }
    }

    /// A child started on a thread that ends (nbenv's, as far as the kernel's parent-death
    /// signal goes) is killed, though nobody watches its group.
    #[test]
    fn a_child_dies_with_the_thread_that_started_it() {
        let pid = std::thread::spawn(|| {
            let child = Command::new("sleep")
                .arg("60")
                .die_with_nbenv()
                .spawn()
                .unwrap();
            let pid = child.id() as i32;
            std::mem::forget(child);
            pid
        })
        .join()
        .unwrap();
        assert!(gone_within(pid, Duration::from_secs(5)), "{pid} lives on");
    }
}
