//! The full resolution as a PEP 751 `pylock.toml`, the standard lock that pip and uv read:
//! every distribution of the transitive closure with its version and the files that install
//! on the target (name, URL, sha256, and size and upload time when the index gave them).
//!
//! A resolution is for one interpreter and platform, so the lock says so with
//! `environments` and `requires-python`: an installer refuses it elsewhere instead of
//! installing files that do not fit. No package then needs a marker of its own.

use std::collections::BTreeMap;

use serde::Serialize;

use super::requirements::python_line;
use crate::resolve::infer::Inference;
use crate::resolve::solver::{LockedFile, LockedKind, Pin};

/// The only version of the format there is.
const LOCK_VERSION: &str = "1.0";

#[derive(Debug, thiserror::Error)]
#[error("writing pylock.toml: {0}")]
pub struct PylockError(#[from] toml::ser::Error);

/// The file's top-level table, keys in the order the specification lists them.
#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
struct Pylock {
    lock_version: &'static str,
    environments: Vec<String>,
    requires_python: String,
    /// Empty, said explicitly: the lock was made with no extras or groups to choose from.
    extras: Vec<String>,
    dependency_groups: Vec<String>,
    default_groups: Vec<String>,
    created_by: &'static str,
    packages: Vec<Package>,
    tool: Tool,
}

#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
struct Package {
    name: String,
    version: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    dependencies: Vec<Dependency>,
    #[serde(skip_serializing_if = "Option::is_none")]
    index: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    sdist: Option<File>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    wheels: Vec<File>,
}

/// Which other entry a package depends on (for audits; installers do not read it).
#[derive(Serialize)]
struct Dependency {
    name: String,
}

#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
struct File {
    name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    upload_time: Option<toml::value::Datetime>,
    url: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    size: Option<u64>,
    hashes: BTreeMap<&'static str, String>,
}

/// Disposable notes for people (the specification's `[tool]` table): never read to install.
#[derive(Serialize)]
struct Tool {
    nbenv: ToolNbenv,
}

#[derive(Serialize)]
struct ToolNbenv {
    notebook: String,
    python: String,
}

/// The lock's text, and the distributions with a file the index gave no sha256 for: such
/// files are left out (the format requires a hash), so the caller warns.
pub fn pylock_toml(
    inference: &Inference,
    notebook: &str,
    index: Option<&str>,
) -> Result<(String, Vec<String>), PylockError> {
    let python = inference.solution.python;
    let mut unhashed = Vec::new();
    let packages = inference
        .solution
        .pins
        .iter()
        .map(|pin| {
            let (package, complete) = package(pin, &inference.solution.pins, index);
            if !complete {
                unhashed.push(pin.dist.to_string());
            }
            package
        })
        .collect();
    let lock = Pylock {
        lock_version: LOCK_VERSION,
        environments: vec![format!(
            "python_version == \"{}\" and platform_python_implementation == \"CPython\" \
             and sys_platform == \"linux\" and platform_machine == \"{}\"",
            python.feature(),
            std::env::consts::ARCH
        )],
        requires_python: format!("=={}.*", python.feature()),
        extras: Vec::new(),
        dependency_groups: Vec::new(),
        default_groups: Vec::new(),
        created_by: env!("CARGO_PKG_NAME"),
        packages,
        tool: Tool {
            nbenv: ToolNbenv {
                notebook: notebook.to_string(),
                python: python_line(inference),
            },
        },
    };
    Ok((toml::to_string(&lock)?, unhashed))
}

/// One `[[packages]]` entry, and whether every installable file had a hash.
fn package(pin: &Pin, all: &[Pin], index: Option<&str>) -> (Package, bool) {
    let mut complete = true;
    let mut wheels = Vec::new();
    let mut sdist = None;
    for f in &pin.files {
        let Some(file) = file(f) else {
            complete = false;
            continue;
        };
        match f.kind {
            LockedKind::Wheel => wheels.push(file),
            // One sdist is enough to build from: the first the index lists.
            LockedKind::Sdist => {
                sdist.get_or_insert(file);
            }
        }
    }
    wheels.sort_by(|a, b| a.name.cmp(&b.name));
    let mut dependencies: Vec<Dependency> = all
        .iter()
        .filter(|other| {
            other
                .required_by
                .iter()
                .any(|r| r.parent() == Some(&pin.dist))
        })
        .map(|other| Dependency {
            name: other.dist.to_string(),
        })
        .collect();
    dependencies.dedup_by(|a, b| a.name == b.name);
    let package = Package {
        name: pin.dist.to_string(),
        version: pin.version.to_string(),
        dependencies,
        index: index.map(str::to_string),
        sdist,
        wheels,
    };
    (package, complete)
}

fn file(f: &LockedFile) -> Option<File> {
    let sha256 = f.sha256.clone()?;
    Some(File {
        name: f.filename.clone(),
        // PEP 751 wants UTC; a Timestamp prints as RFC 3339 in UTC, which TOML reads as a
        // datetime.
        upload_time: f
            .upload_time
            .and_then(|t| t.to_string().parse::<toml::value::Datetime>().ok()),
        url: f.url.clone(),
        size: f.size,
        hashes: BTreeMap::from([("sha256", sha256)]),
    })
}
