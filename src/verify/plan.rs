//! What the runner is asked to do, built from the notebook and the options alone (no
//! process, no file system): the runner reads it as JSON on its stdin.

use serde::Serialize;

use super::options::{KernelMode, RunOptions};
use super::plain::plain_source;
use crate::notebook::Notebook;

/// The runner's input.
#[derive(Debug, Clone, Serialize)]
pub struct RunPlan {
    pub cells: Vec<PlannedCell>,
    /// Seconds.
    pub cell_timeout: f64,
    pub output_cap: usize,
    pub mode: KernelMode,
    pub keep_going: bool,
    pub run_installs: bool,
    /// Folders put on `sys.path` after the working directory, relative to it.
    pub sys_path: Vec<String>,
}

/// One non-empty code cell: its source for IPython, and the same as plain Python.
#[derive(Debug, Clone, Serialize)]
pub struct PlannedCell {
    /// The cell's number in the notebook (markdown cells counted).
    pub index: u32,
    pub source: String,
    pub plain: String,
}

impl RunPlan {
    pub fn new(nb: &Notebook, opts: &RunOptions) -> Self {
        let mut cells: Vec<PlannedCell> = nb
            .cells
            .iter()
            .filter(|c| c.is_nonempty_code())
            .map(|c| PlannedCell {
                index: c.number,
                source: c.source.clone(),
                plain: plain_source(&c.source),
            })
            .collect();
        if !opts.order.is_page() {
            let page: Vec<u32> = cells.iter().map(|c| c.index).collect();
            let order = opts.order.apply(&page);
            cells.sort_by_key(|c| order.iter().position(|&o| o == c.index));
        }
        Self {
            cells,
            cell_timeout: opts.cell_timeout.as_secs_f64(),
            output_cap: opts.output_cap,
            mode: opts.kernel,
            keep_going: opts.keep_going,
            run_installs: opts.run_installs,
            sys_path: opts
                .sys_path
                .iter()
                .map(|p| p.display().to_string())
                .collect(),
        }
    }
}
