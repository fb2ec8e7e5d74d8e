//! Why a command could not do what it was asked; each cause keeps its own type, so that the
//! command line decides exit codes on types.

use std::path::PathBuf;

use crate::modernize::restoring::AttemptError;
use crate::notebook::NotebookError;
use crate::output::WriteError;
use crate::pypi::PypiError;
use crate::python::{NotAnInterpreter, PythonVersion};
use crate::resolve::session::SessionError;
use crate::restore::RoundError;

#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    #[error(transparent)]
    Notebook(#[from] NotebookError),
    #[error(transparent)]
    Session(#[from] SessionError),
    #[error(transparent)]
    Round(#[from] RoundError),
    #[error(transparent)]
    Attempt(#[from] AttemptError),
    /// Setting up the index client (a bad `--index-url`, the TLS roots).
    #[error("setting up the index client: {0}")]
    Index(#[from] PypiError),
    #[error(transparent)]
    Write(#[from] WriteError),
    #[error(
        "{0}: the modernized notebook would be written over the input, which restore never writes"
    )]
    WouldOverwriteInput(PathBuf),
    #[error("reading {}: {source}", path.display())]
    Requirements {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("no Python {version} is installed here ({why}); install one (pyenv install {version}) or pass --python")]
    PythonNotInstalled {
        version: PythonVersion,
        why: &'static str,
    },
    #[error("--python {}: {asked}", asked.path.display())]
    AskedNotAnInterpreter { asked: NotAnInterpreter },
    #[error(transparent)]
    Interpreter(#[from] NotAnInterpreter),
    #[error("no installed interpreter fits the notebook; pass --python")]
    NoInterpreterFits,
    #[error(transparent)]
    Env(#[from] crate::verify::EnvError),
    #[error("running {}", notebook.display())]
    Run {
        notebook: PathBuf,
        source: crate::verify::RunError,
    },
    #[error("{flag} {}: that is the input notebook, which modernize never writes", path.display())]
    WritesInput { flag: &'static str, path: PathBuf },
    #[error(transparent)]
    Store(#[from] crate::bank::store::StoreError),
    #[error(transparent)]
    Modernize(#[from] crate::modernize::ModernizeError),
    #[error(transparent)]
    Prepare(#[from] crate::modernize::prepare::PrepareError),
    #[error("--ranges is for the requirements format only")]
    RangesNeedRequirements,
    #[error(transparent)]
    Catalog(#[from] crate::resolve::solver::CatalogError),
    #[error(transparent)]
    Pylock(#[from] crate::output::PylockError),
    #[error(transparent)]
    BankRead(#[from] crate::resolve::evidence::BankReadError),
    /// A batch's INPUTs: missing, unreadable, or two notebooks named alike.
    #[error(transparent)]
    Inputs(#[from] crate::measure::InputError),
    /// What a batch's output holds already could not be read.
    #[error("reading what {} holds already", path.display())]
    Records {
        path: PathBuf,
        source: crate::measure::RecordsError,
    },
    #[error(transparent)]
    Append(#[from] crate::measure::AppendError),
    #[error("building the bank at {}", bank.display())]
    Build {
        bank: PathBuf,
        source: crate::bank::indexer::IndexError,
    },
    #[error("introspecting into the bank at {}", bank.display())]
    Introspect {
        bank: PathBuf,
        source: crate::bank::indexer::IndexError,
    },
    #[error("no Python interpreter found (give one with --python PATH)")]
    NoInterpreterToIntrospect,
    #[error(transparent)]
    NotInList(#[from] crate::commands::bank::NotInList),
    #[error("{}: there is no such file", .0.display())]
    NoSuchFile(PathBuf),
    #[error(transparent)]
    RecordsFile(#[from] crate::measure::RecordsError),
    #[error("cannot create the chart directory {}", dir.display())]
    ChartDir {
        dir: PathBuf,
        source: std::io::Error,
    },
    #[error("listing `{name}` on {url}")]
    Listing {
        name: crate::names::DistName,
        url: String,
        source: PypiError,
    },
    #[error(
        "`{name}` has no release {version} on {url} (latest: {})",
        latest(recent)
    )]
    NoSuchRelease {
        name: crate::names::DistName,
        version: crate::pypi::Version,
        url: String,
        /// Its newest releases, newest first.
        recent: Vec<crate::pypi::Version>,
    },
    #[error("reading the core metadata of {file}")]
    CoreMetadata { file: String, source: PypiError },
    #[error("cannot write {what} to {}", path.display())]
    WriteFile {
        what: &'static str,
        path: PathBuf,
        source: WriteError,
    },
}

fn latest(recent: &[crate::pypi::Version]) -> String {
    if recent.is_empty() {
        return "none".to_string();
    }
    let said: Vec<String> = recent.iter().map(|v| v.to_string()).collect();
    said.join(", ")
}
