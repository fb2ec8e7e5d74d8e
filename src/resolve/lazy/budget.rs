//! The time introspection may take in one inference. Installing and importing an old release
//! costs seconds to minutes (TensorFlow's, minutes each); past the budget an unknown answer
//! stays unknown, and unknown constrains nothing.

use std::time::Duration;

/// A limit on time spent, and what was spent.
#[derive(Debug, Clone, Copy, Default)]
pub struct Budget {
    limit: Option<Duration>,
    spent: Duration,
}

impl Budget {
    /// `None`: no limit.
    pub fn new(limit: Option<Duration>) -> Self {
        Self {
            limit,
            spent: Duration::ZERO,
        }
    }

    /// What is left (`None`: no limit).
    pub fn left(&self) -> Option<Duration> {
        self.limit.map(|l| l.saturating_sub(self.spent))
    }

    /// Whether nothing is left.
    pub fn spent(&self) -> bool {
        self.left() == Some(Duration::ZERO)
    }

    pub fn spend(&mut self, time: Duration) {
        self.spent += time;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_budget_runs_out_and_none_never_does() {
        let mut b = Budget::new(Some(Duration::from_secs(30)));
        assert_eq!(b.left(), Some(Duration::from_secs(30)));
        b.spend(Duration::from_secs(20));
        assert!(!b.spent());
        b.spend(Duration::from_secs(20));
        assert_eq!(b.left(), Some(Duration::ZERO));
        assert!(b.spent());
        assert!(Budget::new(Some(Duration::ZERO)).spent());
        let mut none = Budget::new(None);
        none.spend(Duration::from_secs(1 << 20));
        assert!(!none.spent());
        assert_eq!(none.left(), None);
    }
}
