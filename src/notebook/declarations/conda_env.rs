//! conda's `environment.yml`: the `dependencies` list of conda match specs (`numpy=1.16`,
//! `python=3.6`, `conda-forge::xgboost>=0.80`) with, inside it, a `pip:` list of pip
//! requirements.
//!
//! Conda package names are not PyPI names: a conda package counts as the PyPI distribution of
//! the same name (which only matters when the notebook needs that distribution), or, for the
//! few well-known differences, the one [`CONDA_TO_PYPI`] names. `python=X.Y` declares the
//! interpreter.

use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::Marker;

use super::{DeclarationKind, PythonDeclaration, Sink};
use crate::names::parse_requirement;
use crate::notebook::requirement::{conda_requirement, pip_requirement};
use crate::python::PythonVersion;

/// Conda packages whose PyPI distribution has another name.
const CONDA_TO_PYPI: &[(&str, &str)] = &[
    ("pytorch", "torch"),
    ("pytorch-cpu", "torch"),
    ("py-xgboost", "xgboost"),
    ("py-opencv", "opencv-python"),
    ("pytables", "tables"),
    ("matplotlib-base", "matplotlib"),
    ("msgpack-python", "msgpack"),
    ("python-graphviz", "graphviz"),
    ("tensorflow-base", "tensorflow"),
];

pub(super) fn read(text: &str, sink: &mut Sink<'_>) {
    let root = match parse(text) {
        Ok(Some(root)) => root,
        Ok(None) => return,
        Err((line, message)) => {
            sink.problem(Some(line), format!("not valid YAML: {message}"));
            return;
        }
    };
    let Node::Map(entries, _) = &root else {
        sink.problem(
            Some(root.line()),
            "not a conda environment (no top-level mapping)",
        );
        return;
    };
    let Some(dependencies) = entries.iter().find_map(|(k, v)| match k {
        Node::Scalar(key, _) if key == "dependencies" => Some(v),
        _ => None,
    }) else {
        return;
    };
    let Node::Seq(items, _) = dependencies else {
        sink.problem(
            Some(dependencies.line()),
            "`dependencies` is not a list: not read",
        );
        return;
    };
    for item in items {
        match item {
            Node::Scalar(spec, line) => conda_spec(spec, *line, sink),
            Node::Map(entries, _) => {
                for (k, v) in entries {
                    let (Node::Scalar(key, _), Node::Seq(pip, _)) = (k, v) else {
                        continue;
                    };
                    if key != "pip" {
                        continue;
                    }
                    for p in pip {
                        if let Node::Scalar(text, line) = p {
                            pip_line(text, *line, sink);
                        }
                    }
                }
            }
            Node::Seq(_, _) => {}
        }
    }
}

/// One conda match spec: the interpreter, a package under its PyPI name, or nothing.
fn conda_spec(spec: &str, line: u32, sink: &mut Sink<'_>) {
    // `numpy 1.16.*` (space-separated) means what `numpy=1.16.*` does.
    let spec = spec.trim();
    let spec = match spec.split_once(char::is_whitespace) {
        Some((name, version))
            if version
                .trim_start()
                .starts_with(|c: char| c.is_ascii_digit()) =>
        {
            format!("{name}={}", version.trim())
        }
        _ => spec.to_string(),
    };
    let Some((requirement, name)) = conda_requirement(&spec) else {
        sink.problem(Some(line), format!("`{spec}` is not a conda package spec"));
        return;
    };
    match name.as_str() {
        "python" => {
            if let Some(v) = exact_python(&requirement) {
                sink.python(v, PythonDeclaration::CondaEnvironment, line);
            }
            return;
        }
        // The installer itself, not a dependency of the code.
        "pip" => return,
        _ => {}
    }
    let pypi = CONDA_TO_PYPI
        .iter()
        .find(|(conda, _)| *conda == name.as_str())
        .map(|(_, pypi)| *pypi);
    let requirement = match pypi {
        Some(pypi) => {
            let version = requirement
                .version_or_url
                .as_ref()
                .map(|v| v.to_string())
                .unwrap_or_default();
            match parse_requirement(&format!("{pypi}{version}")) {
                Ok(r) => r,
                Err(_) => return,
            }
        }
        None => requirement,
    };
    sink.requirement(requirement, &spec, DeclarationKind::CondaEnvironment, line);
}

/// The feature release a `python` spec names: `python=3.6` (`==3.6.*`), `python==3.6.8`.
fn exact_python(requirement: &pep508_rs::Requirement) -> Option<PythonVersion> {
    let Some(pep508_rs::VersionOrUrl::VersionSpecifier(specs)) = &requirement.version_or_url else {
        return None;
    };
    let [spec] = &specs[..] else {
        return None;
    };
    use pep508_rs::pep440_rs::Operator;
    if !matches!(spec.operator(), Operator::Equal | Operator::EqualStar) {
        return None;
    }
    let release = spec.version().release();
    let (major, minor) = (*release.first()?, *release.get(1)?);
    Some(PythonVersion::new(
        u8::try_from(major).ok()?,
        u8::try_from(minor).ok()?,
    ))
}

fn pip_line(text: &str, line: u32, sink: &mut Sink<'_>) {
    if text.trim_start().starts_with('-') {
        return;
    }
    if let Some((r, _)) = pip_requirement(text) {
        sink.requirement(r, text, DeclarationKind::CondaPip, line);
    } else if !text.contains('/') && !text.contains("://") {
        sink.problem(
            Some(line),
            format!("`{}` is not a pip requirement", text.trim()),
        );
    }
}

/// A YAML document as a tree, each node with the line it starts on.
#[derive(Debug)]
enum Node {
    Scalar(String, u32),
    Seq(Vec<Node>, u32),
    Map(Vec<(Node, Node)>, u32),
}

impl Node {
    fn line(&self) -> u32 {
        match self {
            Node::Scalar(_, l) | Node::Seq(_, l) | Node::Map(_, l) => *l,
        }
    }
}

/// Builds the first document's tree from the parser's events (anchors and aliases, which
/// conda files do not use, become empty scalars).
#[derive(Default)]
struct Builder {
    stack: Vec<Node>,
    /// A mapping's key waiting for its value, one slot per open mapping.
    keys: Vec<Option<Node>>,
    root: Option<Node>,
}

impl Builder {
    fn add(&mut self, node: Node) {
        match self.stack.last_mut() {
            None => {
                if self.root.is_none() {
                    self.root = Some(node);
                }
            }
            Some(Node::Seq(items, _)) => items.push(node),
            Some(Node::Map(entries, _)) => {
                let slot = self.keys.last_mut().expect("one key slot per open mapping");
                match slot.take() {
                    None => *slot = Some(node),
                    Some(key) => entries.push((key, node)),
                }
            }
            Some(Node::Scalar(..)) => {}
        }
    }

    fn close(&mut self) {
        if let Some(node) = self.stack.pop() {
            if matches!(node, Node::Map(..)) {
                self.keys.pop();
            }
            self.add(node);
        }
    }
}

impl MarkedEventReceiver for Builder {
    fn on_event(&mut self, ev: Event, mark: Marker) {
        let line = u32::try_from(mark.line()).unwrap_or(u32::MAX);
        match ev {
            Event::Scalar(value, ..) => self.add(Node::Scalar(value, line)),
            Event::Alias(_) => self.add(Node::Scalar(String::new(), line)),
            Event::SequenceStart(..) => self.stack.push(Node::Seq(Vec::new(), line)),
            Event::MappingStart(..) => {
                self.stack.push(Node::Map(Vec::new(), line));
                self.keys.push(None);
            }
            Event::SequenceEnd | Event::MappingEnd => self.close(),
            _ => {}
        }
    }
}

/// The first document, or the line and message of the first syntax error.
fn parse(text: &str) -> Result<Option<Node>, (u32, String)> {
    let mut builder = Builder::default();
    Parser::new_from_str(text)
        .load(&mut builder, false)
        .map_err(|e| {
            let line = u32::try_from(e.marker().line()).unwrap_or(u32::MAX);
            (line, e.info().to_string())
        })?;
    Ok(builder.root)
}

#[cfg(test)]
mod tests {
    use super::super::{DeclarationKind, PythonDeclaration};
    use crate::python::PythonVersion;

    fn declarations(yaml: &str) -> super::super::Declarations {
        super::super::declared_in("environment.yml", yaml)
    }

    #[test]
    fn conda_packages_pip_lists_and_the_interpreter() {
        let d = declarations(
            "name: course\nchannels:\n  - conda-forge\ndependencies:\n  - python=3.6\n  - numpy=1.16\n  - pytorch::pytorch=1.4\n  - scikit-learn 0.20.*\n  - pip\n  - pip:\n    - tensorflow==1.15\n    - git+https://github.com/o/r.git\n",
        );
        assert!(d.problems.is_empty(), "{:?}", d.problems);
        assert_eq!(d.python.len(), 1);
        assert_eq!(d.python[0].version, PythonVersion::new(3, 6));
        assert_eq!(d.python[0].kind, PythonDeclaration::CondaEnvironment);
        assert_eq!(d.python[0].at.line, 5);
        let got: Vec<(String, DeclarationKind, u32)> = d
            .requirements
            .iter()
            .map(|r| (r.requirement.to_string(), r.kind, r.at.line))
            .collect();
        assert_eq!(
            got,
            [
                ("numpy==1.16.*".into(), DeclarationKind::CondaEnvironment, 6),
                ("torch==1.4.*".into(), DeclarationKind::CondaEnvironment, 7),
                (
                    "scikit-learn==0.20.*".into(),
                    DeclarationKind::CondaEnvironment,
                    8
                ),
                ("tensorflow==1.15".into(), DeclarationKind::CondaPip, 11),
                (
                    "r @ git+https://github.com/o/r.git".into(),
                    DeclarationKind::CondaPip,
                    12
                ),
            ]
        );
        assert_eq!(d.requirements[1].text, "pytorch::pytorch=1.4");
    }

    #[test]
    fn a_broken_file_is_a_problem_naming_file_and_line() {
        let d = declarations("name: x\ndependencies:\n  - numpy\n  - [unclosed\n");
        assert_eq!(d.problems.len(), 1, "{:?}", d.problems);
        let p = d.problems[0].to_string();
        assert!(p.contains("environment.yml:"), "{p}");
        assert!(p.contains("not valid YAML"), "{p}");
        assert!(d.requirements.is_empty());

        let d = declarations("- just\n- a list\n");
        assert!(d.problems[0].message.contains("no top-level mapping"));
        let d = declarations("dependencies: numpy\n");
        assert!(
            d.problems[0].to_string().contains("environment.yml:1: "),
            "{:?}",
            d.problems
        );
    }
}
