//! A set of releases of one distribution, stored as runs over the distribution's release slots.
//!
//! The bank stores each API once with the set of releases that have it. APIs usually live
//! through one unbroken stretch of versions, so a run-length list of varints is a few bytes
//! where one row per (API, release) would be hundreds.

use std::fmt;

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

    pub fn contains(&self, slot: u32) -> bool {
        let i = self.runs.partition_point(|&(_, end)| end <= slot);
        self.runs.get(i).is_some_and(|&(start, _)| start <= slot)
    }

    pub fn insert(&mut self, slot: u32) {
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

    pub fn remove(&mut self, slot: u32) {
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

    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.runs.iter().flat_map(|&(s, e)| s..e)
    }

    pub fn union(&self, other: &ReleaseSet) -> ReleaseSet {
        let mut out = self.clone();
        for slot in other.iter() {
            out.insert(slot);
        }
        out
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

    pub fn difference(&self, other: &ReleaseSet) -> ReleaseSet {
        let mut out = self.clone();
        for slot in other.iter() {
            if out.contains(slot) {
                out.remove(slot);
            }
        }
        out
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

impl FromIterator<u32> for ReleaseSet {
    fn from_iter<T: IntoIterator<Item = u32>>(iter: T) -> Self {
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

fn put_varint(out: &mut Vec<u8>, mut v: u32) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn take_varint(bytes: &mut &[u8]) -> Result<u32, CorruptReleaseSet> {
    let mut value: u32 = 0;
    for shift in (0..35).step_by(7) {
        let (&b, rest) = bytes.split_first().ok_or(CorruptReleaseSet)?;
        *bytes = rest;
        value |= u32::from(b & 0x7f)
            .checked_shl(shift)
            .ok_or(CorruptReleaseSet)?;
        if b & 0x80 == 0 {
            return Ok(value);
        }
    }
    Err(CorruptReleaseSet)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_merges_runs() {
        let mut s = ReleaseSet::new();
        for slot in [5, 3, 4, 10, 7, 6, 0] {
            s.insert(slot);
        }
        assert_eq!(format!("{s:?}"), "[0..1, 3..8, 10..11]");
        s.insert(1);
        s.insert(2);
        assert_eq!(format!("{s:?}"), "[0..8, 10..11]");
        assert!(s.contains(7) && !s.contains(8) && s.contains(10));
        assert_eq!(s.len(), 9);
    }

    #[test]
    fn remove_splits_runs() {
        let mut s: ReleaseSet = (0..10).collect();
        s.remove(4);
        s.remove(0);
        s.remove(9);
        s.remove(42);
        assert_eq!(format!("{s:?}"), "[1..4, 5..9]");
    }

    #[test]
    fn set_algebra() {
        let a: ReleaseSet = (0..10).chain(20..30).collect();
        let b: ReleaseSet = (5..25).collect();
        assert_eq!(format!("{:?}", a.intersection(&b)), "[5..10, 20..25]");
        assert_eq!(format!("{:?}", a.difference(&b)), "[0..5, 25..30]");
        assert_eq!(format!("{:?}", a.union(&b)), "[0..30]");
    }

    #[test]
    fn encoding_round_trips_and_is_small() {
        let s: ReleaseSet = (17..300).chain(400..401).collect();
        let bytes = s.encode();
        assert!(bytes.len() <= 7, "{bytes:?}");
        assert_eq!(ReleaseSet::decode(&bytes).unwrap(), s);
        assert_eq!(ReleaseSet::decode(&[]).unwrap(), ReleaseSet::new());
        assert!(ReleaseSet::decode(&[0x80]).is_err());
        assert!(ReleaseSet::decode(&[1, 0]).is_err());
    }

    #[test]
    fn matches_a_plain_set() {
        use std::collections::BTreeSet;
        let mut x: u32 = 7;
        let mut set = ReleaseSet::new();
        let mut plain = BTreeSet::new();
        for _ in 0..2000 {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            let slot = (x >> 8) % 64;
            if x.is_multiple_of(3) {
                set.remove(slot);
                plain.remove(&slot);
            } else {
                set.insert(slot);
                plain.insert(slot);
            }
            assert_eq!(
                set.iter().collect::<Vec<_>>(),
                plain.iter().copied().collect::<Vec<_>>()
            );
        }
    }
}
