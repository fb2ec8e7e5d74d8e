//! `verify`: build the environment of a requirements file (with a kernel runtime), run the
//! notebook in it, and say how far it got, where it stopped and why. The run is recorded in
//! the bank, as every run is.

mod interpreter;
mod settings;

pub use settings::{PythonAsked, VerifySettings};

use std::path::PathBuf;
use std::time::Instant;

use serde::Serialize;

use crate::notebook::failure::{classify, BankHistory, Failure, FailureContext, Problem};
use crate::notebook::{self, AnalyzeOptions};
use crate::python::PythonVersion;
use crate::reporter::Reporter;
use crate::verify::{
    self, run_record, EnvPlan, NotebookRun, PreparedEnv, Reproduction, RunContext, RunEnded,
    RunOptions,
};

use super::{CommandError, GlobalSettings};

/// What `verify` found (and `--format json` gives).
#[derive(Debug, Serialize)]
pub struct VerifyOutcome {
    pub notebook: PathBuf,
    pub requirements: PathBuf,
    pub python: PythonVersion,
    pub interpreter: PathBuf,
    pub environment: PreparedEnv,
    pub run: NotebookRun,
    pub first_failure: Option<Failure>,
    pub reproduction: Reproduction,
}

impl VerifyOutcome {
    /// Whether the notebook ran to its end without an error.
    pub fn ran(&self) -> bool {
        self.first_failure.is_none() && self.run.executability.complete()
    }
}

/// Verifies `settings.notebook` in the environment of `settings.requirements`.
pub fn run(
    global: &GlobalSettings,
    settings: &VerifySettings,
    reporter: &dyn Reporter,
) -> Result<VerifyOutcome, CommandError> {
    let nb = notebook::read(&settings.notebook)?;
    let usage = notebook::analyze(&nb, &AnalyzeOptions::default());
    let text = std::fs::read_to_string(&settings.requirements).map_err(|source| {
        CommandError::Requirements {
            path: settings.requirements.clone(),
            source,
        }
    })?;
    let interpreter = interpreter::choose(settings.python.as_ref(), &text, &usage)?;
    let tools = global.tools(crate::python::found());
    let (installer, _) = tools.installer();
    let plan = plan(global, settings, &nb, &interpreter, text, reporter)?;
    let envs = global.envs();
    if !plan.is_built(&envs) {
        reporter.note(
            &format!(
                "building the environment on Python {} ({}) from {}{}",
                interpreter.version,
                interpreter.path.display(),
                settings.requirements.display(),
                if plan.kernel_runtime {
                    format!(", with the kernel runtime ({})", plan.runtime_requirement())
                } else {
                    String::new()
                }
            ),
            None,
        );
    }
    let clock = Instant::now();
    let requirements = plan.requirements.clone();
    let cx = RunContext {
        notebook: &settings.notebook,
        command: "verify",
        round: 1,
        python: interpreter.version.feature(),
        started_at: jiff::Timestamp::now(),
        requirements: &requirements,
    };
    let history = BankHistory::at(&global.bank);
    let failures = FailureContext::new(&nb, &usage)
        .with_python(interpreter.version)
        .with_bank(&history)
        .with_installed(verify::pinned(&requirements));
    let built = verify::prepare_within(
        &plan,
        &envs,
        &installer,
        &tools,
        settings.install_timeout,
        Some(verify::Budgeted {
            budget: &global.disk_budget(&envs, &installer),
            builders: 1,
            estimate: None,
            reporter,
        }),
    );
    let env = match built {
        Ok(env) => env,
        Err(e) => {
            if let verify::EnvError::Install { detail, .. } = &e {
                let failure = classify(
                    &Problem::InstallFailed {
                        what: settings.requirements.display().to_string(),
                        detail: detail.clone(),
                    },
                    None,
                    &failures,
                );
                let lessons =
                    verify::install_lessons(&failure, detail, &verify::pinned(&requirements));
                let ended = RunEnded::NotBuilt {
                    failure: &failure,
                    detail,
                };
                let record = run_record(&cx, ended, &lessons, clock.elapsed());
                verify::store_run(&global.bank, &record, reporter);
            }
            return Err(e.into());
        }
    };
    let order = crate::output::cells_moved(&requirements);
    if !order.is_page() {
        reporter.note(
            &format!(
                "the requirements say the notebook ran as its author did ({}): running it so",
                crate::output::moved_cells(&order)
            ),
            None,
        );
    }
    let run = run_notebook(settings, &nb, &usage, &env, order, reporter)?;
    if let Some(path) = &settings.executed {
        let executed = verify::executed_notebook(&nb, &run);
        let text = serde_json::to_string_pretty(&executed).expect("a JSON value serializes") + "\n";
        crate::output::write_atomically(path, text.as_bytes())?;
    }
    let failure = run.first_failure(&failures);
    let ended = RunEnded::Ran {
        run: &run,
        failure: failure.as_ref(),
    };
    let record = run_record(&cx, ended, &[], clock.elapsed());
    verify::store_run(&global.bank, &record, reporter);
    Ok(VerifyOutcome {
        notebook: settings.notebook.clone(),
        requirements: settings.requirements.clone(),
        python: interpreter.version,
        interpreter: interpreter.path.clone(),
        reproduction: run.reproduction(&nb),
        environment: env,
        run,
        first_failure: failure,
    })
}

/// The environment to build: the requirements on `interpreter`, with the kernel runtime of
/// the notebook's era unless asked not to.
fn plan(
    global: &GlobalSettings,
    settings: &VerifySettings,
    nb: &notebook::Notebook,
    interpreter: &crate::python::Interpreter,
    requirements: String,
    reporter: &dyn Reporter,
) -> Result<EnvPlan, CommandError> {
    // A resolution `infer` made from sdists says so in its header: pure-Python ones are
    // built by name (the plan reads them from the header), everything else from wheels;
    // one made for want of a resolution from wheels builds whatever it needs.
    let only_binary = !settings.allow_sdist
        && crate::output::sdists_built(&requirements).is_none_or(|built| built.only_pure);
    let (at_most, below) = if settings.kernel_runtime {
        (
            verify::runtime_era(reporter, nb, interpreter.version, &global.index_client()?),
            verify::runtime_below(reporter, nb, interpreter.version),
        )
    } else {
        (None, None)
    };
    Ok(EnvPlan {
        interpreter: interpreter.clone(),
        requirements,
        only_binary,
        index_url: global.index_url_if_not_pypi(),
        kernel_runtime: settings.kernel_runtime,
        kernel_runtime_at_most: at_most,
        kernel_runtime_below: below,
        wheels: Vec::new(),
    })
}

/// The notebook run in `env`, the cell running said as it goes.
fn run_notebook(
    settings: &VerifySettings,
    nb: &notebook::Notebook,
    usage: &notebook::Usage,
    env: &PreparedEnv,
    order: crate::notebook::CellOrder,
    reporter: &dyn Reporter,
) -> Result<NotebookRun, CommandError> {
    let options = RunOptions {
        cell_timeout: settings.cell_timeout,
        total_timeout: settings.run_timeout,
        sandbox: settings.sandbox,
        sys_path: usage.repository_paths(),
        order,
        ..RunOptions::default()
    };
    if let Some(note) = options.sys_path_note() {
        reporter.note(&note, None);
    }
    let live = reporter.live("starting the notebook's runner");
    let run = verify::run_notebook_watching(nb, &env.python, &options, &mut |cell| {
        live.advance(&format!("running {}", nb.cell_label(cell)));
    });
    live.finish();
    run.map_err(|source| CommandError::Run {
        notebook: settings.notebook.clone(),
        source,
    })
}
