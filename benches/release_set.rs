//! Set algebra on release sets of the shapes the bank holds (`cargo bench --bench
//! release_set`): an API present over a few stretches of a few hundred releases, against
//! another such set. Prints the cost of one union, intersection and difference.

use std::hint::black_box;
use std::time::Instant;

use nbenv::bank::store::{ReleaseSet, Slot};

/// `runs` stretches over `slots` releases, placed by a fixed pseudo-random sequence.
fn shaped(seed: u32, slots: u32, runs: u32) -> ReleaseSet {
    let mut x = seed;
    let mut next = || {
        x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        x >> 8
    };
    let mut set = ReleaseSet::new();
    for _ in 0..runs {
        let start = next() % slots;
        let len = 1 + next() % (2 * slots / runs).max(1);
        for slot in start..(start + len).min(slots) {
            set.insert(Slot(slot));
        }
    }
    set
}

fn per_op(
    name: &str,
    pairs: &[(ReleaseSet, ReleaseSet)],
    op: impl Fn(&ReleaseSet, &ReleaseSet) -> ReleaseSet,
) {
    let rounds = 200;
    let best = (0..5)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..rounds {
                for (a, b) in pairs {
                    black_box(op(black_box(a), black_box(b)));
                }
            }
            start.elapsed().as_secs_f64() / (rounds * pairs.len()) as f64
        })
        .fold(f64::INFINITY, f64::min);
    println!("{name:<13} {:>8.0} ns", best * 1e9);
}

fn main() {
    for (slots, runs) in [(60, 2), (300, 3), (300, 20)] {
        let pairs: Vec<_> = (0..100)
            .map(|i| {
                (
                    shaped(2 * i + 1, slots, runs),
                    shaped(2 * i + 2, slots, runs),
                )
            })
            .collect();
        let members: usize = pairs.iter().map(|(a, _)| a.len()).sum::<usize>() / pairs.len();
        println!("== {slots} releases, {runs} runs per set (about {members} members) ==");
        per_op("union", &pairs, ReleaseSet::union);
        per_op("intersection", &pairs, ReleaseSet::intersection);
        per_op("difference", &pairs, ReleaseSet::difference);
    }
}
