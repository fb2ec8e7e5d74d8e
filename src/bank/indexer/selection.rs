use pep440_rs::{Version, VersionSpecifiers};

/// Which releases of a distribution to index.
#[derive(Debug, Clone, Default)]
pub enum Selection {
    /// The full history.
    #[default]
    All,
    /// The newest `n` final releases (pre-releases only when there is nothing else).
    Latest(usize),
    /// Releases matching a PEP 440 specifier (`>=0.17,<0.21`), pre-releases included.
    Matching(VersionSpecifiers),
    /// The newest `n` final releases that match the specifier.
    LatestMatching(usize, VersionSpecifiers),
    /// Every release any of these selects (`numpy==1.19.5 numpy==1.24.0`).
    Any(Vec<Selection>),
    /// Exactly these releases (what `infer` chose to index), whichever the index lists.
    Exact(Vec<Version>),
}

impl Selection {
    /// The chosen versions among `versions` (sorted oldest first).
    pub fn pick<'a>(&self, versions: &[&'a Version]) -> Vec<&'a Version> {
        match self {
            Selection::All => versions.to_vec(),
            Selection::Exact(wanted) => versions
                .iter()
                .copied()
                .filter(|v| wanted.contains(v))
                .collect(),
            Selection::Matching(spec) => versions
                .iter()
                .copied()
                .filter(|v| spec.contains(v))
                .collect(),
            Selection::Latest(n) => latest(versions.to_vec(), *n),
            Selection::Any(all) => {
                let picked: Vec<&Version> = all.iter().flat_map(|s| s.pick(versions)).collect();
                versions
                    .iter()
                    .copied()
                    .filter(|v| picked.contains(v))
                    .collect()
            }
            Selection::LatestMatching(n, spec) => latest(
                versions
                    .iter()
                    .copied()
                    .filter(|v| spec.contains(v))
                    .collect(),
                *n,
            ),
        }
    }
}

/// As a user would write it: `all releases`, `the latest 3`, `>=0.17,<0.21`.
impl std::fmt::Display for Selection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Selection::All => f.write_str("any version"),
            Selection::Latest(n) => write!(f, "the latest {n}"),
            Selection::Matching(spec) => write!(f, "`{spec}`"),
            Selection::LatestMatching(n, spec) => write!(f, "`{spec}` (the latest {n})"),
            Selection::Exact(versions) => {
                for (i, v) in versions.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "=={v}")?;
                }
                Ok(())
            }
            Selection::Any(all) => {
                for (i, s) in all.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" or ")?;
                    }
                    write!(f, "{s}")?;
                }
                Ok(())
            }
        }
    }
}

impl Selection {
    /// Merges `other` into `self`.
    pub fn or(self, other: Selection) -> Selection {
        match (self, other) {
            (Selection::All, _) | (_, Selection::All) => Selection::All,
            (Selection::Any(mut a), Selection::Any(b)) => {
                a.extend(b);
                Selection::Any(a)
            }
            (Selection::Any(mut a), s) | (s, Selection::Any(mut a)) => {
                a.push(s);
                Selection::Any(a)
            }
            (a, b) => Selection::Any(vec![a, b]),
        }
    }
}

fn latest(versions: Vec<&Version>, n: usize) -> Vec<&Version> {
    let finals: Vec<&Version> = versions
        .iter()
        .copied()
        .filter(|v| !v.any_prerelease())
        .collect();
    let pool = if finals.is_empty() { versions } else { finals };
    pool[pool.len().saturating_sub(n)..].to_vec()
}

#[cfg(test)]
mod tests {
    use std::str::FromStr;

    use super::*;

    #[test]
    fn picks() {
        let vs: Vec<Version> = ["0.17", "0.18", "0.19", "0.20rc1", "0.20"]
            .iter()
            .map(|v| Version::from_str(v).unwrap())
            .collect();
        let refs: Vec<&Version> = vs.iter().collect();
        let show = |p: Vec<&Version>| {
            p.iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        };
        assert_eq!(show(Selection::Latest(2).pick(&refs)), "0.19 0.20");
        let spec = VersionSpecifiers::from_str(">=0.18,<0.20").unwrap();
        assert_eq!(show(Selection::Matching(spec).pick(&refs)), "0.18 0.19");
        assert_eq!(Selection::All.pick(&refs).len(), 5);
    }
}
