//! Statements by which a module changes what it exposes beyond plain bindings, read as far as
//! they can be without running code:
//! - `sys.modules[__name__] = obj`: the module replaces itself (transformers' `_LazyModule`),
//!   unless `obj` wraps the module itself (TensorFlow's `TFModuleWrapper(sys.modules[__name__])`);
//! - `sys.modules.setdefault(name, ...)`, `sys.modules[name] = ...`: other modules registered
//!   under names of the import system (TensorFlow 1.15's `tensorflow_core` forwarding);
//! - `setattr(this_module, "name", value)`: a name bound by another route;
//! - `__path__` changes: submodules found in other directories;
//! - `X = LazyLoader("x", globals(), "pkg.mod")`: a module imported on first use;
//! - `raise ...` at the top level: a shim module that exists only to fail;
//! - `sys.modules["a.b"] = ShimModule(src="a.b", mirror="c")`: a module whose every name is
//!   another module's (IPython 4-7 forward `IPython.html.widgets` to `ipywidgets`).

use ruff_python_ast::{Expr, Stmt};

use super::dotted::{dotted_name, last_segment};

/// `sys.modules` (or `_sys.modules`: any name's `modules` attribute).
fn is_sys_modules(expr: &Expr) -> bool {
    matches!(expr, Expr::Attribute(a) if a.attr.as_str() == "modules" && matches!(&*a.value, Expr::Name(_)))
}

fn is_dunder_name(expr: &Expr) -> bool {
    matches!(expr, Expr::Name(n) if n.id.as_str() == "__name__")
}

/// `sys.modules[__name__]`: the module object being run.
pub(crate) fn is_this_module(expr: &Expr) -> bool {
    matches!(expr, Expr::Subscript(s) if is_sys_modules(&s.value) && is_dunder_name(&s.slice))
}

/// `sys.modules["pkg.mod"]`: the module registered under that literal name.
pub(crate) fn registered_module(expr: &Expr) -> Option<String> {
    let Expr::Subscript(sub) = expr else {
        return None;
    };
    let Expr::StringLiteral(name) = &*sub.slice else {
        return None;
    };
    let name = name.value.to_str();
    (is_sys_modules(&sub.value) && crate::names::ModulePath::new(name).is_ok())
        .then(|| name.to_string())
}

/// What an assignment to `sys.modules[...]` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ModulesWrite {
    /// `sys.modules[__name__] = obj` where `obj` is not a wrapper of the module itself.
    ReplacesItself,
    /// `sys.modules[__name__] = Wrapper(sys.modules[__name__], ...)`: the same names.
    WrapsItself,
    /// Another key: a module registered under some name.
    Registers,
}

/// The effect of `target = value` when `target` subscripts `sys.modules`.
pub(crate) fn modules_write(target: &Expr, value: &Expr) -> Option<ModulesWrite> {
    let Expr::Subscript(sub) = target else {
        return None;
    };
    if !is_sys_modules(&sub.value) {
        return None;
    }
    if !is_dunder_name(&sub.slice) {
        return Some(ModulesWrite::Registers);
    }
    let wraps = match value {
        Expr::Call(call) => call.arguments.args.first().is_some_and(is_this_module),
        other => is_this_module(other),
    };
    Some(if wraps {
        ModulesWrite::WrapsItself
    } else {
        ModulesWrite::ReplacesItself
    })
}

/// Whether statements, searched through nested blocks and function bodies, register modules in
/// `sys.modules` under names other than the running module's.
pub(crate) fn registers_modules(body: &[Stmt]) -> bool {
    body.iter().any(|stmt| match stmt {
        Stmt::Assign(assign) => assign
            .targets
            .iter()
            .any(|t| modules_write(t, &assign.value) == Some(ModulesWrite::Registers)),
        Stmt::Expr(expr) => calls_sys_modules_method(&expr.value),
        Stmt::Return(ret) => ret.value.as_deref().is_some_and(calls_sys_modules_method),
        Stmt::FunctionDef(def) => registers_modules(&def.body),
        other => super::all_names::nested_bodies(other).any(registers_modules),
    })
}

/// `sys.modules.setdefault(...)` / `sys.modules.update(...)`.
fn calls_sys_modules_method(expr: &Expr) -> bool {
    matches!(expr, Expr::Call(call) if matches!(&*call.func, Expr::Attribute(a)
        if matches!(a.attr.as_str(), "setdefault" | "update") && is_sys_modules(&a.value)))
}

/// `__path__` or `<this module>.__path__`.
fn is_path_target(expr: &Expr, self_aliases: &[String]) -> bool {
    match expr {
        Expr::Name(n) => n.id.as_str() == "__path__",
        Expr::Attribute(a) if a.attr.as_str() == "__path__" => match &*a.value {
            Expr::Name(n) => self_aliases.iter().any(|s| s == n.id.as_str()),
            other => is_this_module(other),
        },
        _ => false,
    }
}

/// Whether a statement changes the package's `__path__` (assignment, `+=`, `.append`...).
/// `__path__ = extend_path(__path__, __name__)` of old namespace packages counts too.
pub(crate) fn changes_path(stmt: &Stmt, self_aliases: &[String]) -> bool {
    match stmt {
        Stmt::Assign(assign) => assign
            .targets
            .iter()
            .any(|t| is_path_target(t, self_aliases)),
        Stmt::AugAssign(aug) => is_path_target(&aug.target, self_aliases),
        Stmt::Expr(expr) => matches!(&*expr.value, Expr::Call(call) if matches!(&*call.func,
            Expr::Attribute(a) if matches!(a.attr.as_str(), "append" | "extend" | "insert")
                && is_path_target(&a.value, self_aliases))),
        _ => false,
    }
}

/// `setattr(<this module>, "name", value)`: the name and the value.
pub(crate) fn module_setattr<'e>(
    expr: &'e Expr,
    self_aliases: &[String],
) -> Option<(&'e str, &'e Expr)> {
    let Expr::Call(call) = expr else {
        return None;
    };
    if !matches!(&*call.func, Expr::Name(n) if n.id.as_str() == "setattr") {
        return None;
    }
    let [object, Expr::StringLiteral(name), value] = &call.arguments.args[..] else {
        return None;
    };
    let on_this_module = match object {
        Expr::Name(n) => self_aliases.iter().any(|s| s == n.id.as_str()),
        other => is_this_module(other),
    };
    on_this_module.then(|| (name.value.to_str(), value))
}

/// `setattr(obj, name, value)` with a name that is not a literal: `obj`, whose attributes no
/// static reading can list.
pub(crate) fn computed_setattr_target(expr: &Expr) -> Option<&Expr> {
    let Expr::Call(call) = expr else {
        return None;
    };
    if !matches!(&*call.func, Expr::Name(n) if n.id.as_str() == "setattr") {
        return None;
    }
    match &call.arguments.args[..] {
        [object, name, _] if !matches!(name, Expr::StringLiteral(_)) => Some(object),
        _ => None,
    }
}

/// `setattr(<a module object>, name, value)` with a computed name (pandas 0.20's
/// `pandas.tools.plotting` sets every name of `pandas.plotting` on itself in a loop): names no
/// static reading lists. `modules` are the names bound to module objects (`m =
/// sys.modules['pandas.tools.plotting']`, `_this = sys.modules[__name__]`).
pub(crate) fn sets_computed_module_names(stmt: &Stmt, modules: &[String]) -> bool {
    let Stmt::Expr(expr) = stmt else {
        return false;
    };
    computed_setattr_target(&expr.value).is_some_and(|object| match object {
        Expr::Name(n) => modules.iter().any(|s| s == n.id.as_str()),
        other => is_this_module(other) || registered_module(other).is_some(),
    })
}

/// A module put in place of another: a call given the replaced module as `src` and the one
/// it forwards to as `mirror`, both literal module paths (IPython's `ShimModule(src=
/// "IPython.html.widgets", mirror="ipywidgets")`), as (src, mirror).
pub(crate) fn module_mirror(value: &Expr) -> Option<(String, String)> {
    let Expr::Call(call) = value else {
        return None;
    };
    let literal = |name: &str| {
        call.arguments.keywords.iter().find_map(|k| {
            let Expr::StringLiteral(text) = &k.value else {
                return None;
            };
            let text = text.value.to_str();
            (k.arg.as_ref()?.as_str() == name && crate::names::ModulePath::new(text).is_ok())
                .then(|| text.to_string())
        })
    };
    let (src, mirror) = (literal("src")?, literal("mirror")?);
    (src != mirror).then_some((src, mirror))
}

/// The module a lazy loader stands for: `LazyLoader("keras", globals(), "keras.api._v2.keras")`
/// (TensorFlow) or `lazy_import("pkg.mod")`, with the module given as a string literal or as a
/// module-level string constant (`_keras_module = "keras.api._v2.keras"`).
pub(crate) fn lazy_loader_module(
    value: &Expr,
    constant: impl Fn(&str) -> Option<String>,
) -> Option<String> {
    let Expr::Call(call) = value else {
        return None;
    };
    let callee = last_segment(&call.func)?;
    if !(callee.ends_with("LazyLoader") || callee == "lazy_import") {
        return None;
    }
    call.arguments.args.iter().rev().find_map(|arg| {
        let text = match arg {
            Expr::StringLiteral(s) => s.value.to_str().to_string(),
            Expr::Name(n) => constant(n.id.as_str())?,
            _ => return None,
        };
        crate::names::ModulePath::new(&text).is_ok().then_some(text)
    })
}

/// `raise E("message")` as `E: message` (the exception's name alone when the message is not
/// a literal; the literal part of `"...".format(...)` and f-strings is kept).
pub(crate) fn raise_text(stmt: &Stmt) -> Option<String> {
    let Stmt::Raise(raise) = stmt else {
        return None;
    };
    let Some(exc) = raise.exc.as_deref() else {
        return Some("re-raise".into());
    };
    let (name, message) = match exc {
        Expr::Call(call) => (
            dotted_name(&call.func),
            call.arguments.args.first().and_then(literal_text),
        ),
        other => (dotted_name(other), None),
    };
    let name = name.unwrap_or_else(|| "exception".into());
    let text = match message {
        Some(m) => {
            let m: String = m.split_whitespace().collect::<Vec<_>>().join(" ");
            let m: String = m.chars().take(300).collect();
            format!("{name}: {m}")
        }
        None => name,
    };
    Some(text)
}

pub(crate) fn literal_text(expr: &Expr) -> Option<String> {
    match expr {
        Expr::StringLiteral(s) => Some(s.value.to_str().to_string()),
        Expr::FString(f) => {
            let mut out = String::new();
            for part in f.value.iter() {
                match part {
                    ruff_python_ast::FStringPart::Literal(l) => out.push_str(&l.value),
                    ruff_python_ast::FStringPart::FString(fs) => {
                        for element in fs.elements.iter() {
                            if let ruff_python_ast::InterpolatedStringElement::Literal(l) = element
                            {
                                out.push_str(&l.value);
                            } else {
                                out.push_str("{…}");
                            }
                        }
                    }
                }
            }
            Some(out)
        }
        // `"...".format(...)` and `"..." % args`.
        Expr::Call(call) => match &*call.func {
            Expr::Attribute(a) if a.attr.as_str() == "format" => literal_text(&a.value),
            _ => None,
        },
        Expr::BinOp(op) => literal_text(&op.left),
        _ => None,
    }
}

/// The message of a function whose body does nothing but raise (after an optional
/// docstring): calling it at the top level makes the module fail on import.
pub(crate) fn raising_body(body: &[Stmt]) -> Option<String> {
    let body = match body.first() {
        Some(Stmt::Expr(e)) if matches!(&*e.value, Expr::StringLiteral(_)) => &body[1..],
        _ => body,
    };
    match body {
        [only] => raise_text(only),
        _ => None,
    }
}
