//! What to move: from the APIs a notebook uses and what the bank knows of them, the changes
//! the bank proves and the removed APIs it cannot move. A pure function of its inputs, so
//! each decision is testable without a bank.

use std::collections::BTreeSet;
use std::fmt;

use pep440_rs::Version;
use serde::{Serialize, Serializer};

use super::calls::{CallEdit, CallRewrite};
use super::candidate::{self, NamedForm};
use super::facts::Facts;
use super::rewrite::{PositionalLimit, Rewrites};
use crate::bank::extract::{ParamKind, Signature};
use crate::bank::flow::ApiKind;
use crate::bank::store::{
    ApiReport, Mirrored, Move, MoveKind, MovesReport, RenamedKeyword, ShimEvidence, Shimmed,
    SignatureMatch, StoredNote, Successor, VersionRun,
};
use crate::names::{ApiPath, DistName};
use crate::notebook::{ApiUse, Location, Origin};

/// A change to the notebook's code, and the evidence for it.
#[derive(Debug, Clone, Serialize)]
pub struct Change {
    /// The API whose uses change.
    pub old: ApiPath,
    pub distribution: DistName,
    pub what: ChangeWhat,
    /// Where the notebook uses it.
    pub at: Vec<Location>,
}

/// What a change writes, with what proves it.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum ChangeWhat {
    /// A removed API's path becomes its successor's.
    Moved {
        new: ApiPath,
        /// The removal, with every successor the bank found (the first is `new`).
        evidence: Move,
        /// The successor put a parameter before old positional ones: calls passing at most
        /// this many arguments by position mean the same to both; others keep the old path.
        #[serde(skip_serializing_if = "Option::is_none")]
        positional_limit: Option<usize>,
        /// The successor's newest release takes only this many of the old positional
        /// parameters by position (scikit-learn 1.0 made `validation_curve`'s `param_name`
        /// keyword-only): calls pass the rest by keyword, as for `positional_limit`.
        #[serde(skip_serializing_if = "Option::is_none")]
        newest_positionals: Option<usize>,
        /// Each old positional parameter with the name the successor takes it by keyword, in
        /// its newest signature when `newest_positionals` is set.
        #[serde(skip)]
        by_keyword: Vec<Option<String>>,
    },
    /// Each call of a removed function becomes the expression its last releases' shim
    /// returned, over the call's own arguments.
    Template {
        template: String,
        /// The old API's signature in its last release, which maps a call's arguments.
        signature: Signature,
        evidence: Shimmed,
    },
    /// A keyword the newest release no longer accepts, renamed at each call that passes it.
    Keyword {
        from: String,
        to: String,
        evidence: RenamedKeyword,
    },
    /// A removed API under a module its last releases forwarded, name for name, to another
    /// module (perhaps another distribution's, `to`): the forwarded name, found in the
    /// newest release of `to`.
    Mirrored {
        new: ApiPath,
        to: DistName,
        evidence: Mirrored,
        /// The old API's last release with it (as itself), and the first without it.
        last: Version,
        removed_in: Version,
    },
    /// A successor only the old API's warning or the library's change notes name
    /// (`candidate`, as written there), found in the newest release at `new`: a candidate,
    /// kept only when the modernized run passes.
    Named {
        candidate: String,
        new: ApiPath,
        form: NamedForm,
        by: NamedBy,
        /// Keywords the notes map at the call (`columns` → `by` of
        /// `DataFrame.sort(columns=...)` → `DataFrame.sort_values(by=...)`).
        #[serde(skip_serializing_if = "Vec::is_empty")]
        keywords: Vec<(String, String)>,
    },
    /// The library's change notes say it now always behaves as if the old API were given
    /// `value` ("Matplotlib now always behaves as if ``hold=True``"): each call passing just
    /// that does nothing now, and goes. A candidate, kept only when the modernized run
    /// passes.
    AsIf {
        value: String,
        /// Reached on a value: its calls are found where the notebook uses it.
        method: bool,
        note: StoredNote,
        last: Version,
        removed_in: Version,
    },
}

/// What names a candidate successor.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "by", rename_all = "kebab-case")]
pub enum NamedBy {
    /// The old API's deprecation warning, in its last releases' body.
    Warning { shim: Shimmed },
    /// The distribution's own change notes; `last` and `removed_in` from the bank.
    ChangeNote {
        note: StoredNote,
        last: Version,
        removed_in: Version,
    },
}

impl Change {
    /// What takes the old API's place, as the report shows it.
    pub fn new_text(&self) -> String {
        match &self.what {
            ChangeWhat::Moved { new, .. } | ChangeWhat::Mirrored { new, .. } => new.to_string(),
            ChangeWhat::Template { template, .. } => template.clone(),
            ChangeWhat::Keyword { to, .. } => format!("{to}="),
            ChangeWhat::Named { form, .. } => form.text(),
            ChangeWhat::AsIf { value, .. } => format!("nothing (its calls passing {value} go)"),
        }
    }

    /// Whether only a warning or the notes name it: it is kept only when the modernized run
    /// passes.
    pub fn is_candidate(&self) -> bool {
        matches!(
            self.what,
            ChangeWhat::Named { .. } | ChangeWhat::AsIf { .. }
        )
    }

    /// Its last release with the old form, and the first without.
    pub fn removal(&self) -> (Option<&Version>, Option<&Version>) {
        match &self.what {
            ChangeWhat::Moved { evidence, .. } => {
                (Some(&evidence.last), Some(&evidence.removed_in))
            }
            ChangeWhat::Mirrored {
                last, removed_in, ..
            } => (Some(last), Some(removed_in)),
            ChangeWhat::Template { evidence, .. }
            | ChangeWhat::Named {
                by: NamedBy::Warning { shim: evidence },
                ..
            } => (Some(&evidence.last), Some(&evidence.removed_in)),
            ChangeWhat::Named {
                by: NamedBy::ChangeNote {
                    last, removed_in, ..
                },
                ..
            }
            | ChangeWhat::AsIf {
                last, removed_in, ..
            } => (Some(last), Some(removed_in)),
            ChangeWhat::Keyword { evidence, .. } => (
                evidence.releases.last().map(|r| &r.last),
                evidence.old_removed_in.as_ref(),
            ),
        }
    }
}

/// The pin that runs a removed API as it was: its distribution before the release that
/// removed it, or at most its last release with it when releases between those two are not
/// indexed (nothing is known of them: the API may be gone there already).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EraPin {
    pub distribution: DistName,
    pub bound: Bound,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Bound {
    Below(Version),
    AtMost(Version),
}

impl fmt::Display for EraPin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.bound {
            Bound::Below(v) => write!(f, "{}<{v}", self.distribution),
            Bound::AtMost(v) => write!(f, "{}<={v}", self.distribution),
        }
    }
}

impl Serialize for EraPin {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Why a removed API stays as it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Why {
    /// The bank knows no path that took its place.
    NoSuccessor,
    /// Candidates exist, but no recorded signature proves one.
    Unproven { candidates: Vec<ApiPath> },
    /// Several successors prove it equally well: the bank cannot choose.
    Ambiguous { candidates: Vec<ApiPath> },
    /// Its last releases' warning names a successor that cannot be written as a candidate:
    /// `reason` says why (the newest release has no such name, its calls take another
    /// shape).
    NamedInWarning { candidate: String, reason: String },
    /// The library's change notes name `candidate`, which cannot be written as a candidate:
    /// `reason` says why.
    ChangeNote { candidate: String, reason: String },
    /// Its last releases' shim returned `template`, which cannot be written at a call: it
    /// reads names of the library's own module, or the old signature is not recorded.
    TemplateUnusable { template: String, reason: String },
    /// The successor put a new parameter before old positional ones: calls passing those by
    /// position would change meaning.
    PositionalOrder { successor: ApiPath },
    /// Its last releases forwarded it to `successor`, which cannot be written: `reason`
    /// says why.
    Mirrored { successor: ApiPath, reason: String },
    /// Its only successors are private (`DataFrame._append`): a library's internals, free
    /// to change in any release, are never proposed.
    Private { candidates: Vec<ApiPath> },
    /// The successor lacks old parameters the notebook's calls pass.
    DroppedParameters {
        successor: ApiPath,
        parameters: Vec<String>,
    },
}

/// A used API the bank shows removed that `modernize` does not move, and the pin that would
/// run it instead.
#[derive(Debug, Clone, Serialize)]
pub struct Unmoved {
    pub api: ApiPath,
    /// Its last release with it, and the first without.
    pub last: Version,
    pub removed_in: Version,
    pub era_pin: EraPin,
    pub why: Why,
    pub at: Vec<Location>,
}

/// The changes, sorted by old path, and what could not move.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Plan {
    pub changes: Vec<Change>,
    pub unmoved: Vec<Unmoved>,
}

impl Plan {
    /// What the rewriter writes: old path → new path for moves, and the rewrites at calls;
    /// the candidates only named in a warning too when `candidates`.
    pub fn rewrites(&self, candidates: bool) -> Rewrites {
        self.rewrites_tried(candidates, &BTreeSet::new())
    }

    /// [`Plan::rewrites`], with the candidates for `tried` written whatever `candidates`
    /// says: APIs a run met, whose candidate the next run tries.
    pub fn rewrites_tried(&self, candidates: bool, tried: &BTreeSet<ApiPath>) -> Rewrites {
        let mut out = Rewrites::default();
        for c in &self.changes {
            match &c.what {
                ChangeWhat::Named { .. } | ChangeWhat::AsIf { .. }
                    if !candidates && !tried.contains(&c.old) => {}
                ChangeWhat::AsIf { value, .. } => out.calls.push(CallRewrite {
                    api: c.old.clone(),
                    method: c.method(),
                    at: c.at.clone(),
                    edit: CallEdit::Drop {
                        value: value.clone(),
                    },
                }),
                ChangeWhat::Named { form, keywords, .. } => {
                    match form {
                        NamedForm::Path { new } => {
                            out.renames.insert(c.old.clone(), new.clone());
                        }
                        NamedForm::Chain { method, rest } => out.calls.push(CallRewrite {
                            api: c.old.clone(),
                            method: false,
                            at: c.at.clone(),
                            edit: CallEdit::Chain {
                                method: method.clone(),
                                rest: rest.clone(),
                            },
                        }),
                        NamedForm::Attribute { name } | NamedForm::Method { name } => {
                            out.calls.push(CallRewrite {
                                api: c.old.clone(),
                                method: true,
                                at: c.at.clone(),
                                edit: CallEdit::Member {
                                    name: name.clone(),
                                    call: matches!(form, NamedForm::Method { .. }),
                                },
                            })
                        }
                    }
                    for (old, new) in keywords {
                        out.calls.push(CallRewrite {
                            api: c.old.clone(),
                            method: c.method(),
                            at: c.at.clone(),
                            edit: CallEdit::Keyword {
                                old: old.clone(),
                                new: new.clone(),
                            },
                        });
                    }
                }
                ChangeWhat::Moved {
                    new,
                    positional_limit,
                    newest_positionals,
                    by_keyword,
                    ..
                } => {
                    out.renames.insert(c.old.clone(), new.clone());
                    // The newest's limit is set only below the other one.
                    if let Some(limit) = newest_positionals.or(*positional_limit) {
                        out.positional_limits.insert(
                            c.old.clone(),
                            PositionalLimit {
                                limit,
                                keywords: by_keyword.clone(),
                            },
                        );
                    }
                }
                ChangeWhat::Mirrored { new, .. } => {
                    out.renames.insert(c.old.clone(), new.clone());
                }
                ChangeWhat::Template {
                    template,
                    signature,
                    ..
                } => out.calls.push(CallRewrite {
                    api: c.old.clone(),
                    method: c.method(),
                    at: c.at.clone(),
                    edit: CallEdit::Template {
                        expr: template.clone(),
                        signature: signature.clone(),
                    },
                }),
                ChangeWhat::Keyword { from, to, .. } => out.calls.push(CallRewrite {
                    api: c.old.clone(),
                    method: c.method(),
                    at: c.at.clone(),
                    edit: CallEdit::Keyword {
                        old: from.clone(),
                        new: to.clone(),
                    },
                }),
            }
        }
        out
    }
}

impl Change {
    /// Whether its calls are on a value (a method): found by where the notebook uses it.
    fn method(&self) -> bool {
        match &self.what {
            ChangeWhat::Template { signature, .. } => signature
                .params
                .first()
                .is_some_and(|p| p.name == "self" || p.name == "cls"),
            ChangeWhat::Keyword { evidence, .. } => evidence
                .path
                .split_last()
                .and_then(|(parent, _)| parent.rsplit('.').next())
                .is_some_and(|owner| owner.starts_with(|c: char| c.is_ascii_uppercase())),
            ChangeWhat::Moved { .. } | ChangeWhat::Mirrored { .. } => false,
            ChangeWhat::Named { form, .. } => {
                !matches!(form, NamedForm::Path { .. } | NamedForm::Chain { .. })
            }
            ChangeWhat::AsIf { method, .. } => *method,
        }
    }
}

/// The keywords `u` passes that the newest signature of its API (as `report` records it)
/// does not accept: no parameter of that name, no `**kwargs`. Unrecorded is not rejected.
pub(super) fn rejected_keywords<'a>(u: &'a ApiUse, report: &ApiReport) -> Vec<&'a str> {
    let Some(newest) = report
        .signature_changes
        .last()
        .and_then(|c| c.signature.parse::<Signature>().ok())
    else {
        return Vec::new();
    };
    if newest
        .params
        .iter()
        .any(|p| p.kind == ParamKind::VarKeyword)
    {
        return Vec::new();
    }
    u.keywords
        .iter()
        .map(String::as_str)
        .filter(|k| {
            !newest.params.iter().any(|p| {
                p.name == *k && matches!(p.kind, ParamKind::Positional | ParamKind::KeywordOnly)
            })
        })
        .collect()
}

/// The renamed keywords `u` passes by their old name, which the newest release rejects.
fn keyword_changes(u: &ApiUse, reports: &[ApiReport], facts: &Facts) -> Vec<Change> {
    let mut out = Vec::new();
    for r in reports {
        let Some(moves) = facts.moves.get(&r.distribution) else {
            continue;
        };
        for k in rejected_keywords(u, r) {
            let defines = |path: &ApiPath| {
                *path == u.api || r.canonical.iter().any(|c| c.path == path.as_str())
            };
            let Some(rename) = moves
                .renamed_keywords
                .iter()
                .find(|rk| rk.old == k && defines(&rk.path))
            else {
                continue;
            };
            out.push(Change {
                old: u.api.clone(),
                distribution: r.distribution.clone(),
                what: ChangeWhat::Keyword {
                    from: rename.old.clone(),
                    to: rename.new.clone(),
                    evidence: rename.clone(),
                },
                at: u.locations.clone(),
            });
        }
    }
    out
}

/// Builtins a template may read: they mean the same at the call site.
const BUILTINS: &[&str] = &[
    "abs",
    "all",
    "any",
    "bool",
    "dict",
    "float",
    "getattr",
    "hasattr",
    "int",
    "isinstance",
    "len",
    "list",
    "max",
    "min",
    "range",
    "repr",
    "round",
    "set",
    "sorted",
    "str",
    "sum",
    "tuple",
    "type",
    "zip",
];

/// The signature of `report`'s API in release `at`: the last change at or before it.
fn signature_at(report: &ApiReport, at: &Version) -> Option<Signature> {
    report
        .signature_changes
        .iter()
        .take_while(|c| c.version <= *at)
        .last()
        .and_then(|c| c.signature.parse().ok())
}

/// The shim of `api` (by its definition or a public path to it), if its last releases had
/// one.
pub(super) fn shim_of<'a>(moves: Option<&'a MovesReport>, api: &ApiPath) -> Option<&'a Shimmed> {
    moves?
        .shims
        .iter()
        .find(|s| s.old == *api || s.also_as.contains(api))
}

/// What a shim makes of `u`: a change, or why it stays.
fn from_shim(
    shim: &Shimmed,
    u: &ApiUse,
    removal: &Removal<'_>,
    facts: &Facts,
) -> Result<ChangeWhat, Why> {
    match &shim.evidence {
        ShimEvidence::NamedInWarning { candidate } if private_segment(candidate).is_some() => {
            Err(Why::NamedInWarning {
                candidate: candidate.clone(),
                reason: "it is private".to_string(),
            })
        }
        ShimEvidence::NamedInWarning { candidate } => {
            let report = removal.report;
            let method = report.kind == ApiKind::Method;
            match candidate::resolve(u, method, &report.distribution, candidate, &facts.targets) {
                Ok((new, form)) => Ok(ChangeWhat::Named {
                    candidate: candidate.clone(),
                    new,
                    form,
                    by: NamedBy::Warning { shim: shim.clone() },
                    keywords: Vec::new(),
                }),
                Err(reason) => Err(Why::NamedInWarning {
                    candidate: candidate.clone(),
                    reason,
                }),
            }
        }
        ShimEvidence::Shim {
            template, globals, ..
        } => {
            let unusable = |reason: String| Why::TemplateUnusable {
                template: template.clone(),
                reason,
            };
            if let Some(name) = private_attribute(template) {
                return Err(unusable(format!("it calls `.{name}`, a private name")));
            }
            let foreign: Vec<&str> = globals
                .iter()
                .map(String::as_str)
                .filter(|g| !BUILTINS.contains(g))
                .collect();
            if !foreign.is_empty() {
                return Err(unusable(format!(
                    "it reads {} of the library's own module",
                    foreign.join(", ")
                )));
            }
            let Some(signature) = signature_at(removal.report, &removal.last) else {
                return Err(unusable(format!(
                    "no signature of {} is recorded for {}",
                    u.api, removal.last
                )));
            };
            Ok(ChangeWhat::Template {
                template: template.clone(),
                signature,
                evidence: shim.clone(),
            })
        }
    }
}

/// What a forwarding of `moves` makes of `u`: a change, or why the name it was forwarded to
/// cannot be written; `None` when no forwarding covers it.
fn from_mirror(
    u: &ApiUse,
    removal: &Removal<'_>,
    moves: &MovesReport,
    facts: &Facts,
) -> Option<Result<ChangeWhat, Why>> {
    let (mirrored, new) = super::mirror::mirror_of(&moves.mirrors, &u.api)?;
    Some(match super::mirror::successor(u, &new, &facts.targets) {
        Ok(to) => Ok(ChangeWhat::Mirrored {
            new,
            to,
            evidence: mirrored.clone(),
            last: removal.last.clone(),
            removed_in: removal.removed_in.clone(),
        }),
        Err(reason) => Err(Why::Mirrored {
            successor: new,
            reason,
        }),
    })
}

/// What the change notes of `moves` make of `u`: a change, or why the first replacement
/// they name cannot be written; `None` when no note names it.
fn from_notes(
    u: &ApiUse,
    removal: &Removal<'_>,
    moves: &MovesReport,
    facts: &Facts,
) -> Option<Result<ChangeWhat, Why>> {
    let method = removal.report.kind == ApiKind::Method;
    let found = super::notes::successor(
        u,
        method,
        &removal.report.distribution,
        moves,
        &facts.targets,
    )?;
    Some(match found {
        Ok(f) => Ok(ChangeWhat::Named {
            candidate: f.candidate,
            new: f.new,
            form: f.form,
            by: NamedBy::ChangeNote {
                note: f.note.clone(),
                last: removal.last.clone(),
                removed_in: removal.removed_in.clone(),
            },
            keywords: f.keywords,
        }),
        Err((candidate, reason)) => Err(Why::ChangeNote { candidate, reason }),
    })
}

/// What the change notes of `moves` say the library now always does in `u`'s place: a
/// value its calls may pass to no effect ("always behaves as if ``hold=True``"), the newest
/// note first.
fn from_as_if(u: &ApiUse, removal: &Removal<'_>, moves: &MovesReport) -> Option<ChangeWhat> {
    let (note, value) = super::notes::naming(u, moves)
        .into_iter()
        .find_map(|n| Some((n, n.note.as_if.clone()?)))?;
    Some(ChangeWhat::AsIf {
        value,
        method: removal.report.kind == ApiKind::Method,
        note: note.clone(),
        last: removal.last.clone(),
        removed_in: removal.removed_in.clone(),
    })
}

/// `m` without its private successors; `Err` with them when no other is left.
fn without_private(mut m: Move) -> Result<Move, Vec<ApiPath>> {
    let (private, public): (Vec<Successor>, Vec<Successor>) = std::mem::take(&mut m.successors)
        .into_iter()
        .partition(|s| private_segment(s.path.as_str()).is_some());
    if public.is_empty() {
        return Err(private.into_iter().map(|s| s.path).collect());
    }
    m.successors = public;
    Ok(m)
}

/// The first private segment of a dotted path (`_append` of `DataFrame._append`); dunder
/// names (`__call__`) are the language's, not private.
fn private_segment(path: &str) -> Option<&str> {
    path.split('.').find(|s| {
        crate::bank::extract::is_private(s) && !(s.starts_with("__") && s.ends_with("__"))
    })
}

/// The first private attribute a template reads (`_append` in `self._append(other)`).
fn private_attribute(template: &str) -> Option<&str> {
    let mut rest = template;
    while let Some(at) = rest.find('.') {
        let after = &rest[at + 1..];
        let end = after
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        let name = &after[..end];
        if private_segment(name).is_some() {
            return Some(name);
        }
        rest = after;
    }
    None
}

/// A removal as one distribution's report shows it.
struct Removal<'a> {
    report: &'a ApiReport,
    last: Version,
    removed_in: Version,
    /// Releases between the two that are not indexed.
    gap: bool,
}

/// Whether the API is gone from the newest indexed release of every distribution that ever
/// had it. A release where the bank cannot tell is not a removal: unknown is not absent.
fn removal(reports: &[ApiReport]) -> Option<Removal<'_>> {
    let mut found: Option<Removal<'_>> = None;
    for r in reports {
        let Some(last) = r.present.last().map(|run| run.last.clone()) else {
            continue;
        };
        let latest = r.latest_indexed.as_ref()?;
        let within = |runs: &[VersionRun]| VersionRun::any_contains(runs, latest);
        if within(&r.present) || within(&r.unknown) {
            return None;
        }
        // The first indexed release after the last with it that lacks it.
        let removed_in = r
            .absent
            .iter()
            .map(|run| &run.first)
            .filter(|v| **v > last)
            .min()?
            .clone();
        if found.as_ref().is_none_or(|f| f.last < last) {
            let gap = r.not_indexed.iter().any(|v| *v > last && *v < removed_in);
            found = Some(Removal {
                report: r,
                last,
                removed_in,
                gap,
            });
        }
    }
    found
}

/// A successor whose signature takes every call the old one took.
fn compatible(s: &Successor) -> bool {
    match s.kind {
        MoveKind::SameDefinition => true,
        MoveKind::Twin => matches!(
            s.signature_match,
            Some(SignatureMatch::Same | SignatureMatch::Extended) | None
        ),
        MoveKind::NoSignature => false,
    }
}

/// For a twin that put a parameter before old positional ones: how many leading
/// positional parameters the two signatures share, in order (`estimator, X, y` of
/// `cross_val_score`, before `groups`); `None` when none, or a signature is not recorded.
fn shared_positionals(s: &Successor) -> Option<usize> {
    if !matches!(
        s.signature_match,
        Some(SignatureMatch::ByKeyword | SignatureMatch::Narrowed)
    ) {
        return None;
    }
    let (old, new) = signatures(s)?;
    let positional = |sig: &Signature| -> Vec<String> {
        sig.params
            .iter()
            .filter(|p| matches!(p.kind, ParamKind::PositionalOnly | ParamKind::Positional))
            .map(|p| p.name.clone())
            .collect()
    };
    let shared = positional(&old)
        .iter()
        .zip(&positional(&new))
        .take_while(|(a, b)| a == b)
        .count();
    (shared > 0).then_some(shared)
}

/// The old and new signatures a successor was compared by, parsed; `None` when one is not
/// recorded.
fn signatures(s: &Successor) -> Option<(Signature, Signature)> {
    let parse = |t: &Option<String>| t.as_deref()?.parse::<Signature>().ok();
    Some((parse(&s.old_signature)?, parse(&s.new_signature)?))
}

/// The old signature's positional parameters, each with the name the successor takes it
/// by keyword (`None` where it does not).
fn by_keyword(s: &Successor) -> Vec<Option<String>> {
    let Some((old, new)) = signatures(s) else {
        return Vec::new();
    };
    keyword_names(&old, &new)
}

/// The positional parameters of a signature, in order.
fn positional_names(sig: &Signature) -> Vec<&str> {
    sig.params
        .iter()
        .filter(|p| matches!(p.kind, ParamKind::PositionalOnly | ParamKind::Positional))
        .map(|p| p.name.as_str())
        .collect()
}

/// When the successor's newest signature (of `dist`, as `facts.targets` has it) takes fewer
/// of the old positional parameters by position than the old signature did: how many it
/// still takes (at least one), and each old positional parameter with the name the newest
/// takes it by keyword. scikit-learn 1.0's `validation_curve(estimator, X, y, *,
/// param_name, ...)`, where 0.19's took `param_name` fifth by position.
fn newest_limit(
    s: &Successor,
    dist: &DistName,
    facts: &Facts,
) -> Option<(usize, Vec<Option<String>>)> {
    let (old, _) = signatures(s)?;
    let report = facts
        .targets
        .get(&s.path)?
        .iter()
        .find(|r| r.distribution == *dist)?;
    let newest: Signature = report.signature_changes.last()?.signature.parse().ok()?;
    let (was, now) = (positional_names(&old), positional_names(&newest));
    let shared = was.iter().zip(&now).take_while(|(a, b)| a == b).count();
    (shared > 0 && shared < was.len()).then(|| (shared, keyword_names(&old, &newest)))
}

/// `old`'s positional parameters, each with the name `new` takes it by keyword (`None` where
/// it does not).
fn keyword_names(old: &Signature, new: &Signature) -> Vec<Option<String>> {
    old.params
        .iter()
        .filter(|p| matches!(p.kind, ParamKind::PositionalOnly | ParamKind::Positional))
        .map(|p| {
            let takes = new.params.iter().any(|q| {
                q.name == p.name && matches!(q.kind, ParamKind::Positional | ParamKind::KeywordOnly)
            });
            (p.kind == ParamKind::Positional && takes).then(|| p.name.clone())
        })
        .collect()
}

/// The old parameters a narrowed twin lacks that `u`'s calls pass by keyword.
fn dropped_and_passed(s: &Successor, u: &ApiUse) -> Vec<String> {
    if s.signature_match != Some(SignatureMatch::Narrowed) {
        return Vec::new();
    }
    let (Some(old), Some(new)) = (&s.old_signature, &s.new_signature) else {
        return Vec::new();
    };
    crate::bank::store::dropped_parameters(old, new)
        .into_iter()
        .filter(|p| u.keywords.contains(p))
        .collect()
}

/// Whether a successor is defined under its own path's package
/// (`sklearn.model_selection.train_test_split`, defined in `sklearn.model_selection._split`),
/// not a name another module imported for its own use
/// (`sklearn.utils.estimator_checks.train_test_split`).
fn own_package(s: &Successor) -> bool {
    match (&s.new_definition, s.path.split_last()) {
        (Some(def), Some((parent, _))) => {
            *def == s.path || def.as_str().starts_with(&format!("{parent}."))
        }
        _ => false,
    }
}

/// The successor the bank's ranking puts first; among those it ranks alike, the one defined
/// under its own package. `Err`: the successors it cannot choose between.
fn chosen(successors: &[Successor]) -> Result<&Successor, Vec<ApiPath>> {
    let first = &successors[0];
    let alike: Vec<&Successor> = successors.iter().filter(|s| tied(first, s)).collect();
    if alike.len() == 1 {
        return Ok(first);
    }
    match alike.iter().filter(|s| own_package(s)).collect::<Vec<_>>()[..] {
        [one] => Ok(one),
        _ => Err(alike.iter().map(|s| s.path.clone()).collect()),
    }
}

/// Two successors the bank's ranking cannot tell apart.
fn tied(a: &Successor, b: &Successor) -> bool {
    a.kind == b.kind && a.signature_match == b.signature_match && a.overlap == b.overlap
}

/// The changes and the unmoved APIs among the third-party APIs `uses` names.
pub fn plan(uses: &[ApiUse], facts: &Facts) -> Plan {
    let mut out = Plan::default();
    for u in uses.iter().filter(|u| u.origin == Origin::ThirdParty) {
        let Some(reports) = facts.apis.get(&u.api) else {
            continue;
        };
        let Some(removal) = removal(reports) else {
            out.changes.extend(keyword_changes(u, reports, facts));
            continue;
        };
        // A removed module is moved through the names used from it.
        if removal.report.kind == ApiKind::Module {
            continue;
        }
        let dist = &removal.report.distribution;
        let change = |what: ChangeWhat| Change {
            old: u.api.clone(),
            distribution: dist.clone(),
            what,
            at: u.locations.clone(),
        };
        let moves = facts.moves.get(dist);
        let find = |list: &[Move]| list.iter().find(|m| m.old == u.api).cloned();
        let proven = moves.and_then(|m| find(&m.moves));
        let unproven = moves.and_then(|m| find(&m.unproven));
        let why = match (proven.map(without_private), unproven) {
            (Some(Err(candidates)), _) => Why::Private { candidates },
            (Some(Ok(m)), _) => match chosen(&m.successors) {
                Err(candidates) => Why::Ambiguous { candidates },
                Ok(first) => match (
                    dropped_and_passed(first, u),
                    compatible(first),
                    shared_positionals(first),
                ) {
                    (dropped, ..) if !dropped.is_empty() => Why::DroppedParameters {
                        successor: first.path.clone(),
                        parameters: dropped,
                    },
                    (_, false, None) => Why::PositionalOrder {
                        successor: first.path.clone(),
                    },
                    (_, fits, limit) => {
                        let new = first.path.clone();
                        let limit = if fits { None } else { limit };
                        let (newest_positionals, by_keyword) =
                            match newest_limit(first, dist, facts) {
                                Some((shared, names)) if limit.is_none_or(|l| shared < l) => {
                                    (Some(shared), names)
                                }
                                _ => (None, by_keyword(first)),
                            };
                        out.changes.push(change(ChangeWhat::Moved {
                            new,
                            evidence: m,
                            positional_limit: limit,
                            newest_positionals,
                            by_keyword,
                        }));
                        continue;
                    }
                },
            },
            (None, unproven) => {
                // Forwarded elsewhere by its own last releases: the library's own word.
                let mirrored = match moves.and_then(|m| from_mirror(u, &removal, m, facts)) {
                    Some(Ok(what)) => {
                        out.changes.push(change(what));
                        continue;
                    }
                    other => other.and_then(Result::err),
                };
                match shim_of(moves, &u.api).map(|s| from_shim(s, u, &removal, facts)) {
                    Some(Ok(what)) => {
                        out.changes.push(change(what));
                        continue;
                    }
                    Some(Err(why)) if unproven.is_none() => why,
                    _ => match unproven {
                        Some(m) => Why::Unproven {
                            candidates: m.successors.iter().map(|s| s.path.clone()).collect(),
                        },
                        None => mirrored.unwrap_or(Why::NoSuccessor),
                    },
                }
            }
        };
        // What the library's own change notes name, when the bank proves nothing usable.
        let why = match moves.and_then(|m| from_notes(u, &removal, m, facts)) {
            Some(Ok(what)) => {
                out.changes.push(change(what));
                continue;
            }
            Some(Err(noted)) if why == Why::NoSuccessor => noted,
            _ => why,
        };
        // What the notes say the library now always does in its place.
        if let Some(what) = moves.and_then(|m| from_as_if(u, &removal, m)) {
            out.changes.push(change(what));
            continue;
        }
        out.unmoved.push(Unmoved {
            api: u.api.clone(),
            last: removal.last.clone(),
            removed_in: removal.removed_in.clone(),
            era_pin: EraPin {
                distribution: dist.clone(),
                bound: if removal.gap {
                    Bound::AtMost(removal.last.clone())
                } else {
                    Bound::Below(removal.removed_in.clone())
                },
            },
            why,
            at: u.locations.clone(),
        });
    }
    // A member of a class that moved moves with it (`GridSearchCV.fit`).
    let moved_owners: Vec<&ApiPath> = out
        .changes
        .iter()
        .filter(|c| {
            matches!(
                c.what,
                ChangeWhat::Moved { .. } | ChangeWhat::Mirrored { .. }
            )
        })
        .map(|c| &c.old)
        .collect();
    out.unmoved.retain(|u| {
        !u.api
            .split_last()
            .is_some_and(|(owner, _)| moved_owners.iter().any(|o| o.as_str() == owner))
    });
    out.changes.sort_by(|a, b| a.old.cmp(&b.old));
    out.unmoved.sort_by(|a, b| a.api.cmp(&b.api));
    out
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::str::FromStr;

    use super::*;

    fn v(s: &str) -> Version {
        Version::from_str(s).unwrap()
    }

    fn run(a: &str, b: &str) -> VersionRun {
        VersionRun {
            first: v(a),
            last: v(b),
        }
    }

    fn p(s: &str) -> ApiPath {
        ApiPath::new(s).unwrap()
    }

    fn dist() -> DistName {
        DistName::new("toolkit").unwrap()
    }

    /// An API of `toolkit` over releases 1.0, 1.1, 1.2: present, unknown and absent runs.
    fn report(path: &str, present: &[VersionRun], unknown: &[VersionRun]) -> ApiReport {
        let absent = ["1.0", "1.1", "1.2"]
            .iter()
            .map(|x| v(x))
            .filter(|x| !present.iter().chain(unknown).any(|r| r.contains(x)))
            .map(|x| VersionRun {
                first: x.clone(),
                last: x,
            })
            .collect();
        ApiReport {
            distribution: dist(),
            display_name: None,
            path: path.into(),
            kind: ApiKind::Function,
            indexed_releases: 3,
            present: present.to_vec(),
            unknown: unknown.to_vec(),
            absent,
            not_indexed: vec![],
            first: present.first().map(|r| r.first.clone()),
            last: present.last().map(|r| r.last.clone()),
            latest_indexed: Some(v("1.2")),
            static_present: present.to_vec(),
            runtime_present: vec![],
            unknown_through: vec![],
            raising_modules: vec![],
            canonical: vec![],
            signature_changes: vec![],
        }
    }

    fn successor(path: &str, kind: MoveKind, m: Option<SignatureMatch>) -> Successor {
        Successor {
            path: p(path),
            kind,
            signature_match: m,
            overlap: vec![run("1.1", "1.1")],
            unrecorded: vec![],
            first: v("1.1"),
            old_definition: None,
            new_definition: None,
            old_signature: None,
            new_signature: None,
            also_as: vec![],
        }
    }

    fn moved(old: &str, successors: Vec<Successor>) -> Move {
        Move {
            old: p(old),
            kind: ApiKind::Function,
            last: v("1.1"),
            removed_in: v("1.2"),
            unknown_after: vec![],
            raising_module: None,
            successors,
        }
    }

    fn uses(paths: &[&str]) -> Vec<ApiUse> {
        paths
            .iter()
            .map(|a| ApiUse {
                api: p(a),
                origin: Origin::ThirdParty,
                count: 1,
                kinds: vec![],
                keywords: vec![],
                locations: vec![Location::new(1, 1)],
            })
            .collect()
    }

    fn facts(apis: Vec<ApiReport>, moves: Vec<Move>, unproven: Vec<Move>) -> Facts {
        Facts {
            apis: apis.into_iter().map(|r| (p(&r.path), vec![r])).collect(),
            moves: BTreeMap::from([(
                dist(),
                MovesReport {
                    distribution: dist(),
                    display_name: None,
                    indexed_releases: 3,
                    latest_indexed: Some(v("1.2")),
                    moves,
                    unproven,
                    shims: Vec::new(),
                    renamed_keywords: Vec::new(),
                    mirrors: Vec::new(),
                    change_notes: Vec::new(),
                    notes_read: Vec::new(),
                },
            )]),
            targets: BTreeMap::new(),
            members: Vec::new(),
            met: Vec::new(),
        }
    }

    const OLD: &str = "toolkit.cv.split";

    /// The plan for a notebook using `OLD`, removed after 1.1, whose one successor is a twin
    /// whose signature matches as `matching` says.
    fn plan_with_twin(matching: SignatureMatch) -> Plan {
        let f = facts(
            vec![report(OLD, &[run("1.0", "1.1")], &[])],
            vec![moved(
                OLD,
                vec![successor(
                    "toolkit.ms.split",
                    MoveKind::Twin,
                    Some(matching),
                )],
            )],
            vec![],
        );
        plan(&uses(&[OLD]), &f)
    }

    /// Issue 37 item 5: a library's private name is never proposed: with a public successor
    /// beside it, the public one; alone, the API stays, saying why.
    #[test]
    fn a_private_successor_is_never_proposed() {
        let twin = |path: &str| successor(path, MoveKind::Twin, Some(SignatureMatch::Same));
        let only_private = facts(
            vec![report(OLD, &[run("1.0", "1.1")], &[])],
            vec![moved(OLD, vec![twin("toolkit.cv._split")])],
            vec![],
        );
        let plan_of = |f: &Facts| plan(&uses(&[OLD]), f);
        let stayed = plan_of(&only_private);
        assert!(stayed.changes.is_empty());
        assert_eq!(
            stayed.unmoved[0].why,
            Why::Private {
                candidates: vec![p("toolkit.cv._split")]
            }
        );
        let both = facts(
            vec![report(OLD, &[run("1.0", "1.1")], &[])],
            vec![moved(
                OLD,
                vec![twin("toolkit.cv._split"), twin("toolkit.ms.split")],
            )],
            vec![],
        );
        let moved_on = plan_of(&both);
        assert_eq!(moved_on.changes.len(), 1);
        assert_eq!(moved_on.changes[0].new_text(), "toolkit.ms.split");
        assert_eq!(private_attribute("self._append(other)"), Some("_append"));
        assert_eq!(private_attribute("type(self).__name__ + x.values"), None);
        assert_eq!(private_segment("pandas.DataFrame.__call__"), None);
    }

    #[test]
    fn a_proven_successor_is_a_change() {
        let plan = plan_with_twin(SignatureMatch::Same);
        assert_eq!(plan.changes.len(), 1);
        assert_eq!(plan.changes[0].new_text(), "toolkit.ms.split");
        assert!(plan.unmoved.is_empty());
    }

    #[test]
    fn no_successor_is_unmoved_with_the_era_pin() {
        let f = facts(vec![report(OLD, &[run("1.0", "1.1")], &[])], vec![], vec![]);
        let plan = plan(&uses(&[OLD]), &f);
        assert!(plan.changes.is_empty());
        let u = &plan.unmoved[0];
        assert_eq!(u.why, Why::NoSuccessor);
        assert_eq!(u.era_pin.to_string(), "toolkit<1.2");
        assert_eq!(u.last, v("1.1"));
    }

    #[test]
    fn releases_not_indexed_before_the_removal_pin_the_last_known() {
        let mut r = report(OLD, &[run("1.0", "1.0")], &[]);
        r.absent = vec![run("1.2", "1.2")];
        r.not_indexed = vec![v("1.1")];
        let plan = plan(&uses(&[OLD]), &facts(vec![r], vec![], vec![]));
        assert_eq!(plan.unmoved[0].era_pin.to_string(), "toolkit<=1.0");
    }

    #[test]
    fn unknown_in_the_newest_release_is_not_a_removal() {
        let f = facts(
            // Absent in 1.1, unknown in 1.2: it may be back.
            vec![report(OLD, &[run("1.0", "1.0")], &[run("1.2", "1.2")])],
            vec![],
            vec![],
        );
        let plan = plan(&uses(&[OLD]), &f);
        assert!(plan.changes.is_empty() && plan.unmoved.is_empty());
    }

    #[test]
    fn still_present_is_left_alone() {
        let f = facts(vec![report(OLD, &[run("1.0", "1.2")], &[])], vec![], vec![]);
        assert!(plan(&uses(&[OLD]), &f).unmoved.is_empty());
    }

    #[test]
    fn tied_successors_are_ambiguous() {
        let twin = |path| successor(path, MoveKind::Twin, Some(SignatureMatch::Same));
        let f = facts(
            vec![report(OLD, &[run("1.0", "1.1")], &[])],
            vec![moved(
                OLD,
                vec![twin("toolkit.a.split"), twin("toolkit.b.split")],
            )],
            vec![],
        );
        let plan = plan(&uses(&[OLD]), &f);
        assert!(plan.changes.is_empty());
        assert_eq!(
            plan.unmoved[0].why,
            Why::Ambiguous {
                candidates: vec![p("toolkit.a.split"), p("toolkit.b.split")]
            }
        );
    }

    #[test]
    fn among_tied_successors_the_one_under_its_own_package_is_chosen() {
        let twin = |path: &str, def: &str| Successor {
            new_definition: Some(p(def)),
            ..successor(path, MoveKind::Twin, Some(SignatureMatch::Same))
        };
        let f = facts(
            vec![report(OLD, &[run("1.0", "1.1")], &[])],
            vec![moved(
                OLD,
                vec![
                    twin("toolkit.checks.split", "toolkit.ms._impl.split"),
                    twin("toolkit.ms.split", "toolkit.ms._impl.split"),
                ],
            )],
            vec![],
        );
        let plan = plan(&uses(&[OLD]), &f);
        assert!(plan.unmoved.is_empty(), "{:?}", plan.unmoved);
        assert_eq!(plan.changes[0].new_text(), "toolkit.ms.split");
    }

    #[test]
    fn a_reordered_signature_is_not_moved() {
        let plan = plan_with_twin(SignatureMatch::ByKeyword);
        assert!(matches!(plan.unmoved[0].why, Why::PositionalOrder { .. }));
    }

    #[test]
    fn a_reordered_signature_moves_calls_within_the_shared_positionals() {
        let mut s = successor(
            "toolkit.ms.score",
            MoveKind::Twin,
            Some(SignatureMatch::ByKeyword),
        );
        s.old_signature = Some("(estimator, X, y=..., scoring=...)".into());
        s.new_signature = Some("(estimator, X, y=..., groups=..., scoring=...)".into());
        let f = facts(
            vec![report(OLD, &[run("1.0", "1.1")], &[])],
            vec![moved(OLD, vec![s])],
            vec![],
        );
        let plan = plan(&uses(&[OLD]), &f);
        assert!(plan.unmoved.is_empty(), "{:?}", plan.unmoved);
        assert!(matches!(
            plan.changes[0].what,
            ChangeWhat::Moved {
                positional_limit: Some(3),
                ..
            }
        ));
        assert_eq!(plan.rewrites(true).positional_limits[&p(OLD)].limit, 3);
    }

    /// A twin whose newest release made old positional parameters keyword-only (scikit-learn
    /// 1.0's `validation_curve(estimator, X, y, *, param_name, ...)`): calls pass the ones
    /// after those it still takes by position by keyword, named as the newest takes them.
    #[test]
    fn a_successor_whose_newest_release_takes_fewer_by_position_gets_them_by_keyword() {
        let mut s = successor(
            "toolkit.ms.curve",
            MoveKind::Twin,
            Some(SignatureMatch::Same),
        );
        s.old_signature = Some("(estimator, X, y, param_name, param_range, cv=...)".into());
        s.new_signature = s.old_signature.clone();
        let mut f = facts(
            vec![report(OLD, &[run("1.0", "1.1")], &[])],
            vec![moved(OLD, vec![s])],
            vec![],
        );
        let newest = with_signatures(
            report("toolkit.ms.curve", &[run("1.1", "1.2")], &[]),
            &[
                ("1.1", "(estimator, X, y, param_name, param_range, cv=...)"),
                (
                    "1.2",
                    "(estimator, X, y, *, param_name, param_range, cv=...)",
                ),
            ],
        );
        f.targets
            .insert(p("toolkit.ms.curve"), vec![newest.clone()]);
        let moved = plan(&uses(&[OLD]), &f);
        assert!(matches!(
            moved.changes[0].what,
            ChangeWhat::Moved {
                positional_limit: None,
                newest_positionals: Some(3),
                ..
            }
        ));
        let limits = moved.rewrites(true).positional_limits;
        assert_eq!(limits[&p(OLD)].limit, 3);
        let names: Vec<Option<&str>> = limits[&p(OLD)]
            .keywords
            .iter()
            .map(Option::as_deref)
            .collect();
        assert_eq!(names[3..5], [Some("param_name"), Some("param_range")]);

        // Its newest release takes them all by position still: nothing to pass by keyword.
        let mut f = f.clone();
        f.targets.insert(
            p("toolkit.ms.curve"),
            vec![with_signatures(
                newest,
                &[(
                    "1.2",
                    "(estimator, X, y, param_name, param_range, cv=..., n=...)",
                )],
            )],
        );
        assert!(plan(&uses(&[OLD]), &f)
            .rewrites(true)
            .positional_limits
            .is_empty());
    }

    /// A twin that lacks an old parameter with a default moves calls that do not pass it,
    /// within the positionals both share; one passing it stays, named.
    #[test]
    fn a_narrowed_twin_moves_calls_that_leave_what_it_dropped() {
        let mut s = successor(
            "toolkit.ms.curve",
            MoveKind::Twin,
            Some(SignatureMatch::Narrowed),
        );
        s.old_signature = Some("(estimator, X, y, cv=..., error_score=...)".into());
        s.new_signature = Some("(estimator, X, y, groups=..., cv=...)".into());
        let f = facts(
            vec![report(OLD, &[run("1.0", "1.1")], &[])],
            vec![moved(OLD, vec![s])],
            vec![],
        );
        let moved = plan(&uses(&[OLD]), &f);
        assert!(moved.unmoved.is_empty(), "{:?}", moved.unmoved);
        assert_eq!(moved.rewrites(true).positional_limits[&p(OLD)].limit, 3);

        let mut passing = uses(&[OLD]);
        passing[0].keywords = vec!["cv".into(), "error_score".into()];
        let stays = plan(&passing, &f);
        assert!(stays.changes.is_empty());
        assert_eq!(
            stays.unmoved[0].why,
            Why::DroppedParameters {
                successor: p("toolkit.ms.curve"),
                parameters: vec!["error_score".into()]
            }
        );
    }

    fn with_signatures(mut r: ApiReport, sigs: &[(&str, &str)]) -> ApiReport {
        r.signature_changes = sigs
            .iter()
            .map(|(at, sig)| crate::bank::store::SignatureChange {
                version: v(at),
                signature: sig.to_string(),
            })
            .collect();
        r
    }

    /// `OLD`, removed after 1.1, whose last body warned and returned `evidence`'s template.
    fn plan_with_shim(evidence: ShimEvidence, signature: Option<&str>) -> Plan {
        let r = report(OLD, &[run("1.0", "1.1")], &[]);
        let r = match signature {
            Some(sig) => with_signatures(r, &[("1.0", sig)]),
            None => r,
        };
        let mut f = facts(vec![r], vec![], vec![]);
        f.moves.get_mut(&dist()).unwrap().shims.push(Shimmed {
            old: p("toolkit._impl.split"),
            also_as: vec![p(OLD)],
            evidence,
            category: Some("DeprecationWarning".into()),
            message: "split is deprecated".into(),
            releases: vec![run("1.1", "1.1")],
            last: v("1.1"),
            removed_in: v("1.2"),
            unknown_after: vec![],
        });
        plan(&uses(&[OLD]), &f)
    }

    fn template(expr: &str, globals: &[&str]) -> ShimEvidence {
        ShimEvidence::Shim {
            template: expr.into(),
            params: vec!["a".into()],
            globals: globals.iter().map(|g| g.to_string()).collect(),
            candidate: None,
        }
    }

    #[test]
    fn the_members_of_a_moved_class_move_with_it() {
        const FIT: &str = "toolkit.cv.split.fit";
        let mut f = facts(
            vec![
                report(OLD, &[run("1.0", "1.1")], &[]),
                report(FIT, &[run("1.0", "1.1")], &[]),
            ],
            vec![moved(
                OLD,
                vec![successor(
                    "toolkit.ms.split",
                    MoveKind::Twin,
                    Some(SignatureMatch::Same),
                )],
            )],
            vec![],
        );
        f.apis.get_mut(&p(FIT)).unwrap()[0].kind = ApiKind::Method;
        let plan = plan(&uses(&[OLD, FIT]), &f);
        assert_eq!(plan.changes.len(), 1);
        assert!(plan.unmoved.is_empty(), "{:?}", plan.unmoved);
    }

    #[test]
    fn a_shims_template_is_a_change_at_its_calls() {
        let plan = plan_with_shim(template("a.split()", &[]), Some("(a)"));
        assert!(plan.unmoved.is_empty(), "{:?}", plan.unmoved);
        let ChangeWhat::Template { signature, .. } = &plan.changes[0].what else {
            panic!("{:?}", plan.changes[0].what)
        };
        assert_eq!(signature.to_string(), "(a)");
        let rewrites = plan.rewrites(true);
        assert!(rewrites.renames.is_empty());
        assert!(!rewrites.calls[0].method);
    }

    #[test]
    fn a_template_reading_the_librarys_globals_or_without_a_signature_is_unmoved() {
        let plan = plan_with_shim(template("_wrap(a, len(a))", &["_wrap", "len"]), Some("(a)"));
        assert!(plan.changes.is_empty());
        assert!(
            matches!(&plan.unmoved[0].why, Why::TemplateUnusable { reason, .. } if reason.contains("_wrap") && !reason.contains("len")),
            "{:?}",
            plan.unmoved[0].why
        );
        let plan = plan_with_shim(template("a.split()", &[]), None);
        assert!(matches!(plan.unmoved[0].why, Why::TemplateUnusable { .. }));
        assert_eq!(plan.unmoved[0].era_pin.to_string(), "toolkit<1.2");
    }

    /// A notebook using `used` (of kind `kind`, in 1.0–1.1), whose last release's warning
    /// names `candidate`; the bank has `targets` as well.
    fn plan_with_candidate(
        used: &str,
        kind: ApiKind,
        candidate: &str,
        targets: Vec<ApiReport>,
    ) -> Plan {
        let mut r = report(used, &[run("1.0", "1.1")], &[]);
        r.kind = kind;
        let mut f = facts(vec![r], vec![], vec![]);
        f.moves.get_mut(&dist()).unwrap().shims.push(Shimmed {
            old: p(used),
            also_as: vec![],
            evidence: ShimEvidence::NamedInWarning {
                candidate: candidate.into(),
            },
            category: Some("FutureWarning".into()),
            message: format!("Use {candidate} instead"),
            releases: vec![run("1.1", "1.1")],
            last: v("1.1"),
            removed_in: v("1.2"),
            unknown_after: vec![],
        });
        f.targets = targets.into_iter().map(|r| (p(&r.path), vec![r])).collect();
        plan(&uses(&[used]), &f)
    }

    /// A notebook using `toolkit.widgets.interact` (1.0-1.1), whose module 1.1 forwarded to
    /// `widgetkit`; the bank has `targets` as well.
    fn plan_with_mirror(targets: Vec<ApiReport>) -> Plan {
        const USED: &str = "toolkit.widgets.interact";
        let mut f = facts(
            vec![report(USED, &[run("1.0", "1.1")], &[])],
            vec![],
            vec![],
        );
        f.moves.get_mut(&dist()).unwrap().mirrors.push(Mirrored {
            module: p("toolkit.widgets"),
            mirror: p("widgetkit"),
            by: p("toolkit.html"),
            releases: vec![run("1.1", "1.1")],
            last: v("1.1"),
        });
        f.targets = targets.into_iter().map(|r| (p(&r.path), vec![r])).collect();
        plan(&uses(&[USED]), &f)
    }

    /// An API of another distribution, `widgetkit`, in its newest release.
    fn elsewhere(path: &str) -> ApiReport {
        ApiReport {
            distribution: DistName::new("widgetkit").unwrap(),
            ..report(path, &[run("1.0", "1.2")], &[])
        }
    }

    #[test]
    fn a_name_its_last_releases_forwarded_moves_to_the_other_distribution() {
        let plan = plan_with_mirror(vec![elsewhere("widgetkit.interact")]);
        assert!(plan.unmoved.is_empty(), "{:?}", plan.unmoved);
        let ChangeWhat::Mirrored { new, to, .. } = &plan.changes[0].what else {
            panic!("{:?}", plan.changes)
        };
        assert_eq!((new, to.as_str()), (&p("widgetkit.interact"), "widgetkit"));
        // Proven by the library's own code: written without a run's word.
        assert!(!plan.changes[0].is_candidate());
        assert_eq!(
            plan.rewrites(false)
                .renames
                .get(&p("toolkit.widgets.interact")),
            Some(&p("widgetkit.interact"))
        );

        // The other distribution's newest release lacks it: it stays, and says why.
        let plan = plan_with_mirror(vec![]);
        assert!(plan.changes.is_empty());
        assert_eq!(
            plan.unmoved[0].why,
            Why::Mirrored {
                successor: p("widgetkit.interact"),
                reason: "no release the bank indexed has widgetkit.interact".into()
            }
        );
        let mut gone = elsewhere("widgetkit.interact");
        gone.present = vec![run("1.0", "1.0")];
        gone.latest_indexed = Some(v("1.2"));
        let plan = plan_with_mirror(vec![gone]);
        assert!(
            matches!(&plan.unmoved[0].why, Why::Mirrored { reason, .. } if reason.contains("the newest widgetkit")),
            "{:?}",
            plan.unmoved
        );
    }

    /// A class forwarded to another distribution takes its members along, as a moved one
    /// does: `toolkit.widgets.Slider.value` is not listed as unmoved.
    #[test]
    fn the_members_of_a_forwarded_class_go_with_it() {
        let mut f = facts(
            vec![
                of_kind(
                    report("toolkit.widgets.Slider", &[run("1.0", "1.1")], &[]),
                    ApiKind::Class,
                ),
                of_kind(
                    report("toolkit.widgets.Slider.value", &[run("1.0", "1.1")], &[]),
                    ApiKind::Property,
                ),
            ],
            vec![],
            vec![],
        );
        f.moves.get_mut(&dist()).unwrap().mirrors.push(Mirrored {
            module: p("toolkit.widgets"),
            mirror: p("widgetkit"),
            by: p("toolkit.widgets"),
            releases: vec![run("1.1", "1.1")],
            last: v("1.1"),
        });
        f.targets.insert(
            p("widgetkit.Slider"),
            vec![of_kind(elsewhere("widgetkit.Slider"), ApiKind::Class)],
        );
        let plan = plan(
            &uses(&["toolkit.widgets.Slider", "toolkit.widgets.Slider.value"]),
            &f,
        );
        let changed: Vec<&str> = plan.changes.iter().map(|c| c.old.as_str()).collect();
        assert!(changed.contains(&"toolkit.widgets.Slider"), "{changed:?}");
        assert!(plan.unmoved.is_empty(), "{:?}", plan.unmoved);
    }

    fn of_kind(mut r: ApiReport, kind: ApiKind) -> ApiReport {
        r.kind = kind;
        r
    }

    #[test]
    fn a_successor_only_named_in_a_warning_is_a_candidate() {
        // A method whose warning names a property of the same class: `x.as_matrix()`
        // becomes `x.values`, written only when candidates are.
        const AS_MATRIX: &str = "toolkit.Frame.as_matrix";
        let values = report("toolkit.Frame.values", &[run("1.0", "1.2")], &[]);
        let plan = plan_with_candidate(
            AS_MATRIX,
            ApiKind::Method,
            ".values",
            vec![of_kind(values.clone(), ApiKind::Property)],
        );
        assert!(plan.unmoved.is_empty(), "{:?}", plan.unmoved);
        assert!(plan.changes.iter().any(Change::is_candidate));
        let ChangeWhat::Named { new, form, .. } = &plan.changes[0].what else {
            panic!("{:?}", plan.changes)
        };
        assert_eq!(new, &p("toolkit.Frame.values"));
        assert_eq!(
            form,
            &NamedForm::Attribute {
                name: "values".into()
            }
        );
        assert_eq!(plan.changes[0].new_text(), ".values");
        let with = plan.rewrites(true);
        assert!(matches!(
            &with.calls[..],
            [CallRewrite {
                method: true,
                edit: CallEdit::Member { call: false, .. },
                ..
            }]
        ));
        assert!(plan.rewrites(false).calls.is_empty());

        // A method of the same class keeps the call.
        let plan = plan_with_candidate(
            AS_MATRIX,
            ApiKind::Method,
            ".to_numpy",
            vec![of_kind(
                report("toolkit.Frame.to_numpy", &[run("1.1", "1.2")], &[]),
                ApiKind::Method,
            )],
        );
        assert!(matches!(
            &plan.rewrites(true).calls[..],
            [CallRewrite {
                edit: CallEdit::Member { call: true, .. },
                ..
            }]
        ));

        // A function whose warning names another function: a rename, as a move.
        let plan = plan_with_candidate(
            OLD,
            ApiKind::Function,
            "split_arrays",
            vec![report("toolkit.cv.split_arrays", &[run("1.0", "1.2")], &[])],
        );
        assert_eq!(plan.changes[0].new_text(), "toolkit.cv.split_arrays");
        assert_eq!(
            plan.rewrites(true).renames.get(&p(OLD)),
            Some(&p("toolkit.cv.split_arrays"))
        );
        assert!(plan.rewrites(false).renames.is_empty());
    }

    /// A note of `toolkit`'s 1.1 notes (read from 1.2's sdist) at `line`, replacing `old`
    /// with `new` (both as written).
    fn noted(old: &str, new: &[&str], line: usize) -> StoredNote {
        use crate::bank::notes::{ChangeNote, NotedExpr, NotedName};
        StoredNote {
            note: ChangeNote {
                as_if: None,
                old: NotedName::parse(old).unwrap(),
                new: new.iter().map(|n| NotedExpr::parse(n).unwrap()).collect(),
                file: "doc/whatsnew/v1.1.rst".into(),
                release: Some(v("1.1")),
                sentence: format!("``{old}`` is deprecated, use ``{}``", new.join("``, ``")),
                line,
            },
            read_from: v("1.2"),
        }
    }

    /// A method of `toolkit` in every release, with `signature`, as the bank reports it.
    fn method_report(path: &str, signature: &str) -> ApiReport {
        let mut r = of_kind(report(path, &[run("1.0", "1.2")], &[]), ApiKind::Method);
        r.signature_changes = vec![crate::bank::store::SignatureChange {
            version: v("1.0"),
            signature: signature.into(),
        }];
        r
    }

    /// A notebook calling the method `toolkit.Frame.sort` (in 1.0–1.1) with `keywords`,
    /// whose change notes hold `notes` (old as written, replacements as written); the newest
    /// release has `sort_values(by)` and `sort_index(axis)`.
    fn plan_with_notes(keywords: &[&str], notes: &[(&str, &[&str])]) -> Plan {
        const SORT: &str = "toolkit.Frame.sort";
        let mut r = report(SORT, &[run("1.0", "1.1")], &[]);
        r.kind = ApiKind::Method;
        let mut f = facts(vec![r], vec![], vec![]);
        f.moves.get_mut(&dist()).unwrap().change_notes = notes
            .iter()
            .enumerate()
            .map(|(line, (old, new))| noted(old, new, line + 1))
            .collect();
        f.targets = [
            method_report("toolkit.Frame.sort_values", "(self, by, axis=...)"),
            method_report("toolkit.Frame.sort_index", "(self, axis=...)"),
        ]
        .into_iter()
        .map(|r| (p(&r.path), vec![r]))
        .collect();
        let mut u = uses(&[SORT]);
        u[0].keywords = keywords.iter().map(|k| k.to_string()).collect();
        plan(&u, &f)
    }

    #[test]
    fn a_successor_named_in_the_change_notes_is_a_candidate_with_its_keywords_mapped() {
        let notes: &[(&str, &[&str])] = &[
            ("Frame.sort()", &["Frame.sort_index()"]),
            ("Frame.sort(columns=...)", &["Frame.sort_values(by=...)"]),
        ];
        // A call passing `columns` takes the note written with it: `sort_values(by=...)`.
        let plan = plan_with_notes(&["columns"], notes);
        assert!(plan.unmoved.is_empty(), "{:?}", plan.unmoved);
        let ChangeWhat::Named {
            new, keywords, by, ..
        } = &plan.changes[0].what
        else {
            panic!("{:?}", plan.changes)
        };
        assert_eq!(new, &p("toolkit.Frame.sort_values"));
        assert_eq!(keywords, &[("columns".to_string(), "by".to_string())]);
        assert!(matches!(by, NamedBy::ChangeNote { note, .. } if note.note.line == 2));
        assert!(plan.changes[0].is_candidate());
        let rewrites = plan.rewrites(true);
        assert!(
            matches!(
                &rewrites.calls[..],
                [
                    CallRewrite {
                        edit: CallEdit::Member { call: true, .. },
                        ..
                    },
                    CallRewrite {
                        method: true,
                        edit: CallEdit::Keyword { .. },
                        ..
                    }
                ]
            ),
            "{:?}",
            rewrites.calls
        );
        assert!(plan.rewrites(false).calls.is_empty());
        // A call passing nothing takes the note written without keywords.
        let plan = plan_with_notes(&[], notes);
        assert_eq!(plan.changes[0].new_text(), ".sort_index(…)");
        // A replacement that is an expression is named, not written.
        let plan = plan_with_notes(&[], &[("Frame.sort", &["Frame.rolling(3).mean()"])]);
        assert!(plan.changes.is_empty());
        assert!(
            matches!(
                &plan.unmoved[0].why,
                Why::ChangeNote { candidate, reason } if candidate == "Frame.rolling(3).mean()" && reason.contains("expression")
            ),
            "{:?}",
            plan.unmoved
        );
        // A keyword the successor does not take, unmapped: not written.
        let plan = plan_with_notes(&["columns"], &[("Frame.sort", &["Frame.sort_index"])]);
        assert!(
            matches!(
                &plan.unmoved[0].why,
                Why::ChangeNote { reason, .. } if reason.contains("columns")
            ),
            "{:?}",
            plan.unmoved
        );
    }

    #[test]
    fn a_function_the_notes_replace_with_a_method_chain_takes_its_first_argument_as_the_value() {
        const ROLLING_MEAN: &str = "toolkit.rolling_mean";
        let plan_for = |keywords: &[&str]| {
            let mut f = facts(
                vec![report(ROLLING_MEAN, &[run("1.0", "1.1")], &[])],
                vec![],
                vec![],
            );
            f.moves.get_mut(&dist()).unwrap().change_notes = vec![noted(
                "tk.rolling_mean",
                &["Frame.rolling(window=3,center=False).mean()"],
                3,
            )];
            let rolling = method_report("toolkit.Frame.rolling", "(self, window, center=...)");
            f.targets = BTreeMap::from([(p("toolkit.Frame.rolling"), vec![rolling])]);
            let mut u = uses(&[ROLLING_MEAN]);
            u[0].keywords = keywords.iter().map(|k| k.to_string()).collect();
            plan(&u, &f)
        };
        let plan = plan_for(&["center"]);
        let ChangeWhat::Named { form, new, .. } = &plan.changes[0].what else {
            panic!("{:?}", plan)
        };
        assert_eq!(new, &p("toolkit.Frame.rolling"));
        assert_eq!(
            form,
            &NamedForm::Chain {
                method: "rolling".into(),
                rest: ".mean()".into()
            }
        );
        assert_eq!(plan.changes[0].new_text(), "x.rolling(…).mean()");
        assert!(matches!(
            &plan.rewrites(true).calls[..],
            [CallRewrite {
                method: false,
                edit: CallEdit::Chain { .. },
                ..
            }]
        ));
        // A keyword the chain's method does not take: not written.
        let plan = plan_for(&["freq"]);
        assert!(
            matches!(
                &plan.unmoved[0].why,
                Why::ChangeNote { reason, .. } if reason.contains("freq")
            ),
            "{:?}",
            plan.unmoved
        );
    }

    #[test]
    fn a_candidate_that_cannot_be_written_is_unmoved_and_named() {
        let why = |plan: Plan| {
            assert!(plan.changes.is_empty(), "{:?}", plan.changes);
            match &plan.unmoved[0].why {
                Why::NamedInWarning { candidate, reason } => (candidate.clone(), reason.clone()),
                other => panic!("{other:?}"),
            }
        };
        // Nowhere in the bank.
        let (candidate, reason) = why(plan_with_candidate(
            OLD,
            ApiKind::Function,
            ".values",
            vec![],
        ));
        assert_eq!(candidate, ".values");
        assert!(reason.contains("no such name"), "{reason}");
        // Gone from the newest release as well.
        let (_, reason) = why(plan_with_candidate(
            OLD,
            ApiKind::Function,
            "split_arrays",
            vec![report("toolkit.cv.split_arrays", &[run("1.0", "1.1")], &[])],
        ));
        assert!(reason.contains("no such name"), "{reason}");
        // A method of another value: `pd.rolling_mean(df)` is not `df.rolling(...)`.
        let (_, reason) = why(plan_with_candidate(
            "toolkit.Frame.rolling_mean",
            ApiKind::Method,
            "Window.mean",
            vec![of_kind(
                report("toolkit.Window.mean", &[run("1.0", "1.2")], &[]),
                ApiKind::Method,
            )],
        ));
        assert!(
            reason.contains("not a member of the same value"),
            "{reason}"
        );
        // What static reading cannot tell is not written.
        let (_, reason) = why(plan_with_candidate(
            "toolkit.Frame.as_matrix",
            ApiKind::Method,
            ".values",
            vec![of_kind(
                report("toolkit.Frame.values", &[run("1.0", "1.2")], &[]),
                ApiKind::Unknown,
            )],
        ));
        assert!(reason.contains("cannot tell"), "{reason}");
    }

    /// A notebook calling `toolkit.plot.hist(..., normed=...)`, present in every release,
    /// whose newest signature is `newest`, and a rename `normed` → `density` of its
    /// definition.
    fn plan_with_keyword(newest: &str) -> Plan {
        const HIST: &str = "toolkit.plot.hist";
        let r = with_signatures(
            report(HIST, &[run("1.0", "1.2")], &[]),
            &[("1.0", "(x, normed=..., density=...)"), ("1.2", newest)],
        );
        let mut f = facts(vec![r], vec![], vec![]);
        f.moves
            .get_mut(&dist())
            .unwrap()
            .renamed_keywords
            .push(RenamedKeyword {
                path: p(HIST),
                old: "normed".into(),
                new: "density".into(),
                message: "normed is deprecated; use density".into(),
                releases: vec![run("1.0", "1.1")],
                old_removed_in: Some(v("1.2")),
            });
        let mut u = uses(&[HIST]);
        u[0].keywords = vec!["normed".into(), "bins".into()];
        plan(&u, &f)
    }

    #[test]
    fn a_keyword_the_newest_release_rejects_is_renamed() {
        let plan = plan_with_keyword("(x, bins=..., density=...)");
        assert_eq!(plan.changes.len(), 1);
        assert_eq!(plan.changes[0].new_text(), "density=");
        assert!(matches!(
            plan.changes[0].what,
            ChangeWhat::Keyword { ref from, .. } if from == "normed"
        ));
    }

    #[test]
    fn a_keyword_still_accepted_somehow_is_left_alone() {
        assert!(plan_with_keyword("(x, bins=..., **kwargs)")
            .changes
            .is_empty());
        assert!(plan_with_keyword("(x, bins=..., normed=..., density=...)")
            .changes
            .is_empty());
    }

    #[test]
    fn an_unproven_successor_is_named_but_not_taken() {
        let f = facts(
            vec![report(OLD, &[run("1.0", "1.1")], &[])],
            vec![],
            vec![moved(
                OLD,
                vec![successor("toolkit.ms.split", MoveKind::NoSignature, None)],
            )],
        );
        let plan = plan(&uses(&[OLD]), &f);
        assert_eq!(
            plan.unmoved[0].why,
            Why::Unproven {
                candidates: vec![p("toolkit.ms.split")]
            }
        );
    }
}
