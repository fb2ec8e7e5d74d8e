//! A run that repairs forward. The bank cannot see every removal (a member served by
//! `__getattr__`, a release not indexed yet, a method on a value the code's tracing cannot
//! place); the modernized notebook's run can. When it stops at an API the installed release
//! lacks, that API is [`Met`]: absent from that release, whatever the bank said
//! ([`absent_where_met`]). The releases around its removal are indexed, the installed
//! release's change notes read, and the notebook is modernized again from its original code
//! with everything the runs met ([`forward`]). When that writes a successor for what the run
//! met, the next round runs the new code on the same releases; otherwise the rounds go on as
//! `restore`'s (the era pin of the API, named in the report).

use std::collections::BTreeSet;

use pep440_rs::Version;
use serde::Serialize;

use super::prepare::{prepare, read_notes, BankWork, PrepareError, PREPARE_ROUNDS};
use super::{modernize, Facts, ModernizeError, Modernized};
use crate::bank::store::{ApiReport, Store, StoreError, VersionRun};
use crate::names::{ApiPath, DistName};
use crate::notebook::failure::{Cause, Failure};
use crate::notebook::{AnalyzeOptions, ApiUse, Location, Notebook, Origin, Usage};
use crate::verify::Lesson;

/// An API a run of the modernized notebook stopped at, which the installed release lacked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Met {
    pub api: ApiPath,
    pub distribution: DistName,
    pub version: Version,
    /// The cell whose code used it (the innermost notebook frame's), and the round.
    pub cell: u32,
    pub round: u32,
    /// Whether the code was moved past it (a successor written).
    pub moved: bool,
}

/// The APIs `failure` shows missing, as `lessons` name them with the release that lacked
/// them. Only a missing name counts (`cannot import name`, `has no attribute`, a missing
/// submodule): a call a release takes otherwise is not a removal.
pub fn met(failure: &Failure, lessons: &[Lesson], round: u32) -> Vec<Met> {
    let missing = match &failure.cause {
        Cause::MissingApi { api, .. } => Some(api),
        Cause::MissingMember { api: Some(api), .. } => Some(api),
        Cause::MissingModule { .. } => None,
        _ => return Vec::new(),
    };
    // Where the name was used: the innermost notebook frame (a function defined in an
    // earlier cell), else the cell that ran.
    let used_in = failure.frame.as_ref().and_then(|f| f.cell);
    lessons
        .iter()
        .filter_map(|l| match l {
            Lesson::Api {
                api,
                cell,
                lacked_by: Some((dist, version)),
            } if missing.is_none_or(|m| m == api) => Some(Met {
                api: api.clone(),
                distribution: dist.clone(),
                version: version.clone(),
                cell: used_in.unwrap_or(*cell),
                round,
                moved: false,
            }),
            _ => None,
        })
        .collect()
}

/// Whether the notebook's own code uses what `m` names: an API of its uses (or one under
/// it: a name imported from a missing module), or a member of that name called in the cell
/// it was met in. A name a library's code lacks (an old jinja2 importing
/// `markupsafe.soft_unicode`) is that library's, and no rewrite of the notebook reaches it.
pub fn used_by(usage: &Usage, m: &Met) -> bool {
    usage.apis.iter().any(|u| within(&u.api, &m.api)) || !members_met(usage, m).is_empty()
}

/// Whether `api` is `of` or lies under it (a name of a module, a member of a class).
fn within(api: &ApiPath, of: &ApiPath) -> bool {
    api == of
        || api
            .as_str()
            .strip_prefix(of.as_str())
            .is_some_and(|rest| rest.starts_with('.'))
}

/// The code's uses of a member named as `m`'s last part, in the cell `m` was met in.
fn members_met<'u>(usage: &'u Usage, m: &Met) -> Vec<&'u crate::notebook::MemberUse> {
    let Some((_, member)) = m.api.split_last() else {
        return Vec::new();
    };
    usage
        .members
        .iter()
        .filter(|u| u.member == member && u.locations.iter().any(|l| l.cell == m.cell))
        .collect()
}

/// `reports` of `api` with the runs' word over the bank's: a release a run showed lacking
/// the API is absent, whatever static reading or introspection said of it, and the newest
/// indexed release is at least that one.
pub fn absent_where_met(reports: &mut [ApiReport], api: &ApiPath, met: &[Met]) {
    // What a missing module or class holds is missing with it.
    for m in met.iter().filter(|m| within(api, &m.api)) {
        for r in reports
            .iter_mut()
            .filter(|r| r.distribution == m.distribution)
        {
            let v = &m.version;
            r.present = without(&r.present, v);
            r.unknown = without(&r.unknown, v);
            r.not_indexed.retain(|x| x != v);
            if !VersionRun::any_contains(&r.absent, v) {
                r.absent.push(VersionRun {
                    first: v.clone(),
                    last: v.clone(),
                });
                r.absent.sort_by(|a, b| a.first.cmp(&b.first));
            }
            if r.latest_indexed.as_ref().is_none_or(|l| l < v) {
                r.latest_indexed = Some(v.clone());
            }
            r.last = r.present.last().map(|run| run.last.clone());
        }
    }
}

/// `runs` without the one release `v` (a run holding only it is dropped; one it ends or
/// starts is cut short; one it lies inside is cut there, the release itself set apart).
fn without(runs: &[VersionRun], v: &Version) -> Vec<VersionRun> {
    let mut out = Vec::new();
    for r in runs {
        if !r.contains(v) {
            out.push(r.clone());
            continue;
        }
        // The run's bounds are releases; what lies between is not known here, so the part
        // before `v` ends at its first release and the part after starts at its last.
        if &r.first < v {
            out.push(VersionRun {
                first: r.first.clone(),
                last: r.first.clone(),
            });
        }
        if &r.last > v {
            out.push(VersionRun {
                first: r.last.clone(),
                last: r.last.clone(),
            });
        }
    }
    out
}

/// Uses a run placed: a method the run met (`pandas.DataFrame.as_matrix`, in cell 4) that
/// the code calls there on a value its tracing could not place (`X.as_matrix()`, `X` a
/// parameter). The use is where the run met it: the member's places in that cell.
pub fn placed_by_runs(usage: &Usage, uses: &[ApiUse], met: &[Met]) -> Vec<ApiUse> {
    let mut out: Vec<ApiUse> = Vec::new();
    for m in met {
        if uses.iter().chain(&out).any(|u| u.api == m.api) {
            continue;
        }
        let at = members_met(usage, m);
        if at.is_empty() {
            continue;
        }
        let locations: BTreeSet<Location> = at
            .iter()
            .flat_map(|u| u.locations.iter().copied().filter(|l| l.cell == m.cell))
            .collect();
        let keywords: BTreeSet<String> = at.iter().flat_map(|u| u.keywords.clone()).collect();
        out.push(ApiUse {
            api: m.api.clone(),
            origin: Origin::ThirdParty,
            count: locations.len() as u32,
            kinds: Vec::new(),
            keywords: keywords.into_iter().collect(),
            locations: locations.into_iter().collect(),
        });
    }
    out
}

/// The notebook a modern restoration moves forward: its original code, modernized again with
/// each run's word.
#[derive(Clone)]
pub struct ForwardFrom<'a> {
    pub original: &'a Notebook,
    pub bytes: &'a [u8],
    /// How the notebook's code is read (as the rounds read it).
    pub analyze: &'a AnalyzeOptions,
    /// The modernized notebook's name, for the diff.
    pub name: String,
    /// Whether the rounds run the candidates (successors only a warning or a note names);
    /// a candidate for an API a run met is written either way: the next run is its trial.
    pub candidates: bool,
    /// The notebook's local modules as modernized: they move with it as they did.
    pub modules: &'a [super::ModernModule],
}

#[derive(Debug, thiserror::Error)]
pub enum ForwardError {
    #[error(transparent)]
    Prepare(#[from] PrepareError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Modernize(#[from] ModernizeError),
}

/// What one step forward made of the APIs runs met.
#[derive(Debug)]
pub struct Forwarded {
    /// The notebook modernized again with everything the runs met.
    pub modernized: Modernized,
    /// Every API met so far, `moved` set on those a successor was written for.
    pub met: Vec<Met>,
}

impl Forwarded {
    /// Whether a successor was written for something met in `round`: the code changed.
    pub fn moved_in(&self, round: u32) -> bool {
        self.met.iter().any(|m| m.round == round && m.moved)
    }
}

/// Readies the bank for `new` (the APIs the last run met), then modernizes the original
/// notebook with all of `met` (`new` among them): each met release indexed, the releases
/// around each removal indexed, the met releases' change notes read, and those of the
/// releases that removed them.
pub fn forward<W: BankWork<Error = PrepareError>>(
    from: &ForwardFrom<'_>,
    met: &[Met],
    work: &mut W,
    bank: &std::path::Path,
) -> Result<Forwarded, ForwardError> {
    let new: Vec<&Met> = met.iter().filter(|m| !m.moved).collect();
    let mut apis: Vec<ApiPath> = Vec::new();
    let mut releases: BTreeSet<(DistName, Version)> = BTreeSet::new();
    for m in &new {
        let indexed = work.reports(&m.api)?.iter().any(|r| {
            r.distribution == m.distribution
                && [&r.present, &r.absent, &r.unknown]
                    .iter()
                    .any(|runs| VersionRun::any_contains(runs, &m.version))
        });
        if !indexed {
            work.index(&[(m.distribution.clone(), m.version.clone())])?;
        }
        apis.push(m.api.clone());
        releases.insert((m.distribution.clone(), m.version.clone()));
    }
    prepare(&apis, work, PREPARE_ROUNDS)?;
    work.read_notes(&releases.into_iter().collect::<Vec<_>>())?;
    read_notes(&apis, work)?;
    let store = Store::open_read_only(bank)?;
    let usage = crate::notebook::analyze(from.original, from.analyze);
    let facts = Facts::gather_after_runs(&store, &usage, met)?;
    let mut modernized = modernize(from.original, from.bytes, &usage, &facts, &from.name)?
        .with_modules(from.modules.to_vec());
    let written = &modernized.written(from.candidates).cells;
    let mut met = met.to_vec();
    for m in &mut met {
        m.moved = modernized
            .report
            .changes
            .iter()
            .any(|c| c.old == m.api && c.written)
            && written_at(written, from.original, m.cell);
    }
    // A change past what a run met is no candidate: the old form is refuted, and the next
    // run tries the new one.
    for c in &mut modernized.report.changes {
        if met.iter().any(|m| m.moved && m.api == c.old) {
            c.trial = None;
        }
    }
    modernized.report.met = met.clone();
    Ok(Forwarded { modernized, met })
}

/// Whether the cell the run stopped at reads otherwise in `written` than in the original.
fn written_at(
    written: &std::collections::BTreeMap<u32, String>,
    original: &Notebook,
    cell: u32,
) -> bool {
    let was = original
        .cells
        .iter()
        .find(|c| c.number == cell)
        .map(|c| c.source.as_str());
    written
        .get(&cell)
        .is_some_and(|now| Some(now.as_str()) != was)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Version {
        s.parse().unwrap()
    }

    fn run(a: &str, b: &str) -> VersionRun {
        VersionRun {
            first: v(a),
            last: v(b),
        }
    }

    fn report(present: Vec<VersionRun>, latest: &str) -> ApiReport {
        ApiReport {
            distribution: DistName::new("tabular").unwrap(),
            display_name: None,
            path: "tabular.Frame.as_rows".into(),
            kind: crate::bank::flow::ApiKind::Method,
            indexed_releases: 3,
            present: present.clone(),
            unknown: vec![],
            absent: vec![],
            not_indexed: vec![],
            first: present.first().map(|r| r.first.clone()),
            last: present.last().map(|r| r.last.clone()),
            latest_indexed: Some(v(latest)),
            static_present: present,
            runtime_present: vec![],
            unknown_through: vec![],
            raising_modules: vec![],
            canonical: vec![],
            signature_changes: vec![],
        }
    }

    fn met_at(version: &str) -> Met {
        Met {
            api: ApiPath::new("tabular.Frame.as_rows").unwrap(),
            distribution: DistName::new("tabular").unwrap(),
            version: v(version),
            cell: 2,
            round: 1,
            moved: false,
        }
    }

    /// The bank saw the method in every release (served at run time, say); a run of 1.2
    /// did not find it: 1.2 lacks it, and 1.1 is the last with it.
    #[test]
    fn a_run_makes_the_release_it_ran_lack_what_it_met() {
        let api = ApiPath::new("tabular.Frame.as_rows").unwrap();
        let mut reports = vec![report(vec![run("1.0", "1.2")], "1.2")];
        absent_where_met(&mut reports, &api, &[met_at("1.2")]);
        let r = &reports[0];
        assert_eq!(r.present, [run("1.0", "1.0")]);
        assert_eq!(r.absent, [run("1.2", "1.2")]);
        assert_eq!(r.last, Some(v("1.0")));

        // A release the bank has not indexed yet, newer than every one it has.
        let mut reports = vec![report(vec![run("1.0", "1.1")], "1.1")];
        absent_where_met(&mut reports, &api, &[met_at("2.0")]);
        let r = &reports[0];
        assert_eq!(r.present, [run("1.0", "1.1")]);
        assert_eq!(r.absent, [run("2.0", "2.0")]);
        assert_eq!(r.latest_indexed, Some(v("2.0")));

        // What a missing class or module holds is missing with it.
        let member = ApiPath::new("tabular.Frame.as_rows.cache").unwrap();
        let mut reports = vec![report(vec![run("1.0", "1.2")], "1.2")];
        absent_where_met(&mut reports, &member, &[met_at("1.2")]);
        assert_eq!(reports[0].absent, [run("1.2", "1.2")]);

        // Another API's word changes nothing.
        let other = ApiPath::new("tabular.Frame.rows").unwrap();
        let mut reports = vec![report(vec![run("1.0", "1.2")], "1.2")];
        absent_where_met(&mut reports, &other, &[met_at("1.2")]);
        assert_eq!(reports[0].present, [run("1.0", "1.2")]);
    }

    /// What the notebook's own code uses is its to move; a name a library lacks is not.
    #[test]
    fn only_what_the_notebook_uses_is_its_to_move() {
        let nb = serde_json::json!({
            "cells": [
                {"cell_type": "code", "source": "import tabular as tb\nfrom markupsafe import escape",
                 "metadata": {}, "outputs": [], "execution_count": null},
                {"cell_type": "code", "source": "def f(frame):\n    return frame.sort(columns='x')",
                 "metadata": {}, "outputs": [], "execution_count": null},
            ],
            "metadata": {}, "nbformat": 4, "nbformat_minor": 2
        });
        let nb = crate::notebook::from_bytes(
            std::path::Path::new("nb.ipynb"),
            nb.to_string().as_bytes(),
        )
        .unwrap();
        let usage = crate::notebook::analyze(&nb, &AnalyzeOptions::default());
        let at = |api: &str, cell: u32| Met {
            api: ApiPath::new(api).unwrap(),
            cell,
            ..met_at("1.2")
        };
        assert!(used_by(&usage, &at("tabular.Frame.sort", 2)));
        assert!(!used_by(&usage, &at("tabular.Frame.sort", 1)));
        assert!(used_by(&usage, &at("markupsafe", 1)));
        assert!(!used_by(&usage, &at("markupsafe.soft_unicode", 1)));
    }

    /// Only a missing name is met: a call the release takes otherwise is not a removal.
    #[test]
    fn only_a_missing_name_is_met() {
        let api = ApiPath::new("tabular.Frame.as_rows").unwrap();
        let lessons = [Lesson::Api {
            api: api.clone(),
            cell: 2,
            lacked_by: Some((DistName::new("tabular").unwrap(), v("1.2"))),
        }];
        let missing = Failure::new(
            Cause::MissingMember {
                type_name: "Frame".into(),
                member: "as_rows".into(),
                api: Some(api.clone()),
                receiver: None,
                bank: crate::notebook::failure::BankSays::Unknown,
            },
            Some(2),
            None,
        );
        assert_eq!(met(&missing, &lessons, 1), [met_at("1.2")]);
        let arguments = Failure::new(
            Cause::BadArguments {
                function: "as_rows".into(),
                api,
                bank: crate::notebook::failure::BankSays::Unknown,
            },
            Some(2),
            None,
        );
        assert!(met(&arguments, &lessons, 1).is_empty());
    }
}
