//! Import flow: from a release's file summaries to every public name it makes reachable.
//!
//! The rules, in Python's own terms:
//! - a module's names are its definitions (functions, classes, assignments) and what its
//!   imports bind: `from .x import f`, `from x import f as g`, `import a.b` (binds `a`),
//!   `import a.b as c`, and `from x import *` (the names in `x.__all__`, else `x`'s names
//!   without a leading underscore);
//! - a package's submodules are attributes of the package;
//! - an assignment of a bare name (`DataFrame = frame.DataFrame`) is an alias;
//! - a name is public when its module path and the name itself have no leading underscore,
//!   or when the module lists it in `__all__`;
//! - class members are reachable through every alias of their class, with members inherited
//!   from base classes of the same release; each is listed once, under the class that
//!   defines it, and [`ReleaseApis::resolve`] answers for any alias and any subclass (or
//!   [`FlowOptions`] lists them all);
//! - names from compiled modules, or listed in `__all__` with no visible definition, are
//!   exported with kind [`ApiKind::Unknown`];
//! - names bound to another distribution's objects (`from numpy import ndarray` inside pandas)
//!   are never followed, and are APIs only when listed in `__all__` (as `Unknown`, with
//!   `external` set); otherwise they are reported apart, in [`ReleaseApis::externals`];
//! - what the release imports from other distributions whenever it is imported is listed in
//!   [`ReleaseApis::external_imports`] (see [`external_imports`]).
//!
//! Everything is iterated to a fixed point, so the order of modules and cycles between them
//! do not matter.

mod emit;
mod import_time;
mod input;
mod members;
mod namespace;
mod output;
mod relative;

pub use import_time::external_imports;
pub use input::ReleaseInput;
pub use output::{
    ApiEntry, ApiKind, FlowOptions, FlowStats, ModuleEntry, ModuleKind, ModuleMirror, ReleaseApis,
    UnknownKind,
};
pub use relative::absolute_module;

use crate::bank::extract;

/// Computes the public APIs of one release, with the default [`FlowOptions`].
pub fn analyze(input: &ReleaseInput<'_>) -> ReleaseApis {
    analyze_with(input, &FlowOptions::default())
}

pub fn analyze_with(input: &ReleaseInput<'_>, options: &FlowOptions) -> ReleaseApis {
    let external_imports = external_imports(input);
    let mut input = input.clone();
    input.complete_parents();
    // A source and the stub beside it are read as one summary, the stub's names as fallbacks.
    let merged: Vec<(crate::names::ModulePath, extract::FileSummary)> = input
        .modules
        .iter()
        .filter_map(|(path, m)| match m.source {
            input::InputSource::Source {
                summary,
                stub: Some(stub),
                ..
            } => Some((path.clone(), summary.with_stub(stub))),
            _ => None,
        })
        .collect();
    for (path, summary) in &merged {
        if let Some(m) = input.modules.get_mut(path) {
            m.source = input::InputSource::Source {
                summary,
                is_stub: false,
                stub: None,
            };
        }
    }
    let mut solver = namespace::Solver::new(&input);
    solver.solve();
    ReleaseApis {
        external_imports,
        ..emit::emit(&solver, options)
    }
}
