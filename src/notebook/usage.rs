//! What usage analysis found in one notebook: the evidence later stages resolve into
//! distributions, versions and an interpreter. Everything is serializable for `--format json`.

use std::path::PathBuf;

use serde::{Serialize, Serializer};

use crate::names::{ApiPath, DistName, ModulePath};

use super::declarations::Declarations;
use super::external::{FileUse, NetworkUse};
use super::failure::Failure;
use super::format::{Kernel, SourceFormat};
use super::location::Location;
use super::python_version::{HintReason, VersionHint};
use super::requirement::InstallRequirement;
use crate::python::{PythonRange, PythonVersion};

/// The evidence of one notebook, in notebook order where order matters and sorted by name
/// elsewhere (imports by location, APIs and members by name).
#[derive(Debug, Clone, Serialize)]
pub struct Usage {
    pub notebook: NotebookInfo,
    /// Every import, in the order it appears.
    pub imports: Vec<Import>,
    /// Top-level import names that are neither standard library (for the candidate Python
    /// versions) nor local modules: what distributions must provide.
    pub third_party: Vec<ThirdPartyImport>,
    pub local_modules: Vec<LocalModule>,
    /// Fully qualified APIs the code uses, sorted by name.
    pub apis: Vec<ApiUse>,
    /// Members used on values whose library type is unknown (`df.ix` on a `read_csv` result).
    pub members: Vec<MemberUse>,
    /// `!pip install`, `%pip`, `%conda` and similar lines, with their specifiers.
    pub requirements: Vec<InstallRequirement>,
    pub python: PythonEvidence,
    /// What stored outputs reveal: library paths, warnings, errors, printed versions.
    pub outputs: Vec<OutputEvidence>,
    pub notes: Vec<Note>,
    /// Files the code opens by a literal path, reading or writing, in notebook order (each
    /// path and access once, where first seen).
    pub files: Vec<FileUse>,
    /// URLs in the code and calls that use the network, in notebook order (each once). Shell
    /// downloads, clones and model downloads are in `notes`; installs in `requirements`.
    pub network: Vec<NetworkUse>,
    /// Problems with the notebook itself (cells that did not parse), with where they are.
    pub warnings: Vec<Warning>,
    /// What the repository around the notebook declares, when read
    /// ([`Usage::attach_declarations`]): soft evidence.
    #[serde(skip_serializing_if = "Declarations::is_empty")]
    pub declarations: Declarations,
    /// Keywords releases refused in runs (repair rounds): evidence the notebook's code alone
    /// does not give.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub refusals: Vec<super::Refusal>,
    /// APIs releases lacked in runs (repair rounds).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lacked: Vec<super::Lacked>,
    /// For a local module read because a notebook imports it: the name it is imported as.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub imported_as: Option<ModulePath>,
}

#[derive(Debug, Clone, Serialize)]
pub struct NotebookInfo {
    pub path: PathBuf,
    pub format: SourceFormat,
    /// All cells, as numbered in locations.
    pub cells: u32,
    /// Code cells with something in them.
    pub code_cells: u32,
}

/// Where a module comes from, as far as the notebook and the candidate Pythons tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    ThirdParty,
    Stdlib,
    /// A module beside the notebook, written by `%%writefile`, or imported relatively.
    Local,
    /// Part of the kernel that runs the notebook: IPython reached through a magic
    /// (`%load_ext autoreload`). The kernel brings it, so it is no requirement of the notebook;
    /// `from IPython.display import ...` in code stays third-party evidence.
    Kernel,
}

/// How an import came about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ImportVia {
    /// An `import` / `from … import` statement.
    Statement,
    /// `%load_ext X`.
    LoadExt,
    /// A magic that needs a package: `%matplotlib`, `%pylab`, `%%cython`, `%memit`.
    Magic,
    /// A statement in a `%%writefile x.py` cell: the module the notebook writes imports it.
    WrittenModule,
    /// `import` / `cimport` lines in a `%%cython` cell.
    Cython,
    /// Not in the notebook: a run showed that something the notebook runs imports it (a
    /// library's import of a package its metadata does not require).
    Run,
}

#[derive(Debug, Clone, Serialize)]
pub struct Import {
    /// The module imported from (`sklearn.linear_model` for `from sklearn.linear_model import
    /// X`). For relative imports (`level` > 0) it is relative to the notebook's directory.
    pub module: ModulePath,
    /// The imported name of a `from` import (`LinearRegression`); `None` for `import m`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alias: Option<String>,
    /// `from m import *`.
    pub star: bool,
    /// Leading dots of a relative import.
    pub level: u32,
    /// Inside `try:` guarded by `except ImportError` (or a broad except), in such a handler, or
    /// under an `if`: the notebook may run without it.
    pub optional: bool,
    /// Inside a function (or method) body.
    pub in_function: bool,
    pub via: ImportVia,
    pub origin: Origin,
    pub at: Location,
}

/// A top-level import name that distributions must provide.
#[derive(Debug, Clone, Serialize)]
pub struct ThirdPartyImport {
    pub name: ModulePath,
    /// Every import of it is optional.
    pub optional: bool,
    pub count: u32,
    /// The first import.
    pub at: Location,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LocalSource {
    /// A `.py` file, package or extension module beside the notebook.
    BesideNotebook,
    /// Written by a `%%writefile name.py` cell.
    WriteFile,
    /// Found in a directory the notebook adds with `sys.path.append('...')`.
    SysPath,
    /// Found above the notebook in its repository (the root, or its `src/`), where its
    /// author had it importable by installing the repository or starting Jupyter there.
    Repository,
}

#[derive(Debug, Clone, Serialize)]
pub struct LocalModule {
    pub name: String,
    pub source: LocalSource,
    /// The file or package directory it is read from, for those found on disk.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<std::path::PathBuf>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<Location>,
    /// Where in the repository it lies ([`LocalSource::Repository`] only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repository: Option<super::repository::RepositoryPlace>,
}

/// How an API was used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum UseKind {
    /// Named in a `from m import name`.
    Import,
    Call,
    /// Read (or assigned) as an attribute without a call: `np.pi`, `pd.options.x = 1`.
    Attribute,
    Decorator,
    /// A base class of a notebook class: `class Net(nn.Module)`.
    BaseClass,
    /// A member of an instance of a library class, traced back to its constructor:
    /// `m = LinearRegression(); m.fit(...)` gives `…LinearRegression.fit`.
    Traced,
    /// A member a notebook class inherits from its library base: `net.parameters()`.
    Inherited,
    /// A bare name that only a `from m import *` can have defined.
    Star,
}

#[derive(Debug, Clone, Serialize)]
pub struct ApiUse {
    pub api: ApiPath,
    pub origin: Origin,
    pub count: u32,
    pub kinds: Vec<UseKind>,
    /// Keyword argument names passed in calls (a parameter a release removed is evidence).
    pub keywords: Vec<String>,
    pub locations: Vec<Location>,
}

/// What is known about the value a member was used on.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Receiver {
    /// Nothing: a parameter, a name bound by code nbenv cannot see, a subscript of those.
    Unknown,
    /// A value a library API returned, or derived from one (`df = pd.read_csv(...)`,
    /// `df['a']`, `df.groupby(...)`): the member belongs to some type that API returns.
    DerivedFrom(ApiPath),
}

impl Serialize for Receiver {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        match self {
            Receiver::Unknown => s.serialize_str("unknown"),
            Receiver::DerivedFrom(api) => {
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry("derived_from", api)?;
                m.end()
            }
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct MemberUse {
    pub member: String,
    pub receiver: Receiver,
    pub count: u32,
    /// Called at least once.
    pub called: bool,
    pub keywords: Vec<String>,
    /// The first use as written, receiver included (`df.ix`).
    pub example: String,
    pub locations: Vec<Location>,
}

/// Evidence about the Python version.
///
/// Two kinds, kept apart: what the *code* needs (syntax, removed builtins, standard-library
/// modules: a constraint, [`PythonEvidence::range`]) and where the notebook *last ran* (its
/// kernel metadata and interpreter paths in its outputs: a preference,
/// [`PythonEvidence::recorded`]). A notebook saved on 3.5 that uses nothing of 3.5's own runs
/// on 3.6 too, and a machine without 3.5 must still be able to run it.
#[derive(Debug, Clone, Serialize)]
pub struct PythonEvidence {
    pub kernel: Option<Kernel>,
    pub language_version: Option<String>,
    /// What the code's strong hints allow together; empty when they contradict each other.
    pub range: PythonRange,
    pub conflict: bool,
    pub hints: Vec<VersionHint>,
}

impl PythonEvidence {
    /// Where the notebook last ran, most precise record first: `language_info.version`, a
    /// kernelspec naming a version (`Python 3.6`), an interpreter path in an output, a
    /// kernelspec naming only the major version (`python3`).
    pub fn recorded(&self) -> Option<&VersionHint> {
        let exact = |h: &&VersionHint| h.range.min.is_some() && h.range.min == h.range.max;
        let of = |reason| self.hints.iter().filter(move |h| h.reason == reason);
        of(HintReason::LanguageInfo)
            .next()
            .or_else(|| of(HintReason::Kernelspec).find(exact))
            .or_else(|| of(HintReason::OutputPath).next())
            .or_else(|| of(HintReason::Kernelspec).next())
    }

    /// The first strong evidence that the notebook is Python 2: its syntax, a builtin Python 3
    /// removed, or a kernel of Python 2.
    pub fn python2(&self) -> Option<&VersionHint> {
        let only_2 = |max: Option<PythonVersion>| max.is_some_and(|m| m.major < 3);
        self.hints.iter().find(|h| {
            !h.weak
                && match h.reason {
                    HintReason::Python2Syntax | HintReason::Python2Name => true,
                    HintReason::Kernelspec | HintReason::LanguageInfo => only_2(h.range.max),
                    _ => false,
                }
        })
    }

    /// Makes `range` a need of the code (a run showed the standard library of this Python
    /// lacks `detail`): a strong hint, and the range the strong hints allow narrowed with it.
    /// Whether anything changed.
    pub fn require(
        &mut self,
        reason: HintReason,
        detail: &str,
        range: PythonRange,
        at: Option<Location>,
    ) -> bool {
        match self
            .hints
            .iter_mut()
            .find(|h| h.reason == reason && h.detail == detail)
        {
            Some(h) if !h.weak => return false,
            Some(h) => h.weak = false,
            None => self.hints.push(VersionHint {
                reason,
                detail: detail.to_string(),
                range,
                weak: false,
                count: 1,
                at,
            }),
        }
        self.range = code_range(&self.hints);
        self.conflict = self.range.is_empty();
        true
    }
}

/// What the code's strong hints allow together (where it last ran, or what its repository
/// declares, only steers: [`HintReason::is_code`]).
pub(crate) fn code_range(hints: &[VersionHint]) -> PythonRange {
    hints
        .iter()
        .filter(|h| !h.weak && h.reason.is_code())
        .fold(PythonRange::default(), |r, h| r.intersect(&h.range))
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum OutputEvidence {
    /// A library file named in a traceback or warning (`site-packages/pandas/core/frame.py`).
    LibraryPath {
        module: ModulePath,
        #[serde(skip_serializing_if = "Option::is_none")]
        python: Option<PythonVersion>,
        cell: u32,
        count: u32,
    },
    /// A warning printed by a library (`DeprecationWarning: ...`).
    Warning {
        category: String,
        message: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        module: Option<ModulePath>,
        cell: u32,
    },
    /// The exception a cell stopped with when the notebook was saved, classified as a live
    /// run's would be.
    Error {
        ename: String,
        evalue: String,
        cell: u32,
        #[serde(skip_serializing_if = "Option::is_none")]
        failure: Option<Box<Failure>>,
    },
    /// A printed `module.__version__`.
    Version {
        module: ModulePath,
        version: String,
        cell: u32,
    },
    /// A version pip reported installing or finding (`Successfully installed x-1.2`).
    Installed {
        name: DistName,
        version: String,
        cell: u32,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NoteKind {
    /// Models or corpora fetched at run time (`python -m spacy download`, `nltk.download`).
    ModelDownload,
    /// Files fetched with `wget`, `curl`, `kaggle`, `gdown`.
    DataDownload,
    GitClone,
    /// `apt-get install`, `brew install`, `yum install`.
    SystemPackage,
    /// `pip install -r file`.
    RequirementsFile,
    /// `pip install .`, `python setup.py install`, `pip install -e path`.
    SourceInstall,
    Uninstall,
    /// `%run script.py`.
    RunScript,
    /// A cell magic nbenv does not know; its body was not analysed.
    UnknownCellMagic,
    /// `sys.path.append(...)`.
    SysPath,
    /// Colab's `%tensorflow_version 1.x`.
    TensorflowVersion,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Note {
    pub kind: NoteKind,
    pub detail: String,
    pub at: Location,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Warning {
    pub at: Location,
    pub message: String,
}

impl Usage {
    /// The third-party APIs (what the API bank is asked about).
    pub fn third_party_apis(&self) -> impl Iterator<Item = &ApiUse> {
        self.apis.iter().filter(|a| a.origin == Origin::ThirdParty)
    }

    /// The repository folders the notebook's imports need on `sys.path`, relative to its
    /// folder (`..`, `../src`), nearest first: where its author had them importable.
    pub fn repository_paths(&self) -> Vec<std::path::PathBuf> {
        let mut out: Vec<std::path::PathBuf> = Vec::new();
        for place in self
            .local_modules
            .iter()
            .filter_map(|m| m.repository.as_ref())
        {
            if !out.contains(&place.import_root) {
                out.push(place.import_root.clone());
            }
        }
        out.sort_by_key(|p| p.components().count());
        out
    }
}
