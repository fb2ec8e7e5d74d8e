//! PEP 508 requirements, parsed so that malformed text is always an error.

use std::str::FromStr;

use pep508_rs::Requirement;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{text}` is not a PEP 508 requirement: {message}")]
pub struct InvalidRequirement {
    pub text: String,
    pub message: String,
}

/// Parses a PEP 508 requirement (`pkg[extra]>=1 ; python_version < "3"`).
///
/// Every parse of outside text goes through here: pep508_rs 0.9.2 panics on a name that ends
/// in `.`, `-` or `_` and is followed by more text (`a-!`, `s. >=1`), and on some non-ASCII
/// text in markers (it slices inside a character), so such text is refused first.
pub fn parse_requirement(text: &str) -> Result<Requirement, InvalidRequirement> {
    let invalid = |message: String| InvalidRequirement {
        text: text.to_string(),
        message,
    };
    if let Some(c) = text.chars().find(|c| !c.is_ascii()) {
        return Err(invalid(format!("`{c}` is not ASCII")));
    }
    let trimmed = text.trim_start();
    let name_end = trimmed
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_')))
        .unwrap_or(trimmed.len());
    if let Some(last @ ('.' | '-' | '_')) = trimmed[..name_end].chars().last() {
        return Err(invalid(format!(
            "the name must end with a letter or digit, not `{last}`"
        )));
    }
    // pep508_rs reads an extra's characters, then panics when they do not make a name
    // (`x[a.]`): the same rule, checked first.
    let after = trimmed[name_end..].trim_start();
    if let Some(rest) = after.strip_prefix('[') {
        // Unclosed too: the parser reads the extras before it finds the bracket missing.
        let extras = rest.split_once(']').map_or(rest, |(extras, _)| extras);
        let bad = |c: char| matches!(c, '.' | '-' | '_');
        let malformed = extras.split(',').map(str::trim).find(|e| {
            e.chars().all(|c| c.is_ascii_alphanumeric() || bad(c))
                && (e.starts_with(bad) || e.ends_with(bad))
        });
        if let Some(extra) = malformed {
            return Err(invalid(format!(
                "the extra `{extra}` must start and end with a letter or digit"
            )));
        }
    }
    Requirement::from_str(text).map_err(|e| invalid(e.message.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn malformed_names_are_errors_not_panics() {
        // Reproduced: each of these panicked inside pep508_rs.
        for text in ["a-!", "s. >=1", "pkg_ [x]", "x- ; python_version < '3'"] {
            assert!(parse_requirement(text).is_err(), "{text}");
        }
        // Reproduced (a proptest over core metadata): a slice inside `\u{fffd}` panicked.
        assert!(parse_requirement("a ; python_version !=\"A\"\u{fffd} '").is_err());
        // Reproduced (the same proptest): an extra that is not a name panicked.
        for text in [
            "aaaaaaa[aa,vybr.]",
            "x[.a] >=1",
            "x [a, b-] ; python_version < '3'",
        ] {
            assert!(parse_requirement(text).is_err(), "{text}");
        }
        for text in ["a-", "_a", ""] {
            assert!(parse_requirement(text).is_err(), "{text}");
        }
        let r = parse_requirement("  Foo.Bar_baz-2[x] (>=1.0) ; extra == 'y'").unwrap();
        assert_eq!(r.name.as_ref(), "foo-bar-baz-2");
        assert_eq!(r.to_string(), "foo-bar-baz-2[x]>=1.0 ; extra == 'y'");
    }
}
