//! A name the installed release defines, missing at run time: the release is not at fault,
//! the import that would have made the name is. scipy's `misc/__init__.py` imports
//! `imread` from `pilutil` under `try: ... except ImportError: pass`, and `pilutil` imports
//! PIL: without Pillow, every scipy before 1.2 lacks `scipy.misc.imread` at run time, and a
//! search over scipy's releases never ends. Importing the module the bank says defines the
//! name, in the run's environment, shows what it lacks: a run, the strongest evidence.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use pep508_rs::pep440_rs::Version;

use crate::bank::store::{Store, VersionRun};
use crate::names::{ApiPath, DistName, ModulePath};

/// How long one import may take: a library's import, not a notebook.
const PROBE_LIMIT: Duration = Duration::from_secs(120);

/// Imports the module named on argv[1] and prints, as its last line, the imports whose
/// failure made it fail, the last one last (empty when the import worked or failed
/// otherwise); before it, the last error reading a file (an `EnvironmentError`) that passed
/// through the module's own code while it ran, which it swallowed if the import worked.
/// The chain matters: scipy 0.19's `pilutil` tries `from PIL import
/// Image`, then, in its `except ImportError`, the pre-Pillow `import Image`; the module to
/// install is PIL, not the last name tried. Python 2 chains no exceptions, so each failed
/// import remembers the ImportError being handled when it began.
const PROBE: &str = r#"
import sys
try:
    import builtins
except ImportError:
    import __builtin__ as builtins
real = builtins.__import__
seen = {}
def hook(name, globals=None, locals=None, fromlist=(), level=0):
    handling = sys.exc_info()[1]
    try:
        return real(name, globals, locals, fromlist, level)
    except ImportError as e:
        if id(e) not in seen and level <= 0:
            seen[id(e)] = (name, handling, e)
        raise
builtins.__import__ = hook
target = sys.argv[1]
swallowed = []
def in_module(frame, event, arg):
    if event == "exception" and issubclass(arg[0], EnvironmentError):
        swallowed.append("%s: %s" % (arg[0].__name__, str(arg[1]).replace("\n", " ")))
    return in_module
def calls(frame, event, arg):
    if frame.f_code.co_name == "<module>" and frame.f_globals.get("__name__") == target:
        return in_module
    return None
chain = []
sys.settrace(calls)
try:
    __import__(target)
except ImportError as e:
    cur = e
    while cur is not None and id(cur) in seen and len(chain) < 10:
        name, cur, _ = seen[id(cur)]
        chain.append(name)
except Exception:
    pass
sys.settrace(None)
builtins.__import__ = real
sys.stdout.write("\n" + (swallowed[-1] if swallowed else "") + "\n" + " ".join(reversed(chain)) + "\n")
"#;

/// Why a name the installed release defines is not there at run time, by importing the
/// module that defines it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unbound {
    /// An import its definition makes fails here: `missing` (`PIL`) is to install.
    Import {
        /// The module the bank says defines the name in the installed release.
        defined_in: ModulePath,
        missing: ModulePath,
    },
    /// The module ran, and swallowed `error` reading a file: it binds the name only when
    /// its data is there (cltk's corpora, downloaded apart). No release binds it otherwise.
    Data {
        defined_in: ModulePath,
        error: String,
    },
}

/// The modules that define `api` in the installed release of its distribution, by the bank
/// (its own module when it is defined where it is named): none when the bank does not say
/// the installed release has it.
pub fn defining_modules(
    bank: &Path,
    api: &ApiPath,
    installed: &[(DistName, Version)],
) -> Vec<ModulePath> {
    let Ok(store) = Store::open_read_only(bank) else {
        return Vec::new();
    };
    let Ok(reports) = store.query_api(api.as_str()) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for report in reports {
        let Some((_, version)) = installed.iter().find(|(d, _)| *d == report.distribution) else {
            continue;
        };
        if !VersionRun::any_contains(&report.present, version) {
            continue;
        }
        let mut spans = report
            .canonical
            .iter()
            .filter(|c| VersionRun::any_contains(&c.releases, version))
            .map(|c| c.path.as_str())
            .peekable();
        // Defined where it is named: its own module, which imported in the run, and bound
        // nothing (a name bound only when the module's data is there).
        let own = spans.peek().is_none().then_some(api.as_str());
        for path in spans.chain(own) {
            let module = path.rsplit_once('.').map(|(m, _)| m);
            if let Some(m) = module.and_then(|m| ModulePath::new(m).ok()) {
                if !out.contains(&m) {
                    out.push(m);
                }
            }
        }
    }
    out
}

/// Imports each of `modules` with `python`: the first import of its failing chain that
/// another distribution would provide (one of the defining module's own package is a broken
/// install, not a missing dependency), else the error reading a file its code swallowed.
pub fn unbound(python: &Path, modules: &[ModulePath]) -> Option<Unbound> {
    modules.iter().take(3).find_map(|module| {
        let mut command = Command::new(python);
        command
            .args(["-c", PROBE, module.as_str()])
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .current_dir(std::env::temp_dir());
        let done = crate::python::run_limited(command, b"", PROBE_LIMIT).ok()?;
        let text = String::from_utf8_lossy(&done.stdout);
        let mut last = text.lines().rev();
        let (chain, swallowed) = (last.next()?, last.next().unwrap_or_default());
        let chain: Vec<ModulePath> = chain
            .split_whitespace()
            .filter_map(|name| ModulePath::new(name).ok())
            .filter(|m| m.top_level() != module.top_level())
            .collect();
        // The last import failed while the one before it was being handled: a fallback
        // for it. What the module wanted is the one before (Python 2 may have left older,
        // finished failures before both).
        let missing = match chain.as_slice() {
            [.., wanted, _fallback] => wanted.clone(),
            [only] => only.clone(),
            [] if !swallowed.trim().is_empty() => {
                return Some(Unbound::Data {
                    defined_in: module.clone(),
                    error: swallowed.trim().to_string(),
                })
            }
            [] => return None,
        };
        Some(Unbound::Import {
            defined_in: module.clone(),
            missing,
        })
    })
}
