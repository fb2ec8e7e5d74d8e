//! What `modernize` did, for the reader: each change with the bank's evidence (how the
//! successor is proven, the releases both exist in, the definitions), each removed API it
//! could not move with the era pin that would run it instead, and each move it could not
//! write into the code. Serialized as JSON, rendered as text.

use std::fmt::Write;
use std::path::PathBuf;

use pep440_rs::Version;
use serde::Serialize;

use super::plan::{Change, Unmoved, Why};
use super::rewrite::{Left, LeftWhy};
use crate::bank::store::{MoveKind, SignatureMatch, VersionRun};
use crate::names::{ApiPath, DistName};
use crate::notebook::Location;

/// One change and its evidence.
#[derive(Debug, Clone, Serialize)]
pub struct ChangeLine {
    pub old: ApiPath,
    pub new: ApiPath,
    pub distribution: DistName,
    pub kind: MoveKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signature_match: Option<SignatureMatch>,
    pub last: Version,
    pub removed_in: Version,
    /// The indexed releases that have both paths.
    pub both_in: Vec<VersionRun>,
    pub old_definition: Option<ApiPath>,
    pub new_definition: Option<ApiPath>,
    pub at: Vec<Location>,
    /// Whether the code was rewritten for it (somewhere; `left` says where not).
    pub written: bool,
}

impl ChangeLine {
    pub fn of(change: &Change, written: bool) -> Self {
        let s = change.successor();
        Self {
            old: change.old.clone(),
            new: change.new.clone(),
            distribution: change.distribution.clone(),
            kind: s.kind,
            signature_match: s.signature_match,
            last: change.evidence.last.clone(),
            removed_in: change.evidence.removed_in.clone(),
            both_in: s.overlap.clone(),
            old_definition: s.old_definition.clone(),
            new_definition: s.new_definition.clone(),
            at: change.at.clone(),
            written,
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub notebook: PathBuf,
    pub changes: Vec<ChangeLine>,
    pub unmoved: Vec<Unmoved>,
    /// Moves the bank proves that were not written into the code, and where.
    pub left: Vec<Left>,
}

fn runs(runs: &[VersionRun]) -> String {
    runs.iter()
        .map(|r| {
            if r.first == r.last {
                r.first.to_string()
            } else {
                format!("{}–{}", r.first, r.last)
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn places(at: &[Location]) -> String {
    at.iter()
        .map(Location::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

fn paths(p: &[ApiPath]) -> String {
    p.iter().map(ApiPath::as_str).collect::<Vec<_>>().join(", ")
}

impl Report {
    /// The text form: changes, then what could not move, then what was left in the code.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "{}", self.notebook.display());
        if self.changes.is_empty() && self.unmoved.is_empty() {
            out.push_str("  no removed API in use that the bank knows of\n");
        }
        if !self.changes.is_empty() {
            let _ = writeln!(out, "Moved ({}):", self.changes.len());
        }
        for c in &self.changes {
            let _ = writeln!(
                out,
                "  {} -> {}  (at {}){}",
                c.old,
                c.new,
                places(&c.at),
                if c.written { "" } else { "  [not written]" }
            );
            let proof = match (c.kind, c.signature_match) {
                (MoveKind::SameDefinition, _) => "the same definition".to_string(),
                (MoveKind::Twin, Some(SignatureMatch::Same)) => "a twin, same signature".into(),
                (MoveKind::Twin, Some(SignatureMatch::Extended)) => {
                    "a twin, signature extended with defaults".into()
                }
                (MoveKind::Twin, _) => "a twin".into(),
                (MoveKind::NoSignature, _) => "no signature recorded".into(),
            };
            let _ = writeln!(
                out,
                "    {}: removed in {} (last {}); {proof}; both in {}",
                c.distribution,
                c.removed_in,
                c.last,
                runs(&c.both_in)
            );
            if let (Some(a), Some(b)) = (&c.old_definition, &c.new_definition) {
                let _ = writeln!(out, "    defined as {a}, now {b}");
            }
        }
        if !self.unmoved.is_empty() {
            let _ = writeln!(out, "Could not move ({}):", self.unmoved.len());
        }
        for u in &self.unmoved {
            let why = match &u.why {
                Why::NoSuccessor => "no successor in the bank".to_string(),
                Why::Unproven { candidates } => format!(
                    "candidates {} unproven (no recorded signature)",
                    paths(candidates)
                ),
                Why::Ambiguous { candidates } => format!(
                    "successors {} equally proven: the bank cannot choose",
                    paths(candidates)
                ),
                Why::PositionalOrder { successor } => {
                    format!("{successor} put a new parameter before old positional ones")
                }
            };
            let _ = writeln!(
                out,
                "  {} (at {}): removed in {} {}; {why}; pin {} or rewrite by hand",
                u.api,
                places(&u.at),
                u.era_pin.distribution,
                u.removed_in,
                u.era_pin
            );
        }
        if !self.left.is_empty() {
            let _ = writeln!(out, "Left in the code ({}):", self.left.len());
        }
        for l in &self.left {
            let why = match &l.why {
                LeftWhy::StarImport => "imported with `*`".to_string(),
                LeftWhy::UsesDiverge { binding } => {
                    format!("`{binding}` is used for names that do not all move to one module")
                }
                LeftWhy::ModuleUsedWhole { binding } => {
                    format!("`{binding}` is used as a value itself")
                }
                LeftWhy::OtherPackage { binding } => {
                    format!("`{binding}` is imported from a package the new module is not in")
                }
                LeftWhy::NoImportInSight => "no plain import of its package in sight".into(),
                LeftWhy::WouldNotParse => "the rewritten cell would not parse".into(),
                LeftWhy::NotFound => "reached in a way the rewriter does not follow".into(),
            };
            let _ = writeln!(out, "  {} at {}: {why}", l.api, l.at);
        }
        out
    }
}
