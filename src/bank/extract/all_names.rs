//! `__all__`: which names `from m import *` takes from a module.
//!
//! Only what can be read without running code is evaluated: string literals in lists and tuples,
//! `+`, `+=`, `.extend`, `.append`, `.insert`, `.remove`, and `other.__all__` references (numpy's
//! `__all__ += core.__all__`), which the flow resolves. Anything else marks the list as dynamic.

use ruff_python_ast::{Expr, Operator, Stmt};
use serde::{Deserialize, Serialize};

use super::dotted::dotted_name;

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AllNames {
    /// Literal names, in order, without duplicates.
    #[serde(rename = "n", default, skip_serializing_if = "Vec::is_empty")]
    pub names: Vec<String>,
    /// Dotted names whose own `__all__` is included (`core` for `__all__ += core.__all__`).
    #[serde(rename = "r", default, skip_serializing_if = "Vec::is_empty")]
    pub includes: Vec<String>,
    /// Names taken out with `__all__.remove(...)`; applied after the includes.
    #[serde(rename = "x", default, skip_serializing_if = "Vec::is_empty")]
    pub removed: Vec<String>,
    /// Part of `__all__` is computed by code not evaluated here (a comprehension, a call).
    #[serde(rename = "dyn", default, skip_serializing_if = "is_false")]
    pub dynamic: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl AllNames {
    fn add_name(&mut self, name: &str) {
        self.removed.retain(|r| r != name);
        if !self.names.iter().any(|n| n == name) {
            self.names.push(name.to_string());
        }
    }

    /// Adds what `expr` evaluates to, as far as it can be read. `a + b + c` chains are walked
    /// with an explicit stack, as generated code makes them arbitrarily long.
    fn add_expr(&mut self, expr: &Expr) {
        let mut pending = vec![expr];
        while let Some(expr) = pending.pop() {
            match expr {
                Expr::BinOp(op) if op.op == Operator::Add => {
                    // Right pushed first so that the left side is added first.
                    pending.push(&op.right);
                    pending.push(&op.left);
                }
                other => self.add_operand(other),
            }
        }
    }

    fn add_operand(&mut self, expr: &Expr) {
        match expr {
            Expr::List(list) => list.elts.iter().for_each(|e| self.add_element(e)),
            Expr::Tuple(tuple) => tuple.elts.iter().for_each(|e| self.add_element(e)),
            Expr::Attribute(attr) if attr.attr.as_str() == "__all__" => {
                match dotted_name(&attr.value) {
                    Some(module) if !self.includes.contains(&module) => self.includes.push(module),
                    Some(_) => {}
                    None => self.dynamic = true,
                }
            }
            // `list(x)` / `tuple(x)` around something readable.
            Expr::Call(call)
                if call.arguments.args.len() == 1
                    && call.arguments.keywords.is_empty()
                    && matches!(&*call.func, Expr::Name(n) if n.id.as_str() == "list" || n.id.as_str() == "tuple") =>
            {
                self.add_expr(&call.arguments.args[0]);
            }
            _ => self.dynamic = true,
        }
    }

    fn add_element(&mut self, element: &Expr) {
        match element {
            Expr::StringLiteral(s) => self.add_name(s.value.to_str()),
            Expr::Starred(star) => self.add_expr(&star.value),
            _ => self.dynamic = true,
        }
    }

    fn remove(&mut self, element: &Expr) {
        match element {
            Expr::StringLiteral(s) => {
                let name = s.value.to_str();
                self.names.retain(|n| n != name);
                if !self.removed.iter().any(|r| r == name) {
                    self.removed.push(name.to_string());
                }
            }
            _ => self.dynamic = true,
        }
    }
}

fn is_all_target(expr: &Expr) -> bool {
    matches!(expr, Expr::Name(n) if n.id.as_str() == "__all__")
}

/// Applies `stmt` to `all` if it is an `__all__` statement; returns whether it was one.
pub(crate) fn apply_statement(all: &mut Option<AllNames>, stmt: &Stmt) -> bool {
    match stmt {
        Stmt::Assign(assign) if assign.targets.iter().any(is_all_target) => {
            let mut fresh = AllNames::default();
            fresh.add_expr(&assign.value);
            *all = Some(fresh);
            true
        }
        Stmt::AnnAssign(assign) if is_all_target(&assign.target) => {
            if let Some(value) = &assign.value {
                let mut fresh = AllNames::default();
                fresh.add_expr(value);
                *all = Some(fresh);
            }
            true
        }
        Stmt::AugAssign(aug) if is_all_target(&aug.target) => {
            let target = all.get_or_insert_with(AllNames::default);
            if aug.op == Operator::Add {
                target.add_expr(&aug.value);
            } else {
                target.dynamic = true;
            }
            true
        }
        Stmt::Expr(expr) => {
            let Expr::Call(call) = &*expr.value else {
                return false;
            };
            let Expr::Attribute(method) = &*call.func else {
                return false;
            };
            if !is_all_target(&method.value) {
                return false;
            }
            let target = all.get_or_insert_with(AllNames::default);
            let args = &call.arguments.args;
            match (method.attr.as_str(), args.len()) {
                ("extend", 1) => target.add_expr(&args[0]),
                ("append", 1) => target.add_element(&args[0]),
                ("insert", 2) => target.add_element(&args[1]),
                ("remove", 1) => target.remove(&args[0]),
                // `sort`, `reverse` and friends do not change the set of names.
                ("sort" | "reverse", _) => {}
                _ => target.dynamic = true,
            }
            true
        }
        _ => false,
    }
}

/// Whether statements (searched through nested blocks, not nested functions) change `__all__`.
/// numpy's `def extend_all(module): ... __all__.append(a)` is such a helper.
pub(crate) fn mutates_all(body: &[Stmt]) -> bool {
    body.iter().any(|stmt| {
        let mut probe: Option<AllNames> = None;
        if apply_statement(&mut probe, stmt) {
            return true;
        }
        nested_bodies(stmt).any(mutates_all)
    })
}

/// The blocks nested in a compound statement (not function or class bodies).
pub(crate) fn nested_bodies(stmt: &Stmt) -> impl Iterator<Item = &[Stmt]> {
    let mut out: Vec<&[Stmt]> = Vec::new();
    match stmt {
        Stmt::If(s) => {
            out.push(&s.body);
            out.extend(s.elif_else_clauses.iter().map(|c| &c.body[..]));
        }
        Stmt::For(s) => {
            out.push(&s.body);
            out.push(&s.orelse);
        }
        Stmt::While(s) => {
            out.push(&s.body);
            out.push(&s.orelse);
        }
        Stmt::With(s) => out.push(&s.body),
        Stmt::Try(s) => {
            out.push(&s.body);
            for handler in &s.handlers {
                let ruff_python_ast::ExceptHandler::ExceptHandler(h) = handler;
                out.push(&h.body);
            }
            out.push(&s.orelse);
            out.push(&s.finalbody);
        }
        _ => {}
    }
    out.into_iter()
}

/// `helper(module)` at module level, where `helper` is a function of this module that extends
/// `__all__`: `module.__all__` is included. Returns whether `stmt` was such a call.
pub(crate) fn apply_extender_call(
    all: &mut Option<AllNames>,
    stmt: &Stmt,
    extenders: &[String],
) -> bool {
    let Stmt::Expr(expr) = stmt else {
        return false;
    };
    let Expr::Call(call) = &*expr.value else {
        return false;
    };
    let Expr::Name(func) = &*call.func else {
        return false;
    };
    if !extenders.iter().any(|e| e == func.id.as_str()) {
        return false;
    }
    let target = all.get_or_insert_with(AllNames::default);
    match &call.arguments.args[..] {
        [arg] => match dotted_name(arg) {
            Some(module) if !target.includes.contains(&module) => target.includes.push(module),
            Some(_) => {}
            None => target.dynamic = true,
        },
        _ => target.dynamic = true,
    }
    true
}
