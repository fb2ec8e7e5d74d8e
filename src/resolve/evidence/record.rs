//! One piece of evidence about a distribution's versions: what the notebook did (an API it
//! used, a member, a keyword, a `pip install` line), what its stored outputs show (a printed
//! `__version__`), or what the repository beside it declares (requirements.txt), where, and
//! what that implied for the releases ("removed in 0.20", "unknown in 2.0-2.3"), so every pin
//! can say why.

use pep508_rs::Requirement;
use serde::Serialize;

use super::history::{changes, Change, Span};
use crate::bank::store::ReleaseSet;
use crate::names::{ApiPath, ModulePath};
use crate::notebook::{DeclarationKind, DeclaredAt, Installer, Location};

/// Soft evidence applies only when some release allowed by everything before it satisfies
/// it, and is dropped with a warning otherwise. Hard evidence applies before it, strongest
/// first ([`Rank`]); it gives way only where it contradicts stronger evidence, or where no
/// Python has a resolution with it, and the output says so.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Strength {
    Hard,
    Soft,
}

/// Where a piece of evidence stands when the evidence conflicts: the lowest gives way first,
/// so that no single piece can make a notebook unresolvable. Ordered weakest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Rank {
    /// What the repository's files declare: often stale.
    Declared,
    /// Members of values a library returned, keyword arguments, versions outputs show,
    /// optional install lines.
    Soft,
    /// An API whose attribution is a guess: a bare name one of several star imports may
    /// define, a member of an object traced back to a library class.
    Guessed,
    /// An API the notebook uses once.
    Single,
    /// An API the notebook uses more than once.
    Repeated,
    /// A module the notebook imports, or a name it imports from one: no cell after it runs
    /// without it.
    Import,
    /// A `pip install` line of the notebook: never set aside.
    Install,
}

impl Rank {
    /// The strength this rank has had in the JSON from the start.
    pub fn strength(self) -> Strength {
        match self {
            Rank::Declared | Rank::Soft => Strength::Soft,
            _ => Strength::Hard,
        }
    }
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
    /// A version a stored output of `cell` shows: the release the notebook last ran with.
    Output {
        shown: ShownVersion,
        version: String,
        cell: u32,
    },
    /// A file of the repository around the notebook declares it (`requirements.txt:3`).
    Declared {
        requirement: Requirement,
        /// As written in the file.
        text: String,
        declared_in: DeclarationKind,
        at: DeclaredAt,
    },
}

/// How a stored output shows a version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "by")]
pub enum ShownVersion {
    /// `print(module.__version__)`, or the value of a cell ending in it.
    Printed { module: ModulePath },
    /// pip's `Successfully installed x-1.2` or `Requirement already satisfied: x … (1.2)`.
    Pip,
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
    /// No release is known to have it: some may (static reading cannot tell), the rest
    /// lack it. A misread name, a column read as an attribute (`df.sales` on a class that
    /// answers any name), a local name a star import seemed to define: nothing to choose
    /// versions by.
    NeverSeen,
    /// A member of a value a call returned that classes of another distribution the
    /// notebook uses have too (numpy's arrays have `.mean`, `.shape`): the bank does not
    /// know which library's object the value is.
    AlsoElsewhere,
    /// A requirement without a version (`pip install x`) or with a direct URL.
    NoVersion,
    /// A declared requirement under an environment marker (`; python_version < "3"`), which
    /// cannot be told before the interpreter is chosen.
    UnderMarker,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "why")]
pub enum Effect {
    /// Keeps only the releases in `allowed`.
    Constrains,
    NoConstraint(NoConstraint),
    /// Soft evidence that could not be honoured: dropped, with a warning.
    Dropped(DropReason),
}

/// Why evidence was dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DropReason {
    /// No release that the stronger evidence still allows satisfies it.
    Contradicts,
    /// Releases satisfy it, but no interpreter the notebook allows has a full resolution
    /// (installable wheels, dependencies) with it.
    NoResolution,
}

impl DropReason {
    /// The reason in words, for the warning.
    pub fn describe(self) -> &'static str {
        match self {
            DropReason::Contradicts => "no release still allowed satisfies it",
            DropReason::NoResolution => {
                "no Python the notebook allows has a full resolution with it"
            }
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EvidenceRecord {
    pub source: EvidenceSource,
    pub strength: Strength,
    /// Where it stands when the evidence conflicts; `strength` follows from it.
    pub rank: Rank,
    /// Where in the notebook, first first.
    pub locations: Vec<Location>,
    pub effect: Effect,
    /// The releases this evidence alone cannot rule out (as slots of the distribution).
    #[serde(skip)]
    pub allowed: ReleaseSet,
    /// The bank's answer over the releases, in version order (empty for install lines).
    pub history: Vec<Span>,
    /// The notebook it comes from, when several are resolved together, or the local module
    /// file a notebook imports.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notebook: Option<String>,
    /// `notebook` names a local module file (its places are lines of the file, not cells).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub in_module: bool,
}

impl EvidenceRecord {
    /// Where in the notebook it was first seen (`None` for outputs and declarations, which
    /// carry their own place).
    pub fn at(&self) -> Option<Location> {
        self.locations.first().copied()
    }

    /// Additions and removals the bank's answer shows.
    pub fn changes(&self) -> Vec<Change> {
        changes(&self.history)
    }

    pub fn is_dropped(&self) -> bool {
        matches!(self.effect, Effect::Dropped(_))
    }

    /// Why it was dropped, if it was.
    pub fn dropped_why(&self) -> Option<DropReason> {
        match self.effect {
            Effect::Dropped(why) => Some(why),
            _ => None,
        }
    }

    /// Whether the repository's files, not the notebook, say it: the weakest evidence there
    /// is, set aside first when a resolution needs room.
    pub fn is_declared(&self) -> bool {
        matches!(self.source, EvidenceSource::Declared { .. })
    }
}
