//! What the import flow produces for one release: each public API once, with its kind, its
//! canonical definition and its parameters, ready to be stored.

use serde::{Deserialize, Serialize};

use crate::bank::extract::{Signature, Warned};
use crate::names::{ApiPath, ModulePath};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApiKind {
    Module,
    Function,
    Class,
    Method,
    Property,
    Attribute,
    /// Exists, but what it is cannot be read statically: it comes from a compiled module or a
    /// star import of one, or it is listed in `__all__` with no definition in sight.
    Unknown,
}

impl ApiKind {
    const ALL: [ApiKind; 7] = [
        ApiKind::Module,
        ApiKind::Function,
        ApiKind::Class,
        ApiKind::Method,
        ApiKind::Property,
        ApiKind::Attribute,
        ApiKind::Unknown,
    ];

    /// The name used in JSON, in query output and by the introspection script.
    pub fn as_str(self) -> &'static str {
        match self {
            ApiKind::Module => "module",
            ApiKind::Function => "function",
            ApiKind::Class => "class",
            ApiKind::Method => "method",
            ApiKind::Property => "property",
            ApiKind::Attribute => "attribute",
            ApiKind::Unknown => "unknown",
        }
    }

    /// The small integer the bank stores.
    pub fn code(self) -> i64 {
        Self::ALL.iter().position(|k| *k == self).expect("listed") as i64
    }

    /// The kind stored as `code`; codes this build does not know read as `Unknown`.
    pub fn from_code(code: i64) -> Self {
        usize::try_from(code)
            .ok()
            .and_then(|i| Self::ALL.get(i).copied())
            .unwrap_or(ApiKind::Unknown)
    }
}

impl std::fmt::Display for ApiKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A kind name that is not one of [`ApiKind`]'s.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not an API kind")]
pub struct UnknownKind(pub String);

impl std::str::FromStr for ApiKind {
    type Err = UnknownKind;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| UnknownKind(s.to_string()))
    }
}

/// One name the release makes reachable.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApiEntry {
    pub path: ApiPath,
    pub kind: ApiKind,
    /// The definition this name is an alias of (`pandas.read_excel` →
    /// `pandas.io.excel._base.read_excel`); `None` when `path` is itself the definition.
    /// Always names another entry of the same [`ReleaseApis`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub canonical: Option<ApiPath>,
    /// On definitions only (aliases share their canonical's): the parameters of a function;
    /// of a method, without `self`; of a class's constructor, from `__init__` (inherited if
    /// need be), without `self`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<Signature>,
    /// On definitions of functions and methods only: a shim's warning and template, renamed
    /// keywords (see [`Warned`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warned: Option<Box<Warned>>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub is_async: bool,
    /// Reachable without touching a private name. Private entries are listed only because
    /// a public entry's `canonical` points at them.
    pub public: bool,
    /// For a name listed in `__all__` that is bound to an object of another distribution
    /// (`from numpy import ndarray`), that object's dotted path. Such names are exported but
    /// never followed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external: Option<String>,
    /// For a class definition: the canonical paths of its direct bases defined in this
    /// release (each listed as an entry too).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bases: Vec<ApiPath>,
    /// For an attribute definition made by calling a class of this release
    /// (`norm = norm_gen(name='norm')`): that class, whose members the attribute has.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance_of: Option<ApiPath>,
    /// Names under this one may exist that static reading cannot list, so a name below it that
    /// is not found is unknown, not absent: a module with `__getattr__`, a module that replaces
    /// itself or star-imports a compiled module or another distribution; a class with a base
    /// outside the release; a value whose type is not a class of the release; a name bound to
    /// another distribution's object. On definitions only (aliases share their canonical's).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub open: bool,
}

/// Choices about how much the output spells out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlowOptions {
    // Both off by default; see `impl Default`.
    /// List members inherited from bases of the same release under each class, as aliases of
    /// the defining class's member (`pandas.core.frame.DataFrame.head` →
    /// `pandas.core.generic.NDFrame.head`).
    pub inherited_members: bool,
    /// Also list every member under every alias of its class (`pandas.DataFrame.ix`).
    pub members_through_aliases: bool,
}

/// The default lists each member once, under the class that defines it: class entries carry
/// their `bases` and [`ReleaseApis::resolve`] walks them, so nothing is lost. On sympy 1.14 the
/// options multiply the output by 6 (inherited members) and 36 (both).
impl Default for FlowOptions {
    fn default() -> Self {
        Self {
            inherited_members: false,
            members_through_aliases: false,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ModuleKind {
    Source,
    /// Read from a `.pyi` stub (a compiled module described by a stub, or a stub-only module).
    Stub,
    /// A compiled extension without a stub: its names are unknown statically.
    Opaque,
    /// A directory without `__init__`.
    Namespace,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModuleEntry {
    pub path: ModulePath,
    pub kind: ModuleKind,
    pub is_package: bool,
    /// Names may exist in it that only introspection can see: a module-level `__getattr__`,
    /// `globals()` writes, a replacement in `sys.modules`, a star import from a compiled module
    /// or from another distribution, or a compiled module without a stub.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub open: bool,
    /// The package changes its `__path__`: submodules may come from other directories.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub extends_path: bool,
    /// Importing the module raises unconditionally (a shim pointing elsewhere): the exception
    /// and its message. Its names are not APIs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raises: Option<String>,
    /// The module sets `__all__`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub has_all: bool,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub parse_errors: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlowStats {
    pub modules: usize,
    pub source_modules: usize,
    pub opaque_modules: usize,
    pub namespace_modules: usize,
    pub files_with_parse_errors: usize,
    /// Module namespaces computed until none changed (at least `modules`).
    pub module_visits: usize,
    /// False if some module hit the recomputation limit (the result is then its last one).
    pub converged: bool,
}

/// The public APIs of one release, sorted by path, each once.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReleaseApis {
    pub modules: Vec<ModuleEntry>,
    pub apis: Vec<ApiEntry>,
    /// The other distributions' modules and names (`scipy.sparse`, `scipy.misc.comb`) that
    /// importing the release's top-level packages surely imports, sorted; `None` when none
    /// of them could be read from source.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external_imports: Option<Vec<String>>,
    /// Modules the release puts in place of others, forwarding every name to a module that
    /// may be another distribution's; sorted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mirrors: Vec<ModuleMirror>,
    pub stats: FlowStats,
}

/// A module whose every name is another module's (IPython 4-7's `IPython.html.widgets`,
/// whose names are `ipywidgets`'), as the release's own code says by putting a forwarding
/// object in its place.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ModuleMirror {
    pub module: ModulePath,
    pub mirror: ModulePath,
    /// The module whose code does it (`IPython.html`).
    pub by: ModulePath,
}

impl ReleaseApis {
    /// The entry for `path`, by binary search.
    pub fn get(&self, path: &str) -> Option<&ApiEntry> {
        self.apis
            .binary_search_by(|e| e.path.as_str().cmp(path))
            .ok()
            .map(|i| &self.apis[i])
    }

    /// Follows `canonical` to the defining entry (the entry itself when it is the definition).
    pub fn definition_of(&self, path: &str) -> Option<&ApiEntry> {
        let entry = self.get(path)?;
        match &entry.canonical {
            Some(c) => self.get(c.as_str()),
            None => Some(entry),
        }
    }

    /// The entry a dotted path denotes, following aliases of modules and classes in its
    /// prefix, the bases of classes and the class of instances: `pandas.DataFrame.head` is found as
    /// `pandas.core.generic.NDFrame.head` when `pandas.DataFrame` is an alias of
    /// `pandas.core.frame.DataFrame`, whose base `NDFrame` defines `head`. The entry returned
    /// may itself be an alias; [`ReleaseApis::definition_of`] goes on to the definition.
    pub fn resolve(&self, path: &str) -> Option<&ApiEntry> {
        self.resolve_within(path, 0)
    }

    fn resolve_within(&self, path: &str, depth: usize) -> Option<&ApiEntry> {
        // Each step follows one alias or one base; the bound keeps broken data finite.
        if depth > 32 {
            return None;
        }
        if let Some(entry) = self.get(path) {
            return Some(entry);
        }
        let mut split = path.len();
        let (prefix, rest) = loop {
            let (head, _) = path[..split].rsplit_once('.')?;
            split = head.len();
            if let Some(e) = self.get(head) {
                break (e, &path[split + 1..]);
            }
        };
        if !matches!(
            prefix.kind,
            ApiKind::Module | ApiKind::Class | ApiKind::Attribute
        ) {
            return None;
        }
        if let Some(canonical) = &prefix.canonical {
            return self.resolve_within(&format!("{canonical}.{rest}"), depth + 1);
        }
        if let Some(class) = &prefix.instance_of {
            return self.resolve_within(&format!("{class}.{rest}"), depth + 1);
        }
        prefix
            .bases
            .iter()
            .find_map(|base| self.resolve_within(&format!("{base}.{rest}"), depth + 1))
    }

    pub fn public_apis(&self) -> impl Iterator<Item = &ApiEntry> {
        self.apis.iter().filter(|e| e.public)
    }
}
