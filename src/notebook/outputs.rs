//! Stored outputs as evidence: the environment the notebook last ran in left traces in them.
//! Tracebacks and warnings name library files (`site-packages/pandas/core/frame.py`) and the
//! interpreter (`lib/python3.6/`); printed `__version__` values and pip's own output give
//! versions outright.

use std::borrow::Cow;
use std::rc::Rc;

use crate::names::{DistName, ModulePath};

use super::collect::Evidence;
use super::failure::{classify, ApiHistory, Failure, FailureContext, Problem, Raised};
use super::format::{CellKind, Notebook, Output, StreamName};
use super::python_version::HintReason;
use super::usage::{OutputEvidence, Usage};
use crate::python::{PythonRange, PythonVersion};

/// Jupyter's own machinery, which appears in every traceback and says nothing about the
/// notebook's dependencies.
const PLUMBING: &[&str] = &[
    "IPython",
    "ipykernel",
    "ipykernel_launcher",
    "jupyter_client",
    "tornado",
    "traitlets",
    "zmq",
    "asyncio",
];

pub(crate) fn scan(nb: &Notebook, ev: &mut Evidence) -> Vec<OutputEvidence> {
    let mut out = Vec::new();
    for cell in &nb.cells {
        if cell.kind != CellKind::Code || cell.outputs.is_empty() {
            continue;
        }
        let n = cell.number;
        let probes: Vec<Rc<str>> = ev
            .version_probes
            .iter()
            .filter(|(c, _)| *c == n)
            .map(|(_, m)| m.clone())
            .collect();
        let listing = ev.listing_cells.contains(&n);
        let mut printed = String::new();
        for output in &cell.outputs {
            match output {
                Output::Error {
                    ename,
                    evalue,
                    traceback,
                } => {
                    out.push(OutputEvidence::Error {
                        ename: ename.clone(),
                        evalue: strip_ansi(evalue).into_owned(),
                        cell: n,
                        failure: None,
                    });
                    for line in traceback {
                        let line = strip_ansi(line);
                        library_paths(&line, n, &mut out, ev);
                    }
                }
                Output::Stream { name, text } => {
                    library_paths(text, n, &mut out, ev);
                    warnings(text, n, &mut out);
                    pip_output(text, n, &mut out);
                    if *name == StreamName::Stdout {
                        printed.push_str(text);
                        printed.push('\n');
                    }
                }
                Output::Data { text } => {
                    printed.push_str(text);
                    printed.push('\n');
                }
            }
        }
        if !probes.is_empty() {
            versions(&printed, &probes, n, &mut out);
        }
        if listing {
            listed_packages(&printed, n, &mut out);
        }
    }
    dedup(out)
}

/// Classifies each stored error with the finished usage evidence (imports, APIs, bindings),
/// the way a live run's errors are classified; with the bank when one is at hand (without
/// it, whether another release of a library has a missing name is unknown).
pub fn classify_stored_errors(nb: &Notebook, usage: &mut Usage, bank: Option<&dyn ApiHistory>) {
    if !usage
        .outputs
        .iter()
        .any(|o| matches!(o, OutputEvidence::Error { .. }))
    {
        return;
    }
    let failures: Vec<Option<Failure>> = {
        let cx = FailureContext::new(nb, usage);
        let cx = match bank {
            Some(bank) => cx.with_bank(bank),
            None => cx,
        };
        usage
            .outputs
            .iter()
            .map(|o| {
                let OutputEvidence::Error {
                    ename,
                    evalue,
                    cell,
                    ..
                } = o
                else {
                    return None;
                };
                let traceback = nb
                    .cells
                    .iter()
                    .filter(|c| c.number == *cell)
                    .flat_map(|c| &c.outputs)
                    .find_map(|out| match out {
                        Output::Error {
                            ename: e,
                            traceback,
                            ..
                        } if e == ename => Some(traceback.as_slice()),
                        _ => None,
                    })
                    .unwrap_or(&[]);
                let raised = Raised::stored(ename, evalue, traceback, &cx);
                Some(classify(&Problem::Raised(raised), Some(*cell), &cx))
            })
            .collect()
    };
    for (output, classified) in usage.outputs.iter_mut().zip(failures) {
        if let (OutputEvidence::Error { failure, .. }, Some(f)) = (output, classified) {
            *failure = Some(Box::new(f));
        }
    }
}

/// Removes terminal colour codes (`\x1b[0;31m`), which IPython puts in tracebacks.
pub(crate) fn strip_ansi(s: &str) -> Cow<'_, str> {
    if !s.contains('\x1b') {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            if chars.clone().next() == Some('[') {
                chars.next();
                for e in chars.by_ref() {
                    if e.is_ascii_alphabetic() {
                        break;
                    }
                }
            }
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `…/lib/python3.6/site-packages/pandas/core/frame.py` → `pandas.core.frame` (and 3.6).
fn library_paths(text: &str, cell: u32, out: &mut Vec<OutputEvidence>, ev: &mut Evidence) {
    for marker in ["site-packages", "dist-packages"] {
        let mut from = 0;
        while let Some(i) = text[from..].find(marker) {
            let start = from + i;
            from = start + marker.len();
            let rest = &text[from..];
            let Some(rest) = rest.strip_prefix(['/', '\\']) else {
                continue;
            };
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '.' | '/' | '\\' | '-')))
                .unwrap_or(rest.len());
            let path = &rest[..end];
            let Some(module) = module_of(path) else {
                continue;
            };
            if PLUMBING.contains(&module.top_level()) {
                continue;
            }
            let python = interpreter_before(&text[..start]);
            if let Some(v) = python {
                ev.hint(
                    HintReason::OutputPath,
                    &format!("python{v}"),
                    PythonRange::exactly(v),
                    false,
                    None,
                );
            }
            out.push(OutputEvidence::LibraryPath {
                module,
                python,
                cell,
                count: 1,
            });
        }
    }
}

/// A path below site-packages as a module: `pandas/core/frame.py` → `pandas.core.frame`,
/// `sklearn/__init__.py` → `sklearn`.
pub(crate) fn module_of(path: &str) -> Option<ModulePath> {
    let path = path.trim_end_matches(['.', ':']);
    let path = path
        .strip_suffix(".py")
        .or_else(|| path.strip_suffix(".pyc"))?;
    let mut module = String::with_capacity(path.len());
    for segment in path.split(['/', '\\']) {
        if segment == "__init__" {
            break;
        }
        if !module.is_empty() {
            module.push('.');
        }
        module.push_str(segment);
    }
    ModulePath::new(&module).ok()
}

/// The `python3.6` directory just before `site-packages`.
fn interpreter_before(prefix: &str) -> Option<PythonVersion> {
    let prefix = prefix.strip_suffix(['/', '\\'])?;
    let dir = prefix.rsplit(['/', '\\']).next()?;
    let version = dir.strip_prefix("python")?;
    if !version.contains('.') {
        return None;
    }
    PythonVersion::parse(version)
}

/// `…: DeprecationWarning: message` lines.
fn warnings(text: &str, cell: u32, out: &mut Vec<OutputEvidence>) {
    if !text.contains("Warning") {
        return;
    }
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let Some(i) = line.find("Warning:") else {
            continue;
        };
        let head = &line[..i + "Warning".len()];
        let start = head
            .char_indices()
            .rev()
            .find(|(_, c)| !(c.is_alphanumeric() || *c == '_'))
            .map_or(0, |(j, c)| j + c.len_utf8());
        let category = &head[start..];
        if category.is_empty() || !category.starts_with(|c: char| c.is_ascii_uppercase()) {
            continue;
        }
        let mut message = line[i + "Warning:".len()..].trim();
        if message.is_empty() {
            // pandas puts the message on the following lines
            message = lines.peek().map_or("", |l| l.trim());
        }
        let message: String = message.chars().take(300).collect();
        let module = line[..start]
            .find("-packages/")
            .map(|j| &line[j + "-packages/".len()..start])
            .and_then(|p| module_of(p.split(':').next().unwrap_or(p)));
        out.push(OutputEvidence::Warning {
            category: category.to_string(),
            message,
            module,
            cell,
        });
    }
}

/// A version-looking word: `0.23.4`, `1.15.0`, `2.2.4-tf`, `1.0.0rc1`.
fn version_words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| {
        c.is_whitespace() || matches!(c, '\'' | '"' | ',' | '(' | ')' | '=' | ':' | '[' | ']')
    })
    .map(|w| w.trim_end_matches('.'))
    .filter(|w| is_version(w))
}

fn is_version(w: &str) -> bool {
    let mut parts = w.split('.');
    let first_ok = parts
        .next()
        .is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    let second_ok = parts
        .next()
        .is_some_and(|p| p.starts_with(|c: char| c.is_ascii_digit()));
    first_ok
        && second_ok
        && w.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'+' | b'-'))
}

/// Pairs printed `__version__` values with the modules the cell asked about: in order when the
/// counts match, else by the module's name on the same line.
fn versions(printed: &str, probes: &[Rc<str>], cell: u32, out: &mut Vec<OutputEvidence>) {
    let words: Vec<&str> = version_words(printed).collect();
    if words.is_empty() {
        return;
    }
    let mut push = |module: &str, version: &str| {
        if let Ok(module) = ModulePath::new(module) {
            out.push(OutputEvidence::Version {
                module,
                version: version.to_string(),
                cell,
            });
        }
    };
    if words.len() == probes.len() {
        for (m, v) in probes.iter().zip(&words) {
            push(m, v);
        }
        return;
    }
    for m in probes {
        let top = m.split('.').next().unwrap_or(m).to_ascii_lowercase();
        let found = printed
            .lines()
            .filter(|l| l.to_ascii_lowercase().contains(&top))
            .find_map(|l| version_words(l).next());
        match found {
            Some(v) => push(m, v),
            None if probes.len() == 1 => push(m, words[0]),
            None => {}
        }
    }
}

/// `pip freeze` (`name==1.0`), `pip list` (`name  1.0`), `pip show` (`Name:`/`Version:`) and
/// `%watermark -p` (`name: 1.0`) output.
fn listed_packages(printed: &str, cell: u32, out: &mut Vec<OutputEvidence>) {
    let mut show_name: Option<DistName> = None;
    for line in printed.lines() {
        let line = line.trim();
        if let Some(name) = line.strip_prefix("Name: ") {
            show_name = DistName::new(name.trim()).ok();
            continue;
        }
        if let Some(version) = line.strip_prefix("Version: ") {
            if let Some(name) = show_name.take() {
                out.push(installed(name, version.trim(), cell));
            }
            continue;
        }
        let (name, version) = if let Some((n, v)) = line.split_once("==") {
            (n.trim(), v.trim())
        } else if let Some((n, v)) = line.split_once(':') {
            (n.trim(), v.trim())
        } else {
            let mut words = line.split_whitespace();
            match (words.next(), words.next()) {
                (Some(n), Some(v)) => (n, v),
                _ => continue,
            }
        };
        if is_version(version) {
            if let Ok(name) = DistName::new(name) {
                out.push(installed(name, version, cell));
            }
        }
    }
}

fn installed(name: DistName, version: &str, cell: u32) -> OutputEvidence {
    OutputEvidence::Installed {
        name,
        version: version.to_string(),
        cell,
    }
}

/// `Successfully installed a-1.0 b-2.0` and `Requirement already satisfied: x in … (1.2)`.
fn pip_output(text: &str, cell: u32, out: &mut Vec<OutputEvidence>) {
    if !text.contains("Successfully installed") && !text.contains("Requirement already satisfied") {
        return;
    }
    for line in text.lines() {
        if let Some(rest) = line.trim().strip_prefix("Successfully installed ") {
            for item in rest.split_whitespace() {
                let split = item
                    .char_indices()
                    .filter(|(i, c)| {
                        *c == '-' && item[i + 1..].starts_with(|d: char| d.is_ascii_digit())
                    })
                    .map(|(i, _)| i)
                    .next_back();
                if let Some(i) = split {
                    if let Ok(name) = DistName::new(&item[..i]) {
                        out.push(installed(name, &item[i + 1..], cell));
                    }
                }
            }
        } else if let Some(rest) = line.trim().strip_prefix("Requirement already satisfied: ") {
            let name_end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
                .unwrap_or(rest.len());
            let version = rest
                .trim_end()
                .strip_suffix(')')
                .and_then(|r| r.rsplit_once('('))
                .map(|(_, v)| v.trim());
            if let (Ok(name), Some(version)) = (DistName::new(&rest[..name_end]), version) {
                if is_version(version) {
                    out.push(installed(name, version, cell));
                }
            }
        }
    }
}

/// One entry per library path (counted), warning, version and installed package.
fn dedup(items: Vec<OutputEvidence>) -> Vec<OutputEvidence> {
    let mut out: Vec<OutputEvidence> = Vec::with_capacity(items.len());
    for item in items {
        if let OutputEvidence::LibraryPath { module, .. } = &item {
            if let Some(OutputEvidence::LibraryPath { count, .. }) = out
                .iter_mut()
                .find(|o| matches!(o, OutputEvidence::LibraryPath { module: m, .. } if m == module))
            {
                *count += 1;
                continue;
            }
        }
        let duplicate = match &item {
            OutputEvidence::Warning {
                category, message, ..
            } => out.iter().any(|o| {
                matches!(o, OutputEvidence::Warning { category: c, message: m, .. } if c == category && m == message)
            }),
            OutputEvidence::Version {
                module, version, ..
            } => out.iter().any(|o| {
                matches!(o, OutputEvidence::Version { module: m, version: v, .. } if m == module && v == version)
            }),
            OutputEvidence::Installed { name, version, .. } => out.iter().any(|o| {
                matches!(o, OutputEvidence::Installed { name: n, version: v, .. } if n == name && v == version)
            }),
            _ => false,
        };
        if !duplicate {
            out.push(item);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_in_tracebacks() {
        let mut ev = Evidence::default();
        let mut out = Vec::new();
        library_paths(
            "\x1b[0;32m/usr/local/lib/python3.6/site-packages/pandas/core/generic.py\x1b[0m in __getattr__",
            4,
            &mut out,
            &mut ev,
        );
        // colour codes are stripped by the caller for tracebacks; here the path ends at ESC
        assert_eq!(
            out,
            [OutputEvidence::LibraryPath {
                module: ModulePath::new("pandas.core.generic").unwrap(),
                python: Some(PythonVersion::new(3, 6)),
                cell: 4,
                count: 1
            }]
        );
        assert_eq!(
            ev.hints[0].range,
            PythonRange::exactly(PythonVersion::new(3, 6))
        );
        assert_eq!(
            module_of("sklearn/__init__.py").unwrap().as_str(),
            "sklearn"
        );
        assert_eq!(
            strip_ansi("\x1b[0;31mKeyError\x1b[0m: 'x'"),
            "KeyError: 'x'"
        );
    }

    #[test]
    fn warnings_and_pip() {
        let mut out = Vec::new();
        warnings("/opt/conda/lib/python3.7/site-packages/sklearn/cross_validation.py:41: DeprecationWarning: This module was deprecated in version 0.18\n  \"This module will be removed in 0.20.\", DeprecationWarning)\n", 2, &mut out);
        assert_eq!(out.len(), 1);
        assert!(
            matches!(&out[0], OutputEvidence::Warning { category, module: Some(m), .. } if category == "DeprecationWarning" && m.as_str() == "sklearn.cross_validation")
        );
        let mut out = Vec::new();
        pip_output(
            "Successfully installed keras-2.2.4 tensorflow-1.15.0 scikit-learn-0.20.3\n",
            1,
            &mut out,
        );
        assert_eq!(out.len(), 3);
        assert!(
            matches!(&out[2], OutputEvidence::Installed { name, version, .. } if name.as_str() == "scikit-learn" && version == "0.20.3")
        );
    }

    #[test]
    fn printed_versions() {
        let mut out = Vec::new();
        versions(
            "numpy 1.16.2\npandas 0.24.1\n",
            &["numpy".into(), "pandas".into()],
            1,
            &mut out,
        );
        assert_eq!(out.len(), 2);
        let mut out = Vec::new();
        versions("'0.20.3'", &["sklearn".into()], 1, &mut out);
        assert!(matches!(&out[0], OutputEvidence::Version { version, .. } if version == "0.20.3"));
    }
}
