//! The measurements of the stages that run notebooks (verify, restore), from what the runs
//! gave: executability before nbenv's environment (in a bare one, or the one the pipeline
//! supplies) and after its last round, the first error, each round's error, the verdict and
//! the releases that failed. Pure: the command line runs, this counts.

use crate::bank::store::{FailedStep, ReleaseFailure as LearnedFailure};
use crate::notebook::failure::Failure;
use crate::verify;

use super::record::{
    ErrorType, Executability, Record, ReleaseFailure, ReleaseFailureKind, Verdict,
};

/// One run, or one round whose environment could not be built (no executability, the
/// install failure as its failure).
#[derive(Debug, Clone)]
pub struct RunOutcome {
    pub executability: Option<verify::Executability>,
    pub failure: Option<Failure>,
    /// The exception raised, when one was.
    pub ename: Option<String>,
}

/// What a notebook's runs gave.
#[derive(Debug, Clone, Default)]
pub struct Runs {
    /// The run before nbenv's environment; `None` when none was asked for (or there was no
    /// time left for it).
    pub before: Option<RunOutcome>,
    /// nbenv's rounds, in order (one for stage verify).
    pub rounds: Vec<RunOutcome>,
    /// Releases the rounds saw fail.
    pub failed: Vec<LearnedFailure>,
}

impl Verdict {
    /// The verdict once nbenv's rounds have run: `before` is the first error as the notebook
    /// was (`None`: it ran to the end), `after` the error it still stops at after the last
    /// round (`None`: it ran). A notebook that runs after repair was restorable by its first
    /// error's class (by its environment, when that error looked like the code's own: a
    /// release's behaviour was to blame); one that still stops is judged on that error.
    pub fn after_repair(before: Option<&Failure>, after: Option<&Failure>) -> Verdict {
        if before.is_none() {
            return Verdict::Executable;
        }
        match after {
            None => match Verdict::judge(before) {
                Verdict::Restorable { by } => Verdict::Restorable { by },
                _ => Verdict::Restorable {
                    by: crate::notebook::failure::FailureClass::Environment,
                },
            },
            Some(f) => Verdict::judge(Some(f)),
        }
    }
}

/// Fills the record's run measurements.
pub fn record_runs(record: &mut Record, runs: &Runs) {
    let typed = |o: &RunOutcome| {
        o.failure
            .as_ref()
            .map(|f| ErrorType::of(f, o.ename.as_deref()))
    };
    let first = runs.before.as_ref().or(runs.rounds.first());
    record.executability_before = runs
        .before
        .as_ref()
        .and_then(|b| b.executability.as_ref())
        .map(Executability::from);
    record.executability_after = runs
        .rounds
        .iter()
        .rev()
        .find_map(|r| r.executability.as_ref())
        .map(Executability::from);
    record.first_error = first.and_then(typed);
    // Each round's first error, until one runs to the end.
    record.error_sequence = Some(runs.rounds.iter().map_while(typed).collect());
    if let Some(first) = first {
        // Where it still stops: the last round's error, or the first one's with no round.
        let after = runs.rounds.last().unwrap_or(first).failure.as_ref();
        record.verdict = Some(Verdict::after_repair(first.failure.as_ref(), after));
    }
    record.release_failures = Some(
        runs.failed
            .iter()
            .map(|f| ReleaseFailure {
                dist: f.dist.clone(),
                version: f.version.clone(),
                python: f.python,
                kind: match f.step {
                    FailedStep::Install => ReleaseFailureKind::Install,
                    FailedStep::Import => ReleaseFailureKind::Import,
                },
                detail: f.detail.clone(),
            })
            .collect(),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::record::Stage;
    use crate::names::{DistName, ModulePath};
    use crate::notebook::failure::{Cause, Definition, FailureClass};
    use crate::python::PythonVersion;

    fn exe(ran: u32, of: u32, error_at: Option<u32>) -> verify::Executability {
        verify::Executability {
            cells_before_first_error: ran,
            code_cells: of,
            first_error_cell: error_at,
        }
    }

    fn missing(module: &str, cell: u32) -> RunOutcome {
        RunOutcome {
            executability: Some(exe(cell - 1, 5, Some(cell))),
            failure: Some(Failure::new(
                Cause::MissingModule {
                    module: ModulePath::new(module).unwrap(),
                    bank: None,
                },
                Some(cell),
                None,
            )),
            ename: Some("ModuleNotFoundError".into()),
        }
    }

    fn ran() -> RunOutcome {
        RunOutcome {
            executability: Some(exe(5, 5, None)),
            failure: None,
            ename: None,
        }
    }

    fn raised(ename: &str, cell: u32) -> RunOutcome {
        RunOutcome {
            executability: Some(exe(cell - 1, 5, Some(cell))),
            failure: Some(Failure::new(
                Cause::Raised {
                    ename: ename.into(),
                },
                Some(cell),
                None,
            )),
            ename: Some(ename.into()),
        }
    }

    fn record() -> Record {
        Record::new("nb.ipynb".into(), None, Stage::Restore)
    }

    #[test]
    fn restored_after_two_rounds() {
        let mut r = record();
        record_runs(
            &mut r,
            &Runs {
                before: Some(missing("numpy", 1)),
                rounds: vec![missing("sklearn.cross_validation", 3), ran()],
                failed: Vec::new(),
            },
        );
        assert_eq!(r.executability_before.unwrap().cells_ran, 0);
        assert!(r.executability_after.unwrap().complete());
        assert_eq!(r.first_error.as_ref().unwrap().cause, "missing_module");
        assert_eq!(r.first_error.as_ref().unwrap().cell, Some(1));
        let seq = r.error_sequence.as_ref().unwrap();
        assert_eq!(seq.len(), 1);
        assert_eq!(seq[0].cell, Some(3));
        assert_eq!(
            r.verdict,
            Some(Verdict::Restorable {
                by: FailureClass::Environment
            })
        );
        assert!(r.error_after().is_none());
        assert_eq!(r.release_failures.as_deref(), Some(&[][..]));
    }

    #[test]
    fn pathological_when_the_code_itself_fails_after_repair() {
        let mut r = record();
        record_runs(
            &mut r,
            &Runs {
                before: Some(missing("pandas", 1)),
                rounds: vec![raised("ValueError", 4)],
                failed: Vec::new(),
            },
        );
        assert_eq!(r.verdict, Some(Verdict::Pathological));
        assert_eq!(r.executability_after.unwrap().cells_ran, 3);
        assert_eq!(r.error_after().unwrap().type_name(), "ValueError");
    }

    #[test]
    fn executable_as_it_was() {
        let mut r = record();
        record_runs(
            &mut r,
            &Runs {
                before: Some(ran()),
                rounds: vec![ran()],
                failed: Vec::new(),
            },
        );
        assert_eq!(r.verdict, Some(Verdict::Executable));
        assert!(r.first_error.is_none());
        assert_eq!(r.error_sequence.as_deref(), Some(&[][..]));
    }

    #[test]
    fn without_a_run_before_the_first_round_stands_for_it() {
        let mut r = record();
        record_runs(
            &mut r,
            &Runs {
                before: None,
                rounds: vec![RunOutcome {
                    executability: Some(exe(1, 5, Some(2))),
                    failure: Some(Failure::new(
                        Cause::Undefined {
                            name: "df".into(),
                            definition: Definition::Later { cell: 4, line: 1 },
                        },
                        Some(2),
                        None,
                    )),
                    ename: Some("NameError".into()),
                }],
                failed: Vec::new(),
            },
        );
        assert!(r.executability_before.is_none());
        assert_eq!(r.first_error.as_ref().unwrap().type_name(), "NameError");
        assert_eq!(
            r.verdict,
            Some(Verdict::Restorable {
                by: FailureClass::Code
            })
        );
    }

    #[test]
    fn an_environment_that_never_built_and_its_failed_release() {
        let install = RunOutcome {
            executability: None,
            failure: Some(Failure::new(
                Cause::Raised { ename: "x".into() },
                None,
                None,
            )),
            ename: None,
        };
        let install = RunOutcome {
            failure: install.failure.map(|mut f| {
                f.class = FailureClass::Environment;
                f
            }),
            ..install
        };
        let mut r = record();
        record_runs(
            &mut r,
            &Runs {
                before: Some(missing("gast", 1)),
                rounds: vec![install],
                failed: vec![LearnedFailure {
                    dist: DistName::new("gast").unwrap(),
                    version: "0.2.2".parse().unwrap(),
                    python: PythonVersion::parse("3.6").unwrap(),
                    step: FailedStep::Install,
                    detail: String::new(),
                    at: jiff::Timestamp::UNIX_EPOCH,
                    notebook: "nb.ipynb".into(),
                }],
            },
        );
        assert!(r.executability_after.is_none());
        assert_eq!(
            r.verdict,
            Some(Verdict::Restorable {
                by: FailureClass::Environment
            })
        );
        let failed = r.release_failures.as_ref().unwrap();
        assert_eq!(failed.len(), 1);
        assert_eq!(failed[0].kind, ReleaseFailureKind::Install);
        assert_eq!(failed[0].python.to_string(), "3.6");
    }
}
