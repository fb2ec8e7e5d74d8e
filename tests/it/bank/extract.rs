//! Extraction on small inline sources: what a file summary records, and which module each
//! archive path is.

use nbenv::bank::extract::{
    summarize_bytes, summarize_source, ArchiveKind, Binding, FileSummary, Import, ImportFrom,
    ImportedName, LayoutSource, MemberKind, ReleaseLayout, SourceKind,
};

fn functions(s: &FileSummary) -> Vec<(String, String, bool)> {
    s.bindings
        .iter()
        .filter_map(|b| match b {
            Binding::Function(f) => Some((f.name.clone(), f.signature.to_string(), f.is_async)),
            _ => None,
        })
        .collect()
}

fn variables(s: &FileSummary) -> Vec<(String, Option<String>)> {
    s.bindings
        .iter()
        .filter_map(|b| match b {
            Binding::Variable(v) => Some((v.name.clone(), v.alias_of.clone())),
            _ => None,
        })
        .collect()
}

fn class<'s>(s: &'s FileSummary, name: &str) -> &'s nbenv::bank::extract::Class {
    s.bindings
        .iter()
        .find_map(|b| match b {
            Binding::Class(c) if c.name == name => Some(c),
            _ => None,
        })
        .unwrap_or_else(|| panic!("class {name} not found in {s:#?}"))
}

#[test]
fn functions_sync_async_with_every_parameter_kind() {
    let s = summarize_source(
        "def f(a, /, b, c=1, *args, d, e=2, **kw): pass\n\
         async def g(x, *, y=None): pass\n\
         def _private(): pass\n",
        false,
    );
    assert_eq!(
        functions(&s),
        vec![
            (
                "f".into(),
                "(a, /, b, c=..., *args, d, e=..., **kw)".into(),
                false
            ),
            ("g".into(), "(x, *, y=...)".into(), true),
            ("_private".into(), "()".into(), false),
        ]
    );
    assert_eq!(s.parse_errors, 0);
}

#[test]
fn classes_bases_members_and_constructor() {
    let s = summarize_source(
        r#"
import six
class Base(object):
    pass

class Frame(generic.NDFrame, Generic[T], six.with_metaclass(ABCMeta, Mixin), metaclass=M):
    _private_attr = 1
    columns = None
    size: int
    alias = head
    def __init__(self, data=None, index=None):
        pass
    def head(self, n=5):
        pass
    copy_of_head = head
    @staticmethod
    def build(a, b):
        pass
    @classmethod
    def from_dict(cls, d, orient="columns"):
        pass
    async def fetch(self, url):
        pass
    @property
    def ix(self):
        return 1
    @ix.setter
    def ix(self, value):
        pass
    @cache_readonly
    def shape(self):
        pass
    def _hidden(self):
        pass
    def __len__(self):
        pass
    class Inner:
        pass
    if PY3:
        def py3_only(self): pass
"#,
        false,
    );
    let frame = class(&s, "Frame");
    assert_eq!(
        frame.bases,
        vec!["generic.NDFrame", "Generic", "Mixin"],
        "subscripts are stripped and with_metaclass is seen through"
    );
    assert_eq!(
        frame.init.as_ref().unwrap().to_string(),
        "(data=..., index=...)"
    );
    let members: Vec<(&str, String)> = frame
        .members
        .iter()
        .map(|m| {
            let kind = match &m.kind {
                MemberKind::Method {
                    signature,
                    is_async,
                    ..
                } => format!(
                    "method{} {signature}",
                    if *is_async { " async" } else { "" }
                ),
                MemberKind::Property => "property".into(),
                MemberKind::Attribute => "attribute".into(),
                MemberKind::Class => "class".into(),
            };
            (m.name.as_str(), kind)
        })
        .collect();
    assert_eq!(
        members,
        vec![
            ("columns", "attribute".to_string()),
            ("size", "attribute".to_string()),
            ("alias", "attribute".to_string()),
            ("head", "method (n=...)".to_string()),
            ("copy_of_head", "method (n=...)".to_string()),
            ("build", "method (a, b)".to_string()),
            ("from_dict", "method (d, orient=...)".to_string()),
            ("fetch", "method async (url)".to_string()),
            ("ix", "property".to_string()),
            ("shape", "property".to_string()),
            ("Inner", "class".to_string()),
            ("py3_only", "method ()".to_string()),
        ]
    );
    assert!(class(&s, "Base").bases == vec!["object"]);
    let with_new = summarize_source(
        "class Symbol(Atom):\n    def __new__(cls, name, **assumptions): pass\n",
        false,
    );
    assert_eq!(
        class(&with_new, "Symbol")
            .init
            .as_ref()
            .unwrap()
            .to_string(),
        "(name, **assumptions)"
    );
}

#[test]
fn module_level_assignments() {
    let s = summarize_source(
        "read_csv = _make_parser('read_csv')\n\
         float = float\n\
         DataFrame = frame.DataFrame\n\
         a, (b, *c) = 1, (2, 3)\n\
         x = y = 0\n\
         version: str = '1.0'\n\
         declared_only: int\n\
         obj.attr = 1\n\
         d['k'] = 2\n",
        false,
    );
    assert_eq!(
        variables(&s),
        vec![
            ("read_csv".into(), None),
            ("float".into(), Some("float".into())),
            ("DataFrame".into(), Some("frame.DataFrame".into())),
            ("a".into(), None),
            ("b".into(), None),
            ("c".into(), None),
            ("x".into(), None),
            ("y".into(), None),
            ("version".into(), None),
        ],
        "annotation without value binds nothing at run time; attribute and item targets bind no name"
    );
    // In a stub, a bare annotation declares a module attribute.
    let stub = summarize_source("declared_only: int\n", true);
    assert_eq!(variables(&stub), vec![("declared_only".into(), None)]);
}

#[test]
fn all_literals_and_updates() {
    let s = summarize_source(
        "__all__ = ['a', 'b']\n\
         __all__ += ('c',)\n\
         __all__.extend(['d', 'a'])\n\
         __all__.append('e')\n\
         __all__.remove('b')\n\
         __all__ += core.__all__\n\
         __all__.extend(numeric.__all__ + ['f'])\n",
        false,
    );
    let all = s.all.as_ref().unwrap();
    assert_eq!(all.names, vec!["a", "c", "d", "e", "f"]);
    assert_eq!(all.includes, vec!["core", "numeric"]);
    assert_eq!(all.removed, vec!["b"]);
    assert!(!all.dynamic);

    let reset = summarize_source("__all__ = ['x']\n__all__ = ('y', 'z')\n", false);
    assert_eq!(reset.all.unwrap().names, vec!["y", "z"]);

    let dynamic = summarize_source(
        "__all__ = ['kept'] + [n for n in dir() if not n.startswith('_')]\n",
        false,
    );
    let all = dynamic.all.unwrap();
    assert!(all.dynamic);
    assert_eq!(all.names, vec!["kept"]);

    // numpy's helper: `extend_all(fromnumeric)` includes `fromnumeric.__all__`.
    let helper = summarize_source(
        "__all__ = ['ones']\n\
         def extend_all(module):\n    existing = set(__all__)\n    for a in module.__all__:\n        if a not in existing:\n            __all__.append(a)\n\
         extend_all(fromnumeric)\nextend_all(umath)\n\
         def unrelated(x):\n    return x\nunrelated(other)\n",
        false,
    );
    let all = helper.all.unwrap();
    assert_eq!(all.names, vec!["ones"]);
    assert_eq!(all.includes, vec!["fromnumeric", "umath"]);
    assert!(!all.dynamic);

    // A loop appending to `__all__` makes it dynamic.
    let looped = summarize_source(
        "__all__ = ['a']\nfor key in table:\n    globals()[key] = table[key]\n    __all__.append(key)\n",
        false,
    );
    assert!(looped.all.unwrap().dynamic);
    assert!(
        looped.dynamic_exports,
        "globals() writes are dynamic exports"
    );

    let annotated = summarize_source("__all__: list[str] = ['q']\n", false);
    assert_eq!(annotated.all.unwrap().names, vec!["q"]);

    assert!(summarize_source("x = 1\n", false).all.is_none());
}

#[test]
fn every_import_form_with_levels_and_renames() {
    let s = summarize_source(
        "from __future__ import annotations\n\
         import os\n\
         import a.b\n\
         import a.b as c, d\n\
         from x import f as g, h\n\
         from . import sibling\n\
         from ..pkg.mod import y\n\
         from .core import *\n\
         try:\n    from ._speedups import fast\nexcept ImportError:\n    def fast(): pass\n\
         if TYPE_CHECKING:\n    from typing_only import T\n\
         if sys.version_info >= (3,):\n    from io import StringIO\nelse:\n    from StringIO import StringIO\n\
         def later():\n    import inside_function\n",
        false,
    );
    let imports: Vec<&Binding> = s
        .bindings
        .iter()
        .filter(|b| matches!(b, Binding::Import(_) | Binding::ImportFrom(_)))
        .collect();
    let imp = |module: &str, asname: Option<&str>| {
        Binding::Import(Import {
            module: module.into(),
            asname: asname.map(Into::into),
        })
    };
    let from = |level: u32, module: Option<&str>, names: &[(&str, Option<&str>)]| {
        Binding::ImportFrom(ImportFrom {
            level,
            module: module.map(Into::into),
            names: names
                .iter()
                .map(|(n, a)| ImportedName {
                    name: (*n).into(),
                    asname: a.map(Into::into),
                })
                .collect(),
        })
    };
    let expected = vec![
        imp("os", None),
        imp("a.b", None),
        imp("a.b", Some("c")),
        imp("d", None),
        from(0, Some("x"), &[("f", Some("g")), ("h", None)]),
        from(1, None, &[("sibling", None)]),
        from(2, Some("pkg.mod"), &[("y", None)]),
        from(1, Some("core"), &[("*", None)]),
        from(1, Some("_speedups"), &[("fast", None)]),
        from(0, Some("typing_only"), &[("T", None)]),
        from(0, Some("io"), &[("StringIO", None)]),
        from(0, Some("StringIO"), &[("StringIO", None)]),
    ];
    assert_eq!(imports, expected.iter().collect::<Vec<_>>());
    assert_eq!(
        Import {
            module: "a.b".into(),
            asname: None
        }
        .bound_name(),
        "a"
    );
    // The except-handler def and the else-branch import are fallbacks.
    let fallback_names: Vec<Vec<&str>> = s
        .fallbacks
        .iter()
        .map(|&i| s.bindings[i as usize].bound_names().collect())
        .collect();
    assert_eq!(fallback_names, vec![vec!["fast"], vec!["StringIO"]]);
    let type_checking: Vec<Vec<&str>> = s
        .lazy
        .iter()
        .map(|&i| s.bindings[i as usize].bound_names().collect())
        .collect();
    assert_eq!(type_checking, vec![vec!["T"]]);
}

/// The imports that run whenever the module is imported, by the names they bind.
fn eager(s: &FileSummary) -> Vec<Vec<&str>> {
    s.eager_imports
        .iter()
        .map(|&i| s.bindings[i as usize].bound_names().collect())
        .collect()
}

#[test]
fn imports_that_always_run_are_told_from_guarded_ones() {
    let s = summarize_source(
        "import os\n\
         try:\n    import h5py\nexcept ImportError:\n    h5py = None\n\
         try:\n    import ujson\nexcept:\n    pass\n\
         try:\n    import lzma\nexcept (ValueError, ModuleNotFoundError):\n    lzma = None\n\
         try:\n    from numpy import core\nexcept ImportError as e:\n    raise ImportError('broken numpy') from e\n\
         try:\n    import six\nexcept KeyError:\n    pass\nelse:\n    import yaml\nfinally:\n    import gc\n\
         with warnings.catch_warnings():\n    from scipy import sparse\n\
         if PY2:\n    import cPickle as pickle\nelse:\n    import pickle\n\
         if TYPE_CHECKING:\n    import torch\nelse:\n    import json\n\
         if __PKG_SETUP__:\n    import setuptools\nelse:\n    from .base import clone\n\
         def load():\n    import pandas\n\
         class C:\n    import csv\n\
         tf = LazyLoader('tf', globals(), 'tensorflow')\n",
        false,
    );
    assert_eq!(
        eager(&s),
        [
            vec!["os"],
            vec!["core"],
            vec!["six"],
            vec!["yaml"],
            vec!["gc"],
            vec!["sparse"],
            vec!["json"],
            vec!["clone"],
        ]
    );
    // A stub never runs.
    assert!(summarize_source("import os\n", true)
        .eager_imports
        .is_empty());
}

/// IPython 7.34's `IPython/html.py`, whole: two modules put in place, forwarding to others.
const IPYTHON_HTML: &str = r#"
"""
Shim to maintain backwards compatibility with old IPython.html imports.
"""
import sys
from warnings import warn

from IPython.utils.shimmodule import ShimModule, ShimWarning

warn("The `IPython.html` package has been deprecated since IPython 4.0. "
     "You should import from `notebook` instead. "
     "`IPython.html.widgets` has moved to `ipywidgets`.", ShimWarning)

_widgets = sys.modules['IPython.html.widgets'] = ShimModule(
    src='IPython.html.widgets', mirror='ipywidgets')

_html = ShimModule(
    src='IPython.html', mirror='notebook')

# hook up widgets
_html.widgets = _widgets
sys.modules['IPython.html'] = _html
"#;

#[test]
fn modules_forwarded_to_others_are_read_from_their_shims() {
    let s = summarize_source(IPYTHON_HTML, false);
    let pairs = |s: &FileSummary| -> Vec<(String, String)> { s.mirrors.clone() };
    assert_eq!(
        pairs(&s),
        [
            ("IPython.html.widgets".to_string(), "ipywidgets".to_string()),
            ("IPython.html".to_string(), "notebook".to_string()),
        ]
    );
    // Both keywords literal module paths, and two different modules: nothing else.
    for other in [
        "m = ShimModule(src=name, mirror='ipykernel')\n",
        "m = ShimModule(src='a.b', mirror='ipykernel.%s' % pkg)\n",
        "m = ShimModule(src='a.b', mirror='a.b')\n",
        "m = Image(src='a.png', alt='b')\n",
        // Made, never put in `sys.modules`: forwards nothing.
        "m = ShimModule(src='a.b', mirror='c')\n",
    ] {
        assert!(pairs(&summarize_source(other, false)).is_empty(), "{other}");
    }
}

#[test]
fn module_getattr_marks_dynamic_exports() {
    assert!(
        summarize_source("def __getattr__(name):\n    return _served(name)\n", false)
            .dynamic_exports
    );
    assert!(summarize_source("__getattr__ = _lazy.make_getattr()\n", false).dynamic_exports);
    // One that only raises serves nothing: the module stays closed.
    assert!(
        !summarize_source(
            "def __getattr__(name):\n    raise AttributeError(name)\n",
            false
        )
        .dynamic_exports
    );
    assert!(
        !summarize_source("class A:\n    def __getattr__(self, n): pass\n", false).dynamic_exports
    );
}

#[test]
fn python2_source_keeps_later_definitions_and_counts_errors() {
    let s = summarize_source(
        "print \"hello\"\n\
         exec code in ns\n\
         def after_print(a, b=1):\n    print a\n\
         class Later(object):\n    def m(self):\n        raise ValueError, 'x'\n\
         from .sub import thing\n",
        false,
    );
    assert!(s.parse_errors >= 2, "errors: {}", s.parse_errors);
    assert_eq!(
        functions(&s),
        vec![("after_print".into(), "(a, b=...)".into(), false)]
    );
    assert_eq!(class(&s, "Later").members.len(), 1);
    assert!(s
        .bindings
        .iter()
        .any(|b| b.bound_names().any(|n| n == "thing")));
}

#[test]
fn overloads_and_setattr_are_not_guessed() {
    let s = summarize_source(
        "@overload\ndef f(a: int) -> int: ...\n\
         @overload\ndef f(a: str) -> str: ...\n\
         def f(a, b=None): pass\n\
         for _name in ['ix', 'loc']:\n    setattr(Frame, _name, property(lambda self: 1))\n\
         globals()['made_up'] = 1\n",
        false,
    );
    assert_eq!(
        functions(&s),
        vec![("f".into(), "(a, b=...)".into(), false)]
    );
    assert_eq!(s.bindings.len(), 1, "loops and setattr add nothing: {s:#?}");
    // A stub with only overloads keeps the first.
    let stub = summarize_source(
        "@overload\ndef g(a: int) -> int: ...\n@overload\ndef g(a: str, b: int) -> str: ...\n",
        true,
    );
    assert_eq!(functions(&stub), vec![("g".into(), "(a)".into(), false)]);
}

#[test]
fn broken_statements_never_yield_invalid_names() {
    let s = summarize_source(
        "def (x): pass\nclass :\n    pass\nfrom . import (\nimport\nx = \n= 3\nfrom a import b as\ndef ok(): pass\n",
        false,
    );
    assert!(s.parse_errors > 0);
    for binding in &s.bindings {
        for name in binding.bound_names() {
            assert!(nbenv::names::is_identifier(name), "{name:?} in {s:#?}");
        }
    }
    assert!(functions(&s).iter().any(|(n, _, _)| n == "ok"));
    let json = serde_json::to_string(&s).unwrap();
    assert_eq!(serde_json::from_str::<FileSummary>(&json).unwrap(), s);
}

#[test]
fn long_generated_chains_do_not_exhaust_the_stack() {
    // Run where the stack is as small as in a worker pool. (Much deeper, ruff's parser itself
    // runs out of stack in debug builds; in release it parses 100k-deep chains.)
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(|| {
            let chain = vec!["a"; 10_000].join(".");
            let all = vec!["['q']"; 10_000].join(" + ");
            let s = summarize_source(&format!("x = {chain}\n__all__ = {all}\n"), false);
            assert_eq!(
                variables(&s)[0].1.as_deref().map(str::len),
                Some(chain.len())
            );
            assert_eq!(s.all.unwrap().names, vec!["q"]);
        })
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn module_level_del_is_recorded() {
    let s = summarize_source("from .x import tmp\ndel tmp\n", false);
    assert_eq!(
        s.bindings.last(),
        Some(&Binding::Delete(vec!["tmp".into()]))
    );
}

#[test]
fn summaries_are_compact_and_round_trip() {
    let source = r#""""A module docstring that the summary must not carry.

It goes on for a while, as real docstrings do.
"""
import numpy as np
from .core import *

__all__ = ['read', 'Frame']


def read(path, *, sep=',', **kwargs):
    """Read a file.

    Parameters
    ----------
    path : str
    """
    with open(path) as handle:
        rows = [line.split(sep) for line in handle]
    return np.asarray(rows)


class Frame(Base):
    def __init__(self, data=None):
        self.data = data
        self.cache = {}

    def head(self, n=5):
        """First rows."""
        return self.data[:n]
"#;
    let s = summarize_source(source, false);
    let json = serde_json::to_string(&s).unwrap();
    let back: FileSummary = serde_json::from_str(&json).unwrap();
    assert_eq!(back, s);
    assert!(!json.contains("docstring") && !json.contains("asarray"));
    // Attributes set in `__init__` are members too.
    assert!(json.contains(r#"{"n":"cache","k":"attr"}"#), "{json}");
    assert!(
        json.len() * 5 < source.len() * 3,
        "summary {} bytes for {} bytes of source: {json}",
        json.len(),
        source.len()
    );
    // Relative imports are kept with their level: the summary does not know its module.
    assert!(json.contains(r#""l":1"#), "{json}");
}

#[test]
fn bytes_with_bom_and_latin1() {
    let s = summarize_bytes(b"\xef\xbb\xbfdef f(): pass\n", false);
    assert_eq!(functions(&s).len(), 1);
    let s = summarize_bytes(
        b"# -*- coding: latin-1 -*-\nname = '\xe9'\ndef g(): pass\n",
        false,
    );
    assert_eq!(functions(&s).len(), 1);
}

fn layout_modules(layout: &ReleaseLayout) -> Vec<(String, &'static str)> {
    layout
        .modules()
        .iter()
        .map(|m| {
            let kind = match (&m.source, m.is_package) {
                (LayoutSource::File { is_stub: false, .. }, false) => "py",
                (LayoutSource::File { is_stub: false, .. }, true) => "pkg",
                (LayoutSource::File { is_stub: true, .. }, _) => "stub",
                (LayoutSource::Opaque { .. }, _) => "opaque",
                (LayoutSource::Namespace, _) => "namespace",
            };
            (m.module.as_str().to_string(), kind)
        })
        .collect()
}

#[test]
fn wheel_layout_packages_namespaces_stubs_extensions_and_tests() {
    let layout = ReleaseLayout::new(
        ArchiveKind::Wheel,
        [
            "pandas/__init__.py",
            "pandas/core/__init__.py",
            "pandas/core/frame.py",
            "pandas/_libs/lib.cpython-311-x86_64-linux-gnu.so",
            "pandas/_libs/lib.pyi",
            "pandas/_libs/hashtable.cpython-311-x86_64-linux-gnu.so",
            "pandas/_libs/__init__.py",
            "pandas/io/formats/templates/html.tpl",
            "pandas/tests/__init__.py",
            "pandas/tests/frame/test_api.py",
            "pandas/core/test_helpers.py",
            "pandas/conftest.py",
            "pandas/testing.py",
            "google/cloud/storage/__init__.py",
            "google/cloud/storage/blob.py",
            "six.py",
            "pandas-2.0.0.dist-info/RECORD",
            "pandas-2.0.0.dist-info/METADATA",
            "pandas-2.0.0.data/purelib/extra_mod.py",
            "pandas-2.0.0.data/scripts/tool.py",
            "numpy.libs/libopenblas-r0.so",
            "not-an-identifier/x.py",
        ],
    );
    assert_eq!(
        layout_modules(&layout),
        vec![
            ("extra_mod".into(), "py"),
            ("google".into(), "namespace"),
            ("google.cloud".into(), "namespace"),
            ("google.cloud.storage".into(), "pkg"),
            ("google.cloud.storage.blob".into(), "py"),
            ("pandas".into(), "pkg"),
            ("pandas._libs".into(), "pkg"),
            ("pandas._libs.hashtable".into(), "opaque"),
            ("pandas._libs.lib".into(), "stub"),
            ("pandas.core".into(), "pkg"),
            ("pandas.core.frame".into(), "py"),
            // Inside a package, `test_*` may be API (TensorFlow's `test_util`).
            ("pandas.core.test_helpers".into(), "py"),
            ("pandas.testing".into(), "py"),
            ("six".into(), "py"),
        ]
    );
    let lib = layout
        .module_path_for("pandas/_libs/lib.cpython-311-x86_64-linux-gnu.so")
        .unwrap();
    assert_eq!(lib.module.as_str(), "pandas._libs.lib");
    assert_eq!(lib.kind, SourceKind::Extension);
    let init = layout.module_path_for("pandas/core/__init__.py").unwrap();
    assert!(init.is_package);
    assert_eq!(init.module.as_str(), "pandas.core");
    assert!(layout
        .module_path_for("pandas/tests/frame/test_api.py")
        .is_none());
    assert!(layout
        .module_path_for("pandas-2.0.0.dist-info/RECORD")
        .is_none());
    let parsed: Vec<&str> = layout.sources().map(|(_, path, _)| path).collect();
    assert!(parsed.contains(&"pandas/_libs/lib.pyi"));
    assert!(!parsed.iter().any(|p| p.ends_with(".so")));
}

#[test]
fn sdist_layouts_prefix_src_lib_and_project_files() {
    let src = ReleaseLayout::new(
        ArchiveKind::Sdist,
        [
            "attrs-19.1.0/setup.py",
            "attrs-19.1.0/PKG-INFO",
            "attrs-19.1.0/conftest.py",
            "attrs-19.1.0/docs/conf.py",
            "attrs-19.1.0/tests/__init__.py",
            "attrs-19.1.0/tests/test_make.py",
            "attrs-19.1.0/src/attr/__init__.py",
            "attrs-19.1.0/src/attr/_make.py",
            "attrs-19.1.0/src/attr/__init__.pyi",
            "attrs-19.1.0/src/attrs.egg-info/top_level.txt",
        ],
    );
    assert_eq!(
        layout_modules(&src),
        vec![("attr".into(), "pkg"), ("attr._make".into(), "py")]
    );
    assert_eq!(
        src.module_path_for("attrs-19.1.0/src/attr/_make.py")
            .unwrap()
            .module
            .as_str(),
        "attr._make"
    );

    let lib = ReleaseLayout::new(
        ArchiveKind::Sdist,
        [
            "matplotlib-2.0.0/setup.py",
            "matplotlib-2.0.0/setupext.py",
            "matplotlib-2.0.0/lib/matplotlib/__init__.py",
            "matplotlib-2.0.0/lib/matplotlib/pyplot.py",
            "matplotlib-2.0.0/lib/mpl_toolkits/mplot3d/__init__.py",
            "matplotlib-2.0.0/examples/pylab_examples/plot.py",
            "matplotlib-2.0.0/doc/sphinxext/__init__.py",
            "matplotlib-2.0.0/doc/sphinxext/gen.py",
        ],
    );
    assert_eq!(
        layout_modules(&lib),
        vec![
            ("matplotlib".into(), "pkg"),
            ("matplotlib.pyplot".into(), "py"),
            ("mpl_toolkits".into(), "namespace"),
            ("mpl_toolkits.mplot3d".into(), "pkg"),
            ("setupext".into(), "py"),
        ]
    );

    let flat = ReleaseLayout::new(
        ArchiveKind::Sdist,
        [
            "six-1.10.0/six.py",
            "six-1.10.0/test_six.py",
            "six-1.10.0/setup.py",
            "six-1.10.0/documentation/conf.py",
            "six-1.10.0/pkg/__init__.py",
            "six-1.10.0/pkg/sub/__init__.py",
            "six-1.10.0/pkg/sub/tests/test_x.py",
        ],
    );
    assert_eq!(
        layout_modules(&flat),
        vec![
            ("pkg".into(), "pkg"),
            ("pkg.sub".into(), "pkg"),
            ("six".into(), "py"),
        ]
    );
}

/// A `test` package is API when it holds no test modules: TensorFlow's generated `tf.test`
/// (`is_gpu_available`) was left out of every release. One with test modules (tornado's) is a
/// suite; `tests` always is. Caught by the coverage script.
#[test]
fn test_packages_are_api_unless_they_hold_test_modules() {
    let layout = ReleaseLayout::new(
        ArchiveKind::Wheel,
        [
            "tensorflow/__init__.py",
            "tensorflow/_api/__init__.py",
            "tensorflow/_api/v2/__init__.py",
            "tensorflow/_api/v2/test/__init__.py",
            "tornado/__init__.py",
            "tornado/test/__init__.py",
            "tornado/test/util.py",
            "tornado/test/web_test.py",
            "pkg/__init__.py",
            "pkg/tests/__init__.py",
            "pkg/tests/helpers.py",
        ],
    );
    let modules: Vec<String> = layout_modules(&layout)
        .into_iter()
        .map(|(m, _)| m)
        .collect();
    assert_eq!(
        modules,
        [
            "pkg",
            "tensorflow",
            "tensorflow._api",
            "tensorflow._api.v2",
            "tensorflow._api.v2.test",
            "tornado"
        ]
    );
}

/// The public fallback bindings of a summary other than definitions, as (name, what it is)
/// pairs: what a module `__getattr__` serves.
fn fallbacks(s: &FileSummary) -> Vec<(String, String)> {
    s.fallbacks
        .iter()
        .map(|&i| &s.bindings[i as usize])
        .filter(|b| !matches!(b, Binding::Function(_) | Binding::Class(_)))
        .filter(|b| b.bound_names().all(|n| !n.starts_with('_')))
        .map(|b| match b {
            Binding::Variable(v) => (v.name.clone(), "value".to_string()),
            Binding::Import(i) => (i.bound_name().to_string(), format!("import {}", i.module)),
            Binding::ImportFrom(f) => (
                f.names[0].bound_name().to_string(),
                format!(
                    "from {}{} import {}",
                    ".".repeat(f.level as usize),
                    f.module.as_deref().unwrap_or(""),
                    f.names[0].name
                ),
            ),
            other => panic!("unexpected fallback {other:?}"),
        })
        .collect()
}

/// pandas 1.x's module `__getattr__`: a chain of literal tests, each branch serving its
/// names (an import it returns, or a value), then `raise AttributeError`. The module stays
/// closed, and the names served are fallbacks, under the names asked for.
#[test]
fn a_module_getattr_serving_only_literal_names_keeps_the_module_closed() {
    let source = r#"
from pandas.core.api import DataFrame

def __getattr__(name):
    import warnings

    if name == "datetime":
        warnings.warn("deprecated", FutureWarning)
        from datetime import datetime as dt

        return dt
    elif name == "np":
        import numpy as np

        return np
    elif name in {"SparseSeries", "SparseDataFrame"}:
        return type(name, (), {})
    elif name == "SparseArray" or name == "Sparse":
        from pandas.core.arrays.sparse import SparseArray as _SparseArray

        return _SparseArray
    elif name in ["linalg", "fft"]:
        import importlib
        return importlib.import_module("." + name, __name__)
    elif name == "gone":
        raise AttributeError("gone was removed")
    raise AttributeError(f"module 'pandas' has no attribute '{name}'")
"#;
    let s = summarize_source(source, false);
    assert!(!s.dynamic_exports);
    assert_eq!(
        fallbacks(&s),
        [
            ("datetime".into(), "from datetime import datetime".into()),
            ("np".into(), "import numpy".into()),
            ("SparseSeries".into(), "value".into()),
            ("SparseDataFrame".into(), "value".into()),
            (
                "SparseArray".into(),
                "from pandas.core.arrays.sparse import SparseArray".into()
            ),
            (
                "Sparse".into(),
                "from pandas.core.arrays.sparse import SparseArray".into()
            ),
            ("linalg".into(), "from . import linalg".into()),
            ("fft".into(), "from . import fft".into()),
        ]
    );
}

/// numpy 1.21 to 1.24: names looked up in tables built from literals (a dict, `update` with
/// a comprehension over a list of tuples, items set by key), names it only raises for (a
/// table it need not read), a warning that falls through, then literal tests.
#[test]
fn a_module_getattr_serving_names_of_literal_tables_keeps_the_module_closed() {
    let source = r#"
import sys
if __NUMPY_SETUP__:
    pass
else:
    __deprecated_attrs__ = {}
    _type_info = [("object", ""), ("float", "use float64")]
    __former_attrs__ = {n: msg for n, msg in _type_info}
    _type_info = [("bool8", 1, "np.bool_")]
    __deprecated_attrs__.update({n: (alias, an) for n, alias, an in _type_info})
    __deprecated_attrs__["typeDict"] = (1, "use sctypeDict")
    __future_scalars__ = {"bool", "long"}
    __expired_functions__ = {"fv": "use numpy_financial.fv"}
    __former_attrs__.update(_compute())

    if sys.version_info[:2] >= (3, 7):
        def __getattr__(attr):
            import warnings
            try:
                msg = __expired_functions__[attr]
            except KeyError:
                pass
            else:
                warnings.warn(msg, DeprecationWarning, stacklevel=2)

                def _expired(*args, **kwds):
                    raise RuntimeError(msg)

                return _expired

            try:
                val, msg = __deprecated_attrs__[attr]
            except KeyError:
                pass
            else:
                warnings.warn(msg, DeprecationWarning, stacklevel=2)
                return val

            if attr in __future_scalars__:
                warnings.warn("In the future", FutureWarning, stacklevel=2)

            if attr in __former_attrs__:
                raise AttributeError(__former_attrs__[attr])

            if attr == 'testing':
                import numpy.testing as testing
                return testing
            elif attr == 'Tester':
                from .testing import Tester
                return Tester

            raise AttributeError("module {!r} has no attribute {!r}".format(__name__, attr))
"#;
    let s = summarize_source(source, false);
    assert!(!s.dynamic_exports);
    let names: Vec<String> = fallbacks(&s).into_iter().map(|(n, _)| n).collect();
    assert_eq!(
        names,
        ["fv", "bool8", "typeDict", "testing", "Tester"],
        "{:?}",
        fallbacks(&s)
    );
    assert_eq!(
        fallbacks(&s)[3..],
        [
            ("testing".into(), "import numpy.testing".into()),
            ("Tester".into(), "from .testing import Tester".into()),
        ]
    );
}

/// Whatever may serve a name no test let through leaves the module open: a return no test
/// guards, a served table whose contents are computed, a test on something else, an `else`
/// that returns, a function that can end without raising.
#[test]
fn a_module_getattr_that_may_serve_any_name_leaves_the_module_open() {
    let open = [
        "def __getattr__(name):\n    return _load(name)\n",
        "TABLE = _make()\ndef __getattr__(name):\n    if name in TABLE:\n        return TABLE[name]\n    raise AttributeError(name)\n",
        "def __getattr__(name):\n    if name.startswith('x'):\n        return 1\n    raise AttributeError(name)\n",
        "def __getattr__(name):\n    if name == 'a':\n        return 1\n    else:\n        return 2\n",
        "def __getattr__(name):\n    if name == 'a':\n        return 1\n",
        "from ._tables import T\ndef __getattr__(name):\n    try:\n        v = T[name]\n    except KeyError:\n        pass\n    else:\n        return v\n    raise AttributeError(name)\n",
    ];
    for source in open {
        let s = summarize_source(source, false);
        assert!(s.dynamic_exports, "{source}");
        assert!(s.fallbacks.is_empty(), "{source}");
    }
}
