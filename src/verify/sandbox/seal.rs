//! The runner's last steps before exec: no capabilities, and no Unix sockets of its own.
//!
//! A network namespace hides abstract Unix sockets only; one bound to a path (a database's,
//! a container engine's, a desktop's agent) stays reachable wherever the path is seen, and a
//! read-only mount does not stop `connect(2)`. Private mounts over `/tmp` and `/run` would
//! leave those elsewhere (a home folder, `/var/lib`, the notebook's own tree), so a seccomp
//! filter refuses the call instead: `socket(AF_UNIX, ...)` fails with EPERM wherever the
//! socket lives. `socketpair(2)` of stream sockets stays (asyncio's self-pipe and
//! `multiprocessing.Pipe` use it; such a pair is connected and cannot be pointed elsewhere);
//! a datagram pair, which `sendto` a path, is refused, and so is `io_uring_setup` (a ring
//! makes sockets past the filter). A process of another architecture (the filter would read
//! its system call numbers wrongly) is killed; so are x32 calls on x86-64. What fails so:
//! `multiprocessing.Manager` and the `forkserver` start method, syslog, anything that talks
//! to a local service.
//!
//! As root the runner would keep every capability across exec, and with them could unmount
//! the read-only tree, the fresh `/proc` (the host's is beneath) or raise its limits: the
//! bounding set is emptied, `SECBIT_NOROOT` set and `PR_SET_NO_NEW_PRIVS` too (no setuid
//! program gives them back).

use std::io;

#[cfg(target_arch = "x86_64")]
const AUDIT_ARCH: u32 = 0xC000_003E;
#[cfg(target_arch = "aarch64")]
const AUDIT_ARCH: u32 = 0xC000_00B7;
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
compile_error!("--sandbox's seccomp filter knows x86-64 and aarch64 only");

/// `offsetof(struct seccomp_data, ...)`.
const NR: u32 = 0;
const ARCH: u32 = 4;
const fn arg(i: u32) -> u32 {
    16 + 8 * i
}

fn op(code: u32, k: u32, jt: u8, jf: u8) -> libc::sock_filter {
    libc::sock_filter {
        code: code as u16,
        jt,
        jf,
        k,
    }
}

fn load(offset: u32) -> libc::sock_filter {
    op(libc::BPF_LD | libc::BPF_W | libc::BPF_ABS, offset, 0, 0)
}

fn jump_eq(k: u32, jt: u8, jf: u8) -> libc::sock_filter {
    op(libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K, k, jt, jf)
}

fn ret(k: u32) -> libc::sock_filter {
    op(libc::BPF_RET | libc::BPF_K, k, 0, 0)
}

/// The filter (classic BPF over `struct seccomp_data`). Each block that loads an argument
/// returns, so the system call number stays loaded for the next.
pub(super) fn filter() -> Vec<libc::sock_filter> {
    let allow = ret(libc::SECCOMP_RET_ALLOW);
    let kill = ret(libc::SECCOMP_RET_KILL_PROCESS);
    let refuse =
        |errno: i32| ret(libc::SECCOMP_RET_ERRNO | (errno as u32 & libc::SECCOMP_RET_DATA));
    let mut f = vec![load(ARCH), jump_eq(AUDIT_ARCH, 1, 0), kill, load(NR)];
    #[cfg(target_arch = "x86_64")]
    f.extend([
        // x32 system calls carry this bit, with the same architecture.
        op(
            libc::BPF_JMP | libc::BPF_JGE | libc::BPF_K,
            0x4000_0000,
            0,
            1,
        ),
        kill,
    ]);
    f.extend([
        jump_eq(libc::SYS_socket as u32, 0, 4),
        load(arg(0)),
        jump_eq(libc::AF_UNIX as u32, 0, 1),
        refuse(libc::EPERM),
        allow,
        jump_eq(libc::SYS_socketpair as u32, 0, 5),
        load(arg(1)),
        // The type without SOCK_NONBLOCK and SOCK_CLOEXEC.
        op(libc::BPF_ALU | libc::BPF_AND | libc::BPF_K, 0xf, 0, 0),
        jump_eq(libc::SOCK_DGRAM as u32, 0, 1),
        refuse(libc::EPERM),
        allow,
        jump_eq(libc::SYS_io_uring_setup as u32, 0, 1),
        refuse(libc::ENOSYS),
        allow,
    ]);
    f
}

/// Drops every capability for good, then installs `filter`.
///
/// # Safety
/// Between fork and exec: system calls only, on data prepared before.
pub(super) unsafe fn apply(filter: &[libc::sock_filter]) -> io::Result<()> {
    let check = |r: libc::c_int| {
        if r == 0 {
            Ok(())
        } else {
            Err(io::Error::last_os_error())
        }
    };
    check(libc::prctl(
        libc::PR_SET_SECUREBITS,
        (libc::SECBIT_NOROOT | libc::SECBIT_NOROOT_LOCKED) as libc::c_ulong,
        0,
        0,
        0,
    ))?;
    for cap in 0..64 {
        if libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0) != 0
            && io::Error::last_os_error().raw_os_error() != Some(libc::EINVAL)
        {
            return Err(io::Error::last_os_error());
        }
    }
    libc::prctl(
        libc::PR_CAP_AMBIENT,
        libc::PR_CAP_AMBIENT_CLEAR_ALL,
        0,
        0,
        0,
    );
    #[repr(C)]
    struct Header {
        version: u32,
        pid: libc::c_int,
    }
    #[repr(C)]
    #[derive(Clone, Copy)]
    struct Data {
        effective: u32,
        permitted: u32,
        inheritable: u32,
    }
    let header = Header {
        version: 0x2008_0522, // _LINUX_CAPABILITY_VERSION_3
        pid: 0,
    };
    let none = [Data {
        effective: 0,
        permitted: 0,
        inheritable: 0,
    }; 2];
    check(libc::syscall(libc::SYS_capset, &header as *const Header, none.as_ptr()) as libc::c_int)?;
    check(libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))?;
    let program = libc::sock_fprog {
        len: filter.len() as libc::c_ushort,
        filter: filter.as_ptr() as *mut libc::sock_filter,
    };
    check(libc::prctl(
        libc::PR_SET_SECCOMP,
        libc::SECCOMP_MODE_FILTER,
        &program as *const libc::sock_fprog,
    ))
}
