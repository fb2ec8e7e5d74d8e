//! A cgroup of the run's own, holding the runner and everything it starts, with `pids.max`:
//! `RLIMIT_NPROC` counts a user's processes and does not bind root at all, a cgroup's limit
//! binds everyone in it. It is made below nbenv's own cgroup (limits set above still bind),
//! in the cgroup v1 `pids` hierarchy or in the v2 one where its `pids` controller can be had
//! there, and removed when the run is over, whatever is left in it killed first. Where none
//! can be made (no such hierarchy, no permission), the run goes on with `RLIMIT_NPROC` alone
//! and the caller is told ([`super::ProcessLimit`]).

use std::ffi::CString;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use super::c_path;

/// Why no cgroup could be made for a run (it goes on with `RLIMIT_NPROC` alone).
#[derive(Debug, thiserror::Error)]
pub(super) enum NoCgroup {
    #[error("no cgroup hierarchy with the pids controller")]
    NoHierarchy,
    #[error("cannot create {}: {source}", dir.display())]
    Create {
        dir: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("the pids controller is not enabled below {}: {source}", parent.display())]
    ControllerOff {
        parent: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot write {}: {source}", path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

#[derive(Debug)]
pub(super) struct PidsCgroup {
    dir: PathBuf,
    procs: CString,
}

static SERIAL: AtomicU32 = AtomicU32::new(0);

impl PidsCgroup {
    /// A new cgroup allowing `max` processes; why not where it cannot be made.
    pub(super) fn create(max: u64) -> Result<Self, NoCgroup> {
        let (parent, v2) = own_pids_cgroup().ok_or(NoCgroup::NoHierarchy)?;
        let dir = parent.join(format!(
            "nbenv-sandbox-{}-{}",
            std::process::id(),
            SERIAL.fetch_add(1, Ordering::Relaxed)
        ));
        fs::create_dir(&dir).map_err(|source| NoCgroup::Create {
            dir: dir.clone(),
            source,
        })?;
        let made = (|| {
            let limit = dir.join("pids.max");
            if v2 && !limit.exists() {
                // The controller must be enabled for the children of nbenv's own cgroup; the
                // kernel refuses while that cgroup holds processes (but at the root).
                fs::write(parent.join("cgroup.subtree_control"), "+pids").map_err(|source| {
                    NoCgroup::ControllerOff {
                        parent: parent.clone(),
                        source,
                    }
                })?;
            }
            fs::write(&limit, max.to_string()).map_err(|source| NoCgroup::Write {
                path: limit.clone(),
                source,
            })?;
            let procs = dir.join("cgroup.procs");
            c_path(&procs).map_err(|source| NoCgroup::Write {
                path: procs.clone(),
                source,
            })
        })();
        match made {
            Ok(procs) => Ok(Self { dir, procs }),
            Err(reason) => {
                let _ = fs::remove_dir(&dir);
                Err(reason)
            }
        }
    }

    /// Its `cgroup.procs`: writing `0` there moves the writer in.
    pub(super) fn procs(&self) -> &std::ffi::CStr {
        &self.procs
    }
}

impl Drop for PidsCgroup {
    /// Kills whatever is left in it (nothing, normally: its processes are in a PID namespace
    /// whose end ended them), then removes it.
    fn drop(&mut self) {
        let procs = self.dir.join("cgroup.procs");
        for _ in 0..200 {
            for pid in fs::read_to_string(&procs)
                .unwrap_or_default()
                .lines()
                .filter_map(|l| l.trim().parse::<i32>().ok())
            {
                // SAFETY: kill(2) on a process id; no memory involved.
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                }
            }
            if fs::remove_dir(&self.dir).is_ok() || !self.dir.exists() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

/// nbenv's own cgroup in a hierarchy with the `pids` controller (`true`: cgroup v2), from
/// `/proc/self/mountinfo` and `/proc/self/cgroup`. The v1 `pids` hierarchy first: where both
/// are mounted (a hybrid layout), the controller is bound to v1.
fn own_pids_cgroup() -> Option<(PathBuf, bool)> {
    let mountinfo = fs::read_to_string("/proc/self/mountinfo").ok()?;
    let cgroups = fs::read_to_string("/proc/self/cgroup").ok()?;
    let own = |v2: bool| {
        cgroups.lines().find_map(|line| {
            let mut parts = line.splitn(3, ':');
            let (id, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
            let ours = if v2 {
                id == "0" && controllers.is_empty()
            } else {
                controllers.split(',').any(|c| c == "pids")
            };
            ours.then(|| path.to_string())
        })
    };
    let mounts: Vec<(&str, &str, &str, &str)> = mountinfo
        .lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split(' ').collect();
            let sep = fields.iter().position(|f| *f == "-")?;
            Some((
                *fields.get(3)?,
                *fields.get(4)?,
                *fields.get(sep + 1)?,
                *fields.get(sep + 3)?,
            ))
        })
        .collect();
    let v1 = mounts.iter().find(|(_, _, fstype, options)| {
        *fstype == "cgroup" && options.split(',').any(|o| o == "pids")
    });
    let v2 = mounts.iter().find(|(_, _, fstype, _)| *fstype == "cgroup2");
    let (found, is_v2) = match (v1, v2) {
        (Some(m), _) => (m, false),
        (None, Some(m)) => (m, true),
        (None, None) => return None,
    };
    let (root, point, _, _) = *found;
    let path = own(is_v2)?;
    let inside = Path::new(&path)
        .strip_prefix(root)
        .unwrap_or(Path::new(&path));
    let inside = inside.strip_prefix("/").unwrap_or(inside);
    if is_v2
        && !fs::read_to_string(Path::new(point).join("cgroup.controllers"))
            .is_ok_and(|c| c.split_whitespace().any(|c| c == "pids"))
    {
        return None;
    }
    let dir = Path::new(point).join(inside);
    dir.is_dir().then_some((dir, is_v2))
}
