//! Syntax that exists only from (or until) some Python release, as reported by the parser's
//! version checks. The analyser parses with the lowest target ruff knows (3.7), so every newer
//! construct is reported; constructs older than 3.7 are found on the AST and tokens instead.

use ruff_python_ast::token::{Token, TokenKind};
use ruff_python_parser::UnsupportedSyntaxErrorKind as K;
use ruff_text_size::{Ranged, TextSize};

use crate::python::{PythonRange, PythonVersion};

/// The construct a version error reports, and the versions that accept it. `None` for kinds
/// handled elsewhere (`except X, e` is Python 2 evidence, see `python2`).
pub(crate) fn feature(kind: K) -> Option<(&'static str, PythonRange)> {
    let since = |minor| PythonRange::at_least(PythonVersion::new(3, minor));
    Some(match kind {
        K::Match => ("match statement", since(10)),
        K::Walrus => ("assignment expression `:=`", since(8)),
        K::ExceptStar => ("`except*`", since(11)),
        K::UnparenthesizedNamedExpr(_) => ("unparenthesized `:=` in an index or set", since(9)),
        K::StarTuple(_) => ("unparenthesized starred tuple in return/yield", since(8)),
        K::RelaxedDecorator(_) => ("arbitrary decorator expression", since(9)),
        K::PositionalOnlyParameter => ("positional-only parameter `/`", since(8)),
        K::TypeParameterList => ("type parameter list", since(12)),
        K::TypeAliasStatement => ("`type` statement", since(12)),
        K::TypeParamDefault => ("type parameter default", since(13)),
        K::Pep701FString(_) => ("nested quotes or backslashes in an f-string", since(12)),
        K::ParenthesizedContextManager => ("parenthesized context managers", since(9)),
        K::StarExpressionInIndex => ("star expression in an index", since(11)),
        K::StarAnnotation => ("star annotation", since(11)),
        K::UnparenthesizedUnpackInFor => ("unparenthesized unpacking in `for`", since(9)),
        K::TemplateStrings => ("template string", since(14)),
        K::LazyImportStatement => ("`lazy import`", since(15)),
        K::UnpackingInComprehension(_) => ("unpacking in a comprehension", since(15)),
        K::ParenthesizedKeywordArgumentName => (
            "parenthesized keyword argument name",
            PythonRange::at_most(PythonVersion::new(3, 7)),
        ),
        K::UnparenthesizedExceptionTypes => return None,
    })
}

/// Newer syntax that only the tokens show, each with the versions that accept it: underscores
/// in numbers (`1_000`, 3.6).
pub(crate) fn scan_tokens(
    source: &str,
    tokens: &[Token],
    mut found: impl FnMut(&'static str, PythonRange, TextSize),
) {
    for tok in tokens {
        let number = matches!(
            tok.kind(),
            TokenKind::Int | TokenKind::Float | TokenKind::Complex
        );
        if number && source[tok.range()].contains('_') {
            found(
                "underscore in a number",
                PythonRange::at_least(PythonVersion::new(3, 6)),
                tok.start(),
            );
        }
    }
}
