//! The notebook as nbenv sees it, whatever file it came from: cells in file order with their
//! sources, stored outputs and the metadata that speaks about the environment.

use std::path::PathBuf;

use serde::Serialize;

/// A notebook (or script) read into memory.
#[derive(Debug, Clone, Serialize)]
pub struct Notebook {
    /// The file it was read from; every message and location refers to it.
    pub path: PathBuf,
    pub format: SourceFormat,
    /// `metadata.kernelspec`, if present.
    pub kernel: Option<Kernel>,
    /// `metadata.language_info.version` as written (`3.6.8`).
    pub language_version: Option<String>,
    /// All cells in file order (code, markdown and raw), numbered from 1.
    pub cells: Vec<Cell>,
}

impl Notebook {
    /// `cell 68 (code cell 29 of 78)`: a cell as every message numbers it, the number a
    /// reader of the file sees and its place among the code cells that run.
    pub fn cell_label(&self, cell: u32) -> String {
        let code: Vec<u32> = self
            .cells
            .iter()
            .filter(|c| c.is_nonempty_code())
            .map(|c| c.number)
            .collect();
        match code.iter().position(|&n| n == cell) {
            Some(i) => format!("cell {cell} (code cell {} of {})", i + 1, code.len()),
            None => format!("cell {cell}"),
        }
    }
}

/// Which kind of file a notebook came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum SourceFormat {
    /// An `.ipynb` file; nbformat 1–3 keep cells in worksheets, 4 in a flat list.
    Ipynb { nbformat: u32, nbformat_minor: u32 },
    /// A jupytext percent script: cells start at `# %%` lines.
    PercentScript,
    /// A plain Python script (split at nbconvert's `# In[ ]:` markers when present).
    Script,
}

/// `metadata.kernelspec`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Kernel {
    pub name: Option<String>,
    pub display_name: Option<String>,
    pub language: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CellKind {
    Code,
    Markdown,
    Raw,
    /// nbformat 3 heading cells and cell types nbenv does not know.
    Other,
}

/// One cell. `number` counts all cells of the file from 1, as a reader of the notebook sees
/// them, so locations stay meaningful next to markdown cells.
#[derive(Debug, Clone, Serialize)]
pub struct Cell {
    pub number: u32,
    pub kind: CellKind,
    /// The cell's text, joined when the file stores it as a list of lines.
    pub source: String,
    /// `execution_count` (nbformat 4) or `prompt_number` (nbformat 3).
    pub execution_count: Option<u32>,
    pub outputs: Vec<Output>,
}

impl Cell {
    /// A code cell with something other than whitespace in it.
    pub fn is_nonempty_code(&self) -> bool {
        self.kind == CellKind::Code && !self.source.trim().is_empty()
    }
}

/// A stored output, reduced to the text nbenv can learn from (images are dropped while reading).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Output {
    /// Printed text (`stream` in nbformat 4 and 3).
    Stream { name: StreamName, text: String },
    /// The `text/plain` of an `execute_result` (`pyout` in nbformat 3) or `display_data`.
    Data { text: String },
    /// An exception (`error` in nbformat 4, `pyerr` in nbformat 3).
    Error {
        ename: String,
        evalue: String,
        traceback: Vec<String>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StreamName {
    Stdout,
    Stderr,
}
