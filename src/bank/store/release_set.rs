//! A set of releases of one distribution, stored as runs over the distribution's release slots.
//!
//! The bank stores each API once with the set of releases that have it. APIs usually live
//! through one unbroken stretch of versions, so a run-length list of varints is a few bytes
//! where one row per (API, release) would be hundreds.

use std::fmt;

use super::ids::Slot;

/// Releases, by slot: each release of a distribution gets a small integer when it is first
/// registered (in PEP 440 order within one registration), which never changes afterwards.
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct ReleaseSet {
    /// Sorted, disjoint, non-adjacent half-open runs.
    runs: Vec<(u32, u32)>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("corrupt release set encoding")]
pub struct CorruptReleaseSet;

impl ReleaseSet {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    pub fn len(&self) -> usize {
        self.runs.iter().map(|(s, e)| (e - s) as usize).sum()
    }

    pub fn contains(&self, Slot(slot): Slot) -> bool {
        let i = self.runs.partition_point(|&(_, end)| end <= slot);
        self.runs.get(i).is_some_and(|&(start, _)| start <= slot)
    }

    /// Adds `slot`. Slots are below `u32::MAX` (a run's end must fit); `u32::MAX` itself,
    /// which only a corrupt bank could hold, is ignored rather than overflowing.
    pub fn insert(&mut self, Slot(slot): Slot) {
        if slot == u32::MAX {
            return;
        }
        // The first run that contains `slot` or could be extended to it.
        let i = self.runs.partition_point(|&(_, end)| end < slot);
        if let Some(&(start, end)) = self.runs.get(i) {
            if start <= slot && slot < end {
                return;
            }
            if end == slot {
                self.runs[i].1 = slot + 1;
                if self
                    .runs
                    .get(i + 1)
                    .is_some_and(|&(next, _)| next == slot + 1)
                {
                    self.runs[i].1 = self.runs[i + 1].1;
                    self.runs.remove(i + 1);
                }
                return;
            }
            if start == slot + 1 {
                self.runs[i].0 = slot;
                return;
            }
        }
        self.runs.insert(i, (slot, slot + 1));
    }

    pub fn remove(&mut self, Slot(slot): Slot) {
        if slot == u32::MAX {
            return;
        }
        let i = self.runs.partition_point(|&(_, end)| end <= slot);
        let Some(&(start, end)) = self.runs.get(i) else {
            return;
        };
        if slot < start {
            return;
        }
        match (start == slot, end == slot + 1) {
            (true, true) => {
                self.runs.remove(i);
            }
            (true, false) => self.runs[i].0 = slot + 1,
            (false, true) => self.runs[i].1 = slot,
            (false, false) => {
                self.runs[i].1 = slot;
                self.runs.insert(i + 1, (slot + 1, end));
            }
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = Slot> + '_ {
        self.runs.iter().flat_map(|&(s, e)| (s..e).map(Slot))
    }

    /// Merges the two run lists in one pass: cost in runs, not in releases.
    pub fn union(&self, other: &ReleaseSet) -> ReleaseSet {
        let mut runs: Vec<(u32, u32)> = Vec::with_capacity(self.runs.len() + other.runs.len());
        let (mut i, mut j) = (0, 0);
        loop {
            let next = match (self.runs.get(i), other.runs.get(j)) {
                (Some(&a), Some(&b)) if a.0 <= b.0 => {
                    i += 1;
                    a
                }
                (_, Some(&b)) => {
                    j += 1;
                    b
                }
                (Some(&a), None) => {
                    i += 1;
                    a
                }
                (None, None) => break,
            };
            match runs.last_mut() {
                // Overlapping or adjacent: one run (runs stay non-adjacent).
                Some(last) if next.0 <= last.1 => last.1 = last.1.max(next.1),
                _ => runs.push(next),
            }
        }
        ReleaseSet { runs }
    }

    pub fn intersection(&self, other: &ReleaseSet) -> ReleaseSet {
        let mut runs = Vec::new();
        let (mut i, mut j) = (0, 0);
        while i < self.runs.len() && j < other.runs.len() {
            let (a, b) = (self.runs[i], other.runs[j]);
            let (start, end) = (a.0.max(b.0), a.1.min(b.1));
            if start < end {
                runs.push((start, end));
            }
            if a.1 < b.1 {
                i += 1;
            } else {
                j += 1;
            }
        }
        ReleaseSet { runs }
    }

    /// Cuts `other`'s runs out of this set's, in one pass over both.
    pub fn difference(&self, other: &ReleaseSet) -> ReleaseSet {
        let mut runs = Vec::with_capacity(self.runs.len());
        let mut j = 0;
        for &(start, end) in &self.runs {
            let mut cursor = start;
            // Runs of `other` that end before this one starts matter for no later run either.
            while other.runs.get(j).is_some_and(|&(_, e)| e <= start) {
                j += 1;
            }
            let mut k = j;
            while let Some(&(cut_start, cut_end)) = other.runs.get(k) {
                if cut_start >= end {
                    break;
                }
                if cut_start > cursor {
                    runs.push((cursor, cut_start));
                }
                cursor = cursor.max(cut_end);
                k += 1;
            }
            if cursor < end {
                runs.push((cursor, end));
            }
        }
        ReleaseSet { runs }
    }

    /// `start, length, (gap, length)*` as LEB128 varints.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.runs.len() * 2 + 1);
        let mut previous_end = 0;
        for (i, &(start, end)) in self.runs.iter().enumerate() {
            let offset = if i == 0 { start } else { start - previous_end };
            put_varint(&mut out, offset);
            put_varint(&mut out, end - start);
            previous_end = end;
        }
        out
    }

    pub fn decode(mut bytes: &[u8]) -> Result<Self, CorruptReleaseSet> {
        let mut runs = Vec::new();
        let mut previous_end: u32 = 0;
        while !bytes.is_empty() {
            let offset = take_varint(&mut bytes)?;
            let len = take_varint(&mut bytes)?;
            let start = previous_end.checked_add(offset).ok_or(CorruptReleaseSet)?;
            let end = start.checked_add(len).ok_or(CorruptReleaseSet)?;
            if len == 0 || (!runs.is_empty() && offset == 0) {
                return Err(CorruptReleaseSet);
            }
            runs.push((start, end));
            previous_end = end;
        }
        Ok(Self { runs })
    }
}

impl FromIterator<Slot> for ReleaseSet {
    fn from_iter<T: IntoIterator<Item = Slot>>(iter: T) -> Self {
        let mut set = ReleaseSet::new();
        for slot in iter {
            set.insert(slot);
        }
        set
    }
}

impl fmt::Debug for ReleaseSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.runs.iter().map(|(s, e)| *s..*e))
            .finish()
    }
}

fn put_varint(out: &mut Vec<u8>, v: u32) {
    crate::varint::put(out, u64::from(v));
}

fn take_varint(bytes: &mut &[u8]) -> Result<u32, CorruptReleaseSet> {
    let mut at = 0;
    let value = crate::varint::take(bytes, &mut at)
        .and_then(|v| u32::try_from(v).ok())
        .ok_or(CorruptReleaseSet)?;
    *bytes = &bytes[at..];
    Ok(value)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use proptest::prelude::*;

    use super::*;

    #[test]
    fn insert_merges_runs() {
        let mut s = ReleaseSet::new();
        for slot in [5, 3, 4, 10, 7, 6, 0] {
            s.insert(Slot(slot));
        }
        assert_eq!(format!("{s:?}"), "[0..1, 3..8, 10..11]");
        s.insert(Slot(1));
        s.insert(Slot(2));
        assert_eq!(format!("{s:?}"), "[0..8, 10..11]");
        assert!(s.contains(Slot(7)) && !s.contains(Slot(8)) && s.contains(Slot(10)));
        assert_eq!(s.len(), 9);
    }

    #[test]
    fn remove_splits_runs() {
        let mut s: ReleaseSet = (0..10).map(Slot).collect();
        s.remove(Slot(4));
        s.remove(Slot(0));
        s.remove(Slot(9));
        s.remove(Slot(42));
        assert_eq!(format!("{s:?}"), "[1..4, 5..9]");
    }

    #[test]
    fn set_algebra() {
        let a: ReleaseSet = (0..10).chain(20..30).map(Slot).collect();
        let b: ReleaseSet = (5..25).map(Slot).collect();
        assert_eq!(format!("{:?}", a.intersection(&b)), "[5..10, 20..25]");
        assert_eq!(format!("{:?}", a.difference(&b)), "[0..5, 25..30]");
        assert_eq!(format!("{:?}", a.union(&b)), "[0..30]");
    }

    #[test]
    fn encoding_round_trips_and_is_small() {
        let s: ReleaseSet = (17..300).chain(400..401).map(Slot).collect();
        let bytes = s.encode();
        assert!(bytes.len() <= 7, "{bytes:?}");
        assert_eq!(ReleaseSet::decode(&bytes).unwrap(), s);
        assert_eq!(ReleaseSet::decode(&[]).unwrap(), ReleaseSet::new());
        assert!(ReleaseSet::decode(&[0x80]).is_err());
        assert!(ReleaseSet::decode(&[1, 0]).is_err());
    }

    fn plain(set: &ReleaseSet) -> BTreeSet<u32> {
        set.iter().map(|s| s.0).collect()
    }

    /// Runs stay sorted, disjoint and non-adjacent, or equality and encoding would break.
    fn assert_canonical(set: &ReleaseSet) {
        assert!(set.runs.iter().all(|&(s, e)| s < e), "{set:?}");
        assert!(set.runs.windows(2).all(|w| w[0].1 < w[1].0), "{set:?}");
    }

    fn slots() -> impl Strategy<Value = BTreeSet<u32>> {
        // Small slot numbers, so that runs touch and overlap often; a few large ones.
        prop::collection::btree_set(
            prop_oneof![9 => 0u32..80, 1 => 0..u32::MAX, 1 => Just(u32::MAX - 1)],
            0..60,
        )
    }

    proptest! {
        #[test]
        fn algebra_matches_a_plain_set(a in slots(), b in slots()) {
            let (x, y): (ReleaseSet, ReleaseSet) =
                (
                a.iter().copied().map(Slot).collect(),
                b.iter().copied().map(Slot).collect(),
            );
            let union = x.union(&y);
            let intersection = x.intersection(&y);
            let difference = x.difference(&y);
            for set in [&union, &intersection, &difference] {
                assert_canonical(set);
            }
            prop_assert_eq!(plain(&union), a.union(&b).copied().collect::<BTreeSet<_>>());
            prop_assert_eq!(
                plain(&intersection),
                a.intersection(&b).copied().collect::<BTreeSet<_>>()
            );
            prop_assert_eq!(
                plain(&difference),
                a.difference(&b).copied().collect::<BTreeSet<_>>()
            );
            prop_assert_eq!(&union, &y.union(&x));
            prop_assert_eq!(union.len(), x.len() + y.len() - intersection.len());
            prop_assert_eq!(ReleaseSet::decode(&union.encode()).unwrap(), union);
        }

        #[test]
        fn decoding_any_bytes_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..40)) {
            if let Ok(set) = ReleaseSet::decode(&bytes) {
                assert_canonical(&set);
                prop_assert_eq!(ReleaseSet::decode(&set.encode()).unwrap(), set);
            }
        }
    }

    #[test]
    fn algebra_edges() {
        let set = |runs: &[(u32, u32)]| -> ReleaseSet {
            runs.iter().flat_map(|&(s, e)| s..e).map(Slot).collect()
        };
        let a = set(&[(0, 3), (5, 8)]);
        let empty = ReleaseSet::new();
        assert_eq!(a.union(&empty), a);
        assert_eq!(empty.union(&a), a);
        assert_eq!(a.difference(&empty), a);
        assert_eq!(empty.difference(&a), empty);
        assert_eq!(a.intersection(&empty), empty);
        assert_eq!(a.difference(&a), empty);
        // Adjacent runs from the two sides join.
        assert_eq!(format!("{:?}", a.union(&set(&[(3, 5)]))), "[0..8]");
        // One cut splitting one run, one cut spanning two.
        assert_eq!(
            format!("{:?}", a.difference(&set(&[(1, 2)]))),
            "[0..1, 2..3, 5..8]"
        );
        assert_eq!(
            format!("{:?}", a.difference(&set(&[(2, 6)]))),
            "[0..2, 6..8]"
        );
        let mut top = set(&[(u32::MAX - 2, u32::MAX)]);
        assert_eq!(top.union(&a).len(), 8);
        top.insert(Slot(u32::MAX));
        top.remove(Slot(u32::MAX));
        assert_eq!(top.len(), 2);
    }

    #[test]
    fn matches_a_plain_set() {
        let mut x: u32 = 7;
        let mut set = ReleaseSet::new();
        let mut plain = BTreeSet::new();
        for _ in 0..2000 {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            let slot = (x >> 8) % 64;
            if x.is_multiple_of(3) {
                set.remove(Slot(slot));
                plain.remove(&slot);
            } else {
                set.insert(Slot(slot));
                plain.insert(slot);
            }
            assert_eq!(
                set.iter().map(|s| s.0).collect::<Vec<_>>(),
                plain.iter().copied().collect::<Vec<_>>()
            );
        }
    }
}
