//! The analysis driver: every code cell in notebook order through one tracer, then stored
//! outputs, local modules, and classification.

use std::path::Path;

use super::cell::{self, CellCode};
use super::collect::Evidence;
use super::finish;
use super::format::{CellKind, Kernel, Notebook};
use super::local_modules;
use super::outputs;
use super::python_version::{HintReason, KNOWN_VERSIONS};
use super::repository::Wanted;
use super::stdlib::{self, VersionSet};
use super::tracing::Tracer;
use super::usage::Usage;
use crate::python::{PythonRange, PythonVersion};

/// What the analysis assumes about the notebook's surroundings.
#[derive(Debug, Clone)]
pub struct AnalyzeOptions {
    /// The Python versions the notebook may run on. A module in the standard library of any of
    /// them is not third-party. Default: every version nbenv knows (2.7, 3.3 … 3.14).
    pub python_versions: Vec<PythonVersion>,
    /// Look for local modules in the notebook's directory (and directories it adds to
    /// `sys.path`). Default: true.
    pub scan_local_modules: bool,
}

impl Default for AnalyzeOptions {
    fn default() -> Self {
        Self {
            python_versions: KNOWN_VERSIONS.to_vec(),
            scan_local_modules: true,
        }
    }
}

/// Extracts the environment evidence of a notebook. Never fails: code that does not parse is
/// reported in [`Usage::warnings`] and the rest is still analysed.
pub fn analyze(nb: &Notebook, options: &AnalyzeOptions) -> Usage {
    let mut tracer = Tracer::new();
    tracer.last_star_module = last_star_module(nb);
    metadata_hints(nb, &mut tracer.ev);
    for c in &nb.cells {
        if c.kind != CellKind::Code || c.source.trim().is_empty() {
            continue;
        }
        match cell::split(&c.source) {
            CellCode::Python {
                source,
                line_offset,
            } => tracer.python(c.number, &source, line_offset),
            CellCode::CellMagic {
                name,
                args,
                line,
                body,
            } => tracer.cell_magic(c.number, name, args, line, body, false),
        }
    }
    let mut ev = tracer.ev;
    let outputs = outputs::scan(nb, &mut ev);
    let dir = options.scan_local_modules.then(|| notebook_dir(&nb.path));
    let wanted = wanted_imports(&ev);
    let mut locals = local_modules::find(
        &nb.path,
        dir,
        &ev.written_modules,
        &ev.sys_path_dirs,
        &wanted,
    );
    // A script is not a local module of itself.
    if nb.path.extension().is_some_and(|e| e == "py" || e == "pyw") {
        let own = nb.path.file_stem().and_then(|s| s.to_str());
        locals.retain(|m| Some(m.name.as_str()) != own || m.at.is_some());
    }
    let candidates = if options.python_versions.is_empty() {
        VersionSet::ALL
    } else {
        VersionSet::of(&options.python_versions)
    };
    let mut usage = finish::build(nb, ev, outputs, locals, candidates);
    outputs::classify_stored_errors(nb, &mut usage, None);
    usage
}

/// The module of the notebook's last star import (`from m import *`, or `%pylab`'s
/// `matplotlib.pylab`), read from the cells' lines: what a function's unbound names may be
/// when it is called, after every cell ran.
fn last_star_module(nb: &Notebook) -> Option<std::rc::Rc<str>> {
    fn star(line: &str) -> Option<&str> {
        let line = line.trim_start();
        if line.starts_with("%pylab") {
            return Some(super::escape::PYLAB_STAR);
        }
        let (module, rest) = line.strip_prefix("from ")?.split_once(" import ")?;
        let module = module.trim();
        let rest = rest.trim_start().strip_prefix('*')?;
        let ends = rest.trim().is_empty() || rest.trim_start().starts_with('#');
        (ends && crate::names::ModulePath::new(module).is_ok()).then_some(module)
    }
    nb.cells
        .iter()
        .filter(|c| c.kind == CellKind::Code)
        .flat_map(|c| c.source.lines())
        .filter_map(star)
        .next_back()
        .map(std::rc::Rc::from)
}

/// The notebook's absolute imports outside the standard library, each with the names imported
/// from it: what the repository may hold beyond the usual places.
fn wanted_imports(ev: &Evidence) -> Vec<Wanted> {
    let mut out: Vec<Wanted> = Vec::new();
    for raw in ev.imports.iter().filter(|i| i.level == 0) {
        let top = raw.module.top_level();
        if stdlib::is_stdlib(top, VersionSet::ALL) {
            continue;
        }
        let part = match raw.module.as_str().split('.').nth(1) {
            Some(second) => Some(second.to_string()),
            None => raw.name.clone(),
        };
        let at = match out.iter().position(|w| w.name == top) {
            Some(at) => at,
            None => {
                out.push(Wanted {
                    name: top.to_string(),
                    parts: Vec::new(),
                });
                out.len() - 1
            }
        };
        if let Some(part) = part.filter(|p| !out[at].parts.contains(p)) {
            out[at].parts.push(part);
        }
    }
    out
}

/// The directory a notebook's local modules are looked for in.
pub(crate) fn notebook_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// The kernelspec and `language_info.version` as version evidence.
fn metadata_hints(nb: &Notebook, ev: &mut Evidence) {
    if let Some(version) = nb.language_version.as_deref() {
        if let Some(v) = PythonVersion::parse(version) {
            ev.hint(
                HintReason::LanguageInfo,
                version,
                PythonRange::exactly(v),
                false,
                None,
            );
        }
    }
    if let Some(Kernel {
        name, display_name, ..
    }) = &nb.kernel
    {
        for text in [name, display_name].into_iter().flatten() {
            if let Some(range) = kernel_version(text) {
                ev.hint(HintReason::Kernelspec, text, range, false, None);
                break;
            }
        }
    }
}

/// `python2`, `python3`, `Python 3.7`, `py36`, `conda-env-py27-py` → the versions meant.
pub(crate) fn kernel_version(text: &str) -> Option<PythonRange> {
    let lower = text.to_ascii_lowercase();
    let digits_after = |s: &str| -> Option<String> {
        let s = s.trim_start_matches([' ', '-', '_']);
        let v: String = s
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.')
            .collect();
        (!v.is_empty()).then_some(v)
    };
    let version = if let Some(i) = lower.find("python") {
        digits_after(&lower[i + 6..])
    } else {
        None
    };
    let version = version.or_else(|| {
        // `py36`, `py27`, `py310`: a compact major+minor
        lower.match_indices("py").find_map(|(i, _)| {
            let d: String = lower[i + 2..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            (d.len() >= 2 && d.len() <= 3 && (d.starts_with('2') || d.starts_with('3')))
                .then(|| format!("{}.{}", &d[..1], &d[1..]))
        })
    })?;
    let v = PythonVersion::parse(&version)?;
    if !(2..=3).contains(&v.major) {
        return None;
    }
    Some(if !version.trim_end_matches('.').contains('.') {
        if v.major == 2 {
            PythonRange::at_most(PythonVersion::new(2, 7))
        } else {
            PythonRange::at_least(PythonVersion::new(3, 0))
        }
    } else {
        PythonRange::exactly(v)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_names() {
        let v = |s| kernel_version(s);
        assert_eq!(
            v("python2"),
            Some(PythonRange::at_most(PythonVersion::new(2, 7)))
        );
        assert_eq!(
            v("python3"),
            Some(PythonRange::at_least(PythonVersion::new(3, 0)))
        );
        assert_eq!(
            v("Python 3.7.3 64-bit"),
            Some(PythonRange::exactly(PythonVersion::new(3, 7)))
        );
        assert_eq!(
            v("conda-env-py36-py"),
            Some(PythonRange::exactly(PythonVersion::new(3, 6)))
        );
        assert_eq!(v("Python [conda env:tf]"), None);
        assert_eq!(v("ir"), None);
    }
}
