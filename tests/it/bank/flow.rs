//! Import flow on small inline fixture releases: every re-export rule, checked through the
//! APIs a release comes out with.

use std::collections::HashMap;

use nbenv::bank::extract::{summarize_source, ArchiveKind, FileSummary, ReleaseLayout};
use nbenv::bank::flow::{
    analyze, analyze_with, ApiEntry, ApiKind, FlowOptions, ModuleKind, ReleaseApis, ReleaseInput,
};

fn release_of(kind: ArchiveKind, files: &[(&str, &str)]) -> ReleaseApis {
    release_with(kind, files, &FlowOptions::default())
}

fn release_with(kind: ArchiveKind, files: &[(&str, &str)], options: &FlowOptions) -> ReleaseApis {
    let layout = ReleaseLayout::new(kind, files.iter().map(|(p, _)| *p));
    let summaries: HashMap<&str, FileSummary> = files
        .iter()
        .filter(|(p, _)| p.ends_with(".py") || p.ends_with(".pyi"))
        .map(|(p, src)| (*p, summarize_source(src, p.ends_with(".pyi"))))
        .collect();
    let input = ReleaseInput::from_layout(&layout, |p| summaries.get(p));
    let apis = analyze_with(&input, options);
    assert_eq!(apis, analyze_with(&input, options), "deterministic");
    if *options == FlowOptions::default() {
        assert_eq!(apis, analyze(&input));
    }
    assert!(
        apis.stats.converged,
        "flow did not converge: {:?}",
        apis.stats
    );
    apis
}

fn release(files: &[(&str, &str)]) -> ReleaseApis {
    release_of(ArchiveKind::Wheel, files)
}

#[track_caller]
fn api<'r>(r: &'r ReleaseApis, path: &str) -> &'r ApiEntry {
    r.get(path).unwrap_or_else(|| {
        let all: Vec<&str> = r.apis.iter().map(|e| e.path.as_str()).collect();
        panic!("no API {path}; have {all:#?}")
    })
}

#[track_caller]
fn assert_absent(r: &ReleaseApis, path: &str) {
    if let Some(e) = r.get(path) {
        assert!(!e.public, "{path} should not be a public API: {e:?}");
    }
}

#[track_caller]
fn assert_alias(r: &ReleaseApis, path: &str, canonical: &str, kind: ApiKind) {
    let e = api(r, path);
    assert!(e.public, "{path} should be public: {e:?}");
    assert_eq!(
        e.canonical.as_ref().map(|c| c.as_str()),
        Some(canonical),
        "{path}: {e:?}"
    );
    assert_eq!(e.kind, kind, "{path}: {e:?}");
    let def = api(r, canonical);
    assert_eq!(
        def.canonical, None,
        "a canonical entry is itself a definition: {def:?}"
    );
    assert_eq!(def.kind, kind);
}

/// `path` reaches `definition` through aliases of its prefix (a class or module alias).
#[track_caller]
fn assert_reaches(r: &ReleaseApis, path: &str, definition: &str, kind: ApiKind) {
    let e = r
        .resolve(path)
        .unwrap_or_else(|| panic!("{path} resolves to nothing"));
    let def = r.definition_of(e.path.as_str()).unwrap();
    assert_eq!(def.path.as_str(), definition, "{path} via {}", e.path);
    assert_eq!(def.canonical, None);
    assert_eq!(e.kind, kind, "{path}: {e:?}");
}

#[track_caller]
fn assert_unreachable(r: &ReleaseApis, path: &str) {
    assert!(
        r.resolve(path).is_none(),
        "{path} should not resolve: {:?}",
        r.resolve(path)
    );
}

#[track_caller]
fn assert_defined<'r>(r: &'r ReleaseApis, path: &str, kind: ApiKind) -> &'r ApiEntry {
    let e = api(r, path);
    assert!(e.public, "{path} should be public: {e:?}");
    assert_eq!(e.canonical, None, "{path} should be a definition: {e:?}");
    assert_eq!(e.kind, kind, "{path}: {e:?}");
    e
}

/// The signature of what `path` denotes (aliases share their definition's).
#[track_caller]
fn sig_of(r: &ReleaseApis, path: &str) -> String {
    let e = r
        .resolve(path)
        .unwrap_or_else(|| panic!("{path} resolves to nothing"));
    let def = r.definition_of(e.path.as_str()).unwrap();
    assert_eq!(
        e.signature.is_some(),
        e.canonical.is_none() && def.signature.is_some()
    );
    sig(def)
}

fn sig(e: &ApiEntry) -> String {
    e.signature
        .as_ref()
        .map(ToString::to_string)
        .unwrap_or_default()
}

const PANDAS: &[(&str, &str)] = &[
    (
        "pandas/__init__.py",
        "import numpy as np\n\
         from pandas.core.api import *\n\
         from pandas.io.api import *\n\
         from pandas.util._print_versions import show_versions\n\
         import pandas.core.config_init\n\
         __version__ = '0.25.0'\n",
    ),
    ("pandas/core/__init__.py", ""),
    ("pandas/core/config_init.py", "x = 1\n"),
    (
        "pandas/core/api.py",
        "from pandas.core.frame import DataFrame\n\
         from pandas.core.series import Series\n\
         from pandas.core.tools.datetimes import to_datetime\n",
    ),
    (
        "pandas/core/base.py",
        "class PandasObject(object):\n\
         \x20   def _reset_cache(self, key=None): pass\n\
         \x20   def __sizeof__(self): pass\n\
         \x20   def memory_usage(self, deep=False): pass\n",
    ),
    (
        "pandas/core/generic.py",
        "import numpy as np\n\
         from pandas.core.base import PandasObject\n\
         class NDFrame(PandasObject):\n\
         \x20   _metadata = []\n\
         \x20   def __init__(self, data, axes=None, copy=False): pass\n\
         \x20   def head(self, n=5): pass\n\
         \x20   def memory_usage(self, index=True, deep=False): pass\n",
    ),
    (
        "pandas/core/frame.py",
        "import numpy as np\n\
         import pandas.core.common as com\n\
         from pandas.core.generic import NDFrame\n\
         from pandas.core.series import Series\n\
         class DataFrame(NDFrame):\n\
         \x20   def __init__(self, data=None, index=None, columns=None, dtype=None, copy=False): pass\n\
         \x20   @property\n\
         \x20   def ix(self): pass\n\
         \x20   def to_excel(self, excel_writer, sheet_name='Sheet1', **kwargs): pass\n",
    ),
    ("pandas/core/common.py", "def flatten(l): pass\n"),
    (
        "pandas/core/series.py",
        "from pandas.core.generic import NDFrame\nclass Series(NDFrame):\n    pass\n",
    ),
    ("pandas/core/tools/__init__.py", ""),
    (
        "pandas/core/tools/datetimes.py",
        "def to_datetime(arg, errors='raise', *, utc=None): pass\n",
    ),
    (
        "pandas/io/api.py",
        "from pandas.io.excel import ExcelFile, read_excel\n\
         from pandas.io.parsers import read_csv, read_table\n",
    ),
    ("pandas/io/__init__.py", ""),
    (
        "pandas/io/excel/__init__.py",
        "from pandas.io.excel._base import ExcelFile, read_excel\n\
         __all__ = ['read_excel', 'ExcelFile']\n",
    ),
    (
        "pandas/io/excel/_base.py",
        "def read_excel(io, sheet_name=0, header=0, **kwds): pass\n\
         class ExcelFile(object):\n    def parse(self, sheet_name=0): pass\n",
    ),
    (
        "pandas/io/parsers.py",
        "def _make_parser_function(name, default_sep=','):\n    def parser(f): pass\n    return parser\n\
         read_csv = _make_parser_function('read_csv', default_sep=',')\n\
         read_table = _make_parser_function('read_table', default_sep='\\t')\n",
    ),
    ("pandas/util/__init__.py", ""),
    (
        "pandas/util/_print_versions.py",
        "def show_versions(as_json=False): pass\n",
    ),
    ("pandas/_libs/__init__.py", ""),
    ("pandas/_libs/lib.cpython-37m-x86_64-linux-gnu.so", ""),
    ("pandas/tests/__init__.py", ""),
    ("pandas/tests/test_frame.py", "def test_ix(): pass\n"),
];

#[test]
fn pandas_layout_read_excel_and_dataframe_ix() {
    let r = release(PANDAS);
    assert_alias(
        &r,
        "pandas.read_excel",
        "pandas.io.excel._base.read_excel",
        ApiKind::Function,
    );
    assert_eq!(
        sig_of(&r, "pandas.read_excel"),
        "(io, sheet_name=..., header=..., **kwds)"
    );
    let def = r.definition_of("pandas.read_excel").unwrap();
    assert_eq!(def.path.as_str(), "pandas.io.excel._base.read_excel");
    assert!(
        !def.public,
        "defined in a private module: listed only as the canonical"
    );
    assert_alias(
        &r,
        "pandas.io.excel.read_excel",
        "pandas.io.excel._base.read_excel",
        ApiKind::Function,
    );

    assert_alias(
        &r,
        "pandas.DataFrame",
        "pandas.core.frame.DataFrame",
        ApiKind::Class,
    );
    assert_eq!(
        sig_of(&r, "pandas.DataFrame"),
        "(data=..., index=..., columns=..., dtype=..., copy=...)"
    );
    assert_reaches(
        &r,
        "pandas.DataFrame.ix",
        "pandas.core.frame.DataFrame.ix",
        ApiKind::Property,
    );
    assert_defined(&r, "pandas.core.frame.DataFrame.ix", ApiKind::Property);
    // Inherited from a base in another module, through the base's import.
    assert_reaches(
        &r,
        "pandas.DataFrame.head",
        "pandas.core.generic.NDFrame.head",
        ApiKind::Method,
    );
    assert_eq!(sig_of(&r, "pandas.DataFrame.head"), "(n=...)");
    // The nearest definition wins over the one further up.
    assert_reaches(
        &r,
        "pandas.Series.memory_usage",
        "pandas.core.generic.NDFrame.memory_usage",
        ApiKind::Method,
    );
    // Series has no __init__ of its own: its constructor is NDFrame's.
    assert_eq!(sig_of(&r, "pandas.Series"), "(data, axes=..., copy=...)");
    assert_unreachable(&r, "pandas.DataFrame._reset_cache");
    assert_unreachable(&r, "pandas.DataFrame.__sizeof__");
    assert_unreachable(&r, "pandas.DataFrame._metadata");
    assert_unreachable(&r, "pandas.DataFrame.no_such_member");
    assert_unreachable(&r, "pandas.no_such_module.x");
    // Inherited members are reached through the bases.
    assert!(r.get("pandas.core.frame.DataFrame.head").is_none());
    assert_reaches(
        &r,
        "pandas.core.frame.DataFrame.head",
        "pandas.core.generic.NDFrame.head",
        ApiKind::Method,
    );
    assert_reaches(
        &r,
        "pandas.DataFrame.memory_usage",
        "pandas.core.generic.NDFrame.memory_usage",
        ApiKind::Method,
    );
    assert_eq!(
        api(&r, "pandas.core.frame.DataFrame").bases,
        vec![nbenv::names::ApiPath::new("pandas.core.generic.NDFrame").unwrap()]
    );
    // Module aliases resolve too: `import pandas.core.common as com`.
    assert_reaches(
        &r,
        "pandas.core.frame.com.flatten",
        "pandas.core.common.flatten",
        ApiKind::Function,
    );

    assert_alias(
        &r,
        "pandas.to_datetime",
        "pandas.core.tools.datetimes.to_datetime",
        ApiKind::Function,
    );
    assert_eq!(
        sig_of(&r, "pandas.to_datetime"),
        "(arg, errors=..., *, utc=...)"
    );
    assert_alias(
        &r,
        "pandas.read_csv",
        "pandas.io.parsers.read_csv",
        ApiKind::Attribute,
    );
    assert_alias(
        &r,
        "pandas.show_versions",
        "pandas.util._print_versions.show_versions",
        ApiKind::Function,
    );

    // Submodules are attributes of their package.
    assert_defined(&r, "pandas.io", ApiKind::Module);
    assert_defined(&r, "pandas.io.excel", ApiKind::Module);
    assert_defined(&r, "pandas.core.frame", ApiKind::Module);
    assert_absent(&r, "pandas._libs");
    assert_absent(&r, "pandas._libs.lib");
    let lib = r
        .modules
        .iter()
        .find(|m| m.path.as_str() == "pandas._libs.lib")
        .unwrap();
    assert_eq!(lib.kind, ModuleKind::Opaque);
    // `import pandas.core.common as com`.
    assert_alias(
        &r,
        "pandas.core.frame.com",
        "pandas.core.common",
        ApiKind::Module,
    );
    // `import pandas.core.config_init` inside pandas binds `pandas` itself: no `pandas.pandas`.
    assert!(r.get("pandas.pandas").is_none());

    // Names bound to other distributions' objects are recorded as such, never followed, and
    // open: what lies under them is not this release's to say.
    for path in ["pandas.np", "pandas.core.frame.np"] {
        let np = api(&r, path);
        assert_eq!(np.kind, ApiKind::Unknown);
        assert_eq!(np.external.as_deref(), Some("numpy"), "{path}");
        assert!(np.open, "{path}");
    }
    assert!(r.get("pandas.__version__").is_none());
    assert!(r.apis.iter().all(|e| !e.path.as_str().contains("tests")));
    assert!(
        r.apis.windows(2).all(|w| w[0].path < w[1].path),
        "sorted, each once"
    );
    for e in &r.apis {
        if let Some(c) = &e.canonical {
            assert!(
                r.get(c.as_str()).is_some(),
                "{} links to missing {c}",
                e.path
            );
        }
    }
}

#[test]
fn output_is_deterministic_and_independent_of_file_order() {
    let a = release(PANDAS);
    let mut reversed = PANDAS.to_vec();
    reversed.reverse();
    let b = release(&reversed);
    assert_eq!(a, b);
    assert_eq!(
        serde_json::to_string(&a).unwrap(),
        serde_json::to_string(&release(PANDAS)).unwrap()
    );
}

#[test]
fn cycles_terminate_and_keep_what_is_defined() {
    let r = release(&[
        ("cyc/__init__.py", "from .x import f\nfrom .p import g\n"),
        // Nobody defines `f`: a imports it from b, b from a.
        ("cyc/x.py", "from .y import f\n"),
        ("cyc/y.py", "from .x import f\n"),
        // Mutual imports where both sides define something.
        ("cyc/p.py", "from .q import g\ndef h(): pass\n"),
        ("cyc/q.py", "from .p import h\ndef g(a): pass\n"),
        // Star imports in a cycle.
        ("cyc/s1.py", "from .s2 import *\ndef one(): pass\n"),
        ("cyc/s2.py", "from .s1 import *\ndef two(): pass\n"),
        // A package importing itself.
        (
            "cyc/self_ref.py",
            "from cyc.self_ref import *\nfrom . import self_ref\n",
        ),
    ]);
    assert!(r.get("cyc.f").is_none());
    assert!(r.get("cyc.x.f").is_none());
    assert_alias(&r, "cyc.g", "cyc.q.g", ApiKind::Function);
    assert_alias(&r, "cyc.p.g", "cyc.q.g", ApiKind::Function);
    assert_alias(&r, "cyc.q.h", "cyc.p.h", ApiKind::Function);
    assert_alias(&r, "cyc.s1.two", "cyc.s2.two", ApiKind::Function);
    assert_alias(&r, "cyc.s2.one", "cyc.s1.one", ApiKind::Function);
}

#[test]
fn all_versus_the_underscore_rule() {
    let r = release(&[
        ("pkg/__init__.py", "from .m import *\nfrom .n import *\n"),
        (
            "pkg/m.py",
            "__all__ = ['_special', 'pub', 'sub_in_all']\n\
             def _special(): pass\ndef pub(): pass\ndef other(): pass\ndef _hidden(): pass\n",
        ),
        ("pkg/m/__init__.py", ""),
        (
            "pkg/n.py",
            "import os\nfrom .m import other\ndef a(): pass\ndef _b(): pass\n",
        ),
        ("pkg/api.py", "from pkg import _special as special\n"),
    ]);
    // Star import with __all__: exactly the listed names, underscore or not.
    assert_alias(&r, "pkg.pub", "pkg.m.pub", ApiKind::Function);
    assert_alias(&r, "pkg.api.special", "pkg.m._special", ApiKind::Function);
    // `_special` is public where `__all__` lists it, not in the package that star-imports it.
    assert_defined(&r, "pkg.m._special", ApiKind::Function);
    assert_absent(&r, "pkg._special");
    assert_absent(&r, "pkg.m._hidden");
    // Not in __all__: not star-imported from m, but still an attribute of m...
    assert_defined(&r, "pkg.m.other", ApiKind::Function);
    // ...and star-imported from n, which has no __all__ and imports it by name.
    assert_alias(&r, "pkg.other", "pkg.m.other", ApiKind::Function);
    // Star import without __all__: public names only; external names stay external.
    assert_alias(&r, "pkg.a", "pkg.n.a", ApiKind::Function);
    assert_absent(&r, "pkg._b");
    // `os` comes along too, as Python does it, and stays another distribution's name.
    assert_eq!(api(&r, "pkg.os").external.as_deref(), Some("os"));
}

#[test]
fn as_renames_and_import_forms() {
    let r = release(&[
        ("alpha/__init__.py", ""),
        ("alpha/tools.py", "def fn(x): pass\nclass Tool: pass\n"),
        (
            "beta/__init__.py",
            "import alpha.tools\n\
             import alpha.tools as tools\n\
             from alpha.tools import fn as renamed, Tool\n\
             from alpha import tools as t2\n\
             via_attr = alpha.tools.fn\n\
             ToolAlias = tools.Tool\n",
        ),
    ]);
    // `import alpha.tools` binds `alpha`.
    assert_alias(&r, "beta.alpha", "alpha", ApiKind::Module);
    assert_alias(&r, "beta.tools", "alpha.tools", ApiKind::Module);
    assert_alias(&r, "beta.t2", "alpha.tools", ApiKind::Module);
    assert_alias(&r, "beta.renamed", "alpha.tools.fn", ApiKind::Function);
    assert!(r.get("beta.fn").is_none());
    assert_alias(&r, "beta.Tool", "alpha.tools.Tool", ApiKind::Class);
    // Assignments of dotted names through `import a.b` and `import a.b as c`.
    assert_alias(&r, "beta.via_attr", "alpha.tools.fn", ApiKind::Function);
    assert_alias(&r, "beta.ToolAlias", "alpha.tools.Tool", ApiKind::Class);
}

#[test]
fn relative_import_levels() {
    let r = release(&[
        (
            "pkg/__init__.py",
            "from .sub import deep_fn\nfrom . import top\n",
        ),
        ("pkg/top.py", "def t(): pass\n"),
        ("pkg/sub/__init__.py", "from .deep.mod import deep_fn\n"),
        ("pkg/sub/helpers.py", "def h(): pass\n"),
        ("pkg/sub/deep/__init__.py", ""),
        (
            "pkg/sub/deep/mod.py",
            "from ..helpers import h\n\
             from ...top import t\n\
             from . import sibling\n\
             from .... import beyond_top\n\
             def deep_fn(): pass\n",
        ),
        ("pkg/sub/deep/sibling.py", "X = 1\n"),
    ]);
    assert_alias(
        &r,
        "pkg.sub.deep.mod.h",
        "pkg.sub.helpers.h",
        ApiKind::Function,
    );
    assert_alias(&r, "pkg.sub.deep.mod.t", "pkg.top.t", ApiKind::Function);
    assert_alias(
        &r,
        "pkg.sub.deep.mod.sibling",
        "pkg.sub.deep.sibling",
        ApiKind::Module,
    );
    assert!(r.get("pkg.sub.deep.mod.beyond_top").is_none());
    // Level 1 in an __init__ is the package itself.
    assert_alias(
        &r,
        "pkg.deep_fn",
        "pkg.sub.deep.mod.deep_fn",
        ApiKind::Function,
    );
    assert_defined(&r, "pkg.top", ApiKind::Module);
}

#[test]
fn star_import_chains_honour_all_at_each_step() {
    let r = release(&[
        ("chain/__init__.py", "from .b import *\n"),
        (
            "chain/b.py",
            "from .c import *\nfrom .d import *\n__all__ = ['f', 'k']\n",
        ),
        (
            "chain/c.py",
            "__all__ = ['f', 'k']\ndef f(): pass\ndef g(): pass\nk = 3\n",
        ),
        ("chain/d.py", "def only_in_d(): pass\n"),
    ]);
    assert_alias(&r, "chain.f", "chain.c.f", ApiKind::Function);
    assert_alias(&r, "chain.k", "chain.c.k", ApiKind::Attribute);
    assert!(r.get("chain.g").is_none());
    // b star-imports d, but b's own __all__ does not pass it on.
    assert_alias(
        &r,
        "chain.b.only_in_d",
        "chain.d.only_in_d",
        ApiKind::Function,
    );
    assert!(r.get("chain.only_in_d").is_none());
}

#[test]
fn inherited_members_within_the_release() {
    let r = release(&[
        ("shapes/__init__.py", "from .square import Square\n"),
        (
            "shapes/base.py",
            "import abc\n\
             class Shape(abc.ABC):\n    def area(self): pass\n    def describe(self, verbose=False): pass\n\
             class Named(object):\n    name = ''\n",
        ),
        (
            "shapes/square.py",
            "import six\n\
             from . import base\n\
             from .base import Named\n\
             class Rect(base.Shape):\n    def area(self): pass\n\
             class Square(six.with_metaclass(abc.ABCMeta, Rect, Named)):\n    def side(self): pass\n\
             class Loop1(Loop2): pass\n\
             class Loop2(Loop1): pass\n",
        ),
    ]);
    assert_defined(&r, "shapes.square.Square.side", ApiKind::Method);
    assert_reaches(
        &r,
        "shapes.Square.side",
        "shapes.square.Square.side",
        ApiKind::Method,
    );
    assert_reaches(
        &r,
        "shapes.Square.area",
        "shapes.square.Rect.area",
        ApiKind::Method,
    );
    assert_reaches(
        &r,
        "shapes.Square.describe",
        "shapes.base.Shape.describe",
        ApiKind::Method,
    );
    assert_reaches(
        &r,
        "shapes.Square.name",
        "shapes.base.Named.name",
        ApiKind::Attribute,
    );
    // A cycle of bases terminates.
    assert_defined(&r, "shapes.square.Loop1", ApiKind::Class);
}

#[test]
fn module_level_assignments_and_async() {
    let r = release(&[
        (
            "np_like/__init__.py",
            "from .core import frame_cls\n\
             float = float\n\
             read_csv = _make_parser('read_csv')\n\
             DF = frame_cls\n\
             a, (b, c) = 1, (2, 3)\n\
             limit: int = 10\n\
             async def fetch(url, *, timeout=None): pass\n",
        ),
        (
            "np_like/core.py",
            "class frame_cls:\n    def ix(self): pass\n",
        ),
    ]);
    assert_defined(&r, "np_like.float", ApiKind::Attribute);
    assert_defined(&r, "np_like.read_csv", ApiKind::Attribute);
    for name in ["a", "b", "c", "limit"] {
        assert_defined(&r, &format!("np_like.{name}"), ApiKind::Attribute);
    }
    // An assignment of a class is an alias, and its members come through it.
    assert_alias(&r, "np_like.DF", "np_like.core.frame_cls", ApiKind::Class);
    assert_reaches(
        &r,
        "np_like.DF.ix",
        "np_like.core.frame_cls.ix",
        ApiKind::Method,
    );
    let fetch = assert_defined(&r, "np_like.fetch", ApiKind::Function);
    assert!(fetch.is_async);
    assert_eq!(sig(fetch), "(url, *, timeout=...)");
}

#[test]
fn instances_of_release_classes_have_their_members() {
    let r = release(&[
        ("sp/__init__.py", ""),
        ("sp/stats/__init__.py", "from .distributions import *\n"),
        (
            "sp/stats/distributions.py",
            "from ._continuous_distns import *\n",
        ),
        (
            "sp/stats/_continuous_distns.py",
            "from ._distn_infrastructure import rv_continuous\n\
             class norm_gen(rv_continuous):\n    def _pdf(self, x): pass\n\
             norm = norm_gen(name='norm')\n\
             made = make_thing()\n\
             def make_thing(): pass\n",
        ),
        (
            "sp/stats/_distn_infrastructure.py",
            "class rv_continuous(object):\n    def pdf(self, x, *args, **kwds): pass\n",
        ),
    ]);
    let norm = api(&r, "sp.stats.norm");
    assert_eq!(norm.kind, ApiKind::Attribute);
    assert_reaches(
        &r,
        "sp.stats.norm.pdf",
        "sp.stats._distn_infrastructure.rv_continuous.pdf",
        ApiKind::Method,
    );
    assert_eq!(sig_of(&r, "sp.stats.norm.pdf"), "(x, *args, **kwds)");
    assert_unreachable(&r, "sp.stats.norm._pdf");
    assert_unreachable(&r, "sp.stats.made.pdf");
}

#[test]
fn dynamic_getattr_is_flagged() {
    let r = release(&[
        (
            "lazy/__init__.py",
            "def __getattr__(name):\n    import importlib\n    return importlib.import_module('.' + name, __name__)\n",
        ),
        ("lazy/static.py", "def s(): pass\n"),
    ]);
    let m = r
        .modules
        .iter()
        .find(|m| m.path.as_str() == "lazy")
        .unwrap();
    assert!(m.open);
    assert!(api(&r, "lazy").open, "names under the module may exist");
    let s = r
        .modules
        .iter()
        .find(|m| m.path.as_str() == "lazy.static")
        .unwrap();
    assert!(!s.open);
    assert!(!api(&r, "lazy.static").open);
    assert!(r.get("lazy.__getattr__").is_none());
}

/// scikit-learn 0.22-0.23's generated `datasets/samples_generator.py`, whole: a module whose
/// `__getattr__` hands every name to the private module it imports.
const SAMPLES_GENERATOR: &str = "
# THIS FILE WAS AUTOMATICALLY GENERATED BY deprecated_modules.py
import sys
# mypy error: Module X has no attribute y (typically for C extensions)
from . import _samples_generator  # type: ignore
from ..externals._pep562 import Pep562
from ..utils.deprecation import _raise_dep_warning_if_not_pytest

deprecated_path = 'sklearn.datasets.samples_generator'
correct_import_path = 'sklearn.datasets'

_raise_dep_warning_if_not_pytest(deprecated_path, correct_import_path)

def __getattr__(name):
    return getattr(_samples_generator, name)

if not sys.version_info >= (3, 7):
    Pep562(__name__)
";

#[test]
fn a_getattr_handing_every_name_to_an_imported_module_serves_its_names() {
    let r = release(&[
        ("sklearn/__init__.py", ""),
        (
            "sklearn/datasets/__init__.py",
            "from ._samples_generator import make_blobs\n",
        ),
        (
            "sklearn/datasets/_samples_generator.py",
            "def make_blobs(n_samples=100):\n    pass\n\ndef _helper():\n    pass\n",
        ),
        ("sklearn/datasets/samples_generator.py", SAMPLES_GENERATOR),
        ("sklearn/externals/__init__.py", ""),
        ("sklearn/externals/_pep562.py", "class Pep562:\n    pass\n"),
        ("sklearn/utils/__init__.py", ""),
        (
            "sklearn/utils/deprecation.py",
            "def _raise_dep_warning_if_not_pytest(a, b):\n    pass\n",
        ),
    ]);
    // The same definition as `sklearn.datasets.make_blobs`, seen, not guessed: the module
    // stays closed, so a name it does not serve is absent.
    assert_alias(
        &r,
        "sklearn.datasets.samples_generator.make_blobs",
        "sklearn.datasets._samples_generator.make_blobs",
        ApiKind::Function,
    );
    assert!(!api(&r, "sklearn.datasets.samples_generator").open);
    assert_absent(&r, "sklearn.datasets.samples_generator.no_such_name");
    assert_absent(&r, "sklearn.datasets.samples_generator._helper");
}

#[test]
fn opaque_compiled_modules_and_all() {
    let r = release(&[
        (
            "numpy/__init__.py",
            "from . import core\n\
             from .core import *\n\
             from ._fast import accelerated\n\
             __all__ = ['listed_nowhere']\n\
             __all__.extend(core.__all__)\n\
             float = float\n",
        ),
        ("numpy/_fast.cpython-311-x86_64-linux-gnu.so", ""),
        (
            "numpy/core/__init__.py",
            "from . import multiarray\n\
             from .multiarray import *\n\
             from . import numeric\n\
             from .numeric import *\n\
             __all__ = []\n\
             __all__ += multiarray.__all__\n\
             __all__ += numeric.__all__\n",
        ),
        (
            "numpy/core/multiarray.py",
            "from ._multiarray_umath import *\n\
             __all__ = ['array', 'zeros', 'ndarray']\n",
        ),
        (
            "numpy/core/_multiarray_umath.cpython-311-x86_64-linux-gnu.so",
            "",
        ),
        (
            "numpy/core/numeric.py",
            "from .multiarray import array, zeros\n\
             __all__ = ['ones', 'zeros_like']\n\
             def ones(shape, dtype=None): pass\n\
             def zeros_like(a, dtype=None): pass\n\
             def extend_all(module):\n    for a in module.__all__:\n        __all__.append(a)\n\
             from . import fromnumeric\n\
             from .fromnumeric import *\n\
             extend_all(fromnumeric)\n",
        ),
        (
            "numpy/core/fromnumeric.py",
            "__all__ = ['mean']\ndef mean(a, axis=None): pass\ndef _wrapit(obj): pass\n",
        ),
        // A stub describes this compiled module: its names are known.
        ("numpy/random/__init__.py", "from .mtrand import *\n"),
        ("numpy/random/mtrand.cpython-311-x86_64-linux-gnu.so", ""),
        (
            "numpy/random/mtrand.pyi",
            "def rand(*args: int) -> float: ...\ndef seed(seed: int | None = ...) -> None: ...\n",
        ),
    ]);
    let umath = "numpy.core._multiarray_umath";
    assert_alias(
        &r,
        "numpy.array",
        &format!("{umath}.array"),
        ApiKind::Unknown,
    );
    assert_alias(
        &r,
        "numpy.core.multiarray.array",
        &format!("{umath}.array"),
        ApiKind::Unknown,
    );
    assert_alias(
        &r,
        "numpy.core.numeric.zeros",
        &format!("{umath}.zeros"),
        ApiKind::Unknown,
    );
    assert_alias(
        &r,
        "numpy.ones",
        "numpy.core.numeric.ones",
        ApiKind::Function,
    );
    assert_alias(
        &r,
        "numpy.accelerated",
        "numpy._fast.accelerated",
        ApiKind::Unknown,
    );
    // Listed in __all__, defined nowhere visible: exported, kind unknown.
    assert_defined(&r, "numpy.listed_nowhere", ApiKind::Unknown);
    assert_defined(&r, "numpy.float", ApiKind::Attribute);
    assert_alias(
        &r,
        "numpy.random.rand",
        "numpy.random.mtrand.rand",
        ApiKind::Function,
    );
    assert_eq!(sig_of(&r, "numpy.random.rand"), "(*args)");
    let kinds: HashMap<&str, ModuleKind> = r
        .modules
        .iter()
        .map(|m| (m.path.as_str(), m.kind))
        .collect();
    assert_eq!(kinds["numpy.random.mtrand"], ModuleKind::Stub);
    assert_eq!(kinds[umath], ModuleKind::Opaque);
    assert_eq!(r.stats.opaque_modules, 2);
}

#[test]
fn names_of_other_distributions_are_not_followed() {
    let r = release(&[(
        "mylib/__init__.py",
        "from numpy import ndarray, float64\n\
         from numpy.linalg import *\n\
         import scipy.sparse as sp\n\
         __all__ = ['ndarray', 'helper']\n\
         def helper(): pass\n",
    )]);
    let e = api(&r, "mylib.ndarray");
    assert_eq!(e.kind, ApiKind::Unknown);
    assert_eq!(e.external.as_deref(), Some("numpy.ndarray"));
    let externals: Vec<(&str, &str)> = r
        .apis
        .iter()
        .filter_map(|e| Some((e.path.as_str(), e.external.as_deref()?)))
        .collect();
    assert_eq!(
        externals,
        vec![
            ("mylib.float64", "numpy.float64"),
            ("mylib.ndarray", "numpy.ndarray"),
            ("mylib.sp", "scipy.sparse")
        ]
    );
    // The star import of another distribution's module leaves the module open.
    assert!(api(&r, "mylib").open);
}

#[test]
fn type_checking_imports_count_only_behind_module_getattr() {
    let r = release(&[
        (
            "lazy/__init__.py",
            // pydantic's pattern: type checkers see the imports, `__getattr__` does them.
            "from typing import TYPE_CHECKING\n\
             if TYPE_CHECKING:\n    from .main import BaseModel\n    from .fields import *\n\
             __all__ = ['BaseModel', 'Field', 'create']\n\
             def __getattr__(name):\n    return _import(_dynamic_imports[name])\n",
        ),
        ("lazy/main.py", "class BaseModel:\n    def model_dump(self, *, mode='python'): pass\n"),
        ("lazy/fields.py", "def Field(default=None): pass\n"),
        (
            "lazy/eager.py",
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .main import BaseModel\n",
        ),
    ]);
    assert_alias(&r, "lazy.BaseModel", "lazy.main.BaseModel", ApiKind::Class);
    assert_reaches(
        &r,
        "lazy.BaseModel.model_dump",
        "lazy.main.BaseModel.model_dump",
        ApiKind::Method,
    );
    assert_alias(&r, "lazy.Field", "lazy.fields.Field", ApiKind::Function);
    assert_defined(&r, "lazy.create", ApiKind::Unknown);
    // Without `__getattr__`, nothing is bound at run time.
    assert!(r.get("lazy.eager.BaseModel").is_none());
}

#[test]
fn a_source_without_summary_counts_as_opaque() {
    let layout = ReleaseLayout::new(ArchiveKind::Wheel, ["pkg/__init__.py", "pkg/unreadable.py"]);
    let init = summarize_source(
        "from .unreadable import thing\n__all__ = ['thing']\n",
        false,
    );
    let input = ReleaseInput::from_layout(&layout, |p| (p == "pkg/__init__.py").then_some(&init));
    let r = analyze(&input);
    let kinds: HashMap<&str, ModuleKind> = r
        .modules
        .iter()
        .map(|m| (m.path.as_str(), m.kind))
        .collect();
    assert_eq!(kinds["pkg.unreadable"], ModuleKind::Opaque);
    assert_alias(&r, "pkg.thing", "pkg.unreadable.thing", ApiKind::Unknown);
}

#[test]
fn python2_sources_keep_what_parses() {
    let r = release(&[
        (
            "old/__init__.py",
            "print \"loading\"\nfrom old.util import helper\ndef after(x, y=1):\n    print x\n",
        ),
        ("old/util.py", "def helper(): pass\n"),
    ]);
    assert_defined(&r, "old.after", ApiKind::Function);
    assert_alias(&r, "old.helper", "old.util.helper", ApiKind::Function);
    assert_eq!(r.stats.files_with_parse_errors, 1);
    assert!(r
        .modules
        .iter()
        .any(|m| m.path.as_str() == "old" && m.parse_errors > 0));
}

#[test]
fn test_packages_are_excluded() {
    let r = release(&[
        ("lib/__init__.py", "from .core import run\n"),
        ("lib/core.py", "def run(): pass\n"),
        ("lib/tests/__init__.py", "from .test_core import *\n"),
        ("lib/tests/test_core.py", "def test_run(): pass\n"),
        ("lib/test_utils.py", "def check(): pass\n"),
        ("tests/__init__.py", "def top_test(): pass\n"),
    ]);
    // A `test_*` module inside a package may be API (TensorFlow's `test_util`); the suites
    // are not.
    let kept = |p: &str| !p.contains("test") || p.starts_with("lib.test_utils");
    assert!(r.modules.iter().all(|m| kept(m.path.as_str())));
    assert!(r.apis.iter().all(|e| kept(e.path.as_str())));
    assert_defined(&r, "lib.test_utils.check", ApiKind::Function);
    assert_alias(&r, "lib.run", "lib.core.run", ApiKind::Function);
}

#[test]
fn namespace_packages() {
    let r = release(&[
        (
            "google/cloud/storage/__init__.py",
            "from .blob import Blob\nfrom google.cloud.other_dist import Thing\n",
        ),
        (
            "google/cloud/storage/blob.py",
            "class Blob:\n    def upload(self, data): pass\n",
        ),
    ]);
    let kinds: HashMap<&str, ModuleKind> = r
        .modules
        .iter()
        .map(|m| (m.path.as_str(), m.kind))
        .collect();
    assert_eq!(kinds["google"], ModuleKind::Namespace);
    assert_eq!(kinds["google.cloud"], ModuleKind::Namespace);
    assert_eq!(kinds["google.cloud.storage"], ModuleKind::Source);
    assert_defined(&r, "google.cloud", ApiKind::Module);
    assert_reaches(
        &r,
        "google.cloud.storage.Blob.upload",
        "google.cloud.storage.blob.Blob.upload",
        ApiKind::Method,
    );
    // Another distribution sharing the namespace provides `other_dist`.
    assert!(r
        .get("google.cloud.storage.Thing")
        .is_some_and(|e| e.external.is_some()));
    assert!(r
        .apis
        .iter()
        .any(|e| e.external.as_deref() == Some("google.cloud.other_dist.Thing")));
}

#[test]
fn sdist_with_src_layout() {
    let r = release_of(
        ArchiveKind::Sdist,
        &[
            ("attrs-19.1.0/setup.py", "from setuptools import setup\nsetup()\n"),
            ("attrs-19.1.0/tests/test_make.py", "def test_x(): pass\n"),
            (
                "attrs-19.1.0/src/attr/__init__.py",
                "from ._make import attrs, attrib\ns = attributes = attrs\nib = attrib\n",
            ),
            (
                "attrs-19.1.0/src/attr/_make.py",
                "def attrs(maybe_cls=None, these=None, repr=True): pass\ndef attrib(default=None): pass\n",
            ),
        ],
    );
    assert_alias(&r, "attr.s", "attr._make.attrs", ApiKind::Function);
    assert_alias(&r, "attr.attributes", "attr._make.attrs", ApiKind::Function);
    assert_alias(&r, "attr.ib", "attr._make.attrib", ApiKind::Function);
    assert!(r.get("setup").is_none());
    assert!(r.modules.iter().all(|m| m.path.top_level() == "attr"));
}

#[test]
fn fallbacks_and_deletions() {
    let r = release(&[
        (
            "fb/__init__.py",
            "try:\n    from ._speedups import fast\nexcept ImportError:\n    def fast(x): pass\n\
             try:\n    from ._missing import slow\nexcept ImportError:\n    def slow(x, y): pass\n\
             from .util import tmp, kept\n\
             del tmp\n\
             if PY2:\n    def compat(a): pass\nelse:\n    def compat(a, b): pass\n",
        ),
        ("fb/_speedups.cpython-311-x86_64-linux-gnu.so", ""),
        ("fb/util.py", "tmp = 1\nkept = 2\n"),
    ]);
    // The try body wins when what it imports exists...
    assert_alias(&r, "fb.fast", "fb._speedups.fast", ApiKind::Unknown);
    // ...and the except branch when it does not.
    assert_defined(&r, "fb.slow", ApiKind::Function);
    assert_eq!(sig_of(&r, "fb.slow"), "(x, y)");
    assert!(r.get("fb.tmp").is_none());
    assert_alias(&r, "fb.kept", "fb.util.kept", ApiKind::Attribute);
    assert_eq!(sig_of(&r, "fb.compat"), "(a)");
}

#[test]
fn member_listing_options_agree_with_resolve() {
    let default = release(PANDAS);
    let expanded = release_with(
        ArchiveKind::Wheel,
        PANDAS,
        &FlowOptions {
            members_through_aliases: true,
            inherited_members: true,
        },
    );
    assert!(expanded.apis.len() > default.apis.len());
    // Every entry listed with everything expanded resolves the same way without it.
    for e in &expanded.apis {
        let want = expanded.definition_of(e.path.as_str()).unwrap();
        let got = default
            .resolve(e.path.as_str())
            .and_then(|r| default.definition_of(r.path.as_str()))
            .unwrap_or_else(|| panic!("{} does not resolve without expansion", e.path));
        assert_eq!(got.path, want.path, "{}", e.path);
        assert_eq!(got.kind, want.kind, "{}", e.path);
        assert_eq!(got.signature, want.signature, "{}", e.path);
        assert!(e.canonical.is_none() || e.signature.is_none(), "{e:?}");
    }
    assert_alias(
        &expanded,
        "pandas.DataFrame.ix",
        "pandas.core.frame.DataFrame.ix",
        ApiKind::Property,
    );
    assert_alias(
        &expanded,
        "pandas.DataFrame.head",
        "pandas.core.generic.NDFrame.head",
        ApiKind::Method,
    );

    let inherited = release_with(
        ArchiveKind::Wheel,
        PANDAS,
        &FlowOptions {
            inherited_members: true,
            ..FlowOptions::default()
        },
    );
    assert_alias(
        &inherited,
        "pandas.core.frame.DataFrame.head",
        "pandas.core.generic.NDFrame.head",
        ApiKind::Method,
    );
    assert!(inherited.get("pandas.DataFrame.head").is_none());
}

#[test]
fn aliases_follow_source_order() {
    let r = release(&[
        (
            "six_like/__init__.py",
            // six: two names aliased to each other must not flip between passes.
            "try:\n    advance_iterator = next\nexcept NameError:\n    def advance_iterator(it): pass\n\
             next = advance_iterator\n\
             def f(): pass\n\
             from .other import *\n\
             def g(): pass\n\
             g_alias = g\n\
             def g(a): pass\n",
        ),
        ("six_like/other.py", "def f(x): pass\ndef g(y): pass\n"),
    ]);
    assert_defined(&r, "six_like.advance_iterator", ApiKind::Attribute);
    assert_alias(
        &r,
        "six_like.next",
        "six_like.advance_iterator",
        ApiKind::Attribute,
    );
    // A star import after a def replaces it; a def after a star import replaces that.
    assert_alias(&r, "six_like.f", "six_like.other.f", ApiKind::Function);
    assert_defined(&r, "six_like.g", ApiKind::Function);
    assert_eq!(sig_of(&r, "six_like.g"), "(a)");
}

#[test]
fn from_dot_import_binds_the_submodule() {
    // `from . import _impl as impl` imports the submodule and binds it, as the absolute
    // `import pkg._impl as impl` does.
    let r = release(&[
        (
            "pkg/__init__.py",
            "from . import _impl as impl\nfrom . import sub\n",
        ),
        ("pkg/_impl.py", "def f():\n    pass\n"),
        ("pkg/sub.py", "def g():\n    pass\n"),
    ]);
    assert_reaches(&r, "pkg.impl.f", "pkg._impl.f", ApiKind::Function);
    assert_reaches(&r, "pkg.sub.g", "pkg.sub.g", ApiKind::Function);
    let absolute = release(&[
        ("pkg/__init__.py", "import pkg._impl as impl\n"),
        ("pkg/_impl.py", "def f():\n    pass\n"),
    ]);
    assert_reaches(&absolute, "pkg.impl.f", "pkg._impl.f", ApiKind::Function);
}

#[test]
fn all_is_computed_after_the_statements_that_build_it() {
    // numpy's and pandas' `__all__ += impl.__all__`: the included module's names are exported
    // by `from pkg import *`, in the relative and the absolute form.
    for init in [
        "from . import _impl as impl\nfrom ._impl import *\n__all__ = ['top']\n__all__ += impl.__all__\ntop = 1\n",
        "from . import _impl as impl\nfrom ._impl import *\n__all__ = ['top'] + impl.__all__\ntop = 1\n",
        "import pkg._impl as impl\nfrom pkg._impl import *\n__all__ = ['top']\n__all__ += impl.__all__\ntop = 1\n",
    ] {
        let r = release(&[
            ("pkg/__init__.py", init),
            (
                "pkg/_impl.py",
                "__all__ = ['f', 'g']\ndef f():\n    pass\ndef g():\n    pass\n",
            ),
            ("user/__init__.py", "from pkg import *\n"),
        ]);
        assert_reaches(&r, "user.f", "pkg._impl.f", ApiKind::Function);
        assert_reaches(&r, "user.g", "pkg._impl.g", ApiKind::Function);
        assert_reaches(&r, "user.top", "pkg.top", ApiKind::Attribute);
    }
}

#[test]
fn a_module_that_reads_its_own_namespace_converges() {
    // A module reading its own names (`from pkg import x` inside pkg) sees what is bound so far.
    let r = release(&[
        (
            "pkg/__init__.py",
            "from .core import f\nfrom pkg import f as g\nfrom . import f as h\n",
        ),
        ("pkg/core.py", "def f():\n    pass\n"),
    ]);
    assert_alias(&r, "pkg.g", "pkg.core.f", ApiKind::Function);
    assert_alias(&r, "pkg.h", "pkg.core.f", ApiKind::Function);
}

#[track_caller]
fn assert_open(r: &ReleaseApis, path: &str, open: bool) {
    assert_eq!(api(r, path).open, open, "{path}: {:?}", api(r, path));
}

#[test]
fn lazy_modules_with_literal_import_structures() {
    // transformers ≥ 4.2: names listed in `_import_structure` and imported under
    // `if TYPE_CHECKING:`, served by the `_LazyModule` the package replaces itself with.
    let init = r#"
from typing import TYPE_CHECKING
from .utils import _LazyModule, is_torch_available, OptionalDependencyNotAvailable

_import_structure = {"pipelines": ["pipeline"], "models": []}
_import_structure["models.bert"] = ["BertConfig"]
try:
    if not is_torch_available():
        raise OptionalDependencyNotAvailable()
except OptionalDependencyNotAvailable:
    _import_structure["utils.dummy_pt_objects"] = ["BertModel"]
else:
    _import_structure["models.bert"].extend(["BertModel"])
    _import_structure["models.auto"] = ["AutoModel"]

if TYPE_CHECKING:
    from .pipelines import pipeline
    try:
        if not is_torch_available():
            raise OptionalDependencyNotAvailable()
    except OptionalDependencyNotAvailable:
        from .utils.dummy_pt_objects import *
    else:
        from .models.bert import BertModel
else:
    import sys
    sys.modules[__name__] = _LazyModule(__name__, globals()["__file__"], _import_structure)
"#;
    let models_bert = r#"
from typing import TYPE_CHECKING
from ...utils import _LazyModule
_import_structure = {"configuration_bert": ["BertConfig"], "modeling_bert": ["BertModel"]}
if TYPE_CHECKING:
    from .configuration_bert import BertConfig
else:
    import sys
    sys.modules[__name__] = _LazyModule(__name__, globals()["__file__"], _import_structure)
"#;
    let r = release(&[
        ("transformers/__init__.py", init),
        (
            "transformers/utils/__init__.py",
            "class _LazyModule: pass\ndef is_torch_available(): return True\nclass OptionalDependencyNotAvailable(Exception): pass\n",
        ),
        (
            "transformers/utils/dummy_pt_objects.py",
            "class BertModel:\n    def __init__(self, *args, **kwargs): pass\n",
        ),
        ("transformers/pipelines/__init__.py", "def pipeline(task): pass\n"),
        ("transformers/models/__init__.py", ""),
        ("transformers/models/bert/__init__.py", models_bert),
        (
            "transformers/models/bert/configuration_bert.py",
            "class BertConfig: pass\n",
        ),
        (
            "transformers/models/bert/modeling_bert.py",
            "class BertModel:\n    def __init__(self, config): pass\n    def forward(self, x): pass\n",
        ),
        (
            "transformers/models/auto/__init__.py",
            "from .modeling_auto import AutoModel\n",
        ),
        (
            "transformers/models/auto/modeling_auto.py",
            "class _Base:\n    def from_pretrained(cls, name): pass\nclass AutoModel(_Base): pass\nAutoModel = auto_class_update(AutoModel)\ndef auto_class_update(c): return c\n",
        ),
    ]);
    // The real class wins over the dummy of the `except` branch.
    assert_reaches(
        &r,
        "transformers.BertModel",
        "transformers.models.bert.modeling_bert.BertModel",
        ApiKind::Class,
    );
    assert_reaches(
        &r,
        "transformers.BertModel.forward",
        "transformers.models.bert.modeling_bert.BertModel.forward",
        ApiKind::Method,
    );
    assert_reaches(
        &r,
        "transformers.pipeline",
        "transformers.pipelines.pipeline",
        ApiKind::Function,
    );
    // From the import structure alone.
    assert_reaches(
        &r,
        "transformers.AutoModel.from_pretrained",
        "transformers.models.auto.modeling_auto._Base.from_pretrained",
        ApiKind::Method,
    );
    assert_reaches(
        &r,
        "transformers.models.bert.BertModel",
        "transformers.models.bert.modeling_bert.BertModel",
        ApiKind::Class,
    );
    // What else the lazy module serves is not known: unknown, not absent.
    assert_open(&r, "transformers", true);
    assert_open(&r, "transformers.pipelines", false);
}

#[test]
fn lazy_loader_stubs_and_attach() {
    // scikit-image ≥ 0.20: `lazy.attach_stub` with the names in the `.pyi` beside the `.py`.
    let r = release(&[
        (
            "skimage/__init__.py",
            "import lazy_loader as lazy\n__getattr__, __dir__, __all__ = lazy.attach_stub(__name__, __file__)\n",
        ),
        (
            "skimage/__init__.pyi",
            "from . import filters\nfrom ._shared.version import __version__\nfrom .util import img_as_float\n",
        ),
        ("skimage/util.py", "def img_as_float(image): pass\n"),
        ("skimage/_shared/version.py", "__version__ = '0.20'\n"),
        (
            "skimage/filters/__init__.py",
            "import lazy_loader as lazy\n__getattr__, __dir__, __all__ = lazy.attach(__name__, submodules=['rank'], submod_attrs={'_gaussian': ['gaussian']})\n",
        ),
        ("skimage/filters/_gaussian.py", "def gaussian(image, sigma=1): pass\n"),
        ("skimage/filters/rank.py", "def mean(image): pass\n"),
    ]);
    assert_reaches(
        &r,
        "skimage.img_as_float",
        "skimage.util.img_as_float",
        ApiKind::Function,
    );
    assert_reaches(
        &r,
        "skimage.filters.gaussian",
        "skimage.filters._gaussian.gaussian",
        ApiKind::Function,
    );
    assert_reaches(
        &r,
        "skimage.filters.rank.mean",
        "skimage.filters.rank.mean",
        ApiKind::Function,
    );
    assert_open(&r, "skimage", true);
}

#[test]
fn stubs_beside_sources_describe_compiled_parts() {
    // numpy ≥ 1.20: `__init__.py` star-imports compiled modules; `__init__.pyi` says what
    // they provide.
    let r = release(&[
        ("np/__init__.py", "from .core import *\nfrom . import linalg\n"),
        (
            "np/core/__init__.py",
            "from ._multiarray import *\n__all__ = ['ndarray', 'float64']\n",
        ),
        ("np/core/_multiarray.cpython-311-x86_64-linux-gnu.so", ""),
        (
            "np/__init__.pyi",
            "from np.core._types import float64 as float64\nclass ndarray:\n    def reshape(self, *shape): ...\n    @property\n    def shape(self): ...\n",
        ),
        ("np/core/_types.pyi", "class float64: ...\n"),
        ("np/linalg.py", "def norm(x): pass\n"),
    ]);
    assert_reaches(
        &r,
        "np.ndarray.reshape",
        "np.ndarray.reshape",
        ApiKind::Method,
    );
    assert_reaches(
        &r,
        "np.ndarray.shape",
        "np.ndarray.shape",
        ApiKind::Property,
    );
    assert_reaches(&r, "np.float64", "np.core._types.float64", ApiKind::Class);
    // The `.py` still decides where it binds the name.
    assert_reaches(&r, "np.linalg.norm", "np.linalg.norm", ApiKind::Function);
    // Star imports of compiled modules leave both open.
    assert_open(&r, "np", true);
    assert_open(&r, "np.linalg", false);
}

#[test]
fn tensorflow_module_wrappers_forwarding_and_lazy_loaders() {
    // 1.15: `tensorflow` forwards its submodules to `tensorflow_core` through `sys.modules`,
    // and star-imports `tensorflow_core`, whose files import from `tensorflow.python`.
    let tf = r#"
import sys as _sys
import importlib as _importlib
import types as _types
class _LazyLoader(_types.ModuleType):
  def __getattr__(self, item):
    return getattr(_importlib.import_module(self.__name__), item)
def _forward_module(old_name):
  parts = old_name.split(".")
  parts[0] = parts[0] + "_core"
  _module = _LazyLoader(parts[-1], globals(), ".".join(parts))
  return _sys.modules.setdefault(old_name, _module)
for _m in ["tensorflow._api", "tensorflow.python", "tensorflow.keras"]:
  _forward_module(_m)
from tensorflow_core import *
from tensorflow.python.util import deprecation_wrapper as _deprecation
if not isinstance(_sys.modules[__name__], _deprecation.DeprecationWrapper):
  _sys.modules[__name__] = _deprecation.DeprecationWrapper(_sys.modules[__name__], "")
keras = _sys.modules["tensorflow.keras"]
"#;
    let core = r#"
import sys as _sys
from tensorflow._api.v1 import nn
from tensorflow._api.v1 import compat
from tensorflow.python.client.session import Session
__all__ = [_s for _s in dir() if not _s.startswith('_')]
from .python.keras.api import keras
_current_module = _sys.modules[__name__]
setattr(_current_module, "keras", keras)
_current_module.__path__ = [_current_module.__path__[0] + "/python/keras/api"] + _current_module.__path__
"#;
    let r = release(&[
        ("tensorflow/__init__.py", tf),
        ("tensorflow_core/__init__.py", core),
        ("tensorflow_core/_api/__init__.py", ""),
        (
            "tensorflow_core/_api/v1/__init__.py",
            "from tensorflow._api.v1 import nn\n",
        ),
        (
            "tensorflow_core/_api/v1/nn/__init__.py",
            "from tensorflow.python.ops.gen_nn_ops import relu\n",
        ),
        (
            "tensorflow_core/_api/v1/compat/__init__.py",
            "from . import v1\n",
        ),
        (
            "tensorflow_core/_api/v1/compat/v1/__init__.py",
            "from tensorflow.python.client.session import Session\n",
        ),
        ("tensorflow_core/python/__init__.py", ""),
        (
            "tensorflow_core/python/util/deprecation_wrapper.py",
            "class DeprecationWrapper: pass\n",
        ),
        ("tensorflow_core/python/ops/__init__.py", ""),
        (
            "tensorflow_core/python/ops/gen_nn_ops.py",
            "def relu(features, name=None): pass\n",
        ),
        ("tensorflow_core/python/client/__init__.py", ""),
        (
            "tensorflow_core/python/client/session.py",
            "class Session:\n    def run(self, fetches): pass\n",
        ),
        ("tensorflow_core/python/keras/__init__.py", ""),
        (
            "tensorflow_core/python/keras/api/__init__.py",
            "from tensorflow.python.keras.api import keras\n",
        ),
        (
            "tensorflow_core/python/keras/api/keras/__init__.py",
            "from tensorflow.python.keras.layers import Dense\n",
        ),
        (
            "tensorflow_core/python/keras/layers.py",
            "class Dense:\n    def __init__(self, units): pass\n",
        ),
    ]);
    assert_reaches(
        &r,
        "tensorflow.nn.relu",
        "tensorflow_core.python.ops.gen_nn_ops.relu",
        ApiKind::Function,
    );
    assert_reaches(
        &r,
        "tensorflow.Session.run",
        "tensorflow_core.python.client.session.Session.run",
        ApiKind::Method,
    );
    assert_reaches(
        &r,
        "tensorflow.compat.v1.Session",
        "tensorflow_core.python.client.session.Session",
        ApiKind::Class,
    );
    assert_reaches(
        &r,
        "tensorflow.keras.Dense",
        "tensorflow_core.python.keras.layers.Dense",
        ApiKind::Class,
    );
    // A wrapper of the module itself hides nothing; a changed `__path__` is noted.
    assert_open(&r, "tensorflow", false);
    let core = r
        .modules
        .iter()
        .find(|m| m.path.as_str() == "tensorflow_core")
        .unwrap();
    assert!(core.extends_path && !core.open);

    // 2.8: `keras` is a lazy loader of another distribution's module, named by a constant.
    let r = release(&[(
        "tensorflow/__init__.py",
        "import sys as _sys\nfrom tensorflow.python.util.lazy_loader import LazyLoader as _LazyLoader\n\
         _keras_module = 'keras.api._v2.keras'\nkeras = _LazyLoader('keras', globals(), _keras_module)\n\
         _current_module = _sys.modules[__name__]\nsetattr(_current_module, 'keras', keras)\n\
         setattr(_current_module, 'estimator', _LazyLoader('estimator', globals(), 'tensorflow_estimator.api'))\n",
    )]);
    let keras = api(&r, "tensorflow.keras");
    assert_eq!(keras.external.as_deref(), Some("keras.api._v2.keras"));
    assert!(keras.open);
    assert_eq!(
        api(&r, "tensorflow.estimator").external.as_deref(),
        Some("tensorflow_estimator.api")
    );
}

#[test]
fn instance_attributes_set_in_methods_are_members() {
    let r = release(&[(
        "sk/__init__.py",
        r#"
class BaseSearch:
    def fit(self, X, y=None):
        self.best_estimator_ = None
        for i in range(3):
            self.grid_scores_, self._private = [], i
        return self
class GridSearchCV(BaseSearch):
    def __init__(self, estimator):
        self.estimator = estimator
    @staticmethod
    def helper(x):
        x.not_a_member = 1
    def nested(self):
        def inner(other):
            other.neither = 2
        return inner
"#,
    )]);
    assert_reaches(
        &r,
        "sk.GridSearchCV.grid_scores_",
        "sk.BaseSearch.grid_scores_",
        ApiKind::Attribute,
    );
    assert_reaches(
        &r,
        "sk.GridSearchCV.estimator",
        "sk.GridSearchCV.estimator",
        ApiKind::Attribute,
    );
    assert_reaches(
        &r,
        "sk.BaseSearch.best_estimator_",
        "sk.BaseSearch.best_estimator_",
        ApiKind::Attribute,
    );
    for missing in [
        "sk.BaseSearch._private",
        "sk.GridSearchCV.not_a_member",
        "sk.GridSearchCV.neither",
    ] {
        assert_unreachable(&r, missing);
    }
    // An attribute's value is of unknown type: what is under it is unknown.
    assert_open(&r, "sk.BaseSearch.grid_scores_", true);
    // The classes' bases are all in the release: nothing else hides in them.
    assert_open(&r, "sk.GridSearchCV", false);
}

#[test]
fn classes_with_bases_outside_the_release_are_open() {
    let r = release(&[(
        "models/__init__.py",
        "import torch.nn as nn\nfrom abc import ABC\n\
         class ResNet(nn.Module):\n    def forward(self, x): pass\n\
         class Plain(ABC):\n    def go(self): pass\n\
         class Options:\n    def __getattr__(self, name): pass\n\
         class Closed:\n    pass\n\
         options = Options()\nclosed = Closed()\n",
    )]);
    assert_open(&r, "models.ResNet", true);
    assert_open(&r, "models.Plain", false);
    // Instances answer what their class's `__getattr__` makes up; the class itself does not.
    assert_open(&r, "models.Options", false);
    assert_open(&r, "models.options", true);
    assert_open(&r, "models.closed", false);
}

#[test]
fn python2_implicit_relative_imports() {
    // requests 0.3–0.6: `from core import *` inside the package means `requests.core`.
    let files = [
        (
            "requests/__init__.py",
            "from core import *\nimport models\n",
        ),
        (
            "requests/core.py",
            "__all__ = ['get']\ndef get(url): pass\n",
        ),
        ("requests/models.py", "class Request: pass\n"),
        (
            "modern/__init__.py",
            "from __future__ import absolute_import\nfrom core import *\n",
        ),
        ("modern/core.py", "def f(): pass\n"),
    ];
    let layout = ReleaseLayout::new(ArchiveKind::Wheel, files.iter().map(|(p, _)| *p));
    let summaries: HashMap<&str, FileSummary> = files
        .iter()
        .map(|(p, src)| (*p, summarize_source(src, false)))
        .collect();
    let mut input = ReleaseInput::from_layout(&layout, |p| summaries.get(p));
    let python3 = analyze(&input);
    assert!(python3
        .get("requests.get")
        .is_none_or(|e| e.external.is_some()));
    input.python2(true);
    let r = analyze(&input);
    assert_reaches(&r, "requests.get", "requests.core.get", ApiKind::Function);
    assert_reaches(
        &r,
        "requests.models.Request",
        "requests.models.Request",
        ApiKind::Class,
    );
    // A file that opts into absolute imports keeps them.
    assert!(r.resolve("modern.f").is_none());
}

#[test]
fn shim_modules_that_only_raise_are_not_apis() {
    // plotly ≥ 4: `plotly.plotly` exists only to point users at chart-studio.
    let r = release(&[
        ("plotly/__init__.py", "from . import graph_objs\n"),
        ("plotly/graph_objs.py", "class Figure: pass\n"),
        (
            "plotly/plotly/__init__.py",
            "from __future__ import absolute_import\nfrom _plotly_future_ import _chart_studio_error\n_chart_studio_error('plotly')\n",
        ),
        (
            "_plotly_future_/__init__.py",
            "def _chart_studio_error(submodule):\n    \"\"\"Fail.\"\"\"\n    raise ImportError('The plotly.{submodule} module is deprecated, please install the chart-studio package'.format(submodule=submodule))\n",
        ),
        (
            "plotly/tools.py",
            "raise ImportError(f'use {__name__} elsewhere')\n",
        ),
        (
            "plotly/maybe.py",
            "try:\n    import x\nexcept ImportError:\n    raise ImportError('needs x')\ndef f(): pass\n",
        ),
    ]);
    assert!(r.get("plotly.plotly").is_none());
    assert!(r.get("plotly.tools").is_none());
    let shim = r
        .modules
        .iter()
        .find(|m| m.path.as_str() == "plotly.plotly")
        .unwrap();
    assert_eq!(
        shim.raises.as_deref(),
        Some("ImportError: The plotly.{submodule} module is deprecated, please install the chart-studio package")
    );
    let tools = r
        .modules
        .iter()
        .find(|m| m.path.as_str() == "plotly.tools")
        .unwrap();
    assert_eq!(
        tools.raises.as_deref(),
        Some("ImportError: use {…} elsewhere")
    );
    // A conditional raise is not a shim.
    assert_defined(&r, "plotly.maybe.f", ApiKind::Function);
    assert_defined(&r, "plotly.graph_objs.Figure", ApiKind::Class);
}

/// PyTorch's `torch.backends.cudnn` replaces itself with an instance of a class that wraps it:
/// the class's attributes (`benchmark`) are the module's, found before its `__getattr__` hands
/// the rest to the module. Caught by the coverage script: `torch.backends.cudnn.benchmark`
/// was absent in every release.
#[test]
fn a_module_wrapped_by_a_class_has_the_class_attributes() {
    let cudnn = r#"
import sys
import torch
def version(): pass
class ContextProp(object):
    def __init__(self, getter, setter): pass
class CudnnModule(object):
    def __init__(self, m, name):
        self.__dict__ = m.__dict__
        self.__old_mod = m
    def __getattr__(self, name):
        return getattr(self.__old_mod, name)
    enabled = ContextProp(torch._C._get_cudnn_enabled, torch._C._set_cudnn_enabled)
    benchmark = ContextProp(torch._C._get_cudnn_benchmark, torch._C._set_cudnn_benchmark)
sys.modules[__name__] = CudnnModule(sys.modules[__name__], __name__)
"#;
    let r = release(&[
        ("torch/__init__.py", "from torch import backends\n"),
        ("torch/backends/__init__.py", ""),
        ("torch/backends/cudnn/__init__.py", cudnn),
    ]);
    for name in ["benchmark", "enabled"] {
        let e = api(&r, &format!("torch.backends.cudnn.{name}"));
        assert!(e.public, "{e:?}");
    }
    assert_defined(&r, "torch.backends.cudnn.version", ApiKind::Function);
    assert!(r.get("torch.backends.cudnn.__getattr__").is_none());
    assert!(r.get("torch.backends.cudnn.__old_mod").is_none());
    assert_absent(&r, "torch.backends.cudnn.deterministic");
}

/// pandas 0.20 to 0.23 keep `pandas.tools.plotting` alive by setting every name of
/// `pandas.plotting` on it in a loop: the module is open, so `scatter_matrix` there is unknown
/// to static reading, not absent. Caught by the coverage script.
#[test]
fn setattr_of_computed_names_on_a_module_opens_it() {
    let shim = r#"
import sys
import warnings
import pandas.plotting as _plotting
m = sys.modules['pandas.tools.plotting']
for t in [t for t in dir(_plotting) if not t.startswith('_')]:
    def outer(t=t):
        def wrapper(*args, **kwargs):
            return getattr(_plotting, t)(*args, **kwargs)
        return wrapper
    setattr(m, t, outer(t))
"#;
    let literal = "import sys\n_m = sys.modules[__name__]\nsetattr(_m, 'fixed', 1)\n";
    let r = release(&[
        ("pandas/__init__.py", ""),
        ("pandas/plotting.py", "def scatter_matrix(frame): pass\n"),
        ("pandas/tools/__init__.py", ""),
        ("pandas/tools/plotting.py", shim),
        ("pandas/tools/literal.py", literal),
    ]);
    let module = |path: &str| r.modules.iter().find(|m| m.path.as_str() == path).unwrap();
    assert!(module("pandas.tools.plotting").open);
    assert!(!module("pandas.tools.literal").open);
    assert!(!module("pandas.plotting").open);
    assert!(api(&r, "pandas.tools.literal.fixed").public);
}

/// keras 2.4 re-exports `Input` from `keras.layers`, which star-imports TensorFlow's layers:
/// the import succeeds whenever `keras` imports, so `keras.Input` is there (from where static
/// reading cannot see), not absent. A name imported from a closed module stays unresolved.
/// Caught by the coverage script.
#[test]
fn a_name_imported_from_an_open_module_is_kept() {
    let r = release(&[
        (
            "keras/__init__.py",
            "from .layers import Input\nfrom .models import Nowhere\n",
        ),
        (
            "keras/layers/__init__.py",
            "from tensorflow.keras.layers import *\nfrom . import core\n",
        ),
        ("keras/layers/core.py", "class Dense: pass\n"),
        ("keras/models.py", "class Model: pass\n"),
    ]);
    let input = api(&r, "keras.Input");
    assert!(input.public, "{input:?}");
    assert_eq!(input.kind, ApiKind::Unknown);
    assert_absent(&r, "keras.Nowhere");
}

/// TensorFlow 1.15 forwards `tensorflow.examples` (and `.python`, `.keras`...) to
/// `tensorflow_core` through `sys.modules`: like a `__path__` extended, its submodules come
/// from elsewhere, so what lies under them is unknown, not absent
/// (`tensorflow.examples.tutorials.mnist.input_data`). Caught by the coverage script.
#[test]
fn a_module_that_registers_modules_has_submodules_from_elsewhere() {
    let tf = r#"
import sys as _sys
import importlib as _importlib
def _forward_module(old_name):
  parts = old_name.split(".")
  parts[0] = parts[0] + "_core"
  local_name = parts[-1]
  existing_name = ".".join(parts)
  _module = _LazyLoader(local_name, globals(), existing_name)
  return _sys.modules.setdefault(old_name, _module)
for _m in ["tensorflow.python", "tensorflow.examples"]:
  _forward_module(_m)
"#;
    let r = release(&[
        ("tensorflow/__init__.py", tf),
        ("tensorflow/plain.py", "x = 1\n"),
        ("tensorflow_core/__init__.py", ""),
    ]);
    let module = |path: &str| r.modules.iter().find(|m| m.path.as_str() == path).unwrap();
    assert!(module("tensorflow").extends_path);
    assert!(!module("tensorflow.plain").extends_path);
}

/// scipy 1.16's `scipy.signal`: names reach it through two star imports whose `__all__` are
/// another module's (`__all__ = _signal_api.__all__`, itself built from `dir()`), and the
/// module deletes the helpers it went through. Caught by the coverage script: `butter`,
/// `find_peaks` were absent from 1.16.
#[test]
fn star_imports_through_borrowed_all_lists() {
    let init = r#"
from ._support_alternative_backends import *
from . import _support_alternative_backends
__all__ = _support_alternative_backends.__all__
del _support_alternative_backends, _signal_api, _delegators
from . import filter_design
"#;
    let sab = r#"
import functools
from ._signal_api import *
from . import _signal_api
from . import _delegators
__all__ = _signal_api.__all__
def delegate_xp(delegator, module_name):
    return delegator
for obj_name in _signal_api.__all__:
    bare_obj = getattr(_signal_api, obj_name)
    vars()[obj_name] = bare_obj
"#;
    let api_mod = r#"
from . import windows
from ._filter_design import *
from .windows import get_window
__all__ = [s for s in dir() if not s.startswith('_')]
"#;
    let r = release(&[
        ("scipy/__init__.py", ""),
        ("scipy/signal/__init__.py", init),
        ("scipy/signal/_support_alternative_backends.py", sab),
        ("scipy/signal/_signal_api.py", api_mod),
        ("scipy/signal/_delegators.py", ""),
        ("scipy/signal/filter_design.py", ""),
        (
            "scipy/signal/_filter_design.py",
            "import numpy as np\n__all__ = ['butter']\ndef butter(N, Wn): pass\n",
        ),
        (
            "scipy/signal/windows/__init__.py",
            "def get_window(w): pass\n",
        ),
    ]);
    assert_reaches(
        &r,
        "scipy.signal.butter",
        "scipy.signal._filter_design.butter",
        ApiKind::Function,
    );
    assert_reaches(
        &r,
        "scipy.signal.get_window",
        "scipy.signal.windows.get_window",
        ApiKind::Function,
    );
}

/// matplotlib 2 and 3 make `cm.viridis` with `locals().update(cmap_d)` at module level, where
/// `locals()` is the module's namespace: the module is open, so `cm.viridis` is unknown to
/// static reading, not absent. Caught by the coverage script.
#[test]
fn locals_and_vars_at_module_level_write_the_module() {
    let r = release(&[
        ("mpl/__init__.py", ""),
        (
            "mpl/cm.py",
            "cmap_d = dict()\ncmap_d['viridis'] = 1\nlocals().update(cmap_d)\n",
        ),
        (
            "mpl/loop.py",
            "for _n in ['a', 'b']:\n    vars()[_n] = _n\n",
        ),
        ("mpl/plain.py", "def f():\n    return locals()\n"),
    ]);
    let module = |path: &str| r.modules.iter().find(|m| m.path.as_str() == path).unwrap();
    assert!(module("mpl.cm").open);
    assert!(module("mpl.loop").open);
    assert!(!module("mpl.plain").open);
}

/// numpy 1.24's `numpy.core.__all__` includes `numerictypes.__all__`, a literal list extended
/// by code, in a module that imports `float` from builtins: only the literal part counts, or
/// `numpy.float` (removed in 1.24) would be back. Caught by the coverage script.
#[test]
fn a_partly_computed_all_included_elsewhere_stands_for_its_literal_names() {
    let core = r#"
from . import numerictypes
from .numerictypes import *
__all__ = ['ndarray']
__all__ += numerictypes.__all__
def ndarray(): pass
"#;
    let numerictypes = r#"
from builtins import bool, int, float
__all__ = ['sctypeDict']
sctypeDict = {}
__all__.extend(_computed())
"#;
    let r = release(&[
        (
            "numpy/__init__.py",
            "from . import core\nfrom .core import *\n",
        ),
        ("numpy/core/__init__.py", core),
        ("numpy/core/numerictypes.py", numerictypes),
    ]);
    api(&r, "numpy.sctypeDict");
    assert!(r.get("numpy.float").is_none());
}

/// pandas 0.19 to 2.0 give `DataFrame` members three ways static reading cannot list by name:
/// a class method `setattr(cls, name, ...)` (`_create_indexer`: `loc`, `iloc`, `ix`), a
/// function handed the class at the top level (`ops.add_flex_arithmetic_methods(DataFrame)`:
/// `add`), and a literal `cls.mad = ...` in a class method or `DataFrame.plot = ...` after
/// the class, which are read. The class and its subclasses are then open: what they do not
/// list is unknown, not absent. Caught by the coverage script.
#[test]
fn members_given_by_computed_setattr_make_classes_open() {
    let generic = r#"
class NDFrame(object):
    @classmethod
    def _create_indexer(cls, name, indexer):
        setattr(cls, name, property(lambda self: indexer))
    @classmethod
    def _add_numeric_operations(cls):
        cls.mad = lambda self: 0
    def head(self): pass
"#;
    let ops = r#"
def add_flex_arithmetic_methods(cls):
    for name, method in {"add": None}.items():
        setattr(cls, name, method)
def plain(cls):
    return cls
"#;
    let frame = r#"
from .generic import NDFrame
from . import ops
class DataFrame(NDFrame):
    pass
class Panel(object):
    pass
DataFrame.plot = object()
DataFrame._add_numeric_operations()
ops.plain(Panel)
"#;
    let series = r#"
from . import ops
class Series(object):
    def head(self): pass
ops.add_flex_arithmetic_methods(Series)
"#;
    let r = release(&[
        (
            "pd/__init__.py",
            "from .frame import DataFrame, Panel\nfrom .series import Series\n",
        ),
        ("pd/generic.py", generic),
        ("pd/ops.py", ops),
        ("pd/frame.py", frame),
        ("pd/series.py", series),
    ]);
    let class = |path: &str| api(&r, path).open;
    assert!(class("pd.frame.DataFrame"), "a base sets computed names");
    assert!(
        class("pd.series.Series"),
        "handed to a function that sets computed names"
    );
    assert!(
        !class("pd.frame.Panel"),
        "handed to a function that sets nothing"
    );
    // Members are stored under the class that defines them.
    api(&r, "pd.frame.DataFrame.plot");
    api(&r, "pd.generic.NDFrame.mad");
}

#[test]
fn a_private_module_a_public_alias_leads_to_is_an_api() {
    // TensorFlow 2.6+: `tensorflow.compat` is `tensorflow._api.v2.compat`, whose package binds
    // its own submodule `v1` (`from tensorflow._api.v2.compat import v1`). Before, only the
    // names inside `v1` were recorded, so `import tensorflow.compat.v1` read as removed after
    // 2.5 and held a notebook importing it to Python 3.8.
    let v1 = "import sys as _sys
from tensorflow.python.framework.random_seed import set_random_seed
from tensorflow._api.v2.compat.v1 import compat
if not isinstance(_sys.modules[__name__], W):
  _sys.modules[__name__] = W(_sys.modules[__name__], '')
_current_module = _sys.modules[__name__]
_current_module.__path__ = ['x'] + _current_module.__path__
";
    let r = release(&[
        (
            "tensorflow/__init__.py",
            "from tensorflow._api.v2 import compat\n",
        ),
        ("tensorflow/_api/__init__.py", ""),
        ("tensorflow/_api/v2/__init__.py", ""),
        (
            "tensorflow/_api/v2/compat/__init__.py",
            "from tensorflow._api.v2.compat import v1\n",
        ),
        ("tensorflow/_api/v2/compat/v1/__init__.py", v1),
        (
            "tensorflow/_api/v2/compat/v1/compat/__init__.py",
            "from tensorflow._api.v2.compat.v1.compat import v1\n",
        ),
        ("tensorflow/_api/v2/compat/v1/compat/v1/__init__.py", ""),
        ("tensorflow/python/__init__.py", ""),
        ("tensorflow/python/framework/__init__.py", ""),
        (
            "tensorflow/python/framework/random_seed.py",
            "def set_random_seed(seed): pass\n",
        ),
    ]);
    assert_reaches(
        &r,
        "tensorflow.compat.v1",
        "tensorflow._api.v2.compat.v1",
        ApiKind::Module,
    );
    assert_reaches(
        &r,
        "tensorflow.compat.v1.compat.v1",
        "tensorflow._api.v2.compat.v1.compat.v1",
        ApiKind::Module,
    );
    assert_reaches(
        &r,
        "tensorflow.compat.v1.set_random_seed",
        "tensorflow.python.framework.random_seed.set_random_seed",
        ApiKind::Function,
    );
    // The private module is the aliases' definition, not a public API itself.
    assert_absent(&r, "tensorflow._api.v2.compat.v1");
}
