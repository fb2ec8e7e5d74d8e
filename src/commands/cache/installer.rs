//! The installer caches nbenv keeps (uv's, pip's): which uv, which cache it uses, and
//! tidying them by their installer.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::pypi::dir_size;
use crate::python::DieWithNbenv;
use crate::verify::{tidy_cache, CacheStep, CachedInstaller, InstallerCache};

use super::super::global::TOOLS_DIR;

/// The uv that installs for nbenv (`NBENV_UV`, else `uv` on PATH, else the one nbenv
/// installed) and the cache directory it uses: nbenv's own (`<cache>/uv`) unless the user
/// set `UV_CACHE_DIR`.
fn uv_cache(root: &Path) -> Option<(PathBuf, PathBuf)> {
    let candidates = match std::env::var_os("NBENV_UV").filter(|v| !v.is_empty()) {
        Some(uv) => vec![PathBuf::from(uv)],
        None => vec![
            PathBuf::from("uv"),
            root.join(TOOLS_DIR).join("bin").join("uv"),
        ],
    };
    candidates.into_iter().find_map(|uv| {
        let out = std::process::Command::new(&uv)
            .args(["cache", "dir"])
            .die_with_nbenv()
            .output()
            .ok()?;
        if !out.status.success() {
            return None;
        }
        let dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        (!dir.as_os_str().is_empty()).then_some((uv, dir))
    })
}

/// The cache uv uses when the user chose it (`UV_CACHE_DIR`): not nbenv's.
pub fn users_uv_cache(root: &Path) -> Option<PathBuf> {
    uv_cache(root)
        .map(|(_, dir)| dir)
        .filter(|dir| !same_dir(dir, &root.join("uv")))
}

/// Whether two paths name one directory (both may be missing).
fn same_dir(a: &Path, b: &Path) -> bool {
    let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    canon(a) == canon(b)
}

/// What was done to one of nbenv's installer caches, and what it freed.
#[derive(Debug, Clone, Serialize)]
pub struct Tidied {
    pub installer: CachedInstaller,
    pub dir: PathBuf,
    #[serde(rename = "done", serialize_with = "step_word")]
    pub step: CacheStep,
    pub freed_bytes: u64,
}

fn step_word<S: serde::Serializer>(step: &CacheStep, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(match step {
        CacheStep::Pruned => "pruned",
        CacheStep::Cleaned => "cleaned",
        CacheStep::Failed(_) => "failed",
    })
}

/// nbenv's own installer caches, by their installer: pruned (uv), or with `all` cleaned;
/// never a cache the user chose.
pub fn tidy_installer_caches(root: &Path, all: bool) -> Vec<Tidied> {
    let mut tidied = Vec::new();
    let uv = uv_cache(root).map(|(uv, _)| uv);
    for cache in InstallerCache::under(root)
        .into_iter()
        .filter(|c| c.dir.is_dir())
    {
        let before = dir_size(&cache.dir);
        if let Some(step) = tidy_cache(&cache, uv.as_deref(), all) {
            let after = if cache.dir.exists() {
                dir_size(&cache.dir)
            } else {
                0
            };
            tidied.push(Tidied {
                installer: cache.installer,
                dir: cache.dir,
                step,
                freed_bytes: before.saturating_sub(after),
            });
        }
    }
    tidied
}
