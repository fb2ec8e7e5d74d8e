//! Candidate distributions for each third-party import name of a notebook, and the decision
//! among them: which distribution provides the name, and why; or why none does.
//!
//! Candidates come from the bank (releases that install the name), the package list's
//! import names, the provider list and, when none of those knows the name, the index hook.
//! Each is judged by what the bank says of the paths the notebook uses under the name.

use serde::Serialize;

use super::bank_view::BankView;
use super::error::EvidenceError;
use super::index_lookup::{conventional_names, resembles};
use super::provider_choice::{
    choose, Candidate, CandidateSource, ChoiceReason, Judged, PathState, Verdict,
};
use super::sources::Sources;
use super::unresolved::{NotOnPyPiSource, Unresolved};
use super::used_paths::{used_paths, UsedPath};
use crate::bank::store::{IndexStatus, Presence};
use crate::names::{ApiPath, DistName, ModulePath};
use crate::notebook::{Installer, Location, NoteKind, Usage};

use super::provider_list::Channel;

/// One top-level import name of the notebook and what provides it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ImportDecision {
    pub import: ModulePath,
    /// The first import (none for a local module found only on disk).
    pub at: Option<Location>,
    /// Every import of it is optional (`try`/`except ImportError`).
    pub optional: bool,
    /// The paths the notebook uses under the name.
    pub paths: Vec<UsedPath>,
    /// Every candidate, with its verdict.
    pub candidates: Vec<Candidate>,
    pub outcome: ImportOutcome,
    /// The notebook it comes from, when several are resolved together, or the local module
    /// file a notebook imports.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notebook: Option<String>,
    /// `notebook` names a local module file (its places are lines of the file, not cells).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub in_module: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum ImportOutcome {
    Provided {
        /// Best first; more than one only for a namespace package.
        providers: Vec<Chosen>,
        /// Used paths no chosen provider has in any release: they constrain nothing.
        unprovided: Vec<ApiPath>,
    },
    Unresolved(Unresolved),
}

/// A chosen provider.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Chosen {
    pub dist: DistName,
    pub provides: Vec<ModulePath>,
    pub reason: ChoiceReason,
}

impl ImportDecision {
    /// The chosen providers (none when unresolved).
    pub fn providers(&self) -> &[Chosen] {
        match &self.outcome {
            ImportOutcome::Provided { providers, .. } => providers,
            ImportOutcome::Unresolved(_) => &[],
        }
    }
}

/// Decides every third-party import name of the notebook, in the notebook's order, then its
/// local modules (unresolved: they are not requirements).
pub fn decide_imports<B: BankView + ?Sized>(
    usage: &Usage,
    bank: &B,
    sources: &Sources<'_>,
) -> Result<Vec<ImportDecision>, EvidenceError> {
    let mut out = Vec::new();
    for import in &usage.third_party {
        out.push(decide(
            &import.name,
            Some(import.at),
            import.optional,
            usage,
            bank,
            sources,
        )?);
    }
    for local in &usage.local_modules {
        let Ok(import) = ModulePath::new(&local.name) else {
            continue;
        };
        // Where the notebook imports it; else where it is written or put on the path.
        let imported_at = usage
            .imports
            .iter()
            .find(|i| i.level == 0 && i.module.top_level() == local.name)
            .map(|i| i.at);
        out.push(ImportDecision {
            import,
            at: imported_at.or(local.at),
            optional: false,
            paths: Vec::new(),
            candidates: Vec::new(),
            notebook: None,
            in_module: false,
            outcome: ImportOutcome::Unresolved(Unresolved::LocalModule {
                source: local.source,
                file: local.file.clone(),
                repository: local.repository.clone(),
            }),
        });
    }
    Ok(out)
}

fn decide<B: BankView + ?Sized>(
    import: &ModulePath,
    at: Option<Location>,
    optional: bool,
    usage: &Usage,
    bank: &B,
    sources: &Sources<'_>,
) -> Result<ImportDecision, EvidenceError> {
    let top = import.top_level();
    let paths = used_paths(usage, top);
    let mut decision = ImportDecision {
        import: import.clone(),
        at,
        optional,
        paths,
        candidates: Vec::new(),
        notebook: None,
        in_module: false,
        outcome: ImportOutcome::Unresolved(Unresolved::NoProvider),
    };
    if let Some(u) = sources.providers.unavailable(top) {
        decision.outcome = ImportOutcome::Unresolved(Unresolved::NotOnPyPi {
            channel: u.channel,
            package: u.package.clone(),
            said_by: NotOnPyPiSource::ProviderList {
                line: u.line,
                note: u.note.clone(),
            },
        });
        return Ok(decision);
    }

    let mut found: Vec<(DistName, ModulePath, CandidateSource)> = Vec::new();
    for p in bank.import_providers(top)? {
        found.push((p.dist, p.import_name, CandidateSource::Bank));
    }
    for (dist, name, line) in sources.listed_providers(top) {
        found.push((dist, name, CandidateSource::PackageList { line }));
    }
    for p in &sources.providers.prefer {
        if p.import.top_level() == top {
            for dist in &p.order {
                let source = CandidateSource::ProviderList { line: p.line };
                found.push((dist.clone(), p.import.clone(), source));
            }
        }
    }
    if found.is_empty() {
        for dist in sources.lookup.providers_on_index(import)? {
            found.push((dist, import.clone(), CandidateSource::Index));
        }
    }
    // A distribution the repository declares under a name that resembles the import
    // (`python-crfsuite` for `pycrfsuite`, `awesome-slugify` for `slugify` beside the
    // Python 2 `slugify`), when its wheel installs it.
    let conventional = if found.is_empty() {
        conventional_names(import)
    } else {
        Vec::new()
    };
    let mut asked: Vec<&DistName> = Vec::new();
    for declared in &usage.declarations.requirements {
        let dist = &declared.name;
        if asked.contains(&dist)
            || conventional.contains(dist)
            || found.iter().any(|(d, _, _)| d == dist)
            || !resembles(import, dist)
        {
            continue;
        }
        asked.push(dist);
        if sources.lookup.installs(dist, import)? {
            found.push((dist.clone(), import.clone(), CandidateSource::Declared));
        }
    }

    let mut judged = merge(found);
    // A provider of a dotted name the notebook does not use is no candidate for it.
    judged.retain(|c| {
        decision
            .paths
            .iter()
            .any(|u| c.provides.iter().any(|p| u.is_under(p)))
    });
    for c in &mut judged {
        judge(c, &decision.paths, usage, bank)?;
    }
    let (candidates, chosen) = choose(judged, import, sources.providers);
    decision.outcome = if chosen.is_empty() {
        ImportOutcome::Unresolved(why_unresolved(&candidates, top, usage))
    } else {
        let providers: Vec<Chosen> = chosen
            .iter()
            .map(|&i| {
                let c = &candidates[i];
                let Verdict::Chosen(reason) = &c.verdict else {
                    unreachable!("choose gives the chosen their reason")
                };
                Chosen {
                    dist: c.dist.clone(),
                    provides: c.provides.clone(),
                    reason: reason.clone(),
                }
            })
            .collect();
        let unprovided = decision
            .paths
            .iter()
            .filter(|u| {
                let mine = chosen.iter().map(|&i| &candidates[i]);
                let deep = mine
                    .clone()
                    .any(|c| c.provides.iter().any(|p| u.is_deeper_than(p)));
                deep && !mine
                    .clone()
                    .any(|c| c.paths.iter().any(|(p, s)| p == &u.path && s.possible()))
            })
            .map(|u| u.path.clone())
            .collect();
        ImportOutcome::Provided {
            providers,
            unprovided,
        }
    };
    decision.candidates = candidates;
    Ok(decision)
}

/// One candidate per distribution, with all the names it provides and where it was found.
fn merge(found: Vec<(DistName, ModulePath, CandidateSource)>) -> Vec<Judged> {
    let mut out: Vec<Judged> = Vec::new();
    for (dist, name, source) in found {
        let i = match out.iter().position(|c| c.dist == dist) {
            Some(i) => i,
            None => {
                out.push(Judged {
                    dist,
                    provides: Vec::new(),
                    sources: Vec::new(),
                    installed_at: None,
                    declared_at: None,
                    paths: Vec::new(),
                    indexed: 0,
                });
                out.len() - 1
            }
        };
        let c = &mut out[i];
        if !c.provides.contains(&name) {
            c.provides.push(name);
        }
        if !c.sources.contains(&source) {
            c.sources.push(source);
        }
    }
    out
}

/// Fills in what the bank says of the candidate's used paths, and whether the notebook
/// installs it or its repository declares it.
fn judge<B: BankView + ?Sized>(
    c: &mut Judged,
    paths: &[UsedPath],
    usage: &Usage,
    bank: &B,
) -> Result<(), EvidenceError> {
    // Each path is judged against the most specific name the candidate provides above it.
    let deep: Vec<ApiPath> = paths
        .iter()
        .filter(|u| {
            c.provides
                .iter()
                .filter(|p| u.is_under(p))
                .max_by_key(|p| p.as_str().len())
                .is_some_and(|p| u.is_deeper_than(p))
        })
        .map(|u| u.path.clone())
        .collect();
    let catalog = bank.catalog(&c.dist)?;
    c.indexed = catalog.as_ref().map_or(0, |cat| {
        cat.releases
            .iter()
            .filter(|r| r.index == IndexStatus::Indexed)
            .count()
    });
    let presence = bank.api_presence(&c.dist, &deep)?;
    c.paths = deep
        .into_iter()
        .zip(presence)
        .map(|(path, p)| (path, state(&p, c.indexed)))
        .collect();
    c.installed_at = usage
        .requirements
        .iter()
        .find(|r| r.name == c.dist && r.installer != Installer::Conda)
        .map(|r| r.at);
    c.declared_at = usage
        .declarations
        .requirements
        .iter()
        .find(|r| r.name == c.dist)
        .map(|r| r.at.clone());
    Ok(())
}

fn state(p: &Presence, indexed: usize) -> PathState {
    if indexed == 0 {
        PathState::NoData
    } else if !p.present.is_empty() {
        PathState::Has
    } else if !p.unknown.is_empty() {
        PathState::Maybe
    } else if !p.not_indexed.is_empty() {
        PathState::NotIndexedOnly
    } else {
        PathState::Lacks
    }
}

/// Why no candidate was credible.
fn why_unresolved(candidates: &[Candidate], top: &str, usage: &Usage) -> Unresolved {
    if candidates.is_empty() {
        return not_on_pypi(top, usage).unwrap_or(Unresolved::NoProvider);
    }
    let lacking: Vec<(DistName, Vec<ApiPath>)> = candidates
        .iter()
        .filter_map(|c| match &c.verdict {
            Verdict::LacksApis { apis } => Some((c.dist.clone(), apis.clone())),
            _ => None,
        })
        .collect();
    if lacking.is_empty() {
        Unresolved::OnlyAvoided {
            dists: candidates
                .iter()
                .filter_map(|c| match &c.verdict {
                    Verdict::Avoided { avoid, .. } => Some((c.dist.clone(), *avoid)),
                    _ => None,
                })
                .collect(),
        }
    } else {
        Unresolved::ProvidersLackApis { providers: lacking }
    }
}

/// The notebook installs the name with conda (`%conda install graph-tool`) or the system's
/// package manager (`!apt-get install python3-apt`).
fn not_on_pypi(top: &str, usage: &Usage) -> Option<Unresolved> {
    let spelled = top.to_ascii_lowercase().replace('_', "-");
    let conda = usage
        .requirements
        .iter()
        .find(|r| r.installer == Installer::Conda && r.name.as_str() == spelled.as_str());
    if let Some(r) = conda {
        return Some(Unresolved::NotOnPyPi {
            channel: Channel::Conda,
            package: Some(r.name.to_string()),
            said_by: NotOnPyPiSource::Notebook {
                at: r.at,
                command: r.command.clone(),
            },
        });
    }
    let names = [format!("python-{spelled}"), format!("python3-{spelled}")];
    usage
        .notes
        .iter()
        .filter(|n| n.kind == NoteKind::SystemPackage)
        .find_map(|n| {
            let package = n
                .detail
                .split_whitespace()
                .find(|w| names.iter().any(|x| x == w))?;
            Some(Unresolved::NotOnPyPi {
                channel: Channel::System,
                package: Some(package.to_string()),
                said_by: NotOnPyPiSource::Notebook {
                    at: n.at,
                    command: n.detail.clone(),
                },
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_never_take_not_indexed_for_absent() {
        let mut p = Presence::default();
        p.not_indexed.insert(crate::bank::store::Slot(0));
        p.absent.insert(crate::bank::store::Slot(1));
        assert_eq!(state(&p, 1), PathState::NotIndexedOnly);
        assert_eq!(state(&p, 0), PathState::NoData);
        p.not_indexed = Default::default();
        assert_eq!(state(&p, 1), PathState::Lacks);
    }
}
