//! Pre-flight triage: what can be told about a notebook's chances without running it.
//! Parseable or not, Python 2 or not, which third-party imports resolve, which local
//! modules and data files are missing, whether it needs the network, and the errors it
//! stored when it was last run. Pipelines rank notebooks on this before paying for runs.
//!
//! Everything comes from the notebook stage's [`Usage`] and, at stage infer, the
//! resolution's import decisions; the file system is asked only whether the files the code
//! reads exist beside the notebook.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::names::ModulePath;
use crate::notebook::failure::FailureClass;
use crate::notebook::{
    FileAccess, Installer, Location, NetworkKind, NoteKind, OutputEvidence, Usage,
};
use crate::resolve::evidence::{ImportDecision, ImportOutcome, Unresolved};

/// The static status of one notebook.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Triage {
    /// Every code cell parses (as IPython does: magics and shell lines included).
    pub parseable: bool,
    /// The first syntax error of each cell that does not parse.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub syntax_errors: Vec<Location>,
    /// Written for Python 2: its syntax, builtins or kernel say so.
    pub python2: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub python2_evidence: Option<String>,
    /// Top-level third-party import names.
    pub imports: Vec<ModulePath>,
    /// Those no distribution credibly provides, with why (stage infer and later; absent
    /// when not resolved).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unresolved_imports: Option<Vec<UnresolvedImport>>,
    /// Relative imports with no module beside the notebook.
    pub local_modules_missing: Vec<ModulePath>,
    /// Files the code reads by a literal path.
    pub data_files: Vec<DataFile>,
    pub network: Vec<NetworkUse>,
    /// The errors its stored outputs show, classified.
    pub stored_errors: Vec<StoredError>,
}

impl Triage {
    pub fn missing_data_files(&self) -> impl Iterator<Item = &DataFile> {
        self.data_files
            .iter()
            .filter(|f| f.state == FileState::Missing)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnresolvedImport {
    pub import: ModulePath,
    /// `no_provider`, `providers_lack_apis`, `only_avoided`, `not_on_py_pi`.
    pub reason: String,
}

/// Whether a file the notebook reads is there for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FileState {
    /// Beside the notebook (or at its absolute path).
    Present,
    /// Written by the notebook before it is read.
    Written,
    Missing,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DataFile {
    pub path: String,
    pub call: String,
    pub at: Location,
    pub state: FileState,
}

/// How a notebook uses the network.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NetworkUseKind {
    /// A URL in the code.
    Url,
    /// A network client call (`requests.get`).
    Request,
    /// A library call that fetches data or a model (`seaborn.load_dataset`, `from_pretrained`).
    Fetch,
    /// A shell download (`!wget`, `!curl`, `!kaggle`).
    Download,
    /// `!git clone`.
    Clone,
    /// `!pip install`, `%conda install`.
    Install,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NetworkUse {
    pub kind: NetworkUseKind,
    pub detail: String,
    pub at: Location,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredError {
    pub cell: u32,
    pub ename: String,
    /// The classifier's class, when it could place the error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<FailureClass>,
}

/// Triage from the notebook's analysis; `file` is the notebook's file, whose folder its
/// relative paths are read against.
pub fn triage(usage: &Usage, file: &Path) -> Triage {
    let dir = match file.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let (python2, python2_evidence) = python2(usage);
    Triage {
        parseable: usage.warnings.is_empty(),
        // A warning of the usage analysis is a cell that did not parse.
        syntax_errors: usage.warnings.iter().map(|w| w.at).collect(),
        python2,
        python2_evidence,
        imports: usage.third_party.iter().map(|t| t.name.clone()).collect(),
        unresolved_imports: None,
        local_modules_missing: missing_local_modules(usage),
        data_files: data_files(usage, dir),
        network: network(usage),
        stored_errors: stored_errors(usage),
    }
}

/// Adds what resolution decided about each import name.
pub fn add_resolution(triage: &mut Triage, decisions: &[ImportDecision]) {
    let unresolved = decisions
        .iter()
        .filter_map(|d| match &d.outcome {
            ImportOutcome::Unresolved(why) => {
                let reason = match why {
                    // A module beside the notebook is the notebook's own, not a problem.
                    Unresolved::LocalModule { .. } => return None,
                    Unresolved::NoProvider => "no_provider",
                    Unresolved::ProvidersLackApis { .. } => "providers_lack_apis",
                    Unresolved::OnlyAvoided { .. } => "only_avoided",
                    Unresolved::NotOnPyPi { .. } => "not_on_py_pi",
                };
                Some(UnresolvedImport {
                    import: d.import.clone(),
                    reason: reason.to_string(),
                })
            }
            ImportOutcome::Provided { .. } => None,
        })
        .collect();
    triage.unresolved_imports = Some(unresolved);
}

/// Python 2 syntax or builtins that are not in tolerant code, or a kernel or
/// `language_info` that says Python 2.
fn python2(usage: &Usage) -> (bool, Option<String>) {
    match usage.python.python2() {
        Some(h) => {
            let place = h.at.map(|a| format!(" at {a}")).unwrap_or_default();
            (true, Some(format!("{}{place}", h.detail)))
        }
        None => (false, None),
    }
}

/// Relative imports (`from .utils import f`) of modules not beside the notebook nor written by
/// it.
fn missing_local_modules(usage: &Usage) -> Vec<ModulePath> {
    let mut out: Vec<ModulePath> = Vec::new();
    for import in usage.imports.iter().filter(|i| i.level > 0) {
        let top = import.module.top_level();
        let found = usage.local_modules.iter().any(|m| m.name == top);
        if !found && !out.iter().any(|m| m.as_str() == top) {
            if let Ok(m) = ModulePath::new(top) {
                out.push(m);
            }
        }
    }
    out
}

fn data_files(usage: &Usage, dir: &Path) -> Vec<DataFile> {
    usage
        .files
        .iter()
        .filter(|f| f.access == FileAccess::Read)
        .map(|f| {
            let written_before = usage.files.iter().any(|w| {
                w.access == FileAccess::Write && w.at < f.at && same_path(&w.path, &f.path)
            });
            let state = if written_before {
                FileState::Written
            } else if dir.join(&f.path).exists() {
                FileState::Present
            } else {
                FileState::Missing
            };
            DataFile {
                path: f.path.clone(),
                call: f.call.clone(),
                at: f.at,
                state,
            }
        })
        .collect()
}

fn same_path(a: &str, b: &str) -> bool {
    a.trim_start_matches("./") == b.trim_start_matches("./")
}

fn network(usage: &Usage) -> Vec<NetworkUse> {
    let mut out: Vec<NetworkUse> = usage
        .network
        .iter()
        .map(|n| NetworkUse {
            kind: match n.kind {
                NetworkKind::Url => NetworkUseKind::Url,
                NetworkKind::Request => NetworkUseKind::Request,
                NetworkKind::Fetch => NetworkUseKind::Fetch,
            },
            detail: n.detail.clone(),
            at: n.at,
        })
        .collect();
    for note in &usage.notes {
        let kind = match note.kind {
            NoteKind::DataDownload => NetworkUseKind::Download,
            NoteKind::ModelDownload => NetworkUseKind::Fetch,
            NoteKind::GitClone => NetworkUseKind::Clone,
            _ => continue,
        };
        out.push(NetworkUse {
            kind,
            detail: note.detail.clone(),
            at: note.at,
        });
    }
    for r in &usage.requirements {
        // A requirements file the notebook writes is installed only if a later line says so.
        if r.command.starts_with("%%writefile") {
            continue;
        }
        if matches!(r.installer, Installer::Pip | Installer::Conda) {
            out.push(NetworkUse {
                kind: NetworkUseKind::Install,
                detail: r.command.clone(),
                at: r.at,
            });
        }
    }
    out.sort_by_key(|n| n.at);
    out.dedup_by(|a, b| a.at == b.at && a.detail == b.detail);
    out
}

fn stored_errors(usage: &Usage) -> Vec<StoredError> {
    usage
        .outputs
        .iter()
        .filter_map(|o| match o {
            OutputEvidence::Error {
                ename,
                cell,
                failure,
                ..
            } => Some(StoredError {
                cell: *cell,
                ename: ename.clone(),
                class: failure.as_ref().map(|f| f.class),
            }),
            _ => None,
        })
        .collect()
}
