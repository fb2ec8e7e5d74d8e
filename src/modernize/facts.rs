//! What the bank knows about the APIs a notebook uses, read once: each API's presence over
//! the releases of the distributions that have it, and the moves of those distributions
//! whose APIs the notebook uses and the newest release lacks (or rejects a keyword of).

use std::collections::BTreeMap;

use crate::bank::flow::ApiKind;
use crate::bank::store::{ApiReport, MovesReport, ShimEvidence, Store, StoreError};
use crate::names::{ApiPath, DistName};
use crate::notebook::{ApiUse, MemberUse, Origin, Receiver, Usage};

use super::forward::Met;

/// What the bank says about the APIs a notebook uses: each API's reports (one per
/// distribution that has it) and the moves of each distribution among them.
#[derive(Debug, Clone, Default)]
pub struct Facts {
    pub apis: BTreeMap<ApiPath, Vec<ApiReport>>,
    pub moves: BTreeMap<DistName, MovesReport>,
    /// The paths a removed API's warning, its library's change notes or a forwarding of its
    /// module may name as its successor ("Use .values instead"), and its proven successors
    /// (for their newest signatures), as the bank reports them (see [`super::candidate`],
    /// [`super::notes`], [`super::mirror`]).
    pub targets: BTreeMap<ApiPath, Vec<ApiReport>>,
    /// Methods the code calls on a library's values that the bank places: on an instance of
    /// a class the code made (`np.ndarray(...).as_list()`), or on a value a library call
    /// returned whose distribution lost exactly one method of that name with a deprecation
    /// (`pd.read_csv(...).as_matrix()`, `DataFrame.as_matrix`).
    pub members: Vec<ApiUse>,
    /// What runs of the modernized notebook showed the newest releases lack: the strongest
    /// evidence, over the bank's word (see [`super::forward`]).
    pub met: Vec<Met>,
}

impl Facts {
    /// Reads the bank for the third-party APIs of `usage`. What the bank lacks is left out:
    /// nothing is known of it, so nothing is moved or pinned for it.
    pub fn gather(store: &Store, usage: &Usage) -> Result<Self, StoreError> {
        Self::gather_after_runs(store, usage, &[])
    }

    /// [`Facts::gather`], with what runs showed missing (`met`) taken over the bank's word:
    /// each met API is absent from the release that lacked it, and a method the run met on
    /// a value the code's tracing could not place is placed where the run met it.
    pub fn gather_after_runs(
        store: &Store,
        usage: &Usage,
        met: &[Met],
    ) -> Result<Self, StoreError> {
        let mut facts = Facts {
            met: met.to_vec(),
            ..Facts::default()
        };
        for u in usage.apis.iter().filter(|u| u.origin == Origin::ThirdParty) {
            facts.read(store, u)?;
        }
        // Methods on the library's values, once their receivers' distributions are known.
        for m in &usage.members {
            let Some(u) = facts.placed(store, m)? else {
                continue;
            };
            if !facts.apis.contains_key(&u.api) {
                facts.read(store, &u)?;
            }
            // The same method on another value (`df.as_matrix()`, `r.as_matrix()`): one use.
            if let Some(same) = facts.members.iter_mut().find(|a| a.api == u.api) {
                merge(same, &u);
                continue;
            }
            facts.members.push(u);
        }
        for u in super::forward::placed_by_runs(usage, &facts.uses(usage), met) {
            if !facts.apis.contains_key(&u.api) {
                facts.read(store, &u)?;
            }
            facts.members.push(u);
        }
        // What the warnings, the change notes and the forwardings of the removed APIs in use
        // name.
        let mut paths: Vec<ApiPath> = Vec::new();
        for u in facts
            .uses(usage)
            .iter()
            .filter(|u| u.origin == Origin::ThirdParty)
        {
            for moves in facts.moves.values() {
                paths.extend(super::notes::target_paths(u, moves));
                paths.extend(super::mirror::mirror_of(&moves.mirrors, &u.api).map(|(_, new)| new));
                // A successor's newest signature: it may take fewer arguments by position.
                if let Some(m) = moves.moves.iter().find(|m| m.old == u.api) {
                    paths.extend(m.successors.iter().map(|s| s.path.clone()));
                }
                if let Some(ShimEvidence::NamedInWarning { candidate }) =
                    super::plan::shim_of(Some(moves), &u.api).map(|s| &s.evidence)
                {
                    paths.extend(super::candidate::candidate_paths(&u.api, candidate));
                }
            }
        }
        let mut targets = BTreeMap::new();
        for path in paths {
            if let std::collections::btree_map::Entry::Vacant(slot) = targets.entry(path) {
                let reports = facts.query(store, slot.key())?;
                if !reports.is_empty() {
                    slot.insert(reports);
                }
            }
        }
        facts.targets = targets;
        Ok(facts)
    }

    /// The uses to plan: the code's own, with the methods placed on its values added (to
    /// the code's use of the same API, when it has one).
    pub fn uses(&self, usage: &Usage) -> Vec<ApiUse> {
        let mut out = usage.apis.clone();
        for m in &self.members {
            match out.iter_mut().find(|a| a.api == m.api) {
                Some(same) => merge(same, m),
                None => out.push(m.clone()),
            }
        }
        out
    }

    /// Reads `u`'s reports, and the moves of a distribution whose newest release lacks it
    /// or rejects a keyword it passes.
    fn read(&mut self, store: &Store, u: &ApiUse) -> Result<(), StoreError> {
        let reports = self.query(store, &u.api)?;
        for r in &reports {
            // A keyword the newest release rejects may have been renamed.
            let rejected = !super::plan::rejected_keywords(u, r).is_empty();
            if (gone(r) || rejected) && !self.moves.contains_key(&r.distribution) {
                if let Some(moves) = store.moves(&r.distribution)? {
                    self.moves.insert(r.distribution.clone(), moves);
                }
            }
        }
        if !reports.is_empty() {
            self.apis.insert(u.api.clone(), reports);
        }
        Ok(())
    }

    /// The bank's reports of `api`, with the runs' word taken over it.
    fn query(&self, store: &Store, api: &ApiPath) -> Result<Vec<ApiReport>, StoreError> {
        let mut reports = store.query_api(api.as_str())?;
        super::forward::absent_where_met(&mut reports, api, &self.met);
        Ok(reports)
    }

    /// The API a method call on a library's value is, when the bank can tell.
    fn placed(&mut self, store: &Store, m: &MemberUse) -> Result<Option<ApiUse>, StoreError> {
        let Receiver::DerivedFrom(from) = &m.receiver else {
            return Ok(None);
        };
        if !m.called {
            return Ok(None);
        }
        let Some(reports) = self.apis.get(from) else {
            return Ok(None);
        };
        let as_use = |api: ApiPath| ApiUse {
            api,
            origin: Origin::ThirdParty,
            count: m.count,
            kinds: Vec::new(),
            keywords: m.keywords.clone(),
            locations: m.locations.clone(),
        };
        // An instance of a class the code made: the member is the class's.
        if reports.iter().any(|r| r.kind == ApiKind::Class) {
            return Ok(ApiPath::new(&format!("{from}.{}", m.member))
                .ok()
                .map(as_use));
        }
        // What a call returned: one deprecated method of that name in its distribution.
        let dists: Vec<DistName> = reports.iter().map(|r| r.distribution.clone()).collect();
        for dist in dists {
            if !self.moves.contains_key(&dist) {
                let Some(moves) = store.moves(&dist)? else {
                    continue;
                };
                self.moves.insert(dist.clone(), moves);
            }
            // Removed methods of that name (by the bank's word on each definition).
            let mut named: Vec<&crate::bank::store::Shimmed> = Vec::new();
            for s in &self.moves[&dist].shims {
                if s.old.split_last().is_none_or(|(_, name)| name != m.member) {
                    continue;
                }
                let method = store
                    .query_api(s.old.as_str())?
                    .iter()
                    .any(|r| r.distribution == dist && r.kind == ApiKind::Method);
                if method {
                    named.push(s);
                }
            }
            if let [one] = named[..] {
                let path = one.also_as.first().unwrap_or(&one.old).clone();
                return Ok(Some(as_use(path)));
            }
            if named.is_empty() {
                if let Some(path) = noted_method(store, &self.moves[&dist], m, from)? {
                    return Ok(Some(as_use(path)));
                }
            }
        }
        Ok(None)
    }
}

/// The removed method the change notes of `moves` name for `m`, a method called on what
/// `from` returned: a class's method of that name the notes say was replaced and the bank
/// shows gone from the newest release (`DataFrame.sort` for `pd.read_csv(...).sort()`).
/// Several: the one whose note is written with keywords the call passes
/// (`DataFrame.sort(columns=...)`, not `Series.sort()`), else none.
fn noted_method(
    store: &Store,
    moves: &MovesReport,
    m: &MemberUse,
    from: &ApiPath,
) -> Result<Option<ApiPath>, StoreError> {
    let top = from.segments().next().unwrap_or_default();
    let mut found: Vec<(ApiPath, bool)> = Vec::new();
    for n in &moves.change_notes {
        let old = &n.note.old;
        if old.is_member() || old.segments().last() != Some(m.member.as_str()) {
            continue;
        }
        let Some(path) = super::notes::path_in(old, top) else {
            continue;
        };
        let keywords = old.keywords();
        let fits =
            !keywords.is_empty() && keywords.iter().all(|k| m.keywords.iter().any(|p| p == k));
        if let Some(seen) = found.iter_mut().find(|(p, _)| *p == path) {
            seen.1 |= fits;
            continue;
        }
        let removed = store
            .query_api(path.as_str())?
            .iter()
            .any(|r| r.distribution == moves.distribution && r.kind == ApiKind::Method && gone(r));
        if removed {
            found.push((path, fits));
        }
    }
    let fitting: Vec<&ApiPath> = found.iter().filter(|(_, f)| *f).map(|(p, _)| p).collect();
    Ok(match (&found[..], &fitting[..]) {
        ([(one, _)], _) => Some(one.clone()),
        (_, [one]) => Some((*one).clone()),
        _ => None,
    })
}

/// Whether the newest indexed release lacks `r`'s API, which an earlier one had.
pub(super) fn gone(r: &ApiReport) -> bool {
    r.latest_indexed
        .as_ref()
        .is_some_and(|latest| r.last.as_ref().is_some_and(|last| last < latest))
}

/// `other`'s places, count and keywords added to `to`, a use of the same API.
fn merge(to: &mut ApiUse, other: &ApiUse) {
    to.count += other.count;
    to.locations.extend(other.locations.iter().copied());
    to.locations.sort();
    to.locations.dedup();
    for k in &other.keywords {
        if !to.keywords.contains(k) {
            to.keywords.push(k.clone());
        }
    }
}
