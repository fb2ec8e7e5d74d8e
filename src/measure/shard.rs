//! Deterministic sharding: a notebook's shard is a stable hash of its path relative to its
//! INPUT, modulo the number of shards. Any batch engine (Slurm arrays, Kubernetes indexed
//! jobs, CI matrices) can then run `--shard K/N` on N machines over the same corpus, mounted
//! anywhere, and the shards' outputs cover it exactly once.
//!
//! The hash is SHA-256 of the path's UTF-8 bytes: the same on every platform, Rust version
//! and nbenv build, unlike `std`'s `DefaultHasher`, which promises none of that.

use std::fmt;
use std::str::FromStr;

use sha2::{Digest, Sha256};

/// One of `count` shards. `index` counts from 0; how the user wrote it is kept, so that it is
/// said back the same way: `--shard 1/3` (counted from 1, as nextest's `--partition`,
/// Playwright and Jest count) or `--shard-index 0/3` (from 0, as Kubernetes completion
/// indexes and most array jobs count).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
    pub from: Base,
}

/// What the K of `K/N` counts from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Base {
    One,
    Zero,
}

impl Shard {
    /// Whether the notebook at `path` (relative to its INPUT, `/`-separated) is this shard's.
    pub fn contains(&self, path: &str) -> bool {
        shard_of(path, self.count) == self.index
    }
}

/// The shard of `path` among `count` (at least 1).
pub fn shard_of(path: &str, count: u32) -> u32 {
    let digest = Sha256::digest(path.as_bytes());
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    (u64::from_be_bytes(first) % u64::from(count.max(1))) as u32
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{text}` is not a shard: {why}")]
pub struct BadShard {
    text: String,
    why: &'static str,
}

impl Shard {
    /// `K/N` with 0 ≤ K < N (`--shard-index`).
    pub fn from_zero(s: &str) -> Result<Self, BadShard> {
        Self::parse(s, Base::Zero)
    }

    fn parse(s: &str, from: Base) -> Result<Self, BadShard> {
        let bad = |why| BadShard {
            text: s.to_string(),
            why,
        };
        let (k, n) = s.trim().split_once('/').ok_or_else(|| {
            bad(match from {
                Base::One => "write K/N, the K-th of N shards, counted from 1",
                Base::Zero => "write K/N, the K-th of N shards, counted from 0",
            })
        })?;
        let index: u32 = k
            .trim()
            .parse()
            .map_err(|_| bad("K is not a whole number"))?;
        let count: u32 = n
            .trim()
            .parse()
            .map_err(|_| bad("N is not a whole number"))?;
        if count == 0 {
            return Err(bad("N must be at least 1"));
        }
        let index = match from {
            Base::One if index == 0 => {
                return Err(bad(
                    "--shard counts from 1 (1/N to N/N); for a 0-based index, as Kubernetes \
                     and array jobs give, use --shard-index K/N",
                ))
            }
            Base::One if index > count => return Err(bad("K counts from 1 and must be at most N")),
            Base::One => index - 1,
            Base::Zero if index >= count => return Err(bad("K counts from 0 and must be below N")),
            Base::Zero => index,
        };
        Ok(Shard { index, count, from })
    }
}

impl FromStr for Shard {
    type Err = BadShard;

    /// `K/N` with 1 ≤ K ≤ N (`--shard`).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s, Base::One)
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.from {
            Base::One => write!(f, "{}/{}", self.index + 1, self.count),
            Base::Zero => write!(f, "{}/{} (from 0)", self.index, self.count),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_parse_and_refuse() {
        let third = |from| Shard {
            index: 2,
            count: 3,
            from,
        };
        assert_eq!("3/3".parse::<Shard>(), Ok(third(Base::One)));
        assert_eq!(Shard::from_zero("2/3"), Ok(third(Base::Zero)));
        assert_eq!(third(Base::One).to_string(), "3/3");
        assert_eq!(third(Base::Zero).to_string(), "2/3 (from 0)");
        assert!("4/3".parse::<Shard>().is_err());
        assert!(Shard::from_zero("3/3").is_err());
        let zero = "0/3".parse::<Shard>().unwrap_err().to_string();
        assert!(zero.contains("--shard-index"), "{zero}");
        for bad in ["0/0", "1", "a/3", "1/0"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
            assert!(Shard::from_zero(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_hash_is_fixed() {
        // These values must never change, or shards of a corpus split by two releases of
        // nbenv would overlap. Computed independently: Python's
        // `int.from_bytes(hashlib.sha256(p.encode()).digest()[:8], 'big') % 7`.
        assert_eq!(shard_of("a/b.ipynb", 7), 3);
        assert_eq!(shard_of("a/b.ipynb", 1), 0);
        let fixed: Vec<u32> = ["x.ipynb", "dir/y.ipynb", "z/z/z.ipynb"]
            .iter()
            .map(|p| shard_of(p, 7))
            .collect();
        assert_eq!(fixed, FIXED);
    }

    const FIXED: [u32; 3] = [2, 6, 6];
}
