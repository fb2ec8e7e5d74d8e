//! `batch`'s settings: what the command line (or a test) decided, as plain values.

use std::path::PathBuf;
use std::time::Duration;

use crate::measure::stages::Baseline;
use crate::measure::{Shard, Stage};
use crate::modernize::prefer::Mode;
use crate::python::PythonVersion;
use crate::resolve::options::{Indexing, InferOptions, Sdists};

#[derive(Debug, Clone)]
pub struct BatchSettings {
    /// Directories, notebooks, list files, or `-` for a list on standard input.
    pub inputs: Vec<PathBuf>,
    /// The JSONL file records are appended to.
    pub out: PathBuf,
    /// How far each notebook is taken.
    pub stage: Stage,
    /// Notebooks measured at once.
    pub jobs: usize,
    /// Only the notebooks of this shard.
    pub shard: Option<Shard>,
    /// Wall-time limit per notebook.
    pub timeout: Duration,
    /// How inference runs, for any notebook (its own path is set for each).
    pub infer: InferOptions,
    /// Stages verify and restore: what each notebook runs in first.
    pub before: Baseline,
    /// Stage restore: rounds of infer, build and run at most.
    pub max_rounds: usize,
    /// Stages verify and restore: what each cell may take.
    pub cell_timeout: Duration,
    /// Cells run with the kernel runtime (IPython), not as plain Python.
    pub kernel_runtime: bool,
    /// Stage restore: each notebook modernized first, or in its era alone.
    pub prefer: Mode,
    /// Runs are confined (no network, limits).
    pub sandbox: bool,
}

impl BatchSettings {
    /// `batch`'s defaults for `inputs` and `out`, as its command line has them.
    pub fn new(inputs: Vec<PathBuf>, out: PathBuf) -> Self {
        Self {
            inputs,
            out,
            stage: Stage::Infer,
            jobs: cores(),
            shard: None,
            timeout: Duration::from_secs(300),
            infer: InferOptions::new(PathBuf::from(".")),
            before: Baseline::Bare,
            max_rounds: 4,
            cell_timeout: Duration::from_secs(600),
            kernel_runtime: true,
            prefer: Mode::Era,
            sandbox: false,
        }
    }

    /// Without indexing, a batch reads the bank and the cache and never the network.
    pub fn no_index(&self) -> bool {
        self.infer.indexing == Indexing::Never
    }

    /// Releases that have only an sdist count as installable.
    pub fn allow_sdist(&self) -> bool {
        self.infer.sdists == Sdists::Allowed
    }

    /// The Python every notebook is resolved for, when one is asked.
    pub fn python(&self) -> Option<PythonVersion> {
        self.infer.python
    }
}

/// Notebooks measured at once when not said: the cores.
pub fn cores() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}
