//! What the classifier decides: a class (the seeds' taxonomy, which decides whether a repair
//! round can help) and a cause carrying what the repair loop needs.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::frame::Frame;
use super::history::BankSays;
use crate::names::{ApiPath, DistName, ModulePath};
use crate::python::{PythonRange, PythonVersion};

/// The kind of failure, as the repair loop acts on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureClass {
    /// The installed environment does not fit the notebook: other releases, another Python
    /// or another package would fix it. The only class a repair round acts on.
    Environment,
    /// Something the notebook reads is not there: a file, a local module, the network, a
    /// person typing at `input()`.
    DataInput,
    /// The notebook's own code fails, whatever the environment: an undefined name, a syntax
    /// error, any other exception raised in it, a name no release of the library ever had.
    Code,
    /// Environment or code, and the bank cannot tell which: a name the installed release
    /// lacks, with no bank at hand or one that cannot see the library's other releases. A
    /// repair round may try it; counts and reports keep it apart.
    Unknown,
    /// Memory or time ran out, or the process was killed.
    Resource,
    /// A GPU or other accelerator, or CPU feature, that this machine lacks.
    Hardware,
    /// The environment could not be installed.
    Install,
}

impl FailureClass {
    pub fn as_str(self) -> &'static str {
        match self {
            FailureClass::Environment => "environment",
            FailureClass::DataInput => "data/input",
            FailureClass::Code => "code",
            FailureClass::Unknown => "unknown",
            FailureClass::Resource => "resource",
            FailureClass::Hardware => "hardware",
            FailureClass::Install => "install",
        }
    }
}

impl fmt::Display for FailureClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where an undefined name is bound in the notebook, if anywhere.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "where")]
pub enum Definition {
    /// Only after the use: in a later cell (or further down the same one). The notebook was
    /// run out of order when it was written.
    Later { cell: u32, line: u32 },
    /// Before the use, in code that did not bind it in this run (a branch not taken, a `del`,
    /// a cell that stopped early).
    Earlier { cell: u32, line: u32 },
    /// Nowhere in the notebook.
    Nowhere,
}

/// Why installing failed, from the installer's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum InstallReason {
    /// No release file fits (no wheel for these tags, or the version does not exist).
    NoMatchingDistribution,
    /// Building an sdist failed.
    BuildFailed,
    /// The requirements cannot all hold together.
    Conflict,
    /// The installer refused a release's metadata (uv does for versions old pips took, such
    /// as `pytz (>=2011k)` in pandas 0.19 to 0.22).
    InvalidMetadata,
    /// The index could not be reached.
    Network,
    Other,
}

/// The cause of a failure. Its class follows from it ([`Cause::class`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "cause")]
pub enum Cause {
    // ---- environment
    /// A third-party module is not installed (or the installed release lacks this submodule).
    /// `bank` says, for a submodule of an installed library, whether another release has it
    /// (a top-level module nothing installed provides is the environment's, whatever the bank).
    MissingModule {
        module: ModulePath,
        #[serde(flatten)]
        bank: Option<BankSays>,
    },
    /// A library asked for a package to be installed: `IPython.html.widgets requires pyzmq >=
    /// 2.1.11`, `Please install scikit-learn`. What it names is what pip installs, which may
    /// not be a module's name (`pyzmq` installs `zmq`).
    PackageAsked {
        /// As the library wrote it, version requirement included when it gave one.
        requirement: String,
        /// Other packages it says would do instead (`hdfs3` beside the preferred `pyarrow`):
        /// named, not installed.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        alternatives: Vec<String>,
    },
    /// `cannot import name X from Y`, `module Y has no attribute X`: the installed release of
    /// a library lacks an API.
    MissingApi {
        api: ApiPath,
        #[serde(flatten)]
        bank: BankSays,
    },
    /// A library object lacks a member (`'DataFrame' object has no attribute 'ix'`).
    /// `api` is the member's full path when the notebook's tracing knows the class;
    /// `receiver` is the API the object came from when only that is known.
    MissingMember {
        type_name: String,
        member: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        api: Option<ApiPath>,
        #[serde(skip_serializing_if = "Option::is_none")]
        receiver: Option<ApiPath>,
        #[serde(flatten)]
        bank: BankSays,
    },
    /// A library function does not take a keyword the notebook passes.
    BadKeyword {
        function: String,
        keyword: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        api: Option<ApiPath>,
        #[serde(flatten)]
        bank: BankSays,
    },
    /// A library function does not take the arguments the notebook passes; `bank` says
    /// whether its signature changed.
    BadArguments {
        function: String,
        api: ApiPath,
        #[serde(flatten)]
        bank: BankSays,
    },
    /// An exception raised inside a library from the notebook's call of `api`, whose
    /// signature (or presence) the bank shows changed next to the installed release: another
    /// release may take the call.
    ChangedApi {
        api: ApiPath,
        library: ModulePath,
        ename: String,
        distribution: DistName,
    },
    /// A standard-library module that this Python lacks and others have (`urllib2`, `imp`).
    StdlibModule {
        module: ModulePath,
        /// The known Python versions whose standard library has it.
        python: Vec<PythonVersion>,
    },
    /// A standard-library name that this Python lacks (`collections.Mapping` on 3.10).
    StdlibApi {
        api: ApiPath,
    },
    /// Code for another Python: `print "x"`, `xrange`, `d.iteritems()` on Python 3.
    WrongPython {
        detail: String,
        needs: PythonRange,
    },
    /// A magic that an IPython extension provides (`%%sql`, `%memit`) is not there.
    MissingMagic {
        magic: String,
    },
    /// A binary or version incompatibility a library reports itself (`numpy.ndarray size
    /// changed`, `module compiled against API version`, a missing shared library).
    IncompatibleBuild {
        #[serde(skip_serializing_if = "Option::is_none")]
        library: Option<ModulePath>,
        detail: String,
    },
    /// An AttributeError, ImportError or TypeError raised inside a library: libraries of
    /// mismatched versions calling each other.
    LibraryMismatch {
        library: ModulePath,
        ename: String,
        /// What the library's own import line asked of another distribution and did not
        /// get (`from tornado.concurrent import return_future` in bokeh 0.12, which tornado
        /// 6 removed): the installed release of that distribution lacks it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        wanted: Option<ApiPath>,
    },
    /// IndentationError on a cell whose first line is indented: IPython up to 9.0 strips that
    /// indentation, 9.1 and later do not.
    KernelIndentation,
    /// A program the notebook runs is not installed (`dot` for graphviz).
    MissingProgram {
        program: String,
    },
    /// The interpreter crashed in native code (segfault, abort): often a binary mismatch.
    NativeCrash {
        signal: i32,
    },
    /// A cell whose stored outputs show it ran for the notebook's author raises now, and
    /// not for the notebook's own reasons (an undefined name, a missing file): the libraries
    /// it runs behave otherwise than they did then. `stored`: what it showed then.
    BehaviourChanged {
        ename: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        stored: Option<String>,
    },

    // ---- data / input
    MissingFile {
        #[serde(skip_serializing_if = "Option::is_none")]
        path: Option<String>,
    },
    /// A data package a library downloads apart from its code (NLTK's `punkt`).
    MissingResource {
        resource: String,
    },
    /// A folder the notebook's globs looked in is not there (a data folder its repository
    /// never had), and a later error (an empty sample) came of the nothing they found.
    AbsentFolder {
        folder: String,
        /// The cell whose glob looked there first.
        globbed_in: u32,
    },
    /// A name the installed release binds only when its module can read its data (cltk's
    /// `latinlibrary`, under `try: ... except IOError: pass`, from a corpus downloaded
    /// apart): importing the module in the run's environment swallowed `error`.
    UnboundWithoutData {
        api: ApiPath,
        module: ModulePath,
        error: String,
    },
    /// A module that should sit beside the notebook (or in its repository).
    MissingLocalModule {
        module: ModulePath,
        /// Nothing local has it and no distribution provides it either (the bank, the
        /// provider lists and the index were asked): a file of the author's never published.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        unprovided: bool,
    },
    Network {
        detail: String,
    },
    /// A file the cell reads is a Git LFS pointer, not the data: the repository was cloned
    /// without `git lfs`.
    LfsPointer {
        file: String,
    },
    /// The notebook's data already holds what the cell creates (sqlite's `table ceremonies
    /// already exists`): its files were saved after a run, and a run from a clean clone
    /// meets them as they were left.
    DataAlreadyWritten {
        detail: String,
    },
    /// The notebook asks for keyboard input (`input()`).
    Stdin,
    /// An environment variable the code reads (`os.environ['client_id']`) is not set: an
    /// API key or a path its author had in their shell.
    MissingEnvVar {
        name: String,
    },

    // ---- code
    /// NameError, with where the name is bound.
    Undefined {
        name: String,
        definition: Definition,
    },
    Syntax {
        detail: String,
    },
    /// `sys.exit()` or `os._exit()` in a cell.
    Exit {
        #[serde(skip_serializing_if = "Option::is_none")]
        code: Option<String>,
    },
    /// Any other exception raised in the notebook's code (or in a library it misuses).
    Raised {
        ename: String,
    },

    // ---- resource
    Memory,
    /// `whole_run`: the run's total limit rather than one cell's.
    Timeout {
        whole_run: bool,
    },
    Killed {
        #[serde(skip_serializing_if = "Option::is_none")]
        signal: Option<i32>,
    },

    // ---- hardware
    Accelerator {
        detail: String,
    },
    /// SIGILL: the build needs CPU instructions this machine lacks (AVX in TensorFlow ≥ 1.6).
    InstructionSet,

    // ---- install
    Install {
        what: String,
        reason: InstallReason,
    },
}

impl Cause {
    /// Whether the releases the failure ran through are suspects: another release of them
    /// may not fail so (a name, a keyword or a call the installed one takes otherwise, a
    /// change of behaviour). Not a module or program that is missing, nor code for another
    /// Python: those are repaired by adding, not by moving.
    pub fn points_at_releases(&self) -> bool {
        use Cause::*;
        match self {
            MissingApi { .. }
            | MissingMember { .. }
            | BadKeyword { .. }
            | BadArguments { .. }
            | ChangedApi { .. }
            | IncompatibleBuild { .. }
            | BehaviourChanged { .. } => true,
            LibraryMismatch { wanted, .. } => wanted.is_none(),
            _ => false,
        }
    }

    /// The library whose own code the run's Python could not read (a SyntaxError inside
    /// it): its release was written for another Python.
    pub fn unreadable_library(&self) -> Option<&ModulePath> {
        match self {
            Cause::LibraryMismatch { library, ename, .. } if ename == "SyntaxError" => {
                Some(library)
            }
            _ => None,
        }
    }

    /// Whether the bank has seen what the installed release lacks in another release of the
    /// distribution: the evidence that names the release to move to is the repair, and a
    /// search for what the bank cannot see (which takes releases newer than a failure to fail
    /// too) would go the wrong way when the name was added later.
    pub fn bank_saw_elsewhere(&self) -> bool {
        use Cause::*;
        matches!(
            self,
            MissingApi {
                bank: BankSays::SomeRelease { .. },
                ..
            } | MissingMember {
                bank: BankSays::SomeRelease { .. },
                ..
            }
        )
    }

    /// The API the failure says a release lacks or takes otherwise, when it names one: its
    /// distribution is the likeliest suspect, even when the traceback ends in another's
    /// frame (seaborn's `from pandas.core.series import remove_na`).
    pub fn named_api(&self) -> Option<&ApiPath> {
        use Cause::*;
        match self {
            MissingApi { api, .. }
            | BadArguments { api, .. }
            | ChangedApi { api, .. }
            | MissingMember { api: Some(api), .. }
            | BadKeyword { api: Some(api), .. } => Some(api),
            _ => None,
        }
    }

    pub fn class(&self) -> FailureClass {
        use Cause::*;
        match self {
            MissingModule {
                bank: Some(bank), ..
            }
            | MissingApi { bank, .. }
            | MissingMember { bank, .. }
            | BadKeyword { bank, .. }
            | BadArguments { bank, .. } => bank.class(),
            MissingModule { bank: None, .. }
            | PackageAsked { .. }
            | ChangedApi { .. }
            | StdlibModule { .. }
            | StdlibApi { .. }
            | WrongPython { .. }
            | MissingMagic { .. }
            | IncompatibleBuild { .. }
            | LibraryMismatch { .. }
            | KernelIndentation
            | MissingProgram { .. }
            | NativeCrash { .. }
            | BehaviourChanged { .. } => FailureClass::Environment,
            MissingFile { .. }
            | MissingResource { .. }
            | UnboundWithoutData { .. }
            | AbsentFolder { .. }
            | MissingLocalModule { .. }
            | LfsPointer { .. }
            | DataAlreadyWritten { .. }
            | Network { .. }
            | Stdin
            | MissingEnvVar { .. } => FailureClass::DataInput,
            Undefined { .. } | Syntax { .. } | Exit { .. } | Raised { .. } => FailureClass::Code,
            Memory | Timeout { .. } | Killed { .. } => FailureClass::Resource,
            Accelerator { .. } | InstructionSet => FailureClass::Hardware,
            Install { .. } => FailureClass::Install,
        }
    }
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use Cause::*;
        match self {
            MissingModule { module, bank } => {
                write!(f, "no module `{module}`")?;
                match bank {
                    Some(bank) => write!(f, " ({})", Has::Name(bank)),
                    None => Ok(()),
                }
            }
            PackageAsked {
                requirement,
                alternatives,
            } => {
                write!(f, "a library asks for the package `{requirement}`")?;
                if !alternatives.is_empty() {
                    let others: Vec<String> =
                        alternatives.iter().map(|a| format!("`{a}`")).collect();
                    write!(f, " (or {})", others.join(", "))?;
                }
                Ok(())
            }
            MissingApi { api, bank } => write!(
                f,
                "`{api}` is missing from the installed release ({})",
                Has::Name(bank)
            ),
            MissingMember {
                type_name,
                member,
                api,
                receiver,
                bank,
            } => {
                write!(f, "`{type_name}` has no member `{member}`")?;
                match (api, receiver) {
                    (Some(api), _) => write!(f, " ({api})")?,
                    (None, Some(r)) => write!(f, " (on a value from {r})")?,
                    (None, None) => {}
                }
                write!(f, ": {}", Has::Name(bank))
            }
            BadKeyword {
                function,
                keyword,
                api,
                bank,
            } => {
                write!(f, "`{function}()` takes no keyword `{keyword}`")?;
                if let Some(api) = api {
                    write!(f, " ({api})")?;
                }
                write!(f, ": {}", Has::Keyword(bank))
            }
            BadArguments {
                function,
                api,
                bank,
            } => {
                write!(
                    f,
                    "`{function}()` takes other arguments ({api}): {}",
                    Has::Signature(bank)
                )
            }
            ChangedApi {
                api,
                library,
                ename,
                distribution,
            } => write!(
                f,
                "{ename} inside {library} from `{api}`, whose signature differs in other releases of {distribution}"
            ),
            StdlibModule { module, python } => {
                // A run of the known versions from the first (`up to 3.11`) or to the last
                // (`3.4 on`); else each version.
                let known = &crate::notebook::KNOWN_VERSIONS[..];
                let run = known
                    .iter()
                    .position(|v| Some(v) == python.first())
                    .filter(|&i| {
                        python.len() > 1 && known.get(i..i + python.len()) == Some(&python[..])
                    });
                let which = match run {
                    Some(0) => format!("up to {}", python[python.len() - 1]),
                    Some(i) if i + python.len() == known.len() => format!("{} on", python[0]),
                    _ => python
                        .iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join(", "),
                };
                write!(f, "`{module}` is in the standard library of Python {which} only")
            }
            StdlibApi { api } => write!(f, "`{api}` is not in this Python's standard library"),
            WrongPython { detail, needs } => write!(f, "{detail}: needs Python {needs}"),
            MissingMagic { magic } => write!(f, "no magic `{magic}`"),
            IncompatibleBuild { library, detail } => match library {
                Some(l) => write!(f, "incompatible build in {l}: {detail}"),
                None => write!(f, "incompatible build: {detail}"),
            },
            LibraryMismatch {
                library,
                ename,
                wanted: Some(wanted),
            } => write!(
                f,
                "{ename} inside {library}: it imports `{wanted}`, which the installed release \
                 of `{}` lacks",
                wanted.top_level()
            ),
            LibraryMismatch { library, ename, .. } => {
                write!(f, "{ename} inside {library}: mismatched library versions")
            }
            KernelIndentation => write!(
                f,
                "a cell with an indented first line, which IPython 9.1+ no longer dedents"
            ),
            MissingProgram { program } => {
                let known = super::programs::known(program);
                match known.and_then(|p| p.pypi.as_ref()) {
                    Some(build) => write!(
                        f,
                        "program `{program}` is not installed; {} on PyPI ships a build of it",
                        build.dist
                    )?,
                    None => write!(
                        f,
                        "program `{program}` is not installed, and no Python package installs it"
                    )?,
                }
                match known {
                    Some(p) => write!(f, " ({})", p.providers()),
                    None => Ok(()),
                }
            }
            NativeCrash { signal } => write!(f, "crashed in native code (signal {signal})"),
            BehaviourChanged { ename, stored } => {
                write!(
                    f,
                    "{ename} now, where the notebook's stored outputs show the cell ran for its author"
                )?;
                match stored {
                    Some(s) => write!(f, " (it showed: {s})"),
                    None => Ok(()),
                }
            }
            MissingFile { path } => match path {
                Some(p) => write!(f, "no file `{p}`"),
                None => write!(f, "a file is missing"),
            },
            MissingResource { resource } => write!(f, "data package `{resource}` is not there"),
            AbsentFolder { folder, globbed_in } => write!(
                f,
                "the folder `{folder}` is not there: cell {globbed_in} globbed it and found \
                 nothing"
            ),
            UnboundWithoutData { api, module, error } => write!(
                f,
                "`{api}` is bound only when `{module}` can read its data, and importing it \
                 here met {error}"
            ),
            MissingLocalModule {
                module,
                unprovided: false,
            } => write!(f, "local module `{module}` is missing"),
            MissingLocalModule {
                module,
                unprovided: true,
            } => write!(
                f,
                "local module `{module}` is missing: neither the notebook's folder nor its \
                 repository has it, and no distribution provides it"
            ),
            Network { detail } => write!(f, "network: {detail}"),
            LfsPointer { file } => write!(
                f,
                "`{file}` is a Git LFS pointer, not the data: fetch it with `git lfs pull \
                 --include \"{file}\"` in the repository"
            ),
            DataAlreadyWritten { detail } => write!(
                f,
                "the notebook's data already holds what the cell creates ({detail}): its \
                 files were saved after a run"
            ),
            Stdin => write!(f, "asks for keyboard input"),
            MissingEnvVar { name } => write!(
                f,
                "environment variable `{name}` is not set (its author had it in their shell)"
            ),
            Undefined { name, definition } => match definition {
                Definition::Later { cell, line } => {
                    write!(f, "`{name}` is defined only later, at {cell}:{line}")
                }
                Definition::Earlier { cell, line } => write!(
                    f,
                    "`{name}` is bound earlier, at {cell}:{line}, but that binding had not run"
                ),
                Definition::Nowhere => write!(f, "`{name}` is never defined"),
            },
            Syntax { detail } => write!(f, "syntax: {detail}"),
            Exit { code } => match code {
                Some(c) => write!(f, "the notebook exits (code {c})"),
                None => write!(f, "the notebook exits"),
            },
            Raised { ename } => write!(f, "{ename} in notebook code"),
            Memory => write!(f, "out of memory"),
            Timeout { whole_run: true } => write!(f, "the run's time limit"),
            Timeout { whole_run: false } => write!(f, "the cell's time limit"),
            Killed { signal: Some(s) } => write!(f, "killed (signal {s})"),
            Killed { signal: None } => write!(f, "killed"),
            Accelerator { detail } => write!(f, "needs an accelerator: {detail}"),
            InstructionSet => write!(f, "illegal instruction: the CPU lacks what the build needs"),
            Install { what, reason } => {
                let why = match reason {
                    InstallReason::NoMatchingDistribution => "no matching distribution",
                    InstallReason::BuildFailed => "building a release from its sdist failed",
                    InstallReason::Conflict => "conflicting requirements",
                    InstallReason::InvalidMetadata => "the installer refused a release's metadata",
                    InstallReason::Network => "the index could not be reached",
                    InstallReason::Other => "see the installer's output",
                };
                write!(f, "installing {what} failed: {why}")
            }
        }
    }
}

/// A classified failure: its class, its cause, the cell it surfaced in and the innermost
/// frame of its traceback.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Failure {
    pub class: FailureClass,
    #[serde(flatten)]
    pub cause: Cause,
    /// The cell that was running (or that stored the error).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cell: Option<u32>,
    /// The innermost frame, where the exception was raised.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frame: Option<Frame>,
}

impl Failure {
    /// `cell 2: environment: no module \`x\``: the failure with the cell it surfaced in.
    pub fn located(&self) -> String {
        match self.cell {
            Some(c) => format!("cell {c}: {self}"),
            None => self.to_string(),
        }
    }

    /// [`Failure::located`], the cell numbered as every message numbers it: `cell 68 (code
    /// cell 29 of 78): environment: ...`.
    pub fn located_in(&self, nb: &crate::notebook::Notebook) -> String {
        match self.cell {
            Some(c) => format!("{}: {self}", nb.cell_label(c)),
            None => self.to_string(),
        }
    }

    pub fn new(cause: Cause, cell: Option<u32>, frame: Option<Frame>) -> Self {
        Self {
            class: cause.class(),
            cause,
            cell,
            frame,
        }
    }

    /// Whether the environment is at fault: another resolution can help.
    pub fn is_environmental(&self) -> bool {
        self.class == FailureClass::Environment
    }

    /// Whether a repair round is worth its cost: the environment is at fault, or the bank
    /// cannot tell whether it is (a round then costs time, not a wrong verdict).
    pub fn may_repair(&self) -> bool {
        matches!(
            self.class,
            FailureClass::Environment | FailureClass::Unknown
        ) && !self.needs_program()
    }

    /// Whether the run stopped for a program outside Python's packages (`latex`, `dot`): the
    /// environment's, but nothing a resolution installs. A program a distribution on PyPI
    /// ships a build of (ffmpeg) is one a resolution can install.
    pub fn needs_program(&self) -> bool {
        matches!(&self.cause, Cause::MissingProgram { program }
            if super::programs::known(program).is_none_or(|p| p.pypi.is_none()))
    }
}

/// What the bank's answer says of the other releases, in a cause's words.
enum Has<'a> {
    Name(&'a BankSays),
    Keyword(&'a BankSays),
    Signature(&'a BankSays),
}

impl fmt::Display for Has<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use BankSays::*;
        match self {
            Has::Name(SomeRelease { distribution }) => {
                write!(f, "other releases of {distribution} have it")
            }
            Has::Name(NoRelease { distribution }) => {
                write!(f, "no release of {distribution} has it")
            }
            Has::Keyword(SomeRelease { distribution }) => {
                write!(f, "other releases of {distribution} take it")
            }
            Has::Keyword(NoRelease { distribution }) => {
                write!(f, "no release of {distribution} takes it")
            }
            Has::Signature(SomeRelease { distribution }) => {
                write!(
                    f,
                    "its signature differs in other releases of {distribution}"
                )
            }
            Has::Signature(NoRelease { distribution }) => {
                write!(
                    f,
                    "its signature is the same in every release of {distribution}"
                )
            }
            Has::Name(Unknown) | Has::Keyword(Unknown) | Has::Signature(Unknown) => {
                write!(f, "the bank cannot tell whether another release differs")
            }
        }
    }
}

/// `environment: no module `sklearn.cross_validation``.
impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.class, self.cause)
    }
}
