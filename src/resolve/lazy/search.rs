//! Where one piece of evidence turns along a line of releases, found by reading as few of
//! them as possible: look back from the newest, twice as far each time, until some release
//! has it; then halve each stretch between read releases that disagree, until they are
//! neighbours. Bisection assumes the releases that have an API are contiguous; where the
//! read ones show otherwise (present, absent, present again), every release between is read.
//! Only answers the bank is sure of show a gap: an unknown one ("may have it") counts as
//! having it for looking back and halving, but reading every release up to it would learn
//! nothing (scikit-learn 1.6's lazy submodules are unknown to static reading, and once made
//! a gap of 30 releases from 0.12.1).

use super::line::Line;

/// What one search wants read next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Every turn the read releases show is between neighbours: nothing to read.
    Settled,
    /// No read release has it, and every look-back point down to the oldest is read.
    Exhausted,
    /// Read these positions of the line.
    Read(Vec<Wanted>),
}

/// What a read release says of the evidence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Has {
    Yes,
    No,
    /// Static reading could not tell, and nothing will tell here: it may have it.
    Maybe,
}

impl Has {
    fn may(self) -> bool {
        self != Has::No
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wanted {
    /// Looking further back for a release that has it.
    Back(usize),
    /// The middle of a stretch whose ends disagree (positions of the ends).
    Middle {
        at: usize,
        older: usize,
        newer: usize,
    },
    /// Inside a stretch where it is absent between releases that have it.
    Gap {
        at: usize,
        older: usize,
        newer: usize,
    },
}

/// The next step for one piece of evidence: `has(position)` says whether the read
/// release there has it. The line's newest release must be read.
pub fn next(line: &Line<'_>, has: &dyn Fn(usize) -> Has) -> Step {
    let indexed = line.read();
    let Some(&newest) = indexed.last() else {
        return Step::Settled;
    };
    let answers: Vec<(usize, Has)> = indexed.iter().map(|&i| (i, has(i))).collect();
    let states: Vec<(usize, bool)> = answers.iter().map(|&(i, h)| (i, h.may())).collect();
    let Some(first) = states.iter().position(|&(_, h)| h) else {
        return match look_back(line, newest) {
            Some(at) => Step::Read(vec![Wanted::Back(at)]),
            None => Step::Exhausted,
        };
    };
    let mut wanted = Vec::new();
    // A release read below the ones that have it (a pin the interpreter forced down) lacks
    // it: whether older ones have it again is looked for the same way.
    if first > 0 {
        // From the newest release below them that lacks it, so that the steps keep doubling
        // as more releases below are read.
        if let Some(at) = look_back(line, states[first - 1].0) {
            wanted.push(Wanted::Back(at));
        }
    }
    let sure = |&(_, h): &(usize, Has)| h == Has::Yes;
    if let (Some(first), Some(last)) = (
        answers.iter().position(sure),
        answers.iter().rposition(sure),
    ) {
        if answers[first..=last].iter().any(|&(_, h)| h == Has::No) {
            let (older, newer) = (answers[first].0, answers[last].0);
            wanted.extend(
                (older + 1..newer)
                    .filter(|&i| !line.is_read(i))
                    .map(|at| Wanted::Gap { at, older, newer }),
            );
        }
    }
    for pair in states.windows(2) {
        let ((older, a), (newer, b)) = (pair[0], pair[1]);
        if a == b || newer - older < 2 {
            continue;
        }
        let middle = older + (newer - older) / 2;
        if let Some(at) = line.nearest_unread(middle, older + 1, newer - 1) {
            if !wanted.iter().any(|w| w.at() == at) {
                wanted.push(Wanted::Middle { at, older, newer });
            }
        }
    }
    if wanted.is_empty() {
        Step::Settled
    } else {
        Step::Read(wanted)
    }
}

/// Back from `anchor`, twice as far each time (1, 3, 7, 15 ... releases back), the first of
/// those points not read yet; `None` once they all are, down to the oldest.
fn look_back(line: &Line<'_>, anchor: usize) -> Option<usize> {
    let mut back = 1usize;
    loop {
        if anchor == 0 {
            return None;
        }
        let target = anchor.saturating_sub(back);
        if !line.is_read(target) {
            return Some(target);
        }
        if target == 0 {
            return None;
        }
        back = back * 2 + 1;
    }
}

impl Wanted {
    pub fn at(&self) -> usize {
        match *self {
            Wanted::Back(at) | Wanted::Middle { at, .. } | Wanted::Gap { at, .. } => at,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bank::store::{Catalog, CatalogRelease, IndexStatus, Slot};
    use crate::pypi::RequiresPython;

    /// A line of `n` releases 1.0 .. n.0 with the newest and `start` read; `truth[i]` says
    /// whether release i has the API. Runs the search to the end and returns what it read.
    fn run_from(n: usize, start: &[usize], truth: &dyn Fn(usize) -> bool) -> (Vec<usize>, Step) {
        let answer = |i: usize| if truth(i) { Has::Yes } else { Has::No };
        run_answers(n, start, &answer)
    }

    /// The same, with answers that may be unknown.
    fn run_answers(n: usize, start: &[usize], truth: &dyn Fn(usize) -> Has) -> (Vec<usize>, Step) {
        let mut status = vec![IndexStatus::NotIndexed; n];
        let mut read = vec![n - 1];
        read.extend(start);
        for &i in &read {
            status[i] = IndexStatus::Indexed;
        }
        loop {
            let catalog = Catalog::new(
                (0..n)
                    .map(|i| CatalogRelease {
                        runtime_gap: false,
                        slot: Slot(i as u32),
                        version: format!("{}.0", i + 1).parse().unwrap(),
                        upload_time: None,
                        requires_python: RequiresPython::Any,
                        yanked: false,
                        index: status[i],
                    })
                    .collect(),
            );
            let line = Line::new(&catalog, None, None);
            match next(&line, &|i| truth(i)) {
                Step::Read(w) => {
                    for w in w {
                        assert_eq!(status[w.at()], IndexStatus::NotIndexed, "read twice");
                        status[w.at()] = IndexStatus::Indexed;
                        read.push(w.at());
                    }
                }
                end => return (read, end),
            }
            assert!(read.len() <= n, "read more releases than there are");
        }
    }

    fn run(n: usize, truth: &dyn Fn(usize) -> bool) -> (Vec<usize>, Step) {
        run_from(n, &[], truth)
    }

    #[test]
    fn present_in_the_newest_reads_nothing_more() {
        let (read, end) = run(100, &|_| true);
        assert_eq!((read, end), (vec![99], Step::Settled));
    }

    #[test]
    fn a_removal_is_found_between_neighbours_in_logarithmic_reads() {
        for removed_at in [1, 2, 50, 97, 98, 99] {
            let (read, end) = run(100, &|i| i < removed_at);
            assert_eq!(end, Step::Settled);
            assert!(
                read.contains(&(removed_at - 1)) && read.contains(&removed_at),
                "both neighbours of the boundary at {removed_at} are read: {read:?}"
            );
            assert!(
                read.len() <= 16,
                "{removed_at}: read {} releases",
                read.len()
            );
        }
    }

    #[test]
    fn never_present_is_exhausted_after_looking_back_to_the_oldest() {
        let (read, end) = run(100, &|_| false);
        assert_eq!(end, Step::Exhausted);
        assert!(read.contains(&0));
        assert!(read.len() <= 9, "{read:?}");
    }

    #[test]
    fn added_then_removed_finds_both_turns() {
        let (read, end) = run(60, &|i| (20..40).contains(&i));
        assert_eq!(end, Step::Settled);
        for boundary in [39, 40] {
            assert!(read.contains(&boundary), "{read:?}");
        }
        // The addition at 20 is not looked for: the newest releases that have the API were
        // found, and nothing older is read unless a pin falls there.
        assert!(read.iter().all(|&i| i >= 20), "{read:?}");
        // Once an older release is read (a pin), the addition is located too.
        let (read, end) = run_from(60, &[3], &|i| (20..40).contains(&i));
        assert_eq!(end, Step::Settled);
        assert!(read.contains(&19) && read.contains(&20), "{read:?}");
    }

    #[test]
    fn a_gap_unseen_is_skipped_and_a_gap_seen_is_read_whole() {
        let truth = |i: usize| !(30..35).contains(&i);
        // Present in the newest: nothing else is read, the gap is never seen (releases are
        // skipped only while ranking; a pin inside it is read before it is trusted).
        assert_eq!(run(100, &truth), (vec![99], Step::Settled));
        // With a release inside the gap read (a pin that was checked), every release between
        // the ones around it that have the API is read.
        let (read, end) = run_from(100, &[10, 32], &truth);
        assert_eq!(end, Step::Settled);
        for i in 10..100 {
            assert!(read.contains(&i), "release {i} unread: {read:?}");
        }
        assert!(!read.contains(&5), "{read:?}");
    }

    #[test]
    fn an_unknown_answer_never_anchors_a_gap() {
        // scikit-learn's shape: present in the old releases, absent in the middle ones, unknown
        // in the newest (lazy submodules static reading cannot see through).
        let truth = |i: usize| match i {
            10..=40 => Has::Yes,
            90.. => Has::Maybe,
            _ => Has::No,
        };
        let (read, end) = run_answers(100, &[12, 60], &truth);
        assert_eq!(end, Step::Settled);
        assert!(read.len() <= 20, "read {} releases: {read:?}", read.len());
        // The turns are still found between neighbours.
        for boundary in [40, 41, 89, 90] {
            assert!(read.contains(&boundary), "{boundary}: {read:?}");
        }
        // A sure gap between releases that have it is still read whole.
        let truth = |i: usize| match i {
            50..=60 => Has::No,
            _ => Has::Yes,
        };
        let (read, _) = run_answers(100, &[10, 55], &truth);
        assert!((10..100).all(|i| read.contains(&i)), "{read:?}");
    }
}
