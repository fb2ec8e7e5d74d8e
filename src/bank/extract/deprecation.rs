//! Deprecation shims and renamed keywords, read from a function's body.
//!
//! A release that is about to remove an API often keeps its body as a shim: it warns, then
//! does what the successor does (`numpy.asscalar(a)` warns and returns `a.item()`). The
//! warning's text usually names the successor too ("Use .values instead"). A renamed keyword
//! shows the same way: the function takes both names, and when the old one is given it
//! warns and hands its value to the new one. These are facts of one file, recorded in its
//! summary; `bank::store::moves` puts them beside the releases that removed the API.

use ruff_python_ast::visitor::{walk_expr, Visitor};
use ruff_python_ast::{Expr, ExprContext, Parameters, Stmt, StmtFunctionDef};
use ruff_text_size::Ranged;
use serde::{Deserialize, Serialize};

use super::dotted::{dotted_name, last_segment};
use super::module_effects::literal_text;

/// What a function's body says of its own deprecation.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Warned {
    /// The body warns unconditionally, at its top level: a shim.
    #[serde(rename = "sh", default, skip_serializing_if = "Option::is_none")]
    pub shim: Option<Shim>,
    /// Keywords it still accepts under an old name, warning when that one is given.
    #[serde(rename = "kw", default, skip_serializing_if = "Vec::is_empty")]
    pub renames: Vec<KeywordRename>,
}

/// A body that warns before doing anything else.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shim {
    /// The warning's category as written (`DeprecationWarning`, `FutureWarning`,
    /// `np.VisibleDeprecationWarning`); `None` when none is given (a `UserWarning`).
    #[serde(rename = "c", default, skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    /// The message's literal text (interpolations of f-strings shown as `{…}`).
    #[serde(rename = "m")]
    pub message: String,
    /// When the rest of the body is one `return`: its expression, the rewrite template.
    #[serde(rename = "t", default, skip_serializing_if = "Option::is_none")]
    pub template: Option<Template>,
}

/// `return <expr>` over the function's own parameters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Template {
    /// The expression's source text, as written.
    #[serde(rename = "e")]
    pub expr: String,
    /// The function's parameters it uses, in the signature's order.
    #[serde(rename = "p", default, skip_serializing_if = "Vec::is_empty")]
    pub params: Vec<String>,
    /// Other names it reads (module globals, builtins): a call site must have them too.
    #[serde(rename = "g", default, skip_serializing_if = "Vec::is_empty")]
    pub globals: Vec<String>,
}

/// A keyword accepted under its old name with a warning, its value passed on to the new one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeywordRename {
    #[serde(rename = "o")]
    pub old: String,
    #[serde(rename = "n")]
    pub new: String,
    #[serde(rename = "m")]
    pub message: String,
}

impl Warned {
    /// What `def`'s body says; `None` for a body that neither is a shim nor renames a keyword.
    pub(crate) fn read(def: &StmtFunctionDef, source: &str) -> Option<Box<Warned>> {
        let warned = Warned {
            shim: shim(&def.body, &def.parameters, source),
            renames: renames(&def.body, &def.parameters),
        };
        (warned.shim.is_some() || !warned.renames.is_empty()).then(|| Box::new(warned))
    }
}

impl Warned {
    /// The shim of a function whose decorator hands its arguments to a dispatcher that
    /// warns (numpy deprecates this way: `@array_function_dispatch(_asscalar_dispatcher)`,
    /// the dispatcher warning, the body `return a.item()`): the dispatcher's warning, and
    /// the body's one `return` as the template. `dispatchers`: the module's functions whose
    /// bodies warn first, by name.
    pub(crate) fn dispatched(
        def: &StmtFunctionDef,
        source: &str,
        dispatchers: &std::collections::HashMap<String, Shim>,
    ) -> Option<Shim> {
        let warning = def.decorator_list.iter().find_map(|d| {
            let Expr::Call(call) = &d.expression else {
                return None;
            };
            call.arguments.args.iter().find_map(|a| match a {
                Expr::Name(n) => dispatchers.get(n.id.as_str()),
                _ => None,
            })
        })?;
        let template = returned(without_docstring(&def.body), &def.parameters, source);
        Some(Shim {
            category: warning.category.clone(),
            message: warning.message.clone(),
            template,
        })
    }
}

/// The successor a warning's message names: `X` in "use X instead", "Use X.", "in favor of
/// X", "has been replaced by X", "please use X", "X should be used"; backticks and quotes
/// removed, a trailing `()` dropped. `None` when it names nothing that looks like a Python
/// name or attribute (`.values`).
pub fn named_successor(message: &str) -> Option<String> {
    let (name, rest) = after_cue(message)?;
    let after = &rest[name.len()..];
    let quoted = message_quoted(message, rest);
    let name = name.trim_end_matches('.').to_string();
    let looks_like_code =
        name.contains('.') || name.contains('_') || after.starts_with('(') || quoted;
    let is_word = name.chars().all(|c| c.is_ascii_lowercase());
    // "use the new API instead": prose, not a name; a plain lowercase word counts only when
    // quoted or followed by `(`.
    if name.is_empty()
        || name.starts_with(|c: char| c.is_ascii_digit())
        || (is_word && !looks_like_code)
    {
        return None;
    }
    Some(name)
}

/// The name right after the first cue ("use", "in favor of", ...), and the text it starts,
/// quotes and backticks skipped.
fn after_cue(message: &str) -> Option<(String, &str)> {
    let lower = message.to_ascii_lowercase();
    const CUES: &[&str] = &[
        "in favor of ",
        "in favour of ",
        "replaced by ",
        "renamed to ",
        "please use ",
        "use ",
    ];
    let mut best: Option<usize> = None;
    for cue in CUES {
        for (at, _) in lower.match_indices(cue) {
            // A whole word: "because " has "use ".
            let starts_word = at == 0 || !lower.as_bytes()[at - 1].is_ascii_alphanumeric();
            if starts_word && best.is_none_or(|b| at < b) {
                best = Some(at + cue.len());
            }
        }
    }
    let rest = message[best?..].trim_start_matches(['`', '\'', '"', ' ']);
    let name: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || matches!(c, '_' | '.'))
        .collect();
    Some((name, rest))
}

/// Whether the name at `rest` is quoted in `message`.
fn message_quoted(message: &str, rest: &str) -> bool {
    let at = message.len() - rest.len();
    message[..at].ends_with(['`', '\'', '"'])
}

/// The plain name a message gives as what to use, prose or not: a keyword's new name is
/// checked against the parameters anyway.
fn named_keyword(message: &str) -> Option<String> {
    let (name, _) = after_cue(message)?;
    let name = name.trim_end_matches('.');
    (!name.is_empty()).then(|| name.to_string())
}

/// `warnings.warn(message, Category, ...)`, or `warn(...)`: the category as written (when it
/// is a deprecation's, or given none or `UserWarning`) and the message's literal text.
fn warning(expr: &Expr, messages: &[(String, String)]) -> Option<(Option<String>, String)> {
    let Expr::Call(call) = expr else {
        return None;
    };
    let callee = dotted_name(&call.func)?;
    if !matches!(callee.as_str(), "warnings.warn" | "warn") {
        return None;
    }
    let message = call.arguments.args.first().or_else(|| {
        call.arguments
            .keywords
            .iter()
            .find(|k| k.arg.as_ref().is_some_and(|a| a.as_str() == "message"))
            .map(|k| &k.value)
    })?;
    let message = match message {
        Expr::Name(name) => messages
            .iter()
            .rev()
            .find(|(n, _)| n == name.id.as_str())
            .map(|(_, text)| text.clone())?,
        other => literal_text(other)?,
    };
    let category = call.arguments.args.get(1).or_else(|| {
        call.arguments
            .keywords
            .iter()
            .find(|k| k.arg.as_ref().is_some_and(|a| a.as_str() == "category"))
            .map(|k| &k.value)
    });
    let category = match category {
        None => None,
        Some(c) => {
            let last = last_segment(c)?;
            let deprecation = last.ends_with("DeprecationWarning")
                || last == "FutureWarning"
                || last == "UserWarning";
            if !deprecation {
                return None;
            }
            Some(dotted_name(c)?)
        }
    };
    let message: String = message.split_whitespace().collect::<Vec<_>>().join(" ");
    Some((category, message))
}

/// `name = "literal"` statements: a message is often put in a variable first.
fn message_variable(stmt: &Stmt) -> Option<(String, String)> {
    let Stmt::Assign(assign) = stmt else {
        return None;
    };
    let [Expr::Name(name)] = &assign.targets[..] else {
        return None;
    };
    Some((name.id.to_string(), literal_text(&assign.value)?))
}

/// A body without its docstring.
fn without_docstring(body: &[Stmt]) -> &[Stmt] {
    match body.first() {
        Some(Stmt::Expr(e)) if matches!(&*e.value, Expr::StringLiteral(_)) => &body[1..],
        _ => body,
    }
}

/// The template of statements that are one `return <expr>`.
fn returned(rest: &[Stmt], parameters: &Parameters, source: &str) -> Option<Template> {
    match rest {
        [Stmt::Return(ret)] => ret
            .value
            .as_deref()
            .map(|expr| template(expr, parameters, source)),
        _ => None,
    }
}

fn shim(body: &[Stmt], parameters: &Parameters, source: &str) -> Option<Shim> {
    let body = without_docstring(body);
    // Messages assigned first, then the warning, at the top level.
    let mut messages = Vec::new();
    let mut at = 0;
    while let Some(m) = body.get(at).and_then(message_variable) {
        messages.push(m);
        at += 1;
    }
    let Some(Stmt::Expr(call)) = body.get(at) else {
        return None;
    };
    let (category, message) = warning(&call.value, &messages)?;
    let template = returned(&body[at + 1..], parameters, source);
    Some(Shim {
        category,
        message,
        template,
    })
}

fn template(expr: &Expr, parameters: &Parameters, source: &str) -> Template {
    #[derive(Default)]
    struct Names<'a> {
        read: Vec<&'a str>,
    }
    impl<'a> Visitor<'a> for Names<'a> {
        fn visit_expr(&mut self, expr: &'a Expr) {
            if let Expr::Name(name) = expr {
                if name.ctx == ExprContext::Load && !self.read.contains(&name.id.as_str()) {
                    self.read.push(name.id.as_str());
                }
            }
            walk_expr(self, expr);
        }
    }
    let mut names = Names::default();
    names.visit_expr(expr);
    let params: Vec<String> = parameter_names(parameters)
        .filter(|p| names.read.contains(p))
        .map(str::to_string)
        .collect();
    let globals = names
        .read
        .iter()
        .filter(|n| !params.iter().any(|p| p == *n))
        .map(|n| n.to_string())
        .collect();
    let text = source.get(expr.range().start().into()..expr.range().end().into());
    Template {
        expr: text.unwrap_or_default().to_string(),
        params,
        globals,
    }
}

fn parameter_names(parameters: &Parameters) -> impl Iterator<Item = &str> {
    parameters
        .posonlyargs
        .iter()
        .chain(&parameters.args)
        .map(|p| p.name().as_str())
        .chain(parameters.vararg.iter().map(|p| p.name.as_str()))
        .chain(parameters.kwonlyargs.iter().map(|p| p.name().as_str()))
        .chain(parameters.kwarg.iter().map(|p| p.name.as_str()))
}

/// Whether `word` occurs in `text` as a whole word.
fn mentions(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        let boundary = |c: Option<char>| !c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        boundary(before) && boundary(after)
    })
}

/// Keyword renames: in a block that warns with a message naming the old keyword, the new
/// parameter is given the old one's value (`density = normed`, or `max_iter =
/// kwargs.pop("n_iter")`); or, under a test of the old parameter, the message names both.
fn renames(body: &[Stmt], parameters: &Parameters) -> Vec<KeywordRename> {
    let params: Vec<&str> = parameter_names(parameters).collect();
    let kwargs = parameters.kwarg.as_ref().map(|k| k.name.as_str());
    let mut out = Vec::new();
    blocks(body, None, &mut |block, test| {
        block_renames(block, test, &params, kwargs, &mut out)
    });
    out
}

/// Calls `f` on `body` and every block nested in it (not in nested functions or classes),
/// with the test of the `if` that guards the block.
fn blocks<'a>(
    body: &'a [Stmt],
    test: Option<&'a Expr>,
    f: &mut impl FnMut(&'a [Stmt], Option<&'a Expr>),
) {
    f(body, test);
    for stmt in body {
        match stmt {
            Stmt::If(s) => {
                blocks(&s.body, Some(&s.test), f);
                for clause in &s.elif_else_clauses {
                    blocks(&clause.body, clause.test.as_ref(), f);
                }
            }
            Stmt::Try(s) => {
                blocks(&s.body, None, f);
                blocks(&s.orelse, None, f);
                blocks(&s.finalbody, None, f);
            }
            Stmt::With(s) => blocks(&s.body, None, f),
            Stmt::For(s) => blocks(&s.body, None, f),
            _ => {}
        }
    }
}

fn block_renames(
    block: &[Stmt],
    test: Option<&Expr>,
    params: &[&str],
    kwargs: Option<&str>,
    out: &mut Vec<KeywordRename>,
) {
    let messages: Vec<(String, String)> = block.iter().filter_map(message_variable).collect();
    let warnings: Vec<String> = block
        .iter()
        .filter_map(|s| match s {
            Stmt::Expr(e) => warning(&e.value, &messages).map(|(_, m)| m),
            _ => None,
        })
        .collect();
    if warnings.is_empty() {
        return;
    }
    let mut push = |old: &str, new: &str, message: &str| {
        if old != new
            && !out
                .iter()
                .any(|r: &KeywordRename| r.old == old && r.new == new)
        {
            out.push(KeywordRename {
                old: old.to_string(),
                new: new.to_string(),
                message: message.to_string(),
            });
        }
    };
    // Locals holding an old keyword popped from `**kwargs`: `old = kwargs.pop("old")`.
    let mut popped: Vec<(String, String)> = Vec::new();
    for stmt in block {
        let Stmt::Assign(assign) = stmt else {
            continue;
        };
        let [Expr::Name(target)] = &assign.targets[..] else {
            continue;
        };
        let new = target.id.as_str();
        let old = match &*assign.value {
            Expr::Name(value) if params.contains(&value.id.as_str()) => Some(value.id.to_string()),
            Expr::Name(value) => popped
                .iter()
                .find(|(local, _)| local == value.id.as_str())
                .map(|(_, old)| old.clone()),
            value => popped_keyword(value, kwargs),
        };
        let Some(old) = old else {
            continue;
        };
        if !params.contains(&new) {
            popped.push((new.to_string(), old));
            continue;
        }
        if let Some(message) = warnings.iter().find(|m| mentions(m, &old)) {
            push(&old, new, message);
        }
    }
    // `if old is not None: warn("old is deprecated, use new")`: the message names the old
    // keyword, and the new one as what to use (naming both is not enough: "Both axis > a.ndim
    // and ... are deprecated").
    let Some(test) = test else {
        return;
    };
    for message in &warnings {
        let Some(named) = named_keyword(message) else {
            continue;
        };
        for &old in params.iter().filter(|p| reads_name(test, p)) {
            if mentions(message, old) && named != old && params.contains(&named.as_str()) {
                push(old, &named, message);
            }
        }
    }
}

/// `kwargs.pop("old", ...)` or `kwargs["old"]`: the old keyword's name.
fn popped_keyword(value: &Expr, kwargs: Option<&str>) -> Option<String> {
    let kwargs = kwargs?;
    let (object, key) = match value {
        Expr::Call(call) => match &*call.func {
            Expr::Attribute(a) if matches!(a.attr.as_str(), "pop" | "get") => {
                (&*a.value, call.arguments.args.first()?)
            }
            _ => return None,
        },
        Expr::Subscript(s) => (&*s.value, &*s.slice),
        _ => return None,
    };
    match (object, key) {
        (Expr::Name(o), Expr::StringLiteral(k)) if o.id.as_str() == kwargs => {
            Some(k.value.to_str().to_string())
        }
        _ => None,
    }
}

fn reads_name(expr: &Expr, name: &str) -> bool {
    struct Finds<'n> {
        name: &'n str,
        found: bool,
    }
    impl<'a> Visitor<'a> for Finds<'_> {
        fn visit_expr(&mut self, expr: &'a Expr) {
            match expr {
                Expr::Name(n) if n.id.as_str() == self.name => self.found = true,
                _ => walk_expr(self, expr),
            }
        }
    }
    let mut finds = Finds { name, found: false };
    finds.visit_expr(expr);
    finds.found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(src: &str) -> Option<Box<Warned>> {
        let parsed = ruff_python_parser::parse_module(src).unwrap();
        match &parsed.syntax().body[0] {
            Stmt::FunctionDef(f) => Warned::read(f, src),
            Stmt::ClassDef(c) => match &c.body[0] {
                Stmt::FunctionDef(f) => Warned::read(f, src),
                _ => unreachable!("test class starts with a def"),
            },
            _ => unreachable!("test source starts with a def or class"),
        }
    }

    /// numpy 1.16's `numpy/lib/type_check.py`.
    #[test]
    fn numpy_asscalar_is_a_shim_with_a_template() {
        let src = r#"
def asscalar(a):
    """
    Convert an array of size 1 to its scalar equivalent.
    """
    # 2018-10-10, 1.16
    warnings.warn('np.asscalar(a) is deprecated since NumPy v1.16, use '
                  'a.item() instead', DeprecationWarning, stacklevel=1)
    return a.item()
"#;
        let shim = read(src.trim_start()).unwrap().shim.unwrap();
        assert_eq!(shim.category.as_deref(), Some("DeprecationWarning"));
        assert_eq!(
            shim.message,
            "np.asscalar(a) is deprecated since NumPy v1.16, use a.item() instead"
        );
        let template = shim.template.unwrap();
        assert_eq!(template.expr, "a.item()");
        assert_eq!(template.params, ["a"]);
        assert!(template.globals.is_empty());
        assert_eq!(named_successor(&shim.message).as_deref(), Some("a.item"));
    }

    /// numpy 1.17–1.22's `numpy/lib/type_check.py`: the warning is in the dispatcher the
    /// function is decorated with, the body returns the template.
    #[test]
    fn numpy_asscalar_warning_in_its_dispatcher_is_a_shim() {
        let src = r#"
def _asscalar_dispatcher(a):
    # 2018-10-10, 1.16
    warnings.warn('np.asscalar(a) is deprecated since NumPy v1.16, '
                  'use a.item() instead', DeprecationWarning, stacklevel=3)
    return (a,)


@array_function_dispatch(_asscalar_dispatcher)
def asscalar(a):
    """
    Convert an array of size 1 to its scalar equivalent.
    """
    return a.item()


@array_function_dispatch(_other_dispatcher)
def other(a):
    return a.item()
"#;
        let summary = crate::bank::extract::summarize_source(src, false);
        let warned = |name: &str| {
            summary.bindings.iter().find_map(|b| match b {
                crate::bank::extract::Binding::Function(f) if f.name == name => {
                    Some(f.warned.clone())
                }
                _ => None,
            })
        };
        let shim = warned("asscalar").unwrap().unwrap().shim.unwrap();
        assert_eq!(
            shim.message,
            "np.asscalar(a) is deprecated since NumPy v1.16, use a.item() instead"
        );
        assert_eq!(shim.template.unwrap().expr, "a.item()");
        // A dispatcher that does not warn deprecates nothing.
        assert_eq!(warned("other"), Some(None));
    }

    /// pandas 0.23's `DataFrame.as_matrix`: more than one return after the warning, so the
    /// warning's message is all it says.
    #[test]
    fn pandas_as_matrix_is_named_in_its_warning_only() {
        let src = r#"
class DataFrame(NDFrame):
    def as_matrix(self, columns=None):
        """Convert the frame to its Numpy-array representation."""
        warnings.warn("Method .as_matrix will be removed in a future version. "
                      "Use .values instead.", FutureWarning, stacklevel=2)
        self._consolidate_inplace()
        return self._data.as_array(transpose=self._AXIS_REVERSED,
                                   items=columns)
"#;
        let shim = read(src.trim_start()).unwrap().shim.unwrap();
        assert_eq!(shim.category.as_deref(), Some("FutureWarning"));
        assert!(shim.template.is_none());
        assert_eq!(named_successor(&shim.message).as_deref(), Some(".values"));
    }

    #[test]
    fn a_template_names_the_parameters_and_globals_it_reads() {
        let src = "def rank(a):\n    warnings.warn(msg_fmt.format('rank'), VisibleDeprecationWarning)\n    return ndim(asarray(a))\n";
        // The message is not a literal: no shim can be told.
        assert!(read(src).is_none());
        let src = "def rank(a, b=None):\n    msg = 'rank is deprecated; use ndim instead'\n    warnings.warn(msg, np.VisibleDeprecationWarning)\n    return ndim(asarray(a))\n";
        let shim = read(src).unwrap().shim.unwrap();
        assert_eq!(
            shim.category.as_deref(),
            Some("np.VisibleDeprecationWarning")
        );
        let t = shim.template.unwrap();
        assert_eq!(
            (t.expr.as_str(), &t.params[..]),
            ("ndim(asarray(a))", &["a".to_string()][..])
        );
        assert_eq!(t.globals, ["ndim", "asarray"]);
        assert_eq!(named_successor(&shim.message).as_deref(), None);
    }

    #[test]
    fn other_warnings_and_late_warnings_are_no_shims() {
        assert!(
            read("def f(a):\n    warnings.warn('slow', RuntimeWarning)\n    return a\n").is_none()
        );
        assert!(read(
            "def f(a):\n    x = g(a)\n    warnings.warn('f is deprecated')\n    return x\n"
        )
        .is_none());
        // No category: a UserWarning, recorded as none.
        let shim = read(
            "def f(a):\n    warn(f'f is deprecated, use {a}.g() instead')\n    return a.g()\n",
        )
        .unwrap()
        .shim
        .unwrap();
        assert_eq!(shim.category, None);
        assert_eq!(shim.message, "f is deprecated, use {…}.g() instead");
    }

    /// matplotlib 2.x's `hist`, reduced: both keywords, the old one handed to the new one.
    #[test]
    fn a_renamed_keyword_assigned_to_the_new_one() {
        let src = r#"
def hist(x, bins=None, density=None, normed=None, **kwargs):
    if normed is not None:
        warnings.warn("The 'normed' kwarg is deprecated; use 'density' instead.",
                      MatplotlibDeprecationWarning)
        density = normed
    return _hist(x, bins, density)
"#;
        let warned = read(src.trim_start()).unwrap();
        assert!(warned.shim.is_none());
        assert_eq!(
            warned.renames,
            [KeywordRename {
                old: "normed".into(),
                new: "density".into(),
                message: "The 'normed' kwarg is deprecated; use 'density' instead.".into(),
            }]
        );
    }

    /// scikit-learn style: the old keyword popped from `**kwargs`.
    #[test]
    fn a_renamed_keyword_popped_from_kwargs() {
        let src = r#"
def fit(self, X, max_iter=100, **kwargs):
    if "n_iter" in kwargs:
        n_iter = kwargs.pop("n_iter")
        warnings.warn("n_iter was renamed to max_iter in 0.19", DeprecationWarning)
        max_iter = n_iter
    return self._fit(X, max_iter)
"#;
        let warned = read(src.trim_start()).unwrap();
        assert_eq!(
            warned
                .renames
                .iter()
                .map(|r| (&r.old[..], &r.new[..]))
                .collect::<Vec<_>>(),
            [("n_iter", "max_iter")]
        );
    }

    #[test]
    fn a_warning_naming_both_keywords_under_a_test_of_the_old_one() {
        let src = "def f(a, size=None, shape=None):\n    if shape is not None:\n        warnings.warn('shape is deprecated, use size', FutureWarning)\n    return g(a, size or shape)\n";
        let warned = read(src).unwrap();
        assert_eq!(
            warned
                .renames
                .iter()
                .map(|r| (&r.old[..], &r.new[..]))
                .collect::<Vec<_>>(),
            [("shape", "size")]
        );
        // Both named, neither as what to use instead (numpy 1.16's `expand_dims`): nothing.
        let src = "def expand_dims(a, axis):\n    if axis > a.ndim:\n        warnings.warn('Both axis > a.ndim and axis < -a.ndim - 1 are deprecated', DeprecationWarning)\n    return a\n";
        assert!(read(src).is_none());
        // No test of the old keyword, no assignment: nothing.
        assert!(read("def f(a, size=None, shape=None):\n    g(a)\n    if a:\n        warnings.warn('shape and size')\n").is_none());
    }

    #[test]
    fn successors_named_in_messages() {
        let cases = [
            ("Use .values instead.", Some(".values")),
            (
                "`sort` is deprecated in favor of `sort_values`",
                Some("sort_values"),
            ),
            (
                "pandas.scatter_matrix is deprecated, use pandas.plotting.scatter_matrix() instead",
                Some("pandas.plotting.scatter_matrix"),
            ),
            ("This is deprecated because users were confused", None),
            ("please use the new API instead", None),
            ("will be removed in 2.0", None),
            ("use 'density' instead", Some("density")),
        ];
        for (message, expected) in cases {
            assert_eq!(named_successor(message).as_deref(), expected, "{message}");
        }
    }
}
