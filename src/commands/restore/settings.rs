//! `restore`'s settings: what the command line (or `modernize`, or a test) decided, as plain
//! values; and which notebook one restoration's rounds run.

use std::path::PathBuf;
use std::time::Duration;

use crate::modernize::prefer::Mode;
use crate::notebook::Notebook;
use crate::python::PythonVersion;
use crate::resolve::options::{DateCap, EraChoice, InferOptions, Introspect, PythonSource, Sdists};

#[derive(Debug, Clone)]
pub struct RestoreSettings {
    /// The notebook (`.ipynb`, or a percent-format / plain `.py`).
    pub notebook: PathBuf,
    /// Where the final requirements are written (atomically); `None`: the caller prints them.
    pub output: Option<PathBuf>,
    /// Rounds of infer, build and run at most.
    pub max_rounds: usize,
    /// The Python to resolve for (it must be installed here to run the notebook).
    pub python: Option<PythonVersion>,
    /// Who fixed `python`.
    pub python_source: PythonSource,
    pub sdists: Sdists,
    /// Files uploaded after a date ignored.
    pub cap: DateCap,
    /// The notebook's era, preferred for every release chosen.
    pub era: EraChoice,
    /// The repository's declarations beside the notebook are read.
    pub declarations: bool,
    /// What introspection may take in all, per resolution (a round is one).
    pub introspect_budget: Duration,
    pub cell_timeout: Duration,
    pub run_timeout: Duration,
    /// Cells run with the kernel runtime (IPython), not as plain Python.
    pub kernel_runtime: bool,
    /// After a successful restore, ipykernel is installed and a Jupyter kernel registered.
    pub kernel_spec: bool,
    /// Where the notebook as the last run left it is written.
    pub executed: Option<PathBuf>,
    /// Where the final environment as installed is written.
    pub lock: Option<PathBuf>,
    pub prefer: Mode,
    /// Runs are confined (no network, limits).
    pub sandbox: bool,
}

impl RestoreSettings {
    /// `restore`'s defaults for `notebook`, as its command line has them.
    pub fn new(notebook: PathBuf) -> Self {
        Self {
            notebook,
            output: None,
            max_rounds: 4,
            python: None,
            python_source: PythonSource::default(),
            sdists: Sdists::AsFallback,
            cap: DateCap::None,
            era: EraChoice::Auto,
            declarations: true,
            introspect_budget: Duration::from_secs(30),
            cell_timeout: Duration::from_secs(600),
            run_timeout: Duration::from_secs(3600),
            kernel_runtime: true,
            kernel_spec: true,
            executed: None,
            lock: None,
            prefer: Mode::Era,
            sandbox: false,
        }
    }

    /// How the rounds' inferences run for `target`.
    pub fn infer_options(&self, target: &Target) -> InferOptions {
        InferOptions {
            python: target.python,
            python_source: target.python_source,
            cap: self.cap,
            era: target.era,
            sdists: self.sdists,
            introspect: Introspect::Within(self.introspect_budget),
            declarations: self.declarations,
            ..InferOptions::new(target.notebook.clone())
        }
    }
}

/// Which notebook a restoration's rounds run, on which Python, in which era.
pub struct Target {
    /// The notebook as the rounds read it.
    pub notebook: PathBuf,
    pub nb: Notebook,
    pub python: Option<PythonVersion>,
    pub python_source: PythonSource,
    pub era: EraChoice,
    /// For a modernized notebook: its original, whose code a run may move further forward.
    pub original: Option<Original>,
}

/// The notebook a modernized one was made from, and whether the rounds run its candidates.
pub struct Original {
    pub nb: Notebook,
    pub bytes: Vec<u8>,
    pub candidates: bool,
    /// Its local modules as modernized: the runs read their moved text (of the variant
    /// run) in place of the files, and they move with the notebook.
    pub modules: Vec<crate::modernize::ModernModule>,
}

impl Target {
    /// The notebook as it is, on its own Python (or the one asked), in its era.
    pub fn era(settings: &RestoreSettings, nb: Notebook) -> Self {
        Self {
            notebook: settings.notebook.clone(),
            nb,
            python: settings.python,
            python_source: settings.python_source,
            era: settings.era,
            original: None,
        }
    }
}
