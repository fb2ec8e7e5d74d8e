//! From the solved namespaces to [`ReleaseApis`].

use std::collections::HashSet;
use std::rc::Rc;

use crate::bank::extract::{is_private, Binding, MemberKind, Signature, Warned};
use crate::names::{ApiPath, ModulePath};

use super::input::InputSource;
use super::members::{class_of, ClassTable};
use super::namespace::{DefRef, ModId, Solver, Target};
use super::output::{
    ApiEntry, ApiKind, FlowOptions, FlowStats, ModuleEntry, ModuleKind, ModuleMirror, ReleaseApis,
};

/// A definition of the release, described once however many aliases it has.
struct Definition {
    path: ApiPath,
    /// Whether its own path is public.
    public: bool,
    kind: ApiKind,
    signature: Option<Signature>,
    is_async: bool,
    /// For a function: what its body says of its deprecation.
    warned: Option<Box<Warned>>,
    /// For a class: its bases in this release.
    bases: Vec<DefRef>,
    /// For a variable made by calling a class of this release: that class.
    instance_of: Option<DefRef>,
    /// Names under it may exist that static reading cannot list.
    open: bool,
}

struct Emitter<'s, 'a> {
    solver: &'s Solver<'a>,
    options: &'s FlowOptions,
    classes: ClassTable<'a>,
    /// Described definitions, by module and binding index.
    definitions: Vec<Vec<Option<Rc<Definition>>>>,
    /// Entries by priority: when a path comes twice, the first one pushed is kept.
    entries: Vec<ApiEntry>,
    /// Definitions that some alias names as canonical, listed after `entries`.
    canonicals: Vec<ApiEntry>,
    listed_canonicals: HashSet<DefRef>,
    /// Classes whose members are to be listed under the class's own path.
    class_queue: Vec<DefRef>,
    queued_classes: HashSet<DefRef>,
    /// Per module: names beyond those listed may exist in it.
    open_modules: Vec<bool>,
}

pub(crate) fn emit(solver: &Solver<'_>, options: &FlowOptions) -> ReleaseApis {
    let mut emitter = Emitter {
        solver,
        options,
        classes: ClassTable::new(solver),
        definitions: solver
            .modules
            .iter()
            .map(|m| vec![None; m.summary().map_or(0, |s| s.bindings.len())])
            .collect(),
        entries: Vec::new(),
        canonicals: Vec::new(),
        listed_canonicals: HashSet::new(),
        class_queue: Vec::new(),
        queued_classes: HashSet::new(),
        open_modules: open_modules(solver),
    };
    let mut stats = FlowStats {
        modules: solver.modules.len(),
        module_visits: solver.visits,
        converged: solver.converged,
        ..FlowStats::default()
    };
    let mut modules = Vec::with_capacity(solver.modules.len());
    let raises: Vec<Option<String>> = (0..solver.modules.len() as ModId)
        .map(|id| raise_on_import(solver, id))
        .collect();
    for (id, info) in solver.modules.iter().enumerate() {
        let (kind, summary) = match info.source {
            InputSource::Source {
                summary, is_stub, ..
            } => {
                stats.source_modules += 1;
                if summary.parse_errors > 0 {
                    stats.files_with_parse_errors += 1;
                }
                let kind = if is_stub {
                    ModuleKind::Stub
                } else {
                    ModuleKind::Source
                };
                (kind, Some(summary))
            }
            InputSource::Opaque => {
                stats.opaque_modules += 1;
                (ModuleKind::Opaque, None)
            }
            InputSource::Namespace => {
                stats.namespace_modules += 1;
                (ModuleKind::Namespace, None)
            }
        };
        let open = emitter.open_modules[id];
        modules.push(ModuleEntry {
            path: info.path.clone(),
            kind,
            is_package: info.is_package,
            open,
            // Modules put into `sys.modules` under its name (TensorFlow 1.15 forwards
            // `tensorflow.examples` to `tensorflow_core.examples`) are its submodules from
            // elsewhere, as with a `__path__` extended.
            extends_path: summary.is_some_and(|s| s.extends_path || s.registers_modules),
            raises: raises[id].clone(),
            has_all: summary.is_some_and(|s| s.all.is_some()),
            parse_errors: summary.map_or(0, |s| s.parse_errors),
        });
        // A module that only raises is no API: users cannot import it.
        if is_public_module(info.path) && raises[id].is_none() {
            let mut e = plain(ApiPath::from(info.path.clone()), ApiKind::Module, true);
            e.open = open;
            emitter.entries.push(e);
        }
    }
    let mirrors = mirrors(solver);
    let reachable = reachable_modules(solver);
    for id in 0..solver.modules.len() as ModId {
        if reachable[id as usize] && raises[id as usize].is_none() {
            emitter.module_names(id);
            emitter.wrapper_members(id);
        }
    }
    while let Some(class) = emitter.class_queue.pop() {
        emitter.members_of_definition(class);
    }
    emitter.finish(modules, mirrors, stats)
}

/// The modules the release's files put in place of others, each once, sorted.
fn mirrors(solver: &Solver<'_>) -> Vec<ModuleMirror> {
    let mut out: Vec<ModuleMirror> = solver
        .modules
        .iter()
        .filter_map(|m| Some((m.path, m.summary()?)))
        .flat_map(|(by, s)| s.mirrors.iter().map(move |m| (by, m)))
        .filter_map(|(by, (module, mirror))| {
            Some(ModuleMirror {
                module: ModulePath::new(module).ok()?,
                mirror: ModulePath::new(mirror).ok()?,
                by: by.clone(),
            })
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

fn is_public_module(path: &ModulePath) -> bool {
    !path.segments().any(is_private)
}

/// Per module, whether names beyond those static reading lists may exist in it: a compiled
/// module without a stub; a module with `__getattr__` or `globals()` writes, or one that
/// replaces itself in `sys.modules`; one that star-imports a compiled module, another
/// distribution's, or an open module of this release.
fn open_modules(solver: &Solver<'_>) -> Vec<bool> {
    let mut open: Vec<bool> = solver
        .modules
        .iter()
        .map(|m| match m.source {
            InputSource::Opaque => true,
            InputSource::Namespace => false,
            InputSource::Source { summary, .. } => {
                summary.dynamic_exports || summary.replaces_itself || m.star_from_outside
            }
        })
        .collect();
    // Openness flows along star imports, to a fixed point.
    let mut changed = true;
    while changed {
        changed = false;
        for (id, m) in solver.modules.iter().enumerate() {
            if !open[id] && m.star_modules.iter().any(|&s| open[s as usize]) {
                open[id] = true;
                changed = true;
            }
        }
    }
    open
}

/// What importing a module raises, when it raises unconditionally: a `raise` at its top level,
/// or a top-level call of a function (of this release) that does nothing but raise.
fn raise_on_import(solver: &Solver<'_>, id: ModId) -> Option<String> {
    let summary = solver.module(id).summary()?;
    if let Some(message) = &summary.raises {
        return Some(message.clone());
    }
    summary.top_calls.iter().find_map(|callee| {
        let Some(Target::Def(def)) = solver.resolve_dotted(id, callee) else {
            return None;
        };
        match solver
            .module(def.module)
            .summary()?
            .bindings
            .get(def.binding as usize)?
        {
            Binding::Function(f) => f.raises.clone(),
            _ => None,
        }
    })
}

/// Whether `name` is exported by a namespace: public by the underscore rule, or in `__all__`.
fn is_exported(ns: &super::namespace::Namespace<'_>, name: &str) -> bool {
    !is_private(name) || ns.all.as_ref().is_some_and(|a| a.contains(&name))
}

/// The modules whose names users reach: those with a public path, and private ones that a
/// public name leads to (`tensorflow.nn` is `tensorflow._api.v1.nn`, whose names are therefore
/// reached as `tensorflow.nn.relu`).
fn reachable_modules(solver: &Solver<'_>) -> Vec<bool> {
    let mut reachable: Vec<bool> = solver
        .modules
        .iter()
        .map(|m| is_public_module(m.path))
        .collect();
    let mut pending: Vec<ModId> = (0..solver.modules.len() as ModId)
        .filter(|&id| reachable[id as usize])
        .collect();
    while let Some(id) = pending.pop() {
        let ns = solver.namespace(id);
        for (&name, bound) in &ns.names {
            if let Target::Module(m) = bound.target {
                if !reachable[m as usize] && is_exported(ns, name) {
                    reachable[m as usize] = true;
                    pending.push(m);
                }
            }
        }
    }
    reachable
}

/// An entry with nothing but a kind: modules, opaque names.
fn plain(path: ApiPath, kind: ApiKind, public: bool) -> ApiEntry {
    ApiEntry {
        path,
        kind,
        canonical: None,
        signature: None,
        warned: None,
        is_async: false,
        public,
        external: None,
        bases: Vec::new(),
        instance_of: None,
        open: false,
    }
}

impl<'s, 'a> Emitter<'s, 'a> {
    /// The names of a reachable module. In sorted order, so that where two entries claim one
    /// path the same one always wins: the same release always gives the same bank.
    fn module_names(&mut self, id: ModId) {
        let info = self.solver.module(id);
        let module_public = is_public_module(info.path);
        let ns = self.solver.namespace(id);
        let mut names: Vec<(&str, &super::namespace::Bound)> = ns
            .names
            .iter()
            .filter(|(name, _)| is_exported(ns, name))
            .map(|(name, bound)| (*name, bound))
            .collect();
        names.sort_unstable_by_key(|(name, _)| *name);
        for (name, bound) in names {
            let Ok(path) = ApiPath::in_module(info.path, name) else {
                continue;
            };
            match &bound.target {
                // Never followed; recorded so that what lies under the name is known to be
                // another distribution's business (unknown here), not absent.
                Target::External(target) => {
                    let mut e = plain(path, ApiKind::Unknown, module_public);
                    e.external = Some(target.to_string());
                    e.open = true;
                    self.entries.push(e);
                }
                Target::Module(m) => {
                    let target = self.solver.module(*m).path;
                    // `import pkg.sub` inside `pkg` binds `pkg` itself, not worth an API.
                    if info.path.starts_with(target) {
                        continue;
                    }
                    let target_path = ApiPath::from(target.clone());
                    if !is_public_module(target) {
                        // A private module a public name leads to is an API as the aliases'
                        // definition: TensorFlow 2.6+'s `tensorflow.compat.v1` is
                        // `tensorflow._api.v2.compat.v1`, bound by its own package.
                        let mut c = plain(target_path.clone(), ApiKind::Module, false);
                        c.open = self.open_modules[*m as usize];
                        self.canonicals.push(c);
                    }
                    // A public submodule is listed with the modules.
                    if target.as_str() == path.as_str() {
                        continue;
                    }
                    let mut e = plain(path, ApiKind::Module, module_public);
                    e.canonical = Some(target_path);
                    self.entries.push(e);
                }
                Target::Opaque(p) => {
                    let Ok(target) = ApiPath::new(p) else {
                        continue;
                    };
                    let mut e = plain(path.clone(), ApiKind::Unknown, module_public);
                    if target != path {
                        let mut c = plain(target.clone(), ApiKind::Unknown, false);
                        c.open = true;
                        self.canonicals.push(c);
                        e.canonical = Some(target);
                    } else {
                        e.open = true;
                    }
                    self.entries.push(e);
                }
                Target::Def(def) => self.name_of_definition(path, *def, module_public),
            }
        }
    }

    /// The public attributes of the class whose instance wraps the module in `sys.modules`:
    /// looked up on the wrapper before its `__getattr__` hands the rest to the module. The
    /// module's own names were pushed first and win where both bind one.
    fn wrapper_members(&mut self, id: ModId) {
        let info = self.solver.module(id);
        let Some(wrapper) = info.summary().and_then(|s| s.wrapped_by.as_deref()) else {
            return;
        };
        let Some(Target::Def(class)) = self.solver.resolve_dotted(id, wrapper) else {
            return;
        };
        if class_of(self.solver, class).is_none() {
            return;
        }
        let module_path = ApiPath::from(info.path.clone());
        let public = is_public_module(info.path);
        let before = self.entries.len();
        self.members_under(&module_path, class, public);
        // Its machinery (`__getattr__`, `_tfmw_wrapped_module`) is no API of the module.
        let added = self.entries.split_off(before);
        self.entries.extend(added.into_iter().filter(|e| {
            e.path
                .split_last()
                .is_some_and(|(_, n)| !n.starts_with('_'))
        }));
    }

    /// An exported name bound to a definition: the definition itself, or an alias of it.
    fn name_of_definition(&mut self, path: ApiPath, def: DefRef, public: bool) {
        let d = self.definition(def);
        if d.kind == ApiKind::Class && self.queued_classes.insert(def) {
            self.class_queue.push(def);
        }
        if let Some(class) = d.instance_of {
            // The class must be listed, with its members, for `resolve` to go through it.
            let cd = self.definition(class);
            self.list_canonical(class, &cd);
            if self.queued_classes.insert(class) {
                self.class_queue.push(class);
            }
        }
        if d.path == path {
            let e = self.definition_entry(&d, d.public);
            self.entries.push(e);
            return;
        }
        self.list_canonical(def, &d);
        self.entries.push(ApiEntry {
            path: path.clone(),
            kind: d.kind,
            canonical: Some(d.path.clone()),
            signature: None,
            warned: None,
            is_async: d.is_async,
            public,
            external: None,
            bases: Vec::new(),
            instance_of: None,
            open: false,
        });
        if d.kind == ApiKind::Class && self.options.members_through_aliases {
            self.members_under(&path, def, true);
        }
    }

    fn definition_entry(&mut self, d: &Definition, public: bool) -> ApiEntry {
        let bases = d
            .bases
            .iter()
            .map(|&b| self.definition(b).path.clone())
            .collect();
        let instance_of = d.instance_of.map(|c| self.definition(c).path.clone());
        ApiEntry {
            path: d.path.clone(),
            kind: d.kind,
            canonical: None,
            signature: d.signature.clone(),
            warned: d.warned.clone(),
            is_async: d.is_async,
            public,
            external: None,
            bases,
            instance_of,
            open: d.open,
        }
    }

    /// Makes sure a definition some alias points at is listed, even where its path is private.
    fn list_canonical(&mut self, def: DefRef, d: &Definition) {
        if self.listed_canonicals.insert(def) {
            let e = self.definition_entry(d, d.public);
            self.canonicals.push(e);
        }
    }

    /// A definition's canonical path and what it is, computed once.
    fn definition(&mut self, def: DefRef) -> Rc<Definition> {
        if let Some(Some(d)) = self.definitions[def.module as usize].get(def.binding as usize) {
            return d.clone();
        }
        let module = self.solver.module(def.module);
        let binding = module
            .summary()
            .and_then(|s| s.bindings.get(def.binding as usize));
        let mut d = Definition {
            path: ApiPath::from(module.path.clone()),
            public: false,
            kind: ApiKind::Unknown,
            signature: None,
            is_async: false,
            warned: None,
            bases: Vec::new(),
            instance_of: None,
            open: false,
        };
        let name = match binding {
            Some(Binding::Function(f)) => {
                d.kind = ApiKind::Function;
                d.signature = Some(f.signature.clone());
                d.is_async = f.is_async;
                d.warned = f.warned.clone();
                f.name.as_str()
            }
            Some(Binding::Class(c)) => {
                d.kind = ApiKind::Class;
                let info = self.classes.info(self.solver, def);
                d.signature = info.init.cloned();
                d.open = info.open_bases;
                d.bases = c
                    .bases
                    .iter()
                    .filter_map(|b| match self.solver.resolve_dotted(def.module, b) {
                        Some(Target::Def(base)) if class_of(self.solver, base).is_some() => {
                            Some(base)
                        }
                        _ => None,
                    })
                    .collect();
                c.name.as_str()
            }
            Some(Binding::Variable(v)) => {
                d.kind = ApiKind::Attribute;
                d.instance_of = v.called.as_deref().and_then(|callee| {
                    match self.solver.resolve_dotted(def.module, callee) {
                        Some(Target::Def(class)) if class_of(self.solver, class).is_some() => {
                            Some(class)
                        }
                        _ => None,
                    }
                });
                // A value's attributes are known only for instances of a closed class of this
                // release without `__getattr__`.
                d.open = match d.instance_of {
                    Some(class) => {
                        let info = self.classes.info(self.solver, class);
                        info.open_bases || info.getattr
                    }
                    None => true,
                };
                v.name.as_str()
            }
            // Only definitions become `Target::Def`.
            _ => "",
        };
        if let Ok(path) = ApiPath::in_module(module.path, name) {
            d.path = path;
        }
        let in_all = || {
            self.solver
                .namespace(def.module)
                .all
                .as_ref()
                .is_some_and(|a| a.contains(&name))
        };
        d.public = is_public_module(module.path) && (!is_private(name) || in_all());
        let d = Rc::new(d);
        if let Some(slot) = self.definitions[def.module as usize].get_mut(def.binding as usize) {
            *slot = Some(d.clone());
        }
        d
    }

    /// Lists a class's members under its own path, and queues its bases for the same, so that
    /// every member `resolve` may reach through bases is listed somewhere.
    fn members_of_definition(&mut self, class: DefRef) {
        let d = self.definition(class);
        if !self.listed_canonicals.contains(&class) && !d.public {
            self.list_canonical(class, &d);
        }
        for &base in &d.bases {
            if self.queued_classes.insert(base) {
                self.class_queue.push(base);
            }
            let bd = self.definition(base);
            self.list_canonical(base, &bd);
        }
        self.members_under(&d.path, class, d.public);
    }

    /// `class_path.member` for the members of `class` (own, and inherited if asked for).
    fn members_under(&mut self, class_path: &ApiPath, class: DefRef, public: bool) {
        let info = self.classes.info(self.solver, class);
        for member in &info.members {
            let own = member.defined_in == class;
            if !own && !self.options.inherited_members {
                continue;
            }
            let Ok(path) = class_path.member(member.name) else {
                continue;
            };
            let (kind, signature, is_async, warned) = match member.kind {
                MemberKind::Method {
                    signature,
                    is_async,
                    warned,
                } => (ApiKind::Method, Some(signature), *is_async, warned.as_ref()),
                MemberKind::Property => (ApiKind::Property, None, false, None),
                MemberKind::Attribute => (ApiKind::Attribute, None, false, None),
                MemberKind::Class => (ApiKind::Class, None, false, None),
            };
            // Values of properties and attributes, and nested classes (not summarized), have
            // names static reading cannot list.
            let open = kind != ApiKind::Method;
            let owner = self.definition(member.defined_in).path.clone();
            let Ok(canonical) = owner.member(member.name) else {
                continue;
            };
            let is_definition = canonical == path;
            self.entries.push(ApiEntry {
                path,
                kind,
                canonical: (!is_definition).then_some(canonical),
                signature: if is_definition {
                    signature.cloned()
                } else {
                    None
                },
                warned: warned.filter(|_| is_definition).cloned(),
                is_async,
                public,
                external: None,
                bases: Vec::new(),
                instance_of: None,
                open: is_definition && open,
            });
        }
    }

    fn finish(
        self,
        modules: Vec<ModuleEntry>,
        mirrors: Vec<ModuleMirror>,
        stats: FlowStats,
    ) -> ReleaseApis {
        let mut all: Vec<Option<ApiEntry>> = self.entries.into_iter().map(Some).collect();
        all.extend(self.canonicals.into_iter().map(Some));
        // Sort indexes, not the entries: for a path listed twice (a module that is also bound
        // as a name, a canonical that is also public), the earliest pushed wins.
        let mut order: Vec<u32> = (0..all.len() as u32).collect();
        order.sort_unstable_by(|&a, &b| {
            let (ea, eb) = (all[a as usize].as_ref(), all[b as usize].as_ref());
            let (pa, pb) = (ea.map(|e| &e.path), eb.map(|e| &e.path));
            pa.cmp(&pb).then(a.cmp(&b))
        });
        let mut apis: Vec<ApiEntry> = Vec::with_capacity(order.len());
        for i in order {
            let Some(entry) = all[i as usize].take() else {
                continue;
            };
            if apis.last().is_some_and(|last| last.path == entry.path) {
                continue;
            }
            apis.push(entry);
        }
        ReleaseApis {
            modules,
            apis,
            stats,
            external_imports: None,
            mirrors,
        }
    }
}
