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

/// Imports the module named on argv[1] and prints, as its last line, the module an
/// ImportError says is missing (empty when the import worked or failed otherwise).
/// Python 2 has no `ModuleNotFoundError.name`: its message (`No module named PIL`) says it.
const PROBE: &str = r#"
import sys
missing = ""
try:
    __import__(sys.argv[1])
except ImportError as e:
    missing = getattr(e, "name", None) or ""
    text = str(e)
    if not missing and text.startswith("No module named "):
        missing = text[len("No module named "):].strip("'\" ")
except Exception:
    pass
sys.stdout.write("\n" + missing + "\n")
"#;

/// The module a name's definition lacks, and where that definition is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LackedImport {
    /// The module the bank says defines the name in the installed release.
    pub defined_in: ModulePath,
    /// What importing it says is missing (`PIL`).
    pub missing: ModulePath,
}

/// The modules that define `api` in the installed release of its distribution, by the bank:
/// none when the bank does not say the installed release has it, or it is defined where it
/// is named (then its own module imported, and the run already said what it lacks).
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
        for span in report
            .canonical
            .iter()
            .filter(|c| VersionRun::any_contains(&c.releases, version))
        {
            let module = span.path.rsplit_once('.').map(|(m, _)| m);
            if let Some(m) = module.and_then(|m| ModulePath::new(m).ok()) {
                if !out.contains(&m) {
                    out.push(m);
                }
            }
        }
    }
    out
}

/// Imports each of `modules` with `python` and returns the first missing module another
/// distribution would provide (one of the defining module's own package is a broken
/// install, not a missing dependency).
pub fn lacked_import(python: &Path, modules: &[ModulePath]) -> Option<LackedImport> {
    modules.iter().take(3).find_map(|module| {
        let mut command = Command::new(python);
        command
            .args(["-c", PROBE, module.as_str()])
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .current_dir(std::env::temp_dir());
        let done = crate::python::run_limited(command, b"", PROBE_LIMIT).ok()?;
        let text = String::from_utf8_lossy(&done.stdout);
        let missing = text.lines().last()?.trim();
        let missing = ModulePath::new(missing).ok()?;
        (missing.top_level() != module.top_level()).then(|| LackedImport {
            defined_in: module.clone(),
            missing,
        })
    })
}
