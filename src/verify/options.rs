//! How a notebook is run: limits, which kernel, what happens after an error.

use std::path::PathBuf;
use std::time::Duration;

use serde::Serialize;

/// Which way the runner executes cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum KernelMode {
    /// IPython's InteractiveShell when the environment has IPython, else plain exec.
    Auto,
    /// IPython's InteractiveShell, or a [`super::RunError::NoIpython`].
    Ipython,
    /// Plain exec of the translated source, even where IPython is installed.
    Plain,
}

/// Options of one run.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Each cell's limit; the runner stops a cell at it (and the whole run when the cell
    /// does not stop within seconds).
    pub cell_timeout: Duration,
    /// The whole run's limit; its process group is killed at it.
    pub total_timeout: Duration,
    /// Characters of output kept per cell; the rest is counted.
    pub output_cap: usize,
    pub kernel: KernelMode,
    /// Run the cells after an error too (executability still counts up to the first error).
    pub keep_going: bool,
    /// Let `!pip install` / `%pip` / `%conda` lines run. Off by default: they would change the
    /// environment under test; the runner records them as skipped.
    pub run_installs: bool,
    /// The directory whose copy the notebook runs in; default: the notebook's own.
    pub directory: Option<PathBuf>,
    /// Bytes the copied directory may hold; a larger one is refused.
    pub copy_limit: u64,
    /// Environment variables added for the run.
    pub env: Vec<(String, String)>,
    /// Folders put on `sys.path` after the notebook's own, relative to it: the repository's
    /// folders whose modules the notebook imports ([`crate::notebook::Usage::repository_paths`]).
    /// nbenv never installs the repository (a build writes into it); the path makes the same
    /// modules importable.
    pub sys_path: Vec<PathBuf>,
    /// Run confined ([`super::sandbox`]): no network, none of the caller's variables or
    /// processes, a read-only file tree but the run's own folders, no Unix sockets, limits.
    pub sandbox: bool,
    /// The order the code cells run in.
    pub order: crate::notebook::CellOrder,
    /// Files whose text the run's copy of the folder holds in place of the originals, by
    /// their path relative to the notebook's folder: a modernized notebook's local modules,
    /// moved forward with it. The originals are never touched.
    pub overrides: Vec<crate::notebook::FileOverride>,
}

impl RunOptions {
    /// What to tell of [`Self::sys_path`]: `the notebook imports modules of its repository:
    /// .., ../src on sys.path for the run`; none when it is empty.
    pub fn sys_path_note(&self) -> Option<String> {
        if self.sys_path.is_empty() {
            return None;
        }
        let paths: Vec<String> = self
            .sys_path
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        Some(format!(
            "the notebook imports modules of its repository: {} on sys.path for the run",
            paths.join(", ")
        ))
    }
}

impl Default for RunOptions {
    fn default() -> Self {
        Self {
            cell_timeout: Duration::from_secs(600),
            total_timeout: Duration::from_secs(3600),
            output_cap: 100_000,
            kernel: KernelMode::Auto,
            keep_going: false,
            run_installs: false,
            directory: None,
            copy_limit: 1 << 30,
            env: Vec::new(),
            sys_path: Vec::new(),
            sandbox: false,
            order: crate::notebook::CellOrder::default(),
            overrides: Vec::new(),
        }
    }
}
