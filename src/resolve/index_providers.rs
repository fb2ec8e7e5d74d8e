//! Providers of an import name found on the package index, for names neither the bank nor
//! nbenv's lists know: a project of a conventional name counts only if its newest wheel
//! really installs that top-level module, as its file list shows (read by range: the zip's
//! directory, not the archive). A namesake whose wheel installs something else is no provider.
//! A project that never published a wheel (pydotplus, version_information) is judged by its
//! newest sdist's survey: its egg-info's `top_level.txt`, else its layout.

use std::collections::BTreeSet;
use std::sync::Mutex;

use super::evidence::{conventional_names, IndexLookup, LookupError};
use crate::disk_full::DiskFull;
use crate::names::{DistName, ModulePath};
use crate::pypi::{FileKind, IndexClient, PypiError};

pub struct IndexProviders<'c> {
    client: &'c IndexClient,
    /// A full disk met while looking providers up (see [`IndexProviders::disk_full`]).
    disk_full: Mutex<Option<DiskFull>>,
}

impl<'c> IndexProviders<'c> {
    pub fn new(client: &'c IndexClient) -> Self {
        Self {
            client,
            disk_full: Mutex::new(None),
        }
    }

    /// The full disk (the cache's) that made a lookup fail, if one did. A [`LookupError`]
    /// keeps only the words of its cause; this keeps the error, for the caller to report it
    /// as what it is.
    pub fn disk_full(&self) -> Option<DiskFull> {
        self.disk_full
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// The top-level modules the newest wheel of `name` installs, else (a project that never
    /// published one) those its newest sdist holds; `None` when the project is not on the
    /// index or has neither.
    fn installed_modules(&self, name: &DistName) -> Result<Option<BTreeSet<String>>, PypiError> {
        let page = match self.client.project(name) {
            Ok(page) => page,
            Err(e) if e.is_not_found() => return Ok(None),
            Err(e) => return Err(e),
        };
        let releases = page.releases();
        let wheel = releases.iter().rev().find_map(|r| {
            r.source_candidates()
                .into_iter()
                .find(|f| matches!(f.kind, FileKind::Wheel { .. }) && !f.is_yanked())
        });
        let Some(wheel) = wheel else {
            let sdist = releases.iter().rev().find_map(|r| {
                r.files
                    .iter()
                    .find(|f| matches!(f.kind, FileKind::Sdist { .. }) && !f.is_yanked())
            });
            return match sdist {
                Some(sdist) => Ok(Some(self.client.survey_sdist(sdist)?.modules)),
                None => Ok(None),
            };
        };
        let mut archive = self.client.open_archive(wheel)?;
        let modules = archive
            .entries()?
            .into_iter()
            .filter_map(|e| top_level_module(&e.name))
            .collect();
        Ok(Some(modules))
    }
}

/// `pkg/mod.py` → `pkg`, `mod.py` → `mod`, `ext.cpython-311-x86_64-linux-gnu.so` → `ext`;
/// metadata and data directories install no module.
fn top_level_module(member: &str) -> Option<String> {
    let (first, rest) = match member.split_once('/') {
        Some((dir, rest)) => (dir, Some(rest)),
        None => (member, None),
    };
    if first.ends_with(".dist-info") || first.ends_with(".data") {
        return None;
    }
    match rest {
        Some(_) => Some(first.to_string()),
        None => {
            let stem = first.split('.').next()?;
            let is_module = [".py", ".so", ".pyd"]
                .iter()
                .any(|ext| first.ends_with(ext));
            is_module.then(|| stem.to_string())
        }
    }
}

impl IndexProviders<'_> {
    /// [`Self::installed_modules`], a full disk kept aside and the error put as a lookup's.
    fn modules_for(
        &self,
        name: &DistName,
        import: &ModulePath,
    ) -> Result<Option<BTreeSet<String>>, LookupError> {
        self.installed_modules(name).map_err(|e| {
            if let PypiError::DiskFull(full) = &e {
                *self
                    .disk_full
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(full.clone());
            }
            LookupError {
                import: import.clone(),
                detail: format!("{name}: {e}"),
            }
        })
    }
}

impl IndexLookup for IndexProviders<'_> {
    fn providers_on_index(&self, import: &ModulePath) -> Result<Vec<DistName>, LookupError> {
        let mut found = Vec::new();
        for name in conventional_names(import) {
            if self.installs(&name, import)? {
                found.push(name);
            }
        }
        Ok(found)
    }

    fn installs(&self, dist: &DistName, import: &ModulePath) -> Result<bool, LookupError> {
        Ok(self
            .modules_for(dist, import)?
            .is_some_and(|m| m.contains(import.top_level())))
    }
}

#[cfg(test)]
mod tests {
    use super::top_level_module;

    #[test]
    fn modules_a_wheel_installs() {
        assert_eq!(top_level_module("pkg/__init__.py").as_deref(), Some("pkg"));
        assert_eq!(top_level_module("six.py").as_deref(), Some("six"));
        assert_eq!(
            top_level_module("_ext.cpython-311-x86_64-linux-gnu.so").as_deref(),
            Some("_ext")
        );
        assert_eq!(top_level_module("pkg-1.0.dist-info/RECORD"), None);
        assert_eq!(top_level_module("pkg-1.0.data/scripts/x"), None);
        assert_eq!(top_level_module("README.txt"), None);
    }
}
