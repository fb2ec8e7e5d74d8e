//! `bank add`, `bank build` and `bank introspect`: the releases asked for indexed statically,
//! then (where asked) run to settle what static reading cannot tell. The queries that only
//! read the bank are the bank's own functions; the command line prints what they return.

mod targets;

pub use targets::{list_targets, NotInList};

use std::path::PathBuf;
use std::time::Duration;

use crate::bank::indexer::{self, BuildOptions, BuildReport, BuildTarget, PackageEntry};
use crate::bank::introspect::{self, IntrospectConfig, IntrospectReport};
use crate::pypi::IndexClient;
use crate::python::Interpreter;
use crate::reporter::Reporter;

use super::{CommandError, GlobalSettings};

/// What the releases are run on, when they are introspected.
#[derive(Debug, Clone)]
pub struct RuntimeSettings {
    /// Interpreters to install releases on; empty: those found here.
    pub pythons: Vec<PathBuf>,
    /// What installing one release may take.
    pub install_timeout: Duration,
}

/// Which releases introspection takes on again.
#[derive(Debug, Clone, Copy, Default)]
pub struct Again {
    /// Releases introspected already.
    pub force: bool,
    /// Only releases whose answers are still unknown.
    pub unknown_only: bool,
}

/// What a command's runs did: the static indexing, and introspection when it ran.
pub struct BankRuns {
    pub bank: PathBuf,
    pub build: BuildReport,
    pub runtime: Option<IntrospectReport>,
}

/// `bank add`: indexes the releases `targets` select.
pub fn add(
    global: &GlobalSettings,
    targets: &[BuildTarget],
    options: &BuildOptions,
    reporter: &dyn Reporter,
) -> Result<BankRuns, CommandError> {
    let client = global.index_client()?;
    Ok(BankRuns {
        bank: global.bank.clone(),
        build: index(global, &client, targets, options, reporter)?,
        runtime: None,
    })
}

/// `bank introspect`: indexes the releases `targets` select statically (introspection
/// imports the modules that lists), then introspects them, unless nothing was indexed or the
/// run was stopped.
pub fn introspect(
    global: &GlobalSettings,
    targets: &[BuildTarget],
    options: &BuildOptions,
    runtime: &RuntimeSettings,
    again: Again,
    reporter: &dyn Reporter,
) -> Result<BankRuns, CommandError> {
    let client = global.index_client()?;
    let build = index(global, &client, targets, options, reporter)?;
    let nothing = build.releases_indexed + build.releases_skipped == 0;
    let runtime = if nothing || build.interrupted {
        None
    } else {
        Some(run(
            global, &client, targets, runtime, options, again, reporter,
        )?)
    };
    Ok(BankRuns {
        bank: global.bank.clone(),
        build,
        runtime,
    })
}

/// `bank build`: indexes `targets` of the package list `list`, then introspects those the
/// list marks `introspect` (unless `introspect` is false, or the run was stopped).
pub fn build(
    global: &GlobalSettings,
    list: &[PackageEntry],
    targets: Vec<BuildTarget>,
    options: &BuildOptions,
    runtime: Option<&RuntimeSettings>,
    reporter: &dyn Reporter,
) -> Result<BankRuns, CommandError> {
    let client = global.index_client()?;
    let build = index(global, &client, &targets, options, reporter)?;
    let marked: Vec<BuildTarget> = targets
        .into_iter()
        .filter(|t| list.iter().any(|e| e.name == t.name && e.introspect))
        .collect();
    let runtime = match runtime {
        Some(runtime) if !build.interrupted && !marked.is_empty() => {
            let again = Again {
                force: options.force,
                unknown_only: false,
            };
            Some(run(
                global, &client, &marked, runtime, options, again, reporter,
            )?)
        }
        _ => None,
    };
    Ok(BankRuns {
        bank: global.bank.clone(),
        build,
        runtime,
    })
}

/// Indexes `targets` with the reporter's progress; Ctrl-C stops it after the releases in
/// flight.
fn index(
    global: &GlobalSettings,
    client: &IndexClient,
    targets: &[BuildTarget],
    options: &BuildOptions,
    reporter: &dyn Reporter,
) -> Result<BuildReport, CommandError> {
    indexer::build_reported(client, &global.bank, targets, options, reporter).map_err(|source| {
        CommandError::Build {
            bank: global.bank.clone(),
            source,
        }
    })
}

/// Introspects `targets` on the interpreters `runtime` names (else those found here).
fn run(
    global: &GlobalSettings,
    client: &IndexClient,
    targets: &[BuildTarget],
    runtime: &RuntimeSettings,
    options: &BuildOptions,
    again: Again,
    reporter: &dyn Reporter,
) -> Result<IntrospectReport, CommandError> {
    let found = crate::python::found();
    let interpreters = if runtime.pythons.is_empty() {
        found.to_vec()
    } else {
        runtime
            .pythons
            .iter()
            .map(|p| Interpreter::at(p))
            .collect::<Result<Vec<_>, _>>()?
    };
    if interpreters.is_empty() {
        return Err(CommandError::NoInterpreterToIntrospect);
    }
    // Tools run on a modern interpreter, whatever `--python` chose for the releases.
    let tools = if runtime.pythons.is_empty() {
        global.tools(&interpreters)
    } else {
        global.tools(found)
    };
    let installer = introspect::installer_said(&tools, reporter);
    let mut config = IntrospectConfig::new(interpreters, installer, tools);
    config.install_timeout = runtime.install_timeout;
    config.lock = options.lock.clone();
    config.force = again.force;
    config.unknown_only = again.unknown_only;
    config.index_url = global.index_url_if_not_pypi();
    introspect::introspect_reported(client, &global.bank, targets, &config, reporter).map_err(
        |source| CommandError::Introspect {
            bank: global.bank.clone(),
            source,
        },
    )
}
