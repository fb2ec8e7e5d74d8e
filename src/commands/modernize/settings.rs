//! `modernize`'s settings, as plain values.

use std::path::PathBuf;
use std::time::Duration;

use super::super::restore::RestoreSettings;

/// How the report is written (to `--report`, and as the command prints it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportFormat {
    /// The diff of the code cells, the report, and where the notebook was written.
    Text,
    /// One JSON document: where it was written, the diff and the report's fields.
    Json,
}

#[derive(Debug, Clone)]
pub struct ModernizeSettings {
    /// The notebook; it is only read.
    pub notebook: PathBuf,
    /// Where the modernized notebook is written.
    pub output: PathBuf,
    /// Where the unified diff of the code cells is written too.
    pub diff: Option<PathBuf>,
    /// Where the report is written too.
    pub report: Option<PathBuf>,
    pub report_format: ReportFormat,
    /// What introspection may take while indexing what the moves need to be seen; `None`
    /// reads the bank as it is.
    pub index: Option<Duration>,
    /// How the modernized notebook is restored; `None` only rewrites it.
    pub restore: Option<RestoreSettings>,
}

impl ModernizeSettings {
    /// `modernize`'s defaults for `notebook`, without the run (which needs a Python).
    pub fn new(notebook: PathBuf) -> Self {
        Self {
            output: crate::modernize::prefer::modern_path(&notebook),
            notebook,
            diff: None,
            report: None,
            report_format: ReportFormat::Text,
            index: Some(Duration::from_secs(60)),
            restore: None,
        }
    }
}
