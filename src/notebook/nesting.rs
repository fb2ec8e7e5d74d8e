//! How deeply a cell nests, read before it is parsed. The parser recurses once per bracket
//! and once per operator that nests to its right (`-`, `not`, `**`, `lambda`, `… else`), and
//! keeps every open level: a 4 MB cell of `((((…` took gigabytes, and so did one of `----…`.
//! CPython refuses both long before: its tokenizer allows 200 open brackets ("too many nested
//! parentheses"), and its parser and compiler stop a chain of nested operators at a few
//! thousand (`-` × 5,967 fails on 3.13, × 1,480 on 3.6; 2.7 and 3.8 crash). A cell past
//! either limit could never have run, and is not parsed at all.

/// Brackets open at once beyond which a cell is not parsed: CPython's `MAXLEVEL`.
pub(crate) const MAX_DEPTH: usize = 200;

/// Operators nested to the right beyond which a cell is not parsed: above what any CPython
/// compiles (5,966 unary minus signs on 3.13), far below what costs memory here (~1 KB each).
pub(crate) const MAX_CHAIN: usize = 6_000;

/// What a cell nests too deeply, and where it first does (a byte offset).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TooDeep {
    Brackets(usize),
    Operators(usize),
}

impl TooDeep {
    pub(crate) fn offset(self) -> usize {
        match self {
            TooDeep::Brackets(at) | TooDeep::Operators(at) => at,
        }
    }
}

/// Where `source` first nests past [`MAX_DEPTH`] brackets or [`MAX_CHAIN`] operators, if it
/// does. Brackets and operators in strings and comments do not count; the scan is one pass
/// over the bytes.
///
/// An operator nests to its right when what follows it is its operand: a prefix `-`, `+`, `~`,
/// `not`, `await` or `lambda`, a `**` (right-associative), an `else` of a conditional
/// expression. Anything that ends such an operand (another binary operator, `,`, `=`, `:`,
/// a closing bracket, the end of the logical line) ends the chain: `[-1, -2, …]` and
/// `-a + -b + …` nest nothing, however long.
pub(crate) fn too_deep(source: &str) -> Option<TooDeep> {
    let bytes = source.as_bytes();
    // One chain per open bracket level, the outermost first; `lambdas` holds the bracket
    // levels of `lambda`s whose `:` is still to come (that `:` continues the chain).
    let mut chains: Vec<usize> = vec![0];
    let mut lambdas: Vec<usize> = Vec::new();
    let mut nested = 0usize;
    // Whether the last token ends an operand (a name, a number, a string, a closing
    // bracket): a `-` after it is binary, elsewhere prefix.
    let mut after_operand = false;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let depth = chains.len() - 1;
        match b {
            b'(' | b'[' | b'{' => {
                if depth + 1 > MAX_DEPTH {
                    return Some(TooDeep::Brackets(i));
                }
                chains.push(0);
                after_operand = false;
            }
            b')' | b']' | b'}' => {
                if chains.len() > 1 {
                    nested -= chains.pop().unwrap_or(0);
                }
                lambdas.retain(|&level| level < chains.len());
                after_operand = true;
            }
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'\\' => i += 1, // a line continued: the newline does not end it
            b'\n' => {
                if depth == 0 {
                    end_chain(&mut chains, &mut nested);
                    lambdas.clear();
                    after_operand = false;
                }
            }
            b' ' | b'\t' | b'\r' | b'\x0c' => {}
            b'\'' | b'"' => {
                i = string_end(bytes, i, b);
                after_operand = true;
                continue;
            }
            b'0'..=b'9' | b'.' if !after_operand || b != b'.' => {
                // A number, with its exponent's sign (`1e-5`) and any `.`.
                while i < bytes.len()
                    && (bytes[i].is_ascii_alphanumeric()
                        || bytes[i] == b'.'
                        || bytes[i] == b'_'
                        || (matches!(bytes[i], b'-' | b'+') && matches!(bytes[i - 1], b'e' | b'E')))
                {
                    i += 1;
                }
                after_operand = true;
                continue;
            }
            b if b.is_ascii_alphabetic() || b == b'_' || b >= 0x80 => {
                let start = i;
                while i < bytes.len()
                    && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_' || bytes[i] >= 0x80)
                {
                    i += 1;
                }
                match &bytes[start..i] {
                    b"not" | b"await" | b"else" => {
                        if deepen(&mut chains, &mut nested) {
                            return Some(TooDeep::Operators(start));
                        }
                        after_operand = false;
                    }
                    b"lambda" => {
                        if deepen(&mut chains, &mut nested) {
                            return Some(TooDeep::Operators(start));
                        }
                        lambdas.push(depth);
                        after_operand = false;
                    }
                    b"and" | b"or" | b"in" | b"is" | b"for" | b"return" | b"yield" | b"import"
                    | b"from" | b"as" | b"del" | b"assert" | b"raise" => {
                        end_chain_here(&mut chains, &mut nested);
                        after_operand = false;
                    }
                    _ => after_operand = true,
                }
                continue;
            }
            b'.' => after_operand = false, // an attribute: the chain goes on
            _ => {
                let len = operator_len(&bytes[i..]);
                let op = &bytes[i..i + len];
                let prefix = matches!(op, b"-" | b"+" | b"~") && !after_operand;
                if prefix || op == b"**" {
                    if deepen(&mut chains, &mut nested) {
                        return Some(TooDeep::Operators(i));
                    }
                } else if lambdas.last() == Some(&depth) {
                    // A lambda's parameters and defaults, up to its `:`: its body nests in it.
                    if op == b":" {
                        lambdas.pop();
                    }
                } else {
                    end_chain_here(&mut chains, &mut nested);
                }
                after_operand = false;
                i += len;
                continue;
            }
        }
        i += 1;
    }
    None
}

/// One more operator nested in the innermost chain; whether all chains now pass the limit.
fn deepen(chains: &mut [usize], nested: &mut usize) -> bool {
    if let Some(last) = chains.last_mut() {
        *last += 1;
    }
    *nested += 1;
    *nested > MAX_CHAIN
}

/// The innermost chain ends (its operand is complete).
fn end_chain_here(chains: &mut [usize], nested: &mut usize) {
    if let Some(last) = chains.last_mut() {
        *nested -= *last;
        *last = 0;
    }
}

/// A logical line ends: every chain does.
fn end_chain(chains: &mut Vec<usize>, nested: &mut usize) {
    chains.truncate(1);
    chains[0] = 0;
    *nested = 0;
}

/// The length of the operator at the start of `rest`: the longest of Python's that matches.
fn operator_len(rest: &[u8]) -> usize {
    const THREE: [&[u8]; 5] = [b"**=", b"//=", b">>=", b"<<=", b"..."];
    const TWO: [&[u8]; 19] = [
        b"**", b"//", b">>", b"<<", b"->", b":=", b"==", b"!=", b"<=", b">=", b"+=", b"-=", b"*=",
        b"/=", b"%=", b"&=", b"|=", b"^=", b"@=",
    ];
    if THREE.iter().any(|op| rest.starts_with(op)) {
        3
    } else if TWO.iter().any(|op| rest.starts_with(op)) {
        2
    } else {
        1
    }
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
        assert_eq!(too_deep(&deep), Some(TooDeep::Brackets(4 + MAX_DEPTH)));
        // Closed brackets do not add up.
        assert_eq!(too_deep(&"f(x)\n".repeat(10_000)), None);
        let mixed = format!("{}{}", "{1: [".repeat(MAX_DEPTH), "]}".repeat(MAX_DEPTH));
        assert!(matches!(too_deep(&mixed), Some(TooDeep::Brackets(_))));
    }

    #[test]
    fn brackets_in_strings_and_comments_do_not_count() {
        let many = "(".repeat(MAX_DEPTH * 2);
        let minus = "-".repeat(MAX_CHAIN * 2);
        for source in [
            format!("s = '{many}'"),
            format!("s = \"{many}\""),
            format!("s = '''\n{many}\n'''"),
            format!("s = \"\"\"a\"b\n{many}\"\"\""),
            format!("s = 'it\\'s {many}'"),
            format!("# {many}\nx = 1"),
            format!("s = r'\\' {many}'"),
            format!("s = '{minus}'"),
            format!("# {minus}\nx = 1"),
        ] {
            assert_eq!(too_deep(&source), None, "{source}");
        }
        // An unterminated string ends with its line.
        let after = format!("s = 'open\nx = {}", "(".repeat(MAX_DEPTH + 1));
        assert!(too_deep(&after).is_some());
    }

    /// Every chain Python nests to the right is counted, at the operator that passes the
    /// limit; below the limit nothing is found.
    #[test]
    fn operators_nested_to_the_right_are_counted() {
        let n = MAX_CHAIN + 1;
        let chains = [
            ("x = ", "-", "1"),
            ("x = ", "- ", "1"),
            ("x = ", "+", "1"),
            ("x = ", "~", "1"),
            ("x = ", "not ", "y"),
            ("x = ", "-~+", "1"),
            ("x = ", "2**", "2"),
            ("x = ", "a if b else ", "c"),
            ("f = ", "lambda: ", "1"),
            ("f = ", "lambda a, b=1: ", "a"),
            ("async def f():\n    x = ", "await ", "y"),
            ("x = (", "-", "1)"),
            ("x = ", "-(", "1"),
        ];
        for (head, op, tail) in chains {
            let repeat = if op == "-~+" { n / 3 + 1 } else { n };
            let deep = format!("{head}{}{tail}", op.repeat(repeat));
            assert!(too_deep(&deep).is_some(), "{head}{op}…");
            let fine = format!("{head}{}{tail}", op.repeat(MAX_CHAIN / 4));
            if op != "-(" {
                assert_eq!(too_deep(&fine), None, "{head}{op}…");
            }
        }
        let at = too_deep(&format!("x = {}1", "-".repeat(n)));
        assert_eq!(at, Some(TooDeep::Operators(4 + MAX_CHAIN)));
    }

    /// Long code that nests nothing is never refused: data literals of negative numbers,
    /// sums of negated terms, exponents, keyword arguments, dict literals, chained methods.
    #[test]
    fn long_flat_code_is_not_a_chain() {
        let n = MAX_CHAIN * 3;
        let terms =
            |f: &dyn Fn(usize) -> String, sep: &str| (0..n).map(f).collect::<Vec<_>>().join(sep);
        for source in [
            format!("data = [{}]", terms(&|i| format!("-{i}"), ", ")),
            format!("data = [{}]", terms(&|i| format!("-{i}.5e-3"), ",\n")),
            format!("total = {}", terms(&|i| format!("-a{i}"), " + ")),
            format!("total = {}", terms(&|i| format!("a{i}**2"), " - ")),
            format!("d = {{{}}}", terms(&|i| format!("'k{i}': -{i}"), ", ")),
            format!("f({})", terms(&|i| format!("k{i}=-{i}"), ", ")),
            format!("x = y{}", terms(&|i| format!(".m{i}(-1)"), "")),
            terms(&|i| format!("x{i} = not y if z else -w"), "\n"),
            terms(&|i| format!("x{i} = -1"), "; "),
            terms(&|i| format!("f{i} = lambda a: -a"), "\n"),
            format!("fs = [{}]", terms(&|i| format!("lambda x: -x*{i}"), ", ")),
            format!("x = [{}]", terms(&|_| "a if b else -c".to_string(), ", ")),
            format!("x = (1 -\n{})", terms(&|_| "-1".to_string(), " - \\\n")),
        ] {
            assert_eq!(too_deep(&source), None, "{}", &source[..80]);
        }
    }
}
