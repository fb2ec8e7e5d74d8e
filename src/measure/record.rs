//! One notebook's measurements, as one line of a batch's JSONL output. Versioned by
//! [`SCHEMA`]; a field a stage does not compute is absent, never filled with a guess, so a
//! reader tells "not measured" from "measured as zero".

use serde::{Deserialize, Serialize};

use super::triage::Triage;
use crate::modernize::prefer::Mode;
use crate::names::DistName;
use crate::notebook::failure::{Cause, Definition, Failure, FailureClass};
use crate::python::PythonVersion;
use pep508_rs::pep440_rs::Version;

/// The version of the record format. It goes up when a field changes meaning or goes away,
/// not when one is added; readers refuse records of a newer one.
pub const SCHEMA: u32 = 1;

/// How far a batch takes each notebook; each stage includes the ones before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// Read and analyse the notebook; triage it statically.
    Usage,
    /// Also resolve its environment (pre-flight triage without running).
    Infer,
    /// Also build that environment and run the notebook once.
    Verify,
    /// Also repair what the run reveals, round after round.
    Restore,
}

impl Stage {
    pub fn as_str(self) -> &'static str {
        match self {
            Stage::Usage => "usage",
            Stage::Infer => "infer",
            Stage::Verify => "verify",
            Stage::Restore => "restore",
        }
    }
}

/// Whether the stage reached its result for the notebook. What the result says (the
/// notebook failed to run, an import has no provider) is data in the other fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Ok,
    /// Resolution found no environment for the notebook's evidence on any Python tried.
    NoSolution,
    /// The stage could not process the notebook (see `error`).
    Error,
    /// The notebook's work passed the per-notebook time limit.
    Timeout,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::NoSolution => "no_solution",
            Status::Error => "error",
            Status::Timeout => "timeout",
        }
    }
}

/// Why a stage could not process a notebook, decided on error types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    BrokenJson,
    NotANotebook,
    /// No non-empty code cell.
    Empty,
    /// Another language's kernel.
    NotPython,
    /// The file could not be read.
    Unreadable,
    NotFound,
    Network,
    BadArchive,
    Bank,
    /// Resolution found no environment (status `no_solution`; the message gives each
    /// Python's reason).
    NoSolution,
    /// Past the per-notebook time limit (status `timeout`).
    Timeout,
    /// The notebook resolved for a Python this machine does not have, so it could not run
    /// (stages verify and restore).
    PythonMissing,
    /// A bug in nbenv (a panic), caught so that the batch goes on.
    Internal,
    Other,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordError {
    pub kind: ErrorKind,
    pub message: String,
}

/// What the notebook is, as read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NotebookFacts {
    /// `ipynb 4.2`, `percent script` or `script`.
    pub format: String,
    pub cells: u32,
    /// Non-empty code cells.
    pub code_cells: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel: Option<String>,
    /// `metadata.language_info.version`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language_version: Option<String>,
}

/// A distribution the notebook needs, at the version resolved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Requirement {
    pub dist: DistName,
    pub version: Version,
}

/// The environment inferred for the notebook.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Environment {
    pub python: PythonVersion,
    /// An interpreter of that version is installed on the machine that measured.
    pub python_installed: bool,
    /// What the notebook asks for, by name.
    pub requirements: Vec<Requirement>,
    /// The rest of the resolution: what those require, by name.
    pub dependencies: Vec<Requirement>,
    /// Pins to be built from their sdists: pure-Python ones, and any when no resolution from
    /// wheels alone existed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub built_from_sdist: Vec<Requirement>,
}

/// How far a run got (Nguyen et al.): cells run before the first error over the non-empty
/// code cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Executability {
    pub cells_ran: u32,
    pub code_cells: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_error_cell: Option<u32>,
}

impl Executability {
    /// Between 0 and 1; 1 for a notebook without code cells.
    pub fn share(&self) -> f64 {
        if self.code_cells == 0 {
            1.0
        } else {
            f64::from(self.cells_ran.min(self.code_cells)) / f64::from(self.code_cells)
        }
    }

    pub fn complete(&self) -> bool {
        self.first_error_cell.is_none() && self.cells_ran >= self.code_cells
    }
}

impl From<&crate::verify::Executability> for Executability {
    fn from(e: &crate::verify::Executability) -> Self {
        Self {
            cells_ran: e.cells_before_first_error,
            code_cells: e.code_cells,
            first_error_cell: e.first_error_cell,
        }
    }
}

/// An error as the report counts it: its class, its cause and its exception type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorType {
    pub class: FailureClass,
    /// The classifier's cause (`missing_module`, `missing_file`, `undefined`, ...).
    pub cause: String,
    /// The exception's type (`ModuleNotFoundError`); absent when nothing was raised (a time
    /// limit, a signal, an install).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ename: Option<String>,
    /// The classifier's words.
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cell: Option<u32>,
}

impl ErrorType {
    pub fn of(failure: &Failure, ename: Option<&str>) -> Self {
        Self {
            class: failure.class,
            cause: cause_tag(&failure.cause),
            ename: ename.map(str::to_string),
            message: failure.cause.to_string(),
            cell: failure.cell,
        }
    }

    /// The exception type, or the cause when nothing was raised: what "error type" tables
    /// count. A program no Python package installs is counted apart from missing files,
    /// whose exception it shares.
    pub fn type_name(&self) -> &str {
        if self.cause == "missing_program" {
            return &self.cause;
        }
        self.ename.as_deref().unwrap_or(&self.cause)
    }
}

/// The cause's tag as it serializes (`missing_module`).
fn cause_tag(cause: &Cause) -> String {
    serde_json::to_value(cause)
        .ok()
        .and_then(|v| v.get("cause").and_then(|c| c.as_str()).map(str::to_string))
        .unwrap_or_default()
}

/// Executable, restorable or pathologically non-executable (Nguyen et al.).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Verdict {
    /// Ran to the end as it was.
    Executable,
    /// Stopped at an error that a suitable setting removes without changing the code: the
    /// environment, a missing input, an execution order, a machine with more memory or a GPU.
    Restorable { by: FailureClass },
    /// Stopped at an error in its own code that only changing it can remove.
    Pathological,
    /// Stopped at an error that is the environment's or the code's, and the bank could not
    /// tell which (failure class unknown).
    Unknown,
}

impl Verdict {
    /// The verdict on a notebook whose first run stopped at `first` (`None`: it ran to the
    /// end). A NameError whose name is bound later, or earlier by code that did not run, is
    /// an execution-order problem and so restorable; one bound nowhere, a syntax error, an
    /// exit or any other exception in the notebook's code is pathological.
    pub fn judge(first: Option<&Failure>) -> Verdict {
        let Some(failure) = first else {
            return Verdict::Executable;
        };
        match (&failure.class, &failure.cause) {
            (
                FailureClass::Code,
                Cause::Undefined {
                    definition: Definition::Later { .. } | Definition::Earlier { .. },
                    ..
                },
            ) => Verdict::Restorable {
                by: FailureClass::Code,
            },
            (FailureClass::Code, _) => Verdict::Pathological,
            (FailureClass::Unknown, _) => Verdict::Unknown,
            (class, _) => Verdict::Restorable { by: *class },
        }
    }
}

/// What went wrong with one release when its environment was built or used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReleaseFailureKind {
    /// It could not be installed.
    Install,
    /// It was installed, and importing it (or something of it) failed.
    Import,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReleaseFailure {
    pub dist: DistName,
    pub version: Version,
    pub python: PythonVersion,
    pub kind: ReleaseFailureKind,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub detail: String,
}

/// Wall time, in milliseconds, of what the stage did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Timings {
    pub total_ms: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub analyze_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub infer_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_ms: Option<f64>,
}

/// Milliseconds, to the microsecond.
pub fn millis(d: std::time::Duration) -> f64 {
    (d.as_secs_f64() * 1e6).round() / 1e3
}

/// One notebook's measurements at one stage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    pub schema: u32,
    /// The nbenv version that measured.
    pub nbenv: String,
    /// The notebook's path relative to the batch's INPUT, with `/` between parts.
    pub path: String,
    /// The sha256 of the file's bytes; absent when the file could not be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    pub stage: Stage,
    pub status: Status,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<RecordError>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notebook: Option<NotebookFacts>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub triage: Option<Triage>,
    /// The environment inferred (stage infer and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub environment: Option<Environment>,
    /// Executability in the environment the pipeline supplies (or a bare one), before any
    /// repair (stages verify and restore).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub executability_before: Option<Executability>,
    /// After the last repair round (stage restore).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub executability_after: Option<Executability>,
    /// The first run's first error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_error: Option<ErrorType>,
    /// Each round's first error, in order; a round that ran to the end has none and ends
    /// the sequence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_sequence: Option<Vec<ErrorType>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<Verdict>,
    /// Releases that failed to install or import, with the Python they were tried on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub release_failures: Option<Vec<ReleaseFailure>>,
    /// Stage restore: the mode of the restoration the other fields measure; absent in
    /// records made before `--prefer` (they are the era's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<Mode>,
    /// Stage restore with `--prefer modern`: how the modernized notebook fared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modern: Option<ModernAttempt>,
    pub timings: Timings,
}

/// The modern attempt of a notebook (`--prefer modern`): what modernizing changed, and
/// whether the modernized notebook ran to its end on today's Python.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModernAttempt {
    /// Changes made (in the notebook kept), and APIs that could not move.
    pub changes: usize,
    pub unmoved: usize,
    /// Python 2 code rewritten as Python 3 first (rewrites, each at one place).
    #[serde(default, skip_serializing_if = "python3_none")]
    pub python3: usize,
    /// What became of changes only a warning names, when there were some.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub candidates: Option<crate::modernize::trial::CandidatesKept>,
    pub ran: bool,
    /// The class of the error its last round stopped at, if one was raised.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<FailureClass>,
    /// Why it could not be modernized or restored at all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Where and why its last round stopped, as restore says it (`cell 4: environment: ...`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    /// The kept changes by evidence kind (`moved`, `shim`, `change-note`, ...).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub kinds: std::collections::BTreeMap<String, usize>,
    /// APIs its runs met missing, and how many of them its code moved past.
    #[serde(default, skip_serializing_if = "python3_none")]
    pub met: usize,
    #[serde(default, skip_serializing_if = "python3_none")]
    pub moved_by_runs: usize,
}

fn python3_none(n: &usize) -> bool {
    *n == 0
}

impl Record {
    /// A record with only what every stage knows; the stage fills in the rest.
    pub fn new(path: String, sha256: Option<String>, stage: Stage) -> Self {
        Self {
            schema: SCHEMA,
            nbenv: env!("CARGO_PKG_VERSION").to_string(),
            path,
            sha256,
            stage,
            status: Status::Ok,
            error: None,
            notebook: None,
            triage: None,
            environment: None,
            executability_before: None,
            executability_after: None,
            first_error: None,
            error_sequence: None,
            verdict: None,
            release_failures: None,
            mode: None,
            modern: None,
            timings: Timings::default(),
        }
    }

    /// The stage could not process the notebook.
    pub fn failed(&mut self, kind: ErrorKind, message: impl Into<String>) {
        self.status = Status::Error;
        self.error = Some(RecordError {
            kind,
            message: message.into(),
        });
    }

    /// Whether nbenv's rounds were measured (stages verify and restore): a round ran, or
    /// its environment failed to build (then the install failure is where it stops).
    pub fn after_measured(&self) -> bool {
        matches!(self.stage, Stage::Verify | Stage::Restore)
            && (self.executability_after.is_some()
                || self.error_sequence.as_ref().is_some_and(|s| !s.is_empty()))
    }

    /// Whether the notebook ran to its end after the last round, for stages that run it.
    pub fn ran_to_end(&self) -> Option<bool> {
        self.after_measured()
            .then(|| self.executability_after.is_some_and(|e| e.complete()))
    }

    /// The error the notebook still stops at after the last repair round: none when it then
    /// ran to the end; else the last round's (the sequence's last, or the first run's).
    pub fn error_after(&self) -> Option<&ErrorType> {
        if self.executability_after.is_some_and(|e| e.complete()) {
            return None;
        }
        match &self.error_sequence {
            Some(seq) => seq.last(),
            None => self.first_error.as_ref(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::names::ModulePath;

    fn failure(cause: Cause) -> Failure {
        Failure::new(cause, Some(3), None)
    }

    #[test]
    fn verdicts_follow_the_first_error() {
        assert_eq!(Verdict::judge(None), Verdict::Executable);
        let module = failure(Cause::MissingModule {
            module: ModulePath::new("sklearn").unwrap(),
            bank: None,
        });
        assert_eq!(
            Verdict::judge(Some(&module)),
            Verdict::Restorable {
                by: FailureClass::Environment
            }
        );
        let file = failure(Cause::MissingFile {
            path: Some("x.csv".into()),
        });
        assert_eq!(
            Verdict::judge(Some(&file)),
            Verdict::Restorable {
                by: FailureClass::DataInput
            }
        );
        let later = failure(Cause::Undefined {
            name: "df".into(),
            definition: Definition::Later { cell: 5, line: 1 },
        });
        assert_eq!(
            Verdict::judge(Some(&later)),
            Verdict::Restorable {
                by: FailureClass::Code
            }
        );
        let nowhere = failure(Cause::Undefined {
            name: "df".into(),
            definition: Definition::Nowhere,
        });
        assert_eq!(Verdict::judge(Some(&nowhere)), Verdict::Pathological);
        let raised = failure(Cause::Raised {
            ename: "ValueError".into(),
        });
        assert_eq!(Verdict::judge(Some(&raised)), Verdict::Pathological);
        // A name the installed release lacks, with no bank to say whether another has it.
        let unplaced = failure(Cause::MissingApi {
            api: crate::names::ApiPath::new("pandas.dataframe").unwrap(),
            bank: crate::notebook::failure::BankSays::Unknown,
        });
        assert_eq!(Verdict::judge(Some(&unplaced)), Verdict::Unknown);
    }

    #[test]
    fn absent_fields_stay_absent_and_records_read_back() {
        let record = Record::new("a/b.ipynb".into(), Some("ab12".into()), Stage::Usage);
        let line = serde_json::to_string(&record).unwrap();
        assert!(!line.contains("environment"), "{line}");
        assert!(!line.contains("verdict"), "{line}");
        assert!(line.starts_with("{\"schema\":1,"), "{line}");
        let back: Record = serde_json::from_str(&line).unwrap();
        assert_eq!(back, record);

        let typed = ErrorType::of(
            &failure(Cause::MissingModule {
                module: ModulePath::new("sklearn.cross_validation").unwrap(),
                bank: None,
            }),
            Some("ModuleNotFoundError"),
        );
        assert_eq!(typed.cause, "missing_module");
        assert_eq!(typed.type_name(), "ModuleNotFoundError");
        let verdict = serde_json::to_string(&Verdict::Restorable {
            by: FailureClass::DataInput,
        })
        .unwrap();
        assert_eq!(verdict, r#"{"kind":"restorable","by":"data_input"}"#);
    }

    /// `--prefer`'s fields read back; a record without them (made before) still reads, as
    /// the era's with nothing modern tried.
    #[test]
    fn the_mode_and_the_modern_attempt_read_back_and_old_records_still_read() {
        let mut record = Record::new("a.ipynb".into(), None, Stage::Restore);
        record.mode = Some(Mode::Era);
        record.modern = Some(ModernAttempt {
            changes: 3,
            unmoved: 1,
            python3: 0,
            candidates: Some(crate::modernize::trial::CandidatesKept::Dropped),
            ran: false,
            stop: Some(FailureClass::Code),
            error: None,
            failure: None,
            kinds: [("change-note".to_string(), 1), ("moved".to_string(), 2)].into(),
            met: 2,
            moved_by_runs: 1,
        });
        let line = serde_json::to_string(&record).unwrap();
        assert!(line.contains(r#""mode":"era""#), "{line}");
        assert!(
            line.contains(
                r#""modern":{"changes":3,"unmoved":1,"candidates":"dropped","ran":false,"stop":"code","kinds":{"change-note":1,"moved":2},"met":2,"moved_by_runs":1}"#
            ),
            "{line}"
        );
        let back: Record = serde_json::from_str(&line).unwrap();
        assert_eq!(back, record);

        let old = r#"{"schema":1,"nbenv":"0.1.0","path":"a.ipynb","stage":"restore","status":"ok","timings":{"total_ms":1.0}}"#;
        let old: Record = serde_json::from_str(old).unwrap();
        assert_eq!((old.mode, old.modern), (None, None));
    }
}
