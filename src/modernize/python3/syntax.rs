//! Python 2 syntax rewritten from the token stream, where the parser cannot help (it reads
//! `print x` as two statements and an error): print and exec statements, `except E, e`,
//! `raise E, msg`, backticks, `<>`, `0777`, `10L` and `ur''`. Each rewrite is a few small
//! edits around the tokens, so rewrites nested in one another (a backtick inside a print
//! statement) do not collide.

use ruff_python_ast::token::{Token, TokenKind};
use ruff_text_size::{Ranged, TextSize};

use super::rule::Rule;
use super::Edit;
use crate::notebook::begins_statement_after;

/// The edits that make `source`'s Python 2 syntax Python 3, from its tokens, and the offsets
/// of `print (a, b)` statements, which print a tuple in Python 2 and its items in Python 3.
pub(super) fn edits(source: &str, tokens: &[Token]) -> (Vec<Edit>, Vec<TextSize>) {
    let toks: Vec<&Token> = tokens
        .iter()
        .filter(|t| t.kind() != TokenKind::Comment)
        .collect();
    let text = |t: &Token| &source[t.range()];
    let mut out = Vec::new();
    let mut tuples = Vec::new();
    let mut backtick_open: Option<usize> = None;
    for (i, tok) in toks.iter().enumerate() {
        let next = toks.get(i + 1).copied();
        let at_statement_start = i == 0 || begins_statement_after(toks[i - 1].kind());
        match tok.kind() {
            TokenKind::Name if text(tok) == "print" && at_statement_start => {
                if prints_a_tuple(&toks, i) {
                    tuples.push(tok.start());
                }
                print_statement(source, &toks, i, &mut out);
            }
            TokenKind::Name
                if text(tok) == "exec"
                    && at_statement_start
                    && next.is_some_and(|n| starts_expression(n.kind())) =>
            {
                exec_statement(&toks, i, &mut out);
            }
            TokenKind::Except => comma_clause(&toks, i, Rule::ExceptAs, &mut out),
            TokenKind::Raise => comma_clause(&toks, i, Rule::RaiseCall, &mut out),
            TokenKind::Name
                if matches!(text(tok), "ur" | "UR" | "Ur" | "uR")
                    && next.is_some_and(|n| {
                        n.kind() == TokenKind::String && n.start() == tok.end()
                    }) =>
            {
                let r = &text(tok)[1..];
                out.push(Edit::replace(
                    tok.start(),
                    tok.end(),
                    r,
                    Rule::UnicodeRawString,
                ));
            }
            TokenKind::Int
                if next.is_some_and(|n| {
                    n.kind() == TokenKind::Name
                        && n.start() == tok.end()
                        && matches!(text(n), "L" | "l")
                }) =>
            {
                let n = next.expect("matched above");
                out.push(Edit::replace(n.start(), n.end(), "", Rule::LongLiteral));
            }
            TokenKind::Unknown if text(tok) == "`" => match backtick_open.take() {
                None => backtick_open = Some(i),
                Some(open) => {
                    let o = toks[open];
                    out.push(Edit::replace(o.start(), o.end(), "repr(", Rule::Backticks));
                    out.push(Edit::replace(tok.start(), tok.end(), ")", Rule::Backticks));
                }
            },
            TokenKind::Unknown | TokenKind::Int if is_old_octal(text(tok)) => {
                let digits = text(tok).trim_start_matches('0');
                let new = format!("0o{digits}");
                out.push(Edit::replace(
                    tok.start(),
                    tok.end(),
                    &new,
                    Rule::OctalLiteral,
                ));
            }
            TokenKind::Less
                if next
                    .is_some_and(|n| n.kind() == TokenKind::Greater && n.start() == tok.end()) =>
            {
                let n = next.expect("matched above");
                out.push(Edit::replace(tok.start(), n.end(), "!=", Rule::NotEqual));
            }
            TokenKind::Newline => backtick_open = None,
            _ => {}
        }
    }
    (out, tuples)
}

/// `print (a, b)`: one parenthesized group with a comma at its top level is the whole
/// statement.
fn prints_a_tuple(toks: &[&Token], i: usize) -> bool {
    if toks.get(i + 1).map(|t| t.kind()) != Some(TokenKind::Lpar) {
        return false;
    }
    let mut depth = 0i32;
    let mut comma = false;
    for (j, t) in toks.iter().enumerate().skip(i + 1) {
        match t.kind() {
            TokenKind::Lpar | TokenKind::Lsqb | TokenKind::Lbrace => depth += 1,
            TokenKind::Rpar | TokenKind::Rsqb | TokenKind::Rbrace => {
                depth -= 1;
                if depth == 0 {
                    let last = toks.get(j + 1).is_none_or(|n| ends_statement(n.kind()));
                    return comma && last;
                }
            }
            TokenKind::Comma if depth == 1 => comma = true,
            _ => {}
        }
    }
    false
}

/// `0777`: a leading zero before other digits, which Python 3 refuses (`00` it takes).
fn is_old_octal(text: &str) -> bool {
    text.len() > 1
        && text.starts_with('0')
        && text.bytes().all(|b| (b'0'..=b'7').contains(&b))
        && text.bytes().any(|b| b != b'0')
}

/// Whether a token can begin the operand of a Python 2 statement (`print -x`, `print [1]`).
/// Within a notebook known to be Python 2, `print` followed by one of these is the statement.
fn starts_expression(kind: TokenKind) -> bool {
    matches!(
        kind,
        TokenKind::String
            | TokenKind::Name
            | TokenKind::Int
            | TokenKind::Float
            | TokenKind::Complex
            | TokenKind::FStringStart
            | TokenKind::Minus
            | TokenKind::Plus
            | TokenKind::Tilde
            | TokenKind::Lsqb
            | TokenKind::Lbrace
            | TokenKind::Not
            | TokenKind::Lambda
            | TokenKind::None
            | TokenKind::True
            | TokenKind::False
            | TokenKind::Unknown
    )
}

fn ends_statement(kind: TokenKind) -> bool {
    matches!(
        kind,
        TokenKind::Newline | TokenKind::Semi | TokenKind::EndOfFile | TokenKind::Dedent
    )
}

/// The index of the token that ends the simple statement starting after `from` (a newline,
/// `;` or the end), bracket depth considered; and the indexes of its depth-0 commas.
fn statement_end(toks: &[&Token], from: usize) -> (usize, Vec<usize>) {
    let mut depth = 0i32;
    let mut commas = Vec::new();
    let mut j = from;
    while j < toks.len() {
        let k = toks[j].kind();
        match k {
            TokenKind::Lpar | TokenKind::Lsqb | TokenKind::Lbrace => depth += 1,
            TokenKind::Rpar | TokenKind::Rsqb | TokenKind::Rbrace => depth -= 1,
            TokenKind::Comma if depth == 0 => commas.push(j),
            _ if depth <= 0 && ends_statement(k) => break,
            _ => {}
        }
        j += 1;
    }
    (j, commas)
}

/// `print x, y` → `print(x, y)`; `print x,` → `print(x, end=' ')`; `print >>f, x` →
/// `print(x, file=f)`; a bare `print` → `print()`.
fn print_statement(source: &str, toks: &[&Token], i: usize, out: &mut Vec<Edit>) {
    let p = toks[i];
    let Some(next) = toks.get(i + 1) else {
        out.push(Edit::insert(p.end(), "()", Rule::PrintFunction));
        return;
    };
    if ends_statement(next.kind()) {
        out.push(Edit::insert(p.end(), "()", Rule::PrintFunction));
        return;
    }
    let chevron = next.kind() == TokenKind::RightShift;
    if !chevron && !starts_expression(next.kind()) {
        return;
    }
    let (end, commas) = statement_end(toks, i + 1);
    if end == i + 1 {
        return;
    }
    let last = toks[end - 1];
    let trailing = last.kind() == TokenKind::Comma;
    let mut tail = String::new();
    let mut args_start = next.start();
    if chevron {
        let file_end = commas.first().copied().unwrap_or(end);
        let Some(file_first) = toks.get(i + 2).filter(|_| i + 2 < file_end) else {
            return;
        };
        let file = &source[file_first.start().to_usize()..toks[file_end - 1].end().to_usize()];
        tail = format!("file={file}");
        if file_end == end || (trailing && commas.len() == 1) {
            // `print >>f` or `print >>f,`: no values.
            let end_text = if trailing { ", end=' '" } else { "" };
            let new = format!("({tail}{end_text})");
            out.push(Edit::replace(
                p.end(),
                last.end(),
                &new,
                Rule::PrintFunction,
            ));
            return;
        }
        args_start = toks[file_end + 1].start();
    }
    // A trailing comma stays, as the separator before `end=`.
    let keywords: Vec<&str> = [
        trailing.then_some("end=' '"),
        chevron.then_some(tail.as_str()),
    ]
    .into_iter()
    .flatten()
    .collect();
    let closing = match (trailing, keywords.is_empty()) {
        (_, true) => ")".to_string(),
        (true, false) => format!(" {})", keywords.join(", ")),
        (false, false) => format!(", {})", keywords.join(", ")),
    };
    out.push(Edit::replace(p.end(), args_start, "(", Rule::PrintFunction));
    out.push(Edit::insert(last.end(), &closing, Rule::PrintFunction));
}

/// `exec code` → `exec(code)`; `exec code in g, l` → `exec(code, g, l)`.
fn exec_statement(toks: &[&Token], i: usize, out: &mut Vec<Edit>) {
    let e = toks[i];
    let (end, _) = statement_end(toks, i + 1);
    if end <= i + 1 {
        return;
    }
    let mut depth = 0i32;
    let mut in_at = None;
    for (j, t) in toks.iter().enumerate().take(end).skip(i + 1) {
        match t.kind() {
            TokenKind::Lpar | TokenKind::Lsqb | TokenKind::Lbrace => depth += 1,
            TokenKind::Rpar | TokenKind::Rsqb | TokenKind::Rbrace => depth -= 1,
            TokenKind::In if depth == 0 => in_at = Some(j),
            _ => {}
        }
    }
    out.push(Edit::replace(
        e.end(),
        toks[i + 1].start(),
        "(",
        Rule::ExecFunction,
    ));
    if let Some(j) = in_at.filter(|&j| j > i + 1 && j + 1 < end) {
        out.push(Edit::replace(
            toks[j - 1].end(),
            toks[j + 1].start(),
            ", ",
            Rule::ExecFunction,
        ));
    }
    out.push(Edit::insert(toks[end - 1].end(), ")", Rule::ExecFunction));
}

/// `except E, e:` → `except E as e:`; `raise E, msg` → `raise E(msg)`, and with a traceback
/// `raise E, msg, tb` → `raise E(msg).with_traceback(tb)`: a comma at depth 0 after the
/// keyword is Python 2's form.
fn comma_clause(toks: &[&Token], i: usize, rule: Rule, out: &mut Vec<Edit>) {
    let (end, commas) = if rule == Rule::ExceptAs {
        clause_to_colon(toks, i + 1)
    } else {
        statement_end(toks, i + 1)
    };
    let Some(&first) = commas.first() else {
        return;
    };
    if first == i + 1 || first + 1 >= end {
        return;
    }
    match rule {
        Rule::ExceptAs => {
            if commas.len() != 1 {
                return;
            }
            out.push(Edit::replace(
                toks[first - 1].end(),
                toks[first + 1].start(),
                " as ",
                rule,
            ));
        }
        _ => {
            out.push(Edit::replace(
                toks[first - 1].end(),
                toks[first + 1].start(),
                "(",
                rule,
            ));
            match commas.get(1) {
                Some(&second) if second + 1 < end => {
                    out.push(Edit::replace(
                        toks[second - 1].end(),
                        toks[second + 1].start(),
                        ").with_traceback(",
                        rule,
                    ));
                }
                Some(_) => return,
                None => {}
            }
            out.push(Edit::insert(toks[end - 1].end(), ")", rule));
        }
    }
}

/// Like [`statement_end`], up to the clause's `:` at depth 0.
fn clause_to_colon(toks: &[&Token], from: usize) -> (usize, Vec<usize>) {
    let mut depth = 0i32;
    let mut commas = Vec::new();
    let mut j = from;
    while j < toks.len() {
        match toks[j].kind() {
            TokenKind::Lpar | TokenKind::Lsqb | TokenKind::Lbrace => depth += 1,
            TokenKind::Rpar | TokenKind::Rsqb | TokenKind::Rbrace => depth -= 1,
            TokenKind::Comma if depth == 0 => commas.push(j),
            TokenKind::Colon if depth == 0 => break,
            k if ends_statement(k) => return (j, Vec::new()),
            _ => {}
        }
        j += 1;
    }
    (j, commas)
}
