//! What a class statement contributes: its bases, its constructor and its public members.

use std::collections::HashMap;

use ruff_python_ast::{Decorator, Expr, Stmt, StmtClassDef, StmtFunctionDef};

use super::dotted::{dotted_name, last_segment};
use super::signature::Signature;
use super::summary::{is_identifier, is_private, Class, Member, MemberKind};

/// Decorators (by last segment) that turn a method into an attribute-like member.
const PROPERTY_DECORATORS: &[&str] = &[
    "property",
    "cached_property",
    "cache_readonly",
    "abstractproperty",
    "lazyproperty",
    "lazy_property",
    "reify",
];

pub(crate) fn summarize_class(class: &StmtClassDef) -> Class {
    let mut collector = MemberCollector::default();
    collector.visit(&class.body);
    Class {
        name: class.name.as_str().to_string(),
        bases: class
            .arguments
            .as_deref()
            .map(|args| bases(&args.args))
            .unwrap_or_default(),
        init: collector.init.or(collector.new),
        members: collector.members,
    }
}

fn bases(args: &[Expr]) -> Vec<String> {
    let mut out = Vec::with_capacity(args.len());
    for arg in args {
        match arg {
            Expr::Subscript(sub) => out.extend(dotted_name(&sub.value)),
            // `six.with_metaclass(Meta, Base, ...)` / `future.utils.with_metaclass(...)`.
            Expr::Call(call) if last_segment(&call.func) == Some("with_metaclass") => {
                out.extend(call.arguments.args.iter().skip(1).filter_map(dotted_name));
            }
            other => out.extend(dotted_name(other)),
        }
    }
    out
}

pub(crate) fn is_overload(decorators: &[Decorator]) -> bool {
    decorators
        .iter()
        .any(|d| last_segment(&d.expression) == Some("overload"))
}

#[derive(Default)]
struct MemberCollector {
    init: Option<Signature>,
    init_is_overload: bool,
    /// `__new__`, the constructor of classes without `__init__` (sympy's).
    new: Option<Signature>,
    members: Vec<Member>,
    /// Member index by name, and whether that member came from an `@overload` def.
    index: HashMap<String, (usize, bool)>,
}

impl MemberCollector {
    fn visit(&mut self, body: &[Stmt]) {
        for stmt in body {
            match stmt {
                Stmt::FunctionDef(def) => self.function(def),
                Stmt::ClassDef(nested) => self.add(nested.name.as_str(), MemberKind::Class, false),
                Stmt::Assign(assign) => {
                    let alias = match (&assign.targets[..], &*assign.value) {
                        ([Expr::Name(_)], Expr::Name(value)) => Some(value.id.as_str()),
                        _ => None,
                    };
                    for target in &assign.targets {
                        let mut names = Vec::new();
                        super::visitor::target_names(target, &mut names);
                        for name in names {
                            let kind = alias
                                .and_then(|a| self.index.get(a))
                                .map(|&(i, _)| self.members[i].kind.clone())
                                .unwrap_or(MemberKind::Attribute);
                            self.add(name, kind, false);
                        }
                    }
                }
                Stmt::AnnAssign(assign) => {
                    if let Expr::Name(name) = &*assign.target {
                        self.add(name.id.as_str(), MemberKind::Attribute, false);
                    }
                }
                Stmt::If(stmt_if) => {
                    self.visit(&stmt_if.body);
                    for clause in &stmt_if.elif_else_clauses {
                        self.visit(&clause.body);
                    }
                }
                Stmt::Try(stmt_try) => {
                    self.visit(&stmt_try.body);
                    for handler in &stmt_try.handlers {
                        let ruff_python_ast::ExceptHandler::ExceptHandler(h) = handler;
                        self.visit(&h.body);
                    }
                    self.visit(&stmt_try.orelse);
                    self.visit(&stmt_try.finalbody);
                }
                Stmt::With(with) => self.visit(&with.body),
                _ => {}
            }
        }
    }

    fn function(&mut self, def: &StmtFunctionDef) {
        let name = def.name.as_str();
        let overload = is_overload(&def.decorator_list);
        if name == "__init__" {
            if self.init.is_none() || (self.init_is_overload && !overload) {
                self.init = Some(Signature::from_ast(&def.parameters).without_first());
                self.init_is_overload = overload;
            }
            return;
        }
        if name == "__new__" {
            if self.new.is_none() {
                self.new = Some(Signature::from_ast(&def.parameters).without_first());
            }
            return;
        }
        let mut is_static = false;
        let mut is_property = false;
        for decorator in &def.decorator_list {
            match &decorator.expression {
                // `@x.setter` / `@x.deleter` redefine an existing property.
                Expr::Attribute(attr)
                    if matches!(attr.attr.as_str(), "setter" | "getter" | "deleter") =>
                {
                    return;
                }
                expr => match last_segment(expr) {
                    Some("staticmethod") => is_static = true,
                    Some(d) if PROPERTY_DECORATORS.contains(&d) => is_property = true,
                    _ => {}
                },
            }
        }
        let kind = if is_property {
            MemberKind::Property
        } else {
            let signature = Signature::from_ast(&def.parameters);
            MemberKind::Method {
                // As called on an instance or the class: without `self` / `cls`.
                signature: if is_static {
                    signature
                } else {
                    signature.without_first()
                },
                is_async: def.is_async,
            }
        };
        self.add(name, kind, overload);
    }

    /// Keeps the first definition of a member, except that a plain def replaces `@overload`
    /// stubs of the same name.
    fn add(&mut self, name: &str, kind: MemberKind, overload: bool) {
        if is_private(name) || !is_identifier(name) {
            return;
        }
        match self.index.get(name) {
            Some(&(i, true)) if !overload => {
                self.members[i].kind = kind;
                self.index.insert(name.to_string(), (i, false));
            }
            Some(_) => {}
            None => {
                self.index
                    .insert(name.to_string(), (self.members.len(), overload));
                self.members.push(Member {
                    name: name.to_string(),
                    kind,
                });
            }
        }
    }
}
