//! Reads one parsed module into a [`FileSummary`].
//!
//! Only module-level statements are read, plus the bodies of module-level `if`, `try` and
//! `with` blocks (conditional imports such as `try: from ._speedups import f` are common);
//! what `if TYPE_CHECKING:` binds is marked as such.
//! Loops, function bodies and `setattr` calls are not evaluated: names created that way are left
//! to runtime introspection rather than guessed.

use std::collections::HashMap;

use ruff_python_ast::{ExceptHandler, Expr, PySourceType, Stmt};
use ruff_python_parser::parse_unchecked_source;

use super::all_names::{self, AllNames};
use super::class_body::{is_overload, summarize_class};
use super::dotted::dotted_name;
use super::signature::Signature;
use super::summary::{
    is_identifier, Binding, FileSummary, Function, Import, ImportFrom, ImportedName, Variable,
};

/// Summarizes one source file. Never fails: the recovering parser keeps every statement it can
/// read (Python 2 files keep their definitions) and the summary counts the syntax errors.
pub fn summarize_source(source: &str, is_stub: bool) -> FileSummary {
    let source_type = if is_stub {
        PySourceType::Stub
    } else {
        PySourceType::Python
    };
    let parsed = parse_unchecked_source(source, source_type);
    let mut visitor = ModuleVisitor {
        is_stub,
        ..ModuleVisitor::default()
    };
    visitor.visit_body(&parsed.syntax().body, false);
    FileSummary {
        parse_errors: u32::try_from(parsed.errors().len()).unwrap_or(u32::MAX),
        dynamic_exports: visitor.dynamic_exports,
        all: visitor.all,
        bindings: visitor.bindings,
        fallbacks: visitor.fallbacks,
        type_checking: visitor.type_checking,
    }
}

/// Like [`summarize_source`], for raw file bytes: a UTF-8 byte-order mark is skipped, and bytes
/// that are not UTF-8 (Python 2 files in Latin-1) are replaced rather than rejected.
pub fn summarize_bytes(bytes: &[u8], is_stub: bool) -> FileSummary {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    match std::str::from_utf8(bytes) {
        Ok(text) => summarize_source(text, is_stub),
        Err(_) => summarize_source(&String::from_utf8_lossy(bytes), is_stub),
    }
}

#[derive(Default)]
struct ModuleVisitor {
    is_stub: bool,
    dynamic_exports: bool,
    all: Option<AllNames>,
    bindings: Vec<Binding>,
    fallbacks: Vec<u32>,
    type_checking: Vec<u32>,
    /// Inside an `if TYPE_CHECKING:` block.
    in_type_checking: bool,
    /// Functions of this module that extend `__all__` (numpy's `extend_all`).
    all_extenders: Vec<String>,
    /// Functions whose latest binding is an `@overload` stub, by name → binding index.
    overloads: HashMap<String, usize>,
}

impl ModuleVisitor {
    fn visit_body(&mut self, body: &[Stmt], fallback: bool) {
        for stmt in body {
            self.visit_stmt(stmt, fallback);
        }
    }

    fn visit_stmt(&mut self, stmt: &Stmt, fallback: bool) {
        if all_names::apply_statement(&mut self.all, stmt)
            || all_names::apply_extender_call(&mut self.all, stmt, &self.all_extenders)
        {
            return;
        }
        if writes_globals(stmt) {
            self.dynamic_exports = true;
        }
        match stmt {
            Stmt::FunctionDef(def) => {
                let name = def.name.as_str();
                if name == "__getattr__" {
                    self.dynamic_exports = true;
                }
                if all_names::mutates_all(&def.body) {
                    self.all_extenders.push(name.to_string());
                }
                let function = Binding::Function(Function {
                    name: name.to_string(),
                    signature: Signature::from_ast(&def.parameters),
                    is_async: def.is_async,
                });
                let overload = is_overload(&def.decorator_list);
                match (self.overloads.get(name).copied(), overload) {
                    // Further overloads of a name add nothing.
                    (Some(_), true) => {}
                    // The implementation after its overloads takes their place.
                    (Some(i), false) => {
                        self.bindings[i] = function;
                        self.overloads.remove(name);
                    }
                    (None, _) => {
                        if overload {
                            self.overloads.insert(name.to_string(), self.bindings.len());
                        }
                        self.push(function, fallback);
                    }
                }
            }
            Stmt::ClassDef(class) => {
                self.push(Binding::Class(summarize_class(class)), fallback);
            }
            Stmt::Assign(assign) => {
                // `a = b = pkg.f` makes both names aliases; tuple targets never are.
                let value = dotted_name(&assign.value);
                let called = called_name(&assign.value);
                for target in &assign.targets {
                    if let Expr::Name(name) = target {
                        self.variable(name.id.as_str(), value.clone(), called.clone(), fallback);
                        continue;
                    }
                    let mut names = Vec::new();
                    target_names(target, &mut names);
                    for name in names {
                        self.variable(name, None, None, fallback);
                    }
                }
            }
            // `x: int` binds nothing at run time, but declares a module attribute in a stub.
            Stmt::AnnAssign(assign) if assign.value.is_some() || self.is_stub => {
                if let Expr::Name(name) = &*assign.target {
                    let value = assign.value.as_deref();
                    self.variable(
                        name.id.as_str(),
                        value.and_then(dotted_name),
                        value.and_then(called_name),
                        fallback,
                    );
                }
            }
            Stmt::Import(import) => {
                for alias in &import.names {
                    self.push(
                        Binding::Import(Import {
                            module: alias.name.as_str().to_string(),
                            asname: alias.asname.as_ref().map(|a| a.as_str().to_string()),
                        }),
                        fallback,
                    );
                }
            }
            Stmt::ImportFrom(from) => {
                let module = from.module.as_ref().map(|m| m.as_str().to_string());
                if from.level == 0 && module.as_deref() == Some("__future__") {
                    return;
                }
                let names: Vec<ImportedName> = from
                    .names
                    .iter()
                    .filter(|alias| {
                        let bound = alias.asname.as_ref().unwrap_or(&alias.name);
                        alias.name.as_str() == "*" || is_identifier(bound.as_str())
                    })
                    .map(|alias| ImportedName {
                        name: alias.name.as_str().to_string(),
                        asname: alias.asname.as_ref().map(|a| a.as_str().to_string()),
                    })
                    .collect();
                if names.is_empty() {
                    return;
                }
                self.push(
                    Binding::ImportFrom(ImportFrom {
                        level: from.level,
                        module,
                        names,
                    }),
                    fallback,
                );
            }
            Stmt::Delete(delete) => {
                let names: Vec<String> = delete
                    .targets
                    .iter()
                    .filter_map(|t| match t {
                        Expr::Name(n) => Some(n.id.as_str().to_string()),
                        _ => None,
                    })
                    .collect();
                if !names.is_empty() {
                    for name in &names {
                        self.overloads.remove(name);
                    }
                    self.push(Binding::Delete(names), fallback);
                }
            }
            Stmt::If(stmt_if) => {
                if is_type_checking(&stmt_if.test) {
                    let outer = std::mem::replace(&mut self.in_type_checking, true);
                    self.visit_body(&stmt_if.body, fallback);
                    self.in_type_checking = outer;
                    for clause in &stmt_if.elif_else_clauses {
                        self.visit_body(&clause.body, fallback);
                    }
                } else {
                    self.visit_body(&stmt_if.body, fallback);
                    for clause in &stmt_if.elif_else_clauses {
                        self.visit_body(&clause.body, true);
                    }
                }
            }
            Stmt::Try(stmt_try) => {
                self.visit_body(&stmt_try.body, fallback);
                for handler in &stmt_try.handlers {
                    let ExceptHandler::ExceptHandler(handler) = handler;
                    self.visit_body(&handler.body, true);
                }
                self.visit_body(&stmt_try.orelse, fallback);
                self.visit_body(&stmt_try.finalbody, fallback);
            }
            Stmt::With(with) => self.visit_body(&with.body, fallback),
            // Loops are not run; what they do to `__all__` or through `globals()` only makes
            // the module's exports dynamic.
            Stmt::For(_) | Stmt::While(_) => self.scan_loop(stmt),
            _ => {}
        }
    }

    fn scan_loop(&mut self, stmt: &Stmt) {
        for body in all_names::nested_bodies(stmt) {
            if all_names::mutates_all(body) {
                self.all.get_or_insert_with(AllNames::default).dynamic = true;
            }
            for inner in body {
                if writes_globals(inner) {
                    self.dynamic_exports = true;
                }
                self.scan_loop(inner);
            }
        }
    }

    fn variable(
        &mut self,
        name: &str,
        alias_of: Option<String>,
        called: Option<String>,
        fallback: bool,
    ) {
        if name == "__getattr__" {
            self.dynamic_exports = true;
        }
        self.push(
            Binding::Variable(Variable {
                name: name.to_string(),
                alias_of,
                called,
            }),
            fallback,
        );
    }

    fn push(&mut self, binding: Binding, fallback: bool) {
        // Error recovery can leave a statement without a usable name (`def (x):`).
        if binding.bound_names().any(|n| !is_identifier(n)) {
            return;
        }
        if !matches!(binding, Binding::Function(_)) && !self.overloads.is_empty() {
            for name in binding.bound_names() {
                self.overloads.remove(name);
            }
        }
        if fallback {
            self.fallbacks.push(self.bindings.len() as u32);
        }
        if self.in_type_checking {
            self.type_checking.push(self.bindings.len() as u32);
        }
        self.bindings.push(binding);
    }
}

/// `f.g` for a value `f.g(...)`.
fn called_name(value: &Expr) -> Option<String> {
    match value {
        Expr::Call(call) => dotted_name(&call.func),
        _ => None,
    }
}

/// The plain names an assignment target binds (`a`, `a, (b, *c)`); attributes and subscripts
/// bind no module-level name.
pub(crate) fn target_names<'a>(target: &'a Expr, out: &mut Vec<&'a str>) {
    match target {
        Expr::Name(name) => out.push(name.id.as_str()),
        Expr::Tuple(tuple) => tuple.elts.iter().for_each(|e| target_names(e, out)),
        Expr::List(list) => list.elts.iter().for_each(|e| target_names(e, out)),
        Expr::Starred(star) => target_names(&star.value, out),
        _ => {}
    }
}

/// `globals()[name] = ...` or `globals().update(...)`: names no static reading can list.
fn writes_globals(stmt: &Stmt) -> bool {
    let is_globals_call = |e: &Expr| matches!(e, Expr::Call(c) if matches!(&*c.func, Expr::Name(n) if n.id.as_str() == "globals"));
    match stmt {
        Stmt::Assign(assign) => assign
            .targets
            .iter()
            .any(|t| matches!(t, Expr::Subscript(s) if is_globals_call(&s.value))),
        Stmt::Expr(expr) => matches!(
            &*expr.value,
            Expr::Call(call) if matches!(&*call.func, Expr::Attribute(a)
                if a.attr.as_str() == "update" && is_globals_call(&a.value))
        ),
        _ => false,
    }
}

fn is_type_checking(test: &Expr) -> bool {
    match test {
        Expr::Name(name) => name.id.as_str() == "TYPE_CHECKING",
        Expr::Attribute(attr) => attr.attr.as_str() == "TYPE_CHECKING",
        _ => false,
    }
}
