//! The bank's evidence made sufficient for modernizing: a removal is seen only between two
//! indexed releases, one with the API and the next without, and a release whose names
//! static reading cannot see (a package `__getattr__`) proves nothing until introspected.
//! An inference indexes only what its pins hinge on, so before the moves are read, the
//! releases that bracket each used API's disappearance are indexed (a bisection over the
//! releases the index lists), and the newest release is introspected where the API is
//! unknown there.
//!
//! [`wanted`] decides the next step from the bank's reports (pure, tested alone); [`prepare`]
//! runs the steps through [`BankWork`] until nothing more is wanted.

use std::collections::BTreeSet;

use pep440_rs::Version;

use crate::bank::store::{ApiReport, VersionRun};
use crate::names::{ApiPath, DistName};

/// One step of preparation.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Want {
    /// Index this release: it halves the releases between the API's last sighting and its
    /// first absence.
    Index(DistName, Version),
    /// Introspect this release (the newest indexed): static reading cannot tell whether it
    /// has the API.
    Introspect(DistName, Version),
}

fn within(runs: &[VersionRun], v: &Version) -> bool {
    VersionRun::any_contains(runs, v)
}

/// What the bank still needs to show whether, and where, `report`'s API went: nothing when
/// the newest indexed release has it or the removal is bracketed by adjacent releases.
/// `tried`: introspections already attempted (an attempt that settled nothing is not
/// repeated).
pub fn wanted(report: &ApiReport, tried: &BTreeSet<Want>) -> Option<Want> {
    let latest = report.latest_indexed.as_ref()?;
    let last = &report.present.last()?.last;
    if within(&report.present, latest) {
        return None;
    }
    let dist = &report.distribution;
    if within(&report.unknown, latest) {
        let want = Want::Introspect(dist.clone(), latest.clone());
        return (!tried.contains(&want)).then_some(want);
    }
    // The first indexed release after the last with it.
    let next = report
        .absent
        .iter()
        .chain(&report.unknown)
        .map(|r| &r.first)
        .filter(|v| *v > last)
        .min()?;
    let between: Vec<&Version> = report
        .not_indexed
        .iter()
        .filter(|v| *v > last && *v < next && !v.any_prerelease())
        .collect();
    if let Some(mid) = between.get(between.len() / 2) {
        return Some(Want::Index(dist.clone(), (*mid).clone()));
    }
    // Bracketed, but static reading cannot tell whether the release after the last with it
    // still has it (a module built at run time, as scikit-learn 0.23.2's deprecated
    // `datasets.samples_generator`): unknown there is no removal, so introspect it.
    if within(&report.unknown, next) {
        let want = Want::Introspect(dist.clone(), next.clone());
        return (!tried.contains(&want)).then_some(want);
    }
    None
}

/// The release whose sdist's change notes may say what replaced `report`'s API: the first
/// indexed release without it, once the removal is bracketed (no release between the last
/// with it and that one is left unindexed). Its notes hold the removal, and the deprecations
/// before it.
pub fn notes_wanted(report: &ApiReport) -> Option<(DistName, Version)> {
    let latest = report.latest_indexed.as_ref()?;
    let last = &report.present.last()?.last;
    if within(&report.present, latest) || within(&report.unknown, latest) {
        return None;
    }
    let next = report
        .absent
        .iter()
        .map(|r| &r.first)
        .filter(|v| *v > last)
        .min()?;
    let bracketed = !report
        .not_indexed
        .iter()
        .any(|v| v > last && v < next && !v.any_prerelease());
    bracketed.then(|| (report.distribution.clone(), next.clone()))
}

/// Reads the change notes of the releases that removed `apis` (see [`notes_wanted`]), each
/// release once; returns how many were asked for.
pub fn read_notes<W: BankWork>(apis: &[ApiPath], work: &mut W) -> Result<usize, W::Error> {
    let mut wanted: BTreeSet<(DistName, Version)> = BTreeSet::new();
    for api in apis {
        for report in work.reports(api)? {
            wanted.extend(notes_wanted(&report));
        }
    }
    let releases: Vec<(DistName, Version)> = wanted.into_iter().collect();
    if !releases.is_empty() {
        work.read_notes(&releases)?;
    }
    Ok(releases.len())
}

/// What preparing takes from the outside world: the bank's reports, indexing, introspection.
pub trait BankWork {
    type Error;
    /// The bank's reports of `api`, read again (the last step may have changed them).
    fn reports(&mut self, api: &ApiPath) -> Result<Vec<ApiReport>, Self::Error>;
    /// Indexes these releases.
    fn index(&mut self, releases: &[(DistName, Version)]) -> Result<(), Self::Error>;
    /// Introspects these releases.
    fn introspect(&mut self, releases: &[(DistName, Version)]) -> Result<(), Self::Error>;
    /// Reads the change notes of these releases' sdists (each read once, ever).
    fn read_notes(&mut self, releases: &[(DistName, Version)]) -> Result<(), Self::Error>;
}

/// What preparing did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Prepared {
    pub indexed: usize,
    pub introspected: usize,
    /// Rounds run; at most `rounds` were allowed.
    pub rounds: usize,
}

/// Indexes and introspects, round by round, what `apis` need, at most `rounds` rounds (each
/// halves every open gap, so 10 rounds bracket a removal among a thousand releases).
pub fn prepare<W: BankWork>(
    apis: &[ApiPath],
    work: &mut W,
    rounds: usize,
) -> Result<Prepared, W::Error> {
    let mut done = Prepared::default();
    let mut tried: BTreeSet<Want> = BTreeSet::new();
    while done.rounds < rounds {
        let mut wants: BTreeSet<Want> = BTreeSet::new();
        for api in apis {
            for report in work.reports(api)? {
                wants.extend(wanted(&report, &tried));
            }
        }
        // A step that changed nothing (a release the index no longer serves) is not repeated.
        wants.retain(|w| !tried.contains(w));
        if wants.is_empty() {
            break;
        }
        done.rounds += 1;
        let (mut index, mut introspect) = (Vec::new(), Vec::new());
        for w in &wants {
            match w {
                Want::Index(d, v) => index.push((d.clone(), v.clone())),
                Want::Introspect(d, v) => introspect.push((d.clone(), v.clone())),
            }
        }
        if !index.is_empty() {
            work.index(&index)?;
            done.indexed += index.len();
        }
        if !introspect.is_empty() {
            work.introspect(&introspect)?;
            done.introspected += introspect.len();
        }
        tried.extend(wants);
    }
    Ok(done)
}

/// Rounds of bisection at most: each halves every gap, so 12 bracket a removal among 4,000
/// releases.
pub const PREPARE_ROUNDS: usize = 12;

/// Indexes what the moves of `usages`' APIs need to be seen: what the notebook's own
/// inference indexes (its distributions, the releases its pins hinge on), then [`prepare`]
/// (the releases around each used API's disappearance, the newest introspected where static
/// reading cannot tell, within `introspect_within`). The inference finding no answer changes
/// nothing here: it is said, and the rest goes on.
pub fn index_evidence(
    session: &crate::resolve::session::InferSession,
    options: &crate::resolve::options::InferOptions,
    usages: &[(String, crate::notebook::Usage)],
    run: crate::resolve::session::InferRun<'_>,
    introspect_within: std::time::Duration,
    reporter: &dyn crate::reporter::Reporter,
) -> Result<Prepared, PrepareError> {
    if let Err(e) =
        crate::resolve::session::infer_usages_with(options, session, usages, &[], run, reporter)
    {
        match e {
            crate::resolve::session::SessionError::OutOfTime => {
                return Err(PrepareError::OutOfTime)
            }
            crate::resolve::session::SessionError::Interrupted { .. } => {
                return Err(PrepareError::Interrupted)
            }
            e => reporter.warn(&format!("the notebook's own inference: {e}"), None),
        }
    }
    let config = session.introspect_config(Some(introspect_within), reporter);
    let mut apis: Vec<ApiPath> = usages
        .iter()
        .flat_map(|(_, u)| &u.apis)
        .filter(|u| u.origin == crate::notebook::Origin::ThirdParty)
        .map(|u| u.api.clone())
        .collect();
    if session.bank_file.exists() {
        let store = crate::bank::store::Store::open_read_only(&session.bank_file)?;
        for (_, usage) in usages {
            for path in member_paths(&store, usage)? {
                if !apis.contains(&path) {
                    apis.push(path);
                }
            }
        }
    }
    let mut work = OnIndex {
        client: &session.client,
        bank: &session.bank_file,
        introspect: &config,
        reporter,
    };
    let done = prepare(&apis, &mut work, PREPARE_ROUNDS)?;
    // What replaced each removed API, in its library's own words.
    read_notes(&apis, &mut work)?;
    // Where its own releases forwarded it: the newest release of the distribution there.
    let forwarded: Vec<crate::bank::indexer::BuildTarget> = forwarded_providers(session, &apis)?
        .into_iter()
        .map(|name| crate::bank::indexer::BuildTarget {
            name,
            selection: crate::bank::indexer::Selection::Latest(1),
        })
        .collect();
    if !forwarded.is_empty() {
        work.build(&forwarded)?;
    }
    if done.rounds > 0 {
        // What a job remembered of the bank is stale now.
        if let Some(remembered) = run.bank {
            remembered.forget();
        }
        reporter.note(
            &format!(
                "indexed {} and introspected {} to see where the notebook's APIs went",
                crate::reporter::count(done.indexed, "release", "releases"),
                crate::reporter::count(done.introspected, "release", "releases"),
            ),
            None,
        );
    }
    Ok(done)
}

/// The distributions providing the modules that removed APIs among `apis` were forwarded to
/// by their own last releases (see [`super::mirror`]): by the bank's word on who installs the
/// module, else nbenv's package list, else the index (a project of a conventional name whose
/// newest wheel installs it).
fn forwarded_providers(
    session: &crate::resolve::session::InferSession,
    apis: &[ApiPath],
) -> Result<BTreeSet<DistName>, PrepareError> {
    use crate::resolve::evidence::{IndexLookup, Sources};
    if !session.bank_file.exists() {
        return Ok(BTreeSet::new());
    }
    let store = crate::bank::store::Store::open_read_only(&session.bank_file)?;
    let mut mirrors_of: std::collections::BTreeMap<DistName, Vec<crate::bank::store::Mirrored>> =
        Default::default();
    let mut modules: BTreeSet<crate::names::ModulePath> = BTreeSet::new();
    for api in apis {
        for r in store.query_api(api.as_str())? {
            if !super::facts::gone(&r) {
                continue;
            }
            let mirrors = match mirrors_of.entry(r.distribution.clone()) {
                std::collections::btree_map::Entry::Occupied(e) => e.into_mut(),
                std::collections::btree_map::Entry::Vacant(e) => {
                    e.insert(store.mirrors(&r.distribution)?)
                }
            };
            if let Some((mirrored, _)) = super::mirror::mirror_of(mirrors, api) {
                modules.extend(crate::names::ModulePath::new(mirrored.mirror.as_str()).ok());
            }
        }
    }
    let on_index = crate::resolve::index_providers::IndexProviders::new(&session.client);
    let mut out = BTreeSet::new();
    for module in modules {
        let top = module.top_level();
        let mut found: Vec<DistName> = store
            .import_providers(top)?
            .into_iter()
            .map(|p| p.dist)
            .collect();
        if found.is_empty() {
            let listed = Sources::built_in().listed_providers(top);
            found = listed.into_iter().map(|(d, _, _)| d).collect();
        }
        if found.is_empty() && !session.offline {
            // A lookup that fails leaves the forwarding unseen; the plan says so.
            found = on_index.providers_on_index(&module).unwrap_or_default();
        }
        out.extend(found);
    }
    Ok(out)
}

/// Paths each method the code calls on a library's value may be, as far as the bank knows
/// them now: the class's own member for an instance of a class (`np.ndarray(...).as_list`),
/// else the few shortest public members of that name of the distribution's classes
/// (`pandas.DataFrame.as_matrix` for `pd.read_csv(...).as_matrix()`).
fn member_paths(
    store: &crate::bank::store::Store,
    usage: &crate::notebook::Usage,
) -> Result<Vec<ApiPath>, PrepareError> {
    /// Classes per member name looked at: enough for a distribution's main types.
    const PER_MEMBER: usize = 4;
    let mut out = Vec::new();
    for m in usage.members.iter().filter(|m| m.called) {
        let crate::notebook::Receiver::DerivedFrom(from) = &m.receiver else {
            continue;
        };
        let reports = store.query_api(from.as_str())?;
        if reports
            .iter()
            .any(|r| r.kind == crate::bank::flow::ApiKind::Class)
        {
            out.extend(ApiPath::new(&format!("{from}.{}", m.member)).ok());
            continue;
        }
        for r in &reports {
            out.extend(store.class_members_named(&r.distribution, &m.member, PER_MEMBER)?);
        }
    }
    Ok(out)
}

/// Preparing for real: the bank at `bank`, releases from `client`'s index, introspected as
/// `introspect` says, progress through `reporter`.
pub struct OnIndex<'a> {
    pub client: &'a crate::pypi::IndexClient,
    pub bank: &'a std::path::Path,
    pub introspect: &'a crate::bank::introspect::IntrospectConfig,
    pub reporter: &'a dyn crate::reporter::Reporter,
}

#[derive(Debug, thiserror::Error)]
pub enum PrepareError {
    #[error(transparent)]
    Store(#[from] crate::bank::store::StoreError),
    #[error(transparent)]
    Index(#[from] crate::bank::indexer::IndexError),
    #[error("out of time before the evidence was indexed")]
    OutOfTime,
    #[error("stopped before the evidence was indexed")]
    Interrupted,
}

fn targets(releases: &[(DistName, Version)]) -> Vec<crate::bank::indexer::BuildTarget> {
    let mut by_dist: std::collections::BTreeMap<&DistName, Vec<Version>> = Default::default();
    for (d, v) in releases {
        by_dist.entry(d).or_default().push(v.clone());
    }
    by_dist
        .into_iter()
        .map(|(name, versions)| crate::bank::indexer::BuildTarget {
            name: name.clone(),
            selection: crate::bank::indexer::Selection::Exact(versions),
        })
        .collect()
}

impl OnIndex<'_> {
    /// Indexes what `targets` select.
    fn build(&self, targets: &[crate::bank::indexer::BuildTarget]) -> Result<(), PrepareError> {
        crate::bank::indexer::build_reported(
            self.client,
            self.bank,
            targets,
            &crate::bank::indexer::BuildOptions::default(),
            self.reporter,
        )?;
        Ok(())
    }
}

impl BankWork for OnIndex<'_> {
    type Error = PrepareError;

    fn reports(&mut self, api: &ApiPath) -> Result<Vec<ApiReport>, PrepareError> {
        let store = crate::bank::store::Store::open_read_only(self.bank)?;
        Ok(store.query_api(api.as_str())?)
    }

    fn index(&mut self, releases: &[(DistName, Version)]) -> Result<(), PrepareError> {
        self.build(&targets(releases))
    }

    /// A release whose sdist cannot be read for notes (none, too large, or holding no notes
    /// files) is followed by the newest release's; what cannot be fetched is said, and the
    /// rest goes on.
    fn read_notes(&mut self, releases: &[(DistName, Version)]) -> Result<(), PrepareError> {
        use crate::bank::indexer::{read_notes, NotesAt, NotesError};
        for (dist, version) in releases {
            let mut at = NotesAt::Release(version.clone());
            loop {
                match read_notes(self.client, self.bank, dist, &at, false) {
                    Ok(kept) if kept.files == 0 && at != NotesAt::Newest => at = NotesAt::Newest,
                    Ok(_) => break,
                    Err(NotesError::Store(e)) => return Err(e.into()),
                    Err(e) => {
                        self.reporter
                            .warn(&format!("change notes of {dist}: {e}"), None);
                        break;
                    }
                }
            }
        }
        Ok(())
    }

    fn introspect(&mut self, releases: &[(DistName, Version)]) -> Result<(), PrepareError> {
        crate::bank::introspect::introspect_reported(
            self.client,
            self.bank,
            &targets(releases),
            self.introspect,
            self.reporter,
        )?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::str::FromStr;

    use super::*;
    use crate::bank::flow::ApiKind;

    fn v(s: &str) -> Version {
        Version::from_str(s).unwrap()
    }

    fn dist() -> DistName {
        DistName::new("toolkit").unwrap()
    }

    /// A fake index of releases 1.0 … 1.N whose API is present up to `last_with` and
    /// absent after, except the newest, which static reading cannot see through until
    /// introspected when `newest_unknown`.
    struct Fake {
        versions: Vec<Version>,
        last_with: Version,
        newest_unknown: bool,
        /// The release after the last with the API is unknown until introspected (then
        /// absent).
        next_unknown: bool,
        indexed: BTreeSet<Version>,
        introspected: BTreeSet<Version>,
        calls: usize,
        notes_read: Vec<Version>,
    }

    impl Fake {
        fn new(n: u32, last_with: u32, newest_unknown: bool) -> Self {
            let versions: Vec<Version> = (0..=n).map(|i| v(&format!("1.{i}"))).collect();
            let indexed = BTreeSet::from([versions[0].clone(), versions[n as usize].clone()]);
            Fake {
                last_with: v(&format!("1.{last_with}")),
                versions,
                newest_unknown,
                next_unknown: false,
                indexed,
                introspected: BTreeSet::new(),
                calls: 0,
                notes_read: Vec::new(),
            }
        }
    }

    fn runs(vs: &[&Version]) -> Vec<VersionRun> {
        vs.iter()
            .map(|v| VersionRun {
                first: (*v).clone(),
                last: (*v).clone(),
            })
            .collect()
    }

    impl BankWork for Fake {
        type Error = ();
        fn reports(&mut self, api: &ApiPath) -> Result<Vec<ApiReport>, ()> {
            let newest = self.versions.last().unwrap();
            let seen: BTreeMap<&Version, u8> = self
                .indexed
                .iter()
                .map(|x| {
                    let next = self.versions.iter().find(|v| **v > self.last_with);
                    let unknown = (x == newest && self.newest_unknown)
                        || (Some(x) == next && self.next_unknown);
                    let state = if *x <= self.last_with {
                        0
                    } else if unknown && !self.introspected.contains(x) {
                        1
                    } else {
                        2
                    };
                    (x, state)
                })
                .collect();
            let pick = |s: u8| -> Vec<&Version> {
                seen.iter()
                    .filter(|(_, t)| **t == s)
                    .map(|(x, _)| *x)
                    .collect()
            };
            let present = runs(&pick(0));
            Ok(vec![ApiReport {
                distribution: dist(),
                display_name: None,
                path: api.to_string(),
                kind: ApiKind::Function,
                indexed_releases: self.indexed.len(),
                first: present.first().map(|r| r.first.clone()),
                last: present.last().map(|r| r.last.clone()),
                present: present.clone(),
                unknown: runs(&pick(1)),
                absent: runs(&pick(2)),
                not_indexed: self
                    .versions
                    .iter()
                    .filter(|x| !self.indexed.contains(*x))
                    .cloned()
                    .collect(),
                latest_indexed: Some(newest.clone()),
                static_present: present,
                runtime_present: vec![],
                unknown_through: vec![],
                raising_modules: vec![],
                canonical: vec![],
                signature_changes: vec![],
            }])
        }
        fn read_notes(&mut self, releases: &[(DistName, Version)]) -> Result<(), ()> {
            self.notes_read
                .extend(releases.iter().map(|(_, x)| x.clone()));
            Ok(())
        }
        fn index(&mut self, releases: &[(DistName, Version)]) -> Result<(), ()> {
            self.calls += 1;
            self.indexed.extend(releases.iter().map(|(_, x)| x.clone()));
            Ok(())
        }
        fn introspect(&mut self, releases: &[(DistName, Version)]) -> Result<(), ()> {
            self.introspected
                .extend(releases.iter().map(|(_, x)| x.clone()));
            Ok(())
        }
    }

    fn api() -> Vec<ApiPath> {
        vec![ApiPath::new("toolkit.old").unwrap()]
    }

    /// Whether the bank now has the last release with the API and the next one indexed.
    fn bracketed(f: &Fake) -> bool {
        let i = f.versions.iter().position(|x| *x == f.last_with).unwrap();
        f.indexed.contains(&f.versions[i]) && f.indexed.contains(&f.versions[i + 1])
    }

    #[test]
    fn a_removal_is_bracketed_by_bisection() {
        let mut f = Fake::new(64, 37, false);
        let done = prepare(&api(), &mut f, 20).unwrap();
        assert!(bracketed(&f), "{:?}", f.indexed);
        // One release per round, about log2(64) rounds.
        assert!(done.rounds <= 7, "{done:?}");
        assert_eq!(done.indexed, done.rounds);
        assert_eq!(done.introspected, 0);
    }

    #[test]
    fn the_notes_read_are_the_removal_releases_once_bracketed() {
        let mut f = Fake::new(64, 37, false);
        // Not bracketed yet: nothing to read.
        assert_eq!(read_notes(&api(), &mut f).unwrap(), 0);
        prepare(&api(), &mut f, 20).unwrap();
        assert_eq!(read_notes(&api(), &mut f).unwrap(), 1);
        assert_eq!(f.notes_read, [v("1.38")]);
        // An API still in the newest release has no removal to read about.
        let mut kept = Fake::new(8, 8, false);
        assert_eq!(read_notes(&api(), &mut kept).unwrap(), 0);
    }

    #[test]
    fn an_unknown_newest_release_is_introspected_first_and_once() {
        let mut f = Fake::new(8, 3, true);
        let done = prepare(&api(), &mut f, 20).unwrap();
        assert_eq!(done.introspected, 1);
        assert!(bracketed(&f));
    }

    #[test]
    fn an_introspection_that_settles_nothing_is_not_repeated() {
        let mut f = Fake::new(8, 3, true);
        struct Stubborn<'a>(&'a mut Fake);
        impl BankWork for Stubborn<'_> {
            type Error = ();
            fn reports(&mut self, api: &ApiPath) -> Result<Vec<ApiReport>, ()> {
                self.0.reports(api)
            }
            fn index(&mut self, r: &[(DistName, Version)]) -> Result<(), ()> {
                self.0.index(r)
            }
            fn read_notes(&mut self, r: &[(DistName, Version)]) -> Result<(), ()> {
                self.0.read_notes(r)
            }
            fn introspect(&mut self, _: &[(DistName, Version)]) -> Result<(), ()> {
                Ok(())
            }
        }
        let done = prepare(&api(), &mut Stubborn(&mut f), 20).unwrap();
        assert_eq!(
            done,
            Prepared {
                indexed: 0,
                introspected: 1,
                rounds: 1
            }
        );
    }

    /// The release after the last with the API, which static reading cannot settle, is
    /// introspected once it is indexed.
    #[test]
    fn an_unknown_release_after_the_last_with_it_is_introspected() {
        let mut f = Fake::new(16, 9, false);
        f.next_unknown = true;
        let done = prepare(&api(), &mut f, 20).unwrap();
        assert!(bracketed(&f), "{:?}", f.indexed);
        assert_eq!(done.introspected, 1, "{done:?}");
        assert_eq!(f.introspected, BTreeSet::from([v("1.10")]));
    }

    #[test]
    fn an_api_still_in_the_newest_release_wants_nothing() {
        let mut f = Fake::new(8, 8, false);
        assert_eq!(prepare(&api(), &mut f, 20).unwrap(), Prepared::default());
    }

    #[test]
    fn the_rounds_are_bounded() {
        let mut f = Fake::new(1000, 500, false);
        let done = prepare(&api(), &mut f, 3).unwrap();
        assert_eq!(done.rounds, 3);
        assert_eq!(f.calls, 3);
    }
}
