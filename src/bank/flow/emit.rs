//! From the solved namespaces to [`ReleaseApis`].

use std::collections::BTreeMap;

use crate::bank::extract::{is_private, Binding, MemberKind, Signature};
use crate::names::{ApiPath, ModulePath};

use super::input::InputSource;
use super::members::{class_of, ClassTable};
use super::namespace::{DefRef, ModId, Solver, Target};
use super::output::{
    ApiEntry, ApiKind, ExternalRef, FlowStats, ModuleEntry, ModuleKind, ReleaseApis,
};

/// What an entry says about its definition, shared by all of its aliases.
#[derive(Clone)]
struct Description {
    kind: ApiKind,
    signature: Option<Signature>,
    is_async: bool,
}

struct Emitter<'s, 'a> {
    solver: &'s Solver<'a>,
    classes: ClassTable<'a>,
    entries: BTreeMap<String, ApiEntry>,
    /// Definitions some entry names as canonical, to be listed even if private.
    canonicals: BTreeMap<String, Description>,
    externals: Vec<ExternalRef>,
}

pub(crate) fn emit(solver: &Solver<'_>) -> ReleaseApis {
    let mut emitter = Emitter {
        solver,
        classes: ClassTable::default(),
        entries: BTreeMap::new(),
        canonicals: BTreeMap::new(),
        externals: Vec::new(),
    };
    let mut stats = FlowStats {
        modules: solver.modules.len(),
        iterations: solver.passes,
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
        if is_public_module(&info.path) {
            emitter.insert(
                info.path.as_str().to_string(),
                ApiEntry {
                    path: ApiPath::from(info.path.clone()),
                    kind: ApiKind::Module,
                    canonical: None,
                    signature: None,
                    is_async: false,
                    public: true,
                    external: None,
                },
            );
        }
    }
    for id in 0..solver.modules.len() as ModId {
        emitter.module_names(id);
    }
    emitter.finish(modules, stats)
}

fn is_public_module(path: &ModulePath) -> bool {
    !path.segments().any(is_private)
}

impl<'s, 'a> Emitter<'s, 'a> {
    fn insert(&mut self, path: String, entry: ApiEntry) {
        self.entries.entry(path).or_insert(entry);
    }

    fn module_names(&mut self, id: ModId) {
        let info = self.solver.module(id);
        let module_public = is_public_module(&info.path);
        let ns = self.solver.namespace(id);
        let mut names: Vec<(&String, &Target)> =
            ns.names.iter().map(|(n, b)| (n, &b.target)).collect();
        names.sort_by(|a, b| a.0.cmp(b.0));
        for (name, target) in names {
            let path = format!("{}.{name}", info.path.as_str());
            if self.solver.by_path.contains_key(&path) {
                continue; // The submodule itself, listed with the modules.
            }
            let in_all = ns.all.as_ref().is_some_and(|a| a.contains(name));
            let public = module_public && (!is_private(name) || in_all);
            if !public {
                continue;
            }
            let Ok(api_path) = ApiPath::new(&path) else {
                continue;
            };
            match target {
                Target::External(target) => {
                    if in_all {
                        self.insert(
                            path,
                            ApiEntry {
                                path: api_path,
                                kind: ApiKind::Unknown,
                                canonical: None,
                                signature: None,
                                is_async: false,
                                public,
                                external: Some(target.clone()),
                            },
                        );
                    } else {
                        self.externals.push(ExternalRef {
                            path: api_path,
                            target: target.clone(),
                        });
                    }
                }
                Target::Module(m) => {
                    let module_path = &self.solver.module(*m).path;
                    // `import pkg.sub` inside `pkg` binds `pkg` itself: not worth an API.
                    if info.path.starts_with(module_path) {
                        continue;
                    }
                    self.canonicals.insert(
                        module_path.as_str().to_string(),
                        Description {
                            kind: ApiKind::Module,
                            signature: None,
                            is_async: false,
                        },
                    );
                    self.insert(
                        path,
                        ApiEntry {
                            path: api_path,
                            kind: ApiKind::Module,
                            canonical: ApiPath::new(module_path.as_str()).ok(),
                            signature: None,
                            is_async: false,
                            public,
                            external: None,
                        },
                    );
                }
                Target::Opaque(p) => {
                    let description = Description {
                        kind: ApiKind::Unknown,
                        signature: None,
                        is_async: false,
                    };
                    let canonical = self.link(&path, p, &description);
                    self.insert(path, entry(api_path, &description, canonical, public));
                }
                Target::Def(def) => {
                    let (canonical_path, description) = self.describe(*def);
                    let canonical = self.link(&path, &canonical_path, &description);
                    self.insert(
                        path.clone(),
                        entry(api_path, &description, canonical, public),
                    );
                    if description.kind == ApiKind::Class {
                        self.class_members(&path, *def, public);
                    }
                }
            }
        }
    }

    /// `Some(canonical)` for an alias (remembering that the definition must be listed),
    /// `None` when `path` is the definition itself.
    fn link(&mut self, path: &str, canonical: &str, description: &Description) -> Option<ApiPath> {
        if path == canonical {
            return None;
        }
        let canonical_path = ApiPath::new(canonical).ok()?;
        self.canonicals
            .entry(canonical.to_string())
            .or_insert_with(|| description.clone());
        Some(canonical_path)
    }

    /// The canonical path of a definition and what it is.
    fn describe(&mut self, def: DefRef) -> (String, Description) {
        let module = self.solver.module(def.module);
        let binding = module
            .summary()
            .and_then(|s| s.bindings.get(def.binding as usize));
        let (name, description) = match binding {
            Some(Binding::Function(f)) => (
                f.name.as_str(),
                Description {
                    kind: ApiKind::Function,
                    signature: Some(f.signature.clone()),
                    is_async: f.is_async,
                },
            ),
            Some(Binding::Class(c)) => {
                let init = self.classes.info(self.solver, def).init.cloned();
                (
                    c.name.as_str(),
                    Description {
                        kind: ApiKind::Class,
                        signature: init,
                        is_async: false,
                    },
                )
            }
            Some(Binding::Variable(v)) => (
                v.name.as_str(),
                Description {
                    kind: ApiKind::Attribute,
                    signature: None,
                    is_async: false,
                },
            ),
            // Only definitions become `Target::Def`.
            _ => (
                "",
                Description {
                    kind: ApiKind::Unknown,
                    signature: None,
                    is_async: false,
                },
            ),
        };
        (format!("{}.{name}", module.path.as_str()), description)
    }

    /// `class_path.member` for every member of the class, own or inherited, linked to the
    /// class that defines it.
    fn class_members(&mut self, class_path: &str, class: DefRef, public: bool) {
        let info = self.classes.info(self.solver, class);
        for member in &info.members {
            let path = format!("{class_path}.{}", member.name);
            let Ok(api_path) = ApiPath::new(&path) else {
                continue;
            };
            let Some(owner) = class_of(self.solver, member.defined_in) else {
                continue;
            };
            let owner_path = format!(
                "{}.{}",
                self.solver.module(member.defined_in.module).path.as_str(),
                owner.name
            );
            let canonical_path = format!("{owner_path}.{}", member.name);
            let description = match member.kind {
                MemberKind::Method {
                    signature,
                    is_async,
                } => Description {
                    kind: ApiKind::Method,
                    signature: Some(signature.clone()),
                    is_async: *is_async,
                },
                MemberKind::Property => Description {
                    kind: ApiKind::Property,
                    signature: None,
                    is_async: false,
                },
                MemberKind::Attribute => Description {
                    kind: ApiKind::Attribute,
                    signature: None,
                    is_async: false,
                },
                MemberKind::Class => Description {
                    kind: ApiKind::Class,
                    signature: None,
                    is_async: false,
                },
            };
            let canonical = self.link(&path, &canonical_path, &description);
            self.insert(path, entry(api_path, &description, canonical, public));
        }
    }

    fn finish(mut self, modules: Vec<ModuleEntry>, stats: FlowStats) -> ReleaseApis {
        for (path, description) in std::mem::take(&mut self.canonicals) {
            if self.entries.contains_key(&path) {
                continue;
            }
            let Ok(api_path) = ApiPath::new(&path) else {
                continue;
            };
            let e = entry(api_path, &description, None, false);
            self.entries.insert(path, e);
        }
        self.externals.sort();
        self.externals.dedup();
        ReleaseApis {
            modules,
            apis: self.entries.into_values().collect(),
            externals: self.externals,
            stats,
        }
    }
}

fn entry(
    path: ApiPath,
    description: &Description,
    canonical: Option<ApiPath>,
    public: bool,
) -> ApiEntry {
    ApiEntry {
        path,
        kind: description.kind,
        canonical,
        signature: description.signature.clone(),
        is_async: description.is_async,
        public,
        external: None,
    }
}
