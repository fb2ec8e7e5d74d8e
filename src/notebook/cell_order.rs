//! The order a run takes a notebook's code cells in: the page's, top to bottom, unless runs
//! proved its author ran some cells before others (see `restore`'s rounds).

use serde::Serialize;

/// The order a run takes the code cells in: the page's, with cells moved where a run showed
/// one needed a name a later cell defines and the stored counts show its author ran that
/// later cell first. Only what a run proved is moved: a notebook's stored order also holds
/// cells deleted or re-run since, so running all by count fails where the page does not.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct CellOrder {
    /// `(cell, before)`: `cell` runs just before `before`, in the order the moves were made.
    pub moved: Vec<(u32, u32)>,
}

impl CellOrder {
    /// Top to bottom, as Jupyter's "Run All" does.
    pub fn is_page(&self) -> bool {
        self.moved.is_empty()
    }

    /// This order with `cell` moved just before `before`.
    pub fn with(&self, cell: u32, before: u32) -> Self {
        let mut moved = self.moved.clone();
        moved.push((cell, before));
        Self { moved }
    }

    /// `cells` (the page's order) in this order.
    pub fn apply(&self, cells: &[u32]) -> Vec<u32> {
        let mut order = cells.to_vec();
        for &(cell, before) in &self.moved {
            let Some(from) = order.iter().position(|&c| c == cell) else {
                continue;
            };
            order.remove(from);
            let at = order
                .iter()
                .position(|&c| c == before)
                .unwrap_or(order.len());
            order.insert(at, cell);
        }
        order
    }

    /// Whether, in this order, `first` runs before `then`.
    pub fn runs_before(&self, cells: &[u32], first: u32, then: u32) -> bool {
        let order = self.apply(cells);
        let at = |c| order.iter().position(|&o| o == c);
        at(first).zip(at(then)).is_some_and(|(a, b)| a < b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proven_moves_take_cells_before_the_ones_that_needed_them() {
        let page = [1, 2, 4, 5, 6];
        let moved = CellOrder::default().with(6, 4);
        assert_eq!(moved.apply(&page), [1, 2, 6, 4, 5]);
        assert!(moved.runs_before(&page, 6, 4));
        assert!(!moved.runs_before(&page, 4, 6));
        assert_eq!(moved.with(5, 2).apply(&page), [1, 5, 2, 6, 4]);
        assert!(CellOrder::default().is_page());
    }
}
