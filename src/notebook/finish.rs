//! Turning traced evidence into the reported [`Usage`]: classifying modules as third-party,
//! standard library or local, aggregating and sorting.

use crate::names::{ApiPath, ModulePath};
use crate::python::{PythonRange, PythonVersion};

use super::collect::{kinds_of, receiver_of, sorted_keywords, Evidence};
use super::format::Notebook;
use super::python_version::HintReason;
use super::stdlib::{self, VersionSet};
use super::usage::{
    ApiUse, Import, ImportVia, LocalModule, MemberUse, NotebookInfo, Origin, OutputEvidence,
    PythonEvidence, Receiver, ThirdPartyImport, Usage,
};

pub(crate) struct Classifier<'a> {
    pub(crate) locals: &'a [LocalModule],
    pub(crate) candidates: VersionSet,
}

impl Classifier<'_> {
    /// Local modules shadow everything (the notebook's directory comes first on `sys.path`),
    /// then the standard library of any candidate version.
    pub(crate) fn origin(&self, top: &str) -> Origin {
        if self.locals.iter().any(|m| m.name == top) {
            Origin::Local
        } else if top == "__future__"
            || top == "__main__"
            || stdlib::is_stdlib(top, self.candidates)
        {
            Origin::Stdlib
        } else {
            Origin::ThirdParty
        }
    }
}

/// The local modules the notebook imports: the others beside it say nothing about it.
fn imported_locals(locals: Vec<LocalModule>, imports: &[Import]) -> Vec<LocalModule> {
    locals
        .into_iter()
        .filter(|m| {
            imports
                .iter()
                .any(|i| i.origin == Origin::Local && i.module.top_level() == m.name)
        })
        .collect()
}

pub(crate) fn build(
    nb: &Notebook,
    mut ev: Evidence,
    outputs: Vec<OutputEvidence>,
    locals: Vec<LocalModule>,
    candidates: VersionSet,
) -> Usage {
    let classify = Classifier {
        locals: &locals,
        candidates,
    };

    let mut imports = Vec::with_capacity(ev.imports.len());
    let mut third: Vec<ThirdPartyImport> = Vec::new();
    for raw in std::mem::take(&mut ev.imports) {
        let by_magic = matches!(raw.via, ImportVia::LoadExt | ImportVia::Magic);
        let origin = if raw.level > 0 {
            Origin::Local
        } else if by_magic && raw.module.top_level() == "IPython" {
            Origin::Kernel
        } else {
            classify.origin(raw.module.top_level())
        };
        if origin == Origin::ThirdParty {
            let top = raw.module.top_level();
            match third.iter_mut().find(|t| t.name.as_str() == top) {
                Some(t) => {
                    t.count += 1;
                    t.optional &= raw.optional;
                }
                None => third.push(ThirdPartyImport {
                    name: ModulePath::new(top).unwrap_or_else(|_| raw.module.clone()),
                    optional: raw.optional,
                    count: 1,
                    at: raw.at,
                }),
            }
        }
        // A repository folder without `__init__.py` imports only as a namespace package.
        if origin == Origin::Local && raw.level == 0 {
            let top = raw.module.top_level();
            let namespace = locals
                .iter()
                .any(|m| m.name == top && m.repository.as_ref().is_some_and(|p| p.namespace));
            if namespace {
                let range = PythonRange::at_least(PythonVersion::new(3, 3));
                let weak = raw.optional || raw.in_function;
                ev.hint(HintReason::NamespacePackage, top, range, weak, Some(raw.at));
            }
        }
        if origin == Origin::Stdlib {
            let top = raw.module.top_level();
            if let Some(range) = stdlib::version_range(top) {
                let weak = raw.optional || stdlib::has_backport(top) || raw.in_function;
                ev.hint(HintReason::StdlibModule, top, range, weak, Some(raw.at));
            }
        }
        imports.push(Import {
            module: raw.module,
            name: raw.name,
            alias: raw.alias,
            star: raw.star,
            level: raw.level,
            optional: raw.optional,
            in_function: raw.in_function,
            via: raw.via,
            origin,
            at: raw.at,
        });
    }
    third.sort_by(|a, b| a.name.cmp(&b.name));

    let mut apis: Vec<ApiUse> = ev
        .apis
        .into_iter()
        .filter_map(|(path, acc)| {
            // `module.__version__`, `x.__class__`: every object has these
            if path
                .rsplit('.')
                .next()
                .is_some_and(|last| last.starts_with("__") && last.ends_with("__"))
            {
                return None;
            }
            let api = ApiPath::new(&path).ok()?;
            Some(ApiUse {
                origin: classify.origin(api.top_level()),
                api,
                count: acc.count,
                kinds: kinds_of(acc.kinds),
                keywords: sorted_keywords(acc.keywords),
                locations: acc.locations,
            })
        })
        .collect();
    apis.sort_by(|a, b| a.api.cmp(&b.api));

    let mut members: Vec<MemberUse> = Vec::new();
    for (member, list) in ev.members {
        for acc in list {
            let Some(receiver) = receiver_of(acc.origin) else {
                continue;
            };
            if let Receiver::DerivedFrom(api) = &receiver {
                if classify.origin(api.top_level()) != Origin::ThirdParty {
                    continue;
                }
            }
            members.push(MemberUse {
                member: member.to_string(),
                receiver,
                count: acc.count,
                called: acc.called,
                keywords: sorted_keywords(acc.keywords),
                example: acc.example,
                locations: acc.locations,
            });
        }
    }
    members.sort_by(|a, b| (&a.member, &a.receiver).cmp(&(&b.member, &b.receiver)));

    let mut hints = ev.hints;
    hints.sort_by_key(|h| (h.reason, h.at));
    // What the code needs; where it last ran is a preference (`PythonEvidence::recorded`).
    let range = super::usage::code_range(&hints);

    let mut warnings = ev.warnings;
    warnings.sort_by_key(|w| w.at);
    let mut notes = ev.notes;
    notes.sort_by_key(|n| n.at);

    let local_modules = imported_locals(locals, &imports);
    let mut files = ev.files;
    files.sort_by_key(|f| f.at);
    let mut seen_files = std::collections::HashSet::new();
    files.retain(|f| seen_files.insert((f.path.clone(), f.access)));
    let mut network = ev.network;
    network.sort_by_key(|n| n.at);
    let mut seen_network = std::collections::HashSet::new();
    network.retain(|n| seen_network.insert((n.kind, n.detail.clone())));
    Usage {
        notebook: NotebookInfo {
            path: nb.path.clone(),
            format: nb.format,
            cells: nb.cells.len() as u32,
            code_cells: nb.cells.iter().filter(|c| c.is_nonempty_code()).count() as u32,
        },
        imports,
        third_party: third,
        local_modules,
        apis,
        members,
        requirements: ev.requirements,
        python: PythonEvidence {
            kernel: nb.kernel.clone(),
            language_version: nb.language_version.clone(),
            conflict: range.is_empty(),
            range,
            hints,
        },
        outputs,
        notes,
        files,
        network,
        warnings,
        declarations: Default::default(),
        refusals: Vec::new(),
        lacked: Vec::new(),
        imported_as: None,
    }
}
