//! Dotted names (`a.b.c`) read from expressions.

use ruff_python_ast::Expr;

/// `a.b.c` for a chain of attribute accesses on a name; `None` for anything else.
pub(crate) fn dotted_name(expr: &Expr) -> Option<String> {
    match expr {
        Expr::Name(name) => Some(name.id.as_str().to_string()),
        Expr::Attribute(attr) => {
            let mut out = dotted_name(&attr.value)?;
            out.push('.');
            out.push_str(attr.attr.as_str());
            Some(out)
        }
        _ => None,
    }
}

/// The last segment of a dotted expression (`property` of `functools.property`).
pub(crate) fn last_segment(expr: &Expr) -> Option<&str> {
    match expr {
        Expr::Name(name) => Some(name.id.as_str()),
        Expr::Attribute(attr) => Some(attr.attr.as_str()),
        Expr::Call(call) => last_segment(&call.func),
        _ => None,
    }
}
