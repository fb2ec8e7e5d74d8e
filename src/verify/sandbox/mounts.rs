//! The runner's view of the file tree, laid in its own mount namespace: everything
//! read-only but the run's scratch folder (the run's folder or its overlay, HOME, TMPDIR),
//! a private `/dev/shm`, and a `/proc` of the run's PID namespace.
//!
//! Read-only is per mount ([`mount_setattr`] on the whole tree, recursively), then lifted on
//! a bind of the scratch folder onto itself. The environment (its site-packages, the
//! interpreter it links to) is thus out of reach: a `.pth` file written by a sandboxed run
//! would run in every later run of that environment, sandboxed or not. Once the runner has
//! no capabilities ([`super::seal`]), it cannot mount anything back; in an unprivileged user
//! namespace the host's mounts are locked besides.
//!
//! [`mount_setattr`]: https://man7.org/linux/man-pages/man2/mount_setattr.2.html

use std::ffi::CString;
use std::io;
use std::path::Path;

use super::c_path;

/// `struct mount_attr` (linux/mount.h).
#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

const MOUNT_ATTR_RDONLY: u64 = 0x1;

/// What to mount, prepared before the fork.
pub(super) struct Mounts {
    /// Bound onto themselves and left writable.
    writable: Vec<CString>,
    /// `/dev/shm` exists: a private tmpfs goes there (multiprocessing's semaphores).
    shm: bool,
}

impl Mounts {
    pub(super) fn new(scratch: &Path) -> io::Result<Self> {
        let scratch = std::fs::canonicalize(scratch)?;
        Ok(Self {
            writable: vec![c_path(&scratch)?],
            shm: Path::new("/dev/shm").is_dir(),
        })
    }

    /// Lays the mounts, in a new mount namespace, from its PID 1 (so that `/proc` is the
    /// namespace's).
    ///
    /// # Safety
    /// Between fork and exec: system calls only, on data prepared before.
    pub(super) unsafe fn apply(&self) -> io::Result<()> {
        let check = |r: libc::c_int| {
            if r == 0 {
                Ok(())
            } else {
                Err(io::Error::last_os_error())
            }
        };
        let null = std::ptr::null::<libc::c_char>();
        // Nothing mounted here reaches the namespace nbenv runs in.
        check(libc::mount(
            null,
            c"/".as_ptr(),
            null,
            libc::MS_REC | libc::MS_PRIVATE,
            std::ptr::null(),
        ))?;
        for dir in &self.writable {
            check(libc::mount(
                dir.as_ptr(),
                dir.as_ptr(),
                null,
                libc::MS_BIND | libc::MS_REC,
                std::ptr::null(),
            ))?;
        }
        check(set_attr(c"/".as_ptr(), MOUNT_ATTR_RDONLY, 0))?;
        for dir in &self.writable {
            check(set_attr(dir.as_ptr(), 0, MOUNT_ATTR_RDONLY))?;
        }
        if self.shm {
            check(libc::mount(
                c"tmpfs".as_ptr(),
                c"/dev/shm".as_ptr(),
                c"tmpfs".as_ptr(),
                libc::MS_NOSUID | libc::MS_NODEV,
                c"mode=1777".as_ptr().cast(),
            ))?;
        }
        check(libc::mount(
            c"proc".as_ptr(),
            c"/proc".as_ptr(),
            c"proc".as_ptr(),
            libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC | libc::MS_RDONLY,
            std::ptr::null(),
        ))
    }
}

/// `mount_setattr(2)` on the mount at `path` and every mount below it.
unsafe fn set_attr(path: *const libc::c_char, set: u64, clear: u64) -> libc::c_int {
    let attr = MountAttr {
        attr_set: set,
        attr_clr: clear,
        propagation: 0,
        userns_fd: 0,
    };
    libc::syscall(
        libc::SYS_mount_setattr,
        libc::AT_FDCWD,
        path,
        libc::AT_RECURSIVE as libc::c_uint,
        &attr as *const MountAttr,
        std::mem::size_of::<MountAttr>(),
    ) as libc::c_int
}
