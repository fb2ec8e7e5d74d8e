//! The classifier: one pure function from a problem and the notebook around it to a
//! [`Failure`]. It decides on the exception's type, the parts of its standard message
//! ([`super::message`]), where its frames run (a cell, a library, the standard library) and
//! the notebook's own evidence (imports, APIs, bindings); matching the free text of
//! messages is kept to what has no structure (accelerators, network, version complaints).

use crate::names::{ApiPath, ModulePath};
use crate::notebook::location::Location;
use crate::notebook::outputs::strip_ansi;
use crate::notebook::usage::{ApiUse, Receiver, UseKind};
use crate::notebook::HintReason;
use crate::python::{PythonRange, PythonVersion};

use super::bindings::DefKind;
use super::cause::{Cause, Definition, Failure, InstallReason};
use super::context::{FailureContext, ModuleKind};
use super::frame::{Frame, FrameOrigin};
use super::history::BankSays;
use super::message::{self, Message};
use super::problem::{Problem, Raised};

/// Classifies `problem`, which surfaced while `cell` ran (or was stored in `cell`).
pub fn classify(problem: &Problem, cell: Option<u32>, cx: &FailureContext) -> Failure {
    match problem {
        Problem::Raised(raised) => {
            let cause = match cx.lfs_pointer(cell) {
                // Whatever the reader made of a pointer file, the data was never there.
                Some(file) if !during_import(raised) => Cause::LfsPointer {
                    file: file.to_string(),
                },
                _ => behaviour_changed(raised_cause(raised, cell, cx), raised, cell, cx),
            };
            Failure::new(cause, cell, raised.innermost().cloned())
        }
        Problem::TimedOut { whole_run } => Failure::new(
            Cause::Timeout {
                whole_run: *whole_run,
            },
            cell,
            None,
        ),
        Problem::Killed { signal } => {
            let cause = match signal {
                Some(libc::SIGILL) => Cause::InstructionSet,
                Some(s @ (libc::SIGSEGV | libc::SIGBUS | libc::SIGABRT | libc::SIGFPE)) => {
                    Cause::NativeCrash { signal: *s }
                }
                _ => Cause::Killed { signal: *signal },
            };
            Failure::new(cause, cell, None)
        }
        Problem::Exited { code } => Failure::new(
            Cause::Exit {
                code: code.map(|c| c.to_string()),
            },
            cell,
            None,
        ),
        Problem::InstallFailed { what, detail } => Failure::new(
            Cause::Install {
                what: what.clone(),
                reason: install_reason(detail),
            },
            None,
            None,
        ),
    }
}

/// The variable a KeyError raised by `os.environ[...]` names: the innermost frame is the
/// standard library's mapping (`os.py`'s `_Environ.__getitem__`, `<frozen os>` from 3.11 on;
/// on Python 2, `UserDict.py`'s or `os.py`'s), and the error's value is the key as `repr`
/// writes it.
fn unset_variable(ename: &str, r: &Raised) -> Option<String> {
    if ename != "KeyError" {
        return None;
    }
    let frame = r.innermost()?;
    let file = frame.file.rsplit(['/', '\\']).next()?;
    // Python 3.11 on runs `os` frozen: `<frozen os>`.
    let environ = matches!(file, "os.py" | "UserDict.py" | "<frozen os>")
        && frame.function.as_deref() == Some("__getitem__")
        && frame.origin() == FrameOrigin::Stdlib;
    if !environ {
        return None;
    }
    let key = r.evalue.trim();
    let name = key
        .strip_prefix(['\'', '"'])
        .and_then(|k| k.strip_suffix(['\'', '"']))
        .unwrap_or(key);
    (!name.is_empty()).then(|| name.to_string())
}

/// Whether the exception was raised while a module was being imported: the notebook's frame
/// is an import statement, or the import machinery is on the way.
fn during_import(r: &Raised) -> bool {
    let importing = |f: &Frame| {
        f.code.as_deref().is_some_and(|c| {
            let c = c.trim_start();
            c.starts_with("import ") || (c.starts_with("from ") && c.contains(" import "))
        })
    };
    r.innermost_cell_frame().is_some_and(importing)
        || r.frames
            .iter()
            .any(|f| f.file.starts_with("<frozen importlib"))
}

/// Whether every frame is a library's or the standard library's: none is a cell's, a
/// module's beside the notebook, or one the runner could not place (a cell magic's `<timed
/// exec>`), so no code of the notebook's ran in it.
fn before_any_notebook_code(r: &Raised) -> bool {
    !r.frames.is_empty()
        && r.frames
            .iter()
            .all(|f| matches!(f.origin(), FrameOrigin::Library(_) | FrameOrigin::Stdlib))
}

/// An exception the classifier would put down to the notebook's code, raised inside a
/// library (or by the standard library on a library's behalf) in a live run by a cell whose stored outputs show it ran for its author: what
/// changed is the environment. A stored error, one raised by the notebook's own code (its
/// cells, its local modules), or one of its own causes (an undefined name, a missing file, a
/// syntax error) stays as it is.
fn behaviour_changed(cause: Cause, r: &Raised, cell: Option<u32>, cx: &FailureContext) -> Cause {
    let Cause::Raised { ename } = &cause else {
        return cause;
    };
    if cx.python.is_none() || r.raising_library().is_none() {
        return cause;
    }
    match cell.and_then(|c| cx.worked_for_author(c)) {
        Some(stored) => Cause::BehaviourChanged {
            ename: ename.clone(),
            stored: stored.map(str::to_string),
        },
        None => cause,
    }
}

fn python2_only() -> PythonRange {
    PythonRange::at_most(PythonVersion::new(2, 7))
}

/// Whether the interpreter may be Python 3 (it is, or it is unknown).
fn maybe_python3(cx: &FailureContext) -> bool {
    cx.python.is_none_or(|v| v.major >= 3)
}

fn raised_cause(r: &Raised, cell: Option<u32>, cx: &FailureContext) -> Cause {
    let ename = r.short_ename();
    let text = r.evalue.to_ascii_lowercase();
    let innermost = r.innermost();
    let library = innermost.and_then(Frame::library);

    if let Some(detail) = accelerator(&text, r) {
        return Cause::Accelerator { detail };
    }
    if matches!(
        ename,
        "MemoryError" | "_ArrayMemoryError" | "OutOfMemoryError" | "ResourceExhaustedError"
    ) || text.contains("out of memory")
        || text.contains("oom when allocating")
        || text.starts_with("unable to allocate")
    {
        return Cause::Memory;
    }
    if ename == "StdinNotImplementedError"
        || (ename == "EOFError" && text.contains("eof when reading a line"))
    {
        return Cause::Stdin;
    }
    if let Some(name) = unset_variable(ename, r) {
        return Cause::MissingEnvVar { name };
    }
    // Libraries colour parts of their messages (NLTK does the resource's name).
    let evalue = strip_ansi(&r.evalue);
    let msg = message::parse(&evalue);
    if let Message::ResourceNotFound { resource } = msg {
        if ename == "LookupError" {
            return Cause::MissingResource {
                resource: resource.to_string(),
            };
        }
    }
    // A format the library writes through a module that is missing (Pillow under
    // matplotlib's `savefig('x.tif')`): that module is the library's need.
    if let Message::UnsupportedFormat { format } = msg {
        if let Some(module) = library
            .as_ref()
            .and_then(|l| super::optional::writer(l.top_level(), format))
        {
            return module_cause(module, cell, true, cx);
        }
    }
    if ename == "UsageError" {
        if let Some(magic) = magic_name(&r.evalue) {
            return Cause::MissingMagic { magic };
        }
        return Cause::Raised {
            ename: ename.into(),
        };
    }
    if matches!(ename, "SyntaxError" | "IndentationError" | "TabError") {
        return syntax(ename, r, cell, cx);
    }
    if ename == "SystemExit" {
        let code = r.evalue.trim();
        return Cause::Exit {
            code: (!code.is_empty()).then(|| code.to_string()),
        };
    }
    if ename == "NameError" {
        if let Message::NameNotDefined { name } = msg {
            return undefined(name, r, cell, cx);
        }
    }
    if let Some(detail) = network(ename, &text, r) {
        return Cause::Network { detail };
    }
    match msg {
        Message::NoModule { module } => {
            // Raised by an import in a library's own code, the module is the library's
            // need, whatever the notebook imports.
            let in_library = innermost.is_some_and(|f| f.library().is_some());
            // Python 2 names only the last part (`No module named core_rnn`); the import
            // line that failed, when the traceback shows it, names the whole path.
            let full = innermost
                .and_then(|f| f.code.as_deref())
                .and_then(|code| imported_ending_in(code, module));
            return module_cause(full.as_deref().unwrap_or(module), cell, in_library, cx);
        }
        Message::CannotImport {
            name,
            module,
            circular,
        } => return cannot_import(name, module, circular, r, cell, cx),
        Message::ModuleAttribute {
            module,
            attribute,
            circular,
        } if !circular => return module_attribute(module, attribute, r, cell, cx),
        Message::SomeModuleAttribute { attribute } => {
            if let Some(cause) = some_module_attribute(attribute, r, cell, cx) {
                return cause;
            }
        }
        Message::ObjectAttribute {
            type_name,
            attribute,
        } => {
            if let Some(cause) =
                object_attribute(type_name, attribute, library.as_ref(), r, cell, cx)
            {
                return cause;
            }
        }
        Message::UnexpectedKeyword { function, keyword } => {
            if let Some(cause) = bad_keyword(function, keyword, library.is_some(), r, cell, cx) {
                return cause;
            }
        }
        // `plt.hist(x, normed=True)` on matplotlib 3.1+: the keyword reached an artist.
        Message::UnknownProperty { keyword } if library.is_some() => {
            if let Some(api) = keyword_passed_here(keyword, r, cell, cx) {
                return Cause::BadKeyword {
                    function: api.to_string(),
                    keyword: keyword.to_string(),
                    bank: cx.keyword_history(api, keyword),
                    api: Some(api.clone()),
                };
            }
        }
        Message::Arguments { function } => {
            let last = function.rsplit('.').next().unwrap_or(function);
            let line = r.innermost_cell_frame().and_then(|f| f.line);
            if cx.bindings.def_kind(last).is_none() {
                if let Some(api) = cx.api_in(cell, line, |a| api_name_is(&a.api, last)) {
                    return Cause::BadArguments {
                        function: function.to_string(),
                        api: api.clone(),
                        bank: cx.signature_history(api),
                    };
                }
            }
        }
        _ => {}
    }
    if let Some(cause) = file_problem(ename, &text, r) {
        return cause;
    }
    // A spaCy model the author downloaded (`python -m spacy download en`), like NLTK's data:
    // `[E050] Can't find model 'en'`.
    if matches!(ename, "OSError" | "IOError") {
        if let Some(rest) = r.evalue.split("Can't find model ").nth(1) {
            if let Some(model) = first_quoted(rest) {
                return Cause::MissingResource {
                    resource: format!("spaCy model {model}"),
                };
            }
        }
    }
    // sqlite creating what its database file already has: the repository's copy of the data
    // was saved after a run.
    if ename == "OperationalError"
        && ["table ", "index ", "view ", "trigger "]
            .iter()
            .any(|w| text.starts_with(w))
        && text.trim_end().ends_with("already exists")
    {
        return Cause::DataAlreadyWritten {
            detail: first_line(&r.evalue),
        };
    }
    // An upgrade asked for by name (`Please upgrade your tensorflow installation to v1.4.0!`,
    // a notebook's own version check): that release at least is a requirement.
    if let Some((name, version)) = message::upgrade_to(&evalue) {
        let third_party = ModulePath::new(name)
            .is_ok_and(|m| cx.module_kind(m.top_level()) == ModuleKind::ThirdParty);
        if third_party {
            return Cause::PackageAsked {
                requirement: format!("{name}>={version}"),
                alternatives: Vec::new(),
            };
        }
    }
    if let Some(detail) = version_complaint(&text) {
        if library.is_some() || ename.ends_with("ImportError") {
            return Cause::IncompatibleBuild {
                library,
                detail: first_line(&r.evalue),
            }
            .with_detail_if_empty(detail);
        }
    }
    let import_error = ename.ends_with("ImportError") || ename == "ModuleNotFoundError";
    if library.is_some() || import_error || message::asked_from_native_code(&evalue).is_some() {
        if let Some(cause) = install_hint(&evalue, import_error, cx) {
            return cause;
        }
    }
    if ename == "TypeError" {
        if let Some(cause) = changed_api(r, cx) {
            return cause;
        }
    }
    // Raised in a live run with no frame of the notebook's: the cell's code never started,
    // and what raised it is a library, or the standard library on a library's behalf (IPython
    // 3 compiling a cell on Python 3.8 and later: `TypeError: required field "type_ignores"
    // missing from Module` in `codeop`, under IPython's `run_ast_nodes`).
    let before_code = cx.python.is_some() && before_any_notebook_code(r);
    let raised_by = if before_code {
        r.raising_library()
    } else {
        library
    };
    if let Some(library) = raised_by {
        // Libraries of mismatched versions calling each other; and anything a library raises
        // while it is being imported (`TypeError: __dict__ slot disallowed` inside matplotlib
        // importing pyplot) or before the cell's code started: no notebook code has run in it
        // yet.
        if before_code
            || matches!(
                ename,
                "AttributeError" | "ImportError" | "ModuleNotFoundError"
            )
            || during_import(r)
        {
            return Cause::LibraryMismatch {
                library,
                ename: ename.into(),
                wanted: None,
            };
        }
    }
    // No library raised it (that returned above): the repository's module run outside its
    // package (`from rl import *` where rl.py says `from .utils import argmax`) is its code,
    // whatever the environment.
    if msg == Message::RelativeImportOutsidePackage {
        return Cause::Raised {
            ename: ename.into(),
        };
    }
    if ename == "ImportError" {
        return Cause::IncompatibleBuild {
            library: None,
            detail: first_line(&r.evalue),
        };
    }
    Cause::Raised {
        ename: ename.into(),
    }
}

impl Cause {
    fn with_detail_if_empty(self, fallback: &str) -> Cause {
        match self {
            Cause::IncompatibleBuild { library, detail } if detail.is_empty() => {
                Cause::IncompatibleBuild {
                    library,
                    detail: fallback.to_string(),
                }
            }
            other => other,
        }
    }
}

fn first_line(s: &str) -> String {
    s.lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim()
        .chars()
        .take(300)
        .collect()
}

/// The first quoted word of `s`.
fn first_quoted(s: &str) -> Option<&str> {
    let start = s.find(['\'', '"'])?;
    let quote = s.as_bytes()[start] as char;
    let rest = &s[start + 1..];
    rest.find(quote).map(|end| &rest[..end])
}

// ---- hardware, network, files ---------------------------------------------------

const ACCELERATOR_WORDS: &[&str] = &[
    "no cuda gpus are available",
    "torch not compiled with cuda enabled",
    "found no nvidia driver",
    "cuda driver version is insufficient",
    "no cuda-capable device",
    "cuda is not available",
    "cuda.is_available() is false",
    "libcuda.so",
    "libcudart.so",
    "libcudnn",
    "libnvinfer",
    "nvidia-smi",
    "cudagetdevicecount",
    "no kernel image is available",
    "invalid device ordinal",
    "could not find any tpu",
    "no tpu",
    "no gpu devices",
    "mps backend is not available",
];

/// A GPU or TPU the code asks for and this machine lacks (running out of GPU memory is a
/// resource problem instead).
fn accelerator(text: &str, r: &Raised) -> Option<String> {
    if text.contains("out of memory") {
        return None;
    }
    let named = ACCELERATOR_WORDS.iter().any(|w| text.contains(w));
    let in_torch_cuda = r.frames.iter().any(|f| {
        f.library()
            .is_some_and(|m| m.as_str().starts_with("torch.cuda"))
    });
    (named || in_torch_cuda).then(|| first_line(&r.evalue))
}

const NETWORK_ERRORS: &[&str] = &[
    "ConnectionError",
    "ConnectionRefusedError",
    "ConnectionResetError",
    "ConnectionAbortedError",
    "URLError",
    "HTTPError",
    "gaierror",
    "herror",
    "timeout",
    "SSLError",
    "ProxyError",
    "MaxRetryError",
    "NewConnectionError",
    "ReadTimeout",
    "ConnectTimeout",
    "ReadTimeoutError",
    "ConnectTimeoutError",
    "RemoteDisconnected",
    "IncompleteRead",
    "ChunkedEncodingError",
    "ContentTooShortError",
    "TooManyRedirects",
    "ServerSelectionTimeoutError",
];

const NETWORK_WORDS: &[&str] = &[
    "name or service not known",
    "temporary failure in name resolution",
    "nodename nor servname",
    "network is unreachable",
    "connection refused",
    "failed to establish a new connection",
    "max retries exceeded",
    "url fetch failure",
    "urlopen error",
    "getaddrinfo failed",
    "no address associated with hostname",
    "http error 4",
    "http error 5",
];

const NETWORK_MODULES: &[&str] = &["requests", "urllib3", "httpx", "httplib2", "aiohttp"];

fn network(ename: &str, text: &str, r: &Raised) -> Option<String> {
    let named = NETWORK_ERRORS.contains(&ename) || NETWORK_WORDS.iter().any(|w| text.contains(w));
    // An OSError raised by an HTTP library (or the socket module) is a network failure too.
    let os_error_in_http = matches!(ename, "OSError" | "TimeoutError" | "IOError")
        && r.innermost().is_some_and(|f| {
            f.library()
                .is_some_and(|m| NETWORK_MODULES.contains(&m.top_level()))
                || (f.origin() == FrameOrigin::Stdlib
                    && [
                        "socket.py",
                        "ssl.py",
                        "client.py",
                        "request.py",
                        "urllib2.py",
                        "httplib.py",
                    ]
                    .iter()
                    .any(|s| f.file.ends_with(s)))
        });
    (named || os_error_in_http).then(|| first_line(&r.evalue))
}

/// A missing input file, or a missing program that a subprocess was to run.
fn file_problem(ename: &str, text: &str, r: &Raised) -> Option<Cause> {
    // matplotlib saving an animation: `Requested MovieWriter (ffmpeg) not available`.
    if let Some(rest) = r.evalue.split("MovieWriter (").nth(1) {
        if let Some((program, after)) = rest.split_once(')') {
            if after.contains("not available") && !program.is_empty() {
                return Some(Cause::MissingProgram {
                    program: program.to_string(),
                });
            }
        }
    }
    // matplotlib 2.2 to 3.2 without ffmpeg falls back to Pillow, which writes no video:
    // `ValueError: unknown file extension: .mp4` from inside `Animation.save`.
    if let Some(ext) = text.strip_prefix("unknown file extension: .") {
        let saving = r
            .frames
            .iter()
            .any(|f| f.file.ends_with("matplotlib/animation.py"));
        if saving && ["mp4", "avi", "mov", "mkv", "webm", "m4v", "ogv"].contains(&ext.trim()) {
            return Some(Cause::MissingProgram {
                program: "ffmpeg".to_string(),
            });
        }
    }
    // A library asking for a program nbenv knows by name: matplotlib 2.x's `Cannot save
    // animation: no writers are available. Please install ffmpeg to save animations.`
    if let Some(program) = asked_program(text) {
        return Some(Cause::MissingProgram {
            program: program.name.to_string(),
        });
    }
    // A library saying it found no executable of a program nbenv knows: gym's video recorder
    // (`Found neither the ffmpeg nor avconv executables`), `dot executable not found`.
    if text.contains("executable")
        && [
            "neither",
            "not found",
            "could not find",
            "cannot find",
            "no such",
        ]
        .iter()
        .any(|w| text.contains(w))
    {
        let known = text
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
            .find_map(super::programs::known);
        if let Some(program) = known {
            return Some(Cause::MissingProgram {
                program: program.name.to_string(),
            });
        }
    }
    if ename == "ExecutableNotFound" {
        return Some(Cause::MissingProgram {
            program: first_quoted(&r.evalue).unwrap_or("").to_string(),
        });
    }
    let file_error = ename == "FileNotFoundError"
        || (matches!(ename, "IOError" | "OSError" | "FileNotFoundError")
            && (text.contains("errno 2")
                || text.contains("no such file or directory")
                || text.contains("does not exist")
                || text.contains(" not found")))
        // TensorFlow's file layer: `NotFoundError: model/graph.pb; No such file or directory`.
        || (ename == "NotFoundError" && text.contains("; no such file or directory"));
    if !file_error {
        return None;
    }
    let path = match r.evalue.find("No such file or directory: ") {
        Some(i) => first_quoted(&r.evalue[i..]),
        None => first_quoted(&r.evalue).or_else(|| {
            r.evalue
                .split_once("; No such file or directory")
                .map(|(path, _)| path.trim())
                .filter(|p| !p.is_empty() && !p.contains(char::is_whitespace))
        }),
    }
    .map(str::to_string);
    // A program a subprocess was to run: the frames go through `subprocess` (a library may
    // catch and re-raise further out), or the name is a program's, not a file's.
    let in_subprocess = r.frames.iter().any(|f| {
        f.origin() == FrameOrigin::Stdlib
            && (f.file.ends_with("subprocess.py") || f.file.ends_with("os.py"))
    });
    if let Some(p) = &path {
        let bare = !p.contains(['/', '\\']);
        if bare && (in_subprocess || super::programs::known(p).is_some()) {
            return Some(Cause::MissingProgram { program: p.clone() });
        }
    }
    Some(Cause::MissingFile { path })
}

/// The program a message asks the user to install (`please install ffmpeg`), when nbenv
/// knows it: a Python package named there is a package request, read elsewhere.
fn asked_program(text: &str) -> Option<&'static super::programs::Program> {
    text.match_indices("install ").find_map(|(i, w)| {
        let rest = &text[i + w.len()..];
        let word = rest
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
            .next()?;
        // `pip install git+https://...` names a source, not the program.
        let source = rest[word.len()..].starts_with(['+', '/', ':', '=']);
        (!source).then(|| super::programs::known(word)).flatten()
    })
}

/// A library saying itself that versions or builds do not fit.
fn version_complaint(text: &str) -> Option<&'static str> {
    const BUILD: &[&str] = &[
        "binary incompatibility",
        "compiled against api version",
        "module compiled against",
        "failed to import",
        "undefined symbol",
        "cannot open shared object file",
        "dll load failed",
        "incompatible architecture",
        "wrong elf class",
    ];
    if let Some(w) = BUILD.iter().find(|w| text.contains(*w)) {
        return Some(w);
    }
    if text.contains("version")
        && [
            "is required",
            "or later",
            "or higher",
            "or newer",
            "not supported",
            "incompatible",
            "upgrade",
            "requires",
        ]
        .iter()
        .any(|w| text.contains(w))
    {
        return Some("a version requirement");
    }
    None
}

// ---- imports and attributes ---------------------------------------------------------

fn missing_module(module: &str) -> Cause {
    match ModulePath::new(module) {
        Ok(m) => Cause::MissingModule {
            module: m,
            bank: None,
        },
        Err(_) => Cause::Raised {
            ename: "ModuleNotFoundError".into(),
        },
    }
}

/// The dotted module an import line names whose last part is `last`: `from
/// tensorflow.contrib.rnn.python.ops.core_rnn import static_rnn` for `core_rnn`. None when
/// `last` is dotted already, or the line imports no such module.
fn imported_ending_in(code: &str, last: &str) -> Option<String> {
    if last.contains('.') {
        return None;
    }
    let code = code.trim();
    let named = if let Some(rest) = code.strip_prefix("from ") {
        rest.split_whitespace().next()?
    } else {
        let rest = code.strip_prefix("import ")?;
        rest.split([',', ' '])
            .find(|m| m.rsplit('.').next() == Some(last))?
    };
    (named.contains('.') && !named.starts_with('.') && named.rsplit('.').next() == Some(last))
        .then(|| named.to_string())
}

/// A missing module, placed: local, standard library of another Python, or third-party.
fn module_cause(module: &str, cell: Option<u32>, in_library: bool, cx: &FailureContext) -> Cause {
    let Ok(mut m) = ModulePath::new(module) else {
        return missing_module(module);
    };
    // Python 2 names only the last part of a missing submodule (`No module named
    // cross_validation` for `import sklearn.cross_validation`): the import says the rest.
    if !module.contains('.') {
        let full = cx.usage.imports.iter().find(|i| {
            i.module.top_level() != module
                && i.module.name() == module
                && cell.is_none_or(|c| i.at.cell == c)
        });
        if let Some(i) = full {
            m = i.module.clone();
        }
    }
    let top = m.top_level();
    if cx.module_kind(top) == ModuleKind::Local {
        return Cause::MissingLocalModule {
            module: m,
            unprovided: false,
        };
    }
    if let Some(python) = cx
        .stdlib_elsewhere(m.as_str())
        .or_else(|| cx.stdlib_elsewhere(top))
    {
        return Cause::StdlibModule { module: m, python };
    }
    // An import of the notebook's own that nothing provides: a module its author had and
    // never published. No environment has it, so no round is spent on it.
    if !in_library && cx.unprovided(top) {
        return Cause::MissingLocalModule {
            module: m,
            unprovided: true,
        };
    }
    // A submodule of a library: a name the installed release lacks, which another release
    // may have or none ever had.
    let bank = (m.as_str() != top).then(|| cx.api_history(&ApiPath::from(m.clone())));
    Cause::MissingModule { module: m, bank }
}

/// A library saying which package it needs (`Please install openpyxl`, `matplotlib is
/// required for plotting`): that module is missing.
fn install_hint(evalue: &str, import_error: bool, cx: &FailureContext) -> Option<Cause> {
    let name = message::install_hint(evalue, import_error)?;
    // A module of the standard library or beside the notebook is nothing to install.
    if let Ok(module) = ModulePath::new(name) {
        if cx.module_kind(module.top_level()) != ModuleKind::ThirdParty {
            return None;
        }
    }
    // The name is a slice of `evalue`: what follows it may say which versions.
    let at = name.as_ptr() as usize - evalue.as_ptr() as usize;
    let requirement = match message::version_after(&evalue[at..]) {
        Some(version) => format!("{name}{version}"),
        None => name.to_string(),
    };
    let alternatives = message::alternatives_to(evalue, name)
        .into_iter()
        .map(str::to_string)
        .collect();
    Some(Cause::PackageAsked {
        requirement,
        alternatives,
    })
}

/// A TypeError raised inside a library from the notebook's call of one of its APIs, which the
/// bank shows changed next to the installed release: the call may fit another release.
fn changed_api(r: &Raised, cx: &FailureContext) -> Option<Cause> {
    r.innermost().and_then(Frame::library)?;
    let at = r
        .frames
        .iter()
        .rposition(|f| matches!(f.origin(), FrameOrigin::Cell(_)))?;
    let (cell, line) = (r.frames[at].cell?, r.frames[at].line?);
    // The library the notebook called: the first one below its frame.
    let called = r.frames[at + 1..].iter().find_map(Frame::library)?;
    let api = cx.api_at(cell, line, |a| a.api.top_level() == called.top_level())?;
    match cx.signature_history(api) {
        BankSays::SomeRelease { distribution } => Some(Cause::ChangedApi {
            api: api.clone(),
            library: called,
            ename: r.short_ename().into(),
            distribution,
        }),
        _ => None,
    }
}

fn cannot_import(
    name: &str,
    module: Option<&str>,
    circular: bool,
    r: &Raised,
    cell: Option<u32>,
    cx: &FailureContext,
) -> Cause {
    let library = r.innermost().and_then(Frame::library);
    // Python 2 and 3.3–3.6 do not say the module: the notebook's import statement does.
    let module = module
        .map(str::to_string)
        .or_else(|| {
            let line = r.innermost_cell_frame().and_then(|f| f.line);
            let imports = &cx.usage.imports;
            imports
                .iter()
                .filter(|i| i.name.as_deref() == Some(name))
                .min_by_key(|i| {
                    (
                        Some(i.at.cell) != cell,
                        line.is_some_and(|l| l != i.at.line),
                    )
                })
                .map(|i| i.module.to_string())
        })
        .or_else(|| {
            // Raised in the notebook's own helper module (`from scipy.misc import imread` in
            // `utils.py`): its import line says the module, as a cell's would.
            let frame = r.innermost().filter(|f| f.origin() == FrameOrigin::Local)?;
            let api = imported_from(frame.code.as_deref()?, name)?;
            api.split_last().map(|(m, _)| m.to_string())
        });
    let Some(module) = module else {
        return match library {
            Some(library) => Cause::LibraryMismatch {
                wanted: r
                    .innermost()
                    .and_then(|f| f.code.as_deref())
                    .and_then(|code| imported_from(code, name))
                    .filter(|api| api.top_level() != library.top_level())
                    .filter(|api| cx.module_kind(api.top_level()) == ModuleKind::ThirdParty),
                library,
                ename: r.short_ename().into(),
            },
            None => Cause::Raised {
                ename: r.short_ename().into(),
            },
        };
    };
    let Ok(m) = ModulePath::new(&module) else {
        return Cause::Raised {
            ename: r.short_ename().into(),
        };
    };
    let Ok(api) = ApiPath::in_module(&m, name) else {
        return Cause::Raised {
            ename: r.short_ename().into(),
        };
    };
    match cx.module_kind(m.top_level()) {
        ModuleKind::Local => Cause::Raised {
            ename: r.short_ename().into(),
        },
        _ if circular => match library {
            Some(library) => Cause::LibraryMismatch {
                library,
                ename: r.short_ename().into(),
                wanted: None,
            },
            None => Cause::Raised {
                ename: r.short_ename().into(),
            },
        },
        ModuleKind::Stdlib => Cause::StdlibApi { api },
        ModuleKind::ThirdParty => missing_api(api, cx),
    }
}

/// An API the installed release lacks, with what the bank says of the other releases.
/// The API a `from M import a, b as c` line imports as `name`, when it names it.
fn imported_from(code: &str, name: &str) -> Option<ApiPath> {
    let rest = code.trim().strip_prefix("from ")?;
    let (module, names) = rest.split_once(" import ")?;
    let module = ModulePath::new(module.trim()).ok()?;
    names
        .trim_matches(|c: char| c == '(' || c == ')' || c.is_whitespace())
        .split(',')
        .filter_map(|n| n.split_whitespace().next())
        .find(|n| *n == name)
        .and_then(|n| ApiPath::in_module(&module, n).ok())
}

fn missing_api(api: ApiPath, cx: &FailureContext) -> Cause {
    Cause::MissingApi {
        bank: cx.api_history(&api),
        api,
    }
}

fn module_attribute(
    module: &str,
    attribute: &str,
    r: &Raised,
    cell: Option<u32>,
    cx: &FailureContext,
) -> Cause {
    let api = ModulePath::new(module)
        .ok()
        .and_then(|m| ApiPath::in_module(&m, attribute).ok().map(|a| (m, a)));
    let Some((m, api)) = api else {
        return Cause::Raised {
            ename: "AttributeError".into(),
        };
    };
    match cx.module_kind(m.top_level()) {
        ModuleKind::Local => Cause::Raised {
            ename: "AttributeError".into(),
        },
        ModuleKind::Stdlib => Cause::StdlibApi { api },
        ModuleKind::ThirdParty => {
            // A private module (`tensorflow._api.v2.train`) is where the public name the
            // notebook used (`tf.train.AdamOptimizer`) lives: the notebook's name is the API.
            if m.segments().any(|s| s.starts_with('_')) {
                let line = r.innermost_cell_frame().and_then(|f| f.line);
                if let Some(public) = cx.api_in(cell, line, |a| {
                    a.api.top_level() == m.top_level() && api_name_is(&a.api, attribute)
                }) {
                    return missing_api(public.clone(), cx);
                }
            }
            missing_api(api, cx)
        }
    }
}

/// `'module' object has no attribute 'x'` (Python 2): the module is found through the
/// notebook's APIs used where it failed.
fn some_module_attribute(
    attribute: &str,
    r: &Raised,
    cell: Option<u32>,
    cx: &FailureContext,
) -> Option<Cause> {
    let line = r.innermost_cell_frame().and_then(|f| f.line);
    if let Some(api) = cx.api_in(cell, line, |a| {
        api_name_is(&a.api, attribute) && !a.kinds.contains(&UseKind::Traced)
    }) {
        return Some(missing_api(api.clone(), cx));
    }
    let library = r.innermost().and_then(Frame::library)?;
    Some(Cause::LibraryMismatch {
        library,
        ename: "AttributeError".into(),
        wanted: None,
    })
}

fn api_name_is(api: &ApiPath, name: &str) -> bool {
    api.split_last().is_some_and(|(_, last)| last == name)
}

/// Builtin types whose missing attributes are the notebook's own mistakes.
const BUILTIN_TYPES: &[&str] = &[
    "NoneType",
    "int",
    "float",
    "complex",
    "bool",
    "list",
    "tuple",
    "set",
    "frozenset",
    "dict",
    "str",
    "bytes",
    "unicode",
    "function",
    "method",
    "builtin_function_or_method",
    "generator",
    "range",
    "zip",
    "map",
    "filter",
    "module",
    "type",
    "object",
];

/// Python 2 methods that Python 3 removed from builtin types.
const PYTHON2_METHODS: &[(&str, &str)] = &[
    ("dict", "iteritems"),
    ("dict", "iterkeys"),
    ("dict", "itervalues"),
    ("dict", "has_key"),
    ("dict", "viewitems"),
    ("dict", "viewkeys"),
    ("dict", "viewvalues"),
    ("str", "decode"),
    ("map", "sort"),
    ("filter", "sort"),
    ("zip", "sort"),
    ("dict_keys", "sort"),
    ("dict_items", "sort"),
    ("dict_values", "sort"),
    ("itertools", "izip"),
];

fn object_attribute(
    type_name: &str,
    attribute: &str,
    library: Option<&ModulePath>,
    r: &Raised,
    cell: Option<u32>,
    cx: &FailureContext,
) -> Option<Cause> {
    if maybe_python3(cx) && PYTHON2_METHODS.contains(&(type_name, attribute)) {
        return Some(Cause::WrongPython {
            detail: format!("`{type_name}.{attribute}` is Python 2"),
            needs: python2_only(),
        });
    }
    if BUILTIN_TYPES.contains(&type_name) || type_name.starts_with("dict_") {
        return None;
    }
    if cx.bindings.def_kind(type_name) == Some(DefKind::Class) && library.is_none() {
        return None;
    }
    let line = r.innermost_cell_frame().and_then(|f| f.line);
    // `'numpy.ndarray' object …`: the type's module says where it comes from.
    let (type_module, class) = match type_name.rsplit_once('.') {
        Some((module, class)) => (ModulePath::new(module).ok(), class),
        None => (None, type_name),
    };
    // The bank is asked about the member's path when the class is known, else about a class
    // of that name in the library the value came from.
    let missing = |api: Option<ApiPath>, receiver: Option<ApiPath>, from: Option<ModulePath>| {
        let (bank, api) = match (api, type_module.clone().or(from)) {
            (Some(api), _) => (cx.api_history(&api), Some(api)),
            // Some release's class of that name had it: that class's member is what the
            // notebook needs, evidence for the next resolution.
            (None, Some(module)) => {
                let bank = cx.member_history(&module, class, attribute);
                let api = matches!(bank, BankSays::SomeRelease { .. })
                    .then(|| cx.member_path(&module, class, attribute))
                    .flatten();
                (bank, api)
            }
            (None, None) => (BankSays::Unknown, None),
        };
        Cause::MissingMember {
            type_name: type_name.to_string(),
            member: attribute.to_string(),
            api,
            receiver,
            bank,
        }
    };
    let top = |api: &ApiPath| ModulePath::new(api.top_level()).ok();
    // A member traced to a library class: `…LinearRegression.fit`, or the class used by name.
    if let Some(api) = cx.api_in(cell, line, |a| {
        a.api.split_last().is_some_and(|(parent, last)| {
            last == attribute && parent.rsplit('.').next() == Some(class)
        })
    }) {
        return Some(missing(Some(api.clone()), None, None));
    }
    if let Some(found) = cx.api_in(cell, None, |a| api_name_is(&a.api, class)) {
        return Some(missing(found.member(attribute).ok(), None, top(found)));
    }
    // A member used on a value a library API returned: `df.ix` on `pd.read_csv(...)`.
    let derived = |m: &crate::notebook::usage::MemberUse| match &m.receiver {
        Receiver::DerivedFrom(api) if m.member == attribute => Some(api.clone()),
        _ => None,
    };
    let members = &cx.usage.members;
    let member = members
        .iter()
        .filter(|m| cell.is_some_and(|c| m.locations.iter().any(|l| l.cell == c)))
        .find_map(derived)
        .or_else(|| members.iter().find_map(derived));
    // A value the notebook's reading lost track of (a module of its own built it): a class of
    // that name in a library the notebook imports, which had the member in some release
    // (`'EntitySet' object has no attribute 'plot'` with featuretools imported).
    let imported = || {
        cx.usage
            .third_party
            .iter()
            .filter_map(|t| ModulePath::new(t.name.top_level()).ok())
            .find(|module| {
                matches!(
                    cx.member_history(module, class, attribute),
                    BankSays::SomeRelease { .. }
                )
            })
            .map(|module| missing(None, None, Some(module)))
    };
    if let Some(receiver) = member {
        let from = top(&receiver);
        let traced = missing(None, Some(receiver), from);
        let unknown = matches!(
            traced,
            Cause::MissingMember {
                bank: BankSays::Unknown,
                ..
            }
        );
        return Some(if unknown && library.is_none() {
            imported().unwrap_or(traced)
        } else {
            traced
        });
    }
    // Raised inside a library: one library using another's removed member.
    if let Some(l) = library {
        return Some(missing(None, None, ModulePath::new(l.top_level()).ok()));
    }
    imported()
}

fn bad_keyword(
    function: &str,
    keyword: &str,
    in_library: bool,
    r: &Raised,
    cell: Option<u32>,
    cx: &FailureContext,
) -> Option<Cause> {
    let mut parts = function.rsplit('.');
    let last = parts.next().unwrap_or(function);
    // Python 3.10+ names the class of a method: `Word2Vec.__init__()`.
    let owner = parts.next();
    let line = r.innermost_cell_frame().and_then(|f| f.line);
    let named = |a: &ApiUse| {
        a.api.split_last().is_some_and(|(_, name)| {
            name == last
                || (last == "__init__"
                    && owner.map_or(name.starts_with(|c: char| c.is_ascii_uppercase()), |o| {
                        name == o
                    }))
        })
    };
    // The call that passed the keyword; else (a keyword passed through `**kwargs`) the call of
    // that name on the failing line; else, raised inside a library (`Rectangle.set()` refusing
    // what `plt.hist` handed down), the failing cell's call that passed it.
    let api = cx
        .api_in(cell, line, |a| {
            a.keywords.iter().any(|k| k == keyword) && named(a)
        })
        .or_else(|| cx.api_at(cell?, line?, named))
        .or_else(|| {
            in_library
                .then(|| keyword_passed_here(keyword, r, cell, cx))
                .flatten()
        });
    let own = cx.bindings.def_kind(last).is_some() && !in_library;
    match api {
        Some(api) if !own => Some(Cause::BadKeyword {
            function: function.to_string(),
            keyword: keyword.to_string(),
            api: Some(api.clone()),
            bank: cx.keyword_history(api, keyword),
        }),
        None if in_library => Some(Cause::BadKeyword {
            function: function.to_string(),
            keyword: keyword.to_string(),
            api: None,
            bank: BankSays::Unknown,
        }),
        _ => None,
    }
}

/// The call of the failing cell (its failing line first) that passed `keyword`: where a
/// keyword handed down through `**kwargs` came from.
fn keyword_passed_here<'a>(
    keyword: &str,
    r: &Raised,
    cell: Option<u32>,
    cx: &FailureContext<'a>,
) -> Option<&'a ApiPath> {
    let cell = cell?;
    let line = r.innermost_cell_frame().and_then(|f| f.line);
    let passes = |a: &ApiUse| a.keywords.iter().any(|k| k == keyword);
    line.and_then(|l| cx.api_at(cell, l, passes))
        .or_else(|| cx.api_in_cell(cell, passes))
}

// ---- names and syntax ---------------------------------------------------------------

/// Builtins Python 3 removed.
const PYTHON2_BUILTINS: &[&str] = &[
    "unicode",
    "xrange",
    "raw_input",
    "basestring",
    "long",
    "unichr",
    "reduce",
    "execfile",
    "file",
    "cmp",
    "reload",
    "apply",
    "buffer",
    "intern",
    "coerce",
];

fn undefined(name: &str, r: &Raised, cell: Option<u32>, cx: &FailureContext) -> Cause {
    let binds = cx.bindings.of_name(name);
    if binds.is_empty() {
        if maybe_python3(cx) && PYTHON2_BUILTINS.contains(&name) {
            return Cause::WrongPython {
                detail: format!("`{name}` is a Python 2 builtin"),
                needs: python2_only(),
            };
        }
        // A name only a star import can have bound: the imported module no longer has it.
        if let Some(api) = cx.api_in(cell, None, |a| {
            a.kinds.contains(&UseKind::Star) && api_name_is(&a.api, name)
        }) {
            return missing_api(api.clone(), cx);
        }
        return Cause::Undefined {
            name: name.into(),
            definition: Definition::Nowhere,
        };
    }
    let Some(cell) = cell else {
        let at = binds[0];
        return Cause::Undefined {
            name: name.into(),
            definition: Definition::Later {
                cell: at.cell,
                line: at.line,
            },
        };
    };
    // The use: the line in the running cell when the innermost frame is there.
    let line = r
        .innermost()
        .filter(|f| f.cell == Some(cell))
        .and_then(|f| f.line)
        .unwrap_or(u32::MAX);
    let use_at = Location::new(cell, line);
    let earlier = binds.iter().rev().find(|l| **l < use_at);
    let later = binds.iter().find(|l| **l > use_at);
    let definition = match (earlier, later) {
        (Some(at), _) => Definition::Earlier {
            cell: at.cell,
            line: at.line,
        },
        (None, Some(at)) => Definition::Later {
            cell: at.cell,
            line: at.line,
        },
        (None, None) => Definition::Nowhere,
    };
    Cause::Undefined {
        name: name.into(),
        definition,
    }
}

fn syntax(ename: &str, r: &Raised, cell: Option<u32>, cx: &FailureContext) -> Cause {
    let msg = message::parse(&r.evalue);
    if let Message::MissingParentheses { call } = msg {
        return Cause::WrongPython {
            detail: format!("a Python 2 `{call}` statement"),
            needs: python2_only(),
        };
    }
    // Python 3 reads source as UTF-8; Python 2 wants an encoding line first.
    if let Message::UndeclaredEncoding { file } = msg {
        if cx.python.is_some_and(|v| v.major < 3) {
            return Cause::WrongPython {
                detail: format!("`{file}` holds non-ASCII text and no encoding line"),
                needs: PythonRange::at_least(PythonVersion::new(3, 0)),
            };
        }
    }
    if let Some(cell) = cell {
        if ename == "IndentationError"
            && r.evalue.contains("unexpected indent")
            && cx.source(cell).is_some_and(starts_indented)
        {
            return Cause::KernelIndentation;
        }
        // The notebook's own syntax evidence for this cell, against the interpreter (when it
        // is unknown, Python 2 syntax failing says enough: the interpreter was Python 3).
        let hint = cx.usage.python.hints.iter().find(|h| {
            !h.weak
                && h.at.is_some_and(|a| a.cell == cell)
                && match cx.python {
                    Some(python) => !h.range.contains(python),
                    None => h.reason == HintReason::Python2Syntax,
                }
        });
        if let Some(h) = hint {
            return Cause::WrongPython {
                detail: h.detail.clone(),
                needs: h.range,
            };
        }
    }
    // A library whose code this Python cannot read (a release written for Python 3 imported
    // on 2.7): the release is the environment's, another may read.
    if let Some(library) = r.innermost().and_then(Frame::library) {
        return Cause::LibraryMismatch {
            library,
            ename: ename.into(),
            wanted: None,
        };
    }
    Cause::Syntax {
        detail: first_line(&r.evalue),
    }
}

fn starts_indented(source: &str) -> bool {
    source
        .lines()
        .find(|l| !l.trim().is_empty())
        .is_some_and(|l| l.starts_with([' ', '\t']))
}

/// `Line magic function `%memit` not found.` → `%memit`.
fn magic_name(evalue: &str) -> Option<String> {
    let start = evalue.find('`')?;
    let rest = &evalue[start + 1..];
    let end = rest.find('`')?;
    let name = &rest[..end];
    (name.starts_with('%') && evalue.contains("not found")).then(|| name.to_string())
}

/// Why an installer failed, from its words (uv's and pip's).
pub fn install_reason(detail: &str) -> InstallReason {
    let t = detail.to_ascii_lowercase();
    let any = |words: &[&str]| words.iter().any(|w| t.contains(w));
    if any(&["has invalid metadata", "could not be parsed"]) && t.contains("metadata") {
        InstallReason::InvalidMetadata
    } else if any(&[
        "failed to build",
        "failed to download and build",
        "failed building wheel",
        "subprocess-exited-with-error",
        "setup.py egg_info",
        "build backend",
    ]) {
        // Before the words of resolution: a build whose own requirements do not resolve
        // (setuptools absent from the index) says "no solution" of those, not of the release.
        InstallReason::BuildFailed
    } else if any(&[
        "no matching distribution",
        "could not find a version that satisfies",
        "not found in the package registry",
        "no version of",
        "there is no version",
        "has no wheels with a matching",
        "no wheels with a matching",
        "doesn't have a source distribution or wheel",
    ]) {
        InstallReason::NoMatchingDistribution
    } else if any(&[
        "resolutionimpossible",
        "conflicting dependencies",
        "unsatisfiable",
        "no solution found",
        "incompatible",
    ]) {
        InstallReason::Conflict
    } else if any(&[
        "could not fetch url",
        "failed to fetch",
        "connection",
        "network",
        "timed out",
    ]) {
        InstallReason::Network
    } else {
        InstallReason::Other
    }
}
