//! Exit codes: the contract scripts and batch pipelines rely on. [`Code`] is the one table;
//! the table in docs/reference/exit-codes.md is checked against it by a test. Codes are
//! decided on error types, never on the text of a message.

use std::process::ExitCode;

use nbenv::bank::indexer::{FailureKind, IndexError};
use nbenv::bank::snapshot::SnapshotError;
use nbenv::bank::store::StoreError;
use nbenv::commands::CommandError;
use nbenv::disk_full::DiskFull;
use nbenv::measure::InputError;
use nbenv::modernize::restoring::AttemptError;
use nbenv::modernize::ModernizeError;
use nbenv::notebook::NotebookError;
use nbenv::pypi::PypiError;
use nbenv::resolve::evidence::{BankReadError, EvidenceError};
use nbenv::resolve::infer::InferError;
use nbenv::resolve::session::SessionError;
use nbenv::restore::RoundError;

/// Every exit code nbenv uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Code {
    Success,
    /// Any failure without a more specific code.
    Failure,
    /// Bad command-line arguments or environment variables (clap's own code is 2 too).
    Usage,
    /// The project, release, API or module does not exist on the index or in the bank, or the
    /// bank file does not exist.
    NotFound,
    /// The index could not be reached or answered errors after retries, or `--offline` and the
    /// answer is not cached.
    Network,
    /// A file from the index is corrupt, refused by the limits, or fails its hash.
    BadArchive,
    /// Some of the work could not be done and the rest was: each failure is reported.
    Partial,
    /// The bank cannot be used: not an nbenv bank, corrupt, or from a newer nbenv.
    Bank,
    /// A bank snapshot is refused: not a snapshot, truncated, corrupt, from a newer nbenv,
    /// or over the size limit. The bank was left as it was.
    Snapshot,
    /// The disk (or the quota) under a file nbenv was writing is full; what the bank and the
    /// cache held before is intact.
    DiskFull,
    NotebookBrokenJson,
    NotANotebook,
    NotebookEmpty,
    NotebookNotPython,
    NotebookUnreadable,
    /// Resolution: no environment satisfies the notebook's evidence on any interpreter tried.
    NoSolution,
    /// Verification: the notebook stopped at an error (the summary names it and its class).
    NotebookFailed,
    /// Verification: the environment could not be built (the installer's words are shown).
    EnvironmentFailed,
    /// Verification: `--sandbox` was asked for and this system cannot confine the run.
    SandboxUnavailable,
    /// Stopped by Ctrl-C after saying what was kept (128 + SIGINT, as shells report it).
    Interrupted,
}

impl Code {
    pub const ALL: [Code; 20] = [
        Code::Success,
        Code::Failure,
        Code::Usage,
        Code::NotFound,
        Code::Network,
        Code::BadArchive,
        Code::Partial,
        Code::Bank,
        Code::Snapshot,
        Code::DiskFull,
        Code::NotebookBrokenJson,
        Code::NotANotebook,
        Code::NotebookEmpty,
        Code::NotebookNotPython,
        Code::NotebookUnreadable,
        Code::NoSolution,
        Code::NotebookFailed,
        Code::EnvironmentFailed,
        Code::SandboxUnavailable,
        Code::Interrupted,
    ];

    pub fn value(self) -> u8 {
        match self {
            Code::Success => 0,
            Code::Failure => 1,
            Code::Usage => 2,
            Code::NotFound => 3,
            Code::Network => 4,
            Code::BadArchive => 5,
            Code::Partial => 6,
            Code::Bank => 7,
            Code::Snapshot => 8,
            Code::DiskFull => 9,
            Code::NotebookBrokenJson => 10,
            Code::NotANotebook => 11,
            Code::NotebookEmpty => 12,
            Code::NotebookNotPython => 13,
            Code::NotebookUnreadable => 14,
            Code::NoSolution => 20,
            Code::NotebookFailed => 21,
            Code::EnvironmentFailed => 22,
            Code::SandboxUnavailable => 23,
            Code::Interrupted => 130,
        }
    }

    /// What the code means, as `nbenv --help` and docs/reference/exit-codes.md say it.
    pub fn meaning(self) -> &'static str {
        match self {
            Code::Success => "Success",
            Code::Failure => "Failure without a more specific code",
            Code::Usage => "Bad command-line arguments or environment variables",
            Code::NotFound => {
                "Not found: the project, release, API, module or bank file does not exist"
            }
            Code::Network => {
                "Index unreachable or answering errors after retries, or `--offline` and not cached"
            }
            Code::BadArchive => {
                "A file from the index is corrupt, refused by the limits, or fails its hash"
            }
            Code::Partial => {
                "Partly done: some of what was asked failed (each is reported), the rest is done"
            }
            Code::Bank => {
                "Unusable bank: a directory, not an nbenv bank, corrupt, from a newer nbenv, being written by another nbenv with `--no-wait`, or (`bank import`) open in another process"
            }
            Code::Snapshot => {
                "Refused bank snapshot: not an nbenv snapshot, truncated, corrupt (checksum or SQLite integrity), holding no nbenv bank, from a newer nbenv, or over `--max-size`; the bank is left as it was"
            }
            Code::DiskFull => {
                "Disk full: no space (or quota) left where nbenv was writing, named in the message; the bank and the cache keep what was written before"
            }
            Code::NotebookBrokenJson => "Notebook: broken JSON",
            Code::NotANotebook => {
                "Notebook: not a notebook (other JSON, or a file that is not JSON)"
            }
            Code::NotebookEmpty => "Notebook: no non-empty code cell",
            Code::NotebookNotPython => "Notebook: non-Python kernel (R, Julia, ...)",
            Code::NotebookUnreadable => {
                "Notebook: unreadable file (missing, permissions, a non-UTF-8 `.py`)"
            }
            Code::NoSolution => {
                "Resolution: no environment satisfies the notebook's evidence on any interpreter tried"
            }
            Code::NotebookFailed => {
                "Verification: the notebook stopped at an error (its cell and class are reported)"
            }
            Code::EnvironmentFailed => {
                "Verification: the environment could not be built (the installer's words are reported)"
            }
            Code::SandboxUnavailable => {
                "Verification: `--sandbox` asked for, and this system allows no network namespace to confine the run"
            }
            Code::Interrupted => "Interrupted (Ctrl-C), after saying what was kept",
        }
    }

    /// The code for a failed release or distribution of this kind.
    pub fn of_failure(kind: FailureKind) -> Code {
        match kind {
            FailureKind::NotFound => Code::NotFound,
            FailureKind::Network => Code::Network,
            FailureKind::Archive => Code::BadArchive,
            FailureKind::Bank => Code::Bank,
            FailureKind::DiskFull => Code::DiskFull,
            FailureKind::NoFile | FailureKind::Other => Code::Failure,
        }
    }
}

/// An error the command line itself decides the code of.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct CliError {
    pub code: Code,
    pub message: String,
}

impl CliError {
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
        }
    }

    /// Something the user asked for does not exist.
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(Code::NotFound, message)
    }

    /// Some of the work failed while the rest succeeded.
    pub fn partial(message: impl Into<String>) -> Self {
        Self::new(Code::Partial, message)
    }

    /// A bad value in the arguments or the environment.
    pub fn usage(message: impl Into<String>) -> Self {
        Self::new(Code::Usage, message)
    }

    /// A failure already printed where it happened: only its code is left to give.
    pub fn reported(code: Code) -> Self {
        Self::new(code, "")
    }

    /// The user stopped the command; `message` says what was kept.
    pub fn interrupted(message: impl Into<String>) -> Self {
        Self::new(Code::Interrupted, message)
    }
}

/// Prints the error (each cause once) and turns the result into an exit code.
pub fn report(result: anyhow::Result<()>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::from(Code::Success.value()),
        // `nbenv ... | head` closing the pipe early is not a failure.
        Err(err) if is_broken_pipe(&err) => ExitCode::from(Code::Success.value()),
        Err(err) => {
            let code = code_for(&err);
            super::printer::block(&render(&err, code));
            ExitCode::from(code.value())
        }
    }
}

/// `error: <message>`, then each cause that says something new. Library errors often repeat
/// their source in their own message (`cannot read x: No such file`, then `No such file`), and
/// SQLite prefixes its own code to the same words; those repeats are dropped.
pub fn render(err: &anyhow::Error, code: Code) -> String {
    let label = if code == Code::Interrupted {
        super::printer::Label::Interrupted
    } else {
        super::printer::Label::Error
    }
    .prefix();
    let mut said: Vec<String> = Vec::new();
    let mut out = String::new();
    for cause in err.chain() {
        let text = cause.to_string();
        // `Error code 266: disk I/O error` adds only a label to words already said.
        let tail = text.split_once(": ").map_or(text.as_str(), |(_, t)| t);
        let repeats = said
            .iter()
            .any(|s| s.contains(text.as_str()) || s.contains(tail));
        if text.is_empty() || repeats {
            continue;
        }
        if said.is_empty() {
            out.push_str(&format!("{label} {text}\n"));
        } else {
            out.push_str(&format!("  caused by: {text}\n"));
        }
        said.push(text);
    }
    out
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// The most specific code that any error in the chain maps to.
/// The bank's errors: a missing bank is not found, any other makes the bank unusable
/// (corrupt, foreign, newer, busy).
fn of_pypi(e: &PypiError) -> Code {
    match e {
        // `--index-url` or `NBENV_INDEX_URL` is what the user typed.
        PypiError::BadIndexUrl { .. } => Code::Usage,
        e => Code::of_failure(FailureKind::of(e)),
    }
}

/// A command's error: its cause's code (the cause is transparent, so not in the chain).
fn of_command(e: &CommandError) -> Option<Code> {
    match e {
        CommandError::Notebook(e) => Some(of_notebook(e)),
        CommandError::Session(e) => of_session(e),
        CommandError::Round(e) => of_round(e),
        CommandError::Attempt(e) => of_attempt(e),
        CommandError::Index(e) => Some(of_pypi(e)),
        CommandError::Write(_) => None,
        CommandError::WouldOverwriteInput(_)
        | CommandError::WritesInput { .. }
        | CommandError::AskedNotAnInterpreter { .. } => Some(Code::Usage),
        CommandError::Store(e) => Some(of_store(e)),
        CommandError::Modernize(e) => Some(of_modernize(e)),
        CommandError::Prepare(_) => None,
        CommandError::RangesNeedRequirements => Some(Code::Usage),
        CommandError::BankRead(BankReadError::Store(e)) => Some(of_store(e)),
        // The index's error is below them in the chain.
        CommandError::Catalog(_) | CommandError::Pylock(_) => None,
        CommandError::Requirements { .. }
        | CommandError::PythonNotInstalled { .. }
        | CommandError::NoInterpreterFits => Some(Code::NotFound),
        CommandError::Env(e) => Some(of_env(e)),
        // Below it in the chain: the run's own error (the sandbox refused, say).
        CommandError::Interpreter(_) | CommandError::Run { .. } => None,
        CommandError::Inputs(InputError::Missing { .. }) => Some(Code::NotFound),
        CommandError::Inputs(InputError::SameName { .. }) => Some(Code::Usage),
        CommandError::Inputs(_) | CommandError::Records { .. } | CommandError::Append(_) => None,
        // The index's or the store's error is below them in the chain.
        CommandError::Build { .. } | CommandError::Introspect { .. } => None,
        CommandError::NoInterpreterToIntrospect
        | CommandError::NotInList(_)
        | CommandError::NoSuchFile(_)
        | CommandError::NoSuchRelease { .. } => Some(Code::NotFound),
        CommandError::Listing { .. } | CommandError::CoreMetadata { .. } => None,
        CommandError::RecordsFile(_)
        | CommandError::ChartDir { .. }
        | CommandError::WriteFile { .. } => None,
    }
}

fn of_attempt(e: &AttemptError) -> Option<Code> {
    match e {
        AttemptError::Round(e) => of_round(e),
        AttemptError::Notebook(e) => Some(of_notebook(e)),
        AttemptError::NoPython => Some(Code::NotFound),
        AttemptError::Stopped => Some(Code::Interrupted),
        AttemptError::Modernize(_) | AttemptError::Copy(_) | AttemptError::Evidence(_) => None,
    }
}

fn of_modernize(e: &ModernizeError) -> Code {
    match e {
        ModernizeError::Store(e) => of_store(e),
        ModernizeError::NotNbformat4 { .. } => Code::NotANotebook,
        ModernizeError::Json { .. } => Code::NotebookBrokenJson,
    }
}

fn of_store(e: &StoreError) -> Code {
    match e {
        StoreError::Missing { .. } => Code::NotFound,
        _ => Code::Bank,
    }
}

/// A restoration round's codes, for the errors it holds transparently.
fn of_round(e: &RoundError) -> Option<Code> {
    match e {
        RoundError::Session(e) => of_session(e),
        RoundError::NotInstalled(_) => Some(Code::NotFound),
        RoundError::Env(e) => Some(of_env(e)),
        RoundError::Interpreter(_) | RoundError::Run { .. } => None,
    }
}

fn of_env(e: &nbenv::verify::EnvError) -> Code {
    match e {
        nbenv::verify::EnvError::Install { .. } => Code::EnvironmentFailed,
        _ => Code::Failure,
    }
}

/// An inference session's own codes, and those of the errors it holds transparently.
fn of_session(e: &SessionError) -> Option<Code> {
    match e {
        SessionError::Interrupted { .. } => Some(Code::Interrupted),
        SessionError::NoNotebook(_) => Some(Code::NotFound),
        SessionError::Store(e) => Some(of_store(e)),
        SessionError::BankRead(BankReadError::Store(e)) => Some(of_store(e)),
        SessionError::Notebook(e) => Some(of_notebook(e)),
        SessionError::Infer(e) => of_infer(e),
        SessionError::NoSolution { source, .. } => of_infer(source),
        _ => None,
    }
}

/// The resolver's codes; `None` where the cause further down the chain decides.
fn of_infer(e: &InferError) -> Option<Code> {
    match e {
        InferError::NoSolution { .. } | InferError::Joint(_) => Some(Code::NoSolution),
        // To run it here, a missing interpreter is something to install.
        InferError::NoInterpreter {
            reach: nbenv::resolve::interpreter::Reach::Installed,
            ..
        } => Some(Code::NotFound),
        InferError::NoInterpreter { .. } => Some(Code::NoSolution),
        InferError::Interrupted => Some(Code::Interrupted),
        InferError::Evidence(EvidenceError::Bank(BankReadError::Store(e))) => Some(of_store(e)),
        // The catalog's cause (an index error) is further down the chain.
        InferError::Catalog(_) | InferError::Evidence(_) => None,
    }
}

fn of_notebook(e: &NotebookError) -> Code {
    match e {
        NotebookError::BrokenJson { .. } => Code::NotebookBrokenJson,
        NotebookError::NotANotebook { .. } => Code::NotANotebook,
        NotebookError::Empty { .. } => Code::NotebookEmpty,
        NotebookError::NotPython { .. } => Code::NotebookNotPython,
        NotebookError::Io { .. } => Code::NotebookUnreadable,
    }
}

pub fn code_for(err: &anyhow::Error) -> Code {
    // Whatever was being done, the disk filling up is what stopped it.
    if is_disk_full(err) {
        return Code::DiskFull;
    }
    for cause in err.chain() {
        if let Some(e) = cause.downcast_ref::<CliError>() {
            return e.code;
        }
        if let Some(e) = cause.downcast_ref::<SnapshotError>() {
            return of_snapshot(e);
        }
        // `IndexError` wraps these transparently, so they are not in the chain themselves.
        let (pypi, store) = match cause.downcast_ref::<IndexError>() {
            Some(IndexError::Index(e)) => (Some(e), None),
            Some(IndexError::Store(e)) => (None, Some(e)),
            Some(other) => return Code::of_failure(other.kind()),
            None => (
                cause.downcast_ref::<PypiError>(),
                cause.downcast_ref::<StoreError>(),
            ),
        };
        // The resolver's bank errors are transparent: the store's error is inside, not below.
        let store = store.or(match cause.downcast_ref::<EvidenceError>() {
            Some(EvidenceError::Bank(BankReadError::Store(e))) => Some(e),
            _ => cause
                .downcast_ref::<BankReadError>()
                .map(|BankReadError::Store(e)| e),
        });
        if let Some(e) = store {
            return of_store(e);
        }
        if let Some(e) = pypi {
            return of_pypi(e);
        }
        if let Some(code) = cause.downcast_ref::<CommandError>().and_then(of_command) {
            return code;
        }
        if let Some(code) = cause.downcast_ref::<RoundError>().and_then(of_round) {
            return code;
        }
        if let Some(code) = cause.downcast_ref::<SessionError>().and_then(of_session) {
            return code;
        }
        if let Some(code) = cause.downcast_ref::<InferError>().and_then(of_infer) {
            return code;
        }
        if let Some(e) = cause.downcast_ref::<nbenv::verify::EnvError>() {
            return of_env(e);
        }
        if cause
            .downcast_ref::<nbenv::verify::sandbox::SandboxUnavailable>()
            .is_some()
            || matches!(
                cause.downcast_ref::<nbenv::verify::RunError>(),
                Some(nbenv::verify::RunError::Sandbox(_))
            )
        {
            return Code::SandboxUnavailable;
        }
        if let Some(e) = cause.downcast_ref::<NotebookError>() {
            return of_notebook(e);
        }
        if let Some(e) = cause.downcast_ref::<ModernizeError>() {
            return of_modernize(e);
        }
    }
    Code::Failure
}

/// Whether a full disk (or quota) is behind the error. Only nbenv's own error says so: it is
/// made where a file is written, since `ENOSPC` elsewhere means other things (`unshare` says
/// it when no more user namespaces are allowed).
fn is_disk_full(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| cause.is::<DiskFull>())
}

/// A snapshot error's code; those about the bank are the bank's codes.
fn of_snapshot(e: &SnapshotError) -> Code {
    match e {
        SnapshotError::Refused { .. } | SnapshotError::TooLarge { .. } => Code::Snapshot,
        SnapshotError::Missing { .. } => Code::NotFound,
        SnapshotError::BadSource { .. } => Code::Usage,
        SnapshotError::Fetch { source, .. } | SnapshotError::Cache { source, .. } => {
            Code::of_failure(FailureKind::of(source))
        }
        SnapshotError::Store(StoreError::Missing { .. }) => Code::NotFound,
        SnapshotError::Store(_)
        | SnapshotError::Sqlite { .. }
        | SnapshotError::BankInUse { .. } => Code::Bank,
        SnapshotError::BankNotEmpty { .. } | SnapshotError::Io { .. } => Code::Failure,
        SnapshotError::DiskFull(_) => Code::DiskFull,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use anyhow::Context;

    #[test]
    fn each_cause_is_said_once() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "No such file or directory");
        let err = NotebookError::Io {
            path: "x.ipynb".into(),
            source: io,
        };
        let text = render(&anyhow::Error::new(err), Code::NotebookUnreadable);
        assert_eq!(
            text,
            "error: cannot read x.ipynb: No such file or directory\n"
        );

        let err = anyhow::anyhow!("Error code 266: disk I/O error")
            .context("disk I/O error")
            .context("bank b.sqlite3: disk I/O error");
        assert_eq!(
            render(&err, Code::Bank),
            "error: bank b.sqlite3: disk I/O error\n"
        );

        let err: anyhow::Result<()> = Err(anyhow::anyhow!("timed out"));
        let err = err.context("listing `six`").unwrap_err();
        assert_eq!(
            render(&err, Code::Network),
            "error: listing `six`\n  caused by: timed out\n"
        );
    }

    #[test]
    fn a_full_disk_is_its_code_wherever_it_is_in_the_chain() {
        use nbenv::disk_full::Written;
        let full = || std::io::Error::from_raw_os_error(28);
        let typed = DiskFull::of_io("/c/x".as_ref(), Written::Cache, &full()).unwrap();
        // Under a bank error, which would be "unusable bank" on its own.
        let err = anyhow::Error::new(IndexError::Store(StoreError::DiskFull(typed.clone())))
            .context("building the bank at b.sqlite3");
        assert_eq!(code_for(&err), Code::DiskFull);
        let err = anyhow::Error::new(IndexError::Index(PypiError::DiskFull(typed)));
        assert_eq!(code_for(&err), Code::DiskFull);
        let err = anyhow::Error::new(nbenv::output::WriteError::DiskFull(
            DiskFull::of_io("x".as_ref(), Written::Output, &full()).unwrap(),
        ));
        assert_eq!(code_for(&err), Code::DiskFull);
        // A release whose page failed for it, carried as its kind.
        let err = anyhow::Error::new(IndexError::Page {
            reason: "no space".into(),
            kind: FailureKind::DiskFull,
        });
        assert_eq!(code_for(&err), Code::DiskFull);
        // The words alone are nothing, and neither is ENOSPC from no write (`unshare` says it
        // when user namespaces run out).
        let err = anyhow::anyhow!("No space left on device (os error 28)");
        assert_eq!(code_for(&err), Code::Failure);
        let sandbox = anyhow::Error::new(full()).context("--sandbox needs a network namespace");
        assert_eq!(code_for(&sandbox), Code::Failure);
    }

    #[test]
    fn a_damaged_bank_met_while_resolving_is_the_bank_error() {
        let corrupt = || StoreError::Corrupt {
            path: "bank.sqlite3".into(),
            what: "apis row (id 1): its values do not match its seal".into(),
        };
        // The resolver's errors are transparent: the store's is inside them, not below.
        let infer = InferError::Evidence(EvidenceError::Bank(BankReadError::Store(corrupt())));
        let err = anyhow::Error::new(infer).context("inferring nb.ipynb");
        assert_eq!(code_for(&err), Code::Bank);
        let err = anyhow::Error::new(EvidenceError::Bank(BankReadError::Store(corrupt())));
        assert_eq!(code_for(&err), Code::Bank);
        let missing = StoreError::Missing {
            path: "bank.sqlite3".into(),
        };
        let err = anyhow::Error::new(BankReadError::Store(missing));
        assert_eq!(code_for(&err), Code::NotFound);
    }

    #[test]
    fn codes_are_distinct() {
        let mut values: Vec<u8> = Code::ALL.iter().map(|c| c.value()).collect();
        values.sort_unstable();
        values.dedup();
        assert_eq!(values.len(), Code::ALL.len());
    }
}
