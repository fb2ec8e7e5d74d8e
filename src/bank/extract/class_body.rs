//! What a class statement contributes: its bases, its constructor and its public members.

use std::collections::HashMap;

use ruff_python_ast::{Decorator, Expr, Stmt, StmtClassDef, StmtFunctionDef};

use super::deprecation::Warned;
use super::dotted::{dotted_name, last_segment};
use super::signature::Signature;
use super::summary::{is_private, Class, Member, MemberKind};
use crate::names::is_identifier;

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

pub(crate) fn summarize_class(class: &StmtClassDef, source: &str) -> Class {
    let mut collector = MemberCollector {
        source,
        ..MemberCollector::default()
    };
    collector.visit(&class.body);
    // Attributes set on instances count after everything the class body defines.
    for name in std::mem::take(&mut collector.instance_attributes) {
        collector.add(&name, MemberKind::Attribute, false);
    }
    Class {
        getattr: collector.getattr,
        computed_members: collector.computed_members,
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
struct MemberCollector<'s> {
    /// The file's text, for the source of shims' templates.
    source: &'s str,
    init: Option<Signature>,
    init_is_overload: bool,
    /// `__new__`, the constructor of classes without `__init__` (sympy's).
    new: Option<Signature>,
    members: Vec<Member>,
    /// Member index by name, and whether that member came from an `@overload` def.
    index: HashMap<String, (usize, bool)>,
    /// `self.x = ...` in methods, in order of appearance.
    instance_attributes: Vec<String>,
    getattr: bool,
    /// A method sets attributes of computed names on its class or instance.
    computed_members: bool,
}

impl MemberCollector<'_> {
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
        if matches!(name, "__getattr__" | "__getattribute__") {
            self.getattr = true;
        }
        self.collect_instance_attributes(def);
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
                warned: Warned::read(def, self.source),
            }
        };
        self.add(name, kind, overload);
    }

    /// `self.x = ...` (also annotated, augmented and tuple targets) anywhere in a method's
    /// body, nested blocks included, nested functions and classes not: `self` being the
    /// method's first parameter, for methods that are not static or class methods.
    /// `cls.x = ...` in a class method counts the same way: pandas' `_add_numeric_operations`
    /// sets `cls.mad`. `setattr(self_or_cls, name, ...)` with a computed name (pandas 0.x's
    /// `_create_indexer` makes `loc`, `iloc` and `ix` so) makes the class's members more than
    /// static reading lists.
    fn collect_instance_attributes(&mut self, def: &StmtFunctionDef) {
        let is_static = def
            .decorator_list
            .iter()
            .any(|d| last_segment(&d.expression) == Some("staticmethod"));
        let (false, Some(receiver)) = (is_static, first_parameter(def)) else {
            return;
        };
        if sets_computed_attributes(&def.body, receiver) {
            self.computed_members = true;
        }
        let mut found = Vec::new();
        instance_targets(&def.body, receiver, &mut found);
        for name in found {
            if !self.instance_attributes.iter().any(|n| n == name) {
                self.instance_attributes.push(name.to_string());
            }
        }
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

/// The name of a function's first parameter (`self`, `cls`, or a function's first argument).
pub(crate) fn first_parameter(def: &StmtFunctionDef) -> Option<&str> {
    def.parameters
        .posonlyargs
        .iter()
        .chain(&def.parameters.args)
        .next()
        .map(|p| p.parameter.name.as_str())
}

/// Whether `body` (nested blocks and functions included) calls `setattr(receiver, name, ...)`
/// with a name that is not a literal.
pub(crate) fn sets_computed_attributes(body: &[Stmt], receiver: &str) -> bool {
    body.iter().any(|stmt| match stmt {
        Stmt::Expr(expr) => matches!(super::module_effects::computed_setattr_target(&expr.value),
            Some(Expr::Name(on)) if on.id.as_str() == receiver),
        Stmt::FunctionDef(def) => sets_computed_attributes(&def.body, receiver),
        other => super::all_names::nested_bodies(other)
            .any(|inner| sets_computed_attributes(inner, receiver)),
    })
}

/// Attribute names assigned on `receiver` in `body` (`receiver.x = ...`).
fn instance_targets<'b>(body: &'b [Stmt], receiver: &str, out: &mut Vec<&'b str>) {
    fn from_target<'b>(target: &'b Expr, receiver: &str, out: &mut Vec<&'b str>) {
        match target {
            Expr::Attribute(attr) => {
                if matches!(&*attr.value, Expr::Name(n) if n.id.as_str() == receiver) {
                    out.push(attr.attr.as_str());
                }
            }
            Expr::Tuple(t) => t.elts.iter().for_each(|e| from_target(e, receiver, out)),
            Expr::List(l) => l.elts.iter().for_each(|e| from_target(e, receiver, out)),
            Expr::Starred(s) => from_target(&s.value, receiver, out),
            _ => {}
        }
    }
    for stmt in body {
        match stmt {
            Stmt::Assign(assign) => assign
                .targets
                .iter()
                .for_each(|t| from_target(t, receiver, out)),
            Stmt::AnnAssign(assign) if assign.value.is_some() => {
                from_target(&assign.target, receiver, out)
            }
            Stmt::AugAssign(aug) => from_target(&aug.target, receiver, out),
            Stmt::For(f) => {
                instance_targets(&f.body, receiver, out);
                instance_targets(&f.orelse, receiver, out);
            }
            Stmt::While(w) => {
                instance_targets(&w.body, receiver, out);
                instance_targets(&w.orelse, receiver, out);
            }
            Stmt::If(i) => {
                instance_targets(&i.body, receiver, out);
                for clause in &i.elif_else_clauses {
                    instance_targets(&clause.body, receiver, out);
                }
            }
            Stmt::With(w) => instance_targets(&w.body, receiver, out),
            Stmt::Try(t) => {
                instance_targets(&t.body, receiver, out);
                for handler in &t.handlers {
                    let ruff_python_ast::ExceptHandler::ExceptHandler(h) = handler;
                    instance_targets(&h.body, receiver, out);
                }
                instance_targets(&t.orelse, receiver, out);
                instance_targets(&t.finalbody, receiver, out);
            }
            _ => {}
        }
    }
}

/// `X = namedtuple("X", ["a", "b"])` (or `"a b"`, `"a, b"`, `typing.NamedTuple("X", [("a",
/// int), ...])`): a class whose fields are its members, and its constructor's parameters.
pub(crate) fn namedtuple_class(name: &str, value: &Expr) -> Option<Class> {
    let Expr::Call(call) = value else {
        return None;
    };
    let callee = last_segment(&call.func)?;
    if callee != "namedtuple" && callee != "NamedTuple" {
        return None;
    }
    let fields_arg = call.arguments.args.get(1).or_else(|| {
        call.arguments
            .keywords
            .iter()
            .find(|k| {
                matches!(
                    k.arg.as_ref().map(|a| a.as_str()),
                    Some("field_names" | "fields")
                )
            })
            .map(|k| &k.value)
    })?;
    let fields: Vec<String> = match fields_arg {
        Expr::StringLiteral(s) => s
            .value
            .to_str()
            .replace(',', " ")
            .split_whitespace()
            .map(str::to_string)
            .collect(),
        Expr::List(l) => literal_fields(&l.elts)?,
        Expr::Tuple(t) => literal_fields(&t.elts)?,
        _ => return None,
    };
    if fields.is_empty() || !fields.iter().all(|f| is_identifier(f)) {
        return None;
    }
    let signature: Signature = format!("({})", fields.join(", ")).parse().ok()?;
    Some(Class {
        name: name.to_string(),
        bases: Vec::new(),
        init: Some(signature),
        members: fields
            .iter()
            .filter(|f| !is_private(f))
            .map(|f| Member {
                name: f.clone(),
                kind: MemberKind::Attribute,
            })
            .collect(),
        getattr: false,
        computed_members: false,
    })
}

/// Field names written as string literals, or `(name, type)` pairs.
fn literal_fields(elements: &[Expr]) -> Option<Vec<String>> {
    elements
        .iter()
        .map(|e| match e {
            Expr::StringLiteral(s) => Some(s.value.to_str().to_string()),
            Expr::Tuple(t) => match t.elts.first() {
                Some(Expr::StringLiteral(s)) => Some(s.value.to_str().to_string()),
                _ => None,
            },
            _ => None,
        })
        .collect()
}
