//! From the solved namespaces to [`ReleaseApis`].

use std::collections::HashSet;
use std::rc::Rc;

use crate::bank::extract::{is_private, Binding, MemberKind, Signature};
use crate::names::{ApiPath, ModulePath};

use super::input::InputSource;
use super::members::{class_of, ClassTable};
use super::namespace::{DefRef, ModId, Solver, Target};
use super::output::{
    ApiEntry, ApiKind, ExternalRef, FlowOptions, FlowStats, ModuleEntry, ModuleKind, ReleaseApis,
};

/// A definition of the release, described once however many aliases it has.
struct Definition {
    path: ApiPath,
    /// Whether its own path is public.
    public: bool,
    kind: ApiKind,
    signature: Option<Signature>,
    is_async: bool,
    /// For a class: its bases in this release.
    bases: Vec<DefRef>,
    /// For a variable made by calling a class of this release: that class.
    instance_of: Option<DefRef>,
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
    externals: Vec<ExternalRef>,
}

pub(crate) fn emit(solver: &Solver<'_>, options: &FlowOptions) -> ReleaseApis {
    let mut emitter = Emitter {
        solver,
        options,
        classes: ClassTable::default(),
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
        externals: Vec::new(),
    };
    let mut stats = FlowStats {
        modules: solver.modules.len(),
        module_visits: solver.visits,
        converged: solver.converged,
        ..FlowStats::default()
    };
    let mut modules = Vec::with_capacity(solver.modules.len());
    for info in &solver.modules {
        let (kind, summary) = match info.source {
            InputSource::Source { summary, is_stub } => {
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
        modules.push(ModuleEntry {
            path: info.path.clone(),
            kind,
            is_package: info.is_package,
            dynamic_exports: summary.is_some_and(|s| s.dynamic_exports),
            has_all: summary.is_some_and(|s| s.all.is_some()),
            parse_errors: summary.map_or(0, |s| s.parse_errors),
        });
        if is_public_module(info.path) {
            emitter.entries.push(plain(
                ApiPath::from(info.path.clone()),
                ApiKind::Module,
                true,
            ));
        }
    }
    for id in 0..solver.modules.len() as ModId {
        emitter.module_names(id);
    }
    while let Some(class) = emitter.class_queue.pop() {
        emitter.members_of_definition(class);
    }
    emitter.finish(modules, stats)
}

fn is_public_module(path: &ModulePath) -> bool {
    !path.segments().any(is_private)
}

/// An entry with nothing but a kind: modules, opaque names.
fn plain(path: ApiPath, kind: ApiKind, public: bool) -> ApiEntry {
    ApiEntry {
        path,
        kind,
        canonical: None,
        signature: None,
        is_async: false,
        public,
        external: None,
        bases: Vec::new(),
        instance_of: None,
    }
}

impl<'s, 'a> Emitter<'s, 'a> {
    fn module_names(&mut self, id: ModId) {
        let info = self.solver.module(id);
        let module_public = is_public_module(info.path);
        if !module_public {
            return;
        }
        let ns = self.solver.namespace(id);
        for (&name, bound) in &ns.names {
            let in_all = ns.all.as_ref().is_some_and(|a| a.contains(&name));
            if is_private(name) && !in_all {
                continue;
            }
            let path = ApiPath::in_module(info.path, name);
            match &bound.target {
                Target::External(target) => {
                    if in_all {
                        let mut e = plain(path, ApiKind::Unknown, true);
                        e.external = Some(target.to_string());
                        self.entries.push(e);
                    } else {
                        self.externals.push(ExternalRef {
                            path,
                            target: target.to_string(),
                        });
                    }
                }
                Target::Module(m) => {
                    let target = self.solver.module(*m).path;
                    // The submodule itself is listed with the modules; and `import pkg.sub`
                    // inside `pkg` binds `pkg` itself, which is not worth an API.
                    if target.as_str() == path.as_str() || info.path.starts_with(target) {
                        continue;
                    }
                    let target_path = ApiPath::from(target.clone());
                    if !is_public_module(target) {
                        self.canonicals
                            .push(plain(target_path.clone(), ApiKind::Module, false));
                    }
                    let mut e = plain(path, ApiKind::Module, true);
                    e.canonical = Some(target_path);
                    self.entries.push(e);
                }
                Target::Opaque(p) => {
                    let Ok(target) = ApiPath::new(p) else {
                        continue;
                    };
                    let mut e = plain(path.clone(), ApiKind::Unknown, true);
                    if target != path {
                        self.canonicals
                            .push(plain(target.clone(), ApiKind::Unknown, false));
                        e.canonical = Some(target);
                    }
                    self.entries.push(e);
                }
                Target::Def(def) => self.name_of_definition(path, *def),
            }
        }
    }

    /// A public name bound to a definition: the definition itself, or an alias of it.
    fn name_of_definition(&mut self, path: ApiPath, def: DefRef) {
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
            is_async: d.is_async,
            public: true,
            external: None,
            bases: Vec::new(),
            instance_of: None,
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
            is_async: d.is_async,
            public,
            external: None,
            bases,
            instance_of,
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
            bases: Vec::new(),
            instance_of: None,
        };
        let name = match binding {
            Some(Binding::Function(f)) => {
                d.kind = ApiKind::Function;
                d.signature = Some(f.signature.clone());
                d.is_async = f.is_async;
                f.name.as_str()
            }
            Some(Binding::Class(c)) => {
                d.kind = ApiKind::Class;
                d.signature = self.classes.info(self.solver, def).init.cloned();
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
                v.name.as_str()
            }
            // Only definitions become `Target::Def`.
            _ => "",
        };
        d.path = ApiPath::in_module(module.path, name);
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
            let path = class_path.member(member.name);
            let (kind, signature, is_async) = match member.kind {
                MemberKind::Method {
                    signature,
                    is_async,
                } => (ApiKind::Method, Some(signature), *is_async),
                MemberKind::Property => (ApiKind::Property, None, false),
                MemberKind::Attribute => (ApiKind::Attribute, None, false),
                MemberKind::Class => (ApiKind::Class, None, false),
            };
            let owner = self.definition(member.defined_in).path.clone();
            let canonical = owner.member(member.name);
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
                is_async,
                public,
                external: None,
                bases: Vec::new(),
                instance_of: None,
            });
        }
    }

    fn finish(self, modules: Vec<ModuleEntry>, stats: FlowStats) -> ReleaseApis {
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
        let mut externals = self.externals;
        externals.sort();
        externals.dedup();
        ReleaseApis {
            modules,
            apis,
            externals,
            stats,
        }
    }
}
