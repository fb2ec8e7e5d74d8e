//! Which Python the modernized notebook runs on: the newest installed. Moving the code
//! forward is for today's releases, and today's releases want today's Python; the notebook's
//! own era (its kernel's version) is `restore`'s answer, not this one.

use crate::python::{Interpreter, PythonVersion};

/// The newest of `interpreters`, if any.
pub fn newest(interpreters: &[Interpreter]) -> Option<PythonVersion> {
    interpreters.iter().map(|i| i.version).max()
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    #[test]
    fn the_newest_installed_python() {
        let at = |minor| Interpreter {
            path: PathBuf::from(format!("/usr/bin/python3.{minor}")),
            version: PythonVersion::new(3, minor),
        };
        assert_eq!(
            newest(&[at(8), at(13), at(11)]),
            Some(PythonVersion::new(3, 13))
        );
        assert_eq!(newest(&[]), None);
    }
}
