//! Building an environment for a set of requirements: on the interpreters that fit, best
//! first, each in its own scratch directory, until one installs. Introspection takes the
//! first that also imports; verification will take the first that runs the notebook.

use std::path::Path;
use std::time::Duration;

use super::interpreter::Interpreter;
use super::tools::{Installer, Tools};
use super::venv::{InstallOptions, Venv, VenvError};
use super::version::PythonVersion;

/// What to install, and how.
#[derive(Debug, Clone)]
pub struct EnvironmentSpec {
    /// PEP 508 requirements (`pandas==0.25.3`).
    pub requirements: Vec<String>,
    /// Installed after `requirements`, without dependencies: a release whose own metadata the
    /// installer refuses ([`super::ReleaseInstall`]).
    pub without_dependencies: Vec<String>,
    pub options: InstallOptions,
    /// For the scratch directory's name (`nbenv-introspect-`).
    pub purpose: &'static str,
    /// Seconds allowed to create the environment.
    pub create_timeout: Duration,
}

/// An environment with the requirements installed, in a scratch directory removed on drop.
#[derive(Debug)]
pub struct Environment {
    pub interpreter: Interpreter,
    pub venv: Venv,
    scratch: tempfile::TempDir,
}

impl Environment {
    /// The scratch directory: a place for scripts beside the environment.
    pub fn scratch(&self) -> &Path {
        self.scratch.path()
    }
}

/// Why an environment could not be built on one interpreter.
#[derive(Debug, thiserror::Error)]
#[error("Python {interpreter}: {error}")]
pub struct EnvironmentError {
    pub interpreter: PythonVersion,
    #[source]
    pub error: VenvError,
}

/// Environments for `spec` on each of `interpreters` in turn (best first), built lazily: the
/// caller stops when one serves.
pub fn environments<'a>(
    spec: &'a EnvironmentSpec,
    interpreters: impl IntoIterator<Item = &'a Interpreter> + 'a,
    installer: &'a Installer,
    tools: &'a Tools,
) -> impl Iterator<Item = Result<Environment, EnvironmentError>> + 'a {
    interpreters.into_iter().map(move |interpreter| {
        let failed = |error: VenvError| EnvironmentError {
            interpreter: interpreter.version,
            error,
        };
        let scratch = super::scratch::scratch_dir(spec.purpose).map_err(|e| {
            failed(VenvError::Create {
                interpreter: interpreter.path.display().to_string(),
                detail: format!("cannot create a scratch directory: {e}"),
            })
        })?;
        let venv = Venv::create(
            &scratch.path().join("venv"),
            interpreter,
            installer,
            tools,
            spec.create_timeout,
        )
        .map_err(failed)?;
        if !spec.requirements.is_empty() {
            venv.install(&spec.requirements, &spec.options)
                .map_err(failed)?;
        }
        if !spec.without_dependencies.is_empty() {
            let alone = InstallOptions {
                no_deps: true,
                ..spec.options.clone()
            };
            venv.install(&spec.without_dependencies, &alone)
                .map_err(failed)?;
        }
        Ok(Environment {
            interpreter: interpreter.clone(),
            venv,
            scratch,
        })
    })
}
