//! Executability (Nguyen et al.): the cells that ran before the first error, over the
//! notebook's non-empty code cells.

use serde::Serialize;

use super::cell_run::CellRun;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Executability {
    pub cells_before_first_error: u32,
    pub code_cells: u32,
    /// The cell that failed first, if one did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_error_cell: Option<u32>,
}

impl Executability {
    pub fn of(cells: &[CellRun], code_cells: u32) -> Self {
        let first_error = cells.iter().position(|c| !c.ok());
        Self {
            cells_before_first_error: first_error.unwrap_or(cells.len()) as u32,
            code_cells,
            first_error_cell: first_error.map(|i| cells[i].cell),
        }
    }

    /// Between 0 and 1; 1 for a notebook without code cells.
    pub fn share(&self) -> f64 {
        if self.code_cells == 0 {
            1.0
        } else {
            f64::from(self.cells_before_first_error) / f64::from(self.code_cells)
        }
    }

    /// Every code cell ran without error.
    pub fn complete(&self) -> bool {
        self.first_error_cell.is_none() && self.cells_before_first_error == self.code_cells
    }
}
