//! Python interpreters on this machine, virtual environments, installers and time-limited
//! child processes: what runtime introspection (bank) and verification run on.

mod child;
mod choose;
mod environment;
mod interpreter;
mod process;
mod release_dates;
mod release_install;
mod scratch;
mod tags;
mod tools;
mod venv;
mod version;

pub use child::{DieWithNbenv, GroupWatch, UNDER_NBENVS_INIT};
pub use choose::{candidate_interpreters, NoFittingInterpreter};
pub use environment::{environments, Environment, EnvironmentError, EnvironmentSpec};
pub use interpreter::{
    discover, discover_by_name, found, found_by_name, Interpreter, NotAnInterpreter,
};
pub use process::{
    run_capped, run_capped_watching, run_limited, Finished, OutputCap, ProcessError,
};
pub use release_dates::{by_fitness_for, released_on, start_of_next_day};
pub use release_install::ReleaseInstall;
pub use scratch::{scratch_dir, scratch_dirs, ScratchDir, SCRATCH_PREFIX};
pub use tags::{wheel_fits, wheel_platform_fits};
pub use tools::{Installer, InstallerOrigin, Tools};
pub use venv::{InstallOptions, Venv, VenvError, INSTALLER_TMP};
pub use version::{PythonRange, PythonVersion};
