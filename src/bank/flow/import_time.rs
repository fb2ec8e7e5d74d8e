//! What a release imports from other distributions when it is imported: the external modules
//! and names its top-level packages import, following its own modules from each package's
//! `__init__` through the imports that always run (see [`FileSummary::eager_imports`]).
//!
//! Only what surely runs counts: an import under an `if`, in a `try` whose handler goes on
//! without the module, inside a function, or made lazily is left out, and so is a module no
//! such import reaches (tests, benchmarks, optional backends). A compiled module's imports
//! cannot be read. So the list is what the release cannot be imported without, never more;
//! the resolver makes each distribution it names a dependency of the release.

use std::collections::{BTreeSet, VecDeque};

use super::input::{InputSource, ReleaseInput};
use super::relative::absolute_module;
use crate::bank::extract::{Binding, FileSummary};
use crate::names::ModulePath;

/// Top-level modules that are not imported for use: a release's tests, benchmarks, examples
/// and build scripts, which some releases install beside their packages.
const NOT_IMPORTED: &[&str] = &[
    "setup",
    "conftest",
    "test",
    "tests",
    "testing",
    "benchmark",
    "benchmarks",
    "bench",
    "doc",
    "docs",
    "example",
    "examples",
];

/// The external dotted paths (`scipy.sparse`, `scipy.misc.comb`, `tensorflow.compat.v2`) the
/// modules imported with the release's top-level modules import unconditionally, sorted,
/// each once. Includes the standard library's: which modules are standard depends on the
/// Python, which the resolver knows and the bank does not. `None` when no top-level module
/// was read from source (a compiled-only release, a meta wheel): nothing can be said.
pub fn external_imports(input: &ReleaseInput<'_>) -> Option<Vec<String>> {
    let mut input = input.clone();
    input.complete_parents();
    let own_tops: BTreeSet<&str> = input.modules.keys().map(|m| m.top_level()).collect();
    let mut walk = Walk {
        input: &input,
        own_tops,
        seen: BTreeSet::new(),
        queue: VecDeque::new(),
        external: BTreeSet::new(),
    };
    let mut read = false;
    for (module, entry) in &input.modules {
        if module.parent().is_none() && !NOT_IMPORTED.contains(&module.as_str()) {
            read |= matches!(entry.source, InputSource::Source { is_stub: false, .. });
            walk.reach(module.as_str());
        }
    }
    while let Some(module) = walk.queue.pop_front() {
        walk.visit(&module);
    }
    read.then(|| walk.external.into_iter().collect())
}

struct Walk<'i, 'a> {
    input: &'i ReleaseInput<'a>,
    own_tops: BTreeSet<&'i str>,
    seen: BTreeSet<ModulePath>,
    queue: VecDeque<ModulePath>,
    external: BTreeSet<String>,
}

impl Walk<'_, '_> {
    /// Importing `path` of this release runs it and each package above it.
    fn reach(&mut self, path: &str) {
        let Ok(module) = ModulePath::new(path) else {
            return;
        };
        let mut at = Some(module);
        while let Some(m) = at {
            at = m.parent();
            if self.input.modules.contains_key(&m) && self.seen.insert(m.clone()) {
                self.queue.push_back(m);
            }
        }
    }

    fn is_own(&self, path: &str) -> bool {
        let top = path.split('.').next().unwrap_or(path);
        self.own_tops.contains(top)
    }

    fn is_module(&self, path: &str) -> bool {
        ModulePath::new(path).is_ok_and(|m| self.input.modules.contains_key(&m))
    }

    fn visit(&mut self, module: &ModulePath) {
        let Some(entry) = self.input.modules.get(module) else {
            return;
        };
        // A stub describes, and never runs; a compiled module's imports cannot be read.
        let InputSource::Source {
            summary,
            is_stub: false,
            ..
        } = entry.source
        else {
            return;
        };
        let is_package = entry.is_package;
        for (i, binding) in summary.bindings.iter().enumerate() {
            if !summary.is_eager_import(i) {
                continue;
            }
            match binding {
                Binding::Import(import) => {
                    let target = self.sibling(module, is_package, summary, &import.module);
                    if self.is_own(&target) {
                        self.reach(&target);
                    } else {
                        self.external.insert(target);
                    }
                }
                Binding::ImportFrom(from) => {
                    let Some(base) =
                        absolute_module(module, is_package, from.level, from.module.as_deref())
                    else {
                        continue;
                    };
                    let base = if from.level == 0 {
                        self.sibling(module, is_package, summary, &base)
                    } else {
                        base
                    };
                    if self.is_own(&base) {
                        self.reach(&base);
                        // `from pkg import sub` imports the submodule when there is one.
                        for name in from.names.iter().filter(|n| n.name != "*") {
                            let sub = format!("{base}.{}", name.name);
                            if self.is_module(&sub) {
                                self.reach(&sub);
                            }
                        }
                    } else if from.is_star() {
                        self.external.insert(base);
                    } else {
                        for name in &from.names {
                            self.external.insert(format!("{base}.{}", name.name));
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// An absolute-looking import in Python 2 code without `absolute_import` means a sibling
    /// module when the release has one (`import core` inside `pkg/__init__.py` is `pkg.core`).
    fn sibling(
        &self,
        module: &ModulePath,
        is_package: bool,
        summary: &FileSummary,
        path: &str,
    ) -> String {
        if self.input.python2 && !summary.absolute_import && !self.is_module(path) {
            let package = if is_package {
                Some(module.clone())
            } else {
                module.parent()
            };
            if let Some(package) = package {
                let sibling = format!("{package}.{path}");
                if self.is_module(&sibling) {
                    return sibling;
                }
            }
        }
        path.to_string()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::bank::extract::{summarize_source, ArchiveKind, ReleaseLayout};

    fn imports_of(files: &[(&str, &str)], python2: bool) -> Vec<String> {
        read_imports(files, python2).expect("read from source")
    }

    fn read_imports(files: &[(&str, &str)], python2: bool) -> Option<Vec<String>> {
        let layout = ReleaseLayout::new(ArchiveKind::Wheel, files.iter().map(|(p, _)| *p));
        let summaries: HashMap<&str, FileSummary> = files
            .iter()
            .map(|(p, src)| (*p, summarize_source(src, p.ends_with(".pyi"))))
            .collect();
        let mut input = ReleaseInput::from_layout(&layout, |p| summaries.get(p));
        input.python2(python2);
        external_imports(&input)
    }

    #[test]
    fn follows_the_release_from_init_through_imports_that_always_run() {
        let found = imports_of(
            &[
                (
                    "sk/__init__.py",
                    "import os\nfrom . import base\nfrom .utils import fixes\n",
                ),
                (
                    "sk/base.py",
                    "import numpy as np\nfrom scipy import sparse\nfrom scipy.misc import comb\n",
                ),
                ("sk/utils/__init__.py", "import joblib\n"),
                ("sk/utils/fixes.py", "from sk.externals import six\n"),
                ("sk/externals/__init__.py", ""),
                ("sk/externals/six.py", "import functools\n"),
                // Reached by no import that runs with the package.
                ("sk/plotting.py", "import matplotlib.pyplot as plt\n"),
                ("sk/tests/test_base.py", "import pytest\n"),
            ],
            false,
        );
        assert_eq!(
            found,
            [
                "functools",
                "joblib",
                "numpy",
                "os",
                "scipy.misc.comb",
                "scipy.sparse"
            ]
        );
    }

    #[test]
    fn guarded_imports_and_function_bodies_are_left_out() {
        let found = imports_of(
            &[(
                "k/__init__.py",
                "\
import yaml
try:
    import h5py
except ImportError:
    h5py = None
try:
    from tensorflow.python import pywrap
except ImportError:
    raise ImportError('install tensorflow')
if backend == 'theano':
    from theano import tensor
else:
    import cntk
with warnings.catch_warnings():
    import scipy.ndimage as ndi
def load():
    import pandas
from typing import TYPE_CHECKING
if TYPE_CHECKING:
    import torch
",
            )],
            false,
        );
        assert_eq!(
            found,
            [
                "scipy.ndimage",
                "tensorflow.python.pywrap",
                "typing.TYPE_CHECKING",
                "yaml"
            ]
        );
    }

    #[test]
    fn a_build_flag_runs_its_else_branch() {
        let found = imports_of(
            &[
                (
                    "sk/__init__.py",
                    "\
try:
    __SK_SETUP__
except NameError:
    __SK_SETUP__ = False
if __SK_SETUP__:
    import setuptools
else:
    from .base import clone
",
                ),
                ("sk/base.py", "from scipy import sparse\n"),
            ],
            false,
        );
        assert_eq!(found, ["scipy.sparse"]);
    }

    #[test]
    fn other_top_level_packages_of_the_release_are_its_own() {
        let found = imports_of(
            &[
                ("tf/__init__.py", "from tf_core import api\nimport six\n"),
                ("tf_core/__init__.py", ""),
                ("tf_core/api.py", "import numpy\n"),
                ("setup.py", "import setuptools\n"),
            ],
            false,
        );
        assert_eq!(found, ["numpy", "six"]);
    }

    #[test]
    fn python2_implicit_relative_imports_are_siblings() {
        let files = [
            (
                "req/__init__.py",
                "import core\nfrom compat import urlparse\n",
            ),
            ("req/core.py", "import chardet\n"),
            ("req/compat.py", "import urllib\n"),
        ];
        assert_eq!(imports_of(&files, true), ["chardet", "urllib"]);
        // On Python 3 the same statements mean top-level modules.
        assert_eq!(imports_of(&files, false), ["compat.urlparse", "core"]);
    }

    #[test]
    fn nothing_is_said_of_a_release_without_sources() {
        assert_eq!(
            read_imports(&[("ext.cpython-36m-x86_64-linux-gnu.so", "")], false),
            None
        );
        assert_eq!(
            read_imports(&[("tests/__init__.py", "import pytest\n")], false),
            None
        );
    }

    #[test]
    fn stubs_and_lazy_loaders_import_nothing() {
        let found = imports_of(
            &[
                (
                    "tf/__init__.py",
                    "keras = LazyLoader('keras', globals(), 'keras.api._v2.keras')\nfrom . import ops\n",
                ),
                ("tf/ops.pyi", "import numpy\n"),
            ],
            false,
        );
        assert!(found.is_empty(), "{found:?}");
    }
}
