//! What `modernize` did, for the reader: each change with the bank's evidence (how the
//! successor is proven, the releases both exist in, the definitions), each removed API it
//! could not move with the era pin that would run it instead, and each move it could not
//! write into the code. Serialized as JSON, rendered as text.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use std::path::PathBuf;

use pep440_rs::Version;
use serde::Serialize;

use super::candidate::NamedForm;
use super::plan::{Change, ChangeWhat, NamedBy, Unmoved, Why};
use super::python3::{Python3, Rule};
use super::rewrite::{Left, LeftWhy};
use super::trial::CandidatesKept;
use crate::bank::store::{MoveKind, SignatureMatch, VersionRun};
use crate::names::{ApiPath, DistName};
use crate::notebook::Location;

/// One change and its evidence.
#[derive(Debug, Clone, Serialize)]
pub struct ChangeLine {
    pub old: ApiPath,
    /// What takes its place: a path, a template over the call's arguments, a keyword.
    pub new: String,
    pub distribution: DistName,
    pub evidence: Evidence,
    /// The last release with the old form, and the first without (unknown for a keyword
    /// still accepted in the newest indexed release).
    pub last: Option<Version>,
    pub removed_in: Option<Version>,
    pub at: Vec<Location>,
    /// Whether the code was rewritten for it (somewhere; `left` says where not).
    pub written: bool,
    /// For a candidate only a warning names: what the modernized run made of it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trial: Option<Trial>,
}

/// What became of a candidate change (one only a warning names).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Trial {
    /// Written; the modernized run decides.
    Pending,
    /// Not written: no run was made to confirm it (`--no-run`).
    Untried,
    /// Written, and the modernized notebook ran to its end with it.
    Kept,
    /// The modernized notebook did not run to its end with it: written without it.
    Dropped,
}

/// What a change rests on.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Evidence {
    /// A successor path: the same definition, or a twin.
    Moved {
        proof: MoveKind,
        #[serde(skip_serializing_if = "Option::is_none")]
        signature_match: Option<SignatureMatch>,
        /// The indexed releases that have both paths.
        both_in: Vec<VersionRun>,
        old_definition: Option<ApiPath>,
        new_definition: Option<ApiPath>,
        /// The successor put a parameter after this many positional ones, which every call
        /// here keeps within.
        #[serde(skip_serializing_if = "Option::is_none")]
        positional_limit: Option<usize>,
        /// The successor's newest release takes only this many of the old positional
        /// parameters by position; calls here pass the rest by keyword.
        #[serde(skip_serializing_if = "Option::is_none")]
        newest_positionals: Option<usize>,
    },
    /// The old function's body in its last releases: a warning, then `return template`.
    Shim {
        definition: ApiPath,
        /// The parameters the template is written over (the old signature).
        signature: String,
        message: String,
        releases: Vec<VersionRun>,
    },
    /// The releases that took both keywords and warned on the old one.
    KeywordRenamed {
        definition: ApiPath,
        message: String,
        releases: Vec<VersionRun>,
    },
    /// The old API's module was forwarded, name for name, to `mirror` by the code of `by` in
    /// `releases`; the newest release of `to` has the forwarded name.
    Mirrored {
        module: ApiPath,
        mirror: ApiPath,
        by: ApiPath,
        releases: Vec<VersionRun>,
        to: DistName,
    },
    /// Only the old API's warning names the successor (`candidate`, as written there); the
    /// newest release has it as `successor`, in the form `form`.
    NamedInWarning {
        definition: ApiPath,
        candidate: String,
        successor: ApiPath,
        form: NamedForm,
        message: String,
        releases: Vec<VersionRun>,
    },
    /// Only the library's own change notes name the successor (`candidate`, as written
    /// there), in `file` (of the sdist of `read_from`) at `line`; the newest release has it as
    /// `successor`, in the form `form`, with the keywords `keywords` renamed at the call.
    ChangeNote {
        candidate: String,
        successor: ApiPath,
        form: NamedForm,
        #[serde(flatten)]
        cited: Cited,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        keywords: Vec<(String, String)>,
    },
    /// The library's own change notes say it now always behaves as if the old API were given
    /// `as_if`: calls passing just that go.
    #[serde(rename = "change-note")]
    AsIf {
        as_if: String,
        #[serde(flatten)]
        cited: Cited,
    },
}

/// Where change notes say it: `file` (of the sdist of `read_from`, about `release`) at
/// `line`, and the sentence.
#[derive(Debug, Clone, Serialize)]
pub struct Cited {
    pub file: String,
    pub line: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub release: Option<Version>,
    pub read_from: Version,
    pub sentence: String,
}

impl Cited {
    fn of(note: &crate::bank::store::StoredNote) -> Self {
        Self {
            file: note.note.file.clone(),
            line: note.note.line,
            release: note.note.release.clone(),
            read_from: note.read_from.clone(),
            sentence: note.note.sentence.clone(),
        }
    }

    /// `tabular 1.2's sdist, doc/whatsnew/v1.1.rst:8 (on 1.1): "the sentence"`.
    fn text(&self, dist: &DistName) -> String {
        let about = self
            .release
            .as_ref()
            .map_or(String::new(), |v| format!(" (on {v})"));
        format!(
            "{dist} {}'s sdist, {}:{}{about}: \"{}\"",
            self.read_from, self.file, self.line, self.sentence
        )
    }
}

impl Evidence {
    /// Its kind, as JSON names it.
    pub fn kind(&self) -> &'static str {
        match self {
            Evidence::Moved { .. } => "moved",
            Evidence::Mirrored { .. } => "mirrored",
            Evidence::Shim { .. } => "shim",
            Evidence::KeywordRenamed { .. } => "keyword-renamed",
            Evidence::NamedInWarning { .. } => "named-in-warning",
            Evidence::ChangeNote { .. } | Evidence::AsIf { .. } => "change-note",
        }
    }
}

impl ChangeLine {
    pub fn of(change: &Change, written: bool) -> Self {
        let evidence = match &change.what {
            ChangeWhat::Moved {
                evidence,
                positional_limit,
                newest_positionals,
                ..
            } => {
                let s = &evidence.successors[0];
                Evidence::Moved {
                    proof: s.kind,
                    signature_match: s.signature_match,
                    both_in: s.overlap.clone(),
                    old_definition: s.old_definition.clone(),
                    new_definition: s.new_definition.clone(),
                    positional_limit: *positional_limit,
                    newest_positionals: *newest_positionals,
                }
            }
            ChangeWhat::Mirrored { to, evidence, .. } => Evidence::Mirrored {
                module: evidence.module.clone(),
                mirror: evidence.mirror.clone(),
                by: evidence.by.clone(),
                releases: evidence.releases.clone(),
                to: to.clone(),
            },
            ChangeWhat::Template {
                evidence,
                signature,
                ..
            } => Evidence::Shim {
                definition: evidence.old.clone(),
                signature: signature.to_string(),
                message: evidence.message.clone(),
                releases: evidence.releases.clone(),
            },
            ChangeWhat::Keyword { evidence, .. } => Evidence::KeywordRenamed {
                definition: evidence.path.clone(),
                message: evidence.message.clone(),
                releases: evidence.releases.clone(),
            },
            ChangeWhat::Named {
                candidate,
                new,
                form,
                by: NamedBy::Warning { shim },
                ..
            } => Evidence::NamedInWarning {
                definition: shim.old.clone(),
                candidate: candidate.clone(),
                successor: new.clone(),
                form: form.clone(),
                message: shim.message.clone(),
                releases: shim.releases.clone(),
            },
            ChangeWhat::Named {
                candidate,
                new,
                form,
                by: NamedBy::ChangeNote { note, .. },
                keywords,
            } => Evidence::ChangeNote {
                candidate: candidate.clone(),
                successor: new.clone(),
                form: form.clone(),
                cited: Cited::of(note),
                keywords: keywords.clone(),
            },
            ChangeWhat::AsIf { value, note, .. } => Evidence::AsIf {
                as_if: value.clone(),
                cited: Cited::of(note),
            },
        };
        let (last, removed_in) = change.removal();
        Self {
            old: change.old.clone(),
            new: change.new_text(),
            distribution: change.distribution.clone(),
            evidence,
            last: last.cloned(),
            removed_in: removed_in.cloned(),
            at: change.at.clone(),
            written,
            trial: change.is_candidate().then_some(if written {
                Trial::Pending
            } else {
                Trial::Untried
            }),
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
    /// Python 2 code rewritten as Python 3 before the APIs moved, and lines to check.
    #[serde(skip_serializing_if = "Python3::is_empty")]
    pub python3: Python3,
    /// APIs runs of the modernized notebook met missing, and whether its code moved past
    /// each (see [`super::forward`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub met: Vec<super::forward::Met>,
    /// The notebook's local modules that hold removed APIs, each moved forward with it (see
    /// [`super::modules`]): a report each, named by the module's path.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub modules: Vec<Report>,
    /// A local module's report: its places are lines of the file, not cells.
    #[serde(skip)]
    pub module: bool,
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

/// A module's places: lines of its one cell.
fn lines(at: &[Location]) -> String {
    at.iter()
        .map(|l| format!("line {}", l.line))
        .collect::<Vec<_>>()
        .join(", ")
}

fn paths(p: &[ApiPath]) -> String {
    p.iter().map(ApiPath::as_str).collect::<Vec<_>>().join(", ")
}

impl Report {
    /// Where changes are: cells and lines in a notebook, lines in a module.
    fn places(&self, at: &[Location]) -> String {
        if self.module {
            lines(at)
        } else {
            places(at)
        }
    }

    /// The runs' word on the pending candidates (see [`super::trial`]); `None`: no run was
    /// made, and they are not in the notebook written.
    pub fn settle(&mut self, outcome: Option<CandidatesKept>) {
        for m in &mut self.modules {
            m.settle(outcome);
        }
        for c in &mut self.changes {
            if c.trial != Some(Trial::Pending) {
                continue;
            }
            let trial = match outcome {
                Some(CandidatesKept::Kept) => Trial::Kept,
                Some(CandidatesKept::Dropped) => Trial::Dropped,
                None => Trial::Untried,
            };
            c.trial = Some(trial);
            c.written = trial == Trial::Kept;
        }
    }

    /// The changes in the notebook kept once the runs said `outcome` of the pending
    /// candidates (`None`: no run), as [`Report::settle`] would leave them written.
    pub fn kept_changes(&self, outcome: Option<CandidatesKept>) -> usize {
        self.kept(outcome).count()
    }

    /// The changes in the notebook kept (see [`Report::kept_changes`]).
    pub fn kept(&self, outcome: Option<CandidatesKept>) -> impl Iterator<Item = &ChangeLine> {
        let modules = self.modules.iter().flat_map(|m| m.changes.iter());
        self.changes
            .iter()
            .chain(modules)
            .filter(move |c| match c.trial {
                None | Some(Trial::Kept) => c.written,
                Some(Trial::Pending) => outcome == Some(CandidatesKept::Kept),
                Some(Trial::Untried | Trial::Dropped) => false,
            })
    }

    /// How many changes of each evidence kind the notebook kept has.
    pub fn kept_kinds(&self, outcome: Option<CandidatesKept>) -> BTreeMap<String, usize> {
        let mut out = BTreeMap::new();
        for c in self.kept(outcome) {
            *out.entry(c.evidence.kind().to_string()).or_insert(0) += 1;
        }
        out
    }

    /// The Python 3 rewrites, one line per rule with its places, then the lines to check.
    fn render_python3(&self, out: &mut String) {
        let p = &self.python3;
        if !p.converted.is_empty() {
            let cells: BTreeSet<u32> = p.converted.iter().map(|c| c.at.cell).collect();
            let _ = writeln!(
                out,
                "Python 3 ({} rewrites in {} cells):",
                p.converted.len(),
                cells.len()
            );
            let mut by_rule: BTreeMap<Rule, Vec<Location>> = BTreeMap::new();
            for c in &p.converted {
                let at = by_rule.entry(c.rule).or_default();
                if at.last() != Some(&c.at) {
                    at.push(c.at);
                }
            }
            for (rule, at) in by_rule {
                let _ = writeln!(out, "  {} (at {})", rule.label(), self.places(&at));
                let _ = writeln!(out, "    python3: {}", rule.citation());
            }
        }
        if !p.check.is_empty() {
            let _ = writeln!(out, "Python 3, to check ({}):", p.check.len());
            for c in &p.check {
                let at = self.places(std::slice::from_ref(&c.at));
                let _ = writeln!(out, "  {at}: {}: {}", c.caution.says(), c.what);
            }
        }
    }

    /// The text form: changes, then what could not move, then what was left in the code.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "{}", self.notebook.display());
        self.render_python3(&mut out);
        if !self.met.is_empty() {
            let _ = writeln!(out, "Met missing in runs ({}):", self.met.len());
        }
        for m in &self.met {
            let _ = writeln!(
                out,
                "  {} (cell {}, round {}): not in {} {}; {}",
                m.api,
                m.cell,
                m.round,
                m.distribution,
                m.version,
                if m.moved {
                    "the code moved past it (below)"
                } else {
                    "no successor to move to"
                }
            );
        }
        if self.changes.is_empty() && self.unmoved.is_empty() {
            out.push_str("  no removed API in use that the bank knows of\n");
        }
        // Only what was written is "Changed"; the rest is proposed, with why it was not.
        let (written, proposed): (Vec<&ChangeLine>, Vec<&ChangeLine>) =
            self.changes.iter().partition(|c| c.written);
        if !written.is_empty() {
            let _ = writeln!(out, "Changed ({}):", written.len());
        }
        for c in written {
            self.render_change(&mut out, c);
        }
        if !proposed.is_empty() {
            let _ = writeln!(out, "Proposed, not written ({}):", proposed.len());
        }
        for c in proposed {
            self.render_change(&mut out, c);
            let why = match c.trial {
                Some(Trial::Untried) => "no run confirmed it (--no-run)",
                Some(Trial::Dropped) => "the modernized notebook did not run to its end with it",
                Some(Trial::Pending) => "its run is still to come",
                Some(Trial::Kept) | None => "the rewriter placed it nowhere (see below)",
            };
            let _ = writeln!(out, "    not written: {why}");
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
                Why::DroppedParameters {
                    successor,
                    parameters,
                } => format!(
                    "{successor} lacks {}, which calls here pass",
                    parameters.join(", ")
                ),
                Why::NamedInWarning { candidate, reason } => {
                    format!("its warning names {candidate}, but {reason}")
                }
                Why::ChangeNote { candidate, reason } => {
                    format!("its change notes name {candidate}, but {reason}")
                }
                Why::TemplateUnusable { template, reason } => {
                    format!("its shim returned `{template}`, but {reason}")
                }
                Why::Private { candidates } => {
                    format!("its successors {} are private", paths(candidates))
                }
                Why::Mirrored { successor, reason } => {
                    format!("its last releases forwarded it to {successor}, but {reason}")
                }
            };
            let _ = writeln!(
                out,
                "  {} (at {}): removed in {} {}; {why}; pin {} or rewrite by hand",
                u.api,
                self.places(&u.at),
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
                LeftWhy::ArgumentsDoNotFit { detail } => detail.clone(),
                LeftWhy::NotCalled => "used other than by a call".into(),
                LeftWhy::Nested => "inside another change's text".into(),
            };
            let at = self.places(std::slice::from_ref(&l.at));
            let _ = writeln!(out, "  {} at {at}: {why}", l.api);
        }
        // The local modules moved with the notebook, each its own report.
        for m in &self.modules {
            let _ = writeln!(out, "In the local module {}:", m.notebook.display());
            for line in m.render().lines().skip(1) {
                let _ = writeln!(out, "  {line}");
            }
        }
        out
    }

    fn render_change(&self, out: &mut String, c: &ChangeLine) {
        // `old -> new  (at places)`, as a path or a name takes the old one's place.
        let moved_line = |out: &mut String, c: &ChangeLine| {
            let _ = writeln!(out, "  {} -> {}  (at {})", c.old, c.new, self.places(&c.at));
        };
        let when = match (&c.last, &c.removed_in) {
            (Some(last), Some(gone)) => format!("removed in {gone} (last {last})"),
            (Some(last), None) => format!("last accepted in {last}"),
            (None, Some(gone)) => format!("removed in {gone}"),
            (None, None) => "removal not indexed".into(),
        };
        match &c.evidence {
            Evidence::Moved {
                proof,
                signature_match,
                both_in,
                old_definition,
                new_definition,
                positional_limit,
                newest_positionals,
            } => {
                moved_line(out, c);
                let proof = match (proof, signature_match) {
                    (MoveKind::SameDefinition, _) => "the same definition".to_string(),
                    (MoveKind::Twin, Some(SignatureMatch::Same)) => "a twin, same signature".into(),
                    (MoveKind::Twin, Some(SignatureMatch::Extended)) => {
                        "a twin, signature extended with defaults".into()
                    }
                    (MoveKind::Twin, Some(SignatureMatch::ByKeyword)) => format!(
                        "a twin with a parameter put after the first {} positional ones; \
                         calls here pass any after those by keyword",
                        positional_limit.unwrap_or(0)
                    ),
                    (MoveKind::Twin, Some(SignatureMatch::Narrowed)) => format!(
                        "a twin without old parameters no call here passes; calls here pass \
                         any argument after the first {} positional ones by keyword",
                        positional_limit.unwrap_or(0)
                    ),
                    (MoveKind::Twin, _) => "a twin".into(),
                    (MoveKind::NoSignature, _) => "no signature recorded".into(),
                };
                let newest = newest_positionals.map_or(String::new(), |n| {
                    format!(
                        "; its newest release takes only the first {n} by position: calls here \
                         pass any after those by keyword"
                    )
                });
                let _ = writeln!(
                    out,
                    "    moved: {}: {when}; {proof}; both in {}{newest}",
                    c.distribution,
                    runs(both_in)
                );
                if let (Some(a), Some(b)) = (old_definition, new_definition) {
                    let _ = writeln!(out, "    defined as {a}, now {b}");
                }
            }
            Evidence::Mirrored {
                module,
                mirror,
                by,
                releases,
                to,
            } => {
                moved_line(out, c);
                let _ = writeln!(
                    out,
                    "    mirrored: {}: {when}; {by} in {} puts a module forwarding every name to {mirror} in place of {module}; {to}'s newest release has {}",
                    c.distribution,
                    runs(releases),
                    c.new
                );
            }
            Evidence::Shim {
                definition,
                signature,
                message,
                releases,
            } => {
                let _ = writeln!(
                    out,
                    "  {}{signature} -> {}  (at {})",
                    c.old,
                    c.new,
                    self.places(&c.at)
                );
                let _ = writeln!(
                    out,
                    "    shim: {}: {when}; {definition} in {} warns \"{message}\" and returns it",
                    c.distribution,
                    runs(releases)
                );
            }
            Evidence::NamedInWarning {
                definition,
                candidate,
                successor,
                form: _,
                message,
                releases,
            } => {
                moved_line(out, c);
                let trial = trial_text(c);
                let _ = writeln!(
                    out,
                    "    named in warning: {}: {when}; {definition} in {} warns \"{message}\", naming {candidate} ({successor} in the newest release); {trial}",
                    c.distribution,
                    runs(releases)
                );
            }
            Evidence::ChangeNote {
                candidate,
                successor,
                cited,
                keywords,
                ..
            } => {
                moved_line(out, c);
                let mapped: Vec<String> = keywords
                    .iter()
                    .map(|(a, b)| format!("{a}= -> {b}="))
                    .collect();
                let mapped = if mapped.is_empty() {
                    String::new()
                } else {
                    format!("; keywords {}", mapped.join(", "))
                };
                let _ = writeln!(
                    out,
                    "    change note: {}, naming {candidate} ({successor} in the newest release){mapped}; {when}; {}",
                    cited.text(&c.distribution),
                    trial_text(c)
                );
            }
            Evidence::AsIf { as_if, cited } => {
                moved_line(out, c);
                let _ = writeln!(
                    out,
                    "    change note: {}: a call passing just {as_if} does nothing now; {when}; {}",
                    cited.text(&c.distribution),
                    trial_text(c)
                );
            }
            Evidence::KeywordRenamed {
                definition,
                message,
                releases,
            } => {
                let _ = writeln!(
                    out,
                    "  {}: keyword -> {}  (at {})",
                    c.old,
                    c.new,
                    self.places(&c.at)
                );
                let _ = writeln!(
                    out,
                    "    keyword renamed: {}: {when}; {definition} in {} took both and warned \"{message}\"",
                    c.distribution,
                    runs(releases)
                );
            }
        }
    }
}

/// What became of a candidate, as the report says it. One not written is listed under
/// "Proposed, not written" with the reason on a line of its own: said once, there.
fn trial_text(c: &ChangeLine) -> &'static str {
    if !c.written {
        return "a candidate";
    }
    match c.trial {
        Some(Trial::Pending) => "a candidate: kept only if the modernized run passes",
        Some(Trial::Kept) => "a candidate, kept: the modernized run passed with it",
        Some(Trial::Dropped) => "a candidate, dropped: the modernized run did not pass with it",
        Some(Trial::Untried) | None => "a candidate, not written: no run confirmed it",
    }
}
