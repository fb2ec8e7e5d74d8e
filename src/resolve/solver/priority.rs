//! The order in which PubGrub decides packages.

use std::cmp::Reverse;

/// Greater decides first: the interpreter, then packages with no installable version left
/// (to fail fast), then what the notebook asks for directly, then the rest; within each,
/// packages that caused conflicts, then those with the fewest candidates.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Priority {
    pub urgency: Urgency,
    pub conflicts: u32,
    pub fewer_candidates: Reverse<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Urgency {
    Transitive,
    Direct,
    NoCandidates,
    Python,
}
