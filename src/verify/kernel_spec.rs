//! A Jupyter kernel for a restored environment: ipykernel installed into it without moving
//! anything the notebook's requirements pinned (they, and the kernel runtime's bound, are
//! constraints), and a kernel spec under a name that says which notebook it is for, so that
//! Jupyter offers it beside the user's other kernels.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::python::{run_limited, InstallOptions, Installer, Interpreter, Venv, VenvError};

use super::environment::{PreparedEnv, KERNEL_RUNTIME};

/// The kernel's name: `nbenv-` and the notebook's stem, in the characters Jupyter allows,
/// with the environment's key so that two restorations of one notebook do not collide.
pub fn kernel_name(notebook: &Path, env: &PreparedEnv) -> String {
    let stem = notebook
        .file_stem()
        .map(|s| s.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let stem: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    let key = env
        .root
        .file_name()
        .map(|k| k.to_string_lossy().chars().take(6).collect::<String>())
        .unwrap_or_default();
    format!("nbenv-{stem}-{key}")
}

#[derive(Debug, thiserror::Error)]
pub enum KernelSpecError {
    #[error("installing ipykernel beside the requirements failed: {0}")]
    Install(VenvError),
    #[error("registering the kernel failed: {0}")]
    Register(String),
}

/// Installs ipykernel into `env` (its pins held) and registers a kernel spec `name` for the
/// user (`JUPYTER_DATA_DIR` is honoured, as Jupyter does). Returns the spec's directory.
#[allow(clippy::too_many_arguments)]
pub fn install_kernel_spec(
    env: &PreparedEnv,
    interpreter: &Interpreter,
    installer: &Installer,
    pins: &[String],
    name: &str,
    display_name: &str,
    index_url: Option<String>,
    timeout: Duration,
) -> Result<PathBuf, KernelSpecError> {
    let venv = Venv::existing(&env.root, interpreter, installer);
    let mut constraints = pins.to_vec();
    constraints.push(KERNEL_RUNTIME.to_string());
    venv.install(
        &["ipykernel".to_string()],
        &InstallOptions {
            only_binary: true,
            index_url,
            constraints,
            timeout,
            ..InstallOptions::default()
        },
    )
    .map_err(KernelSpecError::Install)?;
    let mut cmd = std::process::Command::new(&env.python);
    cmd.args(["-m", "ipykernel", "install", "--user", "--name", name])
        .args(["--display-name", display_name])
        .env_remove("PYTHONPATH");
    let done =
        run_limited(cmd, b"", timeout).map_err(|e| KernelSpecError::Register(e.to_string()))?;
    if !done.success() {
        return Err(KernelSpecError::Register(done.stderr_tail(5)));
    }
    // "Installed kernelspec NAME in DIR", on stdout or stderr as versions differ.
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&done.stdout),
        String::from_utf8_lossy(&done.stderr)
    );
    said.lines()
        .find_map(|l| l.split_once(" in ").filter(|_| l.contains("kernelspec")))
        .map(|(_, dir)| PathBuf::from(dir.trim()))
        .ok_or_else(|| KernelSpecError::Register(format!("ipykernel did not say where: {said}")))
}
