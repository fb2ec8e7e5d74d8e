//! The interpreter to resolve for: the newest CPython the notebook allows for which a full
//! resolution exists, preferring one installed here, and saying how it was chosen. An
//! interpreter the repository declares (Binder's `runtime.txt`) is tried first when the
//! notebook allows it.
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
    /// The newest installed interpreter that the evidence allows and that has a resolution.
    NewestInstalled,
    /// No installed interpreter had a resolution: the newest one that has, not installed here.
    NotInstalled,
    /// The interpreter a file of the repository declares, which the notebook allows and
    /// which has a resolution (installed here or not).
    Declared,
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

/// The versions to try, best first.
#[derive(Debug, Clone, Serialize)]
pub struct InterpreterPlan {
    pub candidates: Vec<PythonCandidate>,
    /// What the notebook's evidence allows.
    pub allowed: PythonRange,
    /// The notebook's strong hints contradict each other, so none of them was applied.
    pub evidence_ignored: bool,
    /// What the repository declares, unless `--python` was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub declared: Option<DeclaredInterpreter>,
}

impl InterpreterPlan {
    /// Every CPython nbenv knows that the evidence allows (or just `requested`), installed
    /// ones first, each group newest first.
    pub fn new(
        evidence: &PythonEvidence,
        requested: Option<PythonVersion>,
        installed: &[Interpreter],
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
        let candidates = match requested {
            Some(v) => vec![candidate(v)],
            None => {
                let mut all: Vec<PythonCandidate> = KNOWN_VERSIONS
                    .iter()
                    .copied()
                    .filter(|v| allowed.contains(*v))
                    .map(candidate)
                    .collect();
                all.sort_by_key(|c| (c.installed.is_none(), std::cmp::Reverse(c.version)));
                declared = declared_interpreter(evidence, &mut all);
                all
            }
        };
        Self {
            candidates,
            allowed,
            evidence_ignored,
            declared,
        }
    }
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
                let declared = plan
                    .declared
                    .as_ref()
                    .is_some_and(|d| d.applied && d.version == candidate.version);
                let how = if requested {
                    PythonChoice::Requested
                } else if declared {
                    PythonChoice::Declared
                } else if candidate.installed.is_some() {
                    PythonChoice::NewestInstalled
                } else {
                    PythonChoice::NotInstalled
                };
                return Ok(Chosen {
                    candidate: candidate.clone(),
                    how,
                    result,
                    passed_over,
                });
            }
            Err(e) => passed_over.push((candidate.version, e)),
        }
    }
    Err(passed_over)
}

/// For running the notebook here when its evidence names only interpreters not installed:
/// the newest installed Python that the notebook's *code* allows. Where it last ran (kernel
/// metadata, interpreter paths in outputs) and what the repository declares say where it was
/// written, not what its code needs; syntax, removed builtins and standard-library modules
/// do, and are kept. `None` when an allowed interpreter is installed, or none fits the code.
pub fn runnable_fallback(
    evidence: &PythonEvidence,
    installed: &[Interpreter],
) -> Option<PythonVersion> {
    let plan = InterpreterPlan::new(evidence, None, installed);
    if plan.candidates.iter().any(|c| c.installed.is_some()) {
        return None;
    }
    let code = evidence
        .hints
        .iter()
        .filter(|h| !h.weak)
        .filter(|h| {
            matches!(
                h.reason,
                HintReason::Python2Syntax
                    | HintReason::Python2Name
                    | HintReason::SyntaxFeature
                    | HintReason::StdlibModule
            )
        })
        .fold(PythonRange::default(), |range, h| range.intersect(&h.range));
    installed
        .iter()
        .map(|i| i.version.feature())
        .filter(|v| KNOWN_VERSIONS.contains(v) && code.contains(*v))
        .max()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn evidence(range: PythonRange, conflict: bool) -> PythonEvidence {
        PythonEvidence {
            kernel: None,
            language_version: None,
            range,
            conflict,
            hints: Vec::new(),
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

    #[test]
    fn installed_first_then_the_rest_newest_first_within_the_evidence() {
        let py3_up_to_37 = PythonRange {
            min: Some(PythonVersion::new(3, 0)),
            max: Some(PythonVersion::new(3, 7)),
        };
        let plan = InterpreterPlan::new(
            &evidence(py3_up_to_37, false),
            None,
            &installed(&[(3, 11), (3, 6), (2, 7)]),
        );
        assert_eq!(order(&plan), ["3.6*", "3.7", "3.5", "3.4", "3.3"]);
        assert!(!plan.evidence_ignored);

        let any = InterpreterPlan::new(
            &evidence(PythonRange::default(), false),
            None,
            &installed(&[(3, 11), (2, 7)]),
        );
        let o = order(&any);
        assert_eq!(&o[..3], ["3.11*", "2.7*", "3.14"]);
        assert_eq!(o.last().unwrap(), "3.3");
    }

    #[test]
    fn a_notebook_that_ran_on_a_python_not_installed_runs_on_the_newest_its_code_allows() {
        use crate::notebook::VersionHint;
        let hint = |reason, range, weak| VersionHint {
            reason,
            detail: String::new(),
            range,
            weak,
            count: 1,
            at: None,
        };
        let py37 = PythonRange::exactly(PythonVersion::new(3, 7));
        let mut ev = evidence(py37, false);
        ev.hints = vec![
            hint(HintReason::LanguageInfo, py37, false),
            // f-strings: 3.6 and later.
            hint(
                HintReason::SyntaxFeature,
                PythonRange::at_least(PythonVersion::new(3, 6)),
                false,
            ),
            // `imp`, weakly (inside a try): does not bind.
            hint(
                HintReason::StdlibModule,
                PythonRange::at_most(PythonVersion::new(3, 11)),
                true,
            ),
        ];
        let machine = installed(&[(3, 13), (3, 11), (2, 7)]);
        assert_eq!(
            runnable_fallback(&ev, &machine),
            Some(PythonVersion::new(3, 13))
        );
        // 3.7 installed: nothing to fall back from.
        assert_eq!(runnable_fallback(&ev, &installed(&[(3, 7), (3, 13)])), None);
        // Python 2 code that last ran on 3.7 (a contradiction in the code: f-strings too):
        // nothing installed fits the code, no fallback.
        ev.hints.push(hint(
            HintReason::Python2Syntax,
            PythonRange::at_most(PythonVersion::new(2, 7)),
            false,
        ));
        assert_eq!(runnable_fallback(&ev, &machine), None);
        // Python 2 code written on 2.7.15, on a machine with 3.x only: nothing to run it on.
        let py27 = PythonRange::exactly(PythonVersion::new(2, 7));
        let mut py2 = evidence(py27, false);
        py2.hints = vec![
            hint(HintReason::LanguageInfo, py27, false),
            hint(
                HintReason::Python2Syntax,
                PythonRange::at_most(PythonVersion::new(2, 7)),
                false,
            ),
        ];
        assert_eq!(runnable_fallback(&py2, &installed(&[(3, 13)])), None);
        // Metadata alone (no code evidence): any installed Python, the newest.
        py2.hints.pop();
        assert_eq!(
            runnable_fallback(&py2, &installed(&[(3, 13), (3, 11)])),
            Some(PythonVersion::new(3, 13))
        );
    }

    #[test]
    fn contradicting_evidence_is_set_aside_and_a_request_is_taken_alone() {
        let empty = PythonRange {
            min: Some(PythonVersion::new(3, 8)),
            max: Some(PythonVersion::new(2, 7)),
        };
        let plan = InterpreterPlan::new(&evidence(empty, true), None, &[]);
        assert!(plan.evidence_ignored);
        assert_eq!(plan.candidates.len(), KNOWN_VERSIONS.len());

        let requested = InterpreterPlan::new(
            &evidence(PythonRange::default(), false),
            Some(PythonVersion::new(3, 9)),
            &installed(&[(3, 11)]),
        );
        assert_eq!(order(&requested), ["3.9"]);
    }

    #[test]
    fn a_declared_interpreter_goes_first_only_where_the_notebook_allows_it() {
        let declared = |range: PythonRange, version: PythonVersion| {
            let mut e = evidence(range, false);
            e.hints.push(crate::notebook::VersionHint {
                reason: HintReason::Declared,
                detail: "runtime.txt:1".into(),
                range: PythonRange::exactly(version),
                weak: true,
                count: 1,
                at: None,
            });
            e
        };
        let here = installed(&[(3, 11), (3, 6)]);
        let plan = InterpreterPlan::new(
            &declared(PythonRange::default(), PythonVersion::new(3, 7)),
            None,
            &here,
        );
        assert_eq!(&order(&plan)[..3], ["3.7", "3.11*", "3.6*"]);
        let d = plan.declared.as_ref().unwrap();
        assert!(d.applied && d.declared_at == "runtime.txt:1");
        let chosen = choose(&plan, false, |c| Ok::<_, ()>(c.version)).unwrap();
        assert_eq!(chosen.how, PythonChoice::Declared);
        // Passed over when it has no resolution: the usual order decides.
        let chosen = choose(&plan, false, |c| {
            if c.version == PythonVersion::new(3, 7) {
                Err(())
            } else {
                Ok(())
            }
        })
        .unwrap();
        assert_eq!(chosen.how, PythonChoice::NewestInstalled);

        // The notebook needs 3.8 or newer: the declaration is kept, not applied.
        let plan = InterpreterPlan::new(
            &declared(
                PythonRange::at_least(PythonVersion::new(3, 8)),
                PythonVersion::new(3, 7),
            ),
            None,
            &here,
        );
        assert_eq!(order(&plan)[0], "3.11*");
        assert!(!plan.declared.as_ref().unwrap().applied);
        // `--python` decides alone.
        let plan = InterpreterPlan::new(
            &declared(PythonRange::default(), PythonVersion::new(3, 7)),
            Some(PythonVersion::new(3, 9)),
            &here,
        );
        assert!(plan.declared.is_none());
    }

    #[test]
    fn the_first_candidate_that_resolves_is_chosen_and_the_others_say_why_not() {
        let plan = InterpreterPlan::new(
            &evidence(PythonRange::default(), false),
            None,
            &installed(&[(3, 11), (3, 6)]),
        );
        // Only 3.6 and 3.7 resolve: the installed 3.6 wins over the newer, missing 3.7.
        let chosen = choose(&plan, false, |c| {
            if c.version <= PythonVersion::new(3, 7) && c.version >= PythonVersion::new(3, 6) {
                Ok(c.version)
            } else {
                Err(format!("nothing for {}", c.version))
            }
        })
        .unwrap();
        assert_eq!(chosen.result, PythonVersion::new(3, 6));
        assert_eq!(chosen.how, PythonChoice::NewestInstalled);
        assert_eq!(chosen.passed_over.len(), 1);

        // Nothing installed resolves: the newest that does, not installed.
        let chosen = choose(&plan, false, |c| {
            if c.version == PythonVersion::new(3, 7) || c.version == PythonVersion::new(3, 8) {
                Ok(())
            } else {
                Err(())
            }
        })
        .unwrap();
        assert_eq!(chosen.candidate.version, PythonVersion::new(3, 8));
        assert_eq!(chosen.how, PythonChoice::NotInstalled);

        let none = choose(&plan, false, |_| Err::<(), _>("no")).unwrap_err();
        assert_eq!(none.len(), plan.candidates.len());
    }
}
