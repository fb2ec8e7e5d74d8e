//! The report over a batch's records: shards merged (a notebook counts once: the last record
//! of each path and content hash wins), then the measurements of the executability study
//! counted. [`Report`] holds them typed, for any renderer (text, Markdown, JSON, HTML, SVG);
//! [`Report::tables`] lays them out as tables.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use super::record::{Record, ReleaseFailureKind, Stage, Status, Verdict};
use crate::modernize::prefer::Mode;
use crate::names::DistName;
use crate::notebook::failure::FailureClass;

/// How many rows the ranked tables keep.
pub const TOP: usize = 10;
/// How many versions of a distribution are listed.
pub const TOP_VERSIONS: usize = 3;

/// A value and how many notebooks have it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Counted<T> {
    pub value: T,
    pub notebooks: usize,
}

/// Records merged across files: one per notebook (path and content hash).
#[derive(Debug, Default)]
pub struct Merged {
    pub records: Vec<Record>,
    /// Records read.
    pub read: usize,
    /// Records a later one of the same notebook replaced.
    pub replaced: usize,
}

/// Merges records in the order read: a later record of the same path and content hash
/// replaces an earlier one, where the earlier one stood.
pub fn merge(records: impl IntoIterator<Item = Record>) -> Merged {
    let mut out = Merged::default();
    let mut at: HashMap<(String, Option<String>), usize> = HashMap::new();
    for r in records {
        out.read += 1;
        let key = (r.path.clone(), r.sha256.clone());
        match at.get(&key) {
            Some(&i) => {
                out.records[i] = r;
                out.replaced += 1;
            }
            None => {
                at.insert(key, out.records.len());
                out.records.push(r);
            }
        }
    }
    out
}

/// Everything the report says.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    pub notebooks: usize,
    pub records_read: usize,
    pub records_replaced: usize,
    pub stages: Vec<Counted<Stage>>,
    pub statuses: Vec<Counted<Status>>,
    pub outcomes: Outcomes,
    pub triage: TriageSummary,
    pub executability: Vec<Bucket>,
    pub error_types: ErrorTypes,
    pub error_classes: ErrorClasses,
    pub distributions: Vec<Needed>,
    pub pythons: Vec<Counted<String>>,
    pub release_failures: Vec<ReleaseRate>,
    /// Restorations by mode, when the records say their mode (stage restore, `--prefer`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modes: Option<Modes>,
}

/// Stage restore's notebooks by the mode of the restoration kept, and how many of each ran
/// to the end after it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Modes {
    /// The modernized notebook was kept: it ran.
    pub modern: ModeCount,
    /// Restored in its era after the modernized notebook did not run to the end.
    pub era_after_modern: ModeCount,
    /// Restored in its era, nothing modern tried (`--prefer era`, or a record made before
    /// `--prefer`).
    pub era_only: ModeCount,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ModeCount {
    pub notebooks: usize,
    /// Of those, the ones that ran to the end.
    pub ran: usize,
}

/// Executable, restorable by class, pathological: over the notebooks that were run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Outcomes {
    /// Notebooks with a verdict (stages verify and restore).
    pub judged: usize,
    pub executable: usize,
    pub restorable: usize,
    pub restorable_by: Vec<Counted<FailureClass>>,
    pub pathological: usize,
    /// Stopped at an error the bank could not place as the environment's or the code's.
    pub unknown: usize,
    /// Restorable notebooks that ran to the end after repair.
    pub restored: usize,
    /// Notebooks without a verdict: not run (stages usage and infer) or not readable.
    pub not_run: usize,
}

/// Pre-flight triage over the notebooks that have one.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct TriageSummary {
    pub triaged: usize,
    pub unparseable: usize,
    pub python2: usize,
    /// Notebooks whose imports were resolved (stage infer and later) ...
    pub resolved: usize,
    /// ... and of those, the ones with an import nothing provides.
    pub unresolved_imports: usize,
    pub missing_local_modules: usize,
    pub reading_files: usize,
    pub missing_data_files: usize,
    pub network: usize,
    pub stored_errors: usize,
    /// Notebooks with a stored error of each class.
    pub stored_error_classes: Vec<Counted<FailureClass>>,
    /// None of the above stands in the way: parseable, Python 3, no missing module or
    /// data file, no unresolved import (when resolved), no network use.
    pub no_static_blocker: usize,
}

/// Notebooks whose executability falls in `[from, to)` (`to` included for the last bucket,
/// `0%` and `100%` on their own).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Bucket {
    pub label: String,
    pub from: f64,
    pub to: f64,
    pub before: usize,
    pub after: usize,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ErrorTypes {
    /// Errors stored in the notebooks' outputs.
    pub stored: Vec<ErrorCount>,
    /// The first run's first error.
    pub before: Vec<ErrorCount>,
    /// The first error in nbenv's environment after its last round (verify: its one run).
    pub after: Vec<ErrorCount>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ErrorCount {
    /// The exception type, or the cause when nothing was raised.
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub class: Option<FailureClass>,
    pub notebooks: usize,
}

/// Notebooks by the class of the error they stop at, before restore and after: every class
/// counted (the error-type tables keep only the top types), for the chart of classes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ErrorClasses {
    /// Notebooks run before restore (stages verify and restore) ...
    pub runs_before: usize,
    /// ... and of those, the ones that ran to the end.
    pub ran_to_end_before: usize,
    /// Notebooks run after restore (stage restore) ...
    pub runs_after: usize,
    /// ... and of those, the ones that ran to the end.
    pub ran_to_end_after: usize,
    /// The classes that occur, in [`FailureClass`] order.
    pub by_class: Vec<ClassCount>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ClassCount {
    pub class: FailureClass,
    pub before: usize,
    pub after: usize,
}

/// A distribution notebooks need, with the versions resolved most often.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Needed {
    pub dist: DistName,
    pub notebooks: usize,
    pub versions: Vec<Counted<String>>,
}

/// How often one release failed where it was installed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReleaseRate {
    pub dist: DistName,
    pub version: String,
    pub python: String,
    /// Environments built with it (verify and restore records).
    pub tried: usize,
    pub install_failures: usize,
    pub import_failures: usize,
    pub rate: f64,
}

impl Report {
    /// Counts over merged records.
    pub fn of(merged: &Merged) -> Report {
        let records = &merged.records;
        Report {
            notebooks: records.len(),
            records_read: merged.read,
            records_replaced: merged.replaced,
            stages: ranked(records.iter().map(|r| r.stage)),
            statuses: ranked(records.iter().map(|r| r.status)),
            outcomes: outcomes(records),
            triage: triage_summary(records),
            executability: buckets(records),
            error_types: error_types(records),
            error_classes: error_classes(records),
            distributions: distributions(records),
            pythons: ranked(
                records
                    .iter()
                    .filter_map(|r| r.environment.as_ref())
                    .map(|e| e.python.to_string()),
            ),
            release_failures: release_failures(records),
            modes: modes(records),
        }
    }
}

/// Stage restore's records by mode; `None` when none says its mode (records made before
/// `--prefer`: the report stays as it was).
fn modes(records: &[Record]) -> Option<Modes> {
    let restored: Vec<&Record> = records
        .iter()
        .filter(|r| r.stage == Stage::Restore)
        .collect();
    if !restored.iter().any(|r| r.mode.is_some()) {
        return None;
    }
    let mut m = Modes::default();
    for r in restored {
        let count = match (r.mode, &r.modern) {
            (Some(Mode::Modern), _) => &mut m.modern,
            (_, Some(_)) => &mut m.era_after_modern,
            (_, None) => &mut m.era_only,
        };
        count.notebooks += 1;
        if r.executability_after.is_some_and(|e| e.complete()) {
            count.ran += 1;
        }
    }
    Some(m)
}

/// Values by how many have them, most first, then by value.
fn ranked<T: Ord + Clone>(values: impl Iterator<Item = T>) -> Vec<Counted<T>> {
    let mut counts: BTreeMap<T, usize> = BTreeMap::new();
    for v in values {
        *counts.entry(v).or_default() += 1;
    }
    let mut out: Vec<Counted<T>> = counts
        .into_iter()
        .map(|(value, notebooks)| Counted { value, notebooks })
        .collect();
    out.sort_by(|a, b| b.notebooks.cmp(&a.notebooks).then(a.value.cmp(&b.value)));
    out
}

fn outcomes(records: &[Record]) -> Outcomes {
    let mut o = Outcomes::default();
    let mut by = Vec::new();
    for r in records {
        match r.verdict {
            None => o.not_run += 1,
            Some(Verdict::Executable) => o.executable += 1,
            Some(Verdict::Pathological) => o.pathological += 1,
            Some(Verdict::Unknown) => o.unknown += 1,
            Some(Verdict::Restorable { by: class }) => {
                o.restorable += 1;
                by.push(class);
                if r.executability_after.is_some_and(|e| e.complete()) {
                    o.restored += 1;
                }
            }
        }
    }
    o.judged = o.executable + o.restorable + o.pathological + o.unknown;
    o.restorable_by = ranked(by.into_iter());
    o
}

fn triage_summary(records: &[Record]) -> TriageSummary {
    let mut s = TriageSummary::default();
    let mut classes = Vec::new();
    for t in records.iter().filter_map(|r| r.triage.as_ref()) {
        s.triaged += 1;
        let unresolved = t.unresolved_imports.as_ref().map(|u| !u.is_empty());
        if unresolved.is_some() {
            s.resolved += 1;
        }
        let missing_files = t.missing_data_files().next().is_some();
        let flags = [
            (!t.parseable, &mut s.unparseable),
            (t.python2, &mut s.python2),
            (unresolved == Some(true), &mut s.unresolved_imports),
            (
                !t.local_modules_missing.is_empty(),
                &mut s.missing_local_modules,
            ),
            (!t.data_files.is_empty(), &mut s.reading_files),
            (missing_files, &mut s.missing_data_files),
            (!t.network.is_empty(), &mut s.network),
            (!t.stored_errors.is_empty(), &mut s.stored_errors),
        ];
        for (set, count) in flags {
            if set {
                *count += 1;
            }
        }
        let blocked = !t.parseable
            || t.python2
            || unresolved == Some(true)
            || !t.local_modules_missing.is_empty()
            || missing_files
            || !t.network.is_empty();
        if !blocked {
            s.no_static_blocker += 1;
        }
        let mut mine: Vec<FailureClass> = t.stored_errors.iter().filter_map(|e| e.class).collect();
        mine.sort();
        mine.dedup();
        classes.extend(mine);
    }
    s.stored_error_classes = ranked(classes.into_iter());
    s
}

/// `0%`, ten deciles of the rest, `100%`.
fn buckets(records: &[Record]) -> Vec<Bucket> {
    let mut out = vec![Bucket {
        label: "0%".into(),
        from: 0.0,
        to: 0.0,
        before: 0,
        after: 0,
    }];
    for d in 0..10 {
        out.push(Bucket {
            label: format!("{}–{}%", d * 10, (d + 1) * 10),
            from: f64::from(d) / 10.0,
            to: f64::from(d + 1) / 10.0,
            before: 0,
            after: 0,
        });
    }
    out.push(Bucket {
        label: "100%".into(),
        from: 1.0,
        to: 1.0,
        before: 0,
        after: 0,
    });
    let index = |share: f64| -> usize {
        if share <= 0.0 {
            0
        } else if share >= 1.0 {
            11
        } else {
            1 + ((share * 10.0).floor() as usize).min(9)
        }
    };
    for r in records {
        if let Some(e) = &r.executability_before {
            out[index(e.share())].before += 1;
        }
        if let Some(e) = &r.executability_after {
            out[index(e.share())].after += 1;
        }
    }
    out
}

fn error_types(records: &[Record]) -> ErrorTypes {
    let top = |found: Vec<(String, Option<FailureClass>)>| -> Vec<ErrorCount> {
        let mut classes: HashMap<String, Option<FailureClass>> = HashMap::new();
        for (name, class) in &found {
            let c = classes.entry(name.clone()).or_insert(*class);
            if c.is_none() {
                *c = *class;
            }
        }
        ranked(found.into_iter().map(|(name, _)| name))
            .into_iter()
            .take(TOP)
            .map(|c| ErrorCount {
                class: classes.get(&c.value).copied().flatten(),
                name: c.value,
                notebooks: c.notebooks,
            })
            .collect()
    };
    let mut stored = Vec::new();
    for t in records.iter().filter_map(|r| r.triage.as_ref()) {
        let mut seen: Vec<&str> = Vec::new();
        for e in &t.stored_errors {
            if !seen.contains(&e.ename.as_str()) {
                seen.push(&e.ename);
                stored.push((e.ename.clone(), e.class));
            }
        }
    }
    let before = records
        .iter()
        .filter_map(|r| r.first_error.as_ref())
        .map(|e| (e.type_name().to_string(), Some(e.class)))
        .collect();
    let after = records
        .iter()
        .filter(|r| r.after_measured())
        .filter_map(|r| r.error_after())
        .map(|e| (e.type_name().to_string(), Some(e.class)))
        .collect();
    ErrorTypes {
        stored: top(stored),
        before: top(before),
        after: top(after),
    }
}

/// Before: the first run's first error, over the notebooks run; after: the error still
/// stopped at after the last round, over the notebooks restored (as [`error_types`] counts).
fn error_classes(records: &[Record]) -> ErrorClasses {
    let mut out = ErrorClasses::default();
    let mut by: BTreeMap<FailureClass, (usize, usize)> = BTreeMap::new();
    for r in records {
        if r.executability_before.is_some() {
            out.runs_before += 1;
            match &r.first_error {
                Some(e) => by.entry(e.class).or_default().0 += 1,
                None => out.ran_to_end_before += 1,
            }
        }
        if r.after_measured() {
            out.runs_after += 1;
            match r.error_after() {
                Some(e) => by.entry(e.class).or_default().1 += 1,
                None => out.ran_to_end_after += 1,
            }
        }
    }
    out.by_class = by
        .into_iter()
        .map(|(class, (before, after))| ClassCount {
            class,
            before,
            after,
        })
        .collect();
    out
}

fn distributions(records: &[Record]) -> Vec<Needed> {
    let mut by_dist: BTreeMap<&DistName, Vec<String>> = BTreeMap::new();
    for e in records.iter().filter_map(|r| r.environment.as_ref()) {
        for req in &e.requirements {
            by_dist
                .entry(&req.dist)
                .or_default()
                .push(req.version.to_string());
        }
    }
    let mut out: Vec<Needed> = by_dist
        .into_iter()
        .map(|(dist, versions)| Needed {
            dist: dist.clone(),
            notebooks: versions.len(),
            versions: ranked(versions.into_iter())
                .into_iter()
                .take(TOP_VERSIONS)
                .collect(),
        })
        .collect();
    out.sort_by(|a, b| b.notebooks.cmp(&a.notebooks).then(a.dist.cmp(&b.dist)));
    out.truncate(TOP);
    out
}

fn release_failures(records: &[Record]) -> Vec<ReleaseRate> {
    type Key = (DistName, String, String);
    // (tried, install failures, import failures)
    let mut counts: BTreeMap<Key, (usize, usize, usize)> = BTreeMap::new();
    for r in records
        .iter()
        .filter(|r| matches!(r.stage, Stage::Verify | Stage::Restore))
    {
        let Some(env) = &r.environment else {
            continue;
        };
        let python = env.python.to_string();
        for req in env.requirements.iter().chain(&env.dependencies) {
            let key = (req.dist.clone(), req.version.to_string(), python.clone());
            counts.entry(key).or_default().0 += 1;
        }
        for f in r.release_failures.iter().flatten() {
            let key = (f.dist.clone(), f.version.to_string(), f.python.to_string());
            let c = counts.entry(key).or_default();
            match f.kind {
                ReleaseFailureKind::Install => c.1 += 1,
                ReleaseFailureKind::Import => c.2 += 1,
            }
            // A release that failed was tried, whether or not the environment listed it.
            c.0 = c.0.max(c.1 + c.2);
        }
    }
    let mut out: Vec<ReleaseRate> = counts
        .into_iter()
        .filter(|(_, (_, install, import))| install + import > 0)
        .map(
            |((dist, version, python), (tried, install, import))| ReleaseRate {
                rate: (install + import) as f64 / tried as f64,
                dist,
                version,
                python,
                tried,
                install_failures: install,
                import_failures: import,
            },
        )
        .collect();
    out.sort_by(|a, b| {
        let failed = |r: &ReleaseRate| r.install_failures + r.import_failures;
        failed(b)
            .cmp(&failed(a))
            .then(b.rate.total_cmp(&a.rate))
            .then(a.dist.cmp(&b.dist))
            .then(a.version.cmp(&b.version))
    });
    out.truncate(TOP);
    out
}
