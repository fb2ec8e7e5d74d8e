//! The per-file summary: everything the import flow needs from one source file, and nothing
//! that depends on where the file sits in a release.
//!
//! A summary is cached by the file's sha256 and reused by every release that ships the same
//! bytes, so it must not mention the file's module path: relative imports keep their level and
//! are resolved later, in `bank::flow`. Field names are short and empty fields are skipped
//! because millions of these are stored.

use serde::{Deserialize, Serialize};

use super::all_names::AllNames;
use super::deprecation::Warned;
use super::signature::Signature;

/// What one `.py` or `.pyi` file binds at module level.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileSummary {
    /// Syntax errors the recovering parser reported (Python 2 code, broken files).
    #[serde(rename = "err", default, skip_serializing_if = "is_zero")]
    pub parse_errors: u32,
    /// The module defines `__getattr__` or writes through `globals()`, so it can expose names no
    /// static reading sees.
    #[serde(rename = "dyn", default, skip_serializing_if = "is_false")]
    pub dynamic_exports: bool,
    /// `sys.modules[__name__]` is replaced by another object (transformers' `_LazyModule`):
    /// what the module exposes is that object's doing. A wrapper of the module itself
    /// (TensorFlow's `TFModuleWrapper(sys.modules[__name__], ...)`) does not count.
    #[serde(rename = "rep", default, skip_serializing_if = "is_false")]
    pub replaces_itself: bool,
    /// The class whose instance wraps the module in `sys.modules` (`CudnnModule` in
    /// `sys.modules[__name__] = CudnnModule(sys.modules[__name__], __name__)`, PyTorch's
    /// `torch.backends.cudnn`): its attributes (`benchmark`) are the module's too.
    #[serde(rename = "wrap", default, skip_serializing_if = "Option::is_none")]
    pub wrapped_by: Option<String>,
    /// The module puts other modules into `sys.modules` (`sys.modules.setdefault(name, ...)`),
    /// as TensorFlow 1.15 forwards `tensorflow.python` to `tensorflow_core.python`.
    #[serde(rename = "reg", default, skip_serializing_if = "is_false")]
    pub registers_modules: bool,
    /// The package changes its `__path__`: its submodules may come from other directories.
    #[serde(rename = "path", default, skip_serializing_if = "is_false")]
    pub extends_path: bool,
    /// `from __future__ import absolute_import`: no Python 2 implicit relative imports.
    #[serde(rename = "abs", default, skip_serializing_if = "is_false")]
    pub absolute_import: bool,
    /// The module raises unconditionally when imported (a shim left to point users elsewhere,
    /// like plotly 4's `plotly.plotly`): the exception and its message.
    #[serde(rename = "raise", default, skip_serializing_if = "Option::is_none")]
    pub raises: Option<String>,
    /// `__all__`, when the module sets it.
    #[serde(rename = "all", default, skip_serializing_if = "Option::is_none")]
    pub all: Option<AllNames>,
    /// Module-level bindings in source order (later ones win, as in Python).
    #[serde(rename = "b", default, skip_serializing_if = "Vec::is_empty")]
    pub bindings: Vec<Binding>,
    /// Indexes into `bindings` of those made in an `except` handler or an `elif`/`else`
    /// branch: fallbacks that only count when the main line binds nothing for the name.
    #[serde(rename = "alt", default, skip_serializing_if = "Vec::is_empty")]
    pub fallbacks: Vec<u32>,
    /// Indexes into `bindings` of those made only lazily: under `if TYPE_CHECKING:`, or read
    /// from a literal import structure (transformers' `_import_structure`). Nothing is bound at
    /// run time, except that a module with `__getattr__`, or one that replaces itself with a
    /// lazy module, usually provides exactly these names on first access (pydantic,
    /// transformers, and more and more libraries, do this).
    #[serde(rename = "lz", default, skip_serializing_if = "Vec::is_empty")]
    pub lazy: Vec<u32>,
    /// Indexes into `bindings` of the imports that run whenever the module is imported: at the
    /// top level or in a `with` block, not under an `if`, nor in a `try` whose handler catches
    /// a failed import without raising again. What a release needs at import time is read
    /// from these (see `bank::flow::import_time`). Empty for stubs, which never run.
    #[serde(rename = "eager", default, skip_serializing_if = "Vec::is_empty")]
    pub eager_imports: Vec<u32>,
    /// Dotted callees of calls made as statements at the top level, unconditionally: a call
    /// of a function that only raises (plotly's `_chart_studio_error("plotly")`) makes the
    /// module fail on import.
    #[serde(rename = "calls", default, skip_serializing_if = "Vec::is_empty")]
    pub top_calls: Vec<String>,
    /// Top-level calls that hand a name to a function as its first argument, as (callee,
    /// name): `ops.add_flex_arithmetic_methods(DataFrame)`, which may give the class members
    /// no static reading lists.
    #[serde(rename = "pass", default, skip_serializing_if = "Vec::is_empty")]
    pub passes: Vec<(String, String)>,
    /// Modules this file puts in place of others, each forwarding every name to another
    /// module, as (replaced, forwarded to): IPython 4-7's `IPython.html.widgets` to
    /// `ipywidgets`. The evidence of a move across distributions.
    #[serde(rename = "mir", default, skip_serializing_if = "Vec::is_empty")]
    pub mirrors: Vec<(String, String)>,
    /// Where the bindings of a `.pyi` beside the source start (see [`FileSummary::with_stub`]);
    /// never stored, since summaries are merged for one release's flow.
    #[serde(skip)]
    pub stub_from: Option<u32>,
}

/// One statement that binds (or unbinds) names in the module namespace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Binding {
    #[serde(rename = "fn")]
    Function(Function),
    #[serde(rename = "cls")]
    Class(Class),
    #[serde(rename = "var")]
    Variable(Variable),
    /// `import a.b` (binds `a`) or `import a.b as c` (binds `c` to `a.b`).
    #[serde(rename = "imp")]
    Import(Import),
    /// `from .x import f as g`, `from x import *`.
    #[serde(rename = "from")]
    ImportFrom(ImportFrom),
    /// `del a, b` at module level.
    #[serde(rename = "del")]
    Delete(Vec<String>),
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Function {
    #[serde(rename = "n")]
    pub name: String,
    #[serde(rename = "s")]
    pub signature: Signature,
    #[serde(rename = "a", default, skip_serializing_if = "is_false")]
    pub is_async: bool,
    /// The body does nothing but raise: the exception and its message.
    #[serde(rename = "r", default, skip_serializing_if = "Option::is_none")]
    pub raises: Option<String>,
    /// The body sets attributes of computed names on its first argument (pandas'
    /// `add_flex_arithmetic_methods(cls)` does `setattr(cls, name, method)` in a loop).
    #[serde(rename = "sa", default, skip_serializing_if = "is_false")]
    pub sets_attributes: bool,
    /// The body warns of its own deprecation (a shim) or of a renamed keyword.
    #[serde(rename = "w", default, skip_serializing_if = "Option::is_none")]
    pub warned: Option<Box<Warned>>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Class {
    #[serde(rename = "n")]
    pub name: String,
    /// Base classes as dotted names, as written (`pd.core.generic.NDFrame`); `Generic[T]`
    /// is recorded as `Generic`, and `six.with_metaclass(Meta, Base)` as `Base`.
    #[serde(rename = "b", default, skip_serializing_if = "Vec::is_empty")]
    pub bases: Vec<String>,
    /// The constructor's parameters without `self`, from `__init__`, else from `__new__`.
    #[serde(rename = "i", default, skip_serializing_if = "Option::is_none")]
    pub init: Option<Signature>,
    /// Public members defined in the class body, then public attributes its methods set on
    /// instances (`self.coef_ = ...`), as attributes.
    #[serde(rename = "m", default, skip_serializing_if = "Vec::is_empty")]
    pub members: Vec<Member>,
    /// The class defines `__getattr__` (or `__getattribute__`): its instances may answer any
    /// attribute name.
    #[serde(rename = "ga", default, skip_serializing_if = "is_false")]
    pub getattr: bool,
    /// A method sets attributes of computed names on the class or its instances
    /// (`setattr(cls, name, ...)`): members beyond those listed may exist, in subclasses too.
    #[serde(rename = "cm", default, skip_serializing_if = "is_false")]
    pub computed_members: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Member {
    #[serde(rename = "n")]
    pub name: String,
    #[serde(rename = "k")]
    pub kind: MemberKind,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum MemberKind {
    #[serde(rename = "fn")]
    Method {
        #[serde(rename = "s")]
        signature: Signature,
        #[serde(rename = "a", default, skip_serializing_if = "is_false")]
        is_async: bool,
        /// As [`Function::warned`].
        #[serde(rename = "w", default, skip_serializing_if = "Option::is_none")]
        warned: Option<Box<Warned>>,
    },
    /// `@property`, `@cached_property` and the like.
    #[serde(rename = "prop")]
    Property,
    #[serde(rename = "attr")]
    Attribute,
    /// A nested class.
    #[serde(rename = "cls")]
    Class,
}

/// `name = value` (also annotated and tuple targets).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Variable {
    #[serde(rename = "n")]
    pub name: String,
    /// The dotted name on the right when the value is just a name (`DataFrame = frame.DataFrame`),
    /// so the flow can treat the variable as an alias of what that name denotes.
    #[serde(rename = "v", default, skip_serializing_if = "Option::is_none")]
    pub alias_of: Option<String>,
    /// The dotted name called when the value is a call (`norm = norm_gen(name='norm')`): if it
    /// names a class of the release, the variable is an instance of it, with its members.
    #[serde(rename = "c", default, skip_serializing_if = "Option::is_none")]
    pub called: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Import {
    /// The dotted module, `a.b`.
    #[serde(rename = "m")]
    pub module: String,
    #[serde(rename = "as", default, skip_serializing_if = "Option::is_none")]
    pub asname: Option<String>,
}

impl Import {
    /// The name this statement binds: the `as` name, else the first segment of the module.
    pub fn bound_name(&self) -> &str {
        match &self.asname {
            Some(a) => a,
            None => self.module.split('.').next().unwrap_or(&self.module),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportFrom {
    /// Number of leading dots; 0 for an absolute import.
    #[serde(rename = "l", default, skip_serializing_if = "is_zero")]
    pub level: u32,
    /// The module after the dots, absent in `from . import x`.
    #[serde(rename = "m", default, skip_serializing_if = "Option::is_none")]
    pub module: Option<String>,
    #[serde(rename = "ns")]
    pub names: Vec<ImportedName>,
}

impl ImportFrom {
    pub fn is_star(&self) -> bool {
        self.names.iter().any(|n| n.name == "*")
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportedName {
    /// The imported name, or `*`.
    #[serde(rename = "n")]
    pub name: String,
    #[serde(rename = "as", default, skip_serializing_if = "Option::is_none")]
    pub asname: Option<String>,
}

impl ImportedName {
    pub fn bound_name(&self) -> &str {
        self.asname.as_deref().unwrap_or(&self.name)
    }
}

impl Binding {
    /// The names this binding sets, except a star import's (unknown until the flow).
    pub fn bound_names(&self) -> impl Iterator<Item = &str> {
        let (one, many): (Option<&str>, &[ImportedName]) = match self {
            Binding::Function(f) => (Some(&f.name), &[]),
            Binding::Class(c) => (Some(&c.name), &[]),
            Binding::Variable(v) => (Some(&v.name), &[]),
            Binding::Import(i) => (Some(i.bound_name()), &[]),
            Binding::ImportFrom(f) => (None, &f.names),
            Binding::Delete(_) => (None, &[]),
        };
        one.into_iter().chain(
            many.iter()
                .filter(|n| n.name != "*")
                .map(ImportedName::bound_name),
        )
    }
}

impl FileSummary {
    pub fn is_fallback(&self, index: usize) -> bool {
        self.fallbacks.binary_search(&(index as u32)).is_ok()
    }

    /// Whether binding `index` comes from the stub beside the source.
    pub fn is_from_stub(&self, index: usize) -> bool {
        self.stub_from.is_some_and(|from| index as u32 >= from)
    }

    /// Whether binding `index` is an import made whenever the module is imported.
    pub fn is_eager_import(&self, index: usize) -> bool {
        self.eager_imports.binary_search(&(index as u32)).is_ok()
    }

    pub fn is_lazy(&self, index: usize) -> bool {
        self.lazy.binary_search(&(index as u32)).is_ok()
    }

    /// Whether the lazily bound names are served at run time: by a module `__getattr__` or by
    /// the object the module replaces itself with.
    pub fn serves_lazy_names(&self) -> bool {
        self.dynamic_exports || self.replaces_itself
    }

    /// Adds the bindings of the stub beside this source (`__init__.pyi` beside `__init__.py`):
    /// the stub describes what compiled parts provide, so its names count where the source
    /// binds nothing for them or binds them to a compiled object it cannot see into (numpy's
    /// `ndarray`, star-imported from its C core), and its `__all__` where the source has none.
    pub fn with_stub(&self, stub: &FileSummary) -> FileSummary {
        let mut merged = self.clone();
        let offset = merged.bindings.len() as u32;
        merged.bindings.extend(stub.bindings.iter().cloned());
        merged.stub_from = Some(offset);
        merged.lazy.extend(stub.lazy.iter().map(|i| i + offset));
        if merged.all.is_none() {
            merged.all = stub.all.clone();
        }
        merged
    }
}

/// Whether a name is private by Python's convention (a leading underscore).
pub fn is_private(name: &str) -> bool {
    name.starts_with('_')
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

fn is_false(b: &bool) -> bool {
    !*b
}
