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
use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};
use std::rc::Rc;

use crate::bank::extract::{is_private, AllNames, Binding, FileSummary};
use crate::names::is_identifier;
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
    pub rank: Rank,
}

/// How firmly a statement binds, weakest last. Statements on the main line bind in source
/// order, as Python runs them; a fallback (an `except` handler, an `elif`/`else` branch) only
/// fills a name nothing firmer bound; lazily served names (`if TYPE_CHECKING:` imports, import
/// structures) come after everything the module binds itself, their own fallbacks last
/// (transformers' `except: from .utils.dummy_pt_objects import *`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Rank {
    Main,
    /// From the `.pyi` beside the source: it says more than a compiled object the source
    /// reaches, and nothing against what the source defines.
    Stub,
    Fallback,
    Lazy,
    LazyFallback,
}

impl Rank {
    /// Whether a binding of this rank replaces `existing`.
    fn replaces(self, existing: Option<&Bound>) -> bool {
        match existing {
            None => true,
            Some(_) if self == Rank::Main => true,
            Some(bound) if self == Rank::Stub => {
                matches!(bound.target, Target::Opaque(_)) || bound.rank > self
            }
            Some(bound) => bound.rank > self,
        }
    }
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
    /// Forwarded to another top-level package, where `rest` is reached by attribute lookups
    /// from that package (TensorFlow 2.0's `tensorflow.keras`, set on `tensorflow_core`).
    Forward(ModId, Rc<str>),
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
    /// Modules of this release whose names `from m import *` takes in.
    pub star_modules: Vec<ModId>,
    /// A star import from a compiled module or from another distribution: names come in that
    /// static reading cannot list.
    pub star_from_outside: bool,
    /// The module's statements in source order, each with how firmly it binds.
    ops: Vec<(Op<'a>, Rank)>,
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
    /// Top-level modules by name, for forwarding between them.
    top_levels: Vec<(&'a str, ModId)>,
    /// Imports follow Python 2's rules where a file does not opt out.
    python2: bool,
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
                star_modules: Vec::new(),
                star_from_outside: false,
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
        let top_levels = by_path
            .iter()
            .filter(|(path, _)| !path.contains('.'))
            .map(|(path, &id)| (*path, id))
            .collect();
        let mut solver = Self {
            namespaces: vec![Namespace::default(); modules.len()],
            modules,
            by_path,
            top_levels,
            python2: input.python2,
            visits: 0,
            converged: false,
            reads: RefCell::new(None),
        };
        for i in 0..solver.modules.len() {
            let ops = solver.prepare(i as ModId);
            let module = &mut solver.modules[i];
            for (op, _) in &ops {
                if let Op::Star(source) = op {
                    match source {
                        Source::Module(m) => module.star_modules.push(*m),
                        Source::InsideOpaque(_) | Source::External(_) | Source::Forward(..) => {
                            module.star_from_outside = true
                        }
                        Source::Missing => {}
                    }
                }
            }
            module.ops = ops;
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
        // Ordered, so that modules are queued again in the same order on every run: where
        // import cycles leave more than one fixed point, the same one is always reached.
        let mut readers: Vec<BTreeSet<ModId>> = vec![BTreeSet::new(); n];
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
            // A module that reads its own namespace (`from . import x`, `__all__ +=
            // x.__all__`) depends on it like on any other: it runs again when it changes.
            for read in self.reads.borrow_mut().take().unwrap_or_default() {
                readers[read as usize].insert(id);
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

    /// What an import of `path` written in module `from` reaches: the module itself; else,
    /// under Python 2 and without `from __future__ import absolute_import`, a sibling of that
    /// name (`from core import *` inside `requests/__init__.py` is `requests.core`); else a
    /// module forwarded to another top-level package of the release (TensorFlow 1.15's
    /// `tensorflow.python` is `tensorflow_core.python`); else what the longest prefix says.
    fn source_for_in(&self, from: ModId, path: &str, absolute_form: bool) -> Source {
        let source = self.source_for(path);
        if matches!(source, Source::Module(_)) {
            return source;
        }
        if absolute_form && self.python2 {
            let module = &self.modules[from as usize];
            let absolute_import = module.summary().is_some_and(|s| s.absolute_import);
            let package = if module.is_package {
                Some(module.path.clone())
            } else {
                module.path.parent()
            };
            if let (false, Some(package)) = (absolute_import, package) {
                if let Some(&id) = self
                    .by_path
                    .get(format!("{}.{path}", package.as_str()).as_str())
                {
                    return Source::Module(id);
                }
            }
        }
        if let Source::Missing = source {
            if let Some(forwarded) = self.forwarded(path) {
                return forwarded;
            }
        }
        source
    }

    /// `top.rest` missing, where package `top` registers modules in `sys.modules`: the one
    /// other top-level package of the release that has module `rest`; failing that, when the
    /// release has just one other top-level package, `rest` looked up from it.
    fn forwarded(&self, path: &str) -> Option<Source> {
        let (top, rest) = path.split_once('.')?;
        let &top_id = self.by_path.get(top)?;
        if !self.modules[top_id as usize]
            .summary()
            .is_some_and(|s| s.registers_modules)
        {
            return None;
        }
        let others: Vec<(&str, ModId)> = self
            .top_levels
            .iter()
            .copied()
            .filter(|&(other, _)| other != top)
            .collect();
        let mut found = others
            .iter()
            .filter_map(|(other, _)| self.by_path.get(format!("{other}.{rest}").as_str()));
        match (found.next(), found.next(), &others[..]) {
            (Some(&id), None, _) => Some(Source::Module(id)),
            (None, _, [(_, only)]) => Some(Source::Forward(*only, rest.into())),
            _ => None,
        }
    }

    /// What `rest` denotes as attribute lookups from module `from`.
    fn follow(&self, from: ModId, rest: &str) -> Option<Target> {
        let mut target = Target::Module(from);
        for segment in rest.split('.') {
            target = match target {
                Target::Module(m) => self.attribute_or_submodule(m, segment)?,
                Target::Opaque(p) => Target::Opaque(format!("{p}.{segment}").into()),
                Target::External(p) => Target::External(format!("{p}.{segment}").into()),
                Target::Def(_) => return None,
            };
        }
        Some(target)
    }

    /// `module.name`, or the submodule of that name.
    fn attribute_or_submodule(&self, module: ModId, name: &str) -> Option<Target> {
        self.attribute(module, name).or_else(|| {
            self.modules[module as usize]
                .children
                .iter()
                .find(|(n, _)| *n == name)
                .map(|&(_, child)| Target::Module(child))
        })
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

    fn prepare(&self, id: ModId) -> Vec<(Op<'a>, Rank)> {
        let module = &self.modules[id as usize];
        let Some(summary) = module.summary() else {
            return Vec::new();
        };
        let mut ops = Vec::with_capacity(summary.bindings.len());
        for (i, binding) in summary.bindings.iter().enumerate() {
            let index = i as u32;
            let fallback = match (summary.is_lazy(i), summary.is_fallback(i)) {
                (false, false) if summary.is_from_stub(i) => Rank::Stub,
                (false, false) => Rank::Main,
                (false, true) => Rank::Fallback,
                // Bound at run time only through the module's `__getattr__` or the lazy module
                // it replaces itself with, if it has one: then these say where its lazy names
                // come from.
                _ if !summary.serves_lazy_names() => continue,
                (true, false) => Rank::Lazy,
                (true, true) => Rank::LazyFallback,
            };
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
                        Candidate::ImportModule(self.source_for_in(id, target, true)),
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
                    let source = self.source_for_in(id, &absolute, from.level == 0);
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

        // The statements in source order, as Python runs them: later bindings replace earlier
        // ones, star imports included; weaker ranks only fill names nothing firmer bound.
        let mut opaque_stars: Vec<&str> = Vec::new();
        for (op, rank) in &module.ops {
            match op {
                Op::Bind {
                    name,
                    index,
                    candidate,
                } => {
                    if !rank.replaces(names.get(name)) {
                        continue;
                    }
                    if let Some(target) = self.resolve_candidate(id, *index, candidate, &names) {
                        names.insert(
                            name,
                            Bound {
                                target,
                                origin: Origin::Explicit,
                                rank: *rank,
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
                        if !rank.replaces(names.get(name)) {
                            return;
                        }
                        names.insert(
                            name,
                            Bound {
                                target: target.clone(),
                                origin: Origin::Star,
                                rank: *rank,
                            },
                        );
                    });
                }
                Op::Star(Source::InsideOpaque(path)) => opaque_stars.push(path),
                Op::Star(Source::External(_) | Source::Missing | Source::Forward(..)) => {}
                Op::Delete(deleted) => {
                    if *rank == Rank::Main {
                        for name in deleted.iter() {
                            names.remove(name.as_str());
                        }
                    }
                }
            }
        }

        // `__all__` as it stands once the statements that build it have run, so that
        // `__all__ += impl.__all__` sees the `impl` bound above.
        let all = module
            .summary()
            .and_then(|s| s.all.as_ref())
            .map(|all| self.resolve_all(id, all, &names));
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
                        rank: Rank::Main,
                    },
                );
            }
        }

        for &(name, child) in &module.children {
            names.entry(name).or_insert(Bound {
                target: Target::Module(child),
                origin: Origin::Submodule,
                rank: Rank::Main,
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
                // point of the module (another distribution's object too: `np = numpy`);
                // `read_csv = _make_parser(...)` or `float = float` (a builtin) is an
                // attribute defined here.
                let aliased = alias_of.and_then(|a| self.resolve_dotted_in(id, a, bound_so_far));
                Some(aliased.unwrap_or(here))
            }
            Candidate::ImportModule(source) => match source {
                Source::Module(m) => Some(Target::Module(*m)),
                Source::InsideOpaque(p) => Some(Target::Opaque(p.clone())),
                Source::External(p) => Some(Target::External(p.clone())),
                Source::Missing => None,
                Source::Forward(m, rest) => self.follow(*m, rest),
            },
            Candidate::ImportName { from, name } => self.import_name(id, from, name, bound_so_far),
        }
    }

    /// `from <source> import name` in module `id`: the attribute if the module has one (for the
    /// importing module itself, as bound so far), else the submodule of that name, which the
    /// import system loads and binds (`from . import _impl as impl`).
    fn import_name(
        &self,
        id: ModId,
        source: &Source,
        name: &str,
        bound_so_far: &HashMap<&'a str, Bound>,
    ) -> Option<Target> {
        let found = match source {
            Source::Module(m) if *m == id => bound_so_far.get(name).map(|b| b.target.clone()),
            other => self.attribute_of(other, name),
        };
        found.or_else(|| match source {
            Source::Module(m) => {
                let module = &self.modules[*m as usize];
                let child = module.children.iter().find(|(n, _)| *n == name);
                match child {
                    Some(&(_, child)) => Some(Target::Module(child)),
                    // keras 2.4's `from .layers import Input`, where `keras.layers` star-imports
                    // `tensorflow.keras.layers`: the import succeeds whenever the module
                    // imports, so the name is there, from where static reading cannot see.
                    None if self.may_hold_unlisted(*m) => Some(Target::Opaque(
                        format!("{}.{name}", module.path.as_str()).into(),
                    )),
                    None => None,
                }
            }
            _ => None,
        })
    }

    /// Whether a module may hold names static reading does not list: it star-imports from
    /// another distribution or a compiled module, has `__getattr__` or writes `globals()`,
    /// or replaces itself in `sys.modules`.
    fn may_hold_unlisted(&self, module: ModId) -> bool {
        let info = &self.modules[module as usize];
        info.star_from_outside
            || info
                .summary()
                .is_some_and(|s| s.dynamic_exports || s.replaces_itself)
    }

    fn attribute_of(&self, source: &Source, name: &str) -> Option<Target> {
        match source {
            Source::Module(m) => self.attribute(*m, name),
            Source::InsideOpaque(p) => Some(Target::Opaque(format!("{p}.{name}").into())),
            Source::External(p) => Some(Target::External(format!("{p}.{name}").into())),
            Source::Missing => None,
            Source::Forward(m, rest) => match self.follow(*m, rest)? {
                Target::Module(module) => self.attribute_or_submodule(module, name),
                Target::Opaque(p) => Some(Target::Opaque(format!("{p}.{name}").into())),
                Target::External(p) => Some(Target::External(format!("{p}.{name}").into())),
                Target::Def(_) => None,
            },
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
    fn resolve_all(
        &self,
        id: ModId,
        all: &'a AllNames,
        names: &HashMap<&'a str, Bound>,
    ) -> Vec<&'a str> {
        let mut out: Vec<&'a str> = Vec::with_capacity(all.names.len());
        let mut seen: HashSet<&str> = HashSet::with_capacity(all.names.len());
        for name in &all.names {
            if is_identifier(name) && seen.insert(name) {
                out.push(name);
            }
        }
        for include in &all.includes {
            if let Some(Target::Module(m)) = self.resolve_dotted_in(id, include, names) {
                let other = self.read(m);
                if let Some(listed) = &other.all {
                    for &name in listed {
                        if seen.insert(name) {
                            out.push(name);
                        }
                    }
                }
                // Its list is computed whole (scipy 1.16's `_signal_api.__all__`, built from
                // `dir()`): its public names stand for it. A list only partly computed
                // (numpy's `numerictypes.__all__`, literal names extended by code) stands for
                // its literal names: its public names include builtins it never exports
                // (`float`, `int`), and numpy 1.24 would have had `numpy.float` again.
                if self.has_computed_all(m) {
                    let mut public: Vec<&'a str> = other
                        .names
                        .iter()
                        .filter(|(name, b)| !is_private(name) && b.origin != Origin::Submodule)
                        .map(|(&name, _)| name)
                        .collect();
                    public.sort_unstable();
                    for name in public {
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
    /// Whether part of the module's `__all__` is computed by code not evaluated here.
    fn has_dynamic_all(&self, module: ModId) -> bool {
        self.all_as_read(module).is_some_and(|a| a.dynamic)
    }

    /// Whether the module's `__all__` is computed whole: nothing of it could be read.
    fn has_computed_all(&self, module: ModId) -> bool {
        self.all_as_read(module)
            .is_some_and(|a| a.dynamic && a.names.is_empty() && a.includes.is_empty())
    }

    /// The module's `__all__` as its summary read it.
    fn all_as_read(&self, module: ModId) -> Option<&'a AllNames> {
        self.modules[module as usize]
            .summary()
            .and_then(|s| s.all.as_ref())
    }

    fn for_each_star_export(&self, module: ModId, mut f: impl FnMut(&'a str, &Target)) {
        let ns = self.read(module);
        let dynamic_all = self.has_dynamic_all(module);
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
