//! Indexing one release: list its archive, summarize the source files not seen before, run
//! the import flow, and collect import names and Requires-Dist.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use crate::bank::extract::{
    summarize_bytes, ArchiveKind, FileSummary, Record, ReleaseLayout, Sha256, SUMMARY_VERSION,
};
use crate::bank::flow::{self, ReleaseApis, ReleaseInput};
use crate::bank::store::{SourceCounts, SummaryStore};
use crate::pypi::{
    CoreMetadata, DistFile, FileKind, IndexClient, RequiresPython, SourceClass, Transfer,
};

use super::analysis_slots::{AnalysisSlot, AnalysisSlots};
use super::error::IndexError;
use super::summary_cache::SummaryCache;

/// What indexing one release produced, ready for the store.
#[derive(Debug)]
pub struct ReleaseOutcome {
    pub apis: ReleaseApis,
    pub import_names: Vec<String>,
    pub requires_dist: Vec<String>,
    pub requires_python: RequiresPython,
    /// The distribution's name as the file's metadata spells it.
    pub name: Option<String>,
    pub content: Content,
    pub counts: SourceCounts,
    /// Summaries parsed for this release, shared with the build's cache rather than copied.
    pub new_summaries: Vec<(Sha256, Arc<FileSummary>)>,
    pub transfer: Transfer,
    /// The build's slot this release holds until it is written ([`AnalysisSlots`]).
    pub slot: Option<AnalysisSlot>,
}

/// What kind of code a file holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Content {
    /// Python sources (or stubs) of importable modules.
    Sources,
    /// Compiled extension modules only.
    CompiledOnly,
    /// No module, only requirements on other distributions (named here): a meta wheel or a
    /// metapackage, whose code is elsewhere.
    Meta(Vec<String>),
    /// Python files, none of them in a layout read as importable modules.
    UnrecognizedLayout,
    /// Nothing at all.
    Empty,
}

impl Content {
    fn of(layout: &ReleaseLayout, python_files: usize, requires_dist: &[String]) -> Self {
        let modules = layout.modules();
        if layout.sources().next().is_some() {
            return Content::Sources;
        }
        if modules
            .iter()
            .any(|m| matches!(m.source, crate::bank::extract::LayoutSource::Opaque { .. }))
        {
            return Content::CompiledOnly;
        }
        if python_files > 0 {
            return Content::UnrecognizedLayout;
        }
        let required: Vec<String> = requires_dist
            .iter()
            .filter_map(|r| requirement_name(r))
            .collect();
        if required.is_empty() {
            Content::Empty
        } else {
            Content::Meta(required)
        }
    }
}

/// The distribution a Requires-Dist line names (`tensorflow-intel ==2.15.0 ; ...`).
fn requirement_name(line: &str) -> Option<String> {
    line.parse::<crate::pypi::RequiresDist>()
        .ok()
        .map(|r| r.requirement.name.to_string())
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

/// Source files larger than this are not parsed: they are generated data tables (spacy's
/// lemma lookups, tens of MB), whose syntax trees took hundreds of MB in a worker, and their
/// modules are read as opaque, so that what they hold is unknown rather than absent. The
/// largest API files seen (TensorFlow's generated ops) are under 2 MB.
const MAX_SOURCE_BYTES: usize = 4 << 20;

/// Files tried per release before its code is taken to be elsewhere (a metapackage).
const MAX_FILES_TRIED: usize = 3;

/// Files checked for Requires-Dist of their own, per release.
const MAX_FILES_CHECKED: usize = 12;

/// A release indexed from the best of its files.
#[derive(Debug)]
pub struct IndexedFile {
    /// The file the sources were read from.
    pub file: DistFile,
    pub outcome: ReleaseOutcome,
    /// Other files of the release whose Requires-Dist differs from the indexed file's.
    pub file_requires_dist: Vec<(String, Vec<String>)>,
}

/// Indexes a release from `candidates`, its files best first
/// ([`crate::pypi::Release::source_candidates`]). A file that holds no module but requires
/// other distributions (TensorFlow's Windows wheels, which hold nothing but a requirement on
/// `tensorflow-intel`) is passed over for a file of another kind; the release is a metapackage
/// only if those hold no code either. Requires-Dist comes from the file indexed; files far
/// smaller than it, likely meta wheels, are checked for Requires-Dist of their own.
pub fn index_release_files(
    client: &IndexClient,
    summaries: &SummaryStore,
    shared: &SummaryCache,
    slots: &AnalysisSlots,
    candidates: &[DistFile],
) -> Result<IndexedFile, IndexError> {
    let mut tried = 0;
    let mut passed_over: Vec<SourceClass> = Vec::new();
    let mut last = None;
    for file in candidates {
        let class = SourceClass::of(file);
        if passed_over.contains(&class) {
            continue;
        }
        // A file passed over gives its slot back before the next is read: holding it while
        // waiting for another could leave every worker waiting.
        if let Some((_, passed)) = &mut last {
            let passed: &mut ReleaseOutcome = passed;
            passed.slot = None;
        }
        let outcome = index_release(client, summaries, shared, slots, file)?;
        tried += 1;
        let is_meta = matches!(outcome.content, Content::Meta(_));
        last = Some((file, outcome));
        if !is_meta || tried >= MAX_FILES_TRIED {
            break;
        }
        passed_over.push(class);
    }
    let Some((file, outcome)) = last else {
        return Err(IndexError::NoFile);
    };
    let file_requires_dist = own_requirements(client, file, &outcome.requires_dist, candidates);
    Ok(IndexedFile {
        file: file.clone(),
        outcome,
        file_requires_dist,
    })
}

/// The Requires-Dist of the release's much smaller wheels where it differs from `indexed`'s.
/// Files whose metadata cannot be read are left out: they change nothing that is stored.
fn own_requirements(
    client: &IndexClient,
    indexed: &DistFile,
    requires_dist: &[String],
    candidates: &[DistFile],
) -> Vec<(String, Vec<String>)> {
    let Some(size) = indexed.size else {
        return Vec::new();
    };
    let ours: BTreeSet<&str> = requires_dist.iter().map(String::as_str).collect();
    candidates
        .iter()
        .filter(|f| checked_beside(f, indexed, size))
        .take(MAX_FILES_CHECKED)
        .filter_map(|f| {
            let (meta, _) = client.core_metadata(f).ok()?;
            let theirs: BTreeSet<&str> = meta.requires_dist.iter().map(String::as_str).collect();
            (theirs != ours).then(|| (f.filename.clone(), meta.requires_dist.clone()))
        })
        .collect()
}

/// Whether `file` is a wheel so much smaller than `indexed` (of `size` bytes) that it is likely
/// a meta wheel, whose Requires-Dist is checked apart.
fn checked_beside(file: &DistFile, indexed: &DistFile, size: u64) -> bool {
    file.is_wheel()
        && file.filename != indexed.filename
        && file.size.is_some_and(|s| s.saturating_mul(20) < size)
}

/// The files of `candidates` (best first) that [`index_release_files`] can use, in their
/// order: the first of each [`SourceClass`], the only ones it may index, and the small wheels
/// checked beside each of them. A build queues every release of the list before it starts, so
/// a release of TensorFlow would otherwise hold its 30 to 60 files until its turn comes.
pub fn usable_files(candidates: Vec<DistFile>) -> Vec<DistFile> {
    let mut firsts: Vec<usize> = Vec::new();
    let mut classes: Vec<SourceClass> = Vec::new();
    for (i, f) in candidates.iter().enumerate() {
        let class = SourceClass::of(f);
        if !classes.contains(&class) {
            classes.push(class);
            firsts.push(i);
        }
    }
    let mut keep = vec![false; candidates.len()];
    for &i in &firsts {
        keep[i] = true;
        let indexed = &candidates[i];
        let Some(size) = indexed.size else { continue };
        candidates
            .iter()
            .enumerate()
            .filter(|(_, f)| checked_beside(f, indexed, size))
            .take(MAX_FILES_CHECKED)
            .for_each(|(j, _)| keep[j] = true);
    }
    candidates
        .into_iter()
        .zip(keep)
        .filter_map(|(f, k)| k.then_some(f))
        .collect()
}

/// Indexes one release from `file`.
pub fn index_release(
    client: &IndexClient,
    summaries: &SummaryStore,
    shared: &SummaryCache,
    slots: &AnalysisSlots,
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
    let python_files = entries.iter().filter(|e| is_source(&e.name)).count();
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
    }
    // Nothing else is read from the metadata members; an sdist's sources move out of them.
    for m in first {
        if !is_wheel && is_source(&m.name) {
            hashes.insert(m.name.clone(), Sha256::of(&m.data));
            fetched.insert(m.name, m.data);
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
        let too_large: HashSet<&str> = entries
            .iter()
            .filter(|e| e.size > MAX_SOURCE_BYTES as u64)
            .map(|e| e.name.as_str())
            .collect();
        let missing: HashSet<&str> = sources
            .iter()
            .filter(|(p, stub)| !known(p, *stub) && !too_large.contains(p.as_str()))
            .map(|(p, _)| p.as_str())
            .collect();
        if !missing.is_empty() {
            for m in reader.read(&|n: &str| missing.contains(n))? {
                fetched.insert(m.name, m.data);
            }
        }
    }

    // Downloads are done: what follows costs memory until the release is written.
    let slot = slots.acquire();
    let mut counts = SourceCounts {
        source_files: sources.len() as u32,
        ..SourceCounts::default()
    };
    let mut new_summaries: Vec<(Sha256, Arc<FileSummary>)> = Vec::new();
    let mut summary_by_path: HashMap<&str, Sha256> = HashMap::new();
    for (path, is_stub) in &sources {
        // Each file's bytes are dropped once summarized: only summaries are needed from here.
        let key = match (hashes.get(path), fetched.remove(path.as_str())) {
            (Some(h), _) if cached.contains_key(&summary_key(h, *is_stub)) => {
                summary_key(h, *is_stub)
            }
            // Past the limit: a data table, read as opaque (what it holds is unknown).
            (_, Some(data)) if data.len() > MAX_SOURCE_BYTES => continue,
            (_, Some(data)) => {
                let key = summary_key(&Sha256::of(&data), *is_stub);
                if let std::collections::hash_map::Entry::Vacant(slot) = cached.entry(key) {
                    let (summary, parsed_here) =
                        shared.get_or_compute(key, || summarize_bytes(&data, *is_stub));
                    if parsed_here {
                        counts.parsed_files += 1;
                        new_summaries.push((key, summary.clone()));
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

    drop(fetched);
    let mut input = ReleaseInput::from_layout(&layout, |path| {
        summary_by_path
            .get(path)
            .and_then(|h| cached.get(h))
            .map(|s| &**s)
    });
    input.python2(runs_on_python2(file, metadata.as_ref()));
    let apis = crate::timings::time(crate::timings::Stage::Flow, || flow::analyze(&input));

    let import_names = import_names(top_level.as_deref(), &layout);
    let (requires_dist, requires_python, name) = match metadata {
        Some(m) => (m.requires_dist, m.requires_python, Some(m.name_as_written)),
        None => (Vec::new(), RequiresPython::Any, None),
    };
    let content = Content::of(&layout, python_files, &requires_dist);
    Ok(ReleaseOutcome {
        apis,
        import_names,
        requires_dist,
        requires_python,
        name: name.filter(|n| !n.is_empty()),
        content,
        counts,
        new_summaries,
        transfer: reader.transfer(),
        slot: Some(slot),
    })
}

/// Whether the file's code runs on Python 2, so that its imports follow Python 2's rules where
/// a file does not opt out: a wheel tagged for Python 2, or an sdist whose Requires-Python
/// does not exclude 2.7 (or that has none, as sdists before 2016 mostly do not).
fn runs_on_python2(file: &DistFile, metadata: Option<&CoreMetadata>) -> bool {
    match &file.kind {
        FileKind::Wheel { tags, .. } => tags
            .python
            .iter()
            .any(|t| t.starts_with("py2") || t.starts_with("cp2")),
        FileKind::Sdist { .. } => {
            // An unreadable Requires-Python is taken as excluding 2.7, as it always was.
            match metadata.map(|m| &m.requires_python) {
                None | Some(RequiresPython::Any) => true,
                Some(r) => r
                    .specifiers()
                    .is_some_and(|s| s.contains(&crate::pypi::Version::new([2, 7]))),
            }
        }
    }
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
    use crate::pypi::{DistFilename, MetadataHint};

    fn file(name: &str, size: u64) -> DistFile {
        let parsed = DistFilename::parse(name, &"tf".parse().unwrap()).unwrap();
        DistFile {
            filename: name.to_string(),
            url: format!("https://example.test/{name}"),
            version: parsed.version,
            kind: parsed.kind,
            hashes: Default::default(),
            requires_python: RequiresPython::Any,
            size: Some(size),
            upload_time: None,
            yanked: None,
            core_metadata: MetadataHint::Unknown,
        }
    }

    /// What is queued keeps every file indexing could try and every meta wheel it would check,
    /// in order, and nothing else.
    #[test]
    fn usable_files_keep_what_indexing_reads() {
        let mut candidates = vec![
            file("tf-1.0-cp312-cp312-manylinux2014_x86_64.whl", 500_000_000),
            file("tf-1.0-cp311-cp311-manylinux2014_x86_64.whl", 500_000_000),
            file("tf-1.0-cp312-cp312-macosx_12_0_arm64.whl", 200_000_000),
            file("tf-1.0-cp311-cp311-macosx_12_0_arm64.whl", 200_000_000),
        ];
        for minor in 0..20 {
            candidates.push(file(
                &format!("tf-1.0-cp3{minor}-cp3{minor}-win_amd64.whl"),
                4_000,
            ));
        }
        candidates.push(file("tf-1.0.tar.gz", 1_000_000));
        let kept: Vec<String> = usable_files(candidates.clone())
            .into_iter()
            .map(|f| f.filename)
            .collect();
        let mut expected = vec![
            candidates[0].filename.clone(),
            candidates[2].filename.clone(),
        ];
        // The first twelve meta wheels: the ones checked beside the Linux or macOS wheel,
        // and, the first of their class, the one indexing may try.
        expected.extend(candidates[4..16].iter().map(|f| f.filename.clone()));
        expected.push(candidates[24].filename.clone());
        assert_eq!(kept, expected);
        // A release of one file keeps it.
        let one = vec![file("tf-1.0.tar.gz", 10)];
        assert_eq!(usable_files(one.clone()).len(), 1);
    }

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
