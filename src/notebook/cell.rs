//! Turning a code cell into what IPython would run: cell magics are recognised before parsing
//! (the parser only sees their first line), and an indented cell is dedented the way IPython's
//! `leading_indent` transform does.

use std::borrow::Cow;

/// A code cell, split the way IPython splits it.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum CellCode<'a> {
    /// Python with IPython escapes. `line_offset` is added to the parser's line numbers.
    Python {
        source: Cow<'a, str>,
        line_offset: u32,
    },
    /// `%%name args` on line `line`, then `body` starting on line `line + 1`.
    CellMagic {
        name: &'a str,
        args: &'a str,
        line: u32,
        body: &'a str,
    },
}

/// Splits a code cell's source.
pub(crate) fn split(source: &str) -> CellCode<'_> {
    // Leading blank lines do not count (IPython drops them), but they do shift line numbers.
    let mut offset = 0usize;
    let mut skipped = 0u32;
    for line in source.split_inclusive('\n') {
        if line.trim().is_empty() {
            offset += line.len();
            skipped += 1;
        } else {
            break;
        }
    }
    let rest = &source[offset..];
    let trimmed = rest.trim_start_matches([' ', '\t']);
    if let Some(magic) = trimmed.strip_prefix("%%") {
        let (first, body) = match magic.find('\n') {
            Some(i) => (&magic[..i], &magic[i + 1..]),
            None => (magic, ""),
        };
        let first = first.trim_end_matches('\r');
        let (name, args) = match first.find(char::is_whitespace) {
            Some(i) => (&first[..i], first[i..].trim()),
            None => (first, ""),
        };
        return CellCode::CellMagic {
            name,
            args,
            line: skipped + 1,
            body,
        };
    }
    CellCode::Python {
        source: dedent(rest),
        line_offset: skipped,
    }
}

/// If the first line is indented, removes that indentation from every line that has it.
fn dedent(source: &str) -> Cow<'_, str> {
    let indent_len = source.len() - source.trim_start_matches([' ', '\t']).len();
    if indent_len == 0 {
        return Cow::Borrowed(source);
    }
    let indent = &source[..indent_len];
    let mut out = String::with_capacity(source.len());
    for line in source.split_inclusive('\n') {
        out.push_str(line.strip_prefix(indent).unwrap_or(line));
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cell_magics_are_split_off() {
        assert_eq!(
            split("\n%%writefile helpers.py\nimport numpy\n"),
            CellCode::CellMagic {
                name: "writefile",
                args: "helpers.py",
                line: 2,
                body: "import numpy\n"
            }
        );
        assert_eq!(
            split("%%cython"),
            CellCode::CellMagic {
                name: "cython",
                args: "",
                line: 1,
                body: ""
            }
        );
    }

    #[test]
    fn python_is_dedented_with_line_offset() {
        assert_eq!(
            split("\n\n  %matplotlib inline\n  import a\n"),
            CellCode::Python {
                source: Cow::Owned("%matplotlib inline\nimport a\n".into()),
                line_offset: 2
            }
        );
        assert!(matches!(
            split("import a\n  # x\n"),
            CellCode::Python {
                source: Cow::Borrowed(_),
                line_offset: 0
            }
        ));
    }
}
