//! Python 2 evidence in the token stream. The recovering parser turns `print "x"` into two
//! statements and an error; the tokens say plainly what was written.

use ruff_python_ast::token::{Token, TokenKind};
use ruff_text_size::{Ranged, TextSize};

/// Whether a token after one of this kind begins a statement (`print` there is Python 2's
/// statement, not the function).
pub(crate) fn begins_statement_after(kind: TokenKind) -> bool {
    matches!(
        kind,
        TokenKind::Newline
            | TokenKind::NonLogicalNewline
            | TokenKind::Indent
            | TokenKind::Dedent
            | TokenKind::Colon
            | TokenKind::Semi
    )
}

/// Python 2 constructs found in one source, with the offset of each.
pub(crate) fn scan_tokens(
    source: &str,
    tokens: &[Token],
    mut found: impl FnMut(&'static str, TextSize),
) {
    let mut prev: Option<&Token> = None;
    let mut backticks = 0u32;
    for (i, tok) in tokens.iter().enumerate() {
        let text = &source[tok.range()];
        let next = tokens[i + 1..]
            .iter()
            .find(|t| !matches!(t.kind(), TokenKind::Comment));
        match tok.kind() {
            TokenKind::Name if text == "print" || text == "exec" => {
                let at_line_start = prev.is_none_or(|p| begins_statement_after(p.kind()));
                let statement_arg = next.is_some_and(|n| {
                    matches!(
                        n.kind(),
                        TokenKind::String
                            | TokenKind::Name
                            | TokenKind::Int
                            | TokenKind::Float
                            | TokenKind::FStringStart
                            | TokenKind::RightShift
                    )
                });
                if at_line_start && statement_arg {
                    found(
                        if text == "print" {
                            "print statement"
                        } else {
                            "exec statement"
                        },
                        tok.start(),
                    );
                }
            }
            TokenKind::Name
                if matches!(text, "ur" | "UR" | "Ur" | "uR")
                    && next.is_some_and(|n| {
                        n.kind() == TokenKind::String && n.start() == tok.end()
                    }) =>
            {
                found("`ur''` string prefix", tok.start());
            }
            TokenKind::Int
                if next.is_some_and(|n| {
                    n.kind() == TokenKind::Name
                        && n.start() == tok.end()
                        && matches!(&source[n.range()], "L" | "l")
                }) =>
            {
                found("long integer literal `10L`", tok.start());
            }
            TokenKind::Unknown => {
                if text == "`" {
                    // one report per pair of backticks
                    if backticks.is_multiple_of(2) {
                        found("backtick repr", tok.start());
                    }
                    backticks += 1;
                } else if text.len() > 1
                    && text.starts_with('0')
                    && text.bytes().all(|b| b.is_ascii_digit())
                {
                    found("octal literal `0777`", tok.start());
                }
            }
            TokenKind::Less
                if next
                    .is_some_and(|n| n.kind() == TokenKind::Greater && n.start() == tok.end()) =>
            {
                found("`<>` operator", tok.start());
            }
            _ => {}
        }
        if tok.kind() != TokenKind::Comment {
            prev = Some(tok);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ruff_python_parser::{parse_unchecked, Mode, ParseOptions};

    fn found(src: &str) -> Vec<&'static str> {
        let parsed = parse_unchecked(src, ParseOptions::from(Mode::Ipython));
        let mut out = Vec::new();
        scan_tokens(src, parsed.tokens(), |what, _| out.push(what));
        out
    }

    #[test]
    fn python2_constructs() {
        assert_eq!(found("print 'hello'\n"), ["print statement"]);
        assert_eq!(found("print >>sys.stderr, x\n"), ["print statement"]);
        assert_eq!(found("if x: print x\n"), ["print statement"]);
        assert_eq!(found("exec code in ns\n"), ["exec statement"]);
        assert_eq!(found("s = ur'abc'\n"), ["`ur''` string prefix"]);
        assert_eq!(found("n = 10L\n"), ["long integer literal `10L`"]);
        assert_eq!(found("m = 0777\n"), ["octal literal `0777`"]);
        assert_eq!(found("y = `x`\n"), ["backtick repr"]);
        assert_eq!(found("if a <> b: pass\n"), ["`<>` operator"]);
    }

    #[test]
    fn python3_code_is_quiet() {
        assert!(found(
            "print('x')\nprint\nprint(x, end='')\nf = print\nx = 10\nn = 0\na < b > c\n"
        )
        .is_empty());
    }
}
