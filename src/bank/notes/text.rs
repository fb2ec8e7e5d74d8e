//! Change notes as sentences and table rows. Notes are reStructuredText or Markdown; what
//! matters here is which words are prose and which are code (``` ``DataFrame.sort()`` ```,
//! ``:meth:`~pandas.DataFrame.sort_values` ``, `` `sort_values` ``), and where a sentence,
//! a list item or a table row ends. Everything else of the markup is dropped.

/// A stretch of a sentence: prose, or what the notes mark as code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    Prose(String),
    Code(String),
}

/// A sentence of a notes file: its pieces, its text as written (markup kept, lines joined),
/// and the line it starts on (1-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sentence {
    pub pieces: Vec<Piece>,
    pub text: String,
    pub line: usize,
}

/// A row of a table whose columns say what was used before and what replaces it
/// ("Previous | Replacement").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplacementRow {
    pub old: Vec<Piece>,
    pub new: Vec<Piece>,
    /// The row as a reader sees it: `Previous: ``a()`` | Replacement: ``b()```.
    pub text: String,
    pub line: usize,
}

/// Words a table's first header says the old column with.
const OLD_HEADERS: &[&str] = &["previous", "old", "deprecated", "removed", "before"];
/// Words a table's second header says the new column with.
const NEW_HEADERS: &[&str] = &[
    "replacement",
    "new",
    "use",
    "instead",
    "alternative",
    "after",
    "successor",
];

/// Directives whose argument is prose (`.. deprecated:: 0.17 Use X instead`).
const PROSE_DIRECTIVES: &[&str] = &[
    "deprecated",
    "versionchanged",
    "versionremoved",
    "note",
    "warning",
];

/// Roles whose content is not code (cross references to documents, issues, people).
const PROSE_ROLES: &[&str] = &[
    "ref", "doc", "issue", "pr", "user", "ghissue", "ghpull", "term",
];

/// The sentences of `text`, outside tables: paragraphs and list items, each split at a
/// sentence's end.
pub fn sentences(text: &str) -> Vec<Sentence> {
    let mut out = Vec::new();
    let mut unit: Vec<&str> = Vec::new();
    let mut start = 0;
    let flush = |unit: &mut Vec<&str>, start: usize, out: &mut Vec<Sentence>| {
        if !unit.is_empty() {
            split_sentences(&unit.join(" "), start, out);
            unit.clear();
        }
    };
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let trimmed = line.trim();
        if let Some(end) = table_end(&lines, i) {
            flush(&mut unit, start, &mut out);
            i = end;
            continue;
        }
        let heading = trimmed.starts_with("# ") || trimmed.starts_with("##");
        if trimmed.is_empty() || is_underline(trimmed) || heading {
            flush(&mut unit, start, &mut out);
            i += 1;
            continue;
        }
        if trimmed.starts_with(".. ") {
            flush(&mut unit, start, &mut out);
            // A deprecation's own text (`.. deprecated:: 0.17 Use X`) is prose after `::`.
            if let Some((directive, rest)) = trimmed.split_once(":: ") {
                if PROSE_DIRECTIVES.contains(&directive.trim_start_matches(".. ")) {
                    unit.push(rest);
                    start = i + 1;
                }
            }
            i += 1;
            continue;
        }
        if let Some(item) = bullet_item(trimmed) {
            flush(&mut unit, start, &mut out);
            unit.push(item);
            start = i + 1;
            i += 1;
            continue;
        }
        if unit.is_empty() {
            start = i + 1;
        }
        unit.push(trimmed);
        i += 1;
    }
    flush(&mut unit, start, &mut out);
    out
}

/// The rows of every replacement table in `text` (simple reStructuredText tables and
/// Markdown tables whose headers say old and new).
pub fn replacement_rows(text: &str) -> Vec<ReplacementRow> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        match table_end(&lines, i) {
            Some(end) => {
                out.extend(table_rows(&lines, i, end));
                i = end;
            }
            None => i += 1,
        }
    }
    out
}

/// A list item's text without its bullet (`- `, `* `, `+ `, `#. `, `1. `).
fn bullet_item(line: &str) -> Option<&str> {
    for bullet in ["- ", "* ", "+ ", "#. "] {
        if let Some(rest) = line.strip_prefix(bullet) {
            return Some(rest.trim_start());
        }
    }
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    if digits > 0 {
        if let Some(rest) = line[digits..].strip_prefix(". ") {
            return Some(rest.trim_start());
        }
    }
    None
}

/// A section's underline or overline (`=====`, `-----`, `~~~~`).
fn is_underline(line: &str) -> bool {
    let mut chars = line.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    line.len() >= 3 && first.is_ascii_punctuation() && chars.all(|c| c == first)
}

/// A simple table's border: runs of `=` separated by spaces, at least two columns.
fn is_border(line: &str) -> bool {
    let t = line.trim();
    !t.is_empty() && t.chars().all(|c| c == '=' || c == ' ') && t.split_whitespace().count() >= 2
}

/// A Markdown table's separator row (`|---|:---|`).
fn is_markdown_separator(line: &str) -> bool {
    let t = line.trim();
    t.starts_with('|') && t.contains('-') && t.chars().all(|c| matches!(c, '|' | '-' | ':' | ' '))
}

/// Where the table starting at line `i` ends (the line after it); `None` when no table
/// starts there.
fn table_end(lines: &[&str], i: usize) -> Option<usize> {
    if is_border(lines[i]) {
        // Border, header, border, rows, border.
        let mut borders = 0;
        for (j, line) in lines.iter().enumerate().skip(i) {
            if is_border(line) {
                borders += 1;
                if borders == 3 {
                    return Some(j + 1);
                }
            } else if line.trim().is_empty() && borders < 2 {
                return None;
            }
        }
        return None;
    }
    if lines[i].trim_start().starts_with('|')
        && lines.get(i + 1).is_some_and(|l| is_markdown_separator(l))
    {
        let rows = lines[i + 2..]
            .iter()
            .take_while(|l| l.trim_start().starts_with('|'))
            .count();
        return Some(i + 2 + rows);
    }
    None
}

/// The replacement rows of the table at `lines[start..end]`; none when its headers do not
/// say old and new.
fn table_rows(lines: &[&str], start: usize, end: usize) -> Vec<ReplacementRow> {
    let (headers, rows) = if is_border(lines[start]) {
        simple_table(&lines[start..end], start)
    } else {
        markdown_table(&lines[start..end], start)
    };
    let says = |header: Option<&String>, words: &[&str]| {
        header.is_some_and(|h| {
            let h = h.to_ascii_lowercase();
            words.iter().any(|w| h.contains(w))
        })
    };
    if !(says(headers.first(), OLD_HEADERS) && says(headers.get(1), NEW_HEADERS)) {
        return Vec::new();
    }
    rows.into_iter()
        .filter(|(_, cells)| cells.len() >= 2)
        .map(|(line, cells)| ReplacementRow {
            old: pieces(&cells[0]),
            new: pieces(&cells[1]),
            text: format!(
                "{}: {} | {}: {}",
                headers[0], cells[0], headers[1], cells[1]
            ),
            line,
        })
        .filter(|r| !r.old.is_empty() && !r.new.is_empty())
        .collect()
}

type Rows = (Vec<String>, Vec<(usize, Vec<String>)>);

/// A simple reStructuredText table: its headers and its rows (a row whose first column is
/// empty continues the one before).
fn simple_table(lines: &[&str], offset: usize) -> Rows {
    let border = lines[0];
    let mut columns: Vec<usize> = Vec::new();
    let mut previous = ' ';
    for (at, c) in border.char_indices() {
        if c == '=' && previous == ' ' {
            columns.push(at);
        }
        previous = c;
    }
    let cut = |line: &str| -> Vec<String> {
        columns
            .iter()
            .enumerate()
            .map(|(k, &from)| {
                let to = columns.get(k + 1).copied().unwrap_or(line.len());
                line.get(from.min(line.len())..to.min(line.len()))
                    .unwrap_or("")
                    .trim()
                    .to_string()
            })
            .collect()
    };
    let mut headers = Vec::new();
    let mut rows: Vec<(usize, Vec<String>)> = Vec::new();
    let mut borders = 0;
    for (k, line) in lines.iter().enumerate() {
        if is_border(line) {
            borders += 1;
            continue;
        }
        if line.trim().is_empty() {
            continue;
        }
        let cells = cut(line);
        match borders {
            1 if headers.is_empty() => headers = cells,
            2 => match rows.last_mut() {
                Some((_, last)) if cells[0].is_empty() => {
                    for (into, more) in last.iter_mut().zip(cells) {
                        if !more.is_empty() {
                            into.push(' ');
                            into.push_str(&more);
                        }
                    }
                }
                _ => rows.push((offset + k + 1, cells)),
            },
            _ => {}
        }
    }
    (headers, rows)
}

/// A Markdown table: its headers and rows.
fn markdown_table(lines: &[&str], offset: usize) -> Rows {
    let cells = |line: &str| -> Vec<String> {
        line.trim()
            .trim_matches('|')
            .split('|')
            .map(|c| c.trim().to_string())
            .collect()
    };
    let headers = cells(lines[0]);
    let rows = lines
        .iter()
        .enumerate()
        .skip(2)
        .map(|(k, l)| (offset + k + 1, cells(l)))
        .collect();
    (headers, rows)
}

/// Splits `text` (one paragraph or list item, starting on line `line`) where a sentence
/// ends: a period outside code followed by a space and a capital letter or code.
fn split_sentences(text: &str, line: usize, out: &mut Vec<Sentence>) {
    let mut from = 0;
    let mut in_code = false;
    let bytes = text.as_bytes();
    for (at, &b) in bytes.iter().enumerate() {
        if b == b'`' {
            in_code = !in_code;
        }
        let ends = !in_code
            && b == b'.'
            && bytes.get(at + 1) == Some(&b' ')
            && bytes
                .get(at + 2)
                .is_some_and(|c| c.is_ascii_uppercase() || *c == b'`' || *c == b':');
        if ends {
            push_sentence(&text[from..=at], line, out);
            from = at + 2;
        }
    }
    push_sentence(&text[from..], line, out);
}

fn push_sentence(text: &str, line: usize, out: &mut Vec<Sentence>) {
    let text = text.trim();
    if text.is_empty() {
        return;
    }
    out.push(Sentence {
        pieces: pieces(text),
        text: text.to_string(),
        line,
    });
}

/// `text` cut into prose and code: ``` ``code`` ```, `` :role:`code` `` (`~` and a title
/// dropped: `` :meth:`sort <DataFrame.sort_values>` `` is `DataFrame.sort_values`),
/// `` `code` ``; a link (`` `text <url>`_ ``) and a cross-reference role are prose.
pub fn pieces(text: &str) -> Vec<Piece> {
    let mut out: Vec<Piece> = Vec::new();
    let mut prose = String::new();
    let mut rest = text;
    while let Some(tick) = rest.find('`') {
        let before = &rest[..tick];
        // A role right before the backtick: `:meth:` (or `:py:meth:`).
        let (before, role) = match role_before(before) {
            Some((kept, role)) => (kept, Some(role)),
            None => (before, None),
        };
        prose.push_str(before);
        let after = &rest[tick..];
        let (inner, consumed, link) = if let Some(body) = after.strip_prefix("``") {
            match body.find("``") {
                Some(end) => (&body[..end], end + 4, false),
                None => break,
            }
        } else {
            let body = &after[1..];
            match body.find('`') {
                Some(end) => {
                    let link = body[end + 1..].starts_with('_');
                    (&body[..end], end + 2 + usize::from(link), link)
                }
                None => break,
            }
        };
        rest = &after[consumed..];
        let is_prose = link || role.is_some_and(|r| PROSE_ROLES.contains(&r));
        if is_prose {
            prose.push_str(inner.split(" <").next().unwrap_or(inner));
            continue;
        }
        let code = match (role, inner.rsplit_once(" <")) {
            (Some(_), Some((_, target))) => target.trim_end_matches('>'),
            _ => inner,
        };
        let code = code.trim().trim_start_matches(['~', '!']);
        if !prose.is_empty() {
            out.push(Piece::Prose(std::mem::take(&mut prose)));
        }
        out.push(Piece::Code(code.to_string()));
    }
    prose.push_str(rest);
    if !prose.trim().is_empty() {
        out.push(Piece::Prose(prose));
    }
    out
}

/// `before` without a role at its end (`… :meth:`), and the role's name (`meth`).
fn role_before(before: &str) -> Option<(&str, &str)> {
    let body = before.strip_suffix(':')?;
    let start = body
        .char_indices()
        .rev()
        .find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == ':' || *c == '-' || *c == '_'))
        .map_or(0, |(i, c)| i + c.len_utf8());
    let role = body[start..].strip_prefix(':')?;
    if role.is_empty() {
        return None;
    }
    let name = role.rsplit(':').next().unwrap_or(role);
    Some((&before[..start], name))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(s: &str) -> Piece {
        Piece::Code(s.to_string())
    }

    fn prose(s: &str) -> Piece {
        Piece::Prose(s.to_string())
    }

    #[test]
    fn code_is_told_from_prose_in_every_markup() {
        assert_eq!(
            pieces("The ``.ix`` indexer is deprecated, in favor of :meth:`~pandas.DataFrame.loc` (:issue:`14218`)"),
            [
                prose("The "),
                code(".ix"),
                prose(" indexer is deprecated, in favor of "),
                code("pandas.DataFrame.loc"),
                prose(" (14218)"),
            ]
        );
        assert_eq!(
            pieces("use :func:`lineplot <seaborn.lineplot>` or `relplot`, see `docs <https://x>`_"),
            [
                prose("use "),
                code("seaborn.lineplot"),
                prose(" or "),
                code("relplot"),
                prose(", see docs"),
            ]
        );
    }

    #[test]
    fn text_beyond_ascii_is_cut_at_characters() {
        // pandas 0.25's whatsnew writes a full-width parenthesis before a role.
        assert_eq!(
            pieces("accepts an iterable（:issue:`12`) and ``é.x`` → ``y``"),
            [
                prose("accepts an iterable（12) and "),
                code("é.x"),
                prose(" → "),
                code("y"),
            ]
        );
        for text in ["é:`x`", "：`x`", "``", "`", ":a:`", "x. É"] {
            let _ = pieces(text);
            let _ = sentences(text);
        }
    }

    #[test]
    fn sentences_end_at_periods_items_and_blank_lines() {
        let text = "Title\n=====\n\n- ``a()`` is deprecated. Use ``b()``\n  instead.\n- ``c`` is gone\n\nA paragraph on\ntwo lines. Another sentence.\n\n.. code-block:: ipython\n\n   In [1]: x.y\n";
        let found: Vec<(usize, String)> = sentences(text)
            .into_iter()
            .map(|s| (s.line, s.text))
            .collect();
        assert_eq!(
            found,
            [
                (1, "Title".to_string()),
                (4, "``a()`` is deprecated.".to_string()),
                (4, "Use ``b()`` instead.".to_string()),
                (6, "``c`` is gone".to_string()),
                (8, "A paragraph on two lines.".to_string()),
                (8, "Another sentence.".to_string()),
                (13, "In [1]: x.y".to_string()),
            ]
        );
    }

    #[test]
    fn replacement_tables_pair_their_rows() {
        let text = "To sort:\n\n==================================    ====================================\nPrevious                              Replacement\n==================================    ====================================\n\\* ``Series.order()``                 ``Series.sort_values()``\n\\* ``DataFrame.sort(columns=...)``    ``DataFrame.sort_values(by=...)``\n==================================    ====================================\n\n| Old | New |\n|---|---|\n| `tsplot` | `lineplot` |\n\n=====  =====\nA      B\n=====  =====\n``x``  ``y``\n=====  =====\n";
        let rows = replacement_rows(text);
        let pairs: Vec<(usize, Vec<Piece>, Vec<Piece>)> = rows
            .iter()
            .map(|r| (r.line, r.old.clone(), r.new.clone()))
            .collect();
        assert_eq!(
            pairs,
            [
                (
                    6,
                    vec![prose("\\* "), code("Series.order()")],
                    vec![code("Series.sort_values()")]
                ),
                (
                    7,
                    vec![prose("\\* "), code("DataFrame.sort(columns=...)")],
                    vec![code("DataFrame.sort_values(by=...)")]
                ),
                (12, vec![code("tsplot")], vec![code("lineplot")]),
            ]
        );
        assert_eq!(
            rows[1].text,
            "Previous: \\* ``DataFrame.sort(columns=...)`` | Replacement: ``DataFrame.sort_values(by=...)``"
        );
        // Tables are not read as sentences.
        assert!(sentences(text)
            .iter()
            .all(|s| !s.text.contains("Series.order")));
    }
}
