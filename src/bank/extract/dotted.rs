//! Dotted names (`a.b.c`) read from expressions.

use ruff_python_ast::Expr;

/// `a.b.c` for a chain of attribute accesses on a name; `None` for anything else.
/// Iterative: generated code can hold chains far deeper than a thread's stack allows.
pub(crate) fn dotted_name(expr: &Expr) -> Option<String> {
    let mut attrs = Vec::new();
    let mut current = expr;
    let root = loop {
        match current {
            Expr::Name(name) => break name.id.as_str(),
            Expr::Attribute(attr) => {
                attrs.push(attr.attr.as_str());
                current = &attr.value;
            }
            _ => return None,
        }
    };
    let mut out =
        String::with_capacity(root.len() + attrs.iter().map(|a| a.len() + 1).sum::<usize>());
    out.push_str(root);
    for attr in attrs.iter().rev() {
        out.push('.');
        out.push_str(attr);
    }
    Some(out)
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
