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

    /// The cells in the order their author last ran them, as far as the counts say: counted
    /// cells by count; a cell saved without one stays right after the cell above it (the
    /// first ones first), since nothing says when, or whether, it ran.
    pub fn run_order(&self) -> Vec<u32> {
        let mut counted: Vec<&StoredCount> =
            self.counts.iter().filter(|c| c.count.is_some()).collect();
        counted.sort_by_key(|c| c.count);
        let mut order: Vec<u32> = counted.iter().map(|c| c.cell).collect();
        let mut above: Option<u32> = None;
        for c in &self.counts {
            if c.count.is_none() {
                let at = above
                    .and_then(|a| order.iter().position(|&o| o == a))
                    .map_or(0, |i| i + 1);
                order.insert(at, c.cell);
            }
            above = Some(c.cell);
        }
        order
    }
}

/// The order a run takes the notebook's code cells in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CellOrder {
    /// Top to bottom, as Jupyter's "Run All" does.
    #[default]
    File,
    /// The order the stored execution counts say the author ran them in
    /// ([`ExecutionOrder::run_order`]).
    Stored,
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
    fn counted_cells_run_by_count_and_uncounted_ones_after_the_cell_above() {
        let o = order(&[
            (1, None),
            (2, Some(1)),
            (4, Some(4)),
            (5, None),
            (6, Some(2)),
        ]);
        assert_eq!(o.run_order(), [1, 2, 6, 4, 5]);
        assert!(o.ran_before(6, 4));
        assert!(!o.ran_before(4, 6));
        assert!(!o.ran_before(5, 4), "an uncounted cell says nothing");
        assert_eq!(order(&[(1, Some(1)), (2, Some(2))]).run_order(), [1, 2]);
    }
}
