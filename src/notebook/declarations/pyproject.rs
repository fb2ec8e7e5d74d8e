//! `pyproject.toml`: PEP 621's `[project] dependencies` (PEP 508 strings) and poetry's
//! `[tool.poetry.dependencies]` (`name = "^1.2"`, or a table with a `version`).

use std::collections::BTreeMap;

use serde::Deserialize;
use toml::Spanned;

use super::lines::Lines;
use super::poetry::to_pep440;
use super::{DeclarationKind, Sink};
use crate::names::parse_requirement;

#[derive(Deserialize)]
struct PyProject {
    project: Option<Project>,
    tool: Option<Tool>,
}

#[derive(Deserialize)]
struct Project {
    dependencies: Option<Vec<Spanned<String>>>,
}

#[derive(Deserialize)]
struct Tool {
    poetry: Option<Poetry>,
}

#[derive(Deserialize)]
struct Poetry {
    dependencies: Option<BTreeMap<String, Spanned<toml::Value>>>,
}

pub(super) fn read(text: &str, sink: &mut Sink<'_>) {
    let lines = Lines::new(text);
    let doc: PyProject = match toml::from_str(text) {
        Ok(doc) => doc,
        Err(e) => {
            let line = e.span().map(|s| lines.line_of(s.start));
            sink.problem(line, format!("not valid TOML: {}", e.message()));
            return;
        }
    };
    for dep in doc.project.and_then(|p| p.dependencies).unwrap_or_default() {
        let line = lines.line_of(dep.span().start);
        match parse_requirement(dep.get_ref()) {
            Ok(r) => sink.requirement(r, dep.get_ref(), DeclarationKind::Pyproject, line),
            Err(e) => sink.problem(Some(line), e.to_string()),
        }
    }
    let poetry = doc
        .tool
        .and_then(|t| t.poetry)
        .and_then(|p| p.dependencies)
        .unwrap_or_default();
    let mut entries: Vec<(String, Spanned<toml::Value>)> = poetry.into_iter().collect();
    entries.sort_by_key(|(_, v)| v.span().start);
    for (name, value) in entries {
        // The interpreter range poetry needs (`^3.6`) is no requirement on a distribution.
        if name == "python" {
            continue;
        }
        let line = lines.line_of(value.span().start);
        let constraint = match value.get_ref() {
            toml::Value::String(s) => s.clone(),
            toml::Value::Table(t) => match t.get("version") {
                Some(toml::Value::String(s)) => s.clone(),
                // A git or path dependency: no PyPI version.
                _ => "*".to_string(),
            },
            // Several constraints, each under a marker: no single range to read.
            _ => continue,
        };
        let written = format!("{name} = \"{constraint}\"");
        let Some(spec) = to_pep440(&constraint) else {
            sink.problem(
                Some(line),
                format!("`{written}` is not a poetry version constraint nbenv reads"),
            );
            continue;
        };
        match parse_requirement(&format!("{name}{spec}")) {
            Ok(r) => sink.requirement(r, &written, DeclarationKind::Poetry, line),
            Err(e) => sink.problem(Some(line), e.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{DeclarationKind, Declarations};

    fn declarations(text: &str) -> Declarations {
        super::super::declared_in("pyproject.toml", text)
    }

    #[test]
    fn pep_621_and_poetry_dependencies() {
        let d = declarations(
            "[project]\nname = \"course\"\ndependencies = [\n  \"numpy>=1.16\",\n  \"pandas<1\",\n]\n\n[tool.poetry.dependencies]\npython = \"^3.6\"\nscipy = \"^1.2\"\nmatplotlib = { version = \"~3.0\", optional = true }\nhelper = { git = \"https://github.com/o/helper.git\" }\n",
        );
        assert!(d.problems.is_empty(), "{:?}", d.problems);
        let got: Vec<(String, DeclarationKind, u32)> = d
            .requirements
            .iter()
            .map(|r| (r.requirement.to_string(), r.kind, r.at.line))
            .collect();
        assert_eq!(
            got,
            [
                ("numpy>=1.16".into(), DeclarationKind::Pyproject, 4),
                ("pandas<1".into(), DeclarationKind::Pyproject, 5),
                ("scipy>=1.2,<2".into(), DeclarationKind::Poetry, 10),
                ("matplotlib>=3.0,<3.1".into(), DeclarationKind::Poetry, 11),
                ("helper".into(), DeclarationKind::Poetry, 12),
            ]
        );
        assert_eq!(d.requirements[2].text, "scipy = \"^1.2\"");
    }

    #[test]
    fn broken_toml_is_a_problem_with_its_line() {
        let d = declarations("[project]\ndependencies = [\"numpy\"\nname = 1\n");
        assert_eq!(d.problems.len(), 1);
        let p = d.problems[0].to_string();
        assert!(p.contains("pyproject.toml:"), "{p}");
        assert!(p.contains("not valid TOML"), "{p}");
    }
}
