//! Indexing one release: list its archive, summarize the source files not seen before, run
//! the import flow, and collect import names and Requires-Dist.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use crate::bank::extract::{
    summarize_bytes, ArchiveKind, FileSummary, Record, ReleaseLayout, Sha256, SUMMARY_VERSION,
};
use crate::bank::flow::{self, ReleaseApis, ReleaseInput};
use crate::bank::store::{SourceCounts, SummaryStore};
use crate::pypi::{CoreMetadata, DistFile, FileKind, IndexClient, Transfer};

use super::error::IndexError;
use super::summary_cache::SummaryCache;

/// What indexing one release produced, ready for the store.
#[derive(Debug)]
pub struct ReleaseOutcome {
    pub apis: ReleaseApis,
    pub import_names: Vec<String>,
    pub requires_dist: Vec<String>,
    pub requires_python: Option<String>,
    pub counts: SourceCounts,
    pub new_summaries: Vec<(Sha256, FileSummary)>,
    pub transfer: Transfer,
}

fn is_source(name: &str) -> bool {
    name.ends_with(".py") || name.ends_with(".pyi")
}

/// `<dir>.dist-info/<file>` at the top of a wheel.
fn dist_info_file<'a>(name: &'a str, file: &str) -> Option<&'a str> {
    let (dir, rest) = name.split_once('/')?;
    (dir.ends_with(".dist-info") && rest == file).then_some(dir)
}

/// `PKG-INFO` or `top_level.txt` of an sdist: at its root or in its `*.egg-info/`.
fn sdist_meta(name: &str, file: &str) -> bool {
    let parts: Vec<&str> = name.split('/').collect();
    match parts.as_slice() {
        [f] | [_, f] => *f == file,
        [_, dir, f] | [_, "src", dir, f] => dir.ends_with(".egg-info") && *f == file,
        _ => false,
    }
}

/// Indexes one release from `file`.
pub fn index_release(
    client: &IndexClient,
    summaries: &SummaryStore,
    shared: &SummaryCache,
    file: &DistFile,
) -> Result<ReleaseOutcome, IndexError> {
    let mut reader = client.open_archive(file)?;
    let is_wheel = matches!(file.kind, FileKind::Wheel { .. });

    // Phase 1: metadata (and, for sdists, everything: a tarball is read whole anyway).
    let first: Vec<_> = if is_wheel {
        reader.read(&|n: &str| {
            ["RECORD", "METADATA", "top_level.txt"]
                .iter()
                .any(|f| dist_info_file(n, f).is_some())
        })?
    } else {
        reader.read(&|n: &str| {
            is_source(n) || sdist_meta(n, "PKG-INFO") || sdist_meta(n, "top_level.txt")
        })?
    };
    let entries = reader.entries()?;
    let kind = if is_wheel {
        ArchiveKind::Wheel
    } else {
        ArchiveKind::Sdist
    };
    let layout = ReleaseLayout::new(kind, entries.iter().map(|e| e.name.as_str()));

    let member = |suffix: &str| {
        first
            .iter()
            .filter(|m| m.name.ends_with(suffix))
            .min_by_key(|m| m.name.len())
    };
    let metadata_member = if is_wheel {
        member(".dist-info/METADATA")
    } else {
        member("PKG-INFO")
    };
    let metadata = metadata_member.and_then(|m| CoreMetadata::parse(&m.data).ok());
    let top_level = member("top_level.txt").map(|m| String::from_utf8_lossy(&m.data).into_owned());

    // The hash of every source file: from RECORD for wheels, computed for sdists.
    let mut hashes: HashMap<String, Sha256> = HashMap::new();
    let mut fetched: HashMap<String, Vec<u8>> = HashMap::new();
    if is_wheel {
        if let Some(record) = member(".dist-info/RECORD") {
            let record = Record::parse(&String::from_utf8_lossy(&record.data));
            for entry in record.entries {
                if let Some(sha) = entry.sha256 {
                    hashes.insert(entry.path, sha);
                }
            }
        }
    } else {
        for m in &first {
            if is_source(&m.name) {
                hashes.insert(m.name.clone(), Sha256::of(&m.data));
                fetched.insert(m.name.clone(), m.data.clone());
            }
        }
    }

    let sources: Vec<(String, bool)> = layout
        .sources()
        .map(|(_, path, is_stub)| (path.to_string(), is_stub))
        .collect();
    // Summaries already known: shared by this build's workers, else in the bank.
    let mut cached: HashMap<Sha256, Arc<FileSummary>> = HashMap::new();
    let mut ask_bank: Vec<Sha256> = Vec::new();
    for (path, is_stub) in &sources {
        if let Some(h) = hashes.get(path) {
            let key = summary_key(h, *is_stub);
            match shared.get(&key) {
                Some(s) => {
                    cached.insert(key, s);
                }
                None => ask_bank.push(key),
            }
        }
    }
    for (key, s) in summaries.get(&ask_bank)? {
        let s = Arc::new(s);
        shared.insert(key, s.clone());
        cached.insert(key, s);
    }
    let known = |path: &str, is_stub: bool| {
        hashes
            .get(path)
            .is_some_and(|h| cached.contains_key(&summary_key(h, is_stub)))
    };

    // Phase 2 (wheels): fetch only the sources whose summaries are not known.
    if is_wheel {
        let missing: HashSet<&str> = sources
            .iter()
            .filter(|(p, stub)| !known(p, *stub))
            .map(|(p, _)| p.as_str())
            .collect();
        if !missing.is_empty() {
            for m in reader.read(&|n: &str| missing.contains(n))? {
                fetched.insert(m.name, m.data);
            }
        }
    }

    let mut counts = SourceCounts {
        source_files: sources.len() as u32,
        ..SourceCounts::default()
    };
    let mut new_summaries: Vec<(Sha256, FileSummary)> = Vec::new();
    let mut summary_by_path: HashMap<&str, Sha256> = HashMap::new();
    for (path, is_stub) in &sources {
        let key = match (hashes.get(path), fetched.get(path)) {
            (Some(h), _) if cached.contains_key(&summary_key(h, *is_stub)) => {
                summary_key(h, *is_stub)
            }
            (_, Some(data)) => {
                let key = summary_key(&Sha256::of(data), *is_stub);
                if let std::collections::hash_map::Entry::Vacant(slot) = cached.entry(key) {
                    let (summary, parsed_here) =
                        shared.get_or_compute(key, || summarize_bytes(data, *is_stub));
                    if parsed_here {
                        counts.parsed_files += 1;
                        new_summaries.push((key, (*summary).clone()));
                    }
                    slot.insert(summary);
                }
                key
            }
            // Listed but not readable: the flow treats the module as opaque.
            _ => continue,
        };
        if cached[&key].parse_errors > 0 {
            counts.error_files += 1;
        }
        summary_by_path.insert(path.as_str(), key);
    }

    let input = ReleaseInput::from_layout(&layout, |path| {
        summary_by_path
            .get(path)
            .and_then(|h| cached.get(h))
            .map(|s| &**s)
    });
    let apis = flow::analyze(&input);

    let import_names = import_names(top_level.as_deref(), &layout);
    let (requires_dist, requires_python) = match metadata {
        Some(m) => (m.requires_dist, m.requires_python),
        None => (Vec::new(), None),
    };
    Ok(ReleaseOutcome {
        apis,
        import_names,
        requires_dist,
        requires_python,
        counts,
        new_summaries,
        transfer: reader.transfer(),
    })
}

/// The key a file's summary is cached under: its content, whether it is read as a stub, and
/// the extraction rules' version (summaries made by older rules are made again).
fn summary_key(file: &Sha256, is_stub: bool) -> Sha256 {
    let mut bytes = Vec::with_capacity(37);
    bytes.extend_from_slice(&file.0);
    bytes.push(u8::from(is_stub));
    bytes.extend_from_slice(&SUMMARY_VERSION.to_le_bytes());
    Sha256::of(&bytes)
}

/// The top-level import names: `top_level.txt` when the release has one, else the first
/// segment of every module it installs.
fn import_names(top_level: Option<&str>, layout: &ReleaseLayout) -> Vec<String> {
    let mut names: BTreeSet<String> = BTreeSet::new();
    if let Some(text) = top_level {
        for line in text.lines() {
            let name = line.trim().replace('/', ".");
            if !name.is_empty() && crate::names::ModulePath::new(&name).is_ok() {
                names.insert(name);
            }
        }
    }
    if names.is_empty() {
        for m in layout.modules() {
            names.insert(m.module.top_level().to_string());
        }
    }
    names.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_member_names() {
        assert!(sdist_meta("foo-1.0/PKG-INFO", "PKG-INFO"));
        assert!(sdist_meta("foo-1.0/foo.egg-info/PKG-INFO", "PKG-INFO"));
        assert!(sdist_meta(
            "foo-1.0/src/foo.egg-info/top_level.txt",
            "top_level.txt"
        ));
        assert!(!sdist_meta("foo-1.0/foo/PKG-INFO", "PKG-INFO"));
        assert_eq!(
            dist_info_file("foo-1.0.dist-info/RECORD", "RECORD"),
            Some("foo-1.0.dist-info")
        );
        assert_eq!(dist_info_file("foo/x.dist-info/RECORD", "RECORD"), None);
    }
}
