//! Indexing many releases of many distributions: pages fetched, releases registered, then
//! worker threads analyse releases while this thread writes each one in its own transaction.

use std::collections::{HashMap, VecDeque};
use std::path::Path;
use std::sync::mpsc;
use std::sync::Mutex;
use std::time::Instant;

use serde::Serialize;

use super::analysis_slots::AnalysisSlots;
use super::error::{FailureKind, IndexError};
use super::release_job::{index_release_files, usable_files, Content, IndexedFile, ReleaseOutcome};
use super::selection::Selection;
use super::summary_cache::{SummaryCache, BUILD_CAPACITY};
use crate::bank::store::{
    BankWriter, DistId, IndexedRelease, LockPolicy, NoSources, ReleaseId, ReleaseInfo,
    ReleaseStatus, Slot, Store, SummaryStore, EXTRACTOR_VERSION,
};
use crate::names::DistName;
use crate::pypi::{DistFile, IndexClient, Version};

/// The per-file summary cache in the cache directory. Its name carries its format's version;
/// files of other versions are left over from older nbenvs (`nbenv cache prune` removes them).
pub const SUMMARY_CACHE_FILE: &str = "summaries-v1.sqlite3";

/// One distribution to index, and which of its releases.
#[derive(Debug, Clone)]
pub struct BuildTarget {
    pub name: DistName,
    pub selection: Selection,
}

#[derive(Debug, Clone)]
pub struct BuildOptions {
    /// Worker threads fetching and analysing releases.
    pub jobs: usize,
    /// Index releases again even if the bank already has them.
    pub force: bool,
    /// What to do when another process is writing the bank.
    pub lock: LockPolicy,
}

impl Default for BuildOptions {
    fn default() -> Self {
        Self {
            jobs: 8,
            force: false,
            lock: LockPolicy::default(),
        }
    }
}

/// What a build reports as it goes; the CLI draws a progress bar from it.
pub trait BuildObserver: Sync {
    /// The number of releases queued for indexing is now known.
    fn queued(&self, _releases: usize) {}
    /// A distribution's page could not be read, or it has nothing to index.
    fn note(&self, _message: &str) {}
    /// Whether the user asked to stop: no new release is started, the ones in flight are
    /// still written.
    fn cancelled(&self) -> bool {
        crate::interrupt::requested()
    }
    /// A release finished (indexed or failed).
    fn finished(
        &self,
        _name: &DistName,
        _version: &Version,
        _result: Result<&ReleaseOutcome, &str>,
    ) {
    }
}

/// A release that could not be indexed, and why.
#[derive(Debug, Clone, Serialize)]
pub struct FailedRelease {
    pub distribution: DistName,
    /// `None` when the whole distribution failed (no page, or no release matched).
    pub version: Option<Version>,
    pub kind: FailureKind,
    pub reason: String,
}

/// What a build did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct BuildReport {
    pub distributions: usize,
    pub releases_indexed: usize,
    /// Releases already in the bank and skipped.
    pub releases_skipped: usize,
    pub failed: Vec<FailedRelease>,
    pub source_files: u64,
    pub parsed_files: u64,
    /// Bytes received from the index for archives (0 for what the cache served).
    pub bytes_fetched: u64,
    /// Full size of the archives indexed, had they been downloaded whole.
    pub archive_bytes: u64,
    pub seconds: f64,
    /// The user stopped the build; `releases_left` were not started and wait for the next run.
    pub interrupted: bool,
    pub releases_left: usize,
    /// Releases whose import flow stopped at its visit limit: their APIs may be incomplete.
    pub not_converged: Vec<(DistName, Version)>,
    /// Releases indexed from a file without Python sources, and why.
    pub sourceless: Vec<(DistName, Version, NoSources)>,
}

/// Distributions whose pages are read at once while planning.
const PAGES_AT_ONCE: usize = 32;

/// A release picked for indexing; its files are read when its distribution's turn comes.
struct PlannedRelease {
    release_id: ReleaseId,
    slot: Slot,
    version: Version,
}

/// A distribution whose picked releases are registered in the bank. Its files are not kept
/// while it waits: a full-list build plans 58,000 releases, and their file lists held from the
/// start took hundreds of MB the whole way.
struct PlannedDist {
    name: DistName,
    dist_id: DistId,
    releases: Vec<PlannedRelease>,
}

/// What workers take from: releases ready to index, then the next distribution to expand.
struct Feed {
    planned: VecDeque<PlannedDist>,
    jobs: VecDeque<Job>,
}

enum Next {
    Job(Job),
    Expand(PlannedDist),
}

impl Feed {
    fn next(&mut self) -> Option<Next> {
        if let Some(job) = self.jobs.pop_front() {
            return Some(Next::Job(job));
        }
        self.planned.pop_front().map(Next::Expand)
    }
}

/// The jobs of a planned distribution, with their files from its page (cached while
/// planning), and the releases that cannot be indexed with why: all of them when the page
/// cannot be read now, a release gone from the page since.
fn expand(client: &IndexClient, dist: PlannedDist) -> (Vec<Job>, Vec<(Job, IndexError)>) {
    let job = |r: PlannedRelease, files: Vec<DistFile>| Job {
        dist_id: dist.dist_id,
        release_id: r.release_id,
        slot: r.slot,
        name: dist.name.clone(),
        version: r.version,
        files,
    };
    let page = match client.project(&dist.name) {
        Ok(page) => page,
        Err(e) => {
            let failed = dist
                .releases
                .into_iter()
                .map(|r| {
                    let error = IndexError::Page {
                        reason: e.to_string(),
                        kind: FailureKind::of(&e),
                    };
                    (job(r, Vec::new()), error)
                })
                .collect();
            return (Vec::new(), failed);
        }
    };
    let releases = page.releases();
    let mut jobs = Vec::with_capacity(dist.releases.len());
    let mut failed = Vec::new();
    for r in dist.releases {
        let files = releases
            .iter()
            .find(|release| release.version == &r.version)
            .map(|release| usable_files(release.source_candidates().into_iter().cloned().collect()))
            .unwrap_or_default();
        if files.is_empty() {
            failed.push((job(r, Vec::new()), IndexError::NoFile));
        } else {
            jobs.push(job(r, files));
        }
    }
    (jobs, failed)
}

struct Job {
    dist_id: DistId,
    release_id: ReleaseId,
    slot: Slot,
    name: DistName,
    version: Version,
    /// The release's files, best source first.
    files: Vec<DistFile>,
}

/// One target per distribution: `numpy==1.19.5 numpy==1.24.0` is one distribution with two
/// selections.
pub fn merge_targets(targets: &[BuildTarget]) -> Vec<BuildTarget> {
    let mut merged: Vec<BuildTarget> = Vec::new();
    for t in targets {
        match merged.iter_mut().find(|m| m.name == t.name) {
            Some(m) => m.selection = std::mem::take(&mut m.selection).or(t.selection.clone()),
            None => merged.push(t.clone()),
        }
    }
    merged
}

/// Indexes `targets` into the bank at `bank_path`.
pub fn build(
    client: &IndexClient,
    bank_path: &Path,
    targets: &[BuildTarget],
    options: &BuildOptions,
    observer: &dyn BuildObserver,
) -> Result<BuildReport, IndexError> {
    let started = Instant::now();
    let mut store = Store::open_with(bank_path, options.lock.clone())?;
    let mut report = BuildReport::default();
    let merged = merge_targets(targets);
    let targets = &merged[..];

    // Pages in parallel, a few dozen at a time: they are small, and the index answers them
    // fast; each is dropped once its releases are registered and picked.
    let mut planned: VecDeque<PlannedDist> = VecDeque::new();
    for chunk in targets.chunks(PAGES_AT_ONCE) {
        let pages: Vec<_> = {
            use rayon::prelude::*;
            chunk
                .par_iter()
                .map(|t| (t, client.project(&t.name)))
                .collect()
        };
        for (target, page) in pages {
            let page = match page {
                Ok(p) => p,
                // Every other distribution would find the disk as full.
                Err(e) if e.is_disk_full() => return Err(e.into()),
                Err(e) => {
                    observer.note(&format!("{}: {e}", target.name));
                    report.failed.push(FailedRelease {
                        distribution: target.name.clone(),
                        version: None,
                        kind: FailureKind::of(&e),
                        reason: e.to_string(),
                    });
                    continue;
                }
            };
            report.distributions += 1;
            let releases = page.releases();
            let infos: Vec<ReleaseInfo> = releases
                .iter()
                .map(|r| ReleaseInfo {
                    version: r.version.clone(),
                    upload_time: r.upload_time(),
                    requires_python: r.requires_python().text().map(str::to_string),
                    yanked: r.is_yanked().then(|| {
                        r.files
                            .iter()
                            .find_map(|f| f.yanked.clone())
                            .unwrap_or_default()
                    }),
                })
                .collect();
            let (dist_id, rows) =
                store.register(&target.name, client.index_url().as_str(), &infos)?;
            let versions: Vec<&Version> = releases.iter().map(|r| r.version).collect();
            let picked = target.selection.pick(&versions);
            if picked.is_empty() {
                let reason = no_match(&target.name, &target.selection, &versions, &page.url);
                observer.note(&reason);
                report.failed.push(FailedRelease {
                    distribution: target.name.clone(),
                    version: None,
                    kind: FailureKind::NotFound,
                    reason,
                });
                continue;
            }
            let mut dist = PlannedDist {
                name: target.name.clone(),
                dist_id,
                releases: Vec::new(),
            };
            for release in releases.iter().filter(|r| picked.contains(&r.version)) {
                let row = rows
                    .iter()
                    .find(|row| &row.version == release.version)
                    .expect("registered above");
                let fresh = row.status == ReleaseStatus::Indexed
                    && row.extractor == Some(EXTRACTOR_VERSION);
                if fresh && !options.force {
                    report.releases_skipped += 1;
                    continue;
                }
                if release.source_candidates().is_empty() {
                    let reason = IndexError::NoFile.to_string();
                    store.mark_failed(row.id, &reason)?;
                    report.failed.push(FailedRelease {
                        distribution: target.name.clone(),
                        version: Some(release.version.clone()),
                        kind: FailureKind::NoFile,
                        reason,
                    });
                    continue;
                }
                dist.releases.push(PlannedRelease {
                    release_id: row.id,
                    slot: row.slot,
                    version: release.version.clone(),
                });
            }
            if !dist.releases.is_empty() {
                planned.push_back(dist);
            }
        }
    }

    let queued: usize = planned.iter().map(|d| d.releases.len()).sum();
    observer.queued(queued);
    let summaries = SummaryStore::open(&client.cache().root().join(SUMMARY_CACHE_FILE))?;
    let shared = SummaryCache::new(BUILD_CAPACITY);
    let slots = AnalysisSlots::for_build(options.jobs.max(1));
    // Releases left per distribution, to know when one is done: then its writer goes, with
    // what it cached (the distribution's APIs and sets, and the signature ids it looked up),
    // and memory freed meanwhile is handed back.
    let mut left: HashMap<DistId, usize> = HashMap::new();
    for dist in &planned {
        *left.entry(dist.dist_id).or_default() += dist.releases.len();
    }
    let feed = Mutex::new(Feed {
        planned,
        jobs: VecDeque::new(),
    });
    let workers = options.jobs.max(1);
    let mut finished_jobs = 0usize;
    std::thread::scope(|scope| -> Result<(), IndexError> {
        // One finished release waits while another is written: a transformers release is
        // 289k APIs, and each one queued here is memory the build holds for nothing.
        let (tx, rx) = mpsc::sync_channel::<(Job, Result<IndexedFile, IndexError>)>(1);
        for _ in 0..workers {
            let tx = tx.clone();
            let feed = &feed;
            let summaries = &summaries;
            let shared = &shared;
            let slots = &slots;
            // Deeply nested generated code makes ruff's parser recurse deeply: give workers
            // room (the default 2 MiB overflows on some real files in debug builds).
            let spawned = std::thread::Builder::new()
                .name("nbenv-index".into())
                .stack_size(64 << 20)
                .spawn_scoped(scope, move || loop {
                    if observer.cancelled() {
                        break;
                    }
                    let next = feed.lock().unwrap_or_else(|e| e.into_inner()).next();
                    let job = match next {
                        Some(Next::Job(job)) => job,
                        // The next distribution's files, from its page (in the HTTP cache by
                        // now): its releases join the queue, or fail together.
                        Some(Next::Expand(dist)) => {
                            let (jobs, failed) = expand(client, dist);
                            feed.lock()
                                .unwrap_or_else(|e| e.into_inner())
                                .jobs
                                .extend(jobs);
                            for (job, e) in failed {
                                if tx.send((job, Err(e))).is_err() {
                                    return;
                                }
                            }
                            continue;
                        }
                        None => break,
                    };
                    let result = index_release_files(client, summaries, shared, slots, &job.files);
                    if tx.send((job, result)).is_err() {
                        break;
                    }
                });
            if let Err(e) = spawned {
                return Err(IndexError::WorkerThread(e));
            }
        }
        drop(tx);
        let mut results = rx.into_iter().peekable();
        // One writer per distribution: workers take releases in order, distribution by
        // distribution, so when one ends the writer holds at most the next one's first few
        // releases, which a fresh writer reads back from the bank. Its signature ids would
        // otherwise grow with every distribution of a full-list build.
        while results.peek().is_some() {
            let mut writer = BankWriter::new(&mut store);
            for (job, result) in results.by_ref() {
                finished_jobs += 1;
                let last_of_dist = left.get_mut(&job.dist_id).is_some_and(|n| {
                    *n -= 1;
                    *n == 0
                });
                record(&mut writer, &summaries, observer, &mut report, job, result)?;
                if last_of_dist {
                    break;
                }
            }
            drop(writer);
            return_free_memory();
        }
        Ok(())
    })?;
    report.releases_left = queued.saturating_sub(finished_jobs);
    report.interrupted = observer.cancelled() && report.releases_left > 0;
    report.seconds = started.elapsed().as_secs_f64();
    Ok(report)
}

/// Hands memory that is free back to the system. glibc keeps what threads free in per-thread
/// arenas: on a full-list build, eight workers each holding archives, sources and summaries
/// for a while left 2.1 GB resident with 0.8 GB in use. Trimming once per distribution costs
/// milliseconds.
fn return_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free pages of the allocator's arenas to the kernel.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Writes one finished release into the bank, or records why it failed.
fn record(
    writer: &mut BankWriter<'_>,
    summaries: &SummaryStore,
    observer: &dyn BuildObserver,
    report: &mut BuildReport,
    job: Job,
    result: Result<IndexedFile, IndexError>,
) -> Result<(), IndexError> {
    match result {
        Ok(indexed) => {
            let outcome = &indexed.outcome;
            writer.write_release(&IndexedRelease {
                dist_id: job.dist_id,
                release_id: job.release_id,
                slot: job.slot,
                file_name: &indexed.file.filename,
                file_sha256: indexed.file.sha256(),
                apis: &outcome.apis,
                import_names: &outcome.import_names,
                requires_dist: &outcome.requires_dist,
                file_requires_dist: &indexed.file_requires_dist,
                requires_python: outcome.requires_python.text(),
                no_sources: no_sources(&outcome.content),
                display_name: outcome.name.as_deref(),
                counts: outcome.counts,
            })?;
            // A cache: losing a write only costs parsing again, unless its disk is full.
            match summaries.put(&outcome.new_summaries) {
                Err(e) if e.is_disk_full() => return Err(e.into()),
                Err(e) => observer.note(&format!("summary cache: {e}")),
                Ok(()) => {}
            }
            report.releases_indexed += 1;
            if !outcome.apis.stats.converged {
                report
                    .not_converged
                    .push((job.name.clone(), job.version.clone()));
            }
            if let Some((reason, _)) = no_sources(&outcome.content) {
                report
                    .sourceless
                    .push((job.name.clone(), job.version.clone(), reason));
            }
            report.source_files += u64::from(outcome.counts.source_files);
            report.parsed_files += u64::from(outcome.counts.parsed_files);
            report.bytes_fetched += outcome.transfer.bytes_fetched;
            report.archive_bytes += outcome.transfer.archive_size;
            observer.finished(&job.name, &job.version, Ok(outcome));
        }
        // Not a failure of this release: it stays to be indexed, and the build stops, since
        // every release after it would find the disk as full.
        Err(e) if e.kind() == FailureKind::DiskFull => return Err(e),
        Err(e) => {
            let reason = match job.files.first() {
                Some(file) => format!("{}: {e}", file.filename),
                None => e.to_string(),
            };
            writer.store().mark_failed(job.release_id, &reason)?;
            observer.finished(&job.name, &job.version, Err(&reason));
            report.failed.push(FailedRelease {
                distribution: job.name.clone(),
                version: Some(job.version.clone()),
                kind: e.kind(),
                reason,
            });
        }
    }
    Ok(())
}

/// What the store records for a file without Python sources.
fn no_sources(content: &Content) -> Option<(NoSources, String)> {
    match content {
        Content::Sources => None,
        Content::CompiledOnly => Some((NoSources::CompiledOnly, String::new())),
        Content::Meta(required) => Some((NoSources::Metapackage, required.join(", "))),
        Content::UnrecognizedLayout => Some((NoSources::UnrecognizedLayout, String::new())),
        Content::Empty => Some((NoSources::Empty, String::new())),
    }
}

/// Why nothing of `name` was picked: the selection and the newest releases there are, as
/// `nbenv index files` says it.
fn no_match(name: &DistName, selection: &Selection, versions: &[&Version], url: &str) -> String {
    let latest: Vec<String> = versions
        .iter()
        .rev()
        .take(5)
        .map(|v| v.to_string())
        .collect();
    let latest = if latest.is_empty() {
        "it has no releases".to_string()
    } else {
        format!("latest: {}", latest.join(", "))
    };
    format!("`{name}` has no release matching {selection} on {url} ({latest})")
}
