//! The dotted paths a notebook uses under one import name: the third-party APIs it calls or
//! reads, and the modules it imports (`import sklearn.cross_validation as cv` is evidence
//! even when nothing of it is used).

use serde::Serialize;

use crate::names::{ApiPath, ModulePath};
use crate::notebook::{Location, Origin, Usage, UseKind};

/// How the notebook reaches a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PathUse {
    /// Imported as a module.
    Import,
    /// Called, read or imported from a module (`notebook::ApiUse`).
    Api,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UsedPath {
    pub path: ApiPath,
    pub used: PathUse,
    /// Keyword arguments passed where it was called.
    pub keywords: Vec<String>,
    /// Every place, in notebook order.
    pub locations: Vec<Location>,
    /// How many times the notebook uses it.
    pub count: u32,
    /// Named in an import statement (`import a.b`, `from a import b`): the notebook cannot
    /// run a cell without it.
    pub imported: bool,
    /// Only guessed: every use is a bare name that one of several star imports may define,
    /// or a member of an object traced back to a library class (`m.fit` on `m =
    /// LinearRegression()`, a member a notebook class inherits): the attribution, not the
    /// use, is uncertain.
    pub guessed: bool,
}

impl UsedPath {
    /// Whether the path lies under (or is) import name `import`.
    pub fn is_under(&self, import: &ModulePath) -> bool {
        is_under(self.path.as_str(), import.as_str())
    }

    /// Under `import` and longer than it: what tells one provider of `import` from another.
    pub fn is_deeper_than(&self, import: &ModulePath) -> bool {
        self.path.as_str().len() > import.as_str().len() && self.is_under(import)
    }
}

/// `path` is `prefix` or starts with `prefix.`.
pub fn is_under(path: &str, prefix: &str) -> bool {
    path.strip_prefix(prefix)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
}

/// The third-party paths under top-level name `top_level`, sorted by path, each once.
pub fn used_paths(usage: &Usage, top_level: &str) -> Vec<UsedPath> {
    let mut out: Vec<UsedPath> = Vec::new();
    let mut add = |new: UsedPath| match out.iter_mut().find(|u| u.path == new.path) {
        Some(u) => {
            u.used = u.used.max(new.used);
            for k in new.keywords {
                if !u.keywords.contains(&k) {
                    u.keywords.push(k);
                }
            }
            u.locations.extend_from_slice(&new.locations);
            u.locations.sort();
            u.locations.dedup();
            u.count += new.count;
            u.imported |= new.imported;
            u.guessed &= new.guessed;
        }
        None => out.push(new),
    };
    for import in &usage.imports {
        if import.origin == Origin::ThirdParty
            && import.level == 0
            && import.module.top_level() == top_level
        {
            add(UsedPath {
                path: ApiPath::from(import.module.clone()),
                used: PathUse::Import,
                keywords: Vec::new(),
                locations: vec![import.at],
                count: 1,
                imported: true,
                guessed: false,
            });
        }
    }
    for api in usage.third_party_apis() {
        if api.api.top_level() == top_level {
            add(UsedPath {
                path: api.api.clone(),
                used: PathUse::Api,
                keywords: api.keywords.clone(),
                locations: api.locations.clone(),
                count: api.count,
                imported: api.kinds.contains(&UseKind::Import),
                // A guessed use carries its mark beside its kind (`[Call, Star]`).
                guessed: api
                    .kinds
                    .iter()
                    .any(|k| matches!(k, UseKind::Star | UseKind::Traced | UseKind::Inherited)),
            });
        }
    }
    // What a path is reached through must be there too: `sns.plt.show()` needs seaborn's
    // `plt` (an alias of matplotlib's module, which seaborn dropped in 0.8), whatever the bank
    // can say of `show` behind it. Each used path's parent below the top-level name is used
    // where the path is.
    let parents: Vec<UsedPath> = out
        .iter()
        .filter(|u| u.used == PathUse::Api && u.path.as_str().matches('.').count() >= 2)
        .filter_map(|u| {
            let (parent, _) = u.path.as_str().rsplit_once('.')?;
            Some(UsedPath {
                path: ApiPath::new(parent).ok()?,
                used: PathUse::Api,
                keywords: Vec::new(),
                locations: u.locations.clone(),
                count: u.count,
                imported: false,
                guessed: u.guessed,
            })
        })
        .collect();
    for parent in parents {
        if !out.iter().any(|u| u.path == parent.path) {
            out.push(parent);
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn under_means_whole_segments() {
        assert!(is_under("google.protobuf.message", "google.protobuf"));
        assert!(is_under("google.protobuf", "google.protobuf"));
        assert!(!is_under("google.protobufx", "google.protobuf"));
        assert!(!is_under("google", "google.protobuf"));
    }
}
