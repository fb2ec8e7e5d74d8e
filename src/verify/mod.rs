//! Running a notebook in an environment, and measuring how far it gets.
//!
//! [`prepare`] builds the environment of an [`EnvPlan`] (the requirements and a kernel
//! runtime on one interpreter), or finds it in the cache.
//!
//! [`run_notebook`] starts the bundled runner ([`RUNNER`], a Python script for 2.7 and 3.x)
//! with an interpreter, in a throw-away copy of the notebook's directory: it runs the code
//! cells top-down in one namespace, through IPython when the environment has it (magics
//! work) and through plain exec of translated source ([`plain_source`]) otherwise, with a
//! time limit per cell and for the whole run. Each cell's outcome is a [`CellRun`]; a
//! failure is classified by the notebook stage's classifier
//! ([`NotebookRun::first_failure`]). [`Executability`] counts the cells run before the first
//! error; [`Reproduction`] compares what they printed with what the notebook stored;
//! [`ExecutionOrder`] reads the stored execution counts as evidence of out-of-order
//! authoring.

mod blame;
mod cell_run;
mod defining_module;
mod disk_budget;
mod env_lock;
mod environment;
mod executability;
mod executed;
mod kernel_runtime;
mod kernel_spec;
mod normalize;
mod options;
mod order;
mod owners;
mod plain;
mod plan;
mod protocol;
mod record;
mod repair;
mod reproduce;
mod run;
pub mod sandbox;
mod workdir;

pub use blame::{blamed, pulled_in, PulledIn};
pub use cell_run::{CellRun, CellStatus};
pub use defining_module::{defining_modules, unbound, Unbound};
pub use disk_budget::{
    build_estimate, keep_within, make_room, make_room_for, plan as plan_eviction, prepare_within,
    tidy_cache, Budgeted, CacheStep, DiskBudget, DiskSurvey, Eviction, FileOnDisk, Holding,
    Installer as CachedInstaller, InstallerCache, Pruned,
};
pub use env_lock::{
    remove_abandoned_builds, remove_unfinished, remove_unused, unfinished_builds, EnvLease,
};
pub use environment::{
    era_fits, prepare, runtime_of_era, EnvError, EnvPlan, PreparedEnv, KERNEL_RUNTIME,
};
pub use executability::Executability;
pub use executed::executed_notebook;
pub use kernel_runtime::{runtime_below, runtime_era, RuntimeEra};
pub use kernel_spec::{
    install_kernel_spec, kernel_name, mark_kernel_spec, remove_kernel_specs, KernelSpecError,
};
pub use normalize::normalize;
pub use options::{KernelMode, RunOptions};
pub use order::{ExecutionOrder, StoredCount};
pub use owners::Owners;
pub use plain::plain_source;
pub use plan::{PlannedCell, RunPlan};
pub use record::{notebook_sha256, run_record, store_run, RunContext, RunEnded};
pub use repair::{install_lessons, lessons, pinned, teach, wanted_lessons, Lesson};
pub use reproduce::{compare, CellComparison, Difference, Reproduction};
pub use run::{
    run_notebook, run_notebook_watching, NotebookRun, RunEnd, RunError, RunnerMode, RUNNER,
};
pub use workdir::RunFolder;
