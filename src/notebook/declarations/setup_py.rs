//! `setup.py`: the `install_requires=[...]` of a `setup(...)` call, read from the syntax tree
//! (the recovering parser, so Python 2 files are read too). Only literal lists count, or a
//! name bound to one at module level (`REQUIRED = [...]`); a list computed at run time
//! (often read from `requirements.txt`, which is read on its own) is passed over.

use ruff_python_ast::visitor::{walk_expr, walk_stmt, Visitor};
use ruff_python_ast::{Expr, PySourceType, Stmt};
use ruff_text_size::Ranged;

use super::lines::Lines;
use super::{DeclarationKind, Sink};
use crate::names::parse_requirement;

pub(super) fn read(text: &str, sink: &mut Sink<'_>) {
    let parsed = match crate::parse::unchecked_source(text, PySourceType::Python) {
        Ok(parsed) => parsed,
        Err(failed) => {
            sink.problem(None, format!("does not parse as Python: {failed}"));
            return;
        }
    };
    let module = parsed.syntax();
    let mut finder = SetupCalls::default();
    for stmt in &module.body {
        finder.visit_stmt(stmt);
    }
    if finder.requires.is_empty() {
        if let Some(error) = parsed.errors().first() {
            let lines = Lines::new(text);
            sink.problem(
                Some(lines.line_of(error.location.start().to_usize())),
                format!("does not parse as Python: {}", error.error),
            );
        }
        return;
    }
    let lines = Lines::new(text);
    for value in finder.requires {
        let list = match value {
            Expr::Name(name) => match finder
                .assigned
                .iter()
                .rev()
                .find(|(n, _)| *n == name.id.as_str())
            {
                Some((_, list)) => *list,
                None => continue,
            },
            other => other,
        };
        let elements = match list {
            Expr::List(l) => &l.elts,
            Expr::Tuple(t) => &t.elts,
            _ => continue,
        };
        for element in elements {
            let Expr::StringLiteral(s) = element else {
                continue;
            };
            let text = s.value.to_str();
            let line = lines.line_of(element.start().to_usize());
            match parse_requirement(text) {
                Ok(r) => sink.requirement(r, text, DeclarationKind::SetupPy, line),
                Err(e) => sink.problem(Some(line), e.to_string()),
            }
        }
    }
}

/// The `install_requires` values of `setup(...)` / `setuptools.setup(...)` calls anywhere,
/// and module-level names bound to lists or tuples.
#[derive(Default)]
struct SetupCalls<'a> {
    requires: Vec<&'a Expr>,
    assigned: Vec<(&'a str, &'a Expr)>,
    depth: usize,
}

impl<'a> Visitor<'a> for SetupCalls<'a> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        if let Stmt::Assign(a) = stmt {
            if self.depth == 0 && matches!(&*a.value, Expr::List(_) | Expr::Tuple(_)) {
                for target in &a.targets {
                    if let Expr::Name(n) = target {
                        self.assigned.push((n.id.as_str(), &a.value));
                    }
                }
            }
        }
        let nested = matches!(stmt, Stmt::FunctionDef(_) | Stmt::ClassDef(_));
        self.depth += usize::from(nested);
        walk_stmt(self, stmt);
        self.depth -= usize::from(nested);
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        if let Expr::Call(call) = expr {
            let is_setup = match &*call.func {
                Expr::Name(n) => n.id.as_str() == "setup",
                Expr::Attribute(a) => a.attr.as_str() == "setup",
                _ => false,
            };
            if is_setup {
                for kw in &call.arguments.keywords {
                    if kw
                        .arg
                        .as_ref()
                        .is_some_and(|a| a.as_str() == "install_requires")
                    {
                        self.requires.push(&kw.value);
                    }
                }
            }
        }
        walk_expr(self, expr);
    }
}

#[cfg(test)]
mod tests {
    use super::super::{DeclarationKind, Declarations};

    fn declarations(setup: &str) -> Declarations {
        super::super::declared_in("setup.py", setup)
    }

    fn got(d: &Declarations) -> Vec<(String, u32)> {
        d.requirements
            .iter()
            .map(|r| (r.requirement.to_string(), r.at.line))
            .collect()
    }

    #[test]
    fn literal_lists_and_names_bound_to_them() {
        let d = declarations(
            "from setuptools import setup\n\nsetup(\n    name='course',\n    install_requires=[\n        'numpy>=1.14',\n        \"pandas<0.25\",\n    ],\n)\n",
        );
        assert_eq!(
            got(&d),
            [("numpy>=1.14".into(), 6), ("pandas<0.25".into(), 7)]
        );
        assert_eq!(d.requirements[0].kind, DeclarationKind::SetupPy);

        let d = declarations(
            "import setuptools\nREQUIRED = ['scipy==1.1.0']\nif __name__ == '__main__':\n    setuptools.setup(name='x', install_requires=REQUIRED)\n",
        );
        assert_eq!(got(&d), [("scipy==1.1.0".into(), 2)]);
    }

    #[test]
    fn computed_lists_and_python_2_files() {
        // Read from a file at run time: nothing to read statically, and no complaint.
        let d = declarations(
            "from setuptools import setup\nsetup(install_requires=open('requirements.txt').read().split())\n",
        );
        assert!(d.requirements.is_empty() && d.problems.is_empty());
        // A Python 2 print statement does not hide the call.
        let d = declarations(
            "from distutils.core import setup\nprint 'building'\nsetup(install_requires=['six'])\n",
        );
        assert_eq!(got(&d), [("six".into(), 3)]);
        // Nothing found in a file that does not parse: say where it broke.
        let d = declarations("def (:\n");
        assert_eq!(d.problems.len(), 1);
        assert!(d.problems[0]
            .to_string()
            .contains("setup.py:1: does not parse"));
    }
}
