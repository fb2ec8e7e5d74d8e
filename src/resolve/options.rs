//! How an inference runs, decided once from a command's arguments: `infer`'s, `restore`'s
//! (every round), a batch's (every notebook). The commands' flags are the user's words; these
//! are the decisions the session reads, so that no command builds another's arguments.

use std::path::PathBuf;
use std::time::Duration;

use crate::python::PythonVersion;
pub use crate::resolve::era::EraChoice;

#[derive(Debug, Clone)]
pub struct InferOptions {
    /// A notebook, or a folder for one environment that every `.ipynb` under it runs in.
    pub notebook: PathBuf,
    /// Resolve for this Python only; else the plan over those allowed.
    pub python: Option<PythonVersion>,
    /// Who fixed [`InferOptions::python`]: the header says why that Python.
    pub python_source: PythonSource,
    pub cap: DateCap,
    /// The notebook's era, preferred for every release chosen (`--date`).
    pub era: EraChoice,
    pub sdists: Sdists,
    pub indexing: Indexing,
    pub introspect: Introspect,
    /// Worker threads when indexing what the bank lacks.
    pub jobs: usize,
    /// Read the repository's declarations beside the notebook, as soft evidence.
    pub declarations: bool,
}

/// Who fixed the Python a resolution is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PythonSource {
    /// The user, with `--python`.
    #[default]
    Asked,
    /// A modernized notebook runs on the newest interpreter installed here, unless `--python`
    /// says otherwise.
    NewestInstalled,
}

/// Which files of the index count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DateCap {
    /// All of them.
    None,
    /// Those uploaded before this instant (`--exclude-newer`).
    Before(jiff::Timestamp),
}

/// What may be installed from an sdist.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sdists {
    /// Pure-Python ones where a release has no wheel for the target, and any when no
    /// resolution from wheels exists (the output then names what is built).
    AsFallback,
    /// Any, from the start, competing with wheels (`--allow-sdist`).
    Allowed,
    /// None (`--wheels-only`).
    Never,
}

/// What the bank lacks, and how it is filled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Indexing {
    /// The releases the evidence needs, lazily.
    Needed,
    /// The whole history of each distribution the bank lacks, first.
    FullHistory,
    /// Nothing: resolve with what the bank has (`--no-index`, `--offline`).
    Never,
}

/// Whether releases are run to settle what static reading cannot tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Introspect {
    Never,
    /// Within this much time in all, per resolution.
    Within(Duration),
}

impl InferOptions {
    /// The defaults `nbenv infer NOTEBOOK` has.
    pub fn new(notebook: PathBuf) -> Self {
        Self {
            notebook,
            python: None,
            python_source: PythonSource::Asked,
            cap: DateCap::None,
            era: EraChoice::Auto,
            sdists: Sdists::AsFallback,
            indexing: Indexing::Needed,
            introspect: Introspect::Within(Duration::from_secs(30)),
            jobs: 8,
            declarations: true,
        }
    }

    pub fn introspect_budget(&self) -> Option<Duration> {
        match self.introspect {
            Introspect::Never => None,
            Introspect::Within(d) => Some(d),
        }
    }
}
