//! How deeply a cell nests brackets, read before it is parsed. The parser recurses once per
//! bracket and keeps every open level: a 4 MB cell of `((((…` took gigabytes. CPython's own
//! tokenizer refuses more than 200 open brackets ("too many nested parentheses"), so a cell
//! past that could never have run, and is not parsed at all.

/// Brackets open at once beyond which a cell is not parsed: CPython's `MAXLEVEL`.
pub(crate) const MAX_DEPTH: usize = 200;

/// Where `source` first opens more than [`MAX_DEPTH`] brackets (a byte offset), if it does.
/// Brackets in strings and comments do not count; the scan is one pass over the bytes.
pub(crate) fn too_deep(source: &str) -> Option<usize> {
    let bytes = source.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Some(i);
                }
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            quote @ (b'\'' | b'"') => {
                i = string_end(bytes, i, quote);
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// The offset just past the string that starts with `quote` at `start`: a triple-quoted one
/// runs to its closing triple, any other to its closing quote or the end of its line.
fn string_end(bytes: &[u8], start: usize, quote: u8) -> usize {
    let triple = bytes.get(start..start + 3) == Some(&[quote; 3][..]);
    let mut i = start + if triple { 3 } else { 1 };
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 1,
            b'\n' if !triple => return i,
            b if b == quote => {
                if !triple {
                    return i + 1;
                }
                if bytes.get(i..i + 3) == Some(&[quote; 3][..]) {
                    return i + 3;
                }
            }
            _ => {}
        }
        i += 1;
    }
    bytes.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deep_brackets_are_found_where_they_pass_the_limit() {
        let ok = format!("x = {}1{}", "(".repeat(MAX_DEPTH), ")".repeat(MAX_DEPTH));
        assert_eq!(too_deep(&ok), None);
        let deep = format!("x = {}", "[".repeat(MAX_DEPTH + 1));
        assert_eq!(too_deep(&deep), Some(4 + MAX_DEPTH));
        // Closed brackets do not add up.
        assert_eq!(too_deep(&"f(x)\n".repeat(10_000)), None);
        let mixed = format!("{}{}", "{1: [".repeat(MAX_DEPTH), "]}".repeat(MAX_DEPTH));
        assert!(too_deep(&mixed).is_some());
    }

    #[test]
    fn brackets_in_strings_and_comments_do_not_count() {
        let many = "(".repeat(MAX_DEPTH * 2);
        for source in [
            format!("s = '{many}'"),
            format!("s = \"{many}\""),
            format!("s = '''\n{many}\n'''"),
            format!("s = \"\"\"a\"b\n{many}\"\"\""),
            format!("s = 'it\\'s {many}'"),
            format!("# {many}\nx = 1"),
            format!("s = r'\\' {many}'"),
        ] {
            assert_eq!(too_deep(&source), None, "{source}");
        }
        // An unterminated string ends with its line.
        let after = format!("s = 'open\nx = {}", "(".repeat(MAX_DEPTH + 1));
        assert!(too_deep(&after).is_some());
    }
}
