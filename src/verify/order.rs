//! The execution counts stored in the notebook: evidence of the order its author ran the
//! cells in. A count lower than one above it means the cell below ran first; a notebook so
//! written may fail top-down for reasons no environment fixes.

use serde::Serialize;

use crate::notebook::Notebook;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StoredCount {
    pub cell: u32,
    pub count: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ExecutionOrder {
    /// The non-empty code cells' stored counts, in file order.
    pub counts: Vec<StoredCount>,
    /// Cells whose count is lower than that of a cell above them.
    pub out_of_order: Vec<u32>,
    /// Cells saved without a count (never run, or outputs cleared).
    pub unexecuted: Vec<u32>,
    /// Counts missing between consecutive executed cells: re-runs or deleted cells.
    pub skipped_counts: u32,
}

impl ExecutionOrder {
    pub fn of(nb: &Notebook) -> Self {
        let counts: Vec<StoredCount> = nb
            .cells
            .iter()
            .filter(|c| c.is_nonempty_code())
            .map(|c| StoredCount {
                cell: c.number,
                count: c.execution_count,
            })
            .collect();
        let mut out_of_order = Vec::new();
        let mut unexecuted = Vec::new();
        let mut skipped = 0;
        let mut highest: Option<u32> = None;
        let mut previous: Option<u32> = None;
        for c in &counts {
            let Some(n) = c.count else {
                unexecuted.push(c.cell);
                continue;
            };
            if highest.is_some_and(|h| n < h) {
                out_of_order.push(c.cell);
            }
            if let Some(p) = previous {
                if n > p + 1 {
                    skipped += n - p - 1;
                }
            }
            highest = Some(highest.map_or(n, |h| h.max(n)));
            previous = Some(n);
        }
        Self {
            counts,
            out_of_order,
            unexecuted,
            skipped_counts: skipped,
        }
    }

    /// Every executed cell ran after the ones above it.
    pub fn in_order(&self) -> bool {
        self.out_of_order.is_empty()
    }
}
