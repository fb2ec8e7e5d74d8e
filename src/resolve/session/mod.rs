//! The inference session: what one `infer` (or every round of a `restore`, or every notebook
//! of a batch) works with, opened once, and the inference itself: the notebooks read, their
//! evidence gathered from the bank, what the bank lacks indexed (and introspected) lazily,
//! the resolution. It says what happens through a [`Reporter`] and returns typed errors;
//! the caller decides what to show and which exit code each error is.

mod error;
mod infer;
mod read;
mod steps;
#[cfg(test)]
mod tests;

use std::path::PathBuf;
use std::time::Instant;

pub use error::SessionError;
pub use infer::{infer_usages, infer_usages_with, Inferred};
pub use read::{read_usages, read_usages_of};

use crate::bank::store::{Claim, ClaimError, DistClaims, LockPolicy, ReleaseFailure, Store};
use crate::names::DistName;
use crate::pypi::IndexClient;
use crate::python::{Interpreter, PythonVersion};
use crate::reporter::Reporter;
use crate::resolve::evidence::{BankView, SharedBank};
use crate::resolve::interpreter::Reach;
use crate::resolve::options::{DateCap, InferOptions, Sdists};
use crate::resolve::solver::{Catalog, SolveOptions};

/// Where a session works, as the caller found it once: the bank, where nbenv's tools are
/// kept, the index installers use, and the interpreters on this machine.
#[derive(Clone)]
pub struct SessionPlace {
    /// The bank file, created empty when missing.
    pub bank: PathBuf,
    /// Where nbenv keeps the tools introspection installs with (uv, old virtualenv).
    pub tools_dir: PathBuf,
    /// The index installers are given, where it is not PyPI.
    pub installer_index: Option<String>,
    /// Nothing from the network: the bank is read as it is, lacking what it lacks.
    pub offline: bool,
    /// Interpreters to choose a Python among (their versions read from their names where
    /// those say them).
    pub installed: Vec<Interpreter>,
    /// What introspection does when another process is writing the bank.
    pub lock: LockPolicy,
}

/// What one inference session works with, opened once: the bank (created empty when
/// missing), the index client, the solver's options (the date cap worked out, and said,
/// once) and the interpreters on this machine. Threads may share it: a batch's workers do.
pub struct InferSession {
    pub bank_file: PathBuf,
    pub bank: SharedBank,
    pub client: IndexClient,
    pub solve_options: SolveOptions,
    pub installed: Vec<Interpreter>,
    pub tools_dir: PathBuf,
    pub installer_index: Option<String>,
    pub offline: bool,
    pub lock: LockPolicy,
    /// Claims on the distributions lazy inference indexes or introspects: a run (this
    /// session's other threads, another process) needing the same ones waits, then reads
    /// what was written instead of fetching it again; one needing others does not wait.
    claims: DistClaims,
}

/// A view of the bank that keeps earlier answers (a batch's, across notebooks): it forgets
/// them whenever an inference writes the bank.
pub trait RememberingBank: BankView + Sync {
    fn forget(&self);
}

/// How one inference runs within a longer job (a batch, a restoration).
#[derive(Clone, Copy, Default)]
pub struct InferRun<'a> {
    /// Past this instant, the next step (reading the bank, an indexing round, a resolution)
    /// fails with [`SessionError::OutOfTime`] instead of starting.
    pub deadline: Option<Instant>,
    /// The index's releases and metadata as read for earlier inferences of the same job:
    /// shared, each project page is decoded once per batch rather than once per notebook.
    pub catalog: Option<&'a dyn Catalog>,
    /// The bank's answers to earlier inferences of the same job: read instead of the
    /// session's bank, and forgotten whenever an inference writes the bank.
    pub bank: Option<&'a dyn RememberingBank>,
    /// Releases this job saw fail (a restoration's earlier rounds), passed over besides the
    /// ones the bank's run records name.
    pub failed: &'a [ReleaseFailure],
    /// Which interpreters to resolve for: installed ones only when the notebook is to run
    /// here.
    pub reach: Reach,
    /// Interpreters to pass over (a restoration whose environment could not be built on
    /// them).
    pub skip_pythons: &'a [PythonVersion],
    /// What a restoration's search asks of the resolution (see [`crate::resolve::solver::Steer`]).
    pub steer: &'a [crate::resolve::solver::Steer],
}

pub(crate) fn check_time(deadline: Option<Instant>) -> Result<(), SessionError> {
    match deadline {
        Some(d) if Instant::now() >= d => Err(SessionError::OutOfTime),
        _ => Ok(()),
    }
}

impl InferSession {
    /// Introspection as an inference runs it: on this machine's interpreters, with the
    /// session's tools and index, within `within`, not trying again what an earlier run
    /// could not introspect.
    pub fn introspect_config(
        &self,
        within: Option<std::time::Duration>,
        reporter: &dyn crate::reporter::Reporter,
    ) -> crate::bank::introspect::IntrospectConfig {
        let interpreters = crate::python::found();
        let tools = crate::python::Tools::new(
            &self.tools_dir,
            Some(self.client.index_url().to_string()),
            interpreters,
        );
        let installer = crate::bank::introspect::installer_said(&tools, reporter);
        let mut config = crate::bank::introspect::IntrospectConfig::for_inference(
            interpreters.to_vec(),
            installer,
            tools,
            self.installer_index.clone(),
            within,
        );
        config.lock = self.lock.clone();
        config
    }

    /// Claims `dists` for one round of writing the bank, after any other run holding one of
    /// them; the wait counts as lock wait in `--timings`, and stops at Ctrl-C or `deadline`.
    pub(super) fn claim(
        &self,
        dists: &[DistName],
        deadline: Option<Instant>,
        reporter: &dyn Reporter,
    ) -> Result<Claim, SessionError> {
        let give_up =
            || crate::interrupt::requested() || deadline.is_some_and(|d| Instant::now() >= d);
        let claim = crate::timings::time(crate::timings::Stage::LockWait, || {
            self.claims.claim(dists, &give_up)
        })
        .map_err(|e| match e {
            ClaimError::Store(e) => SessionError::Store(e),
            ClaimError::GaveUp { .. } if crate::interrupt::requested() => {
                SessionError::Interrupted {
                    kept: 0,
                    left: dists.len(),
                    noun: "distributions",
                }
            }
            ClaimError::GaveUp { .. } => SessionError::OutOfTime,
        })?;
        if !claim.held_by_others.is_empty() {
            let names: Vec<&str> = claim.held_by_others.iter().map(DistName::as_str).collect();
            reporter.verbose_note(&format!(
                "waited {:.1} s for another run writing {} to the bank",
                claim.waited.as_secs_f64(),
                names.join(", ")
            ));
        }
        Ok(claim)
    }

    pub fn open(
        place: SessionPlace,
        client: IndexClient,
        args: &InferOptions,
    ) -> Result<Self, SessionError> {
        let bank_file = place.bank;
        if !bank_file.exists() {
            // An empty bank: created here, filled with what the notebook needs.
            Store::open(&bank_file).map_err(|source| SessionError::CreateBank {
                bank: bank_file.clone(),
                source,
            })?;
        }
        let bank = SharedBank::open(&bank_file)?;
        Ok(Self {
            client,
            solve_options: SolveOptions {
                allow_sdist: args.sdists == Sdists::Allowed,
                wheels_only: args.sdists == Sdists::Never,
                sdist_where_no_wheel: false,
                sdist_fallback: args.sdists != Sdists::Never,
                sdist_anywhere: false,
                exclude_newer: cap_date(args),
                prefer_before: None,
                steer: Vec::new(),
                failed: failures(&bank_file)?,
                // What releases import, as the bank read their code. What it shows other
                // releases lack is kept for the session: one indexed meanwhile counts from
                // the next.
                import_time: crate::resolve::solver::ImportTime::new(std::sync::Arc::new(
                    crate::resolve::import_time::BankImportTime::new(bank.clone()),
                )),
            },
            bank,
            installed: place.installed,
            tools_dir: place.tools_dir,
            installer_index: place.installer_index,
            offline: place.offline,
            lock: place.lock,
            claims: DistClaims::of_bank(&bank_file),
            bank_file,
        })
    }
}

/// The releases earlier runs saw fail, for the resolver to pass over; none from a bank that
/// does not exist yet.
pub fn failures(bank: &std::path::Path) -> Result<Vec<ReleaseFailure>, SessionError> {
    if !bank.exists() {
        return Ok(Vec::new());
    }
    Ok(Store::open_read_only(bank)?.release_failures()?)
}

/// `--exclude-newer`: files uploaded after it do not count.
pub fn cap_date(args: &InferOptions) -> Option<jiff::Timestamp> {
    match args.cap {
        DateCap::None => None,
        DateCap::Before(at) => Some(at),
    }
}
