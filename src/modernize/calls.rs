//! Rewrites at call sites: a removed function's call replaced by the template its last
//! releases' shim returned (`np.asscalar(x)` → `x.item()`), and a renamed keyword's old name
//! replaced by the new one (`hist(x, normed=True)` → `hist(x, density=True)`).
//!
//! A function's calls are found through the notebook's imports (what `np` or `asscalar` is
//! bound to); a method's, which the code reaches on a value, where the notebook's analysis
//! saw them, by the method's name. A call is rewritten only when its arguments map onto the
//! parameters the template uses; otherwise it is left as it is, and said.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use ruff_python_ast::visitor::{walk_expr, Visitor};
use ruff_python_ast::{Expr, ExprContext};
use ruff_text_size::{Ranged, TextRange, TextSize};

use super::rewrite::{line_of, location, Edit, Left, LeftWhy};
use crate::bank::extract::{ParamKind, Signature};
use crate::names::ApiPath;
use crate::notebook::Location;

/// A rewrite at the calls of one API.
#[derive(Debug, Clone)]
pub struct CallRewrite {
    pub api: ApiPath,
    /// Reached on a value (a method): its calls are the ones at `at` that name it.
    pub method: bool,
    /// Where the notebook uses it.
    pub at: Vec<Location>,
    pub edit: CallEdit,
}

#[derive(Debug, Clone)]
pub enum CallEdit {
    /// The call becomes `expr`, its parameters (from `signature`, the API's in its last
    /// release) replaced by the call's arguments; a method's first parameter is the value
    /// it is called on.
    Template { expr: String, signature: Signature },
    /// The keyword `old` passed at the call is renamed `new`.
    Keyword { old: String, new: String },
    /// The method's name at the call becomes `name`: a method (`call`, arguments kept), or
    /// an attribute of the same value (the call, which must pass nothing, goes).
    Member { name: String, call: bool },
    /// The function's first argument becomes the value `method` is called on, with the
    /// other arguments, then `rest` (`rolling_mean(df, 3)` → `df.rolling(3).mean()`).
    Chain { method: String, rest: String },
    /// A call passing just `value`, which the library now always behaves as if given, does
    /// nothing: its statement goes (`hold(True)`), or becomes `pass` where it is its
    /// block's only one.
    Drop { value: String },
}

impl CallEdit {
    /// Whether the call as a whole is replaced: the function's name goes from the code once
    /// every call is.
    fn replaces_call(&self) -> bool {
        matches!(
            self,
            CallEdit::Template { .. } | CallEdit::Chain { .. } | CallEdit::Drop { .. }
        )
    }
}

/// An argument as written at a call.
#[derive(Debug, Clone)]
pub(super) struct Argument {
    pub range: TextRange,
    /// Needs no parentheses wherever an expression goes (`x`, `a.b`, `f(x)`, `[1]`).
    pub atomic: bool,
    /// Evaluating it twice, or not at all, changes nothing (names, literals, attributes).
    pub pure: bool,
}

/// A keyword argument: its name's tokens and its value.
#[derive(Debug, Clone)]
pub(super) struct KeywordArgument {
    pub name: String,
    pub name_range: TextRange,
    pub value: Argument,
}

/// A call in a cell, as the rewriter needs it.
#[derive(Debug, Clone)]
pub(super) struct CallSite {
    pub cell: u32,
    pub range: TextRange,
    /// The callee as a dotted name (`np.asscalar`), when it is one.
    pub dotted: Option<String>,
    /// The callee's attribute name and the value it is taken on (`df` in `df.as_matrix()`).
    pub member: Option<(String, Argument)>,
    /// The callee's range: a method call found by location matches a line within it.
    pub func: TextRange,
    pub args: Vec<Argument>,
    pub keywords: Vec<KeywordArgument>,
    /// `*args` or `**kwargs` at the call: where they go is not in sight.
    pub unpacked: bool,
    /// The statement the call is, when it is a whole expression statement.
    pub statement: Option<StatementSite>,
}

/// A call that is a statement of its own: its range, and whether it is the only statement
/// of a block (which cannot be left empty).
#[derive(Debug, Clone, Copy)]
pub(super) struct StatementSite {
    pub range: TextRange,
    pub alone: bool,
}

/// Whether `e` needs no parentheses wherever an expression may stand (a number literal
/// does: `1.item()` does not parse).
pub(super) fn atomic(e: &Expr) -> bool {
    match e {
        Expr::Name(_)
        | Expr::Attribute(_)
        | Expr::Subscript(_)
        | Expr::Call(_)
        | Expr::StringLiteral(_)
        | Expr::BytesLiteral(_)
        | Expr::FString(_)
        | Expr::List(_)
        | Expr::ListComp(_)
        | Expr::Dict(_)
        | Expr::DictComp(_)
        | Expr::Set(_)
        | Expr::SetComp(_)
        | Expr::BooleanLiteral(_)
        | Expr::NoneLiteral(_)
        | Expr::EllipsisLiteral(_) => true,
        Expr::Tuple(t) => t.parenthesized,
        _ => false,
    }
}

/// Whether evaluating `e` has no effect beyond its value: names, literals, attribute chains.
pub(super) fn pure(e: &Expr) -> bool {
    match e {
        Expr::Name(_)
        | Expr::NumberLiteral(_)
        | Expr::StringLiteral(_)
        | Expr::BytesLiteral(_)
        | Expr::BooleanLiteral(_)
        | Expr::NoneLiteral(_)
        | Expr::EllipsisLiteral(_) => true,
        Expr::Attribute(a) => pure(&a.value),
        Expr::UnaryOp(u) => pure(&u.operand),
        _ => false,
    }
}

pub(super) fn argument(e: &Expr) -> Argument {
    Argument {
        range: e.range(),
        atomic: atomic(e),
        pure: pure(e),
    }
}

/// Why a call's arguments do not fit a template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Misfit {
    /// `*args` or `**kwargs` at the call.
    Unpacked,
    /// More positional arguments than parameters, or a keyword it does not name.
    Unmapped,
    /// A parameter the template uses is not given (its default is not recorded).
    Missing(String),
    /// An argument the template drops, or uses twice, might do something when evaluated.
    NotPure,
    /// The template does not parse as an expression, or reads a parameter the signature
    /// lacks.
    Template,
}

/// `call` rewritten to `template`: its parameters (from `signature`) replaced by the
/// arguments written at the call (`receiver` first, for a method).
pub(super) fn instantiate(
    template: &str,
    signature: &Signature,
    receiver: Option<&Argument>,
    call: &CallSite,
    source: &str,
) -> Result<String, Misfit> {
    if call.unpacked {
        return Err(Misfit::Unpacked);
    }
    let mut bound: HashMap<&str, &Argument> = HashMap::new();
    let mut params = signature.params.iter().peekable();
    if let Some(r) = receiver {
        let this = params.next().ok_or(Misfit::Template)?;
        bound.insert(&this.name, r);
    }
    let positional: Vec<_> = params
        .filter(|p| matches!(p.kind, ParamKind::PositionalOnly | ParamKind::Positional))
        .collect();
    if call.args.len() > positional.len() {
        return Err(Misfit::Unmapped);
    }
    for (p, a) in positional.iter().zip(&call.args) {
        bound.insert(&p.name, a);
    }
    for k in &call.keywords {
        let p = signature
            .params
            .iter()
            .find(|p| {
                p.name == k.name && matches!(p.kind, ParamKind::Positional | ParamKind::KeywordOnly)
            })
            .ok_or(Misfit::Unmapped)?;
        if bound.insert(&p.name, &k.value).is_some() {
            return Err(Misfit::Unmapped);
        }
    }

    let parsed = crate::parse::expression(template).ok_or(Misfit::Template)?;
    let expr = parsed.expr();
    let mut names = Names::default();
    names.visit_expr(expr);
    let known: BTreeSet<&str> = signature.params.iter().map(|p| p.name.as_str()).collect();
    let mut uses: BTreeMap<&str, usize> = BTreeMap::new();
    for (name, _) in &names.0 {
        if known.contains(name.as_str()) {
            *uses.entry(name.as_str()).or_default() += 1;
        }
    }
    for (name, n) in &uses {
        let arg = bound
            .get(name)
            .ok_or_else(|| Misfit::Missing(name.to_string()))?;
        if *n > 1 && !arg.pure {
            return Err(Misfit::NotPure);
        }
    }
    if bound
        .iter()
        .any(|(name, arg)| !uses.contains_key(name) && !arg.pure)
    {
        return Err(Misfit::NotPure);
    }
    let offset = expr.range().start();
    let body = &template[expr.range()];
    let mut out = String::with_capacity(body.len() + 16);
    let mut done = TextSize::from(0);
    let mut replaced = names.0.clone();
    replaced.sort_by_key(|(_, r)| r.start());
    for (name, range) in replaced
        .iter()
        .filter(|(n, _)| uses.contains_key(n.as_str()))
    {
        let arg = bound[name.as_str()];
        let (s, e) = (range.start() - offset, range.end() - offset);
        out.push_str(&body[usize::from(done)..usize::from(s)]);
        let text = &source[arg.range];
        if arg.atomic || names.1.contains(range) {
            out.push_str(text);
        } else {
            out.push('(');
            out.push_str(text);
            out.push(')');
        }
        done = e;
    }
    out.push_str(&body[usize::from(done)..]);
    if atomic(expr) {
        Ok(out)
    } else {
        Ok(format!("({out})"))
    }
}

/// The names an expression reads, with where; and those that stand alone as a call's
/// argument, where any expression may go without parentheses.
#[derive(Default)]
struct Names(Vec<(String, TextRange)>, Vec<TextRange>);

impl<'a> Visitor<'a> for Names {
    fn visit_expr(&mut self, expr: &'a Expr) {
        match expr {
            Expr::Name(n) if n.ctx == ExprContext::Load => {
                self.0.push((n.id.to_string(), n.range));
            }
            Expr::Call(c) => {
                let a = &c.arguments;
                let values = a.args.iter().chain(a.keywords.iter().map(|k| &k.value));
                self.1
                    .extend(values.filter(|v| v.is_name_expr()).map(Ranged::range));
            }
            _ => {}
        }
        walk_expr(self, expr);
    }
}

/// What an import binds each name to, notebook-wide (`np` → `numpy`, `asscalar` →
/// `numpy.asscalar`); a name bound to two things is left out.
pub(super) fn bindings<'a>(
    pairs: impl IntoIterator<Item = (String, String)> + 'a,
) -> HashMap<String, String> {
    let mut out: HashMap<String, Option<String>> = HashMap::new();
    for (name, target) in pairs {
        out.entry(name)
            .and_modify(|t| {
                if t.as_deref() != Some(target.as_str()) {
                    *t = None;
                }
            })
            .or_insert(Some(target));
    }
    out.into_iter().filter_map(|(n, t)| Some((n, t?))).collect()
}

/// The API a dotted callee names through `bindings`.
pub(super) fn resolve(dotted: &str, bindings: &HashMap<String, String>) -> Option<String> {
    let (first, rest) = match dotted.split_once('.') {
        Some((f, r)) => (f, Some(r)),
        None => (dotted, None),
    };
    let target = bindings.get(first)?;
    Some(match rest {
        Some(r) => format!("{target}.{r}"),
        None => target.clone(),
    })
}

/// The edits for `rewrites` at `calls`, what was left, and the APIs whose every call was
/// rewritten to a template (an import of them by name can go).
pub(super) struct CallEdits {
    pub edits: Vec<Edit>,
    pub left: Vec<Left>,
    pub replaced: BTreeSet<ApiPath>,
}

/// The calls of `rewrite` among `calls`; the uses of a function that are not calls, in
/// `references` (dotted names with where they are), are left.
pub(super) fn edits(
    rewrites: &[CallRewrite],
    calls: &[CallSite],
    references: &[(u32, TextRange, String)],
    bindings: &HashMap<String, String>,
    sources: &BTreeMap<u32, &str>,
) -> CallEdits {
    let mut out = CallEdits {
        edits: Vec::new(),
        left: Vec::new(),
        replaced: BTreeSet::new(),
    };
    for rw in rewrites {
        let at = |cell: u32, offset: TextSize| location(cell, sources[&cell], offset);
        let left_before = out.left.len();
        let mut found = 0usize;
        let mut callee_ranges: Vec<(u32, TextRange)> = Vec::new();
        for call in calls {
            let Some(source) = sources.get(&call.cell) else {
                continue;
            };
            let receiver = if rw.method {
                let Some((name, value)) = &call.member else {
                    continue;
                };
                let first = line_of(source, call.func.start());
                let last = line_of(source, call.func.end());
                let here = rw
                    .at
                    .iter()
                    .any(|l| l.cell == call.cell && first <= l.line && l.line <= last);
                if !here || rw.api.split_last().map(|(_, n)| n) != Some(name.as_str()) {
                    continue;
                }
                Some(value)
            } else {
                let resolved = call.dotted.as_deref().and_then(|d| resolve(d, bindings));
                if resolved.as_deref() != Some(rw.api.as_str()) {
                    continue;
                }
                None
            };
            found += 1;
            callee_ranges.push((call.cell, call.func));
            let text = match &rw.edit {
                CallEdit::Template { expr, signature } => {
                    match instantiate(expr, signature, receiver, call, source) {
                        Ok(text) => Some((call.range, text)),
                        Err(misfit) => {
                            out.left.push(Left {
                                api: rw.api.clone(),
                                at: at(call.cell, call.range.start()),
                                why: LeftWhy::ArgumentsDoNotFit {
                                    detail: misfit.to_string(),
                                },
                            });
                            None
                        }
                    }
                }
                CallEdit::Member { name, call: keep } => {
                    let (old_name, value) = call.member.as_ref().expect("a method call");
                    if *keep {
                        // The attribute's name is the callee's last token.
                        let start = call.func.end() - TextSize::of(old_name.as_str());
                        Some((TextRange::new(start, call.func.end()), name.clone()))
                    } else if call.args.is_empty() && call.keywords.is_empty() && !call.unpacked {
                        let receiver = &source[value.range];
                        let receiver = if value.atomic {
                            receiver.to_string()
                        } else {
                            format!("({receiver})")
                        };
                        Some((call.range, format!("{receiver}.{name}")))
                    } else {
                        out.left.push(Left {
                            api: rw.api.clone(),
                            at: at(call.cell, call.range.start()),
                            why: LeftWhy::ArgumentsDoNotFit {
                                detail: format!(
                                    "the call passes arguments, which the attribute `{name}` does not take"
                                ),
                            },
                        });
                        None
                    }
                }
                CallEdit::Chain { method, rest } => match chained(call, source, method, rest) {
                    Some(text) => Some((call.range, text)),
                    None => {
                        out.left.push(Left {
                            api: rw.api.clone(),
                            at: at(call.cell, call.range.start()),
                            why: LeftWhy::ArgumentsDoNotFit {
                                detail: "the value the chain is called on is not the call's first positional argument".into(),
                            },
                        });
                        None
                    }
                },
                CallEdit::Drop { value } => match dropped(call, source, value) {
                    Ok(edit) => Some(edit),
                    Err(detail) => {
                        out.left.push(Left {
                            api: rw.api.clone(),
                            at: at(call.cell, call.range.start()),
                            why: LeftWhy::ArgumentsDoNotFit { detail },
                        });
                        None
                    }
                },
                CallEdit::Keyword { old, new } => {
                    let given = |n: &str| call.keywords.iter().find(|k| k.name == n);
                    match (given(old), given(new)) {
                        (Some(k), None) => Some((k.name_range, new.clone())),
                        (Some(_), Some(_)) => {
                            out.left.push(Left {
                                api: rw.api.clone(),
                                at: at(call.cell, call.range.start()),
                                why: LeftWhy::ArgumentsDoNotFit {
                                    detail: format!("both `{old}` and `{new}` are passed"),
                                },
                            });
                            None
                        }
                        // A call that does not pass it has nothing to rename.
                        (None, _) => {
                            found -= 1;
                            None
                        }
                    }
                }
            };
            if let Some((range, text)) = text {
                out.edits.push(Edit {
                    cell: call.cell,
                    range,
                    text,
                    api: rw.api.clone(),
                });
            }
        }
        // A function reached other than by calling it (passed as a value).
        if !rw.method && rw.edit.replaces_call() {
            for (cell, range, dotted) in references {
                let names_it = resolve(dotted, bindings).as_deref() == Some(rw.api.as_str());
                let is_callee = callee_ranges
                    .iter()
                    .any(|(c, r)| c == cell && r.contains_range(*range));
                if names_it && !is_callee {
                    out.left.push(Left {
                        api: rw.api.clone(),
                        at: at(*cell, range.start()),
                        why: LeftWhy::NotCalled,
                    });
                }
            }
        }
        let any_left = out.left.len() > left_before;
        if found == 0 && !any_left {
            if let Some(l) = rw.at.first() {
                out.left.push(Left {
                    api: rw.api.clone(),
                    at: *l,
                    why: LeftWhy::NotFound,
                });
            }
        }
        if rw.edit.replaces_call() && found > 0 && !any_left {
            out.replaced.insert(rw.api.clone());
        }
    }
    out
}

/// The edit that removes `call`, which passes just `value`: its whole lines when it stands
/// on them alone, else `pass` in its place (its block's only statement, or one sharing a
/// line). `Err` says why it cannot go.
fn dropped(call: &CallSite, source: &str, value: &str) -> Result<(TextRange, String), String> {
    let passes_just_it = !call.unpacked
        && call.keywords.is_empty()
        && matches!(&call.args[..], [a] if source[a.range].trim() == value);
    if !passes_just_it {
        return Err(format!(
            "the notes say only a call passing just `{value}` does nothing now"
        ));
    }
    let Some(statement) = call.statement else {
        return Err("its value is used".into());
    };
    if statement.alone {
        return Ok((statement.range, "pass".into()));
    }
    let (start, end) = (
        usize::from(statement.range.start()),
        usize::from(statement.range.end()),
    );
    let line_start = source[..start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = source[end..]
        .find('\n')
        .map_or(source.len(), |i| end + i + 1);
    let blank = |t: &str| t.trim().is_empty();
    if blank(&source[line_start..start]) && blank(&source[end..line_end]) {
        let range = TextRange::new(
            TextSize::try_from(line_start).expect("within the cell"),
            TextSize::try_from(line_end).expect("within the cell"),
        );
        Ok((range, String::new()))
    } else {
        Ok((statement.range, "pass".into()))
    }
}

/// `call` as `x.method(args).rest`: its first positional argument `x` (parenthesized unless
/// atomic), the rest of its arguments as written; `None` when it passes none by position or
/// unpacks any.
fn chained(call: &CallSite, source: &str, method: &str, rest: &str) -> Option<String> {
    if call.unpacked {
        return None;
    }
    let (first, others) = call.args.split_first()?;
    let receiver = &source[first.range];
    let receiver = if first.atomic {
        receiver.to_string()
    } else {
        format!("({receiver})")
    };
    let args: Vec<&str> = others
        .iter()
        .map(|a| &source[a.range])
        .chain(
            call.keywords
                .iter()
                .map(|k| &source[TextRange::new(k.name_range.start(), k.value.range.end())]),
        )
        .collect();
    Some(format!("{receiver}.{method}({}){rest}", args.join(", ")))
}

impl std::fmt::Display for Misfit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Misfit::Unpacked => f.write_str("the call unpacks `*args` or `**kwargs`"),
            Misfit::Unmapped => {
                f.write_str("the call's arguments do not map onto the old signature")
            }
            Misfit::Missing(p) => write!(
                f,
                "the template uses `{p}`, which the call leaves to its default"
            ),
            Misfit::NotPure => f.write_str(
                "an argument the template drops or repeats might do something when evaluated",
            ),
            Misfit::Template => f.write_str("the template does not fit the signature"),
        }
    }
}

#[cfg(test)]
mod tests {
    use ruff_python_parser::parse_expression;

    use super::*;

    /// `source` (one call) instantiated into `template` with `signature`.
    fn fill(template: &str, signature: &str, source: &str) -> Result<String, Misfit> {
        let parsed = parse_expression(source).unwrap();
        let Expr::Call(c) = parsed.expr() else {
            panic!("not a call: {source}")
        };
        let call = CallSite {
            cell: 1,
            range: c.range(),
            dotted: None,
            member: None,
            func: c.func.range(),
            args: c.arguments.args.iter().map(argument).collect(),
            keywords: c
                .arguments
                .keywords
                .iter()
                .map(|k| KeywordArgument {
                    name: k.arg.as_ref().unwrap().id.to_string(),
                    name_range: k.arg.as_ref().unwrap().range,
                    value: argument(&k.value),
                })
                .collect(),
            unpacked: false,
            statement: None,
        };
        instantiate(template, &signature.parse().unwrap(), None, &call, source)
    }

    #[test]
    fn arguments_map_by_position_and_keyword() {
        assert_eq!(
            fill(
                "a.round(decimals)",
                "(a, decimals=..., out=...)",
                "f(x, decimals=2)"
            )
            .unwrap(),
            "x.round(2)"
        );
        assert_eq!(
            fill(
                "a.round(decimals)",
                "(a, decimals=..., out=...)",
                "f(decimals=2, a=y[0])"
            )
            .unwrap(),
            "y[0].round(2)"
        );
    }

    #[test]
    fn compound_arguments_and_templates_get_parentheses() {
        assert_eq!(fill("a ** 2", "(a)", "f(x + 1)").unwrap(), "((x + 1) ** 2)");
        assert_eq!(
            fill("g(a, k=b)", "(a, b)", "f(x + 1, -2)").unwrap(),
            "g(x + 1, k=-2)"
        );
        assert_eq!(fill("a.item()", "(a)", "f(-1)").unwrap(), "(-1).item()");
    }

    #[test]
    fn what_the_template_needs_must_be_given() {
        assert_eq!(
            fill("a.round(decimals)", "(a, decimals=...)", "f(x)"),
            Err(Misfit::Missing("decimals".into()))
        );
        assert_eq!(fill("a.item()", "(a)", "f(x, y)"), Err(Misfit::Unmapped));
        assert_eq!(fill("a.item()", "(a)", "f(b=x)"), Err(Misfit::Unmapped));
    }

    #[test]
    fn arguments_with_effects_are_neither_dropped_nor_repeated() {
        // `out` is dropped: a name is fine, a call is not.
        assert!(fill("a.item()", "(a, out=...)", "f(x, out=buf)").is_ok());
        assert_eq!(
            fill("a.item()", "(a, out=...)", "f(x, out=make())"),
            Err(Misfit::NotPure)
        );
        assert_eq!(fill("a * a", "(a)", "f(g(x))"), Err(Misfit::NotPure));
        assert_eq!(fill("a * a", "(a)", "f(x)").unwrap(), "(x * x)");
    }

    #[test]
    fn a_name_bound_twice_is_no_binding() {
        let b = bindings([
            ("np".to_string(), "numpy".to_string()),
            ("s".to_string(), "numpy.asscalar".to_string()),
            ("s".to_string(), "scipy.s".to_string()),
        ]);
        assert_eq!(
            resolve("np.asscalar", &b).as_deref(),
            Some("numpy.asscalar")
        );
        assert_eq!(resolve("s", &b), None);
    }
}
