//! `verify`'s settings, as plain values.

use std::path::PathBuf;
use std::time::Duration;

use crate::python::PythonVersion;

/// Which interpreter runs the notebook, when the user says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PythonAsked {
    /// An installed interpreter of this version (X.Y).
    Version(PythonVersion),
    /// This interpreter.
    Path(PathBuf),
}

#[derive(Debug, Clone)]
pub struct VerifySettings {
    /// The notebook (`.ipynb`, or a percent-format / plain `.py`).
    pub notebook: PathBuf,
    /// The requirements to install.
    pub requirements: PathBuf,
    /// The interpreter; `None`: the Python the requirements' header names, else the newest
    /// installed one the notebook allows.
    pub python: Option<PythonAsked>,
    pub cell_timeout: Duration,
    pub run_timeout: Duration,
    pub install_timeout: Duration,
    /// The installer may build sdists (otherwise wheels only, but for what the requirements'
    /// header says was built).
    pub allow_sdist: bool,
    /// The kernel runtime (IPython) is installed with the requirements.
    pub kernel_runtime: bool,
    /// Where the notebook as the run left it is written.
    pub executed: Option<PathBuf>,
    /// The run is confined (no network, limits).
    pub sandbox: bool,
}

impl VerifySettings {
    /// `verify`'s defaults, as its command line has them.
    pub fn new(notebook: PathBuf, requirements: PathBuf) -> Self {
        Self {
            notebook,
            requirements,
            python: None,
            cell_timeout: Duration::from_secs(600),
            run_timeout: Duration::from_secs(3600),
            install_timeout: Duration::from_secs(1800),
            allow_sdist: false,
            kernel_runtime: true,
            executed: None,
            sandbox: false,
        }
    }
}
