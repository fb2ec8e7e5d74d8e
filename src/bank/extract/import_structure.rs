//! Literal import structures of lazy modules: `{"submodule": ["Name", ...], ...}` dictionaries
//! that a module hands to the object it replaces itself with (transformers' `_import_structure`,
//! given to `_LazyModule`), or to `lazy_loader.attach(..., submod_attrs=...)`.
//!
//! Read: a dict literal with string keys and lists (or tuples) of strings, then
//! `d["k"] = [...]`, `d["k"].append("x")`, `d["k"].extend([...])`, `d.update({...})`.
//! Anything else done to the dictionary marks it as partly dynamic: what is read still counts.

use ruff_python_ast::{Expr, Stmt};

/// One dictionary, as built so far.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ImportStructure {
    /// Submodule (relative, dotted) → names it provides, in order.
    pub entries: Vec<(String, Vec<String>)>,
    pub dynamic: bool,
}

impl ImportStructure {
    fn entry(&mut self, key: &str) -> &mut Vec<String> {
        let i = match self.entries.iter().position(|(k, _)| k == key) {
            Some(i) => i,
            None => {
                self.entries.push((key.to_string(), Vec::new()));
                self.entries.len() - 1
            }
        };
        &mut self.entries[i].1
    }

    fn add_names(&mut self, key: &str, value: &Expr) {
        match strings_of(value) {
            Some(names) => {
                let entry = self.entry(key);
                for name in names {
                    if !entry.contains(&name) {
                        entry.push(name);
                    }
                }
            }
            None => {
                self.entry(key);
                self.dynamic = true;
            }
        }
    }

    /// Reads a dict literal; `None` unless every key is a string.
    pub(crate) fn from_dict(value: &Expr) -> Option<Self> {
        let Expr::Dict(dict) = value else {
            return None;
        };
        let mut out = Self::default();
        for item in &dict.items {
            let Some(Expr::StringLiteral(key)) = &item.key else {
                return None;
            };
            out.add_names(key.value.to_str(), &item.value);
        }
        Some(out)
    }
}

/// The strings of a list or tuple of string literals.
fn strings_of(value: &Expr) -> Option<Vec<String>> {
    let elements = match value {
        Expr::List(l) => &l.elts,
        Expr::Tuple(t) => &t.elts,
        _ => return None,
    };
    elements
        .iter()
        .map(|e| match e {
            Expr::StringLiteral(s) => Some(s.value.to_str().to_string()),
            _ => None,
        })
        .collect()
}

fn name_of(expr: &Expr) -> Option<&str> {
    match expr {
        Expr::Name(n) => Some(n.id.as_str()),
        _ => None,
    }
}

/// `d["key"]` for a tracked `d`: (d, key).
fn keyed(expr: &Expr) -> Option<(&str, &str)> {
    let Expr::Subscript(sub) = expr else {
        return None;
    };
    let Expr::StringLiteral(key) = &*sub.slice else {
        return None;
    };
    Some((name_of(&sub.value)?, key.value.to_str()))
}

/// Applies a statement to the structures being tracked (by variable name); a dict literal
/// assigned to a name starts a new one. Returns whether the statement was about one of them.
pub(crate) fn apply_statement(
    structures: &mut Vec<(String, ImportStructure)>,
    stmt: &Stmt,
) -> bool {
    let find = |structures: &mut Vec<(String, ImportStructure)>, name: &str| {
        structures.iter().position(|(n, _)| n == name)
    };
    match stmt {
        Stmt::Assign(assign) => {
            if let [target] = &assign.targets[..] {
                if let Some(name) = name_of(target) {
                    if let Some(fresh) = ImportStructure::from_dict(&assign.value) {
                        match find(structures, name) {
                            Some(i) => structures[i].1 = fresh,
                            None => structures.push((name.to_string(), fresh)),
                        }
                        return true;
                    }
                    return false;
                }
                if let Some((name, key)) = keyed(target) {
                    if let Some(i) = find(structures, name) {
                        let structure = &mut structures[i].1;
                        structure.entry(key).clear();
                        structure.add_names(key, &assign.value);
                        return true;
                    }
                }
            }
            false
        }
        Stmt::Expr(expr) => {
            let Expr::Call(call) = &*expr.value else {
                return false;
            };
            let Expr::Attribute(method) = &*call.func else {
                return false;
            };
            let args = &call.arguments.args;
            // `d["k"].append("x")` / `d["k"].extend([...])`.
            if let Some((name, key)) = keyed(&method.value) {
                let Some(i) = find(structures, name) else {
                    return false;
                };
                let structure = &mut structures[i].1;
                match (method.attr.as_str(), &args[..]) {
                    ("append", [Expr::StringLiteral(s)]) => {
                        let s = s.value.to_str().to_string();
                        let entry = structure.entry(key);
                        if !entry.contains(&s) {
                            entry.push(s);
                        }
                    }
                    ("extend", [value]) => structure.add_names(key, value),
                    _ => structure.dynamic = true,
                }
                return true;
            }
            // `d.update({...})`.
            if let Some(name) = name_of(&method.value) {
                let Some(i) = find(structures, name) else {
                    return false;
                };
                let structure = &mut structures[i].1;
                match (method.attr.as_str(), &args[..]) {
                    ("update", [value]) => match ImportStructure::from_dict(value) {
                        Some(more) => {
                            for (key, names) in more.entries {
                                structure.entry(&key).extend(names);
                            }
                        }
                        None => structure.dynamic = true,
                    },
                    _ => structure.dynamic = true,
                }
                return true;
            }
            false
        }
        _ => false,
    }
}

/// The structures a call is given, by name (positional or keyword arguments), and the
/// `submod_attrs={...}` / `submodules=[...]` literals of `lazy_loader.attach`.
pub(crate) fn given_to(
    call: &Expr,
    structures: &[(String, ImportStructure)],
) -> Vec<ImportStructure> {
    let Expr::Call(call) = call else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let values = call
        .arguments
        .args
        .iter()
        .chain(call.arguments.keywords.iter().map(|k| &k.value));
    for value in values {
        if let Some(name) = name_of(value) {
            if let Some((_, s)) = structures.iter().find(|(n, _)| n == name) {
                out.push(s.clone());
            }
        }
    }
    for keyword in &call.arguments.keywords {
        match keyword.arg.as_ref().map(|a| a.as_str()) {
            Some("submod_attrs") => {
                if let Some(s) = ImportStructure::from_dict(&keyword.value) {
                    out.push(s);
                }
            }
            Some("submodules") => {
                if let Some(submodules) = strings_of(&keyword.value) {
                    out.push(ImportStructure {
                        entries: submodules.into_iter().map(|m| (m, Vec::new())).collect(),
                        dynamic: false,
                    });
                }
            }
            _ => {}
        }
    }
    out
}
