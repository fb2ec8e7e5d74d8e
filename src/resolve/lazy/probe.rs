//! A release lazy indexing reads, and why.

use pep508_rs::pep440_rs::Version;
use serde::Serialize;

use crate::names::DistName;

/// One release to index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Probe {
    pub dist: DistName,
    /// `None`: the distribution is not in the bank yet; its newest release on the index.
    pub version: Option<Version>,
    pub reason: ProbeReason,
    pub action: Action,
}

/// How the release is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Indexed: its files read statically.
    Index,
    /// Introspected: installed and its names read at run time, where static reading could
    /// not tell.
    Introspect,
}

/// Why a release is read. `what` names the evidence: an API path, `.member`, `api(keyword=)`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum ProbeReason {
    /// The newest release: every search starts there.
    Newest,
    /// No indexed release has `what`: looking further back, twice as far each time.
    LookingBack { what: String },
    /// `what` turns between `older` and `newer`: the release halfway between.
    Bisect {
        what: String,
        older: Version,
        newer: Version,
    },
    /// `what` is absent between releases that have it (`older`, `newer`): the releases
    /// between are read, since bisection cannot be trusted across a gap.
    Gap {
        what: String,
        older: Version,
        newer: Version,
    },
    /// No indexed release has any API the notebook uses from it: whether it is a requirement
    /// at all depends on the releases not read yet, so all of them are.
    Credibility,
    /// The resolution pinned it: a pin is never a release the bank has not read.
    Pinned,
    /// The resolution pinned it, and static reading cannot tell whether it has `what`.
    Unknown { what: String },
}

impl std::fmt::Display for Probe {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.version {
            Some(v) => write!(f, "{} {v}", self.dist)?,
            None => write!(f, "{}", self.dist)?,
        }
        match &self.reason {
            ProbeReason::Newest => write!(f, " (the newest)"),
            ProbeReason::LookingBack { what } => write!(f, " (looking back for {what})"),
            ProbeReason::Bisect { what, older, newer } => {
                write!(f, " ({what} changes between {older} and {newer})")
            }
            ProbeReason::Gap { what, older, newer } => {
                write!(
                    f,
                    " ({what} is missing somewhere between {older} and {newer})"
                )
            }
            ProbeReason::Credibility => write!(f, " (no read release has the APIs used)"),
            ProbeReason::Pinned => write!(f, " (pinned)"),
            ProbeReason::Unknown { what } => write!(f, " (pinned, and unknown: {what})"),
        }
    }
}
