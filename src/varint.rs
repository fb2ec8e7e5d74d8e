//! LEB128 varints: how the bank's packed columns (path dictionaries, member indexes, release
//! sets) and the compact index pages store their numbers, seven bits a byte, low bits first.
//! Written once, so every reader reads what every writer writes.

/// Appends `v`.
pub fn put(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// The varint at `*at` in `bytes`, moving `at` past it; `None` when it is cut short or runs
/// past 64 bits (a damaged column).
#[inline]
pub fn take(bytes: &[u8], at: &mut usize) -> Option<u64> {
    // Most values (lengths, small gaps) fit one byte.
    if let Some(&b) = bytes.get(*at) {
        if b < 0x80 {
            *at += 1;
            return Some(u64::from(b));
        }
    }
    let mut value: u64 = 0;
    for shift in (0..64).step_by(7) {
        let b = *bytes.get(*at)?;
        *at += 1;
        value |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Some(value);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_refuses_what_is_cut_short() {
        let values = [0, 1, 127, 128, 300, u64::from(u32::MAX), u64::MAX];
        let mut out = Vec::new();
        for v in values {
            put(&mut out, v);
        }
        let mut at = 0;
        for v in values {
            assert_eq!(take(&out, &mut at), Some(v));
        }
        assert_eq!(at, out.len());
        assert_eq!(take(&[0x80, 0x80], &mut 0), None);
        assert_eq!(take(&[0xff; 11], &mut 0), None);
    }
}
