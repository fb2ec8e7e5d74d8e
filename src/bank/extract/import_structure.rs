//! Literal import structures of lazy modules: `{"submodule": ["Name", ...], ...}` dictionaries
//! that a module hands to the object it replaces itself with (transformers' `_import_structure`,
//! given to `_LazyModule`), or to `lazy_loader.attach(..., submod_attrs=...)`.
//!
//! Read: a dict literal with string keys and lists (or tuples) of strings, then
//! `d["k"] = [...]`, `d["k"].append("x")`, `d["k"].extend([...])`, `d.update({...})`.
//! Anything else done to the dictionary marks it as partly dynamic: what is read still counts.

use std::collections::{HashMap, HashSet};

use ruff_python_ast::{Expr, Stmt};

/// One dictionary, as built so far.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ImportStructure {
    /// Submodule (relative, dotted) → names it provides, in order.
    pub entries: Vec<(String, Vec<String>)>,
    pub dynamic: bool,
    /// Where each key sits in `entries`, and each entry's names as a set: dictionaries in
    /// generated code hold tens of thousands of keys, and searching lists made reading one
    /// such file take minutes.
    index: HashMap<String, usize>,
    seen: Vec<HashSet<String>>,
}

impl ImportStructure {
    /// Submodules without names (`lazy_loader.attach(submodules=[...])`).
    fn of_submodules(submodules: Vec<String>) -> Self {
        let mut out = Self::default();
        for m in submodules {
            out.slot(&m);
        }
        out
    }

    /// The index of `key`'s entry, made if new.
    fn slot(&mut self, key: &str) -> usize {
        if let Some(&i) = self.index.get(key) {
            return i;
        }
        self.entries.push((key.to_string(), Vec::new()));
        self.seen.push(HashSet::new());
        let i = self.entries.len() - 1;
        self.index.insert(key.to_string(), i);
        i
    }

    /// Empties `key`'s entry (`d["k"] = [...]` replaces it).
    fn clear(&mut self, key: &str) {
        let i = self.slot(key);
        self.entries[i].1.clear();
        self.seen[i].clear();
    }

    /// Adds `names` to `key`'s entry, each once, in order.
    fn extend(&mut self, key: &str, names: impl IntoIterator<Item = String>) {
        let i = self.slot(key);
        for name in names {
            if self.seen[i].insert(name.clone()) {
                self.entries[i].1.push(name);
            }
        }
    }

    fn add_names(&mut self, key: &str, value: &Expr) {
        match strings_of(value) {
            Some(names) => self.extend(key, names),
            None => {
                self.slot(key);
                self.dynamic = true;
            }
        }
    }

    /// Reads a dict literal; `None` unless every key is a string.
    pub(crate) fn from_dict(value: &Expr) -> Option<Self> {
        let Expr::Dict(dict) = value else {
            return None;
        };
        // A data table (`{"word": "lemma", ...}`, 100k entries in spacy's lookups) is no
        // import structure: its values are not lists of names.
        let first = dict.items.first().map(|item| &item.value);
        if !matches!(first, None | Some(Expr::List(_) | Expr::Tuple(_))) {
            return None;
        }
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
                        structure.clear(key);
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
                        structure.extend(key, [s.value.to_str().to_string()]);
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
                                structure.extend(&key, names);
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
                    out.push(ImportStructure::of_submodules(submodules));
                }
            }
            _ => {}
        }
    }
    out
}
