//! Binder's `runtime.txt`: `python-3.6` (or `python-3.6.5`) names the interpreter the
//! repository ran on. Other runtimes (`r-2019-01-01`) say nothing about Python.

use super::{PythonDeclaration, Sink};
use crate::python::PythonVersion;

pub(super) fn read(text: &str, sink: &mut Sink<'_>) {
    let Some((i, line)) = text.lines().enumerate().find(|(_, l)| !l.trim().is_empty()) else {
        return;
    };
    let number = u32::try_from(i + 1).unwrap_or(u32::MAX);
    let line = line.trim();
    let Some(version) = line.strip_prefix("python-") else {
        return;
    };
    match PythonVersion::parse(version) {
        Some(v) => sink.python(v, PythonDeclaration::RuntimeTxt, number),
        None => sink.problem(Some(number), format!("`{line}` names no Python version")),
    }
}

#[cfg(test)]
mod tests {
    use super::super::read_declarations;
    use crate::python::PythonVersion;

    #[test]
    fn binder_runtimes() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join(".git")).unwrap();
        let runtime = dir.path().join("runtime.txt");
        let nb = dir.path().join("nb.ipynb");
        std::fs::write(&runtime, "\npython-3.6.5\n").unwrap();
        let d = read_declarations(&nb);
        assert_eq!(d.python[0].version, PythonVersion::new(3, 6));
        assert_eq!(d.python[0].at.line, 2);
        std::fs::write(&runtime, "r-2019-01-01\n").unwrap();
        assert!(read_declarations(&nb).python.is_empty());
        std::fs::write(&runtime, "python-three\n").unwrap();
        let d = read_declarations(&nb);
        assert!(d.python.is_empty());
        assert!(d.problems[0]
            .to_string()
            .ends_with("runtime.txt:1: `python-three` names no Python version"));
    }
}
