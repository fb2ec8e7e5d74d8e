//! `--sandbox`: running a notebook nobody has read. The runner starts in a network namespace
//! of its own (no interface but a loopback that is down: nothing reaches out, nothing
//! listens), under resource limits (address space, CPU time, file size, processes), with a
//! temporary HOME and none of the caller's environment variables (tokens and keys stay out).
//!
//! A network namespace needs privileges or an unprivileged user namespace; where the system
//! allows neither, a sandboxed run is refused before anything is built ([`check`]): running
//! the notebook with the network on would not be what was asked.

use std::io;
use std::os::unix::process::CommandExt;
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
    /// Processes of the user (`RLIMIT_NPROC`): a fork bomb stops there.
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

#[derive(Debug, thiserror::Error)]
#[error(
    "--sandbox needs a network namespace, and this system does not allow one here ({source}); \
     run as a user allowed unprivileged user namespaces (sysctl user.max_user_namespaces, \
     kernel.unprivileged_userns_clone), or without --sandbox on a machine you trust"
)]
pub struct SandboxUnavailable {
    #[source]
    pub source: io::Error,
}

/// Whether sandboxed runs can start here: a trivial process is started the way the runner
/// would be.
pub fn check() -> Result<(), SandboxUnavailable> {
    let mut cmd = Command::new("/bin/sh");
    cmd.args(["-c", "exit 0"]);
    confine(&mut cmd, SandboxLimits::for_run(Duration::from_secs(10)));
    match cmd.status() {
        Ok(_) => Ok(()),
        Err(source) => Err(SandboxUnavailable { source }),
    }
}

/// Makes `cmd` start confined: its own network namespace, then `limits`. Starting it fails
/// (with the system's error) when no network namespace can be made.
pub fn confine(cmd: &mut Command, limits: SandboxLimits) {
    // SAFETY: the closure runs in the forked child before exec and calls only unshare(2) and
    // setrlimit(2), which are async-signal-safe; it allocates nothing and takes no lock.
    unsafe {
        cmd.pre_exec(move || {
            enter_network_namespace()?;
            for (resource, value) in [
                (libc::RLIMIT_AS, limits.address_space),
                (libc::RLIMIT_CPU, limits.cpu_seconds),
                (libc::RLIMIT_FSIZE, limits.file_size),
                (libc::RLIMIT_NPROC, limits.processes),
            ] {
                let limit = libc::rlimit {
                    rlim_cur: value as libc::rlim_t,
                    rlim_max: value as libc::rlim_t,
                };
                if libc::setrlimit(resource, &limit) != 0 {
                    return Err(io::Error::last_os_error());
                }
            }
            Ok(())
        });
    }
}

/// A new network namespace: directly with privileges, else inside a new user namespace
/// (unprivileged; the process then runs as an unmapped user, its files still its own).
fn enter_network_namespace() -> io::Result<()> {
    // SAFETY: plain system calls on the calling process.
    unsafe {
        if libc::unshare(libc::CLONE_NEWNET) == 0 {
            return Ok(());
        }
        if libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNET) == 0 {
            return Ok(());
        }
    }
    Err(io::Error::last_os_error())
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
