//! Deciding whether an API removed from a distribution moved to another path of it, from what
//! the bank saw of both release by release. Pure: [`super::moves`] reads the bank into
//! [`Seen`]s, this decides.
//!
//! A move is proven one of two ways. The same definition: wherever both paths exist they
//! resolve to one defining path (a new alias of the same function). A twin: same final name
//! and the same signature (or the new one only adds parameters with defaults) in every
//! release where both exist, `sklearn.cross_validation.train_test_split` and
//! `sklearn.model_selection.train_test_split` in 0.18–0.19. A release where either is unknown
//! is no evidence for or against.

use std::str::FromStr;

use serde::Serialize;

use crate::bank::extract::{ParamKind, Signature};

/// What the bank says of one API in one indexed release.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seen {
    Present {
        /// The defining paths it resolves to (one, unless defined under conditions).
        definitions: Vec<String>,
        /// Its recorded signature texts (none for a class inheriting `__init__` from outside,
        /// or a name only introspection saw).
        signatures: Vec<String>,
    },
    /// Not found, but static reading cannot rule it out.
    Unknown,
    Absent,
}

impl Seen {
    fn is_present(&self) -> bool {
        matches!(self, Seen::Present { .. })
    }

    /// The one definition, when there is exactly one.
    pub fn definition(&self) -> Option<&str> {
        match self {
            Seen::Present { definitions, .. } if definitions.len() == 1 => {
                Some(definitions[0].as_str())
            }
            _ => None,
        }
    }

    /// The one signature, when there is exactly one.
    pub fn signature(&self) -> Option<&str> {
        match self {
            Seen::Present { signatures, .. } if signatures.len() == 1 => {
                Some(signatures[0].as_str())
            }
            _ => None,
        }
    }
}

/// Where an API left: its last release with it, and the first indexed release after, which
/// lacks it (positions in the indexed releases, oldest first).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Removal {
    pub last_present: usize,
    pub removed_in: usize,
}

/// The removal of an API seen as `history` (one entry per indexed release, oldest first):
/// present somewhere, absent in the next indexed release after the last one with it, and
/// absent in the newest. Unknown there leaves the question open: no removal. Unknown in a
/// release between is no evidence either way (the caller shows it).
pub fn removal(history: &[Seen]) -> Option<Removal> {
    let last_present = history.iter().rposition(Seen::is_present)?;
    let removed_in = last_present + 1;
    if history.get(removed_in) != Some(&Seen::Absent) || history.last() != Some(&Seen::Absent) {
        return None;
    }
    Some(Removal {
        last_present,
        removed_in,
    })
}

/// How a successor's signature relates to the removed API's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SignatureMatch {
    /// Text for text.
    Same,
    /// Every call of the old one is a call of the new one: its parameters, in their places,
    /// with their kinds and defaults, and only new parameters with defaults (or `*args`,
    /// `**kwargs`) besides.
    Extended,
    /// As `Extended`, except that a new parameter with a default was put before some old
    /// positional ones (`groups=None` in `cross_val_score(estimator, X, y, groups, scoring)`):
    /// calls that pass those by keyword still work, positional ones do not.
    ByKeyword,
    /// As `ByKeyword`, except that the new one lacks some old parameters that had defaults
    /// (`error_score` of scikit-learn 0.19's `learning_curve`, which `model_selection`'s
    /// took only later): calls that pass none of those, and no more positional arguments
    /// than both share, still work.
    Narrowed,
}

/// How `old`'s signature relates to `new`'s, if one of the two ways.
pub fn signature_match(old: &str, new: &str) -> Option<SignatureMatch> {
    if old == new {
        return Some(SignatureMatch::Same);
    }
    let (Ok(old), Ok(new)) = (Signature::from_str(old), Signature::from_str(new)) else {
        return None;
    };
    let positional = |k: ParamKind| matches!(k, ParamKind::PositionalOnly | ParamKind::Positional);
    let mut shifted = false;
    let mut narrowed = false;
    for (i, p) in old.params.iter().enumerate() {
        let Some(found) = new.params.iter().position(|q| q.name == p.name) else {
            // Dropped: calls that leave it to its default still fit.
            if p.has_default && matches!(p.kind, ParamKind::Positional | ParamKind::KeywordOnly) {
                narrowed = true;
                continue;
            }
            return None;
        };
        let q = &new.params[found];
        if q.kind != p.kind || q.has_default != p.has_default {
            return None;
        }
        // A positional parameter keeps its place: positional calls fill the same names.
        if positional(p.kind) {
            let before_old = old.params[..i]
                .iter()
                .filter(|x| positional(x.kind))
                .count();
            let before_new = new.params[..found]
                .iter()
                .filter(|x| positional(x.kind))
                .count();
            if before_old != before_new {
                // Passed by keyword, a moved parameter still lands; a positional-only one,
                // or one that a `*args` after it made positional-only, cannot be.
                let var_positional = old
                    .params
                    .iter()
                    .any(|x| x.kind == ParamKind::VarPositional);
                if p.kind == ParamKind::PositionalOnly || var_positional {
                    return None;
                }
                shifted = true;
            }
        }
    }
    let added_ok = new
        .params
        .iter()
        .filter(|q| !old.params.iter().any(|p| p.name == q.name))
        .all(|q| {
            q.has_default || matches!(q.kind, ParamKind::VarPositional | ParamKind::VarKeyword)
        });
    added_ok.then_some(if narrowed {
        SignatureMatch::Narrowed
    } else if shifted {
        SignatureMatch::ByKeyword
    } else {
        SignatureMatch::Extended
    })
}

/// The parameters of `old` that `new` lacks (what a [`SignatureMatch::Narrowed`] twin
/// dropped); empty when either does not parse.
pub fn dropped_parameters(old: &str, new: &str) -> Vec<String> {
    let (Ok(old), Ok(new)) = (Signature::from_str(old), Signature::from_str(new)) else {
        return Vec::new();
    };
    old.params
        .iter()
        .filter(|p| !new.params.iter().any(|q| q.name == p.name))
        .map(|p| p.name.clone())
        .collect()
}

/// What pairing a removed API with one candidate proves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pairing {
    /// Both resolve to the same definition (in every release where both exist, or, where
    /// they never coexist, in the old one's last release and the new one's first).
    SameDefinition,
    /// Coexisting releases with one signature, or the new one extending it, in each where
    /// both are recorded.
    Twin(SignatureMatch),
    /// They coexist, but in no release that has both are both signatures recorded: the
    /// bank cannot tell.
    NoSignature,
    /// Not a move: the signatures differ, they never coexist, or the candidate is not in
    /// the newest indexed release.
    Unrelated,
}

/// Whether `new` (same distribution, same final name) is where `old` went; both histories
/// over the same indexed releases, oldest first. A release where a definition or a
/// signature is not recorded (a name only introspection saw) is no evidence either way;
/// the others decide.
pub fn pair(old: &[Seen], new: &[Seen], removal: Removal) -> Pairing {
    if !new.last().is_some_and(Seen::is_present) {
        return Pairing::Unrelated;
    }
    let both: Vec<usize> = overlap(old, new);
    if both.is_empty() {
        let first_new = new.iter().position(Seen::is_present);
        let same = first_new.is_some_and(|f| {
            f >= removal.removed_in
                && old[removal.last_present]
                    .definition()
                    .is_some_and(|d| new[f].definition() == Some(d))
        });
        return if same {
            Pairing::SameDefinition
        } else {
            Pairing::Unrelated
        };
    }
    let definitions: Vec<(&str, &str)> = both
        .iter()
        .filter_map(|&i| Some((old[i].definition()?, new[i].definition()?)))
        .collect();
    if !definitions.is_empty() && definitions.iter().all(|(a, b)| a == b) {
        return Pairing::SameDefinition;
    }
    let signatures: Vec<(&str, &str)> = both
        .iter()
        .filter_map(|&i| Some((old[i].signature()?, new[i].signature()?)))
        .collect();
    if signatures.is_empty() {
        return Pairing::NoSignature;
    }
    let mut worst = SignatureMatch::Same;
    for (a, b) in signatures {
        match signature_match(a, b) {
            Some(m) => worst = worst.max(m),
            None => return Pairing::Unrelated,
        }
    }
    Pairing::Twin(worst)
}

/// The releases (positions) both are in where `pairing`'s evidence is not recorded on
/// both sides: definitions for the same definition, signatures otherwise.
pub fn unrecorded(old: &[Seen], new: &[Seen], pairing: &Pairing) -> Vec<usize> {
    overlap(old, new)
        .into_iter()
        .filter(|&i| match pairing {
            Pairing::SameDefinition => {
                old[i].definition().is_none() || new[i].definition().is_none()
            }
            _ => old[i].signature().is_none() || new[i].signature().is_none(),
        })
        .collect()
}

/// How strongly a pairing proves a move, for ranking several successors of one API: the
/// same definition first, then a twin of the same signature, then one that extends it, then
/// one that extends it only for calls by keyword.
/// `None` for no move.
fn strength(pairing: &Pairing) -> Option<u8> {
    match pairing {
        Pairing::SameDefinition => Some(0),
        Pairing::Twin(SignatureMatch::Same) => Some(1),
        Pairing::Twin(SignatureMatch::Extended) => Some(2),
        Pairing::Twin(SignatureMatch::ByKeyword) => Some(3),
        Pairing::Twin(SignatureMatch::Narrowed) => Some(4),
        Pairing::NoSignature => Some(5),
        Pairing::Unrelated => None,
    }
}

/// One candidate successor, as ranking sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ranked<'a> {
    pub path: &'a str,
    pub pairing: Pairing,
    /// Whether it was, in some release, a re-export of the old API itself: a module that
    /// imported the old path and later followed the move, not where it went.
    pub follows: bool,
    /// Whether the path is the old API's own definition (what its alias pointed at).
    pub is_old_definition: bool,
    /// How many releases both are in.
    pub overlap: usize,
    /// Whether the path is its own definition in the newest release (not a re-export).
    pub defined_here: bool,
}

/// Orders successors best first: the stronger proof, then paths that never re-exported the
/// old one, then the old one's own definition, then the longer overlap, then a definition
/// before its re-exports, then the shorter path, then by name. Candidates that prove nothing
/// are dropped.
pub fn rank(mut candidates: Vec<Ranked<'_>>) -> Vec<Ranked<'_>> {
    candidates.retain(|c| strength(&c.pairing).is_some());
    candidates.sort_by(|a, b| {
        strength(&a.pairing)
            .cmp(&strength(&b.pairing))
            .then(a.follows.cmp(&b.follows))
            .then(b.is_old_definition.cmp(&a.is_old_definition))
            .then(b.overlap.cmp(&a.overlap))
            .then(b.defined_here.cmp(&a.defined_here))
            .then(a.path.split('.').count().cmp(&b.path.split('.').count()))
            .then(a.path.cmp(b.path))
    });
    candidates
}

/// Whether `new` resolved, in some release, to `old_path` or to one of its definitions.
pub fn follows(old_path: &str, old: &[Seen], new: &[Seen]) -> bool {
    let olds: Vec<&str> = old
        .iter()
        .filter_map(Seen::definition)
        .chain([old_path])
        .collect();
    new.iter()
        .filter_map(Seen::definition)
        .any(|d| olds.contains(&d))
}

/// The releases (positions) where both are present.
pub fn overlap(old: &[Seen], new: &[Seen]) -> Vec<usize> {
    old.iter()
        .zip(new)
        .enumerate()
        .filter(|(_, (a, b))| a.is_present() && b.is_present())
        .map(|(i, _)| i)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn here(definition: &str, signature: Option<&str>) -> Seen {
        Seen::Present {
            definitions: vec![definition.into()],
            signatures: signature.into_iter().map(str::to_string).collect(),
        }
    }

    const OLD_DEF: &str = "toolkit.cross_validation.train_test_split";
    const NEW_DEF: &str = "toolkit.model_selection._split.train_test_split";
    const SIG: &str = "(X, y, test_size=...)";

    /// 1.0–1.1 have the old path, 1.1–1.2 the new one.
    fn histories(old_sig: Option<&str>, new_sig: Option<&str>) -> (Vec<Seen>, Vec<Seen>) {
        (
            vec![here(OLD_DEF, old_sig), here(OLD_DEF, old_sig), Seen::Absent],
            vec![Seen::Absent, here(NEW_DEF, new_sig), here(NEW_DEF, new_sig)],
        )
    }

    #[test]
    fn a_removal_is_absence_after_the_last_release_with_it() {
        let (old, new) = histories(Some(SIG), Some(SIG));
        assert_eq!(
            removal(&old),
            Some(Removal {
                last_present: 1,
                removed_in: 2
            })
        );
        // Still in the newest release, or never seen: no removal.
        assert_eq!(removal(&new), None);
        assert_eq!(removal(&[Seen::Absent, Seen::Absent]), None);
    }

    #[test]
    fn unknown_after_the_last_release_is_no_removal() {
        let old = vec![here(OLD_DEF, Some(SIG)), Seen::Unknown, Seen::Absent];
        assert_eq!(removal(&old), None);
        let old = vec![here(OLD_DEF, Some(SIG)), Seen::Absent, Seen::Unknown];
        assert_eq!(removal(&old), None);
        // Unknown only in a release between the removal and the newest: removed all the same.
        let old = vec![
            here(OLD_DEF, Some(SIG)),
            Seen::Absent,
            Seen::Unknown,
            Seen::Absent,
        ];
        assert_eq!(
            removal(&old),
            Some(Removal {
                last_present: 0,
                removed_in: 1
            })
        );
    }

    #[test]
    fn a_twin_has_the_same_signature_where_both_exist() {
        let (old, new) = histories(Some(SIG), Some(SIG));
        let r = removal(&old).unwrap();
        assert_eq!(pair(&old, &new, r), Pairing::Twin(SignatureMatch::Same));
    }

    #[test]
    fn different_signatures_are_no_twin() {
        let (old, new) = histories(Some("(n, n_folds=...)"), Some("(n_splits=...)"));
        let r = removal(&old).unwrap();
        assert_eq!(pair(&old, &new, r), Pairing::Unrelated);
    }

    #[test]
    fn a_new_parameter_with_a_default_at_the_end_extends_a_signature() {
        let (old, new) = histories(Some("(a, b=...)"), Some("(a, b=..., c=...)"));
        let r = removal(&old).unwrap();
        assert_eq!(pair(&old, &new, r), Pairing::Twin(SignatureMatch::Extended));
        // Inserted before a positional one, it moves that one: compatible by keyword only.
        assert_eq!(
            signature_match(
                "(estimator, X, y=..., scoring=...)",
                "(estimator, X, y=..., groups=..., scoring=...)"
            ),
            Some(SignatureMatch::ByKeyword)
        );
        // ... unless it cannot be passed by keyword.
        assert_eq!(
            signature_match("(a, b=..., /)", "(a, c=..., b=..., /)"),
            None
        );
        assert_eq!(
            signature_match("(a, b=..., *args)", "(a, c=..., b=..., *args)"),
            None
        );
        // Without a default, old calls lack it.
        assert_eq!(signature_match("(a)", "(a, b)"), None);
        // An old parameter with a default the new one lacks: calls that leave it fit.
        assert_eq!(
            signature_match(
                "(estimator, X, y, train_sizes=..., verbose=..., error_score=...)",
                "(estimator, X, y, groups=..., train_sizes=..., verbose=...)"
            ),
            Some(SignatureMatch::Narrowed)
        );
        assert_eq!(
            dropped_parameters("(a, b=..., *, k=...)", "(a, b=...)"),
            ["k"]
        );
        assert_eq!(
            signature_match("(a, *, k=...)", "(a)"),
            Some(SignatureMatch::Narrowed)
        );
        // One without a default cannot go: every old call passes it.
        assert_eq!(signature_match("(a, b)", "(a)"), None);
        // A keyword-only one may go anywhere among the keyword-only.
        assert_eq!(
            signature_match("(a, *, k=...)", "(a, *, j=..., k=...)"),
            Some(SignatureMatch::Extended)
        );
    }

    #[test]
    fn no_recorded_signature_is_said_and_is_no_twin() {
        let (old, new) = histories(Some(SIG), None);
        let r = removal(&old).unwrap();
        assert_eq!(pair(&old, &new, r), Pairing::NoSignature);
        assert_eq!(unrecorded(&old, &new, &Pairing::NoSignature), [1]);
    }

    /// As introspection records a name static reading missed: no definition, no signature.
    fn seen_at_run_time() -> Seen {
        Seen::Present {
            definitions: Vec::new(),
            signatures: Vec::new(),
        }
    }

    #[test]
    fn a_release_without_records_is_no_evidence_and_the_others_decide() {
        let old = vec![
            here(OLD_DEF, Some(SIG)),
            here(OLD_DEF, Some(SIG)),
            seen_at_run_time(),
            Seen::Absent,
        ];
        let new = vec![
            Seen::Absent,
            here(NEW_DEF, Some(SIG)),
            here(NEW_DEF, Some(SIG)),
            here(NEW_DEF, Some(SIG)),
        ];
        let r = removal(&old).unwrap();
        let twin = pair(&old, &new, r);
        assert_eq!(twin, Pairing::Twin(SignatureMatch::Same));
        assert_eq!(unrecorded(&old, &new, &twin), [2]);
        // Likewise for one definition reached by both paths.
        let def = "toolkit._impl.helper";
        let old = vec![here(def, None), seen_at_run_time(), Seen::Absent];
        let new = vec![here(def, None), here(def, None), here(def, None)];
        let r = removal(&old).unwrap();
        assert_eq!(pair(&old, &new, r), Pairing::SameDefinition);
        // A recorded conflict still decides against.
        let old = vec![here(OLD_DEF, Some("(a)")), seen_at_run_time(), Seen::Absent];
        let new = vec![
            here(NEW_DEF, Some("(b)")),
            here(NEW_DEF, Some(SIG)),
            here(NEW_DEF, Some(SIG)),
        ];
        let r = removal(&old).unwrap();
        assert_eq!(pair(&old, &new, r), Pairing::Unrelated);
    }

    #[test]
    fn one_definition_reached_by_both_paths_is_the_same_definition() {
        let def = "toolkit._impl.helper";
        // Old `toolkit.old.helper` and new `toolkit.new.helper` both alias `_impl.helper`,
        // with no signature recorded: the definition proves it all the same.
        let old = vec![here(def, None), here(def, None), Seen::Absent];
        let new = vec![Seen::Absent, here(def, None), here(def, None)];
        let r = removal(&old).unwrap();
        assert_eq!(pair(&old, &new, r), Pairing::SameDefinition);
        // Never coexisting, the old one's last definition is the new one's first.
        let old = vec![here(def, None), Seen::Absent, Seen::Absent];
        let new = vec![Seen::Absent, here(def, None), here(def, None)];
        let r = removal(&old).unwrap();
        assert_eq!(pair(&old, &new, r), Pairing::SameDefinition);
        // Another definition, never coexisting: nothing proves a move.
        let new = vec![
            Seen::Absent,
            here("toolkit.other.helper", None),
            here(def, None),
        ];
        assert_eq!(pair(&old, &new, r), Pairing::Unrelated);
    }

    #[test]
    fn a_candidate_unknown_where_the_old_one_is_proves_nothing_there() {
        // The new path is unknown in 1.1 (they never surely coexist), found only in 1.2.
        let old = vec![
            here(OLD_DEF, Some(SIG)),
            here(OLD_DEF, Some(SIG)),
            Seen::Absent,
        ];
        let new = vec![Seen::Absent, Seen::Unknown, here(NEW_DEF, Some(SIG))];
        let r = removal(&old).unwrap();
        assert_eq!(pair(&old, &new, r), Pairing::Unrelated);
    }

    #[test]
    fn a_candidate_gone_from_the_newest_release_is_no_successor() {
        let (old, _) = histories(Some(SIG), Some(SIG));
        let new = vec![Seen::Absent, here(NEW_DEF, Some(SIG)), Seen::Absent];
        let r = removal(&old).unwrap();
        assert_eq!(pair(&old, &new, r), Pairing::Unrelated);
    }

    #[test]
    fn several_candidates_are_ranked_by_proof_then_overlap() {
        let c = |path, pairing, overlap, defined_here| Ranked {
            path,
            pairing,
            follows: false,
            is_old_definition: false,
            overlap,
            defined_here,
        };
        let ranked = rank(vec![
            c("t.a.f", Pairing::Twin(SignatureMatch::Extended), 3, true),
            c("t.b.f", Pairing::Unrelated, 5, true),
            c("t.c.f", Pairing::Twin(SignatureMatch::Same), 1, false),
            c("t.d.f", Pairing::SameDefinition, 1, false),
            c("t.f", Pairing::SameDefinition, 1, false),
            c("t.e.f", Pairing::SameDefinition, 1, true),
            c("t.g.f", Pairing::Twin(SignatureMatch::Same), 2, false),
            c("t.h.f", Pairing::NoSignature, 4, true),
            // Once a re-export of the old one: after the others of its strength.
            Ranked {
                follows: true,
                ..c("t.i.f", Pairing::Twin(SignatureMatch::Same), 9, true)
            },
            // The old one's definition: first of its strength.
            Ranked {
                is_old_definition: true,
                ..c("t.j.f", Pairing::SameDefinition, 0, false)
            },
        ]);
        let order: Vec<&str> = ranked.iter().map(|r| r.path).collect();
        assert_eq!(
            order,
            ["t.j.f", "t.e.f", "t.f", "t.d.f", "t.g.f", "t.c.f", "t.i.f", "t.a.f", "t.h.f"]
        );
    }

    #[test]
    fn a_path_that_once_re_exported_the_old_one_follows_it() {
        let old = vec![
            here(OLD_DEF, Some(SIG)),
            here(OLD_DEF, Some(SIG)),
            Seen::Absent,
        ];
        let follower = vec![
            Seen::Absent,
            here(OLD_DEF, Some(SIG)),
            here(NEW_DEF, Some(SIG)),
        ];
        let (_, twin) = histories(Some(SIG), Some(SIG));
        assert!(follows(OLD_DEF, &old, &follower));
        assert!(!follows(OLD_DEF, &old, &twin));
    }
}
