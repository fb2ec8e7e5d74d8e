//! Reproduction: did the cells that ran print what the notebook stored? Each executed cell's
//! text outputs (stdout and `text/plain` values) are compared with the stored ones, both
//! [normalized](super::normalize). A cell is reproduced when its stdout and its displayed
//! values all match. Stderr (warnings, progress bars) is diagnostics and is not compared.

use serde::Serialize;

use super::cell_run::CellRun;
use super::normalize::normalize;
use crate::notebook::{Notebook, Output, StreamName};

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Reproduction {
    /// Cells that ran without error and have stored text outputs.
    pub compared: u32,
    pub reproduced: u32,
    pub cells: Vec<CellComparison>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CellComparison {
    pub cell: u32,
    pub reproduced: bool,
    /// The first normalized text that differs, stored and produced.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub difference: Option<Difference>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Difference {
    pub stored: String,
    pub produced: String,
}

/// The comparable texts of a cell's outputs: stdout (joined), then each displayed value.
fn texts(outputs: &[Output]) -> (String, Vec<String>) {
    let mut stdout = String::new();
    let mut data = Vec::new();
    for o in outputs {
        match o {
            Output::Stream {
                name: StreamName::Stdout,
                text,
            } => stdout.push_str(text),
            Output::Data { text } => data.push(normalize(text)),
            _ => {}
        }
    }
    (normalize(&stdout), data)
}

/// Keeps differences readable in reports.
fn clip(s: &str) -> String {
    const MAX: usize = 200;
    if s.chars().count() <= MAX {
        s.to_string()
    } else {
        let mut c: String = s.chars().take(MAX).collect();
        c.push('…');
        c
    }
}

pub fn compare(nb: &Notebook, runs: &[CellRun]) -> Reproduction {
    let mut cells = Vec::new();
    for run in runs.iter().filter(|r| r.ok()) {
        let Some(cell) = nb.cells.iter().find(|c| c.number == run.cell) else {
            continue;
        };
        let (stored_out, stored_data) = texts(&cell.outputs);
        if stored_out.is_empty() && stored_data.is_empty() {
            continue;
        }
        let (out, data) = texts(&run.outputs);
        let difference = if stored_out != out {
            Some(Difference {
                stored: clip(&stored_out),
                produced: clip(&out),
            })
        } else if stored_data != data {
            let i = stored_data
                .iter()
                .zip(&data)
                .position(|(a, b)| a != b)
                .unwrap_or(stored_data.len().min(data.len()));
            Some(Difference {
                stored: clip(stored_data.get(i).map_or("", String::as_str)),
                produced: clip(data.get(i).map_or("", String::as_str)),
            })
        } else {
            None
        };
        cells.push(CellComparison {
            cell: run.cell,
            reproduced: difference.is_none(),
            difference,
        });
    }
    Reproduction {
        compared: cells.len() as u32,
        reproduced: cells.iter().filter(|c| c.reproduced).count() as u32,
        cells,
    }
}

impl Reproduction {
    /// Reproduced over compared; `None` when nothing could be compared.
    pub fn share(&self) -> Option<f64> {
        (self.compared > 0).then(|| f64::from(self.reproduced) / f64::from(self.compared))
    }
}
