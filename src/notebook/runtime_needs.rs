//! What the notebook's cells need of the IPython that runs them, beyond its imports: IPython's
//! cell transforms changed, and some cells that ran under the IPython of their day do not
//! under today's.

use serde::Serialize;

use super::format::{CellKind, Notebook};
use crate::python::PythonVersion;

/// The first Python on which IPython 7 compiles a cell one statement at a time again: its
/// top-level `await` support reads the cell whole only before 3.8.
const PER_STATEMENT_FROM: PythonVersion = PythonVersion::new(3, 8);

/// An IPython release line the notebook's cells need to stay below, and the first cell that
/// says so.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct IPythonBound {
    /// The first major release that fails the cell (`7`: IPython 7.0 and later).
    pub below_major: u64,
    /// The cell, numbered as in the notebook.
    pub cell: u32,
    /// What in the cell needs it, for messages.
    pub why: &'static str,
}

impl IPythonBound {
    /// The bound as a version: releases before it.
    pub fn below(&self) -> pep508_rs::pep440_rs::Version {
        pep508_rs::pep440_rs::Version::new([self.below_major])
    }
}

/// The IPython bound the notebook's code needs on `python`, if any.
///
/// IPython before 7 compiled a cell one statement at a time, so a `from __future__` import
/// after a magic line (`%matplotlib inline` first, as statsmodels' examples do) or another
/// statement was at the start of what was compiled. IPython 7 on Python before 3.8 compiles
/// the transformed cell whole, and CPython rejects the import as not at the beginning of the
/// file; on 3.8 and later IPython 7, 8 and 9 compile it a statement at a time again (tried:
/// 7.0.1 to 7.16.3 on 3.7 refuse, 7.15.0, 7.16.1, 7.34.0, 8.0.1 on 3.8 and 9.18.1 on 3.13
/// run it). So the bound is only for the older Pythons, where IPython 6 still installs.
pub fn ipython_bound(nb: &Notebook, python: PythonVersion) -> Option<IPythonBound> {
    if python >= PER_STATEMENT_FROM {
        return None;
    }
    nb.cells
        .iter()
        .filter(|c| c.kind == CellKind::Code)
        .find(|c| future_import_not_first(&c.source))
        .map(|c| IPythonBound {
            below_major: 7,
            cell: c.number,
            why: "a `from __future__` import after other lines (`%matplotlib inline`), which \
                  IPython 7 on Python before 3.8 compiles as one file and rejects",
        })
}

/// Whether a `from __future__` import in the cell comes after a line of something else (a
/// magic, `!cmd`, a statement; blank lines and comments do not count). A cell magic
/// (`%%time`) makes the cell its body, which IPython compiles apart.
fn future_import_not_first(source: &str) -> bool {
    if source.trim_start().starts_with("%%") {
        return false;
    }
    let mut other = false;
    for line in source.lines() {
        let line = line.trim_start();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if is_future_import(line) {
            if other {
                return true;
            }
        } else {
            other = true;
        }
    }
    false
}

fn is_future_import(line: &str) -> bool {
    let mut words = line.split_whitespace();
    words.next() == Some("from") && words.next() == Some("__future__")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_future_import_after_other_lines_needs_ipython_before_7() {
        assert!(future_import_not_first(
            "%matplotlib inline\n\nfrom __future__ import print_function\nimport numpy\n"
        ));
        assert!(future_import_not_first(
            "!pip install x\nfrom  __future__ import division"
        ));
        assert!(future_import_not_first(
            "import os\nfrom __future__ import division\n"
        ));
        // First in the cell (after comments, blank lines and other such imports): any
        // IPython runs it.
        assert!(!future_import_not_first(
            "# setup\n\nfrom __future__ import print_function\nfrom __future__ import division\n%matplotlib inline\n"
        ));
        // A cell magic's body is compiled on its own.
        assert!(!future_import_not_first(
            "%%time\nimport os\nfrom __future__ import division\n"
        ));
        assert!(!future_import_not_first(
            "%pylab inline\nfrom futures import x\n"
        ));
    }

    #[test]
    fn the_bound_holds_only_on_pythons_where_ipython_7_compiles_the_cell_whole() {
        let nb = crate::notebook::script::parse(
            std::path::Path::new("ols.py"),
            "# %%\n%matplotlib inline\n\nfrom __future__ import print_function\nimport numpy\n",
        );
        let on = |minor| ipython_bound(&nb, PythonVersion::new(3, minor)).map(|b| b.below_major);
        assert_eq!(on(7), Some(7));
        assert_eq!(
            ipython_bound(&nb, PythonVersion::new(2, 7)).map(|b| b.below_major),
            Some(7)
        );
        assert_eq!(on(8), None);
        assert_eq!(on(13), None);
    }
}
