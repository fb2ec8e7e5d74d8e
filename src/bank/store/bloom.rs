//! A Bloom filter stored in the bank: "certainly not here" for most keys that are absent, so
//! that a lookup skips the chunks (or blocks) of a path dictionary that cannot hold a path.
//!
//! The bits are persisted, so the hash is fixed forever: FNV-1a 64 of the key's bytes, and
//! probe `i` of `k` at `(h1 + i * h2) mod m` (Kirsch and Mitzenmacher's double hashing), with
//! `h1` and `h2` the low and high halves of the hash, `h2` made odd.

/// Bits per key: with [`PROBES`] probes, about 1% of absent keys pass.
const BITS_PER_KEY: usize = 10;

/// Probes per key (the optimum for [`BITS_PER_KEY`] is about 7).
pub(crate) const PROBES: u32 = 7;

/// The smallest filter, so that a handful of keys do not fill it.
const MIN_BYTES: usize = 8;

fn fnv1a(key: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in key {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// The bit positions of `key` in a filter of `bits` bits.
fn positions(key: &[u8], probes: u32, bits: u64) -> impl Iterator<Item = u64> {
    let h = fnv1a(key);
    let (h1, h2) = (h & 0xffff_ffff, (h >> 32) | 1);
    (0..u64::from(probes)).map(move |i| h1.wrapping_add(i.wrapping_mul(h2)) % bits)
}

/// The size in bytes of a filter for `keys` keys.
pub(crate) fn bytes_for(keys: usize) -> usize {
    (keys * BITS_PER_KEY).div_ceil(8).max(MIN_BYTES)
}

/// A filter being filled, `bytes_for(keys)` bytes long.
pub(crate) fn build<'k>(keys: impl IntoIterator<Item = &'k [u8]>, len: usize) -> Vec<u8> {
    let mut bits = vec![0u8; len.max(1)];
    let m = bits.len() as u64 * 8;
    for key in keys {
        for p in positions(key, PROBES, m) {
            bits[(p / 8) as usize] |= 1 << (p % 8);
        }
    }
    bits
}

/// Whether `key` may be among the keys `bits` was built from (never false for one that is).
/// An empty filter admits everything: nothing is known.
pub(crate) fn may_contain(bits: &[u8], probes: u32, key: &[u8]) -> bool {
    if bits.is_empty() {
        return true;
    }
    let m = bits.len() as u64 * 8;
    positions(key, probes, m).all(|p| bits[(p / 8) as usize] & (1 << (p % 8)) != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_passes_and_few_others_do() {
        let keys: Vec<String> = (0..5_000).map(|i| format!("pkg.mod_{i}.Name")).collect();
        let bits = build(keys.iter().map(|k| k.as_bytes()), bytes_for(keys.len()));
        assert!(keys
            .iter()
            .all(|k| may_contain(&bits, PROBES, k.as_bytes())));
        let passed = (0..10_000)
            .filter(|i| may_contain(&bits, PROBES, format!("other.{i}").as_bytes()))
            .count();
        assert!(passed < 300, "{passed} of 10,000 absent keys passed");
        assert!(may_contain(&[], PROBES, b"anything"));
    }

    /// The hash is part of the bank's format: it must never change.
    #[test]
    fn the_hash_is_fnv1a() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        let bits = build([&b"pandas.DataFrame"[..]], 8);
        assert_eq!(bits, build([&b"pandas.DataFrame"[..]], 8));
        assert!(bits.iter().map(|b| b.count_ones()).sum::<u32>() <= PROBES);
    }
}
