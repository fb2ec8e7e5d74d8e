//! A Jupyter kernel for a restored environment: ipykernel installed into it without moving
//! anything the notebook's requirements pinned (they, and the kernel runtime's bound, are
//! constraints), and a kernel spec under a name that says which notebook it is for, so that
//! Jupyter offers it beside the user's other kernels.
//!
//! A kernel spec lives as long as its environment: nbenv marks the spec's `kernel.json` with
//! the environment it runs (`metadata.nbenv.environment`) and lists the spec's directory in
//! the environment ([`KERNELS_FILE`]), and removing the environment removes the specs so
//! listed that still carry that mark ([`remove_kernel_specs`]). A spec the user wrote, or
//! rewrote since, has no such mark and stays.

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
    // ipykernel writes the spec into a `tmp…_kernels` folder of the temporary directory
    // first, and older releases leave it there: a scratch folder of nbenv's own, removed
    // when this returns.
    let scratch = crate::python::scratch_dir("kernel")
        .map_err(|e| KernelSpecError::Register(format!("a scratch folder: {e}")))?;
    let mut cmd = std::process::Command::new(&env.python);
    cmd.args(["-m", "ipykernel", "install", "--user", "--name", name])
        .args(["--display-name", display_name])
        .env("TMPDIR", scratch.path())
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
        .and_then(|dir| match mark_kernel_spec(&dir, &env.root) {
            Ok(()) => Ok(dir),
            Err(e) => {
                // Unmarked, it would outlive its environment: not left behind.
                let _ = std::fs::remove_dir_all(&dir);
                Err(KernelSpecError::Register(format!(
                    "marking the kernel spec in {}: {e}",
                    dir.display()
                )))
            }
        })
}

/// The file, in an environment, listing the kernel specs registered for it (one directory a
/// line).
pub const KERNELS_FILE: &str = "nbenv-kernels";

/// The key, in a kernel spec's `metadata`, under which nbenv names the environment it runs.
const MARK: &str = "nbenv";

/// Marks the kernel spec in `spec_dir` as nbenv's, for the environment at `env_root`, and
/// lists it in the environment, so that removing the environment removes it.
pub fn mark_kernel_spec(spec_dir: &Path, env_root: &Path) -> std::io::Result<()> {
    let env_root = std::fs::canonicalize(env_root)?;
    let file = spec_dir.join("kernel.json");
    let mut spec: serde_json::Value = serde_json::from_slice(&std::fs::read(&file)?)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
    let Some(object) = spec.as_object_mut() else {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("{} is not a JSON object", file.display()),
        ));
    };
    let metadata = object
        .entry("metadata")
        .or_insert_with(|| serde_json::json!({}));
    if let Some(metadata) = metadata.as_object_mut() {
        metadata.insert(
            MARK.to_string(),
            serde_json::json!({ "environment": env_root }),
        );
    }
    let text = serde_json::to_string_pretty(&spec).expect("a JSON value serializes");
    crate::output::write_atomically(&file, text.as_bytes()).map_err(std::io::Error::other)?;
    let spec_dir = std::fs::canonicalize(spec_dir)?;
    let list = env_root.join(KERNELS_FILE);
    let mut listed = std::fs::read_to_string(&list).unwrap_or_default();
    let line = spec_dir.to_string_lossy();
    if !listed.lines().any(|l| l == line) {
        listed.push_str(&line);
        listed.push('\n');
        crate::output::write_atomically(&list, listed.as_bytes()).map_err(std::io::Error::other)?;
    }
    Ok(())
}

/// Whether the kernel spec in `spec_dir` carries nbenv's mark naming `env_root` (canonical).
fn marked_for(spec_dir: &Path, env_root: &Path) -> bool {
    let Ok(bytes) = std::fs::read(spec_dir.join("kernel.json")) else {
        return false;
    };
    let Ok(spec) = serde_json::from_slice::<serde_json::Value>(&bytes) else {
        return false;
    };
    spec.pointer(&format!("/metadata/{MARK}/environment"))
        .and_then(|v| v.as_str())
        .is_some_and(|named| Path::new(named) == env_root)
}

/// Removes the kernel specs registered for the environment at `env_root` (before the
/// environment goes): those it lists that still carry nbenv's mark naming it. Returns the
/// directories removed.
pub fn remove_kernel_specs(env_root: &Path) -> Vec<PathBuf> {
    let Ok(env_root) = std::fs::canonicalize(env_root) else {
        return Vec::new();
    };
    let listed = std::fs::read_to_string(env_root.join(KERNELS_FILE)).unwrap_or_default();
    listed
        .lines()
        .map(PathBuf::from)
        .filter(|dir| marked_for(dir, &env_root))
        .filter(|dir| std::fs::remove_dir_all(dir).is_ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A kernel spec as `ipykernel install` writes it.
    fn spec(dir: &Path, python: &Path) {
        std::fs::create_dir_all(dir).unwrap();
        let json = serde_json::json!({
            "argv": [python, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
            "display_name": "nb.ipynb (nbenv, Python 3.8)",
            "language": "python",
            "metadata": {"debugger": true}
        });
        std::fs::write(dir.join("kernel.json"), json.to_string()).unwrap();
    }

    /// Registered, then the environment goes: its kernel goes with it; a spec the user wrote
    /// for the same environment, and one nbenv marked for another, stay.
    #[test]
    fn removing_an_environment_removes_only_its_marked_kernel_specs() {
        let tmp = tempfile::tempdir().unwrap();
        let env = tmp.path().join("envs").join("abc");
        let other = tmp.path().join("envs").join("def");
        std::fs::create_dir_all(env.join("bin")).unwrap();
        std::fs::create_dir_all(other.join("bin")).unwrap();
        let kernels = tmp.path().join("jupyter").join("kernels");
        let ours = kernels.join("nbenv-nb-abc");
        let users = kernels.join("my-kernel");
        let others = kernels.join("nbenv-nb-def");
        spec(&ours, &env.join("bin/python"));
        spec(&users, &env.join("bin/python"));
        spec(&others, &other.join("bin/python"));
        mark_kernel_spec(&ours, &env).unwrap();
        mark_kernel_spec(&others, &other).unwrap();
        // What ipykernel wrote is kept beside the mark.
        let text = std::fs::read_to_string(ours.join("kernel.json")).unwrap();
        assert!(
            text.contains("ipykernel_launcher") && text.contains("debugger"),
            "{text}"
        );
        // Listed in the environment (by hand) all the same: a user's spec has no mark, and
        // one marked for another environment is that one's: both stay.
        let list = env.join(KERNELS_FILE);
        let mut listed = std::fs::read_to_string(&list).unwrap();
        listed.push_str(&format!("{}\n{}\n", users.display(), others.display()));
        std::fs::write(&list, listed).unwrap();

        let removed = remove_kernel_specs(&env);
        assert_eq!(
            removed,
            [std::fs::canonicalize(&kernels)
                .unwrap()
                .join("nbenv-nb-abc")]
        );
        assert!(!ours.exists());
        assert!(users.join("kernel.json").is_file());
        assert!(others.join("kernel.json").is_file());
    }

    /// A spec rewritten since (the user registered their own under the name) has lost the
    /// mark: it stays.
    #[test]
    fn a_kernel_spec_rewritten_since_stays() {
        let tmp = tempfile::tempdir().unwrap();
        let env = tmp.path().join("abc");
        std::fs::create_dir_all(&env).unwrap();
        let dir = tmp.path().join("kernels").join("nbenv-nb-abc");
        spec(&dir, &env.join("bin/python"));
        mark_kernel_spec(&dir, &env).unwrap();
        spec(&dir, Path::new("/usr/bin/python3"));
        assert!(remove_kernel_specs(&env).is_empty());
        assert!(dir.join("kernel.json").is_file());
    }
}
