//! Where evidence was found.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A place in a notebook: the cell (numbered from 1 over all cells of the file, markdown
/// included, as they appear in the file) and the line within that cell's source (from 1).
/// For percent scripts the `# %%` marker line is not part of the cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Location {
    pub cell: u32,
    pub line: u32,
}

impl Location {
    pub const fn new(cell: u32, line: u32) -> Self {
        Self { cell, line }
    }
}

/// `cell:line`, as in `3:12`.
impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.cell, self.line)
    }
}
