//! `infer`: the distributions, versions and Python a notebook was written for, as a
//! requirements file whose every pin says why, a hashed lock, a `pylock.toml`, or one JSON
//! document with all the evidence. What it could not do is said through the reporter.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::output::{json_document, lock_txt, pylock_toml, requirements_txt};
use crate::reporter::Reporter;
use crate::resolve::infer::{self, InferError, Inference};
use crate::resolve::interpreter::PythonChoice;
use crate::resolve::lazy;
use crate::resolve::options::InferOptions;
use crate::resolve::session::{infer_usages, read_usages, InferSession, SessionError};
use crate::resolve::solver::IndexCatalog;

use super::{CommandError, GlobalSettings};

/// What `infer` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InferFormat {
    /// requirements.txt: pins with their evidence as comments, the chosen Python in the header.
    Requirements,
    /// The full transitive closure pinned, with the sha256 of every file.
    Lock,
    /// The same closure as a PEP 751 `pylock.toml`.
    Pylock,
    /// One JSON document with the evidence, the choice of Python and the full resolution.
    Json,
}

#[derive(Debug, Clone)]
pub struct InferSettings {
    pub options: InferOptions,
    pub format: InferFormat,
    /// Each distribution's compatible versions instead of pins (requirements only).
    pub ranges: bool,
}

/// Why `infer` wrote no resolution; with `--format json`, the document that says why.
#[derive(Debug)]
pub struct InferFailed {
    pub error: Box<CommandError>,
    /// `--format json`'s document when nothing satisfies the notebook: a program reading
    /// the JSON learns why there is none, as a person reads stderr.
    pub document: Option<String>,
}

impl<E: Into<CommandError>> From<E> for InferFailed {
    fn from(e: E) -> Self {
        Self {
            error: Box::new(e.into()),
            document: None,
        }
    }
}

/// The resolution of `settings.options.notebook`, as `settings.format` says.
pub fn run(
    global: &GlobalSettings,
    settings: &InferSettings,
    reporter: &dyn Reporter,
) -> Result<Vec<u8>, InferFailed> {
    if settings.ranges && settings.format != InferFormat::Requirements {
        return Err(CommandError::RangesNeedRequirements.into());
    }
    let opts = &settings.options;
    let usages = read_usages(opts, reporter)?;
    let session = global.open_session(opts)?;
    let found = match infer_usages(opts, &session, &usages, &[], reporter) {
        Ok(found) => found,
        Err(e) => {
            let document = (settings.format == InferFormat::Json)
                .then(|| NoSolutionJson::of(&opts.notebook, &e))
                .flatten()
                .map(|d| json_document(&d).expect("a failure serializes"));
            return Err(InferFailed {
                error: Box::new(e.into()),
                document,
            });
        }
    };
    say_what_was_chosen(&found.inference, reporter);
    let text = document(settings, &session, &found.inference, &found.read, reporter)?;
    Ok(text)
}

/// Notes and warnings on what the resolution could not do as asked.
fn say_what_was_chosen(inference: &Inference, reporter: &dyn Reporter) {
    if inference.python.installed.is_none() {
        reporter.note(
            &format!(
                "resolved for Python {}, which is not installed here{}",
                inference.python.version,
                if inference.python_choice == PythonChoice::Requested {
                    ""
                } else {
                    " (`nbenv restore` runs the notebook on the installed one nearest it)"
                }
            ),
            None,
        );
    }
    if let Some(built) = crate::output::sdist_builds(inference) {
        reporter.note(
            &format!(
                "no resolution from wheels alone on any Python the notebook allows; \
                 built from their sdists: {built} (--wheels-only refuses this)"
            ),
            None,
        );
    }
    for d in &inference.evidence.distributions {
        for r in d.dropped() {
            reporter.warn(
                &format!(
                    "{}: {} ({}; dropped)",
                    d.dist,
                    infer::describe(r),
                    r.dropped_why().map_or("", |w| w.describe())
                ),
                None,
            );
        }
    }
}

/// The resolution written as `settings.format` says.
fn document(
    settings: &InferSettings,
    session: &InferSession,
    inference: &Inference,
    read: &lazy::LazyReport,
    reporter: &dyn Reporter,
) -> Result<Vec<u8>, CommandError> {
    let notebook = settings.options.notebook.display().to_string();
    Ok(match settings.format {
        InferFormat::Requirements => {
            let ranges = if settings.ranges {
                let catalog = IndexCatalog::new(&session.client);
                let options = inference.options_used(&session.solve_options);
                Some(infer::compatible_ranges(inference, &catalog, &options)?)
            } else {
                None
            };
            requirements_txt(inference, &notebook, ranges.as_deref()).into_bytes()
        }
        InferFormat::Lock => {
            let (text, unhashed) = lock_txt(inference, &notebook);
            if !unhashed.is_empty() {
                reporter.warn(
                    &format!(
                        "the index gives no hash for {}: pip's --require-hashes will refuse this lock",
                        unhashed.join(", ")
                    ),
                    None,
                );
            }
            text.into_bytes()
        }
        InferFormat::Pylock => {
            let index = session.client.index_url();
            let (text, unhashed) = pylock_toml(inference, &notebook, Some(index.as_str()))?;
            if !unhashed.is_empty() {
                reporter.warn(
                    &format!(
                        "the index gives no hash for files of {}: they are left out of the lock",
                        unhashed.join(", ")
                    ),
                    None,
                );
            }
            text.into_bytes()
        }
        InferFormat::Json => json_document(&InferJson {
            inference,
            read,
            unknown_at_pins: lazy::hinging(inference, &session.bank)?,
        })
        .expect("an inference serializes")
        .into_bytes(),
    })
}

/// `--format json` when nothing satisfies the notebook (exit 20): why, per interpreter tried.
#[derive(Serialize)]
struct NoSolutionJson<'a> {
    notebook: &'a Path,
    error: NoSolutionError<'a>,
}

#[derive(Serialize)]
struct NoSolutionError<'a> {
    kind: &'static str,
    message: String,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    tried: &'a [infer::PassedOver],
}

impl<'a> NoSolutionJson<'a> {
    fn of(notebook: &'a PathBuf, e: &'a SessionError) -> Option<Self> {
        let (kind, tried): (_, &[infer::PassedOver]) = match e.infer_error()? {
            InferError::NoSolution { tried } => ("no_solution", tried),
            InferError::NoInterpreter { .. } => ("no_interpreter", &[]),
            InferError::Joint(_) => ("joint_conflict", &[]),
            _ => return None,
        };
        Some(Self {
            notebook,
            error: NoSolutionError {
                kind,
                message: chain(e),
                tried,
            },
        })
    }
}

/// An error and its causes, as `outer: cause: cause`.
fn chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        out.push_str(": ");
        out.push_str(&c.to_string());
        cause = c.source();
    }
    out
}

/// `--format json`: the inference, what was indexed and introspected to reach it, and the
/// answers still unknown at the pins.
#[derive(Serialize)]
struct InferJson<'a> {
    #[serde(flatten)]
    inference: &'a Inference,
    read: &'a lazy::LazyReport,
    unknown_at_pins: Vec<lazy::Hinging>,
}
