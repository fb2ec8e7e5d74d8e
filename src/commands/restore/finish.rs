//! After the rounds: the files asked for written, the environments no one will use removed,
//! the final one kept (and a Jupyter kernel registered for it when the notebook ran).

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

use crate::modernize::prefer::Mode;
use crate::modernize::restoring::Attempt;
use crate::notebook::Notebook;
use crate::output::write_atomically;
use crate::python::{Installer, Interpreter};
use crate::reporter::Reporter;
use crate::restore::{pins_of, Kept, Restored, Round, Stop};
use crate::verify::{self, PreparedEnv};

use super::super::{CommandError, GlobalSettings};
use super::{RestoreSettings, Rig, Tried};

/// What a restoration did, as `restore` reports it (and `--format json` gives it).
#[derive(Debug, Serialize)]
pub struct RestoreOutcome {
    /// The notebook as the user has it: the input, or the modernized one written beside it.
    pub notebook: PathBuf,
    /// The mode kept, when `--prefer modern` tried the modern one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<Mode>,
    /// How the modern attempt fared, when it was tried.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modern: Option<Tried>,
    /// Seconds reading and analysing the notebook, once for all rounds.
    pub analysis: f64,
    pub rounds: Vec<Round>,
    pub stopped: Stop,
    /// Which requirements were written, and why.
    pub kept: Kept,
    /// The notebook the rounds ran, for its cells' numbering.
    #[serde(skip)]
    pub nb: Notebook,
    /// The final environment, kept (the earlier rounds' are removed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub environment: Option<KeptEnvironment>,
}

/// How to use the restored environment.
#[derive(Debug, Serialize)]
pub struct KeptEnvironment {
    pub root: PathBuf,
    pub activate: String,
    /// The Jupyter kernel registered for it, when the notebook ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kernel: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kernel_dir: Option<PathBuf>,
}

/// The kept attempt's files written (`output`, `lock`, `executed`), its environment kept
/// (and a kernel registered when it ran), the others removed. `modern` says how the modern
/// mode fared when it was tried: the kept notebook is then the modernized one written beside
/// the input when it is the one kept.
pub fn finish(
    global: &GlobalSettings,
    rig: &Rig,
    settings: &RestoreSettings,
    kept: Attempt,
    modern: Option<Tried>,
    reporter: &dyn Reporter,
) -> Result<RestoreOutcome, CommandError> {
    let Attempt {
        notebook: ran,
        nb,
        analysis,
        restored:
            Restored {
                mut rounds,
                stopped,
                mut kept,
                last_env,
                last_run,
                built,
                failed: _,
                forwarded: _,
            },
    } = kept;
    let notebook = modern
        .as_ref()
        .filter(|tried| tried.why.mode() == Mode::Modern)
        .and_then(|tried| tried.written.clone())
        .unwrap_or_else(|| settings.notebook.clone());
    let name = notebook.display().to_string();
    if notebook != ran {
        // The rounds ran a temporary copy: the requirements name the notebook kept.
        for r in &mut rounds {
            if let Some(inference) = &r.inference {
                r.requirements = crate::output::requirements_txt(inference, &name, None);
            }
        }
        kept.requirements = kept.requirements.replace(&ran.display().to_string(), &name);
    }
    if let Some(path) = &settings.output {
        write_atomically(path, kept.requirements.as_bytes())?;
    }
    let final_root = last_env.as_ref().map(|(env, _)| env.root.clone());
    for root in built.iter().filter(|r| Some(*r) != final_root.as_ref()) {
        // A failed round's environment: nothing will use it again (unless another run is
        // using it now).
        verify::remove_unused(&rig.envs, root);
    }
    if let (Some(path), Some((env, _))) = (&settings.lock, &last_env) {
        write_atomically(
            path,
            environment_lock(&name, &kept.requirements, env).as_bytes(),
        )?;
    }
    if let (Some(path), Some(run)) = (&settings.executed, &last_run) {
        let executed = verify::executed_notebook(&nb, run);
        let text = serde_json::to_string_pretty(&executed).expect("a JSON value serializes") + "\n";
        write_atomically(path, text.as_bytes())?;
    }
    let environment = last_env.as_ref().map(|(env, interpreter)| {
        let registered = stopped == Stop::Ran && settings.kernel_spec;
        let kernel = Kernel {
            global,
            installer: &rig.installer,
            reporter,
        };
        kernel.keep(&notebook, env, interpreter, registered, &kept.requirements)
    });
    Ok(RestoreOutcome {
        notebook,
        mode: modern.as_ref().map(|m| m.why.mode()),
        modern,
        analysis: analysis.as_secs_f64(),
        rounds,
        stopped,
        kept,
        nb,
        environment,
    })
}

/// What registering a Jupyter kernel needs.
struct Kernel<'a> {
    global: &'a GlobalSettings,
    installer: &'a Installer,
    reporter: &'a dyn Reporter,
}

impl Kernel<'_> {
    /// The final environment, described for use; with `register`, a Jupyter kernel is
    /// registered for it. A kernel that cannot be registered is a warning: the restoration
    /// stands.
    fn keep(
        &self,
        notebook: &Path,
        env: &PreparedEnv,
        interpreter: &Interpreter,
        register: bool,
        requirements: &str,
    ) -> KeptEnvironment {
        let mut kept = KeptEnvironment {
            root: env.root.clone(),
            activate: format!("source {}", env.root.join("bin").join("activate").display()),
            kernel: None,
            kernel_dir: None,
        };
        if !register {
            return kept;
        }
        let name = verify::kernel_name(notebook, env);
        let display = format!(
            "{} (nbenv, Python {})",
            notebook
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            interpreter.version.feature()
        );
        let pins: Vec<String> = pins_of(requirements)
            .iter()
            .map(|p| p.to_string())
            .collect();
        let step = self
            .reporter
            .step("installing ipykernel and registering a Jupyter kernel");
        let registered = verify::install_kernel_spec(
            env,
            interpreter,
            self.installer,
            &pins,
            &name,
            &display,
            self.global.index_url_if_not_pypi(),
            Duration::from_secs(600),
        );
        step.finish();
        match registered {
            Ok(dir) => {
                kept.kernel = Some(name);
                kept.kernel_dir = Some(dir);
            }
            Err(e) => self
                .reporter
                .warn(&format!("no Jupyter kernel for the environment: {e}"), None),
        }
        kept
    }
}

/// The environment as installed, for `--lock`: what the notebook needs (pinned by nbenv),
/// what those pins pulled in, and the kernel runtime, marked so that nobody takes it for a
/// requirement of the notebook.
fn environment_lock(notebook: &str, requirements: &str, env: &PreparedEnv) -> String {
    let mut out = format!(
        "{} {notebook} in, as installed ({})\n",
        crate::notebook::WRITTEN_BY_NBENV[2],
        env.root.display()
    );
    for pin in pins_of(requirements) {
        out.push_str(&format!("{pin}  # requirement\n"));
    }
    for pin in &env.unpinned_dependencies {
        out.push_str(&format!("{pin}  # dependency of the requirements\n"));
    }
    for pin in &env.kernel_runtime {
        out.push_str(&format!(
            "{pin}  # kernel runtime (not a requirement of the notebook)\n"
        ));
    }
    out
}
