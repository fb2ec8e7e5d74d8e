//! The fixed point: what every name of every module of a release denotes.
//!
//! Each module's namespace is recomputed from its statements and from the current namespaces
//! of the modules it imports, until nothing changes. Within a module the statements are swept
//! in source order, as Python runs them, so a name only ever refers to bindings before it;
//! across modules, a name only gets a value from a definition somewhere, so modules importing
//! a name from each other that neither defines leave it unbound instead of looping.
//!
//! Only modules whose inputs changed are recomputed: each computation records which other
//! namespaces it read, and a module is queued again when one of those changes.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet, VecDeque};
use std::rc::Rc;

use crate::bank::extract::{is_identifier, is_private, AllNames, Binding, FileSummary};
use crate::names::ModulePath;

use super::input::{InputSource, ReleaseInput};
use super::relative::absolute_module;

pub(crate) type ModId = u32;

/// Recomputations per module after which the flow stops even if namespaces still change.
const MAX_VISITS_PER_MODULE: usize = 64;

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
    Opaque(Rc<str>),
    /// An object of another distribution: its dotted path. Never followed.
    External(Rc<str>),
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
pub(crate) struct Namespace<'a> {
    pub names: HashMap<&'a str, Bound>,
    /// `__all__` as resolved (includes of other modules' `__all__` expanded).
    pub all: Option<Vec<&'a str>>,
}

/// Where an import points.
#[derive(Debug, Clone)]
enum Source {
    Module(ModId),
    /// Inside a compiled module, at this dotted path.
    InsideOpaque(Rc<str>),
    External(Rc<str>),
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

/// One module-level statement, as the sweep over a module applies it.
#[derive(Debug, Clone)]
enum Op<'a> {
    Bind {
        name: &'a str,
        index: u32,
        candidate: Candidate<'a>,
    },
    Star(Source),
    Delete(&'a [String]),
}

pub(crate) struct ModuleInfo<'a> {
    pub path: &'a ModulePath,
    pub is_package: bool,
    pub source: InputSource<'a>,
    /// Direct submodules by name.
    pub children: Vec<(&'a str, ModId)>,
    /// The module's statements in source order, each with whether it is a fallback (in an
    /// `except` handler or an `elif`/`else` branch), which only binds names still unbound.
    ops: Vec<(Op<'a>, bool)>,
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
    pub by_path: HashMap<&'a str, ModId>,
    pub namespaces: Vec<Namespace<'a>>,
    /// Module computations done, in all.
    pub visits: usize,
    pub converged: bool,
    /// The namespaces read by the computation in progress, while solving.
    reads: RefCell<Option<Vec<ModId>>>,
}

impl<'a> Solver<'a> {
    pub fn new(input: &'a ReleaseInput<'a>) -> Self {
        let mut modules: Vec<ModuleInfo<'a>> = input
            .modules
            .iter()
            .map(|(path, m)| ModuleInfo {
                path,
                is_package: m.is_package,
                source: m.source,
                children: Vec::new(),
                ops: Vec::new(),
            })
            .collect();
        let by_path: HashMap<&'a str, ModId> = modules
            .iter()
            .enumerate()
            .map(|(i, m)| (m.path.as_str(), i as ModId))
            .collect();
        for i in 0..modules.len() {
            let path = modules[i].path;
            if let Some((parent, name)) = path.as_str().rsplit_once('.') {
                if let Some(&p) = by_path.get(parent) {
                    modules[p as usize].children.push((name, i as ModId));
                }
            }
        }
        let mut solver = Self {
            namespaces: vec![Namespace::default(); modules.len()],
            modules,
            by_path,
            visits: 0,
            converged: false,
            reads: RefCell::new(None),
        };
        for i in 0..solver.modules.len() {
            solver.modules[i].ops = solver.prepare(i as ModId);
        }
        solver
    }

    pub fn module(&self, id: ModId) -> &ModuleInfo<'a> {
        &self.modules[id as usize]
    }

    pub fn namespace(&self, id: ModId) -> &Namespace<'a> {
        &self.namespaces[id as usize]
    }

    /// Iterates to the fixed point with a work queue. Modules start deepest path first, the
    /// direction most re-export chains run (`pandas` ← `pandas.core.api` ← `pandas.core.frame`).
    pub fn solve(&mut self) {
        let n = self.modules.len();
        let mut readers: Vec<HashSet<ModId>> = vec![HashSet::new(); n];
        let mut queued = vec![true; n];
        let mut visits = vec![0usize; n];
        let mut queue: VecDeque<ModId> = (0..n as ModId).rev().collect();
        self.converged = true;
        while let Some(id) = queue.pop_front() {
            queued[id as usize] = false;
            visits[id as usize] += 1;
            self.visits += 1;
            if visits[id as usize] > MAX_VISITS_PER_MODULE {
                self.converged = false;
                continue;
            }
            *self.reads.borrow_mut() = Some(Vec::new());
            let next = self.compute(id);
            for read in self.reads.borrow_mut().take().unwrap_or_default() {
                if read != id {
                    readers[read as usize].insert(id);
                }
            }
            if next != self.namespaces[id as usize] {
                self.namespaces[id as usize] = next;
                for &reader in &readers[id as usize] {
                    if !queued[reader as usize] {
                        queued[reader as usize] = true;
                        queue.push_back(reader);
                    }
                }
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
                    InputSource::Opaque => Source::InsideOpaque(path.into()),
                    InputSource::Namespace => Source::External(path.into()),
                    InputSource::Source { .. } => Source::Missing,
                };
            }
        }
        Source::External(path.into())
    }

    fn prepare(&self, id: ModId) -> Vec<(Op<'a>, bool)> {
        let module = &self.modules[id as usize];
        let Some(summary) = module.summary() else {
            return Vec::new();
        };
        let mut ops = Vec::with_capacity(summary.bindings.len());
        for (i, binding) in summary.bindings.iter().enumerate() {
            let index = i as u32;
            let mut fallback = summary.is_fallback(i);
            if summary.is_type_checking_only(i) {
                // Bound at run time only through the module's `__getattr__`, if it has one:
                // then these say where its lazy names come from.
                if !summary.dynamic_exports {
                    continue;
                }
                fallback = true;
            }
            let bind = |name: &'a str, candidate: Candidate<'a>| {
                (
                    Op::Bind {
                        name,
                        index,
                        candidate,
                    },
                    fallback,
                )
            };
            match binding {
                Binding::Function(f) => ops.push(bind(&f.name, Candidate::Def)),
                Binding::Class(c) => ops.push(bind(&c.name, Candidate::Def)),
                Binding::Variable(v) => ops.push(bind(
                    &v.name,
                    Candidate::Variable {
                        alias_of: v.alias_of.as_deref(),
                    },
                )),
                Binding::Import(import) => {
                    // `import a.b` binds `a` to module `a`; `import a.b as c` binds `c` to `a.b`.
                    let target = match &import.asname {
                        Some(_) => import.module.as_str(),
                        None => import.bound_name(),
                    };
                    ops.push(bind(
                        import.bound_name(),
                        Candidate::ImportModule(self.source_for(target)),
                    ));
                }
                Binding::ImportFrom(from) => {
                    let Some(absolute) = absolute_module(
                        module.path,
                        module.is_package,
                        from.level,
                        from.module.as_deref(),
                    ) else {
                        continue;
                    };
                    let source = self.source_for(&absolute);
                    for name in &from.names {
                        if name.name == "*" {
                            ops.push((Op::Star(source.clone()), fallback));
                        } else {
                            ops.push(bind(
                                name.bound_name(),
                                Candidate::ImportName {
                                    from: source.clone(),
                                    name: &name.name,
                                },
                            ));
                        }
                    }
                }
                Binding::Delete(names) => ops.push((Op::Delete(names), fallback)),
            }
        }
        ops
    }

    /// One module's namespace, from the current namespaces of the others.
    fn compute(&self, id: ModId) -> Namespace<'a> {
        let module = &self.modules[id as usize];
        let mut names: HashMap<&'a str, Bound> =
            HashMap::with_capacity(module.ops.len() + module.children.len());

        let all = module
            .summary()
            .and_then(|s| s.all.as_ref())
            .map(|all| self.resolve_all(id, all));

        // The statements in source order, as Python runs them: later bindings replace earlier
        // ones, star imports included; fallbacks only fill names still unbound.
        let mut opaque_stars: Vec<&str> = Vec::new();
        for (op, fallback) in &module.ops {
            match op {
                Op::Bind {
                    name,
                    index,
                    candidate,
                } => {
                    if *fallback && names.contains_key(name) {
                        continue;
                    }
                    if let Some(target) = self.resolve_candidate(id, *index, candidate, &names) {
                        names.insert(
                            name,
                            Bound {
                                target,
                                origin: Origin::Explicit,
                            },
                        );
                    }
                }
                Op::Star(Source::Module(from))
                    if matches!(self.modules[*from as usize].source, InputSource::Opaque) =>
                {
                    opaque_stars.push(self.modules[*from as usize].path.as_str());
                }
                Op::Star(Source::Module(from)) => {
                    self.for_each_star_export(*from, |name, target| {
                        if *fallback && names.contains_key(name) {
                            return;
                        }
                        names.insert(
                            name,
                            Bound {
                                target: target.clone(),
                                origin: Origin::Star,
                            },
                        );
                    });
                }
                Op::Star(Source::InsideOpaque(path)) => opaque_stars.push(path),
                Op::Star(Source::External(_) | Source::Missing) => {}
                Op::Delete(deleted) => {
                    if !*fallback {
                        for name in deleted.iter() {
                            names.remove(name.as_str());
                        }
                    }
                }
            }
        }

        if let Some(all) = &all {
            for &name in all {
                if names.contains_key(name) {
                    continue;
                }
                let target = match module.children.iter().find(|(n, _)| *n == name) {
                    Some(&(_, child)) => Target::Module(child),
                    None => match opaque_stars[..] {
                        // The only place the name can come from.
                        [single] => Target::Opaque(format!("{single}.{name}").into()),
                        _ => Target::Opaque(format!("{}.{name}", module.path.as_str()).into()),
                    },
                };
                names.insert(
                    name,
                    Bound {
                        target,
                        origin: Origin::AllOnly,
                    },
                );
            }
        }

        for &(name, child) in &module.children {
            names.entry(name).or_insert(Bound {
                target: Target::Module(child),
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
        bound_so_far: &HashMap<&'a str, Bound>,
    ) -> Option<Target> {
        let here = Target::Def(DefRef {
            module: id,
            binding: index,
        });
        match candidate {
            Candidate::Def => Some(here),
            Candidate::Variable { alias_of } => {
                // `DataFrame = frame.DataFrame` is an alias of what the name denotes at that
                // point of the module; `read_csv = _make_parser(...)` or `float = float` (a
                // builtin) is an attribute defined here.
                let aliased = alias_of
                    .and_then(|a| self.resolve_dotted_in(id, a, bound_so_far))
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
            Source::InsideOpaque(p) => Some(Target::Opaque(format!("{p}.{name}").into())),
            Source::External(p) => Some(Target::External(format!("{p}.{name}").into())),
            Source::Missing => None,
        }
    }

    /// Notes that the computation in progress depends on `module`'s namespace.
    fn read(&self, module: ModId) -> &Namespace<'a> {
        if let Some(reads) = self.reads.borrow_mut().as_mut() {
            reads.push(module);
        }
        &self.namespaces[module as usize]
    }

    /// `module.name` as Python's attribute lookup sees it (submodules included).
    pub fn attribute(&self, module: ModId, name: &str) -> Option<Target> {
        if let Some(bound) = self.read(module).names.get(name) {
            return Some(bound.target.clone());
        }
        let info = &self.modules[module as usize];
        match info.source {
            InputSource::Opaque => Some(Target::Opaque(
                format!("{}.{name}", info.path.as_str()).into(),
            )),
            _ => None,
        }
    }

    /// What `a.b.c`, written in `module`, denotes once the module has run.
    pub fn resolve_dotted(&self, module: ModId, dotted: &str) -> Option<Target> {
        self.resolve_dotted_in(module, dotted, &self.read(module).names)
    }

    /// What `a.b.c` denotes in `module` when its namespace holds `names`. A first segment not
    /// bound there may still be a submodule (importing `pkg.core` sets `pkg.core`).
    fn resolve_dotted_in(
        &self,
        module: ModId,
        dotted: &str,
        names: &HashMap<&'a str, Bound>,
    ) -> Option<Target> {
        let mut segments = dotted.split('.');
        let first = segments.next()?;
        let mut target = match names.get(first) {
            Some(bound) => bound.target.clone(),
            None => {
                let &(_, child) = self.modules[module as usize]
                    .children
                    .iter()
                    .find(|(n, _)| *n == first)?;
                Target::Module(child)
            }
        };
        for segment in segments {
            target = match target {
                Target::Module(m) => self.attribute(m, segment)?,
                Target::Opaque(p) => Target::Opaque(format!("{p}.{segment}").into()),
                Target::External(p) => Target::External(format!("{p}.{segment}").into()),
                Target::Def(_) => return None,
            };
        }
        Some(target)
    }

    /// `__all__` with its `other.__all__` includes expanded from the current namespaces.
    fn resolve_all(&self, id: ModId, all: &'a AllNames) -> Vec<&'a str> {
        let mut out: Vec<&'a str> = Vec::with_capacity(all.names.len());
        let mut seen: HashSet<&str> = HashSet::with_capacity(all.names.len());
        for name in &all.names {
            if is_identifier(name) && seen.insert(name) {
                out.push(name);
            }
        }
        for include in &all.includes {
            if let Some(Target::Module(m)) = self.resolve_dotted(id, include) {
                if let Some(other) = &self.read(m).all {
                    for &name in other {
                        if seen.insert(name) {
                            out.push(name);
                        }
                    }
                }
            }
        }
        if !all.removed.is_empty() {
            out.retain(|n| !all.removed.iter().any(|r| r == n));
        }
        out
    }

    /// The names `from module import *` binds, with what they denote: `__all__` if the module
    /// sets one (plus public names if part of it is dynamic), else its public names.
    fn for_each_star_export(&self, module: ModId, mut f: impl FnMut(&'a str, &Target)) {
        let ns = self.read(module);
        let dynamic_all = self.modules[module as usize]
            .summary()
            .and_then(|s| s.all.as_ref())
            .is_some_and(|a| a.dynamic);
        if let Some(all) = &ns.all {
            for &name in all {
                if let Some(bound) = ns.names.get(name) {
                    f(name, &bound.target);
                }
            }
            if !dynamic_all {
                return;
            }
        }
        for (&name, bound) in &ns.names {
            if !is_private(name) && bound.origin != Origin::Submodule {
                f(name, &bound.target);
            }
        }
    }
}
