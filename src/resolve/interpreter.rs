//! The interpreter to resolve for. What the notebook's *code* needs (syntax, removed
//! builtins, standard-library modules) binds; where it *last ran* (its kernel metadata) is a
//! preference: the recorded Python first, then the nearest ones, so that a notebook saved on
//! 3.5 resolves for 3.5 (installed here or not) and runs on the installed interpreter nearest
//! it (3.6), not on the newest (3.13), where its era's releases have no wheels. An
//! interpreter the repository declares (Binder's `runtime.txt`) is tried first when the code
//! allows it. Without a record, installed interpreters come first, newest first.
//!
//! A plan (which versions to try, in which order) is made from the evidence alone, so it is
//! testable without interpreters; [`choose`] then tries the plan with a resolution function.

use std::path::PathBuf;

use serde::Serialize;

use crate::notebook::{HintReason, PythonEvidence, KNOWN_VERSIONS};
use crate::python::{Interpreter, PythonRange, PythonVersion};

/// One interpreter version to resolve for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PythonCandidate {
    pub version: PythonVersion,
    /// The interpreter on this machine, when one of that version is installed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub installed: Option<PathBuf>,
}

/// How the interpreter was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PythonChoice {
    /// `--python X.Y` named it (installed here or not).
    Requested,
    /// The newest interpreter installed here, where a modernized notebook runs (no
    /// `--python`).
    NewestForModern,
    /// The Python the notebook last ran on (its kernel metadata), which has a resolution.
    Recorded,
    /// The nearest to the one the notebook last ran on that has a resolution (and, to run
    /// the notebook, is installed here).
    NearestRecorded,
    /// No record of where the notebook ran: the newest installed interpreter the code allows
    /// that has a resolution.
    NewestInstalled,
    /// No record, and no installed interpreter had a resolution: the newest one that has,
    /// not installed here.
    NotInstalled,
    /// The interpreter a file of the repository declares, which the notebook allows and
    /// which has a resolution (installed here or not).
    Declared,
}

/// Which interpreters a plan may name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Reach {
    /// Every CPython nbenv knows: requirements for another machine are fine.
    #[default]
    Known,
    /// Only those installed here: the notebook is to run here.
    Installed,
}

/// An interpreter a file of the repository declares.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeclaredInterpreter {
    pub version: PythonVersion,
    /// Where (`runtime.txt:1`).
    pub declared_at: String,
    /// Tried first; false when the notebook's own evidence rules it out.
    pub applied: bool,
}

/// Where the notebook last ran, as its metadata records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RecordedInterpreter {
    /// The versions meant: one (`3.5.1` → 3.5), or a major's (`python3` → 3.x).
    pub range: PythonRange,
    /// What says so (`language_info 3.5.1`, `kernelspec python2`).
    pub recorded_by: String,
    /// The code allows it (else it steers nothing: the code's needs win).
    pub applied: bool,
}

/// The versions to try, best first.
#[derive(Debug, Clone, Serialize)]
pub struct InterpreterPlan {
    pub candidates: Vec<PythonCandidate>,
    /// What the notebook's code allows.
    pub allowed: PythonRange,
    /// The code's strong hints contradict each other, so none of them was applied.
    pub evidence_ignored: bool,
    /// What the repository declares, unless `--python` was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub declared: Option<DeclaredInterpreter>,
    /// Where the notebook last ran, unless `--python` was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recorded: Option<RecordedInterpreter>,
    pub reach: Reach,
}

impl InterpreterPlan {
    /// Every CPython nbenv knows (or, with [`Reach::Installed`], has here) that the code
    /// allows, or just `requested`: the declared one first, then nearest the recorded one
    /// (ties: installed first, then newer), or with no record installed first, newest first.
    pub fn new(
        evidence: &PythonEvidence,
        requested: Option<PythonVersion>,
        installed: &[Interpreter],
        reach: Reach,
    ) -> Self {
        let evidence_ignored = evidence.conflict || evidence.range.is_empty();
        let allowed = if evidence_ignored {
            PythonRange::default()
        } else {
            evidence.range
        };
        let on_machine = |v: PythonVersion| {
            installed
                .iter()
                .find(|i| i.version.feature() == v.feature())
                .map(|i| i.path.clone())
        };
        let candidate = |version: PythonVersion| PythonCandidate {
            version: version.feature(),
            installed: on_machine(version),
        };
        let mut declared = None;
        let mut recorded = None;
        let candidates = match requested {
            Some(v) => vec![candidate(v)],
            None => {
                let mut all: Vec<PythonCandidate> = KNOWN_VERSIONS
                    .iter()
                    .copied()
                    .filter(|v| allowed.contains(*v))
                    .map(candidate)
                    .filter(|c| reach == Reach::Known || c.installed.is_some())
                    .collect();
                recorded = recorded_interpreter(evidence, &allowed);
                // A record the code rules out still steers: nearest to it first (a Python 2
                // kernel's notebook whose code needs 3.3 runs on 3.7, not the newest).
                match recorded.as_ref() {
                    Some(r) => all.sort_by_key(|c| {
                        (
                            distance(c.version, &r.range),
                            c.installed.is_none(),
                            std::cmp::Reverse(c.version),
                        )
                    }),
                    None => {
                        all.sort_by_key(|c| (c.installed.is_none(), std::cmp::Reverse(c.version)))
                    }
                }
                declared = declared_interpreter(evidence, &mut all);
                all
            }
        };
        Self {
            candidates,
            allowed,
            evidence_ignored,
            declared,
            recorded,
            reach,
        }
    }

    /// The interpreters a modernized notebook may run on, rung by rung: `newest` (the newest
    /// installed) first, then each older installed one the code allows, newest first. Today's
    /// releases want today's Python; when an API that could not move holds the notebook to
    /// releases with no wheels for it, the next newest that has a resolution is the answer,
    /// not the notebook's era.
    pub fn newest_first(
        evidence: &PythonEvidence,
        newest: PythonVersion,
        installed: &[Interpreter],
    ) -> Self {
        let mut plan = Self::new(evidence, Some(newest), installed, Reach::Installed);
        let mut older: Vec<PythonCandidate> = installed
            .iter()
            .map(|i| i.version.feature())
            .filter(|v| {
                *v < newest.feature() && (plan.evidence_ignored || plan.allowed.contains(*v))
            })
            .map(|v| PythonCandidate {
                version: v,
                installed: installed
                    .iter()
                    .find(|i| i.version.feature() == v)
                    .map(|i| i.path.clone()),
            })
            .collect();
        older.sort_by_key(|c| std::cmp::Reverse(c.version));
        older.dedup_by_key(|c| c.version);
        // What a run taught rules the newest out (`inspect.getargspec` under IPython 3 is
        // gone from 3.11): the ladder starts below it. Resolving on it again would repeat the
        // round that refuted it.
        if !plan.evidence_ignored && !plan.allowed.contains(newest.feature()) && !older.is_empty() {
            plan.candidates.clear();
        }
        plan.candidates.extend(older);
        plan
    }

    /// Whether the order says where the notebook runs (its record, its repository's
    /// declaration), not only what is installed.
    pub fn has_preference(&self) -> bool {
        self.recorded.as_ref().is_some_and(|r| r.applied)
            || self.declared.as_ref().is_some_and(|d| d.applied)
    }

    /// The same plan with only its `i`-th candidate.
    pub fn only(&self, i: usize) -> Self {
        let mut plan = self.clone();
        plan.candidates = vec![self.candidates[i].clone()];
        plan
    }

    /// The same plan without the interpreters `tried` (a restoration moving on after its
    /// environment could not be built on them).
    pub fn without(&self, tried: &[PythonVersion]) -> Self {
        let mut plan = self.clone();
        plan.candidates
            .retain(|c| !tried.iter().any(|t| t.feature() == c.version));
        plan
    }
}

/// How far `v` is from the versions of `range`: 0 inside it, else the minor versions between
/// (a major apart counts as far).
fn distance(v: PythonVersion, range: &PythonRange) -> u32 {
    if range.contains(v) {
        return 0;
    }
    let apart = |a: PythonVersion, b: PythonVersion| -> u32 {
        if a.major == b.major {
            u32::from(a.minor.abs_diff(b.minor))
        } else {
            100 + u32::from(a.minor.max(b.minor))
        }
    };
    [range.min, range.max]
        .into_iter()
        .flatten()
        .map(|end| apart(v.feature(), end.feature()))
        .min()
        .unwrap_or(0)
}

/// Where the notebook last ran, if its metadata says; applied when the code allows some of
/// those versions.
fn recorded_interpreter(
    evidence: &PythonEvidence,
    allowed: &PythonRange,
) -> Option<RecordedInterpreter> {
    let hint = evidence.recorded()?;
    let what = match hint.reason {
        HintReason::LanguageInfo => "language_info",
        HintReason::Kernelspec => "kernelspec",
        HintReason::OutputPath => "an output's interpreter path",
        _ => "the notebook",
    };
    Some(RecordedInterpreter {
        range: hint.range,
        recorded_by: format!("{what} {}", hint.detail),
        applied: !allowed.intersect(&hint.range).is_empty(),
    })
}

/// The first interpreter the repository declares, moved to the front of `candidates` when
/// it is among them (the notebook allows it).
fn declared_interpreter(
    evidence: &PythonEvidence,
    candidates: &mut Vec<PythonCandidate>,
) -> Option<DeclaredInterpreter> {
    let hint = evidence
        .hints
        .iter()
        .find(|h| h.reason == HintReason::Declared)?;
    let version = hint.range.min?.feature();
    let position = candidates.iter().position(|c| c.version == version);
    if let Some(i) = position {
        let c = candidates.remove(i);
        candidates.insert(0, c);
    }
    Some(DeclaredInterpreter {
        version,
        declared_at: hint.detail.clone(),
        applied: position.is_some(),
    })
}

/// What trying a plan gave: the chosen candidate and its result, and why each better
/// candidate was passed over.
#[derive(Debug)]
pub struct Chosen<T, E> {
    pub candidate: PythonCandidate,
    pub how: PythonChoice,
    pub result: T,
    pub passed_over: Vec<(PythonVersion, E)>,
}

/// Tries `resolve` on each candidate in order and keeps the first that succeeds; on failure,
/// every candidate's error, in the order tried.
pub fn choose<T, E>(
    plan: &InterpreterPlan,
    requested: bool,
    mut resolve: impl FnMut(&PythonCandidate) -> Result<T, E>,
) -> Result<Chosen<T, E>, Vec<(PythonVersion, E)>> {
    let mut passed_over = Vec::new();
    for candidate in &plan.candidates {
        match resolve(candidate) {
            Ok(result) => {
                return Ok(Chosen {
                    how: how_chosen(plan, requested, candidate),
                    candidate: candidate.clone(),
                    result,
                    passed_over,
                });
            }
            Err(e) => passed_over.push((candidate.version, e)),
        }
    }
    Err(passed_over)
}

fn how_chosen(
    plan: &InterpreterPlan,
    requested: bool,
    candidate: &PythonCandidate,
) -> PythonChoice {
    let declared = plan
        .declared
        .as_ref()
        .is_some_and(|d| d.applied && d.version == candidate.version);
    if requested {
        PythonChoice::Requested
    } else if declared {
        PythonChoice::Declared
    } else if let Some(r) = plan.recorded.as_ref() {
        if r.range.contains(candidate.version) {
            PythonChoice::Recorded
        } else {
            PythonChoice::NearestRecorded
        }
    } else if candidate.installed.is_some() {
        PythonChoice::NewestInstalled
    } else {
        PythonChoice::NotInstalled
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notebook::VersionHint;

    fn evidence(range: PythonRange, conflict: bool) -> PythonEvidence {
        PythonEvidence {
            kernel: None,
            language_version: None,
            range,
            conflict,
            hints: Vec::new(),
        }
    }

    fn hint(reason: HintReason, detail: &str, range: PythonRange) -> VersionHint {
        VersionHint {
            reason,
            detail: detail.into(),
            range,
            weak: false,
            count: 1,
            at: None,
        }
    }

    fn installed(versions: &[(u8, u8)]) -> Vec<Interpreter> {
        versions
            .iter()
            .map(|&(a, b)| Interpreter {
                path: PathBuf::from(format!("/usr/bin/python{a}.{b}")),
                version: PythonVersion::new(a, b),
            })
            .collect()
    }

    fn order(plan: &InterpreterPlan) -> Vec<String> {
        plan.candidates
            .iter()
            .map(|c| {
                let mark = if c.installed.is_some() { "*" } else { "" };
                format!("{}{mark}", c.version)
            })
            .collect()
    }

    fn v(a: u8, b: u8) -> PythonVersion {
        PythonVersion::new(a, b)
    }

    /// A modernized notebook: the newest installed first, then each older installed one the
    /// code allows, newest first; nothing that is not installed, nothing the code rules out.
    #[test]
    fn a_modernized_notebook_climbs_down_from_the_newest_installed() {
        let machine = installed(&[(3, 11), (3, 13), (2, 7), (3, 6), (3, 12)]);
        let from_36 = PythonRange {
            min: Some(v(3, 6)),
            max: None,
        };
        let plan = InterpreterPlan::newest_first(&evidence(from_36, false), v(3, 13), &machine);
        assert_eq!(order(&plan), ["3.13*", "3.12*", "3.11*", "3.6*"]);
        assert_eq!(plan.reach, Reach::Installed);
        // Hints that contradict each other rule nothing out.
        let plan = InterpreterPlan::newest_first(
            &evidence(PythonRange::default(), true),
            v(3, 12),
            &machine,
        );
        assert_eq!(order(&plan), ["3.12*", "3.11*", "3.6*", "2.7*"]);
        // A run showed the code needs Python 3.10 or older: the newest is not tried again.
        let up_to_310 = PythonRange {
            min: Some(v(3, 6)),
            max: Some(v(3, 10)),
        };
        let plan = InterpreterPlan::newest_first(&evidence(up_to_310, false), v(3, 13), &machine);
        assert_eq!(order(&plan), ["3.6*"]);
        // None installed allows it: the newest stays, and its resolution says why not.
        let up_to_35 = PythonRange {
            min: Some(v(3, 0)),
            max: Some(v(3, 5)),
        };
        let plan = InterpreterPlan::newest_first(&evidence(up_to_35, false), v(3, 13), &machine);
        assert_eq!(order(&plan), ["3.13*"]);
    }

    #[test]
    fn installed_first_then_the_rest_newest_first_within_the_evidence() {
        let py3_up_to_37 = PythonRange {
            min: Some(v(3, 6)),
            max: Some(v(3, 7)),
        };
        let plan = InterpreterPlan::new(
            &evidence(py3_up_to_37, false),
            None,
            &installed(&[(3, 11), (3, 6), (2, 7)]),
            Reach::Known,
        );
        assert_eq!(order(&plan), ["3.6*", "3.7"]);
        assert!(!plan.evidence_ignored);

        let any = InterpreterPlan::new(
            &evidence(PythonRange::default(), false),
            None,
            &installed(&[(3, 11), (2, 7)]),
            Reach::Known,
        );
        let o = order(&any);
        assert_eq!(&o[..3], ["3.11*", "2.7*", "3.14"]);
        assert_eq!(o.last().unwrap(), "3.3");
    }

    /// A notebook saved on 3.5 that needs nothing of 3.5's own: resolved for 3.5 first
    /// (installed or not), then the nearest; to run here, the installed one nearest 3.5.
    #[test]
    fn the_recorded_python_is_a_preference_nearest_first() {
        let mut ev = evidence(PythonRange::default(), false);
        ev.hints = vec![hint(
            HintReason::LanguageInfo,
            "3.5.1",
            PythonRange::exactly(v(3, 5)),
        )];
        let machine = installed(&[(3, 13), (3, 12), (3, 11), (3, 6), (2, 7)]);
        let known = InterpreterPlan::new(&ev, None, &machine, Reach::Known);
        let o = order(&known);
        assert_eq!(
            o[..3],
            ["3.5", "3.6*", "3.4"],
            "a tie: the installed one first"
        );
        assert!(o.iter().position(|x| x == "3.7") < o.iter().position(|x| x == "3.13*"));
        assert_eq!(o.last().unwrap(), "2.7*", "another major: last");
        let r = known.recorded.as_ref().unwrap();
        assert!(r.applied && r.recorded_by == "language_info 3.5.1");

        let here = InterpreterPlan::new(&ev, None, &machine, Reach::Installed);
        assert_eq!(order(&here), ["3.6*", "3.11*", "3.12*", "3.13*", "2.7*"]);
        let chosen = choose(&here, false, |c| Ok::<_, ()>(c.version)).unwrap();
        assert_eq!(chosen.how, PythonChoice::NearestRecorded);
        // Moving on after 3.6 failed to build.
        assert_eq!(order(&here.without(&[v(3, 6)]))[0], "3.11*");

        // Recorded and installed: chosen as recorded.
        let with_35 = installed(&[(3, 13), (3, 5)]);
        let plan = InterpreterPlan::new(&ev, None, &with_35, Reach::Installed);
        let chosen = choose(&plan, false, |c| Ok::<_, ()>(c.version)).unwrap();
        assert_eq!(chosen.how, PythonChoice::Recorded);
        assert_eq!(chosen.result, v(3, 5));
    }

    /// Python 2 code saved by a Python 3 kernel: the code wins, the record steers nothing.
    #[test]
    fn the_code_binds_and_the_record_only_steers() {
        let mut ev = evidence(PythonRange::at_most(v(2, 7)), false);
        ev.hints = vec![
            hint(
                HintReason::LanguageInfo,
                "3.6.0",
                PythonRange::exactly(v(3, 6)),
            ),
            hint(
                HintReason::Python2Syntax,
                "print statement",
                PythonRange::at_most(v(2, 7)),
            ),
        ];
        let machine = installed(&[(3, 11), (3, 6), (2, 7)]);
        let plan = InterpreterPlan::new(&ev, None, &machine, Reach::Installed);
        assert_eq!(order(&plan), ["2.7*"]);
        assert!(!plan.recorded.as_ref().unwrap().applied);
        // Python 3.3 code (a namespace package) saved by a Python 2 kernel: nearest to 2.7
        // that the code allows, not the newest.
        let mut ev3 = evidence(PythonRange::at_least(v(3, 3)), false);
        ev3.hints = vec![hint(
            HintReason::LanguageInfo,
            "2.7.13",
            PythonRange::exactly(v(2, 7)),
        )];
        let plan = InterpreterPlan::new(&ev3, None, &machine, Reach::Installed);
        assert_eq!(order(&plan), ["3.6*", "3.11*"]);
        let chosen = choose(&plan, false, |c| Ok::<_, ()>(c.version)).unwrap();
        assert_eq!(chosen.how, PythonChoice::NearestRecorded);
        // Nothing installed fits the code: nothing to run on.
        let plan = InterpreterPlan::new(&ev, None, &installed(&[(3, 13)]), Reach::Installed);
        assert!(plan.candidates.is_empty());

        // `python3` with no version: every 3.x is as near; installed first, newest first.
        let mut py3 = evidence(PythonRange::default(), false);
        py3.hints = vec![hint(
            HintReason::Kernelspec,
            "python3",
            PythonRange::at_least(v(3, 0)),
        )];
        let plan = InterpreterPlan::new(&py3, None, &machine, Reach::Known);
        assert_eq!(&order(&plan)[..3], ["3.11*", "3.6*", "3.14"]);
        assert_eq!(order(&plan).last().unwrap(), "2.7*");
    }

    #[test]
    fn contradicting_evidence_is_set_aside_and_a_request_is_taken_alone() {
        let empty = PythonRange {
            min: Some(v(3, 8)),
            max: Some(v(2, 7)),
        };
        let plan = InterpreterPlan::new(&evidence(empty, true), None, &[], Reach::Known);
        assert!(plan.evidence_ignored);
        assert_eq!(plan.candidates.len(), KNOWN_VERSIONS.len());

        let requested = InterpreterPlan::new(
            &evidence(PythonRange::default(), false),
            Some(v(3, 9)),
            &installed(&[(3, 11)]),
            Reach::Known,
        );
        assert_eq!(order(&requested), ["3.9"]);
    }

    #[test]
    fn a_declared_interpreter_goes_first_only_where_the_notebook_allows_it() {
        let declared = |range: PythonRange, version: PythonVersion| {
            let mut e = evidence(range, false);
            e.hints.push(VersionHint {
                weak: true,
                ..hint(
                    HintReason::Declared,
                    "runtime.txt:1",
                    PythonRange::exactly(version),
                )
            });
            e
        };
        let here = installed(&[(3, 11), (3, 6)]);
        let plan = InterpreterPlan::new(
            &declared(PythonRange::default(), v(3, 7)),
            None,
            &here,
            Reach::Known,
        );
        assert_eq!(&order(&plan)[..3], ["3.7", "3.11*", "3.6*"]);
        let d = plan.declared.as_ref().unwrap();
        assert!(d.applied && d.declared_at == "runtime.txt:1");
        let chosen = choose(&plan, false, |c| Ok::<_, ()>(c.version)).unwrap();
        assert_eq!(chosen.how, PythonChoice::Declared);
        // Passed over when it has no resolution: the usual order decides.
        let chosen = choose(&plan, false, |c| {
            if c.version == v(3, 7) {
                Err(())
            } else {
                Ok(())
            }
        })
        .unwrap();
        assert_eq!(chosen.how, PythonChoice::NewestInstalled);

        // The notebook needs 3.8 or newer: the declaration is kept, not applied.
        let plan = InterpreterPlan::new(
            &declared(PythonRange::at_least(v(3, 8)), v(3, 7)),
            None,
            &here,
            Reach::Known,
        );
        assert_eq!(order(&plan)[0], "3.11*");
        assert!(!plan.declared.as_ref().unwrap().applied);
        // `--python` decides alone.
        let plan = InterpreterPlan::new(
            &declared(PythonRange::default(), v(3, 7)),
            Some(v(3, 9)),
            &here,
            Reach::Known,
        );
        assert!(plan.declared.is_none());
    }

    #[test]
    fn the_first_candidate_that_resolves_is_chosen_and_the_others_say_why_not() {
        let plan = InterpreterPlan::new(
            &evidence(PythonRange::default(), false),
            None,
            &installed(&[(3, 11), (3, 6)]),
            Reach::Known,
        );
        // Only 3.6 and 3.7 resolve: the installed 3.6 wins over the newer, missing 3.7.
        let chosen = choose(&plan, false, |c| {
            if c.version <= v(3, 7) && c.version >= v(3, 6) {
                Ok(c.version)
            } else {
                Err(format!("nothing for {}", c.version))
            }
        })
        .unwrap();
        assert_eq!(chosen.result, v(3, 6));
        assert_eq!(chosen.how, PythonChoice::NewestInstalled);
        assert_eq!(chosen.passed_over.len(), 1);

        // Nothing installed resolves: the newest that does, not installed.
        let chosen = choose(&plan, false, |c| {
            if c.version == v(3, 7) || c.version == v(3, 8) {
                Ok(())
            } else {
                Err(())
            }
        })
        .unwrap();
        assert_eq!(chosen.candidate.version, v(3, 8));
        assert_eq!(chosen.how, PythonChoice::NotInstalled);

        let none = choose(&plan, false, |_| Err::<(), _>("no")).unwrap_err();
        assert_eq!(none.len(), plan.candidates.len());
    }
}
