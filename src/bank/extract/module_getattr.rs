//! A module `__getattr__` (PEP 562) that serves only names it compares with literals or looks
//! up in literal tables, and raises for every other name, leaves its module closed: numpy's
//! `__deprecated_attrs__` and `__expired_functions__` lookups and its `attr == 'testing'`
//! chain, pandas' `if name == "datetime": ... elif name == "np": ...`. The names it serves
//! become fallback bindings (Python asks `__getattr__` only for names the module does not
//! bind); any other name is absent, so `pandas.dataframe` is a typo, not a name static reading
//! cannot see. Tables it only raises for (`__former_attrs__`) need not be read: a name in them
//! is absent like any other.
//!
//! One that hands every name to a module this module imports (`return getattr(_samples,
//! name)`, scikit-learn 0.22's generated `datasets.samples_generator`) serves that module's
//! names: a star import of it, as a fallback.
//!
//! Anything else (a return no name test guards, a table whose contents are computed, a
//! function that can end without raising) leaves the module open, as before.

use std::collections::HashMap;

use ruff_python_ast::{BoolOp, CmpOp, ExceptHandler, Expr, Stmt};

use super::summary::{Binding, Import, ImportFrom, ImportedName, Variable};
use crate::names::is_identifier;

/// The bindings a closed `__getattr__` serves (as fallbacks), or `None` when a module-level
/// `__getattr__` may serve names beyond them (or there is none). Every `def __getattr__` at
/// module level (one per branch of a version test, say) must be closed.
pub(crate) fn served_bindings(body: &[Stmt]) -> Option<Vec<Binding>> {
    let mut defs = Vec::new();
    module_level(body, &mut |stmt| {
        if let Stmt::FunctionDef(def) = stmt {
            if def.name.as_str() == "__getattr__" {
                defs.push(def);
            }
        }
    });
    if defs.is_empty() {
        return None;
    }
    let tables = tables(body);
    let mut out: Vec<Binding> = Vec::new();
    for def in defs {
        let parameter = def
            .parameters
            .posonlyargs
            .iter()
            .chain(&def.parameters.args)
            .next()?;
        let name = parameter.parameter.name.as_str();
        if let Some(star) = forwarded(&def.body, name, body) {
            out.push(star);
            continue;
        }
        let reader = Reader {
            name,
            tables: &tables,
        };
        for binding in reader.function(&def.body)? {
            let bound: Vec<&str> = binding.bound_names().collect();
            if !out
                .iter()
                .any(|b| b.bound_names().any(|n| bound.contains(&n)))
            {
                out.push(binding);
            }
        }
    }
    Some(out)
}

/// `return getattr(m, name)` as the whole body, `m` a module the module imports at its top
/// level: a star import of that module.
fn forwarded(def_body: &[Stmt], name: &str, module_body: &[Stmt]) -> Option<Binding> {
    let [Stmt::Return(ret)] = def_body else {
        return None;
    };
    let Some(Expr::Call(call)) = ret.value.as_deref() else {
        return None;
    };
    let is_getattr = matches!(&*call.func, Expr::Name(f) if f.id.as_str() == "getattr");
    let [Expr::Name(module), Expr::Name(asked)] = &call.arguments.args[..] else {
        return None;
    };
    if !is_getattr || asked.id.as_str() != name || !call.arguments.keywords.is_empty() {
        return None;
    }
    let module = module.id.as_str();
    let star = |level: u32, path: String| {
        Binding::ImportFrom(ImportFrom {
            level,
            module: Some(path),
            names: vec![ImportedName {
                name: "*".to_string(),
                asname: None,
            }],
        })
    };
    module_body.iter().find_map(|stmt| match stmt {
        // `from . import _samples` / `from pkg import mod as m`.
        Stmt::ImportFrom(f) => f.names.iter().find_map(|alias| {
            let bound = alias.asname.as_ref().unwrap_or(&alias.name).as_str();
            (bound == module).then(|| {
                let path = match &f.module {
                    Some(m) => format!("{m}.{}", alias.name),
                    None => alias.name.to_string(),
                };
                star(f.level, path)
            })
        }),
        // `import pkg.mod as m` / `import m`.
        Stmt::Import(i) => i.names.iter().find_map(|alias| {
            let bound = match &alias.asname {
                Some(a) => a.as_str() == module,
                None => alias.name.as_str() == module,
            };
            bound.then(|| star(0, alias.name.to_string()))
        }),
        _ => None,
    })
}

/// Calls `each` on every module-level statement, in source order, including those in `if`,
/// `try` and `with` blocks (never function or class bodies).
fn module_level<'a>(body: &'a [Stmt], each: &mut impl FnMut(&'a Stmt)) {
    for stmt in body {
        each(stmt);
        match stmt {
            Stmt::If(s) => {
                module_level(&s.body, each);
                for clause in &s.elif_else_clauses {
                    module_level(&clause.body, each);
                }
            }
            Stmt::Try(s) => {
                module_level(&s.body, each);
                for handler in &s.handlers {
                    let ExceptHandler::ExceptHandler(h) = handler;
                    module_level(&h.body, each);
                }
                module_level(&s.orelse, each);
                module_level(&s.finalbody, each);
            }
            Stmt::With(s) => module_level(&s.body, each),
            _ => {}
        }
    }
}

/// Module-level tables by name: the string keys (or elements) they are given, `None` where
/// something else may have put names in them. Every branch counts, so a table holds at least
/// what it holds at run time (a name served wrongly stays present, never absent wrongly).
type Tables = HashMap<String, Option<Vec<String>>>;

fn tables(body: &[Stmt]) -> Tables {
    let mut out = Tables::new();
    module_level(body, &mut |stmt| match stmt {
        Stmt::Assign(a) => {
            let value = names_of(&a.value, &out);
            for target in &a.targets {
                match target {
                    Expr::Name(n) => {
                        out.insert(n.id.to_string(), value.clone());
                    }
                    Expr::Subscript(s) => add(&mut out, &s.value, Some(key_of(&s.slice))),
                    other => {
                        let mut names = Vec::new();
                        super::visitor::target_names(other, &mut names);
                        for name in names {
                            out.insert(name.to_string(), None);
                        }
                    }
                }
            }
        }
        Stmt::AnnAssign(a) => {
            if let (Expr::Name(n), Some(value)) = (&*a.target, &a.value) {
                let value = names_of(value, &out);
                out.insert(n.id.to_string(), value);
            }
        }
        Stmt::AugAssign(a) => {
            let value = names_of(&a.value, &out);
            add(&mut out, &a.target, Some(value));
        }
        Stmt::Expr(e) => {
            let Expr::Call(call) = &*e.value else {
                return;
            };
            let Expr::Attribute(method) = &*call.func else {
                return;
            };
            let value = match (method.attr.as_str(), call.arguments.args.first()) {
                ("update", Some(arg)) => names_of(arg, &out),
                ("add" | "setdefault" | "append", Some(arg)) => key_of(arg),
                _ => return,
            };
            add(&mut out, &method.value, Some(value));
        }
        Stmt::Import(i) => {
            for alias in &i.names {
                let name = alias.asname.as_ref().unwrap_or(&alias.name);
                out.insert(name.as_str().to_string(), None);
            }
        }
        Stmt::ImportFrom(f) => {
            for alias in &f.names {
                let name = alias.asname.as_ref().unwrap_or(&alias.name);
                out.insert(name.as_str().to_string(), None);
            }
        }
        _ => {}
    });
    out
}

/// Adds `names` to the table `target` names (a plain name), if it is one.
fn add(tables: &mut Tables, target: &Expr, names: Option<Option<Vec<String>>>) {
    let Expr::Name(n) = target else {
        return;
    };
    let Some(names) = names else {
        return;
    };
    let entry = tables.entry(n.id.to_string()).or_insert(None);
    match (entry.as_mut(), names) {
        (Some(have), Some(more)) => have.extend(more),
        _ => *entry = None,
    }
}

/// A single string key, as a one-name list.
fn key_of(expr: &Expr) -> Option<Vec<String>> {
    string(expr).map(|s| vec![s])
}

fn string(expr: &Expr) -> Option<String> {
    match expr {
        Expr::StringLiteral(s) => Some(s.value.to_str().to_string()),
        _ => None,
    }
}

/// The names a literal holds: a dict's string keys, a set's, list's or tuple's strings (or
/// the first string of each tuple in it), a comprehension's keys drawn from such a literal,
/// `dict()` and `set()`; `None` for anything else.
fn names_of(expr: &Expr, tables: &Tables) -> Option<Vec<String>> {
    match expr {
        Expr::Dict(d) => d
            .items
            .iter()
            .map(|item| item.key.as_ref().and_then(string))
            .collect(),
        Expr::Set(s) => elements(&s.elts),
        Expr::List(l) => elements(&l.elts),
        Expr::Tuple(t) => elements(&t.elts),
        Expr::Name(n) => tables.get(n.id.as_str()).cloned().flatten(),
        Expr::DictComp(c) => comprehension(c.key.as_deref()?, &c.generators, tables),
        Expr::SetComp(c) => comprehension(&c.elt, &c.generators, tables),
        Expr::ListComp(c) => comprehension(&c.elt, &c.generators, tables),
        Expr::Call(call)
            if call.arguments.args.is_empty()
                && matches!(&*call.func, Expr::Name(f) if matches!(f.id.as_str(), "dict" | "set")) =>
        {
            call.arguments
                .keywords
                .iter()
                .map(|k| k.arg.as_ref().map(|a| a.as_str().to_string()))
                .collect()
        }
        _ => None,
    }
}

/// The strings of a literal's elements, or the first string of each tuple element.
fn elements(elts: &[Expr]) -> Option<Vec<String>> {
    elts.iter()
        .map(|e| match e {
            Expr::Tuple(t) => t.elts.first().and_then(string),
            Expr::List(l) => l.elts.first().and_then(string),
            other => string(other),
        })
        .collect()
}

/// `{n: ... for n, x in TABLE}` (or `{n for n in TABLE}`): the key is the loop's first name,
/// drawn from a literal or a known table, unfiltered.
fn comprehension(
    key: &Expr,
    generators: &[ruff_python_ast::Comprehension],
    tables: &Tables,
) -> Option<Vec<String>> {
    let [g] = generators else {
        return None;
    };
    if !g.ifs.is_empty() {
        return None;
    }
    let first = match &g.target {
        Expr::Name(n) => n,
        Expr::Tuple(t) => match t.elts.first() {
            Some(Expr::Name(n)) => n,
            _ => return None,
        },
        _ => return None,
    };
    match key {
        Expr::Name(k) if k.id == first.id => names_of(&g.iter, tables),
        _ => None,
    }
}

/// Reads one `__getattr__` body whose parameter is `name`.
struct Reader<'a> {
    name: &'a str,
    tables: &'a Tables,
}

impl Reader<'_> {
    /// The bindings served, when every path either serves a name it tested or raises.
    fn function(&self, body: &[Stmt]) -> Option<Vec<Binding>> {
        let mut served = Vec::new();
        for stmt in body {
            match stmt {
                Stmt::Raise(_) => return Some(served),
                Stmt::Return(_) => return None,
                Stmt::If(s) => {
                    let branches = std::iter::once((Some(&*s.test), &s.body[..])).chain(
                        s.elif_else_clauses
                            .iter()
                            .map(|c| (c.test.as_ref(), &c.body[..])),
                    );
                    let mut all_end = true;
                    let mut has_else = false;
                    for (test, branch) in branches {
                        all_end &= ends(branch);
                        let Some(test) = test else {
                            has_else = true;
                            if may_return(branch) {
                                return None;
                            }
                            continue;
                        };
                        if !may_return(branch) {
                            continue;
                        }
                        let names = self.tested(test)?;
                        served.extend(self.bindings(&names, branch));
                    }
                    if has_else && all_end {
                        return Some(served);
                    }
                }
                Stmt::Try(t) => {
                    let table = self.looked_up(&t.body)?;
                    let handlers_return = t.handlers.iter().any(|h| {
                        let ExceptHandler::ExceptHandler(h) = h;
                        may_return(&h.body)
                    });
                    if handlers_return || may_return(&t.finalbody) {
                        return None;
                    }
                    if may_return(&t.body) || may_return(&t.orelse) {
                        let names = self.tables.get(table)?.clone()?;
                        served.extend(names.iter().map(|n| variable(n)));
                    }
                }
                Stmt::Assign(a) if a.targets.iter().any(|t| self.binds_name(t)) => return None,
                Stmt::AugAssign(a) if self.binds_name(&a.target) => return None,
                other if may_return(std::slice::from_ref(other)) => return None,
                _ => {}
            }
        }
        // Falling off the end returns `None` for every name.
        None
    }

    fn binds_name(&self, target: &Expr) -> bool {
        let mut names = Vec::new();
        super::visitor::target_names(target, &mut names);
        names.contains(&self.name)
    }

    /// The names a test lets through: `name == "x"`, `name in {"x", "y"}`, `name in TABLE`,
    /// and `or`s of them. `None` for any other test.
    fn tested(&self, test: &Expr) -> Option<Vec<String>> {
        match test {
            Expr::BoolOp(b) if b.op == BoolOp::Or => {
                let mut out = Vec::new();
                for value in &b.values {
                    out.extend(self.tested(value)?);
                }
                Some(out)
            }
            Expr::Compare(c) => {
                let ([op], [right]) = (&*c.ops, &*c.comparators) else {
                    return None;
                };
                let is_name = |e: &Expr| matches!(e, Expr::Name(n) if n.id.as_str() == self.name);
                match op {
                    CmpOp::Eq if is_name(&c.left) => key_of(right),
                    CmpOp::Eq if is_name(right) => key_of(&c.left),
                    CmpOp::In if is_name(&c.left) => names_of(right, self.tables),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// The table a `try` body looks the name up in: `x = TABLE[name]` (or `a, b = ...`), or
    /// `return TABLE[name]`.
    fn looked_up<'b>(&self, body: &'b [Stmt]) -> Option<&'b str> {
        let value = match body {
            [Stmt::Assign(a)] => &*a.value,
            [Stmt::Return(r)] => r.value.as_deref()?,
            _ => return None,
        };
        let Expr::Subscript(s) = value else {
            return None;
        };
        match (&*s.value, &*s.slice) {
            (Expr::Name(table), Expr::Name(key)) if key.id.as_str() == self.name => {
                Some(table.id.as_str())
            }
            _ => None,
        }
    }

    /// What a branch that serves `names` binds them to: the module or name it imports and
    /// returns (`import numpy.testing as testing; return testing`), the package's submodule
    /// of that name when it returns `importlib.import_module(...)` (scipy's lazy
    /// submodules), else a value.
    fn bindings(&self, names: &[String], branch: &[Stmt]) -> Vec<Binding> {
        let returned = branch.iter().rev().find_map(|s| match s {
            Stmt::Return(r) => r.value.as_deref(),
            _ => None,
        });
        let submodule = matches!(returned, Some(Expr::Call(call))
            if super::dotted::dotted_name(&call.func)
                .is_some_and(|f| f.ends_with("import_module") || f == "__import__"));
        let returned = match returned {
            Some(Expr::Name(n)) => Some(n.id.as_str()),
            _ => None,
        };
        names
            .iter()
            .filter(|n| is_identifier(n))
            .map(|served| {
                if submodule {
                    return Binding::ImportFrom(ImportFrom {
                        level: 1,
                        module: None,
                        names: vec![ImportedName {
                            name: served.clone(),
                            asname: None,
                        }],
                    });
                }
                match returned.and_then(|r| imported(branch, r)) {
                    Some(ImportOf::Module(module)) => Binding::Import(Import {
                        module,
                        asname: Some(served.clone()),
                    }),
                    Some(ImportOf::Name {
                        level,
                        module,
                        name,
                    }) => Binding::ImportFrom(ImportFrom {
                        level,
                        module,
                        names: vec![ImportedName {
                            asname: (&name != served).then(|| served.clone()),
                            name,
                        }],
                    }),
                    None => variable(served),
                }
            })
            .collect()
    }
}

fn variable(name: &str) -> Binding {
    Binding::Variable(Variable {
        name: name.to_string(),
        alias_of: None,
        called: None,
    })
}

enum ImportOf {
    Module(String),
    Name {
        level: u32,
        module: Option<String>,
        name: String,
    },
}

/// What an import statement of `branch` binds to `bound`.
fn imported(branch: &[Stmt], bound: &str) -> Option<ImportOf> {
    branch.iter().find_map(|s| match s {
        Stmt::Import(i) => i.names.iter().find_map(|a| {
            let name = a.asname.as_ref()?;
            (name.as_str() == bound).then(|| ImportOf::Module(a.name.as_str().to_string()))
        }),
        Stmt::ImportFrom(f) => f.names.iter().find_map(|a| {
            let name = a.asname.as_ref().unwrap_or(&a.name);
            (name.as_str() == bound && a.name.as_str() != "*").then(|| ImportOf::Name {
                level: f.level,
                module: f.module.as_ref().map(|m| m.as_str().to_string()),
                name: a.name.as_str().to_string(),
            })
        }),
        _ => None,
    })
}

/// Whether some path through `body` returns (nested functions and classes aside).
fn may_return(body: &[Stmt]) -> bool {
    body.iter().any(|stmt| match stmt {
        Stmt::Return(_) => true,
        Stmt::If(s) => {
            may_return(&s.body) || s.elif_else_clauses.iter().any(|c| may_return(&c.body))
        }
        Stmt::Try(s) => {
            may_return(&s.body)
                || may_return(&s.orelse)
                || may_return(&s.finalbody)
                || s.handlers.iter().any(|h| {
                    let ExceptHandler::ExceptHandler(h) = h;
                    may_return(&h.body)
                })
        }
        Stmt::With(s) => may_return(&s.body),
        Stmt::For(s) => may_return(&s.body) || may_return(&s.orelse),
        Stmt::While(s) => may_return(&s.body) || may_return(&s.orelse),
        Stmt::Match(s) => s.cases.iter().any(|c| may_return(&c.body)),
        _ => false,
    })
}

/// Whether `body` always ends in a `return` or `raise` at its own level.
fn ends(body: &[Stmt]) -> bool {
    body.iter()
        .any(|s| matches!(s, Stmt::Return(_) | Stmt::Raise(_)))
}
