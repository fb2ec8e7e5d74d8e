//! The usage stage of a batch, on which every later stage builds: read the notebook, analyse
//! it, triage it. A notebook that cannot be read becomes a record with status `error` and the
//! reason, never an error of the batch.

use std::time::Instant;

use super::input::NotebookInput;
use super::record::{millis, ErrorKind, NotebookFacts, Record, Stage};
use super::triage::triage;
use crate::notebook::failure::ApiHistory;
use crate::notebook::{self, AnalyzeOptions, Notebook, NotebookError, SourceFormat, Usage};

/// A notebook read and analysed, with its record so far.
pub struct Analysed {
    pub record: Record,
    pub notebook: Notebook,
    pub usage: Usage,
}

/// Reads and analyses one notebook for a record at `stage`; `declarations` also reads what the
/// repository around it declares (evidence for resolution); `bank`, when one is at hand,
/// tells the stored errors that another release would fix from the code's own. `Err` is the
/// finished record of a notebook that could not be read.
pub fn analyse(
    input: &NotebookInput,
    bytes: &[u8],
    sha256: String,
    stage: Stage,
    options: &AnalyzeOptions,
    declarations: bool,
    bank: Option<&dyn ApiHistory>,
) -> Result<Analysed, Box<Record>> {
    let started = Instant::now();
    let mut record = Record::new(input.path.clone(), Some(sha256), stage);
    let nb = match notebook::from_bytes(&input.file, bytes) {
        Ok(nb) => nb,
        Err(e) => {
            record.failed(error_kind(&e), e.to_string());
            record.timings.total_ms = millis(started.elapsed());
            return Err(Box::new(record));
        }
    };
    let mut usage = notebook::analyze(&nb, options);
    if bank.is_some() {
        notebook::classify_stored_errors(&nb, &mut usage, bank);
    }
    if declarations {
        usage.attach_declarations(notebook::read_declarations(&input.file));
    }
    record.notebook = Some(facts(&nb, &usage));
    record.triage = Some(triage(&usage, &input.file));
    let elapsed = millis(started.elapsed());
    record.timings.analyze_ms = Some(elapsed);
    record.timings.total_ms = elapsed;
    Ok(Analysed {
        record,
        notebook: nb,
        usage,
    })
}

/// The record of a notebook whose file could not be read at all.
pub fn unreadable(input: &NotebookInput, stage: Stage, error: &std::io::Error) -> Record {
    let mut record = Record::new(input.path.clone(), None, stage);
    record.failed(
        ErrorKind::Unreadable,
        format!("cannot read {}: {error}", input.file.display()),
    );
    record
}

pub fn error_kind(e: &NotebookError) -> ErrorKind {
    match e {
        NotebookError::Io { .. } => ErrorKind::Unreadable,
        NotebookError::BrokenJson { .. } => ErrorKind::BrokenJson,
        NotebookError::NotANotebook { .. } => ErrorKind::NotANotebook,
        NotebookError::Empty { .. } => ErrorKind::Empty,
        NotebookError::NotPython { .. } => ErrorKind::NotPython,
    }
}

fn facts(nb: &Notebook, usage: &Usage) -> NotebookFacts {
    NotebookFacts {
        format: match nb.format {
            SourceFormat::Ipynb {
                nbformat,
                nbformat_minor,
            } => format!("ipynb {nbformat}.{nbformat_minor}"),
            SourceFormat::PercentScript => "percent script".into(),
            SourceFormat::Script => "script".into(),
        },
        cells: usage.notebook.cells,
        code_cells: usage.notebook.code_cells,
        kernel: nb.kernel.as_ref().and_then(|k| k.name.clone()),
        language_version: nb.language_version.clone(),
    }
}
