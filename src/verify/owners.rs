//! Which installed distribution owns each top-level module of an environment, read from what
//! the installers wrote (`*.dist-info/RECORD` or `top_level.txt`, `*.egg-info/top_level.txt`
//! for pip's legacy installs): a traceback's frames in `site-packages/tensorflow_core/` are
//! tensorflow's, `google/protobuf/` protobuf's, whatever the import names say.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use pep508_rs::pep440_rs::Version;

use crate::names::DistName;
use crate::notebook::failure::{FrameOrigin, Raised};

/// Top-level module (or package) → the distribution that installed it, and its version.
#[derive(Debug, Clone, Default)]
pub struct Owners {
    by_module: HashMap<String, (DistName, Version)>,
}

impl Owners {
    /// What the environment at `root` has installed; empty when it cannot be read.
    pub fn of_env(root: &Path) -> Self {
        let mut owners = Owners::default();
        for site in site_packages(root) {
            let Ok(entries) = std::fs::read_dir(&site) else {
                continue;
            };
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                let Some((dist, version)) = dist_of_dir(&name) else {
                    continue;
                };
                for top in top_levels(&entry.path()) {
                    owners
                        .by_module
                        .entry(top)
                        .or_insert_with(|| (dist.clone(), version.clone()));
                }
            }
        }
        owners
    }

    /// The distribution that installed top-level module `top`.
    pub fn owner(&self, top: &str) -> Option<&(DistName, Version)> {
        self.by_module.get(top)
    }

    /// The distributions whose files the traceback runs through, innermost first, each once.
    pub fn in_frames(&self, raised: &Raised) -> Vec<(DistName, Version)> {
        let mut out: Vec<(DistName, Version)> = Vec::new();
        for frame in raised.frames.iter().rev() {
            let FrameOrigin::Library(module) = frame.origin() else {
                continue;
            };
            if let Some(owner) = self.owner(module.top_level()) {
                if !out.iter().any(|(d, _)| d == &owner.0) {
                    out.push(owner.clone());
                }
            }
        }
        out
    }
}

/// `lib/python3.6/site-packages` (and `lib64`) under an environment's root.
fn site_packages(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for lib in ["lib", "lib64"] {
        let Ok(entries) = std::fs::read_dir(root.join(lib)) else {
            continue;
        };
        for e in entries.flatten() {
            let site = e.path().join("site-packages");
            if e.file_name().to_string_lossy().starts_with("python") && site.is_dir() {
                out.push(site);
            }
        }
    }
    out
}

/// `scikit_learn-0.19.1.dist-info` → (scikit-learn, 0.19.1); egg-info names carry a Python
/// tag after the version (`pandas-0.19.2-py2.7.egg-info`).
fn dist_of_dir(name: &str) -> Option<(DistName, Version)> {
    let stem = name
        .strip_suffix(".dist-info")
        .or_else(|| name.strip_suffix(".egg-info"))?;
    let mut parts = stem.split('-');
    let dist = parts.next()?;
    let version = parts.next()?;
    Some((DistName::new(dist).ok()?, version.parse().ok()?))
}

/// The top-level modules a dist-info or egg-info names: `top_level.txt`, else the first
/// part of each path in `RECORD`.
fn top_levels(meta: &Path) -> Vec<String> {
    if let Ok(text) = std::fs::read_to_string(meta.join("top_level.txt")) {
        let tops: Vec<String> = text
            .lines()
            .map(|l| l.trim().replace('/', "."))
            .filter(|l| !l.is_empty())
            .map(|l| l.split('.').next().unwrap_or_default().to_string())
            .collect();
        if !tops.is_empty() {
            return tops;
        }
    }
    let Ok(record) = std::fs::read_to_string(meta.join("RECORD")) else {
        return Vec::new();
    };
    let mut tops: Vec<String> = Vec::new();
    for line in record.lines() {
        let path = line.split(',').next().unwrap_or_default();
        let first = path.split('/').next().unwrap_or_default();
        if first.is_empty()
            || first.starts_with("..")
            || first.ends_with(".dist-info")
            || first.ends_with(".data")
            || first == "__pycache__"
        {
            continue;
        }
        let top = first.strip_suffix(".py").unwrap_or(first);
        if !tops.iter().any(|t| t == top) {
            tops.push(top.to_string());
        }
    }
    tops
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notebook::failure::Frame;

    fn frame(file: &str) -> Frame {
        Frame {
            file: file.into(),
            line: None,
            function: None,
            code: None,
            cell: None,
        }
    }

    #[test]
    fn frames_are_owned_by_what_installed_their_files() {
        let env = tempfile::tempdir().unwrap();
        let site = env.path().join("lib/python3.7/site-packages");
        let tf = site.join("tensorflow-1.15.3.dist-info");
        std::fs::create_dir_all(&tf).unwrap();
        std::fs::write(
            tf.join("RECORD"),
            "tensorflow_core/__init__.py,sha256=x,1\ntensorflow/__init__.py,,\ntensorflow-1.15.3.dist-info/RECORD,,\n",
        )
        .unwrap();
        let pb = site.join("protobuf-4.21.0.dist-info");
        std::fs::create_dir_all(&pb).unwrap();
        std::fs::write(pb.join("top_level.txt"), "google\n").unwrap();
        let old = site.join("six-1.10.0-py3.7.egg-info");
        std::fs::create_dir_all(&old).unwrap();
        std::fs::write(old.join("top_level.txt"), "six\n").unwrap();
        let owners = Owners::of_env(env.path());
        let v = |s: &str| s.parse::<Version>().unwrap();
        assert_eq!(
            owners.owner("tensorflow_core"),
            Some(&(DistName::new("tensorflow").unwrap(), v("1.15.3")))
        );
        assert_eq!(owners.owner("six").map(|o| &o.1), Some(&v("1.10.0")));
        let raised = Raised {
            ename: "TypeError".into(),
            evalue: "Descriptors cannot not be created directly".into(),
            frames: vec![
                Frame {
                    cell: Some(2),
                    ..frame("<cell-2>")
                },
                frame(&format!("{}/tensorflow_core/__init__.py", site.display())),
                frame(&format!("{}/google/protobuf/descriptor.py", site.display())),
                frame(&format!("{}/tensorflow_core/x.py", site.display())),
            ],
        };
        let names: Vec<String> = owners
            .in_frames(&raised)
            .into_iter()
            .map(|(d, _)| d.to_string())
            .collect();
        assert_eq!(names, ["tensorflow", "protobuf"]);
    }
}
