//! The distributions of a package list that `bank build` indexes.

use crate::bank::indexer::{BuildTarget, PackageEntry, Selection};
use crate::names::DistName;

/// Names `--only` gave that the package list does not hold.
#[derive(Debug, thiserror::Error)]
#[error(
    "{} not in {list}; use `nbenv bank add` for a distribution outside it",
    said(names)
)]
pub struct NotInList {
    pub names: Vec<DistName>,
    /// The list's name, as the user knows it.
    pub list: String,
}

fn said(names: &[DistName]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    match quoted.as_slice() {
        [one] => format!("{one} is"),
        many => format!("{} are", many.join(", ")),
    }
}

/// All of `list`, or those `only` names, which must all be in it; the latest `latest`
/// releases of each, else all.
pub fn list_targets(
    list: &[PackageEntry],
    list_name: &str,
    only: &[DistName],
    latest: Option<usize>,
) -> Result<Vec<BuildTarget>, NotInList> {
    let missing: Vec<DistName> = only
        .iter()
        .filter(|name| !list.iter().any(|e| &e.name == *name))
        .cloned()
        .collect();
    if !missing.is_empty() {
        return Err(NotInList {
            names: missing,
            list: list_name.to_string(),
        });
    }
    Ok(list
        .iter()
        .filter(|e| only.is_empty() || only.contains(&e.name))
        .map(|e| BuildTarget {
            name: e.name.clone(),
            selection: latest.map_or(Selection::All, Selection::Latest),
        })
        .collect())
}
