//! The fixed point: what every name of every module of a release denotes.
//!
//! Each module's namespace is recomputed from its bindings and from the current namespaces of
//! the modules it imports, pass after pass, until a pass changes nothing. Cycles are safe by
//! construction: a name only gets a value from a definition somewhere, so two modules that
//! import a name from each other and define it nowhere leave it unbound instead of looping.

use std::collections::{HashMap, HashSet};

use crate::bank::extract::{is_private, AllNames, Binding, FileSummary};
use crate::names::ModulePath;

use super::input::{InputSource, ReleaseInput};
use super::relative::absolute_module;

pub(crate) type ModId = u32;

/// Passes after which the flow stops even if namespaces still change.
const MAX_PASSES: usize = 64;

/// A definition: binding `binding` of module `module`'s summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct DefRef {
    pub module: ModId,
    pub binding: u32,
}

/// What a name denotes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Target {
    /// A function, class or variable defined in this release.
    Def(DefRef),
    Module(ModId),
    /// A name inside a compiled module, or only known from `__all__`: its dotted path.
    Opaque(String),
    /// An object of another distribution: its dotted path. Never followed.
    External(String),
}

/// How a name got into a namespace; star imports without `__all__` take only some origins.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Origin {
    Explicit,
    Star,
    /// Listed in `__all__` with no binding in sight.
    AllOnly,
    /// A submodule, as an attribute of its package.
    Submodule,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Bound {
    pub target: Target,
    pub origin: Origin,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Namespace {
    pub names: HashMap<String, Bound>,
    /// `__all__` as resolved (includes of other modules' `__all__` expanded).
    pub all: Option<Vec<String>>,
}

/// Where an import points.
#[derive(Debug, Clone)]
enum Source {
    Module(ModId),
    /// Inside a compiled module, at this dotted path.
    InsideOpaque(String),
    External(String),
    /// Under a module of this release but not found: binds nothing.
    Missing,
}

#[derive(Debug, Clone)]
enum Candidate<'a> {
    /// A function or class statement.
    Def,
    Variable {
        alias_of: Option<&'a str>,
    },
    /// `import a.b` / `import a.b as c`.
    ImportModule(Source),
    ImportName {
        from: Source,
        name: &'a str,
    },
}

/// A module's bindings, sorted for the solver.
#[derive(Debug, Default)]
struct Prepared<'a> {
    /// Per name, the candidate bindings in priority order: main-line bindings last first, then
    /// fallbacks (except handlers, else branches) in source order.
    candidates: Vec<(&'a str, Vec<(u32, Candidate<'a>)>)>,
    /// Star imports, last first, with their binding index.
    stars: Vec<(u32, Source)>,
    /// The index of the last main-line `del` of each name.
    deleted: HashMap<&'a str, u32>,
}

pub(crate) struct ModuleInfo<'a> {
    pub path: ModulePath,
    pub is_package: bool,
    pub source: InputSource<'a>,
    /// Direct submodules by name.
    pub children: Vec<(String, ModId)>,
    prepared: Prepared<'a>,
}

impl<'a> ModuleInfo<'a> {
    pub fn summary(&self) -> Option<&'a FileSummary> {
        match self.source {
            InputSource::Source { summary, .. } => Some(summary),
            _ => None,
        }
    }
}

pub(crate) struct Solver<'a> {
    pub modules: Vec<ModuleInfo<'a>>,
    pub by_path: HashMap<String, ModId>,
    pub namespaces: Vec<Namespace>,
    pub passes: usize,
    pub converged: bool,
}

impl<'a> Solver<'a> {
    pub fn new(input: &ReleaseInput<'a>) -> Self {
        let mut modules: Vec<ModuleInfo<'a>> = input
            .modules
            .iter()
            .map(|(path, m)| ModuleInfo {
                path: path.clone(),
                is_package: m.is_package,
                source: m.source,
                children: Vec::new(),
                prepared: Prepared::default(),
            })
            .collect();
        let by_path: HashMap<String, ModId> = modules
            .iter()
            .enumerate()
            .map(|(i, m)| (m.path.as_str().to_string(), i as ModId))
            .collect();
        for i in 0..modules.len() {
            if let Some(parent) = modules[i].path.parent() {
                if let Some(&p) = by_path.get(parent.as_str()) {
                    let name = modules[i].path.name().to_string();
                    modules[p as usize].children.push((name, i as ModId));
                }
            }
        }
        let mut solver = Self {
            namespaces: vec![Namespace::default(); modules.len()],
            modules,
            by_path,
            passes: 0,
            converged: false,
        };
        for i in 0..solver.modules.len() {
            solver.modules[i].prepared = solver.prepare(i as ModId);
        }
        solver
    }

    pub fn module(&self, id: ModId) -> &ModuleInfo<'a> {
        &self.modules[id as usize]
    }

    pub fn namespace(&self, id: ModId) -> &Namespace {
        &self.namespaces[id as usize]
    }

    /// Iterates to the fixed point. Modules are visited deepest path first, which is the
    /// direction most re-export chains run (`pandas` ← `pandas.core.api` ← `pandas.core.frame`),
    /// so most releases settle in a few passes.
    pub fn solve(&mut self) {
        let order: Vec<ModId> = (0..self.modules.len() as ModId).rev().collect();
        while self.passes < MAX_PASSES {
            self.passes += 1;
            let mut changed = false;
            for &id in &order {
                let next = self.compute(id);
                if next != self.namespaces[id as usize] {
                    self.namespaces[id as usize] = next;
                    changed = true;
                }
            }
            if !changed {
                self.converged = true;
                return;
            }
        }
    }

    /// Resolves an absolute module path to what an import of it reaches.
    fn source_for(&self, path: &str) -> Source {
        if let Some(&id) = self.by_path.get(path) {
            return Source::Module(id);
        }
        // The longest prefix this release has decides: inside a compiled module, the name is
        // opaque; under a regular module, it is missing; under a namespace package (which other
        // distributions may share) or nothing, it belongs to another distribution.
        let mut prefix = path;
        while let Some((head, _)) = prefix.rsplit_once('.') {
            prefix = head;
            if let Some(&id) = self.by_path.get(prefix) {
                return match self.modules[id as usize].source {
                    InputSource::Opaque => Source::InsideOpaque(path.to_string()),
                    InputSource::Namespace => Source::External(path.to_string()),
                    InputSource::Source { .. } => Source::Missing,
                };
            }
        }
        Source::External(path.to_string())
    }

    fn prepare(&self, id: ModId) -> Prepared<'a> {
        let module = &self.modules[id as usize];
        let Some(summary) = module.summary() else {
            return Prepared::default();
        };
        let mut prepared = Prepared::default();
        for (i, binding) in summary.bindings.iter().enumerate() {
            if let Binding::Delete(names) = binding {
                if !summary.is_fallback(i) {
                    for name in names {
                        prepared.deleted.insert(name.as_str(), i as u32);
                    }
                }
            }
        }
        let mut main: HashMap<&'a str, Vec<(u32, Candidate<'a>)>> = HashMap::new();
        let mut fallback: HashMap<&'a str, Vec<(u32, Candidate<'a>)>> = HashMap::new();
        let mut order: Vec<&'a str> = Vec::new();
        for (i, binding) in summary.bindings.iter().enumerate() {
            let index = i as u32;
            let mut found: Vec<(&'a str, Candidate<'a>)> = Vec::new();
            match binding {
                Binding::Function(f) => found.push((&f.name, Candidate::Def)),
                Binding::Class(c) => found.push((&c.name, Candidate::Def)),
                Binding::Variable(v) => found.push((
                    &v.name,
                    Candidate::Variable {
                        alias_of: v.alias_of.as_deref(),
                    },
                )),
                Binding::Import(import) => {
                    let bound = match &import.asname {
                        Some(_) => import.module.as_str(),
                        None => import.bound_name(),
                    };
                    found.push((
                        import.bound_name(),
                        Candidate::ImportModule(self.source_for(bound)),
                    ));
                }
                Binding::ImportFrom(from) => {
                    let Some(absolute) = absolute_module(
                        &module.path,
                        module.is_package,
                        from.level,
                        from.module.as_deref(),
                    ) else {
                        continue;
                    };
                    let source = self.source_for(&absolute);
                    for name in &from.names {
                        if name.name == "*" {
                            prepared.stars.push((index, source.clone()));
                        } else {
                            found.push((
                                name.bound_name(),
                                Candidate::ImportName {
                                    from: source.clone(),
                                    name: &name.name,
                                },
                            ));
                        }
                    }
                }
                Binding::Delete(_) => {}
            }
            let is_fallback = summary.is_fallback(i);
            for (name, candidate) in found {
                if prepared.deleted.get(name).is_some_and(|&d| d > index) {
                    continue;
                }
                if !main.contains_key(name) && !fallback.contains_key(name) {
                    order.push(name);
                }
                let table = if is_fallback {
                    &mut fallback
                } else {
                    &mut main
                };
                table.entry(name).or_default().push((index, candidate));
            }
        }
        for name in order {
            let mut list = main.remove(name).unwrap_or_default();
            list.reverse();
            list.extend(fallback.remove(name).unwrap_or_default());
            prepared.candidates.push((name, list));
        }
        prepared.stars.reverse();
        prepared
    }

    /// One module's namespace, from the current namespaces of the others.
    fn compute(&self, id: ModId) -> Namespace {
        let module = &self.modules[id as usize];
        let prepared = &module.prepared;
        let summary = module.summary();
        let mut names: HashMap<String, Bound> =
            HashMap::with_capacity(prepared.candidates.len() + module.children.len());

        let all = summary
            .and_then(|s| s.all.as_ref())
            .map(|all| self.resolve_all(id, all));

        for (name, candidates) in &prepared.candidates {
            for (index, candidate) in candidates {
                if let Some(target) = self.resolve_candidate(id, *index, candidate) {
                    names.insert(
                        (*name).to_string(),
                        Bound {
                            target,
                            origin: Origin::Explicit,
                        },
                    );
                    break;
                }
            }
        }

        let mut opaque_stars: Vec<&str> = Vec::new();
        for (index, source) in &prepared.stars {
            match source {
                Source::Module(from) => {
                    if matches!(self.modules[*from as usize].source, InputSource::Opaque) {
                        opaque_stars.push(self.modules[*from as usize].path.as_str());
                        continue;
                    }
                    self.for_each_star_export(*from, |name, target| {
                        if names.contains_key(name)
                            || prepared.deleted.get(name).is_some_and(|d| d > index)
                        {
                            return;
                        }
                        names.insert(
                            name.to_string(),
                            Bound {
                                target: target.clone(),
                                origin: Origin::Star,
                            },
                        );
                    });
                }
                Source::InsideOpaque(path) => opaque_stars.push(path),
                Source::External(_) | Source::Missing => {}
            }
        }

        if let Some(all) = &all {
            for name in all {
                if names.contains_key(name.as_str()) {
                    continue;
                }
                let target = match module.children.iter().find(|(n, _)| n == name) {
                    Some((_, child)) => Target::Module(*child),
                    None => match opaque_stars[..] {
                        // The only place the name can come from.
                        [single] => Target::Opaque(format!("{single}.{name}")),
                        _ => Target::Opaque(format!("{}.{name}", module.path.as_str())),
                    },
                };
                names.insert(
                    name.clone(),
                    Bound {
                        target,
                        origin: Origin::AllOnly,
                    },
                );
            }
        }

        for (name, child) in &module.children {
            names.entry(name.clone()).or_insert(Bound {
                target: Target::Module(*child),
                origin: Origin::Submodule,
            });
        }
        Namespace { names, all }
    }

    fn resolve_candidate(
        &self,
        id: ModId,
        index: u32,
        candidate: &Candidate<'a>,
    ) -> Option<Target> {
        let here = Target::Def(DefRef {
            module: id,
            binding: index,
        });
        match candidate {
            Candidate::Def => Some(here),
            Candidate::Variable { alias_of } => {
                // `DataFrame = frame.DataFrame` is an alias of what it names in this release;
                // `read_csv = _make_parser(...)` or `float = float` is an attribute defined here.
                let aliased = alias_of
                    .and_then(|a| self.resolve_dotted(id, a))
                    .filter(|t| {
                        matches!(t, Target::Def(_) | Target::Module(_) | Target::Opaque(_))
                    });
                Some(aliased.unwrap_or(here))
            }
            Candidate::ImportModule(source) => match source {
                Source::Module(m) => Some(Target::Module(*m)),
                Source::InsideOpaque(p) => Some(Target::Opaque(p.clone())),
                Source::External(p) => Some(Target::External(p.clone())),
                Source::Missing => None,
            },
            Candidate::ImportName { from, name } => self.attribute_of(from, name),
        }
    }

    fn attribute_of(&self, source: &Source, name: &str) -> Option<Target> {
        match source {
            Source::Module(m) => self.attribute(*m, name),
            Source::InsideOpaque(p) => Some(Target::Opaque(format!("{p}.{name}"))),
            Source::External(p) => Some(Target::External(format!("{p}.{name}"))),
            Source::Missing => None,
        }
    }

    /// `module.name` as Python's attribute lookup sees it (submodules included).
    pub fn attribute(&self, module: ModId, name: &str) -> Option<Target> {
        if let Some(bound) = self.namespaces[module as usize].names.get(name) {
            return Some(bound.target.clone());
        }
        let info = &self.modules[module as usize];
        match info.source {
            InputSource::Opaque => Some(Target::Opaque(format!("{}.{name}", info.path.as_str()))),
            _ => None,
        }
    }

    /// What `a.b.c`, written in `module`, denotes.
    pub fn resolve_dotted(&self, module: ModId, dotted: &str) -> Option<Target> {
        let mut segments = dotted.split('.');
        let first = segments.next()?;
        let mut target = self.namespaces[module as usize]
            .names
            .get(first)?
            .target
            .clone();
        for segment in segments {
            target = match target {
                Target::Module(m) => self.attribute(m, segment)?,
                Target::Opaque(p) => Target::Opaque(format!("{p}.{segment}")),
                Target::External(p) => Target::External(format!("{p}.{segment}")),
                Target::Def(_) => return None,
            };
        }
        Some(target)
    }

    /// `__all__` with its `other.__all__` includes expanded from the current namespaces.
    fn resolve_all(&self, id: ModId, all: &AllNames) -> Vec<String> {
        let mut out: Vec<String> = Vec::with_capacity(all.names.len());
        let mut seen: HashSet<&str> = HashSet::with_capacity(all.names.len());
        let valid = |n: &str| ModulePath::new(n).is_ok() && !n.contains('.');
        for name in &all.names {
            if valid(name) && seen.insert(name) {
                out.push(name.clone());
            }
        }
        for include in &all.includes {
            if let Some(Target::Module(m)) = self.resolve_dotted(id, include) {
                if let Some(other) = &self.namespaces[m as usize].all {
                    for name in other {
                        if seen.insert(name) {
                            out.push(name.clone());
                        }
                    }
                }
            }
        }
        if !all.removed.is_empty() {
            out.retain(|n| !all.removed.contains(n));
        }
        out
    }

    /// The names `from module import *` binds, with what they denote: `__all__` if the module
    /// sets one (plus public names if part of it is dynamic), else its public names.
    fn for_each_star_export(&self, module: ModId, mut f: impl FnMut(&str, &Target)) {
        let ns = &self.namespaces[module as usize];
        let dynamic_all = self.modules[module as usize]
            .summary()
            .and_then(|s| s.all.as_ref())
            .is_some_and(|a| a.dynamic);
        if let Some(all) = &ns.all {
            for name in all {
                if let Some(bound) = ns.names.get(name) {
                    f(name, &bound.target);
                }
            }
            if !dynamic_all {
                return;
            }
        }
        for (name, bound) in &ns.names {
            if !is_private(name) && bound.origin != Origin::Submodule {
                f(name, &bound.target);
            }
        }
    }
}
