//! Finding an API across releases the way Python finds an attribute: a member is stored once,
//! under the class that defines it, and reached through aliases of the modules and classes in
//! its path and through base classes, each link with its own set of releases.
//!
//! `pandas.DataFrame.ix` in pandas 0.25 is `pandas.DataFrame` (an alias of
//! `pandas.core.frame.DataFrame`), whose base `pandas.core.generic.NDFrame` has `ix`: the
//! releases that have it are those where every link of that chain holds.
//!
//! Where a path is not found, the name it passes through decides between absent and unknown:
//! under a module with `__getattr__`, a lazy module, another distribution's object, a class
//! with a base outside the release, static reading cannot list every name, so a name not found
//! there is unknown, unless introspection imported and listed that module in that release.

use std::collections::{HashMap, HashSet};

use super::path_index::PathIndex;
use super::release_set::ReleaseSet;
use super::seal::{select_sealed, SealedTable, ALIASES, APIS, CLASS_BASES, MODULES};
use super::{DistId, Store, StoreError};
use crate::bank::flow::ApiKind;

/// One row of `apis`.
#[derive(Debug, Clone)]
pub(crate) struct ApiRowInfo {
    pub id: i64,
    pub kind: ApiKind,
    pub static_set: ReleaseSet,
    pub runtime_set: ReleaseSet,
    pub open_set: ReleaseSet,
}

impl ApiRowInfo {
    pub fn presence(&self) -> ReleaseSet {
        self.static_set.union(&self.runtime_set)
    }
}

/// What the modules table says of one module, beyond its presence.
#[derive(Debug, Clone, Default)]
pub(crate) struct ModuleFacts {
    /// Imported and listed by introspection: a name not found there is absent.
    pub listed: ReleaseSet,
    /// Its `__path__` is changed: submodules may come from elsewhere.
    pub extends_path: ReleaseSet,
    /// Importing it raises, with the message.
    pub raises: ReleaseSet,
    pub raises_message: Option<String>,
}

/// Where an API is found, release by release.
#[derive(Debug, Clone, Default)]
pub(crate) struct Resolved {
    pub static_set: ReleaseSet,
    pub runtime_set: ReleaseSet,
    /// The defining rows (id, path) and the releases in which each is the definition.
    pub definitions: Vec<(i64, String, ReleaseSet)>,
    /// Names along the path that static reading cannot see through, with the releases where
    /// each leaves the path possible (the path may be found in some of them).
    pub open: Vec<(String, ReleaseSet)>,
}

impl Resolved {
    pub fn presence(&self) -> ReleaseSet {
        self.static_set.union(&self.runtime_set)
    }

    /// Releases where the path is neither found nor ruled out.
    pub fn unknown(&self) -> ReleaseSet {
        let presence = self.presence();
        self.open
            .iter()
            .fold(ReleaseSet::new(), |acc, (_, set)| acc.union(set))
            .difference(&presence)
    }

    fn add_definition(&mut self, id: i64, path: &str, releases: &ReleaseSet) {
        if releases.is_empty() {
            return;
        }
        match self.definitions.iter_mut().find(|(i, _, _)| *i == id) {
            Some((_, _, s)) => *s = s.union(releases),
            None => self
                .definitions
                .push((id, path.to_string(), releases.clone())),
        }
    }

    fn add_open(&mut self, through: &str, releases: &ReleaseSet) {
        if releases.is_empty() {
            return;
        }
        match self.open.iter_mut().find(|(p, _)| p == through) {
            Some((_, s)) => *s = s.union(releases),
            None => self.open.push((through.to_string(), releases.clone())),
        }
    }

    /// Takes in what `other` finds, for the releases in `through` (where the link holds).
    fn absorb(&mut self, other: &Resolved, through: &ReleaseSet) {
        self.static_set = self
            .static_set
            .union(&other.static_set.intersection(through));
        self.runtime_set = self
            .runtime_set
            .union(&other.runtime_set.intersection(through));
        for (id, path, set) in &other.definitions {
            self.add_definition(*id, path, &set.intersection(through));
        }
        for (path, set) in &other.open {
            self.add_open(path, &set.intersection(through));
        }
    }
}

/// A link: (target id, target path, releases by either reading).
type Link = (i64, String, ReleaseSet);

/// What resolvers of one distribution looked up in the bank: rows, module facts and links by
/// path or id, answers that depend on nothing else. A store keeps them for the next resolver
/// of the distribution (until the bank changes): a notebook's questions resolve the same
/// prefixes and follow the same aliases again and again (`pandas.DataFrame`'s for each of its
/// members), one query each time before.
#[derive(Debug, Default)]
pub(crate) struct Lookups {
    rows: HashMap<String, Option<ApiRowInfo>>,
    modules: HashMap<String, ModuleFacts>,
    aliases: HashMap<i64, Vec<Link>>,
    bases: HashMap<i64, Vec<Link>>,
}

/// Resolves paths within one distribution, remembering what it has looked up.
pub(crate) struct Resolver<'s> {
    store: &'s Store,
    dist_id: DistId,
    paths: Option<std::rc::Rc<PathIndex>>,
    lookups: std::rc::Rc<std::cell::RefCell<Lookups>>,
    memo: HashMap<String, Resolved>,
    in_progress: HashSet<String>,
}

const MAX_DEPTH: usize = 16;

impl<'s> Resolver<'s> {
    pub fn new(store: &'s Store, dist_id: DistId) -> Self {
        Self {
            store,
            dist_id,
            paths: None,
            lookups: store.lookups(dist_id),
            memo: HashMap::new(),
            in_progress: HashSet::new(),
        }
    }

    fn paths(&mut self) -> Result<std::rc::Rc<PathIndex>, StoreError> {
        if self.paths.is_none() {
            self.paths = Some(self.store.path_index(self.dist_id)?);
        }
        Ok(self.paths.clone().expect("loaded above"))
    }

    pub fn row(&mut self, path: &str) -> Result<Option<ApiRowInfo>, StoreError> {
        if let Some(r) = self.lookups.borrow().rows.get(path) {
            return Ok(r.clone());
        }
        let Some(id) = self.paths()?.get(self.store, path)? else {
            self.lookups
                .borrow_mut()
                .rows
                .insert(path.to_string(), None);
            return Ok(None);
        };
        let store = self.store;
        let err = store.err();
        let mut stmt = store
            .conn()
            .prepare_cached(select_sealed!(apis, "WHERE id = ?1"))
            .map_err(&err)?;
        let mut rows = stmt.query([id]).map_err(&err)?;
        let row = match rows.next().map_err(&err)? {
            Some(r) => {
                store.check_seal(&APIS, r, 0)?;
                if r.get::<_, DistId>(1).map_err(&err)? != self.dist_id {
                    return Err(store.corrupt(format!(
                        "apis row (id {id}): another distribution's, found by {path}"
                    )));
                }
                Some(ApiRowInfo {
                    id,
                    kind: ApiKind::from_code(r.get(2).map_err(&err)?),
                    static_set: store.set_at(r, 3)?,
                    runtime_set: store.set_at(r, 4)?,
                    open_set: store.set_at(r, 5)?,
                })
            }
            None => None,
        };
        self.lookups
            .borrow_mut()
            .rows
            .insert(path.to_string(), row.clone());
        Ok(row)
    }

    /// What the modules table says of module `path` (nothing, for a path that is no module).
    pub fn module_facts(&mut self, path: &str) -> Result<ModuleFacts, StoreError> {
        if let Some(f) = self.lookups.borrow().modules.get(path) {
            return Ok(f.clone());
        }
        let store = self.store;
        let err = store.err();
        let mut stmt = store
            .conn()
            .prepare_cached(select_sealed!(modules, "WHERE dist_id = ?1 AND path = ?2"))
            .map_err(&err)?;
        let mut rows = stmt
            .query(rusqlite::params![self.dist_id, path])
            .map_err(&err)?;
        let facts = match rows.next().map_err(&err)? {
            Some(r) => {
                store.check_seal(&MODULES, r, 0)?;
                ModuleFacts {
                    listed: store.set_at(r, 9)?,
                    extends_path: store.set_at(r, 7)?,
                    raises: store.set_at(r, 5)?,
                    raises_message: r.get(6).map_err(&err)?,
                }
            }
            None => ModuleFacts::default(),
        };
        self.lookups
            .borrow_mut()
            .modules
            .insert(path.to_string(), facts.clone());
        Ok(facts)
    }

    /// (target id, target path, releases by either reading) for `sql`'s rows owned by `id`.
    fn links(&mut self, table: &SealedTable, sql: &str, id: i64) -> Result<Vec<Link>, StoreError> {
        let store = self.store;
        let err = store.err();
        let mut found: Vec<(i64, ReleaseSet)> = Vec::new();
        store.each_sealed(table, sql, [id], |r| {
            // A link holds in a release if either reading saw it.
            let set = store.set_at(r, 2)?.union(&store.set_at(r, 3)?);
            found.push((r.get(1).map_err(&err)?, set));
            Ok(())
        })?;
        let mut out = Vec::with_capacity(found.len());
        for (target, set) in found {
            let path = self
                .paths()?
                .path(store, target)?
                .ok_or_else(|| store.corrupt(format!("API {target} has no path")))?;
            out.push((target, path, set));
        }
        Ok(out)
    }

    fn aliases(&mut self, id: i64) -> Result<Vec<Link>, StoreError> {
        if let Some(found) = self.lookups.borrow().aliases.get(&id) {
            return Ok(found.clone());
        }
        let links = self.links(
            &ALIASES,
            "SELECT api_id, canonical_id, releases, runtime, seal FROM aliases WHERE api_id = ?1",
            id,
        )?;
        self.lookups.borrow_mut().aliases.insert(id, links.clone());
        Ok(links)
    }

    fn bases(&mut self, id: i64) -> Result<Vec<Link>, StoreError> {
        if let Some(found) = self.lookups.borrow().bases.get(&id) {
            return Ok(found.clone());
        }
        let links = self.links(
            &CLASS_BASES,
            "SELECT class_id, base_id, releases, runtime, seal FROM class_bases WHERE class_id = ?1",
            id,
        )?;
        self.lookups.borrow_mut().bases.insert(id, links.clone());
        Ok(links)
    }

    pub fn resolve(&mut self, path: &str) -> Result<Resolved, StoreError> {
        self.resolve_at(path, 0)
    }

    fn resolve_at(&mut self, path: &str, depth: usize) -> Result<Resolved, StoreError> {
        if let Some(r) = self.memo.get(path) {
            return Ok(r.clone());
        }
        if depth > MAX_DEPTH || !self.in_progress.insert(path.to_string()) {
            return Ok(Resolved::default());
        }
        let mut out = Resolved::default();
        if let Some(row) = self.row(path)? {
            out.static_set = row.static_set.clone();
            out.runtime_set = row.runtime_set.clone();
            let here = out.presence();
            let mut aliased = ReleaseSet::new();
            for (id, target, set) in self.aliases(row.id)? {
                // Where the link holds, this path's definition is its target's.
                let through = set.intersection(&here);
                let resolved = self.resolve_at(&target, depth + 1)?;
                if resolved.definitions.is_empty() {
                    out.add_definition(id, &target, &through);
                } else {
                    for (def_id, def_path, def_set) in &resolved.definitions {
                        out.add_definition(*def_id, def_path, &def_set.intersection(&through));
                    }
                }
                aliased = aliased.union(&set);
            }
            let own = here.difference(&aliased);
            out.add_definition(row.id, path, &own);
        }
        // A member is reached through the names its path is made of, longest first: each
        // prefix answers for the releases that have it and that no longer prefix answered for.
        // It follows the prefix's aliases and, for a class (or an instance of one), its bases;
        // as in Python, the class's own member wins, then each base in order: a link only
        // answers for the releases where nothing before it did. Where the prefix cannot be
        // seen through, the path is left open.
        // Only what static reading found of the path itself stops the walk: a member that a
        // class has at run time may still be inherited statically (pandas 2.0's
        // `DataFrame.sum`, `NDFrame.sum` to static reading), and both readings are shown.
        let mut decided = out.static_set.clone();
        let mut cut = path.len();
        while let Some(dot) = path[..cut].rfind('.') {
            cut = dot;
            let (prefix, rest) = (&path[..dot], &path[dot + 1..]);
            let Some(prow) = self.row(prefix)? else {
                continue;
            };
            let prefix_presence = prow.presence();
            let here = prefix_presence.difference(&decided);
            decided = decided.union(&prefix_presence);
            if here.is_empty() {
                continue;
            }
            let mut open = prow.open_set.intersection(&here);
            if prow.kind == ApiKind::Module {
                let facts = self.module_facts(prefix)?;
                if rest.contains('.') {
                    open = open.union(&facts.extends_path.intersection(&here));
                }
                open = open.difference(&facts.listed);
            }
            // A class that introspection found had its members listed (`dir` of the class
            // object): what it did not find there is absent, however the class got its
            // members (pandas 1.0's `DataFrame`, open to static reading).
            if prow.kind == ApiKind::Class {
                open = open.difference(&prow.runtime_set);
            }
            out.add_open(prefix, &open);
            if !matches!(
                prow.kind,
                ApiKind::Module | ApiKind::Class | ApiKind::Attribute | ApiKind::Unknown
            ) {
                continue;
            }
            let mut links = self.aliases(prow.id)?;
            if prow.kind != ApiKind::Module {
                links.extend(self.bases(prow.id)?);
            }
            for (_, target, set) in links {
                let through = set.intersection(&here).difference(&out.static_set);
                if through.is_empty() {
                    continue;
                }
                let sub = self.resolve_at(&format!("{target}.{rest}"), depth + 1)?;
                out.absorb(&sub, &through);
            }
        }
        self.in_progress.remove(path);
        self.memo.insert(path.to_string(), out.clone());
        Ok(out)
    }
}

impl Store {
    /// The distributions with a module that `path` is in (every API lives in a module of its
    /// distribution, so these are the only ones that can have it).
    pub(crate) fn candidate_distributions(&self, path: &str) -> Result<Vec<DistId>, StoreError> {
        let err = self.err();
        self.check_name_indexes()?;
        let mut stmt = self
            .conn()
            .prepare_cached("SELECT DISTINCT dist_id FROM modules WHERE path = ?1")
            .map_err(&err)?;
        let mut out: Vec<DistId> = Vec::new();
        let mut prefix = path;
        loop {
            let ids: Vec<DistId> = stmt
                .query_map([prefix], |r| r.get(0))
                .map_err(&err)?
                .collect::<Result<_, _>>()
                .map_err(&err)?;
            for id in ids {
                if !out.contains(&id) {
                    out.push(id);
                }
            }
            match prefix.rfind('.') {
                Some(dot) => prefix = &prefix[..dot],
                None => break,
            }
        }
        Ok(out)
    }
}
