//! The statements of a notes file that name an old API and what replaces it: "``DataFrame.sort``
//! … deprecated … in favor of ``DataFrame.sort_values``", "pd.rolling_mean is deprecated …
//! replace with DataFrame.rolling(window=3).mean()", a "Previous | Replacement" table row.
//! A removal or deprecation that names no replacement says nothing here; neither does one
//! about a keyword or an argument (`the ``by`` argument of …`).

use serde::{Deserialize, Serialize};

use super::text::{self, Piece, ReplacementRow, Sentence};

/// An old API as the notes write it: `DataFrame.sort`, `pd.rolling_mean`, `.ix` (a member of
/// some class), `sort` (a bare name); with the call as written, when it was
/// (`DataFrame.sort(columns=...)`), which says which keywords the replacement's map.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NotedName {
    name: String,
    written: String,
}

impl Serialize for NotedName {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.written)
    }
}

impl<'de> Deserialize<'de> for NotedName {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        Self::parse(&text).ok_or_else(|| serde::de::Error::custom(format!("not a name: {text:?}")))
    }
}

/// What the notes say replaces it, as written: `DataFrame.sort_values(by=...)`, `.loc`,
/// `DataFrame.rolling(window=3,center=False).mean()`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct NotedExpr(String);

impl NotedName {
    /// The name in `code` (`DataFrame.sort(columns=...)` → `DataFrame.sort`); `None` when
    /// `code` is no name (`inplace=True`, `0.17`, `x < y`).
    pub fn parse(code: &str) -> Option<Self> {
        let code = code.trim().trim_end_matches(['.', ',', ';', ':']);
        let name = match code.find('(') {
            Some(open) if code.ends_with(')') || code.ends_with("...") => &code[..open],
            Some(_) => return None,
            None => code.strip_suffix("[]").unwrap_or(code),
        };
        dotted(name).then(|| Self {
            name: name.to_string(),
            written: code.to_string(),
        })
    }

    /// The name alone.
    pub fn as_str(&self) -> &str {
        &self.name
    }

    /// As the notes write it, a call's arguments included.
    pub fn written(&self) -> &str {
        &self.written
    }

    /// Its dotted segments (`.ix` → `["ix"]`, a member of any owner).
    pub fn segments(&self) -> impl Iterator<Item = &str> {
        self.name.trim_start_matches('.').split('.')
    }

    /// Whether it is a member of an unnamed owner (`.ix`).
    pub fn is_member(&self) -> bool {
        self.name.starts_with('.')
    }

    /// The keywords its written call passes (`columns` of `DataFrame.sort(columns=...)`).
    pub fn keywords(&self) -> Vec<&str> {
        keywords_of(&self.written[self.name.len()..])
    }
}

impl NotedExpr {
    /// `code` when it begins with a name (`np.asarray(...)`, `.loc`, `lineplot`).
    pub fn parse(code: &str) -> Option<Self> {
        let code = code.trim().trim_end_matches(['.', ',', ';', ':']);
        let head = leading_name(code);
        let rest = &code[head.len()..];
        (dotted(head) && (rest.is_empty() || rest.starts_with('(') || rest.starts_with('[')))
            .then(|| Self(code.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The name it begins with (`DataFrame.rolling` of `DataFrame.rolling(window=3).mean()`).
    pub fn head(&self) -> &str {
        leading_name(&self.0)
    }

    /// The keywords its first call passes (`by` of `DataFrame.sort_values(by=...)`).
    pub fn keywords(&self) -> Vec<&str> {
        let rest = &self.0[self.head().len()..];
        let end = matching_close(rest).map_or(rest.len(), |e| e + 1);
        keywords_of(&rest[..end])
    }

    /// What follows its first call, when that is a chain of calls and attributes written
    /// without placeholders (`.mean()` of `DataFrame.rolling(window=3).mean()`).
    pub fn chain_rest(&self) -> Option<&str> {
        let after_head = &self.0[self.head().len()..];
        let close = matching_close(after_head)?;
        let rest = &after_head[close + 1..];
        (rest.starts_with('.') && !rest.contains("...") && !rest.contains('<')).then_some(rest)
    }

    /// Whether it is a name alone, or a name called with nothing or with placeholders
    /// (`sort_values`, `DataFrame.sort_values()`, `sort_values(by=...)`): what a call of the
    /// old API can become by renaming. A chain or real arguments are more than a rename.
    pub fn is_plain(&self) -> bool {
        let rest = &self.0[self.head().len()..];
        rest.is_empty()
            || rest == "()"
            || (rest.starts_with('(')
                && rest.ends_with(')')
                && !rest[1..].contains('(')
                && rest.contains("..."))
    }
}

impl std::fmt::Display for NotedName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name)
    }
}

/// The keywords of a call's arguments as written (`(by=..., axis=0)` → `by`, `axis`); the
/// top level only.
fn keywords_of(args: &str) -> Vec<&str> {
    let Some(inner) = args
        .strip_prefix('(')
        .map(|a| a.strip_suffix(')').unwrap_or(a))
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let (mut depth, mut from) = (0i32, 0);
    for (at, c) in inner
        .char_indices()
        .chain(std::iter::once((inner.len(), ',')))
    {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                let arg = inner[from..at].trim();
                if let Some((key, _)) = arg.split_once('=') {
                    let key = key.trim();
                    if !key.is_empty() && key.chars().all(|c| c.is_alphanumeric() || c == '_') {
                        out.push(key);
                    }
                }
                from = at + 1;
            }
            _ => {}
        }
    }
    out
}

impl std::fmt::Display for NotedExpr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The dotted name `text` begins with (all of it when it is one).
fn leading_name(text: &str) -> &str {
    let end = text
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
        .unwrap_or(text.len());
    &text[..end]
}

/// Where the parenthesis `text` opens with closes.
fn matching_close(text: &str) -> Option<usize> {
    if !text.starts_with('(') {
        return None;
    }
    let mut depth = 0;
    for (at, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(at);
                }
            }
            _ => {}
        }
    }
    None
}

/// `name` is a dotted Python name, perhaps a member (`.ix`), with a letter somewhere.
fn dotted(name: &str) -> bool {
    let body = name.strip_prefix('.').unwrap_or(name);
    !body.is_empty()
        && body.split('.').all(|s| {
            !s.is_empty()
                && !s.starts_with(|c: char| c.is_ascii_digit())
                && s.chars().all(|c| c.is_alphanumeric() || c == '_')
        })
        && body.chars().any(|c| c.is_alphabetic())
}

/// One statement: old APIs and their replacements, with the words that say it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Statement {
    pub old: Vec<NotedName>,
    pub new: Vec<NotedExpr>,
    /// The value the library now always behaves as if the old API were given ("Matplotlib
    /// now always behaves as if ``hold=True``"): a call passing it does nothing; `new` is
    /// empty.
    pub as_if: Option<String>,
    pub sentence: String,
    pub line: usize,
}

/// Words that say something changed: a replacement named without one is advice, not a change.
const CHANGE_WORDS: &[&str] = &[
    "deprecat",
    "remov",
    "renam",
    "replac",
    "drop",
    "supersed",
    "moved",
    "no longer",
    "favor",
    "favour",
];

/// What a statement about a keyword, argument or parameter says: not an API's successor.
const ABOUT_PARAMETERS: &[&str] = &["keyword", "argument", "parameter", "kwarg"];

/// Where the replacement is named, after these words.
const CUES: &[&str] = &[
    "in favor of ",
    "in favour of ",
    "replaced by ",
    "replaced with ",
    "replace with ",
    "renamed to ",
    "superseded by ",
    "moved to ",
    "use ",
];

/// Every statement in a notes file's `text`.
pub fn read(text: &str) -> Vec<Statement> {
    let mut out: Vec<Statement> = text::sentences(text)
        .iter()
        .filter_map(from_sentence)
        .collect();
    out.extend(text::replacement_rows(text).iter().filter_map(from_row));
    out
}

fn from_row(row: &ReplacementRow) -> Option<Statement> {
    let codes = |pieces: &[Piece]| -> Vec<String> {
        pieces
            .iter()
            .filter_map(|p| match p {
                Piece::Code(c) => Some(c.clone()),
                Piece::Prose(_) => None,
            })
            .collect()
    };
    let old: Vec<NotedName> = codes(&row.old)
        .iter()
        .take(1)
        .filter_map(|c| NotedName::parse(c))
        .collect();
    let new: Vec<NotedExpr> = codes(&row.new)
        .iter()
        .filter_map(|c| NotedExpr::parse(c))
        .collect();
    statement(old, new, &row.text, row.line)
}

fn statement(
    old: Vec<NotedName>,
    new: Vec<NotedExpr>,
    sentence: &str,
    line: usize,
) -> Option<Statement> {
    let old: Vec<NotedName> = old
        .into_iter()
        .filter(|o| new.iter().all(|n| n.head() != o.as_str()))
        .collect();
    (!old.is_empty() && !new.is_empty()).then(|| Statement {
        old,
        new,
        as_if: None,
        sentence: sentence.to_string(),
        line,
    })
}

fn from_sentence(s: &Sentence) -> Option<Statement> {
    if let Some(settled) = settled(s) {
        return Some(settled);
    }
    let prose: String = s
        .pieces
        .iter()
        .filter_map(|p| match p {
            Piece::Prose(t) => Some(t.to_ascii_lowercase()),
            Piece::Code(_) => None,
        })
        .collect::<Vec<_>>()
        .join(" ");
    if !CHANGE_WORDS.iter().any(|w| prose.contains(w))
        || ABOUT_PARAMETERS.iter().any(|w| prose.contains(w))
    {
        return None;
    }
    if s.pieces.iter().any(|p| matches!(p, Piece::Code(_))) {
        from_marked(s)
    } else {
        from_plain(s)
    }
}

/// Words that say the library now always does what one value of the old API did.
const AS_IF: &[&str] = &[
    "behaves as if",
    "behave as if",
    "consistent with the default",
];

/// A sentence saying the library now always behaves as if the old API were given one value:
/// "Matplotlib now always behaves as if ``hold=True``." (matplotlib 3.0), "The behavior will
/// remain consistent with the default ``hold=True`` state" (2.0). The code right after the
/// words is `NAME=VALUE`, `VALUE` a literal.
fn settled(s: &Sentence) -> Option<Statement> {
    let cue = s.pieces.iter().position(|p| match p {
        Piece::Prose(t) => {
            let t = t.to_ascii_lowercase();
            AS_IF.iter().any(|w| t.trim_end().ends_with(w))
        }
        Piece::Code(_) => false,
    })?;
    let Some(Piece::Code(code)) = s.pieces.get(cue + 1) else {
        return None;
    };
    let (name, value) = code.split_once('=')?;
    let (name, value) = (name.trim(), value.trim());
    let old = NotedName::parse(name).filter(|n| n.written() == name)?;
    literal(value).then(|| Statement {
        old: vec![old],
        new: Vec::new(),
        as_if: Some(value.to_string()),
        sentence: s.text.clone(),
        line: s.line,
    })
}

/// A Python literal a call may pass: `True`, `False`, `None`, a number, a quoted string.
fn literal(text: &str) -> bool {
    let quoted = |q: char| text.len() >= 2 && text.starts_with(q) && text.ends_with(q);
    matches!(text, "True" | "False" | "None")
        || (!text.is_empty()
            && text.trim_start_matches('-').parse::<f64>().is_ok()
            && !text.contains(['e', 'E', 'n', 'N', 'i', 'I']))
        || ((quoted('\'') || quoted('"')) && !text[1..text.len() - 1].contains(['\'', '"']))
}

/// The cue in `prose` (lowercase), as the index just past it; "use" only as a whole word
/// and not "use of".
fn cue_in(prose: &str) -> Option<usize> {
    CUES.iter()
        .flat_map(|cue| {
            prose.match_indices(cue).filter_map(move |(at, _)| {
                let whole = at == 0 || !prose.as_bytes()[at - 1].is_ascii_alphanumeric();
                let after = at + cue.len();
                let use_of = *cue == "use " && prose[after..].starts_with("of ");
                (whole && !use_of).then_some(after)
            })
        })
        .min()
}

/// A sentence with code marked: the old names are the code before the cue; the new, the code
/// right after it, and any joined to it by "and", "or" or a comma.
fn from_marked(s: &Sentence) -> Option<Statement> {
    let (cue_piece, cue_at) = s.pieces.iter().enumerate().find_map(|(k, p)| match p {
        Piece::Prose(t) => cue_in(&t.to_ascii_lowercase()).map(|at| (k, at)),
        Piece::Code(_) => None,
    })?;
    // Prose after the cue before the first code: a few words at most ("the more strict").
    let Piece::Prose(cue_text) = &s.pieces[cue_piece] else {
        return None;
    };
    if cue_text[cue_at..].split_whitespace().count() > 3 {
        return None;
    }
    let old: Vec<NotedName> = s.pieces[..cue_piece]
        .iter()
        .filter_map(|p| match p {
            Piece::Code(c) => NotedName::parse(c),
            Piece::Prose(_) => None,
        })
        .collect();
    let mut new = Vec::new();
    for p in &s.pieces[cue_piece + 1..] {
        match p {
            Piece::Code(c) => new.extend(NotedExpr::parse(c)),
            Piece::Prose(t) if joins(t) => {}
            Piece::Prose(_) => break,
        }
    }
    statement(old, new, &s.text, s.line)
}

/// Prose that joins two alternatives: "and", "or", a comma.
fn joins(prose: &str) -> bool {
    let t = prose.trim().trim_matches(',').trim();
    t.is_empty() || t == "and" || t == "or" || t == "/" || t == ", or" || t == ", and"
}

/// A sentence with no code marked (a warning printed in an example): the old name is the
/// dotted word before "is deprecated" (or "has been", "was", "will be"); the new, the
/// word right after the cue, when both look like code.
fn from_plain(s: &Sentence) -> Option<Statement> {
    let text = &s.text;
    let lower = text.to_ascii_lowercase();
    let cue = cue_in(&lower)?;
    let new = text[cue..].split_whitespace().next()?;
    let new = NotedExpr::parse(new).filter(|n| looks_like_code(n.as_str()))?;
    let verb = [" is ", " has been ", " was ", " will be ", " are "]
        .iter()
        .filter_map(|v| lower[..cue].find(v))
        .min()?;
    let old = text[..verb].split_whitespace().last()?;
    let old = NotedName::parse(old).filter(|o| looks_like_code(old) && o.as_str().contains('.'))?;
    statement(vec![old], vec![new], text, s.line)
}

/// A word that prose would not write: dotted, called, or with an underscore.
fn looks_like_code(word: &str) -> bool {
    word.contains('.') || word.contains('(') || word.contains('_')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<(Vec<String>, Vec<String>)> {
        read(text)
            .into_iter()
            .map(|s| {
                (
                    s.old.iter().map(|o| o.to_string()).collect(),
                    s.new.iter().map(|n| n.to_string()).collect(),
                )
            })
            .collect()
    }

    fn pair(old: &[&str], new: &[&str]) -> (Vec<String>, Vec<String>) {
        (
            old.iter().map(|s| s.to_string()).collect(),
            new.iter().map(|s| s.to_string()).collect(),
        )
    }

    #[test]
    fn statements_naming_an_old_api_and_its_replacement() {
        assert_eq!(
            found("The ``.ix`` indexer is deprecated, in favor of the more strict ``.iloc`` and ``.loc`` indexers. ``.ix`` offers a lot of magic."),
            [pair(&[".ix"], &[".iloc", ".loc"])]
        );
        assert_eq!(
            found("- ``sns.tsplot`` has been removed; use :func:`lineplot` instead (:pr:`2113`)"),
            [pair(&["sns.tsplot"], &["lineplot"])]
        );
        assert_eq!(
            found("   In [8]: pd.rolling_mean(df, window=3)\n           FutureWarning: pd.rolling_mean is deprecated for DataFrame and will be removed in a future version, replace with\n                          DataFrame.rolling(window=3,center=False).mean()\n"),
            [pair(&["pd.rolling_mean"], &["DataFrame.rolling(window=3,center=False).mean()"])]
        );
        assert_eq!(
            found("\\* ``DataFrame.sort()``   x\n\n====================  ====================\nPrevious              Replacement\n====================  ====================\n``DataFrame.sort()``  ``DataFrame.sort_index()``\n====================  ====================\n"),
            [pair(&["DataFrame.sort"], &["DataFrame.sort_index()"])]
        );
    }

    #[test]
    fn statements_that_name_no_replacement_or_a_parameter_say_nothing() {
        for text in [
            "- Removed ``Series.ix`` and ``DataFrame.ix`` (:issue:`26438`)",
            "The ``by`` argument of ``DataFrame.sort_index()`` has been deprecated; use ``sort_values``.",
            "- ``Series.sort()`` and ``DataFrame.sort()`` have been deprecated and will be removed.",
            "You can use ``np.asarray(...)`` to get an array.",
            "The use of ``x`` is deprecated.",
            "Deprecated the plotting of data, use the new API instead.",
        ] {
            assert_eq!(found(text), Vec::<(Vec<String>, Vec<String>)>::new(), "{text}");
        }
    }

    #[test]
    fn a_value_the_library_now_always_behaves_as_if_given_is_a_statement() {
        let settled = |text: &str| -> Vec<(String, Option<String>, usize)> {
            read(text)
                .into_iter()
                .map(|s| {
                    assert!(s.new.is_empty());
                    (s.old[0].to_string(), s.as_if, s.line)
                })
                .collect()
        };
        // matplotlib 3.0.0's doc/api/api_changes.rst, whole paragraph.
        assert_eq!(
            settled("Hold machinery\n``````````````\n\nSetting or unsetting ``hold`` (deprecated in version 2.1) has now\nbeen completely removed. Matplotlib now always behaves as if ``hold=True``.\nTo clear an axes you can manually use :meth:`~.axes.Axes.cla()`,\nor to clear an entire figure use :meth:`~.figure.Figure.clf()`.\n"),
            [("hold".to_string(), Some("True".to_string()), 4)]
        );
        // matplotlib 2.0.0's.
        assert_eq!(
            settled("The behavior will remain consistent with the default ``hold=True``\nstate that has long been in place.\n"),
            [("hold".to_string(), Some("True".to_string()), 1)]
        );
        for text in [
            "It now behaves as if ``hold=f(x)``.",
            "It now behaves as if ``x < 3``.",
            "It now behaves as if the default were ``hold=True``.",
            "``hold=True`` is the default.",
        ] {
            assert_eq!(settled(text), [], "{text}");
        }
        assert!(literal("-1.5") && literal("'a'") && literal("None") && literal("3"));
        assert!(!literal("inf") && !literal("nan") && !literal("x") && !literal("'a\"'"));
    }

    #[test]
    fn names_and_expressions_as_the_notes_write_them() {
        let name = |s: &str| NotedName::parse(s).map(|n| n.to_string());
        assert_eq!(
            name("DataFrame.sort(columns=...)").as_deref(),
            Some("DataFrame.sort")
        );
        let sort = NotedName::parse("DataFrame.sort(columns=...)").unwrap();
        assert_eq!(sort.written(), "DataFrame.sort(columns=...)");
        assert_eq!(sort.keywords(), ["columns"]);
        assert_eq!(
            NotedExpr::parse("DataFrame.sort_values(by=..., axis=f(a, b=1)).x(c=2)")
                .unwrap()
                .keywords(),
            ["by", "axis"]
        );
        assert_eq!(name(".ix[]").as_deref(), Some(".ix"));
        assert_eq!(name("inplace=True"), None);
        assert_eq!(name("0.17"), None);
        let expr = NotedExpr::parse("DataFrame.rolling(window=3).mean()").unwrap();
        assert_eq!(expr.head(), "DataFrame.rolling");
        assert!(!expr.is_plain());
        assert_eq!(expr.chain_rest(), Some(".mean()"));
        assert_eq!(
            NotedExpr::parse("a.b(x).c(other=<Series>)")
                .unwrap()
                .chain_rest(),
            None
        );
        assert_eq!(NotedExpr::parse("a.b(x)").unwrap().chain_rest(), None);
        assert!(NotedExpr::parse("DataFrame.sort_values(by=...)")
            .unwrap()
            .is_plain());
        assert!(NotedExpr::parse(".loc").unwrap().is_plain());
        assert!(!NotedExpr::parse("Series.sort_values(inplace=True)")
            .unwrap()
            .is_plain());
        assert_eq!(NotedExpr::parse("x < y"), None);
    }
}
