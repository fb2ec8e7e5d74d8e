//! Scratch virtual environments and installs into them, with uv where it can (fast, and able
//! to pin dependencies to a date) and pip otherwise. Old interpreters need old tools: uv
//! refuses Python 2.7, so its environments come from `virtualenv<20.22` and install with pip;
//! a Python 3.6 `venv` seeds pip 18.1, which cannot install manylinux2014 wheels, so pip is
//! upgraded to 21.3.1 first.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use super::interpreter::Interpreter;
use super::process::{run_limited, Finished};
use super::tools::{Installer, Tools};
use super::version::PythonVersion;

/// The last pip for Python 3.6 that reads manylinux2014 wheels.
const PIP_FOR_PYTHON_3_6: &str = "pip==21.3.1";

#[derive(Debug, Clone, Default)]
pub struct InstallOptions {
    /// Wheels only: building sdists of old releases mostly fails and runs their setup.py.
    pub only_binary: bool,
    /// With `only_binary`, packages that come from their sdists all the same (`--no-binary`
    /// for just those: pip and uv both let it override `--only-binary :all:`).
    pub sdists_allowed: Vec<String>,
    /// With `only_binary`, only these must come as wheels (`--only-binary NAME,...` instead
    /// of `:all:`), and what they pull in may be built: the dependencies of a pure-Python
    /// sdist, which old sdists do not declare in their metadata, so nbenv cannot know them.
    pub only_binary_names: Vec<String>,
    /// Ignore anything uploaded after this time (uv only), so dependencies are the ones that
    /// existed when the release came out.
    pub exclude_newer: Option<jiff::Timestamp>,
    pub index_url: Option<String>,
    pub no_deps: bool,
    /// Constraints on what the install may pull in, dependencies included (`torch<0` forbids
    /// torch: an install that needs it fails to resolve instead).
    pub constraints: Vec<String>,
    pub timeout: Duration,
    /// Keep nothing in the installer's cache: a scratch environment used once (introspection)
    /// would fill it with wheels nobody installs again (TensorFlow and torch, GBs each).
    pub no_cache: bool,
    /// Build sdists in the environment itself, with what is installed there: an old
    /// `setup.py` that imports numpy to build finds it (installed first).
    pub no_build_isolation: bool,
}

/// The folder inside an environment where an installer that keeps no cache puts its
/// temporary one (see [`Venv::install`]).
pub const INSTALLER_TMP: &str = ".installer-tmp";

#[derive(Debug, thiserror::Error)]
pub enum VenvError {
    #[error("could not create a virtual environment with {interpreter}: {detail}")]
    Create { interpreter: String, detail: String },
    #[error("installing {what} failed:\n{detail}")]
    Install { what: String, detail: String },
    #[error("installing {what} took longer than {seconds} s")]
    Timeout { what: String, seconds: u64 },
    #[error(transparent)]
    Process(#[from] super::process::ProcessError),
}

/// A virtual environment on disk.
#[derive(Debug, Clone)]
pub struct Venv {
    pub root: PathBuf,
    pub python: PathBuf,
    installer: Installer,
}

impl Venv {
    /// An environment already built at `root` (by [`Venv::create`]), to install more into:
    /// Python 2 environments install with their own pip, as they were built.
    pub fn existing(root: &Path, interpreter: &Interpreter, installer: &Installer) -> Self {
        let old = interpreter.version < PythonVersion::new(3, 6);
        Self {
            python: root.join("bin").join("python"),
            root: root.to_path_buf(),
            installer: if old {
                Installer::Pip
            } else {
                installer.clone()
            },
        }
    }

    pub fn create(
        root: &Path,
        interpreter: &Interpreter,
        installer: &Installer,
        tools: &Tools,
        timeout: Duration,
    ) -> Result<Self, VenvError> {
        let old = interpreter.version < PythonVersion::new(3, 6);
        // uv does not run Python 2.7: its environment installs with its own pip.
        let installer = if old { &Installer::Pip } else { installer };
        let mut cmd = match installer {
            _ if old => {
                let mut c = Command::new(tools.virtualenv()?);
                c.args(["-m", "virtualenv", "--quiet", "--python"])
                    .arg(&interpreter.path)
                    .arg(root);
                c
            }
            Installer::Uv(uv) => {
                let mut c = Command::new(uv);
                c.args(["venv", "--quiet", "--python"])
                    .arg(&interpreter.path)
                    .arg(root);
                c
            }
            Installer::Pip => {
                let mut c = Command::new(&interpreter.path);
                c.args(["-m", "venv"]).arg(root);
                c
            }
        };
        cmd.env_remove("VIRTUAL_ENV");
        let done = run_limited(cmd, b"", timeout)?;
        if !done.success() {
            return Err(VenvError::Create {
                interpreter: interpreter.path.display().to_string(),
                detail: if done.timed_out {
                    "timed out".into()
                } else {
                    done.stderr_tail(5)
                },
            });
        }
        let venv = Self {
            python: root.join("bin").join("python"),
            root: root.to_path_buf(),
            installer: installer.clone(),
        };
        if *installer == Installer::Pip && interpreter.version.feature() == PythonVersion::new(3, 6)
        {
            venv.install(
                &[PIP_FOR_PYTHON_3_6.to_string()],
                &InstallOptions {
                    only_binary: true,
                    timeout,
                    ..InstallOptions::default()
                },
            )?;
        }
        Ok(venv)
    }

    /// Installs `requirements` (PEP 508 strings) into the environment.
    pub fn install(
        &self,
        requirements: &[String],
        options: &InstallOptions,
    ) -> Result<Finished, VenvError> {
        let what = requirements.join(" ");
        let mut cmd = match &self.installer {
            Installer::Uv(uv) => {
                let mut c = Command::new(uv);
                c.args(["pip", "install", "--quiet", "--python"])
                    .arg(&self.python);
                if options.only_binary && !options.only_binary_names.is_empty() {
                    c.args(["--only-binary", &options.only_binary_names.join(",")]);
                } else if options.only_binary {
                    c.args(["--only-binary", ":all:"]);
                    if !options.sdists_allowed.is_empty() {
                        c.args(["--no-binary", &options.sdists_allowed.join(",")]);
                    }
                }
                if let Some(time) = &options.exclude_newer {
                    c.arg("--exclude-newer").arg(time.to_string());
                }
                if let Some(url) = &options.index_url {
                    c.args(["--index-url", url]);
                }
                c
            }
            Installer::Pip => {
                let mut c = Command::new(&self.python);
                c.args([
                    "-m",
                    "pip",
                    "install",
                    "--quiet",
                    "--disable-pip-version-check",
                    "--no-input",
                ]);
                if options.only_binary && !options.only_binary_names.is_empty() {
                    c.arg(format!(
                        "--only-binary={}",
                        options.only_binary_names.join(",")
                    ));
                } else if options.only_binary {
                    c.arg("--only-binary=:all:");
                    // Named packages come from their sdists: pip lets `--no-binary NAME`
                    // override `--only-binary :all:` for just those.
                    if !options.sdists_allowed.is_empty() {
                        c.arg(format!("--no-binary={}", options.sdists_allowed.join(",")));
                    }
                }
                if let Some(url) = &options.index_url {
                    c.args(["--index-url", url]);
                }
                c
            }
        };
        if options.no_deps {
            cmd.arg("--no-deps");
        }
        if options.no_build_isolation {
            cmd.arg("--no-build-isolation");
        }
        // uv's `--no-cache` keeps a temporary cache all the same, in `TMPDIR`, where an
        // install cut off (by a deadline, or nbenv killed) leaves it: tens of MB each; with a
        // cache it still leaves a lock file there for each setuptools build environment
        // (`uv-setuptools-*.lock`). pip keeps its own temporaries there on every install
        // (`pip-unpack-*`, `pip-install-*`, `pip-req-tracker-*`), and a cut-off pip leaves
        // them too. All go in the environment's own folder instead ([`INSTALLER_TMP`]), which
        // nbenv removes with the environment, or prunes when the process that made it is gone.
        let scratch = self.root.join(INSTALLER_TMP);
        std::fs::create_dir_all(&scratch).map_err(|e| VenvError::Install {
            what: what.clone(),
            detail: format!("cannot create {}: {e}", scratch.display()),
        })?;
        cmd.env("TMPDIR", &scratch);
        if options.no_cache {
            cmd.arg(match self.installer {
                Installer::Uv(_) => "--no-cache",
                Installer::Pip => "--no-cache-dir",
            });
        }
        if !options.constraints.is_empty() {
            let file = self.root.join("nbenv-constraints.txt");
            std::fs::write(&file, options.constraints.join("\n") + "\n").map_err(|e| {
                VenvError::Install {
                    what: what.clone(),
                    detail: format!("cannot write {}: {e}", file.display()),
                }
            })?;
            cmd.arg("--constraint").arg(&file);
        }
        cmd.args(requirements)
            .env_remove("VIRTUAL_ENV")
            .env_remove("PYTHONPATH");
        let done = run_limited(cmd, b"", options.timeout);
        let _ = std::fs::remove_dir_all(&scratch);
        let done = done?;
        if done.timed_out {
            return Err(VenvError::Timeout {
                what,
                seconds: options.timeout.as_secs(),
            });
        }
        if !done.success() {
            return Err(VenvError::Install {
                what,
                detail: done.stderr_tail(12),
            });
        }
        Ok(done)
    }
}
