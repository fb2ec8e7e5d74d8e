//! What a restoration's rounds run with, found once per command whichever attempts it makes
//! (the modernized notebook's, the era's): the inference session, the tools and installer,
//! where environments are kept and the disk budget they share.

use std::path::{Path, PathBuf};

use crate::notebook::Notebook;
use crate::python::{Installer, Tools};
use crate::resolve::interpreter::Reach;
use crate::resolve::options::InferOptions;
use crate::resolve::session::{InferRun, InferSession};
use crate::restore::RoundsSpec;
use crate::verify::DiskBudget;

use super::super::{CommandError, GlobalSettings};
use super::RestoreSettings;

pub struct Rig {
    pub session: InferSession,
    pub tools: Tools,
    pub installer: Installer,
    pub envs: PathBuf,
    pub disk: DiskBudget,
    /// The index installers are given, where it is not PyPI.
    pub index_url: Option<String>,
}

impl Rig {
    /// Opened once: the settings' sdists and date cap are every attempt's.
    pub fn open(global: &GlobalSettings, settings: &RestoreSettings) -> Result<Self, CommandError> {
        let session = global.open_session(&InferOptions {
            sdists: settings.sdists,
            cap: settings.cap,
            ..InferOptions::new(settings.notebook.clone())
        })?;
        let tools = global.tools(crate::python::found());
        let (installer, _) = tools.installer();
        let envs = global.envs();
        let disk = global.disk_budget(&envs, &installer);
        Ok(Self {
            session,
            tools,
            installer,
            envs,
            disk,
            index_url: global.index_url_if_not_pypi(),
        })
    }

    /// How `restore`'s rounds run `nb` (at `notebook`).
    pub fn spec<'a>(
        &'a self,
        settings: &RestoreSettings,
        notebook: &'a Path,
        nb: &'a Notebook,
    ) -> RoundsSpec<'a> {
        RoundsSpec {
            notebook,
            nb,
            max_rounds: settings.max_rounds,
            allow_sdist: settings.sdists == crate::resolve::options::Sdists::Allowed,
            kernel_runtime: settings.kernel_runtime,
            cell_timeout: settings.cell_timeout,
            run_timeout: settings.run_timeout,
            sandbox: settings.sandbox,
            envs: &self.envs,
            installer: &self.installer,
            tools: &self.tools,
            index_url: self.index_url.clone(),
            infer: InferRun {
                reach: Reach::Installed,
                ..InferRun::default()
            },
            command: "restore",
            disk: Some(&self.disk),
            builders: 1,
            forward: None,
            overrides: &[],
        }
    }
}
