//! The throw-away folder a run works in: whatever the notebook writes, deletes or changes
//! stays there, and the originals are never touched.
//!
//! Where nbenv may mount (it runs as root), the folder is an overlay ([`Overlay`]): the
//! original folder read-only beneath, the run's writes in a layer of its own under the
//! scratch directory, mounted in a mount namespace only the runner and its children see.
//! Nothing is copied, so a repository of any size costs nothing; a file the notebook opens
//! for writing is copied up first, whole. Hard links or symbolic links would not do: a write
//! through either changes the original.
//!
//! Elsewhere the folder is copied ([`copy_tree`]): each file cloned where the file system
//! shares blocks between files (`FICLONE`: Btrfs, XFS; a write then makes the clone's own
//! blocks), else copied byte by byte, and only those bytes count against the copy limit.
//! Version-control data, caches and virtual environments are not copied; symbolic links are
//! copied as links.

use std::ffi::CString;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};

use super::run::RunError;

/// How the run saw the notebook's folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum RunFolder {
    /// An overlay of the original: nothing copied.
    Overlay,
    /// A copy: `copied` bytes written anew, `cloned` bytes sharing the originals' blocks.
    Copy { copied: u64, cloned: u64 },
}

/// Cleared when an overlay could not be mounted: the runs after copy at once.
static OVERLAY_WORKS: AtomicBool = AtomicBool::new(true);

/// An overlay of `lower` at `merged`, its writes in `upper`, to be mounted in the runner's
/// own mount namespace ([`Overlay::apply`]).
#[derive(Debug, Clone)]
pub(crate) struct Overlay {
    merged: CString,
    options: CString,
    /// Where the runner starts, inside `merged`.
    start: CString,
    start_dir: PathBuf,
    /// The run's start in the upper layer: a file written there before mounting hides the
    /// original beneath.
    upper_start: PathBuf,
}

impl Overlay {
    /// The overlay of `lower` for a run starting at `inside` (relative), laid out under
    /// `scratch`. `None` where it cannot be had: not root, an overlay failed before, or a
    /// path the mount options cannot carry (`,`, `:`, `\`) or layers that overlap.
    pub(crate) fn new(lower: &Path, inside: &Path, scratch: &Path) -> Option<Self> {
        // SAFETY: geteuid has no preconditions.
        if !OVERLAY_WORKS.load(Ordering::Relaxed) || unsafe { libc::geteuid() } != 0 {
            return None;
        }
        let lower = fs::canonicalize(lower).ok()?;
        let scratch = fs::canonicalize(scratch).ok()?;
        if lower.starts_with(&scratch) || scratch.starts_with(&lower) {
            return None;
        }
        let (upper, work, merged) = (
            scratch.join("upper"),
            scratch.join("overlay-work"),
            scratch.join("work"),
        );
        for dir in [&upper, &work, &merged] {
            fs::create_dir_all(dir).ok()?;
        }
        let plain = |p: &Path| !p.as_os_str().as_bytes().iter().any(|b| b",:\\".contains(b));
        if ![&lower, &upper, &work].into_iter().all(|p| plain(p)) {
            return None;
        }
        let options = format!(
            "lowerdir={},upperdir={},workdir={}",
            lower.display(),
            upper.display(),
            work.display()
        );
        let c = |p: &Path| CString::new(p.as_os_str().as_bytes()).ok();
        Some(Self {
            merged: c(&merged)?,
            options: CString::new(options).ok()?,
            start: c(&merged.join(inside))?,
            start_dir: merged.join(inside),
            upper_start: upper.join(inside),
        })
    }

    /// Where the runner starts, once the overlay is mounted.
    pub(crate) fn start(&self) -> &Path {
        &self.start_dir
    }

    /// The runner's start in the upper layer, before the overlay is mounted.
    pub(crate) fn upper_start(&self) -> &Path {
        &self.upper_start
    }

    /// Makes `cmd` start in a mount namespace of its own with the overlay mounted, in its
    /// folder. Starting fails (with the system's error) when the overlay cannot be mounted.
    pub(crate) fn apply(&self, cmd: &mut Command) {
        let overlay = self.clone();
        // SAFETY: the closure runs in the forked child before exec and makes only system
        // calls (unshare, mount, chdir) on strings made before the fork; it allocates nothing.
        unsafe {
            cmd.pre_exec(move || {
                let check = |r: libc::c_int| {
                    if r == 0 {
                        Ok(())
                    } else {
                        Err(std::io::Error::last_os_error())
                    }
                };
                check(libc::unshare(libc::CLONE_NEWNS))?;
                // Nothing mounted here reaches the namespace nbenv runs in.
                check(libc::mount(
                    std::ptr::null(),
                    c"/".as_ptr(),
                    std::ptr::null(),
                    libc::MS_REC | libc::MS_PRIVATE,
                    std::ptr::null(),
                ))?;
                check(libc::mount(
                    c"overlay".as_ptr(),
                    overlay.merged.as_ptr(),
                    c"overlay".as_ptr(),
                    0,
                    overlay.options.as_ptr().cast(),
                ))?;
                check(libc::chdir(overlay.start.as_ptr()))
            });
        }
    }

    /// The overlay could not be mounted: copies from now on.
    pub(crate) fn failed() {
        OVERLAY_WORKS.store(false, Ordering::Relaxed);
    }
}

/// Directories never copied.
const SKIPPED: &[&str] = &[
    ".git",
    ".hg",
    ".svn",
    ".ipynb_checkpoints",
    "__pycache__",
    "node_modules",
    ".tox",
    ".nox",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
];

/// Copies `from` into `to` (created), skipping `avoid` (the scratch directory itself, when
/// it lies inside `from`). Fails when more than `limit` bytes would be copied; bytes cloned
/// (sharing the originals' blocks) do not count.
pub(crate) fn copy_tree(
    from: &Path,
    to: &Path,
    limit: u64,
    avoid: &Path,
) -> Result<RunFolder, RunError> {
    let avoid = fs::canonicalize(avoid).unwrap_or_else(|_| avoid.to_path_buf());
    let (mut copied, mut cloned) = (0u64, 0u64);
    let mut clones = true;
    let mut stack: Vec<(PathBuf, PathBuf)> = vec![(from.to_path_buf(), to.to_path_buf())];
    let copy_err = |path: &Path, source: std::io::Error| RunError::Copy {
        path: path.to_path_buf(),
        source,
    };
    while let Some((src, dst)) = stack.pop() {
        fs::create_dir_all(&dst).map_err(|e| copy_err(&dst, e))?;
        let entries = fs::read_dir(&src).map_err(|e| copy_err(&src, e))?;
        for entry in entries {
            let entry = entry.map_err(|e| copy_err(&src, e))?;
            let path = entry.path();
            let target = dst.join(entry.file_name());
            let kind = entry.file_type().map_err(|e| copy_err(&path, e))?;
            if kind.is_symlink() {
                let link = fs::read_link(&path).map_err(|e| copy_err(&path, e))?;
                std::os::unix::fs::symlink(&link, &target).map_err(|e| copy_err(&target, e))?;
            } else if kind.is_dir() {
                let name = entry.file_name();
                let skipped = SKIPPED.iter().any(|s| name == *s)
                    || path.join("pyvenv.cfg").exists()
                    || fs::canonicalize(&path).is_ok_and(|p| p == avoid);
                if !skipped {
                    stack.push((path, target));
                }
            } else if kind.is_file() {
                let size = entry.metadata().map_err(|e| copy_err(&path, e))?.len();
                if clones {
                    match clone_file(&path, &target) {
                        Ok(true) => {
                            cloned += size;
                            continue;
                        }
                        // Not on this file system: no other file will clone either.
                        Ok(false) => clones = false,
                        Err(e) => return Err(copy_err(&path, e)),
                    }
                }
                copied += size;
                if copied > limit {
                    return Err(RunError::DirectoryTooLarge {
                        dir: from.to_path_buf(),
                        limit,
                    });
                }
                fs::copy(&path, &target).map_err(|e| copy_err(&path, e))?;
            }
        }
    }
    Ok(RunFolder::Copy { copied, cloned })
}

/// Clones `from` to `to` (`FICLONE`: the two share blocks until either is written), with
/// its permissions. `Ok(false)`, and nothing left at `to`, where the file system cannot.
fn clone_file(from: &Path, to: &Path) -> std::io::Result<bool> {
    use std::os::fd::AsRawFd;
    let src = fs::File::open(from)?;
    let dst = fs::File::create(to)?;
    // SAFETY: an ioctl on two descriptors these `File`s own; no memory is passed.
    let r = unsafe { libc::ioctl(dst.as_raw_fd(), libc::FICLONE, src.as_raw_fd()) };
    if r != 0 {
        drop(dst);
        fs::remove_file(to)?;
        return Ok(false);
    }
    dst.set_permissions(src.metadata()?.permissions())?;
    Ok(true)
}
