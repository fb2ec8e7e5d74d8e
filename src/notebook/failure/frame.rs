//! Traceback frames, whether a live run reported them or a stored traceback printed them,
//! and what kind of code each one is in.

use serde::{Deserialize, Serialize};

use crate::names::ModulePath;

/// One frame of a traceback; a traceback lists them outermost first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Frame {
    /// The file as the interpreter named it: a path, or `<ipython-input-3-…>` for a cell.
    pub file: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function: Option<String>,
    /// The source line, when the traceback shows it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// The notebook cell (numbered as in [`crate::notebook::Location`]) the frame's code is
    /// in, when it is notebook code and the cell is known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cell: Option<u32>,
}

/// What kind of code a frame runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FrameOrigin {
    /// A notebook cell (which one, when known).
    Cell(Option<u32>),
    /// An installed library: the module below `site-packages`.
    Library(ModulePath),
    /// The interpreter's standard library (or its frozen import machinery).
    Stdlib,
    /// Some other file: a module beside the notebook, a script it runs.
    Local,
    Unknown,
}

impl Frame {
    pub fn origin(&self) -> FrameOrigin {
        let file = self.file.as_str();
        if self.cell.is_some() || is_cell_file(file) {
            return FrameOrigin::Cell(self.cell);
        }
        if let Some(module) = library_module(file).or_else(|| cython_module(file)) {
            return FrameOrigin::Library(module);
        }
        if file.starts_with("<frozen ") || is_stdlib_path(file) {
            return FrameOrigin::Stdlib;
        }
        if file.starts_with('<') {
            return FrameOrigin::Unknown;
        }
        FrameOrigin::Local
    }

    /// The installed library this frame runs in, if any.
    pub fn library(&self) -> Option<ModulePath> {
        match self.origin() {
            FrameOrigin::Library(m) => Some(m),
            _ => None,
        }
    }
}

/// The names IPython, ipykernel and nbenv's runner give cell code.
fn is_cell_file(file: &str) -> bool {
    file.starts_with("<ipython-input-")
        || file.starts_with("<cell-")
        || file.starts_with("In[")
        || file.starts_with("In [")
        || file.starts_with("Cell In[")
        || ipykernel_file(file)
}

/// `/tmp/ipykernel_1234/3171946164.py`: ipykernel 6 writes each cell to such a file.
fn ipykernel_file(file: &str) -> bool {
    let Some(i) = file.find("ipykernel_") else {
        return false;
    };
    let rest = &file[i + "ipykernel_".len()..];
    let Some((pid, name)) = rest.split_once(['/', '\\']) else {
        return false;
    };
    pid.bytes().all(|b| b.is_ascii_digit())
        && name
            .strip_suffix(".py")
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// `…/site-packages/pandas/core/frame.py` → `pandas.core.frame`.
pub(crate) fn library_module(file: &str) -> Option<ModulePath> {
    for marker in ["site-packages", "dist-packages"] {
        if let Some(i) = file.rfind(marker) {
            let rest = file[i + marker.len()..].trim_start_matches(['/', '\\']);
            return crate::notebook::outputs::module_of(rest)
                .or_else(|| ModulePath::new(rest.split(['/', '\\']).next()?).ok());
        }
    }
    None
}

/// A compiled library's Cython source, named as its build saw it: `pyproj/_crs.pyx`,
/// `pandas/_libs/hashtable_class_helper.pxi` (a relative path, no `site-packages`).
fn cython_module(file: &str) -> Option<ModulePath> {
    if file.starts_with(['/', '\\', '<']) {
        return None;
    }
    let stem = [".pyx", ".pxi", ".pxd"]
        .iter()
        .find_map(|ext| file.strip_suffix(ext))?;
    let dotted = stem.replace(['/', '\\'], ".");
    // The package part only: a build path's leading folders are no module.
    ModulePath::new(dotted.trim_start_matches('.')).ok()
}

/// A file of the interpreter's own library: `…/lib/python3.8/json/decoder.py`,
/// `C:\Python27\Lib\urllib2.py`.
fn is_stdlib_path(file: &str) -> bool {
    let parts: Vec<&str> = file.split(['/', '\\']).collect();
    parts.windows(2).any(|w| {
        (w[0] == "lib" || w[0] == "Lib" || w[0] == "lib64")
            && w[1].strip_prefix("python").is_some_and(|v| {
                v.starts_with(['2', '3']) && v.chars().all(|c| c.is_ascii_digit() || c == '.')
            })
    }) || parts.contains(&"Lib") && file.ends_with(".py")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(file: &str) -> Frame {
        Frame {
            file: file.into(),
            line: None,
            function: None,
            code: None,
            cell: None,
        }
    }

    #[test]
    fn origins() {
        assert_eq!(
            frame("/usr/lib/python3/dist-packages/pandas/core/generic.py").origin(),
            FrameOrigin::Library(ModulePath::new("pandas.core.generic").unwrap())
        );
        assert_eq!(
            frame("/v/lib/python3.11/site-packages/sklearn/__init__.py").origin(),
            FrameOrigin::Library(ModulePath::new("sklearn").unwrap())
        );
        assert_eq!(
            frame("/usr/lib/python3.8/json/decoder.py").origin(),
            FrameOrigin::Stdlib
        );
        assert_eq!(
            frame("<frozen importlib._bootstrap>").origin(),
            FrameOrigin::Stdlib
        );
        assert_eq!(
            frame("<ipython-input-3-5f>").origin(),
            FrameOrigin::Cell(None)
        );
        assert_eq!(
            frame("/tmp/ipykernel_30/3171946164.py").origin(),
            FrameOrigin::Cell(None)
        );
        assert_eq!(
            frame("pyproj/_crs.pyx").origin(),
            FrameOrigin::Library(ModulePath::new("pyproj._crs").unwrap())
        );
        assert_eq!(
            frame("pandas/_libs/hashtable_class_helper.pxi").origin(),
            FrameOrigin::Library(ModulePath::new("pandas._libs.hashtable_class_helper").unwrap())
        );
        assert_eq!(frame("/home/me/nb/helpers.py").origin(), FrameOrigin::Local);
        assert_eq!(frame("/home/me/nb/fast.pyx").origin(), FrameOrigin::Local);
        assert_eq!(frame("<string>").origin(), FrameOrigin::Unknown);
    }
}
