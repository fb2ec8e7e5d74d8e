//! `--sandbox`: running a notebook nobody has read. What is promised, and how:
//!
//! - no network: a network namespace of its own (no interface but a loopback that is down);
//! - none of the caller's environment: variables cleared, a temporary HOME ([`environment`]);
//! - none of the caller's processes: a PID namespace (the runner's `/proc` is a fresh one, so
//!   neither nbenv nor anything else on the host is there to read), whose PID 1 is a minimal
//!   init of nbenv's ([`init`]): when the runner ends, the kernel ends everything it left
//!   behind, a new session or not;
//! - a read-only file tree but for the run's scratch folder (the run's folder, HOME, TMPDIR)
//!   and a private `/dev/shm` ([`mounts`]): the environment's site-packages and the
//!   interpreter are out of reach, so nothing a sandboxed run writes there runs later;
//! - no Unix sockets to connect to the host's services, no capabilities ([`seal`]);
//! - resource limits (address space, CPU time, file size, processes), the number of processes
//!   in a cgroup where one can be made ([`cgroup`]): `RLIMIT_NPROC` does not bind root.
//!
//! The namespaces need privileges or an unprivileged user namespace; where the system allows
//! neither, a sandboxed run is refused before anything is built ([`check`]): running the
//! notebook with less than was asked would not be what was asked.

mod cgroup;
mod init;
mod mounts;
mod seal;

use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

/// Limits applied to the runner and everything it starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SandboxLimits {
    /// Bytes of address space per process (`RLIMIT_AS`).
    pub address_space: u64,
    /// Seconds of CPU time per process (`RLIMIT_CPU`).
    pub cpu_seconds: u64,
    /// Bytes a written file may reach (`RLIMIT_FSIZE`).
    pub file_size: u64,
    /// Processes (`RLIMIT_NPROC`, and the cgroup's `pids.max`): a fork bomb stops there.
    pub processes: u64,
}

impl SandboxLimits {
    /// Limits for a run of `total` at most: room for the scientific stack (which reserves
    /// address space generously), CPU time no longer than the run.
    pub fn for_run(total: Duration) -> Self {
        Self {
            address_space: 16 << 30,
            cpu_seconds: total.as_secs().max(1) + 5,
            file_size: 4 << 30,
            processes: 4096,
        }
    }
}

/// What bounds the number of processes a sandboxed run may start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProcessLimit {
    /// A cgroup of the run's own (`pids.max`): binds root too.
    Cgroup,
    /// `RLIMIT_NPROC` alone, which does not bind root; `reason` says why no cgroup.
    RlimitOnly { reason: String },
}

#[derive(Debug, thiserror::Error)]
#[error(
    "--sandbox needs a network namespace (with PID and mount namespaces), and this system does \
     not allow them here ({source}); run as a user allowed unprivileged user namespaces (sysctl \
     user.max_user_namespaces, kernel.unprivileged_userns_clone), or without --sandbox on a \
     machine you trust"
)]
pub struct SandboxUnavailable {
    #[source]
    pub source: io::Error,
}

/// Whether sandboxed runs can start here, and what bounds their processes: a trivial process
/// is started the way the runner would be.
pub fn check() -> Result<ProcessLimit, SandboxUnavailable> {
    let unavailable = |source| SandboxUnavailable { source };
    let scratch = crate::python::scratch_dir("sandbox").map_err(unavailable)?;
    let mut cmd = Command::new("/bin/sh");
    cmd.args(["-c", "exit 0"]).current_dir(scratch.path());
    let limits = SandboxLimits::for_run(Duration::from_secs(10));
    let confined =
        confine(&mut cmd, limits, scratch.path(), scratch.path()).map_err(unavailable)?;
    let status = cmd.status().map_err(unavailable)?;
    if !status.success() {
        return Err(unavailable(io::Error::other(format!(
            "a confined test process ended with {status}"
        ))));
    }
    Ok(confined.process_limit())
}

/// A run's confinement, as long as it lives: its cgroup, removed (every process in it
/// killed) when dropped.
#[derive(Debug)]
pub struct Confinement {
    cgroup: Result<cgroup::PidsCgroup, cgroup::NoCgroup>,
}

impl Confinement {
    pub fn process_limit(&self) -> ProcessLimit {
        match &self.cgroup {
            Ok(_) => ProcessLimit::Cgroup,
            Err(reason) => ProcessLimit::RlimitOnly {
                reason: reason.to_string(),
            },
        }
    }
}

/// Makes `cmd` start confined (see the module's documentation) with `limits`, everything but
/// `scratch` read-only, in `start` (which `cmd`'s own working directory must name too: the
/// mounts are laid after it is entered). Starting `cmd` fails (with the system's error) when
/// the namespaces cannot be made. Hooks `cmd` had before run first (an overlay's mount); none
/// may be added after: capabilities are gone by then. Keep the returned [`Confinement`] until
/// the process has ended.
pub fn confine(
    cmd: &mut Command,
    limits: SandboxLimits,
    scratch: &Path,
    start: &Path,
) -> io::Result<Confinement> {
    let cgroup = cgroup::PidsCgroup::create(limits.processes);
    let plan = init::Plan {
        limits,
        cgroup_procs: cgroup.as_ref().ok().map(|c| c.procs().to_owned()),
        mounts: mounts::Mounts::new(scratch)?,
        start: c_path(start)?,
        filter: seal::filter(),
        id_maps: init::Plan::id_maps(),
        nbenv: std::process::id() as libc::pid_t,
    };
    init::apply(cmd, plan);
    Ok(Confinement { cgroup })
}

fn c_path(path: &Path) -> io::Result<CString> {
    CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a path with a NUL byte"))
}

/// The environment a sandboxed run gets instead of the caller's: a PATH, a locale, and a
/// temporary HOME (with the XDG directories inside it) under `scratch`.
pub fn environment(cmd: &mut Command, scratch: &Path, python: &Path) -> io::Result<()> {
    let home = scratch.join("home");
    std::fs::create_dir_all(&home)?;
    let bin = python
        .parent()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    cmd.env_clear()
        .env("PATH", format!("{bin}:/usr/local/bin:/usr/bin:/bin"))
        .env("HOME", &home)
        .env("XDG_CACHE_HOME", home.join(".cache"))
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_DATA_HOME", home.join(".local/share"))
        .env("TMPDIR", scratch)
        .env("LANG", "C.UTF-8");
    Ok(())
}
