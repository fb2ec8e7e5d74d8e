//! The confined process tree, made between fork and exec. The child nbenv starts (A) joins
//! the run's cgroup, makes the namespaces and sets the limits; since a new PID namespace
//! takes only children, A forks its PID 1 (B), which lays the mounts, forks the runner (C)
//! and reaps whatever is orphaned in the namespace until the runner ends. B then passes the
//! runner's wait status to A and exits, and with it the kernel ends every process left in
//! the namespace (a `start_new_session` child included). A ends as the runner did (its exit
//! code, or killed by its signal), so nbenv sees the runner's end; A stays in nbenv's process
//! group, which nbenv kills on a time limit. A dies with nbenv and B with A
//! (`PR_SET_PDEATHSIG`), and the namespace with B: a killed nbenv leaves nothing running.
//!
//! Between fork and exec only system calls are made, on data prepared before ([`Plan`]):
//! nbenv has threads, and the forked child may not allocate or take a lock.

use std::ffi::CString;
use std::io;
use std::os::unix::process::CommandExt;
use std::process::Command;

use super::mounts::Mounts;
use super::SandboxLimits;

/// Everything the hook needs, made before the fork.
pub(super) struct Plan {
    pub limits: SandboxLimits,
    /// The run's cgroup's `cgroup.procs`, to join.
    pub cgroup_procs: Option<CString>,
    pub mounts: Mounts,
    /// Where the runner starts, entered again once the mounts are laid.
    pub start: CString,
    pub filter: Vec<libc::sock_filter>,
    /// The caller's user and group mapped to themselves (`uid_map`, `gid_map` lines), for
    /// a user namespace of its own.
    pub id_maps: [CString; 2],
    /// nbenv's process id: A dies with nbenv, and does not start if nbenv is already gone.
    pub nbenv: libc::pid_t,
}

impl Plan {
    pub(super) fn id_maps() -> [CString; 2] {
        // SAFETY: geteuid and getegid have no preconditions.
        let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
        [
            CString::new(format!("{uid} {uid} 1\n")).expect("no NUL"),
            CString::new(format!("{gid} {gid} 1\n")).expect("no NUL"),
        ]
    }
}

/// Makes `cmd` start through [`enter`].
pub(super) fn apply(cmd: &mut Command, plan: Plan) {
    // SAFETY: the hook runs in the forked child before exec; see `enter`.
    unsafe {
        cmd.pre_exec(move || enter(&plan));
    }
}

fn check(r: libc::c_int) -> io::Result<()> {
    if r == -1 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// In A. Returns only in C (to exec the runner) or with an error; A and B end here.
///
/// SAFETY (for the unsafe blocks below): only system calls (open, write, unshare, setrlimit,
/// pipe2, fork, prctl, mount, mount_setattr, waitpid, read, kill, chdir, close_range,
/// capset, _exit) on memory prepared before the fork or on the stack.
fn enter(plan: &Plan) -> io::Result<()> {
    // SAFETY: see above.
    unsafe {
        check(libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0))?;
        if libc::getppid() != plan.nbenv {
            return Err(io::Error::from_raw_os_error(libc::ESRCH));
        }
    }
    if let Some(procs) = &plan.cgroup_procs {
        join_cgroup(procs)?;
    }
    unshare_namespaces(&plan.id_maps)?;
    set_limits(&plan.limits)?;
    let mut pipe = [0; 2];
    // SAFETY: see above.
    unsafe {
        check(libc::pipe2(pipe.as_mut_ptr(), libc::O_CLOEXEC))?;
        let (status_read, status_write) = (pipe[0], pipe[1]);
        match libc::fork() {
            -1 => return Err(io::Error::last_os_error()),
            0 => {}
            init => {
                libc::close(status_write);
                close_all_but(status_read);
                mirror(init, status_read)
            }
        }
        // B: PID 1 of the new namespace. Dies with A; not readable (its memory, its
        // environment: nbenv's, inherited by fork) by what runs inside.
        libc::close(status_read);
        check(libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0))?;
        check(libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0))?;
        plan.mounts.apply()?;
        match libc::fork() {
            -1 => return Err(io::Error::last_os_error()),
            0 => {}
            runner => {
                close_all_but(status_write);
                reap(runner, status_write)
            }
        }
        // C: the runner, about to exec; its parent is B, not nbenv.
        crate::python::UNDER_NBENVS_INIT.store(true, std::sync::atomic::Ordering::Relaxed);
        libc::close(status_write);
        check(libc::chdir(plan.start.as_ptr()))?;
        // Descriptors nbenv itself inherited without close-on-exec stay out.
        if libc::syscall(
            libc::SYS_close_range,
            3u32,
            u32::MAX,
            libc::CLOSE_RANGE_CLOEXEC,
        ) != 0
        {
            for fd in 3..4096 {
                libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC);
            }
        }
        super::seal::apply(&plan.filter)
    }
}

fn join_cgroup(procs: &CString) -> io::Result<()> {
    write_file(procs, c"0")
}

/// Network, PID, mount and IPC namespaces: directly with privileges, else inside a new user
/// namespace (unprivileged; the caller's user and group are mapped to themselves, so that
/// files on the namespace's own mounts, `/dev/shm`, can be made; the runner has no
/// capabilities after exec).
fn unshare_namespaces(id_maps: &[CString; 2]) -> io::Result<()> {
    let flags = libc::CLONE_NEWNET | libc::CLONE_NEWPID | libc::CLONE_NEWNS | libc::CLONE_NEWIPC;
    // SAFETY: plain system calls on the calling process.
    unsafe {
        if libc::unshare(flags) == 0 {
            return Ok(());
        }
        check(libc::unshare(libc::CLONE_NEWUSER | flags))?;
    }
    // A process may map its own ids once it gives up setgroups(2).
    write_file(c"/proc/self/setgroups", c"deny")?;
    write_file(c"/proc/self/uid_map", &id_maps[0])?;
    write_file(c"/proc/self/gid_map", &id_maps[1])
}

fn write_file(path: &std::ffi::CStr, text: &std::ffi::CStr) -> io::Result<()> {
    let bytes = text.to_bytes();
    // SAFETY: see `enter`.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        check(fd)?;
        let written = libc::write(fd, bytes.as_ptr().cast(), bytes.len());
        let err = io::Error::last_os_error();
        libc::close(fd);
        if written != bytes.len() as isize {
            return Err(err);
        }
    }
    Ok(())
}

fn set_limits(limits: &SandboxLimits) -> io::Result<()> {
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
        // SAFETY: setrlimit on the calling process, with a limit on the stack.
        check(unsafe { libc::setrlimit(resource, &limit) })?;
    }
    Ok(())
}

/// Closes every descriptor above stderr but `keep`: A and B never exec, and would otherwise
/// hold nbenv's other pipes (another run's output, the spawn's error pipe) open.
unsafe fn close_all_but(keep: libc::c_int) {
    let close_range = |from: libc::c_int, to: libc::c_int| {
        if from > to {
            return;
        }
        if libc::syscall(libc::SYS_close_range, from as u32, to as u32, 0u32) != 0 {
            for fd in from..to.min(4095) + 1 {
                libc::close(fd);
            }
        }
    };
    close_range(3, keep - 1);
    close_range(keep + 1, libc::c_int::MAX);
}

fn errno() -> libc::c_int {
    io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

/// A: waits for B, and ends as the runner did (B's own end if B never said).
unsafe fn mirror(init: libc::pid_t, status_read: libc::c_int) -> ! {
    let mut reported: libc::c_int = 0;
    let mut got = 0usize;
    let size = std::mem::size_of::<libc::c_int>();
    while got < size {
        let n = libc::read(
            status_read,
            (&mut reported as *mut libc::c_int)
                .cast::<u8>()
                .add(got)
                .cast(),
            size - got,
        );
        if n > 0 {
            got += n as usize;
        } else if n == 0 || errno() != libc::EINTR {
            break;
        }
    }
    let mut own: libc::c_int = 0;
    while libc::waitpid(init, &mut own, 0) == -1 && errno() == libc::EINTR {}
    let status = if got == size { reported } else { own };
    if libc::WIFEXITED(status) {
        libc::_exit(libc::WEXITSTATUS(status));
    }
    if libc::WIFSIGNALED(status) {
        let signal = libc::WTERMSIG(status);
        let no_core = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        libc::setrlimit(libc::RLIMIT_CORE, &no_core);
        libc::signal(signal, libc::SIG_DFL);
        let mut none: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut none);
        libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
        libc::kill(libc::getpid(), signal);
        libc::_exit(128 + signal);
    }
    libc::_exit(1)
}

/// B: reaps every orphan of the namespace until the runner ends, then reports its status to
/// A and exits, which ends the namespace.
unsafe fn reap(runner: libc::pid_t, status_write: libc::c_int) -> ! {
    let mut status: libc::c_int = 1 << 8;
    loop {
        let mut st: libc::c_int = 0;
        let pid = libc::waitpid(-1, &mut st, 0);
        if pid == runner {
            status = st;
            break;
        }
        if pid == -1 && errno() != libc::EINTR {
            break;
        }
    }
    libc::write(
        status_write,
        (&status as *const libc::c_int).cast(),
        std::mem::size_of::<libc::c_int>(),
    );
    libc::_exit(0)
}
