//! Choosing among the distributions that install one import name: API evidence first (the
//! provider whose releases have the used APIs wins: `cv2.xfeatures2d` needs
//! opencv-contrib-python), then a `pip install` line of the notebook, then the maintained
//! preference list, else the repository's own declaration (`awesome-slugify` in its
//! requirements.txt over the Python 2 `slugify` for `import slugify`), never a placeholder,
//! stub or lookalike. Every candidate keeps its verdict,
//! and the chosen one the reason it won over the runner-up.

use std::cmp::Reverse;

use serde::Serialize;

use super::provider_list::{AvoidKind, ProviderList};
use crate::names::{ApiPath, DistName, ModulePath};
use crate::notebook::{DeclaredAt, Location};

/// Where a candidate was found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum CandidateSource {
    /// Indexed releases install the name.
    Bank,
    /// `apibank/packages.txt`, at this line.
    PackageList { line: usize },
    /// A `prefer` line of `apibank/providers.txt`.
    ProviderList { line: usize },
    /// Found on the package index, its wheel checked.
    Index,
    /// A distribution the repository declares whose name resembles the import
    /// (`python-crfsuite` for `pycrfsuite`), its wheel checked on the index.
    Declared,
}

/// What a candidate's indexed releases say of one used path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PathState {
    /// Present in some indexed release.
    Has,
    /// Found in none, unknown in some.
    Maybe,
    /// Absent from every indexed release, but some releases are not indexed.
    NotIndexedOnly,
    /// The bank has indexed no release of the candidate.
    NoData,
    /// Absent from every release.
    Lacks,
}

impl PathState {
    /// Whether the candidate may have the path somewhere.
    pub fn possible(self) -> bool {
        self != PathState::Lacks
    }
}

/// Why the chosen provider won.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum ChoiceReason {
    /// No other credible candidate.
    OnlyCandidate,
    /// It has used APIs that `over`, the runner-up, lacks or cannot show.
    ApiEvidence { apis: Vec<ApiPath>, over: DistName },
    /// The notebook installs it (`!pip install`).
    InstalledByNotebook { at: Location, over: DistName },
    /// The repository around the notebook declares it (requirements.txt, environment.yml,
    /// setup.py), and `over` it does not; the preference list had no word on the name.
    DeclaredByRepository { at: DeclaredAt, over: DistName },
    /// It is the distribution of the import's own name (`pytz` for `import pytz`), where
    /// `over` only ships a copy (old matplotlib vendored pytz).
    OwnName { over: DistName },
    /// The evidence could not tell it from `over`; the preference list ranks it first.
    Preferred {
        over: DistName,
        line: usize,
        note: String,
    },
    /// Nothing told it from `over`: the first by bank evidence, then by name.
    Tiebreak { over: DistName },
    /// A second provider of a namespace package: it has used APIs the first lacks
    /// (`google.protobuf` and `google.cloud.storage` come from different distributions).
    CoversApis { apis: Vec<ApiPath> },
}

/// How a candidate fared.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Verdict {
    Chosen(ChoiceReason),
    /// Credible, but another ranked first.
    Outranked {
        by: DistName,
    },
    Avoided {
        avoid: AvoidKind,
        note: String,
        line: usize,
    },
    /// Lacks every used API under the name in every release: a namesake.
    LacksApis {
        apis: Vec<ApiPath>,
    },
}

/// A distribution that installs the import name, with what the bank says of the paths the
/// notebook uses under it, and how it fared.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Candidate {
    pub dist: DistName,
    /// The import names it installs under the top-level name (the top-level name itself, or
    /// dotted names of a namespace package).
    pub provides: Vec<ModulePath>,
    pub sources: Vec<CandidateSource>,
    /// A `pip install` line of the notebook installs it.
    pub installed_at: Option<Location>,
    /// The repository's declaration of it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub declared_at: Option<DeclaredAt>,
    /// The used paths deeper than the name it provides, with the bank's answer for each.
    pub paths: Vec<(ApiPath, PathState)>,
    /// Indexed releases in the bank.
    pub indexed: usize,
    pub verdict: Verdict,
}

/// A candidate before the verdict: what [`choose`] ranks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Judged {
    pub dist: DistName,
    pub provides: Vec<ModulePath>,
    pub sources: Vec<CandidateSource>,
    pub installed_at: Option<Location>,
    pub declared_at: Option<DeclaredAt>,
    pub paths: Vec<(ApiPath, PathState)>,
    pub indexed: usize,
}

impl Judged {
    fn count(&self, state: PathState) -> usize {
        self.paths.iter().filter(|(_, s)| *s == state).count()
    }

    fn with_state(&self, keep: impl Fn(PathState) -> bool) -> Vec<&ApiPath> {
        self.paths
            .iter()
            .filter(|(_, s)| keep(*s))
            .map(|(p, _)| p)
            .collect()
    }

    fn state(&self, path: &ApiPath) -> Option<PathState> {
        self.paths.iter().find(|(p, _)| p == path).map(|(_, s)| *s)
    }

    /// Credible: it may have some used path, or there is none to check.
    fn credible(&self) -> bool {
        self.paths.is_empty() || self.paths.iter().any(|(_, s)| s.possible())
    }

    fn with(self, verdict: Verdict) -> Candidate {
        Candidate {
            dist: self.dist,
            provides: self.provides,
            sources: self.sources,
            installed_at: self.installed_at,
            declared_at: self.declared_at,
            paths: self.paths,
            indexed: self.indexed,
            verdict,
        }
    }
}

/// The order of credible candidates, best first; see the module doc.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct RankKey<'a> {
    lacks: usize,
    installed: Reverse<bool>,
    declared: Reverse<bool>,
    own: Reverse<bool>,
    has: Reverse<usize>,
    preference: usize,
    no_data: bool,
    name: &'a DistName,
}

fn rank_key<'a>(
    c: &'a Judged,
    import: &ModulePath,
    preference: Option<&[DistName]>,
) -> RankKey<'a> {
    RankKey {
        lacks: c.count(PathState::Lacks),
        installed: Reverse(c.installed_at.is_some()),
        // The list's preference, when it has one for the name, is the better word: it knows
        // which build installs (`tensorflow` over a declared `tensorflow-gpu`).
        declared: Reverse(preference.is_none() && c.declared_at.is_some()),
        own: Reverse(preference.is_none() && is_own_name(&c.dist, import)),
        has: Reverse(c.count(PathState::Has)),
        preference: preference
            .and_then(|order| order.iter().position(|d| d == &c.dist))
            .unwrap_or(usize::MAX),
        no_data: c.indexed == 0,
        name: &c.dist,
    }
}

/// Gives every candidate its verdict; returns them with the indices of the chosen ones, best
/// first (none when no candidate is credible). `import` is the top-level name being decided.
pub fn choose(
    candidates: Vec<Judged>,
    import: &ModulePath,
    list: &ProviderList,
) -> (Vec<Candidate>, Vec<usize>) {
    let mut verdicts: Vec<Option<Verdict>> = vec![None; candidates.len()];
    let mut credible: Vec<usize> = Vec::new();
    for (i, c) in candidates.iter().enumerate() {
        if let Some(a) = list.avoided(&c.dist) {
            verdicts[i] = Some(Verdict::Avoided {
                avoid: a.kind,
                note: a.note.clone(),
                line: a.line,
            });
        } else if !c.credible() {
            verdicts[i] = Some(Verdict::LacksApis {
                apis: c.paths.iter().map(|(p, _)| p.clone()).collect(),
            });
        } else {
            credible.push(i);
        }
    }
    let mut chosen: Vec<usize> = Vec::new();
    if !credible.is_empty() {
        // The preference for the most specific name the candidates provide (`google.protobuf`
        // before `google`).
        let preference = credible
            .iter()
            .flat_map(|&i| candidates[i].provides.iter())
            .chain(std::iter::once(import))
            .filter_map(|name| list.preference(name))
            .max_by_key(|p| p.import.as_str().len());
        let order = preference.map(|p| p.order.as_slice());
        credible.sort_by(|&a, &b| {
            rank_key(&candidates[a], import, order).cmp(&rank_key(&candidates[b], import, order))
        });
        let winner = credible[0];
        let reason = match credible.get(1) {
            None => ChoiceReason::OnlyCandidate,
            Some(&runner) => why_first(
                &candidates[winner],
                &candidates[runner],
                import,
                order,
                preference,
            ),
        };
        verdicts[winner] = Some(Verdict::Chosen(reason));
        chosen.push(winner);

        // Namespace packages: another provider that has what the chosen ones lack, and lacks
        // what they have, installs a different part of the namespace.
        for &other in &credible[1..] {
            let c = &candidates[other];
            let covers: Vec<ApiPath> = c
                .with_state(|s| s == PathState::Has)
                .into_iter()
                .filter(|p| {
                    chosen
                        .iter()
                        .all(|&k| candidates[k].state(p) == Some(PathState::Lacks))
                })
                .cloned()
                .collect();
            let complementary = chosen.iter().any(|&k| {
                candidates[k]
                    .with_state(|s| s == PathState::Has)
                    .iter()
                    .any(|p| c.state(p) == Some(PathState::Lacks))
            });
            if !covers.is_empty() && complementary {
                verdicts[other] = Some(Verdict::Chosen(ChoiceReason::CoversApis { apis: covers }));
                chosen.push(other);
            }
        }
        let by = &candidates[winner].dist;
        for &i in &credible {
            if verdicts[i].is_none() {
                verdicts[i] = Some(Verdict::Outranked { by: by.clone() });
            }
        }
    }
    let candidates = candidates
        .into_iter()
        .zip(verdicts)
        .map(|(c, v)| c.with(v.expect("every candidate gets a verdict above")))
        .collect();
    (candidates, chosen)
}

/// The first difference between the winner's rank and the runner-up's, as a reason.
fn why_first(
    winner: &Judged,
    runner: &Judged,
    import: &ModulePath,
    order: Option<&[DistName]>,
    preference: Option<&super::provider_list::Preference>,
) -> ChoiceReason {
    let (w, r) = (
        rank_key(winner, import, order),
        rank_key(runner, import, order),
    );
    let over = runner.dist.clone();
    if w.lacks != r.lacks {
        let apis = winner
            .paths
            .iter()
            .filter(|(p, s)| s.possible() && runner.state(p) == Some(PathState::Lacks))
            .map(|(p, _)| p.clone())
            .collect();
        return ChoiceReason::ApiEvidence { apis, over };
    }
    if w.installed != r.installed {
        if let Some(at) = winner.installed_at {
            return ChoiceReason::InstalledByNotebook { at, over };
        }
    }
    if w.declared != r.declared {
        if let Some(at) = &winner.declared_at {
            return ChoiceReason::DeclaredByRepository {
                at: at.clone(),
                over,
            };
        }
    }
    if w.own != r.own {
        return ChoiceReason::OwnName { over };
    }
    if w.has != r.has {
        let apis = winner
            .paths
            .iter()
            .filter(|(p, s)| *s == PathState::Has && runner.state(p) != Some(PathState::Has))
            .map(|(p, _)| p.clone())
            .collect();
        return ChoiceReason::ApiEvidence { apis, over };
    }
    match preference {
        Some(p) if w.preference != r.preference => ChoiceReason::Preferred {
            over,
            line: p.line,
            note: p.note.clone(),
        },
        _ => ChoiceReason::Tiebreak { over },
    }
}

/// Whether `dist` is the distribution of the import's own name (`pytz` for `pytz`,
/// `python_dateutil` is not `dateutil`'s): names compared as PEP 503 normalizes them.
fn is_own_name(dist: &DistName, import: &ModulePath) -> bool {
    DistName::new(import.top_level()).is_ok_and(|own| &own == dist)
}
