//! The tools nbenv builds environments with, found on the machine or installed into nbenv's
//! own cache directory from the index nbenv already uses:
//! - uv, for fast installs pinned to a date (`--exclude-newer`), so that an environment has
//!   the dependencies that existed when a release came out. Without uv, installs fall back to
//!   pip, which cannot pin dependencies to a date.
//! - virtualenv before 20.22, the last able to create Python 2.7 (and 3.6) environments; uv
//!   refuses interpreters below 3.6.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use super::child::DieWithNbenv;
use super::interpreter::Interpreter;
use super::process::run_limited;
use super::venv::VenvError;
use super::version::PythonVersion;

/// The tool that creates environments and installs into them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Installer {
    Uv(PathBuf),
    Pip,
}

impl Installer {
    pub fn name(&self) -> &'static str {
        match self {
            Installer::Uv(_) => "uv",
            Installer::Pip => "pip",
        }
    }
}

/// Where the installer came from: what the user is told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InstallerOrigin {
    /// `NBENV_UV`.
    Environment,
    /// `uv` on `PATH`.
    Path,
    /// Installed into nbenv's tools directory, by this run or an earlier one.
    Installed { path: PathBuf, now: bool },
    /// No uv could be found or installed: pip, with why.
    Pip { why: String },
}

/// nbenv's tools directory (`<cache>/tools`) and how to fill it.
#[derive(Debug, Clone)]
pub struct Tools {
    dir: PathBuf,
    /// The index tools are installed from (nbenv's own); PyPI when `None`.
    index_url: Option<String>,
    /// The interpreter tools are installed with and run on: the newest 3.8 or later.
    host: Option<Interpreter>,
    timeout: Duration,
}

/// Runs `program --version`: whether it is a working executable.
fn runs(program: &Path) -> bool {
    Command::new(program)
        .arg("--version")
        .die_with_nbenv()
        .output()
        .is_ok_and(|o| o.status.success())
}

impl Tools {
    /// Tools kept in `dir`, installed from `index_url` with the newest of `interpreters`
    /// that pip and uv support (3.8 or later).
    pub fn new(
        dir: impl Into<PathBuf>,
        index_url: Option<String>,
        interpreters: &[Interpreter],
    ) -> Self {
        Self {
            dir: dir.into(),
            index_url,
            host: interpreters
                .iter()
                .filter(|i| i.version >= PythonVersion::new(3, 8))
                .max_by_key(|i| i.version)
                .cloned(),
            timeout: Duration::from_secs(300),
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn uv_path(&self) -> PathBuf {
        self.dir.join("bin").join("uv")
    }

    /// uv from `NBENV_UV`, else `PATH`, else the tools directory; else installs it there with
    /// one of `interpreters` (from the index nbenv uses), else pip.
    pub fn installer(&self) -> (Installer, InstallerOrigin) {
        if let Some(uv) = std::env::var_os("NBENV_UV").map(PathBuf::from) {
            if runs(&uv) {
                return (Installer::Uv(uv), InstallerOrigin::Environment);
            }
            let why = format!("NBENV_UV={} does not run", uv.display());
            return (Installer::Pip, InstallerOrigin::Pip { why });
        }
        if runs(Path::new("uv")) {
            return (Installer::Uv(PathBuf::from("uv")), InstallerOrigin::Path);
        }
        let installed = self.uv_path();
        if runs(&installed) {
            return (
                Installer::Uv(installed.clone()),
                InstallerOrigin::Installed {
                    path: installed,
                    now: false,
                },
            );
        }
        match self.install_tool("uv", "uv", &|| runs(&installed)) {
            Ok(()) if runs(&installed) => (
                Installer::Uv(installed.clone()),
                InstallerOrigin::Installed {
                    path: installed,
                    now: true,
                },
            ),
            Ok(()) => (
                Installer::Pip,
                InstallerOrigin::Pip {
                    why: format!("the uv installed at {} does not run", installed.display()),
                },
            ),
            Err(e) => (
                Installer::Pip,
                InstallerOrigin::Pip {
                    why: format!("uv could not be installed: {e}"),
                },
            ),
        }
    }

    /// The Python of a tools environment holding `virtualenv<20.22`, installed on first use.
    pub fn virtualenv(&self) -> Result<PathBuf, VenvError> {
        let python = self.dir.join("virtualenv").join("bin").join("python");
        let works = || {
            Command::new(&python)
                .args(["-m", "virtualenv", "--version"])
                .die_with_nbenv()
                .output()
                .is_ok_and(|o| o.status.success())
        };
        if !works() {
            self.install_tool("virtualenv", "virtualenv<20.22", &works)?;
        }
        Ok(python)
    }

    /// Installs `requirement` into the tools environment `name`, with the host interpreter:
    /// built beside, then moved into place, so that an interrupted install leaves nothing half
    /// made. Of uv, only its binary is kept, in `bin/`. Runs started together install it
    /// once: each waits for the tool's lock (`.locks/tool-NAME`, a `flock` the kernel drops
    /// with the process), and one that finds it `works` once it holds the lock installs
    /// nothing (a second install would remove the first from under the run using it).
    fn install_tool(
        &self,
        name: &str,
        requirement: &str,
        works: &dyn Fn() -> bool,
    ) -> Result<(), VenvError> {
        let python = self.host.as_ref().ok_or_else(|| VenvError::Create {
            interpreter: "any Python 3.8 or newer".into(),
            detail: format!("none on this machine to install {name} with"),
        })?;
        let cannot = |what: &Path, e: std::io::Error| VenvError::Create {
            interpreter: python.path.display().to_string(),
            detail: format!("cannot create {}: {e}", what.display()),
        };
        let locks = self.dir.join(".locks");
        std::fs::create_dir_all(&locks).map_err(|e| cannot(&locks, e))?;
        let lock_path = locks.join(format!("tool-{name}"));
        let lock = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(|e| cannot(&lock_path, e))?;
        lock.lock().map_err(|e| cannot(&lock_path, e))?;
        if works() {
            return Ok(());
        }
        // What a killed install left there goes first.
        crate::leftover::remove_abandoned_in(&self.dir);
        let scratch = tempfile::Builder::new()
            .prefix(&crate::leftover::prefix(crate::leftover::Kind::Tool))
            .tempdir_in(&self.dir)
            .map_err(|e| VenvError::Create {
                interpreter: python.path.display().to_string(),
                detail: format!("cannot create a directory in {}: {e}", self.dir.display()),
            })?;
        let venv = scratch.path().join("venv");
        let mut create = Command::new(&python.path);
        create.args(["-m", "venv"]).arg(&venv);
        let done = run_limited(create, b"", self.timeout)?;
        if !done.success() {
            return Err(VenvError::Create {
                interpreter: python.path.display().to_string(),
                detail: done.stderr_tail(5),
            });
        }
        let mut install = Command::new(venv.join("bin").join("python"));
        install.args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--no-input",
            "--only-binary=:all:",
        ]);
        if let Some(url) = &self.index_url {
            install.args(["--index-url", url]);
        }
        install.arg(requirement).env_remove("PYTHONPATH");
        let done = run_limited(install, b"", self.timeout)?;
        if !done.success() {
            return Err(VenvError::Install {
                what: requirement.to_string(),
                detail: if done.timed_out {
                    format!("timed out after {} s", self.timeout.as_secs())
                } else {
                    done.stderr_tail(8)
                },
            });
        }
        let target = self.dir.join(name);
        let moved = |e: std::io::Error| VenvError::Install {
            what: requirement.to_string(),
            detail: format!("cannot move it into {}: {e}", target.display()),
        };
        if name == "uv" {
            // uv's binary stands alone: only it is kept.
            let bin = self.dir.join("bin");
            std::fs::create_dir_all(&bin).map_err(moved)?;
            let staged = bin.join(".uv.new");
            std::fs::copy(venv.join("bin").join("uv"), &staged).map_err(moved)?;
            std::fs::rename(&staged, self.uv_path()).map_err(moved)?;
        } else {
            // Used as `bin/python -m virtualenv`, which works wherever the venv lies.
            let _ = std::fs::remove_dir_all(&target);
            std::fs::rename(&venv, &target).map_err(moved)?;
        }
        Ok(())
    }
}
