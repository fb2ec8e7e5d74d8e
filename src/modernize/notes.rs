//! Successors the libraries' own change notes name (see [`crate::bank::notes`]): for a
//! removed API the bank cannot move, the notes that name it, and what they say replaces it,
//! written only in a form the call can take (as [`super::candidate`] decides for a warning's
//! candidate), with the keywords the notes map (`DataFrame.sort(columns=...)` →
//! `DataFrame.sort_values(by=...)`). Kept only when the modernized run passes.

use std::collections::BTreeMap;

use crate::bank::notes::NotedName;
use crate::bank::store::{ApiReport, MovesReport, StoredNote};
use crate::names::{ApiPath, DistName};
use crate::notebook::ApiUse;

use super::candidate::{self, NamedForm};

/// Import aliases notes write for a library's top module (`pd.rolling_mean`).
const ALIASES: &[&str] = &[
    "pd", "np", "plt", "sns", "sp", "mpl", "tf", "nx", "sm", "sk",
];

/// Whether the first segment of a noted name stands for the top module `top`: a known alias
/// (`pd`) or `top` itself.
fn names_top(first: &str, top: &str) -> bool {
    ALIASES.contains(&first) || first == top
}

/// Whether the notes' `name` may be the used API `api`: its segments end `api`'s, once a
/// leading alias or top module is dropped (`pd.rolling_mean` and `rolling_mean` for
/// `pandas.rolling_mean`, `DataFrame.sort` for `pandas.core.frame.DataFrame.sort`, `.ix` for
/// any class's `ix`).
pub fn names(name: &NotedName, api: &ApiPath) -> bool {
    let mut noted: Vec<&str> = name.segments().collect();
    let used: Vec<&str> = api.segments().collect();
    let top = used.first().copied().unwrap_or_default();
    // A leading module alias: a known one, the top module, or any lowercase name the API's
    // path lacks (`tk.rolling_mean`); a class (`Series.sort`) is kept.
    let alias = |first: &str| {
        names_top(first, top)
            || (first.starts_with(|c: char| c.is_ascii_lowercase()) && !used.contains(&first))
    };
    if noted.len() > 1 && alias(noted[0]) {
        noted.remove(0);
    }
    if name.is_member() && used.len() < 3 {
        return false;
    }
    !noted.is_empty() && noted.len() < used.len() && used.ends_with(&noted)
}

/// The path of the notes' `name` under the top module `top`, a leading alias or `top`
/// dropped (`pd.DataFrame.sort` and `DataFrame.sort` → `pandas.DataFrame.sort`).
pub fn path_in(name: &NotedName, top: &str) -> Option<ApiPath> {
    let mut segments: Vec<&str> = name.segments().collect();
    if segments.len() > 1 && names_top(segments[0], top) {
        segments.remove(0);
    }
    ApiPath::new(&format!("{top}.{}", segments.join("."))).ok()
}

/// The notes of `moves` that name `u`'s API, the likeliest first: those whose written call
/// passes keywords `u` passes, then those that pass none, then the rest; the newest notes
/// first within each.
pub fn naming<'a>(u: &ApiUse, moves: &'a MovesReport) -> Vec<&'a StoredNote> {
    let rank = |n: &StoredNote| {
        let keywords = n.note.old.keywords();
        if keywords.is_empty() {
            1
        } else if keywords.iter().all(|k| u.keywords.iter().any(|p| p == k)) {
            0
        } else {
            2
        }
    };
    let mut found: Vec<&StoredNote> = moves
        .change_notes
        .iter()
        .filter(|n| names(&n.note.old, &u.api))
        .collect();
    found.sort_by(|a, b| {
        rank(a)
            .cmp(&rank(b))
            .then_with(|| b.note.release.cmp(&a.note.release))
    });
    found
}

/// The keywords a note maps, old to new, pairwise by place (`columns` → `by`); none unless
/// both calls as written pass the same number.
pub fn keyword_map(
    note: &StoredNote,
    new: &crate::bank::notes::NotedExpr,
) -> Vec<(String, String)> {
    let old = note.note.old.keywords();
    let new = new.keywords();
    if old.len() != new.len() {
        return Vec::new();
    }
    old.into_iter()
        .zip(new)
        .filter(|(a, b)| a != b)
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

/// A successor found in the notes: the replacement as written, its path and form, the
/// keywords renamed at the call, and the note.
pub struct Found<'a> {
    pub candidate: String,
    pub new: ApiPath,
    pub form: NamedForm,
    pub keywords: Vec<(String, String)>,
    pub note: &'a StoredNote,
}

/// The first replacement the notes name for `u` that its calls can take; `Err` with the
/// first note's replacement and why none can be written (`None`: no note names it).
pub fn successor<'a>(
    u: &ApiUse,
    method: bool,
    dist: &DistName,
    moves: &'a MovesReport,
    targets: &BTreeMap<ApiPath, Vec<ApiReport>>,
) -> Option<Result<Found<'a>, (String, String)>> {
    let mut first_refusal: Option<(String, String)> = None;
    for note in naming(u, moves) {
        for new in &note.note.new {
            let refuse = |reason: String| (new.to_string(), reason);
            let chain = (!method && !new.is_plain())
                .then(|| new.chain_rest())
                .flatten();
            let refusal = if let Some(rest) = chain {
                match candidate::resolve_chain(u, dist, new.head(), rest, targets) {
                    Ok((path, form)) => {
                        return Some(Ok(Found {
                            candidate: new.to_string(),
                            new: path,
                            form,
                            keywords: Vec::new(),
                            note,
                        }))
                    }
                    Err(reason) => refuse(reason),
                }
            } else if !new.is_plain() {
                refuse("the notes replace it with an expression, not a name a call can take".into())
            } else if new
                .head()
                .split('.')
                .any(|s| s.starts_with('_') && !s.starts_with("__"))
            {
                refuse("it is private".into())
            } else {
                let keywords = keyword_map(note, new);
                let mut renamed = u.clone();
                for k in &mut renamed.keywords {
                    if let Some((_, to)) = keywords.iter().find(|(from, _)| from == k) {
                        *k = to.clone();
                    }
                }
                match candidate::resolve(&renamed, method, dist, new.head(), targets) {
                    Ok((path, form)) => {
                        return Some(Ok(Found {
                            candidate: new.to_string(),
                            new: path,
                            form,
                            keywords,
                            note,
                        }))
                    }
                    Err(reason) => refuse(reason),
                }
            };
            first_refusal.get_or_insert(refusal);
        }
    }
    first_refusal.map(Err)
}

/// The paths the notes' replacements for `u` may be, to be read from the bank.
pub fn target_paths(u: &ApiUse, moves: &MovesReport) -> Vec<ApiPath> {
    let mut out = Vec::new();
    for note in naming(u, moves) {
        for new in note
            .note
            .new
            .iter()
            .filter(|n| n.is_plain() || n.chain_rest().is_some())
        {
            for p in candidate::candidate_paths(&u.api, new.head()) {
                if !out.contains(&p) {
                    out.push(p);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(s: &str) -> NotedName {
        NotedName::parse(s).unwrap()
    }

    fn api(s: &str) -> ApiPath {
        ApiPath::new(s).unwrap()
    }

    #[test]
    fn a_noted_name_is_matched_by_its_last_segments() {
        assert!(names(
            &name("DataFrame.sort(columns=...)"),
            &api("pandas.DataFrame.sort")
        ));
        assert!(names(
            &name("DataFrame.sort"),
            &api("pandas.core.frame.DataFrame.sort")
        ));
        assert!(names(&name("pd.rolling_mean"), &api("pandas.rolling_mean")));
        assert!(names(
            &name("pandas.rolling_mean"),
            &api("pandas.stats.moments.rolling_mean")
        ));
        assert!(names(&name(".ix"), &api("pandas.DataFrame.ix")));
        assert!(!names(&name(".ix"), &api("pandas.ix")));
        assert!(!names(&name("Series.sort"), &api("pandas.DataFrame.sort")));
        assert!(names(
            &name("tk.rolling_mean"),
            &api("toolkit.rolling_mean")
        ));
        assert!(names(&name("TimeSeries"), &api("pandas.TimeSeries")));
        assert!(!names(&name("sort_values"), &api("pandas.DataFrame.sort")));
        for written in [
            "pd.DataFrame.sort",
            "DataFrame.sort()",
            "pandas.DataFrame.sort",
        ] {
            assert_eq!(
                path_in(&name(written), "pandas"),
                Some(api("pandas.DataFrame.sort"))
            );
        }
    }
}
