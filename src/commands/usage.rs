//! `usage`: what a notebook uses (imports, APIs, members, installs, its Python, its stored
//! outputs), read from its code alone; stored errors are told apart with the bank when there
//! is one (never created here).

use std::path::PathBuf;

use crate::notebook::failure::BankHistory;
use crate::notebook::{self, AnalyzeOptions, Usage};
use crate::python::PythonVersion;

use super::{CommandError, GlobalSettings};

#[derive(Debug, Clone)]
pub struct UsageSettings {
    pub notebook: PathBuf,
    /// The Pythons it may run on: a module in the standard library of any of them is not
    /// third-party. Empty: every version nbenv knows.
    pub pythons: Vec<PythonVersion>,
    /// Local modules beside the notebook are looked for.
    pub local_modules: bool,
}

pub fn run(global: &GlobalSettings, settings: &UsageSettings) -> Result<Usage, CommandError> {
    let nb = notebook::read(&settings.notebook)?;
    let mut options = AnalyzeOptions {
        scan_local_modules: settings.local_modules,
        ..AnalyzeOptions::default()
    };
    if !settings.pythons.is_empty() {
        options.python_versions = settings.pythons.clone();
    }
    let mut usage = notebook::analyze(&nb, &options);
    if global.bank.exists() {
        let history = BankHistory::at(&global.bank);
        notebook::classify_stored_errors(&nb, &mut usage, Some(&history));
    }
    Ok(usage)
}
