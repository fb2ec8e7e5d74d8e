//! `modernize`: the notebook's code moved to the successors the bank proves, written to a new
//! notebook (never over the input), with the diff of its code cells and the report
//! ([`rewrite`]); then, unless only rewriting, the modernized notebook restored on the newest
//! installed Python ([`restore`]), which may keep or drop its candidates and move its code
//! further forward. Two steps, so that the caller can show the rewrite while the rounds run.

mod candidates;
mod settings;

pub use candidates::CandidateRuns;
pub use settings::{ModernizeSettings, ReportFormat};

use std::path::Path;

use serde::Serialize;

use crate::bank::store::Store;
use crate::modernize::modules::{modernize_modules, modules_dir};
use crate::modernize::trial::{try_candidates, CandidatesKept};
use crate::modernize::{modernize, Facts, Modernized, Report};
use crate::notebook::{self, AnalyzeOptions, FileOverride, Notebook, NotebookError};
use crate::output::{write_atomically, WriteError};
use crate::reporter::Reporter;
use crate::resolve::options::{EraChoice, InferOptions};
use crate::resolve::session::{read_usages_of, InferRun};

use super::restore::{finish, RestoreOutcome, Rig};
use super::{CommandError, GlobalSettings};
use crate::output::same_file;

/// The notebook as read and as modernized, and the report as written.
pub struct Rewritten {
    pub nb: Notebook,
    pub bytes: Vec<u8>,
    pub modernized: Modernized,
    /// The report, as `report_format` says (the diff first, as text).
    pub text: String,
}

/// What the run of the modernized notebook did to it.
pub struct Restored {
    /// The notebook as kept: moved further forward by a run, its candidates settled.
    pub modernized: Modernized,
    /// It was written with its candidates.
    pub with_candidates: bool,
    /// A run moved its code further forward (it was written again).
    pub moved_forward: bool,
    pub candidates: Option<CandidatesKept>,
    /// The report as written last.
    pub text: String,
    pub restored: RestoreOutcome,
}

/// What `--format json` prints of a modernization.
#[derive(Serialize)]
pub struct ReportDocument<'a> {
    output: &'a Path,
    /// Where the moved local modules were written, when some moved.
    #[serde(skip_serializing_if = "Option::is_none")]
    modules_written: Option<std::path::PathBuf>,
    diff: &'a str,
    #[serde(flatten)]
    report: &'a Report,
}

impl<'a> ReportDocument<'a> {
    pub fn of(output: &'a Path, done: &'a Modernized, candidates: bool) -> Self {
        let written = done.written(candidates);
        Self {
            output,
            modules_written: (!written.modules.is_empty()).then(|| modules_dir(output)),
            diff: &written.diff,
            report: &done.report,
        }
    }
}

/// Reads, indexes where asked, modernizes, and writes the outputs (with the candidates when
/// a run will decide on them).
pub fn rewrite(
    global: &GlobalSettings,
    settings: &ModernizeSettings,
    reporter: &dyn Reporter,
) -> Result<Rewritten, CommandError> {
    for (flag, path) in [
        ("--output", Some(&settings.output)),
        ("--diff", settings.diff.as_ref()),
        ("--report", settings.report.as_ref()),
    ] {
        if let Some(path) = path.filter(|p| same_file(p, &settings.notebook)) {
            return Err(CommandError::WritesInput {
                flag,
                path: path.clone(),
            });
        }
    }
    let bytes = std::fs::read(&settings.notebook).map_err(|source| NotebookError::Io {
        path: settings.notebook.clone(),
        source,
    })?;
    let nb = notebook::from_bytes(&settings.notebook, &bytes)?;
    let analyze = AnalyzeOptions::default();
    // Its local modules move with it.
    let usages = notebook::with_local_imports(
        settings.notebook.display().to_string(),
        notebook::analyze(&nb, &analyze),
        &analyze,
        settings.notebook.parent().unwrap_or(Path::new("")),
    );
    let usage = &usages[0].1;
    if let Some(within) = settings.index.filter(|_| !global.offline()) {
        index_evidence(global, &settings.notebook, within, &nb, reporter)?;
    }
    let store = Store::open_read_only(&global.bank)?;
    let facts = Facts::gather(&store, usage)?;
    let name = settings.output.display().to_string();
    let modules = modernize_modules(&store, &usages)?;
    let mut modernized = modernize(&nb, &bytes, usage, &facts, &name)?.with_modules(modules);
    let run = settings.restore.is_some();
    if !run {
        // A candidate is kept only when a run passes with it: none will.
        modernized.report.settle(None);
    }
    let text = write_outputs(settings, &modernized, run)?;
    Ok(Rewritten {
        nb,
        bytes,
        modernized,
        text,
    })
}

/// Restores the modernized notebook as `settings.restore` says: with its candidates first
/// when it has some; writes the notebook kept (and its diff and report) again.
pub fn restore(
    global: &GlobalSettings,
    settings: &ModernizeSettings,
    rewritten: Rewritten,
    reporter: &dyn Reporter,
) -> Result<Restored, CommandError> {
    let restore = settings
        .restore
        .as_ref()
        .expect("restore is asked for with its settings");
    let rig = Rig::open(global, restore)?;
    let Rewritten {
        nb,
        bytes,
        mut modernized,
        ..
    } = rewritten;
    let mut steps = CandidateRuns {
        rig: &rig,
        settings: restore,
        output: &settings.output,
        done: &modernized,
        original: (&nb, &bytes),
        reporter,
    };
    let tried = try_candidates(&mut steps, modernized.has_candidates());
    if let Some(Ok(other)) = &tried.set_aside {
        other.discard(&rig.envs);
    }
    let with_candidates = tried.candidates.is_some_and(CandidatesKept::written);
    // The code the kept rounds ran last: moved forward by a run, or as modernized.
    let forwarded = match &tried.kept {
        Ok(a) => a.restored.forwarded.as_ref().map(|f| f.modernized.clone()),
        Err(_) => None,
    };
    let moved_forward = forwarded.is_some();
    if let Some(f) = forwarded {
        modernized = f;
    }
    modernized.report.settle(tried.candidates);
    // The notebook kept, as the last restoration may have written the other.
    let text = write_outputs(settings, &modernized, with_candidates)?;
    match tried.candidates {
        Some(CandidatesKept::Kept) => reporter.note(
            "the modernized notebook ran to the end with its candidates: they are kept",
            None,
        ),
        Some(CandidatesKept::Dropped) => reporter.note(
            "the modernized notebook did not run to the end with its candidates: they are dropped, and it was restored without them",
            None,
        ),
        None => {}
    }
    let restored = finish(global, &rig, restore, tried.kept?, None, reporter)?;
    Ok(Restored {
        modernized,
        with_candidates,
        moved_forward,
        candidates: tried.candidates,
        text,
        restored,
    })
}

/// Writes the modernized notebook (with its candidates or not) to the output, and the diff
/// and the report where asked; returns the report's text.
fn write_outputs(
    settings: &ModernizeSettings,
    done: &Modernized,
    candidates: bool,
) -> Result<String, CommandError> {
    let written = done.written(candidates);
    write_atomically(&settings.output, &written.notebook)?;
    let modules = modules_dir(&settings.output);
    if !written.modules.is_empty() {
        write_modules(&modules, &written.modules)?;
    }
    if let Some(path) = &settings.diff {
        write_atomically(path, written.diff.as_bytes())?;
    }
    let text = match settings.report_format {
        ReportFormat::Json => {
            crate::output::json_document(&ReportDocument::of(&settings.output, done, candidates))
                .expect("a report serializes")
        }
        ReportFormat::Text => {
            let mut t = written.diff.clone();
            if !t.is_empty() {
                t.push('\n');
            }
            t.push_str(&done.report.render());
            t.push_str(&format!("Wrote {}\n", settings.output.display()));
            if !written.modules.is_empty() {
                t.push_str(&format!(
                    "Wrote the moved local modules under {}: the modernized runs read them in place of the originals, which are not touched (copy them over the originals to run the notebook as it ran)\n",
                    modules.display()
                ));
            }
            t
        }
    };
    if let Some(path) = &settings.report {
        write_atomically(path, text.as_bytes())?;
    }
    Ok(text)
}

/// Writes `modules` under `dir`, each at its path relative to the notebook's folder; the
/// user's own files are not touched.
pub fn write_modules(dir: &Path, modules: &[FileOverride]) -> Result<(), WriteError> {
    for m in modules {
        let path = dir.join(&m.relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|source| WriteError::Io {
                path: parent.to_path_buf(),
                source,
            })?;
        }
        write_atomically(&path, m.text.as_bytes())?;
    }
    Ok(())
}

/// Indexes what the moves need to be seen (see [`crate::modernize::prepare::index_evidence`]):
/// the moves are to today's releases, so the notebook's era does not steer what is indexed.
fn index_evidence(
    global: &GlobalSettings,
    notebook: &Path,
    within: std::time::Duration,
    nb: &Notebook,
    reporter: &dyn Reporter,
) -> Result<(), CommandError> {
    let options = InferOptions {
        era: EraChoice::Off,
        ..InferOptions::new(notebook.to_path_buf())
    };
    let usages = read_usages_of(&options, Some(nb), reporter)?;
    let session = global.open_session(&options)?;
    crate::modernize::prepare::index_evidence(
        &session,
        &options,
        &usages,
        InferRun::default(),
        within,
        reporter,
    )?;
    Ok(())
}
