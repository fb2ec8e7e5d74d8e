//! The modules of one release, as the flow sees them.

use std::collections::BTreeMap;

use crate::bank::extract::{FileSummary, LayoutSource, ReleaseLayout};
use crate::names::ModulePath;

#[derive(Debug, Clone, Copy)]
pub(crate) enum InputSource<'a> {
    Source {
        summary: &'a FileSummary,
        is_stub: bool,
        /// The `.pyi` beside a `.py`; merged into `summary` before the flow runs.
        stub: Option<&'a FileSummary>,
    },
    Opaque,
    Namespace,
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct InputModule<'a> {
    pub(crate) is_package: bool,
    pub(crate) source: InputSource<'a>,
}

/// A release's modules: summarized sources, opaque compiled modules and namespace packages.
/// Packages that only appear as the parent of another module are added as namespace packages.
#[derive(Debug, Clone, Default)]
pub struct ReleaseInput<'a> {
    pub(crate) modules: BTreeMap<ModulePath, InputModule<'a>>,
    /// The release runs on Python 2: absolute-looking imports may mean siblings.
    pub(crate) python2: bool,
}

impl<'a> ReleaseInput<'a> {
    pub fn new() -> Self {
        Self::default()
    }

    /// A module read from source (`is_stub` for a `.pyi`); `is_package` for an `__init__`.
    pub fn add_source(
        &mut self,
        module: ModulePath,
        is_package: bool,
        is_stub: bool,
        summary: &'a FileSummary,
    ) -> &mut Self {
        self.modules.insert(
            module,
            InputModule {
                is_package,
                source: InputSource::Source {
                    summary,
                    is_stub,
                    stub: None,
                },
            },
        );
        self
    }

    /// A module read from its `.py`, with the `.pyi` stub beside it.
    pub fn add_source_with_stub(
        &mut self,
        module: ModulePath,
        is_package: bool,
        summary: &'a FileSummary,
        stub: &'a FileSummary,
    ) -> &mut Self {
        self.modules.insert(
            module,
            InputModule {
                is_package,
                source: InputSource::Source {
                    summary,
                    is_stub: false,
                    stub: Some(stub),
                },
            },
        );
        self
    }

    /// A compiled module whose names are unknown.
    pub fn add_opaque(&mut self, module: ModulePath, is_package: bool) -> &mut Self {
        self.modules.insert(
            module,
            InputModule {
                is_package,
                source: InputSource::Opaque,
            },
        );
        self
    }

    pub fn add_namespace(&mut self, module: ModulePath) -> &mut Self {
        self.modules.insert(
            module,
            InputModule {
                is_package: true,
                source: InputSource::Namespace,
            },
        );
        self
    }

    /// The modules of `layout`, with each source file's summary from `summary_of(archive_path)`.
    /// A source whose summary is missing (the file could not be read) counts as opaque.
    pub fn from_layout(
        layout: &ReleaseLayout,
        mut summary_of: impl FnMut(&str) -> Option<&'a FileSummary>,
    ) -> Self {
        let mut input = Self::new();
        for m in layout.modules() {
            match &m.source {
                LayoutSource::File {
                    archive_path,
                    is_stub,
                    stub,
                } => match (
                    summary_of(archive_path),
                    stub.as_deref().and_then(&mut summary_of),
                ) {
                    (Some(summary), Some(stub)) => {
                        input.add_source_with_stub(m.module.clone(), m.is_package, summary, stub);
                    }
                    (Some(summary), None) => {
                        input.add_source(m.module.clone(), m.is_package, *is_stub, summary);
                    }
                    (None, _) => {
                        input.add_opaque(m.module.clone(), m.is_package);
                    }
                },
                LayoutSource::Opaque { .. } => {
                    input.add_opaque(m.module.clone(), m.is_package);
                }
                LayoutSource::Namespace => {
                    input.add_namespace(m.module.clone());
                }
            }
        }
        input
    }

    /// Adds the missing parents of every module as namespace packages.
    pub(crate) fn complete_parents(&mut self) {
        let mut missing = Vec::new();
        for module in self.modules.keys() {
            let mut parent = module.parent();
            while let Some(p) = parent {
                if self.modules.contains_key(&p) {
                    break;
                }
                parent = p.parent();
                missing.push(p);
            }
        }
        for m in missing {
            self.add_namespace(m);
        }
    }

    /// Reads imports by Python 2's rules too, for a release that supports Python 2: a file
    /// without `from __future__ import absolute_import` that imports `core` means its
    /// sibling `pkg.core` when the release has one.
    pub fn python2(&mut self, yes: bool) -> &mut Self {
        self.python2 = yes;
        self
    }

    pub fn len(&self) -> usize {
        self.modules.len()
    }

    pub fn is_empty(&self) -> bool {
        self.modules.is_empty()
    }
}
