//! One piece of evidence about a distribution's versions: what the notebook did (an API it
//! used, a member, a keyword, a `pip install` line), where, and what that implied for the
//! releases ("removed in 0.20", "unknown in 2.0-2.3"), so every pin can say why.

use pep508_rs::Requirement;
use serde::Serialize;

use super::history::{changes, Change, Span};
use crate::bank::store::ReleaseSet;
use crate::names::ApiPath;
use crate::notebook::{Installer, Location};

/// Hard evidence always applies; soft evidence only when some release allowed by everything
/// before it satisfies it, and is dropped with a warning otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Strength {
    Hard,
    Soft,
}

/// What the notebook did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum EvidenceSource {
    /// `import a.b`.
    Import { module: ApiPath },
    /// A called, read or imported API.
    Api { api: ApiPath },
    /// A member used on a value an API of the distribution returned (`df.ix`, `df` from
    /// `pandas.read_csv`).
    Member {
        member: String,
        derived_from: ApiPath,
        example: String,
    },
    /// A keyword argument passed to an API.
    Keyword { api: ApiPath, keyword: String },
    /// `!pip install x==v`, `%pip`, `%conda`.
    Install {
        requirement: Requirement,
        installer: Installer,
        command: String,
    },
}

/// Why a piece of evidence rules nothing out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NoConstraint {
    /// Every registered release has it, may have it, or is not indexed.
    Everywhere,
    /// No release has it or may have it, and every release is indexed: the bank does not
    /// know it for this distribution (or the analysis misread the notebook), so it cannot
    /// choose versions.
    UnknownToBank,
    /// No indexed release has it or may have it, but some releases are not indexed: indexing
    /// them would tell where it is, if anywhere.
    NotFoundWhereIndexed,
    /// The bank has no releases of the distribution.
    NotInBank,
    /// A requirement without a version (`pip install x`) or with a direct URL.
    NoVersion,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "why")]
pub enum Effect {
    /// Keeps only the releases in `allowed`.
    Constrains,
    NoConstraint(NoConstraint),
    /// Soft evidence no release still allowed satisfies: dropped, with a warning.
    Dropped,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EvidenceRecord {
    pub source: EvidenceSource,
    pub strength: Strength,
    /// Where in the notebook, first first.
    pub locations: Vec<Location>,
    pub effect: Effect,
    /// The releases this evidence alone cannot rule out (as slots of the distribution).
    #[serde(skip)]
    pub allowed: ReleaseSet,
    /// The bank's answer over the releases, in version order (empty for install lines).
    pub history: Vec<Span>,
    /// The notebook it comes from, when several are resolved together.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notebook: Option<String>,
}

impl EvidenceRecord {
    /// Where it was first seen.
    pub fn at(&self) -> Option<Location> {
        self.locations.first().copied()
    }

    /// Additions and removals the bank's answer shows.
    pub fn changes(&self) -> Vec<Change> {
        changes(&self.history)
    }

    pub fn is_dropped(&self) -> bool {
        self.effect == Effect::Dropped
    }
}
