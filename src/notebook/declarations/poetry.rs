//! Poetry's version constraints as PEP 440 specifiers: `^1.2` (`>=1.2,<2`), `~1.2`
//! (`>=1.2,<1.3`), `1.2.*`, a bare `1.2.3` (`==1.2.3`), `*`, and comma-joined PEP 440-style
//! comparisons. `||` alternatives have no single PEP 440 equivalent and are not read.

use pep508_rs::pep440_rs::Version;

/// The specifier text to append to a name (empty for any version), or `None` when the
/// constraint is not one poetry reads the same way as this function.
pub(super) fn to_pep440(constraint: &str) -> Option<String> {
    if constraint.contains("||") || constraint.contains('|') {
        return None;
    }
    let mut parts = Vec::new();
    for part in constraint.split(',') {
        let part = part.trim();
        if part.is_empty() || part == "*" {
            continue;
        }
        if let Some(v) = part.strip_prefix('^') {
            parts.push(caret(v.trim())?);
        } else if part.starts_with("~=") {
            parts.push(part.to_string());
        } else if let Some(v) = part.strip_prefix('~') {
            parts.push(tilde(v.trim())?);
        } else if part.starts_with(['<', '>', '=', '!']) {
            parts.push(part.replace(' ', ""));
        } else {
            // A bare version, possibly with a wildcard.
            parts.push(format!("=={part}"));
        }
    }
    Some(parts.join(","))
}

/// The numeric components of a plain release (`1.2.3`), at most three.
fn components(v: &str) -> Option<Vec<u64>> {
    let version: Version = v.parse().ok()?;
    if version.any_prerelease() || version.is_post() || version.is_local() || v.contains('*') {
        return None;
    }
    let given = v.split('.').count();
    let release = version.release();
    (given == release.len() && given <= 3).then(|| release.to_vec())
}

/// `^1.2.3` → `>=1.2.3,<2.0.0`; `^0.2.3` → `<0.3.0`; `^0.0.3` → `<0.0.4`: the first
/// non-zero component may not change.
fn caret(v: &str) -> Option<String> {
    let c = components(v)?;
    let bump = c.iter().position(|&x| x != 0).unwrap_or(c.len() - 1);
    Some(format!(">={v},<{}", upper(&c[..=bump])))
}

/// `~1.2.3` → `>=1.2.3,<1.3.0`; `~1` → `>=1,<2`.
fn tilde(v: &str) -> Option<String> {
    let c = components(v)?;
    let keep = if c.len() == 1 { 1 } else { 2 };
    Some(format!(">={v},<{}", upper(&c[..keep])))
}

/// The given components with the last one raised by one (`[0, 2]` → `0.3`).
fn upper(c: &[u64]) -> String {
    let mut c = c.to_vec();
    if let Some(last) = c.last_mut() {
        *last += 1;
    }
    c.iter().map(u64::to_string).collect::<Vec<_>>().join(".")
}

#[cfg(test)]
mod tests {
    use super::to_pep440;

    #[test]
    fn poetry_constraints() {
        let p = |s: &str| to_pep440(s);
        assert_eq!(p("^1.2.3").as_deref(), Some(">=1.2.3,<2"));
        assert_eq!(p("^0.2.3").as_deref(), Some(">=0.2.3,<0.3"));
        assert_eq!(p("^0.0.3").as_deref(), Some(">=0.0.3,<0.0.4"));
        assert_eq!(p("^0").as_deref(), Some(">=0,<1"));
        assert_eq!(p("~1.2.3").as_deref(), Some(">=1.2.3,<1.3"));
        assert_eq!(p("~1").as_deref(), Some(">=1,<2"));
        assert_eq!(p("~=1.2").as_deref(), Some("~=1.2"));
        assert_eq!(p("1.2.3").as_deref(), Some("==1.2.3"));
        assert_eq!(p("1.2.*").as_deref(), Some("==1.2.*"));
        assert_eq!(p(">= 1.2, < 1.5").as_deref(), Some(">=1.2,<1.5"));
        assert_eq!(p("*").as_deref(), Some(""));
        assert_eq!(p("^1.2 || ^2.0"), None);
        assert_eq!(p("^1.0a1"), None);
    }
}
