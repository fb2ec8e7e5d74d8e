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

    /// The count stored for cell `cell`, if it has one.
    pub fn count(&self, cell: u32) -> Option<u32> {
        self.counts.iter().find(|c| c.cell == cell)?.count
    }

    /// Whether the counts show cell `first` ran before cell `then` (both counted).
    pub fn ran_before(&self, first: u32, then: u32) -> bool {
        self.count(first)
            .zip(self.count(then))
            .is_some_and(|(a, b)| a < b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn order(counts: &[(u32, Option<u32>)]) -> ExecutionOrder {
        ExecutionOrder {
            counts: counts
                .iter()
                .map(|&(cell, count)| StoredCount { cell, count })
                .collect(),
            out_of_order: Vec::new(),
            unexecuted: Vec::new(),
            skipped_counts: 0,
        }
    }

    #[test]
    fn a_count_says_which_cell_ran_first() {
        let o = order(&[(2, Some(1)), (4, Some(4)), (5, None), (6, Some(2))]);
        assert!(o.ran_before(6, 4));
        assert!(!o.ran_before(4, 6));
        assert!(!o.ran_before(5, 4), "an uncounted cell says nothing");
        assert_eq!(o.count(4), Some(4));
        assert_eq!(o.count(5), None);
    }
}
