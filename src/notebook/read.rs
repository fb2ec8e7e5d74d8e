//! Opening a notebook file: choose the reader by extension, then refuse what nbenv cannot
//! restore (no code at all, another language's kernel) with its own error.

use std::path::Path;

use super::error::NotebookError;
use super::format::Notebook;
use super::{ipynb, script};

/// Reads an `.ipynb` notebook (nbformat 3 or 4) or a `.py` script (jupytext percent or plain).
pub fn read(path: impl AsRef<Path>) -> Result<Notebook, NotebookError> {
    read_with_bytes(path.as_ref()).map(|(_, nb)| nb)
}

/// [`read`], and the file's bytes as read (for a copy of the notebook written elsewhere).
pub fn read_with_bytes(path: &Path) -> Result<(Vec<u8>, Notebook), NotebookError> {
    let bytes = std::fs::read(path).map_err(|source| NotebookError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let nb = from_bytes(path, &bytes)?;
    Ok((bytes, nb))
}

/// Like [`read`] for contents already in memory; `path` decides the format and names the file in
/// messages (and is where local modules are looked for).
pub fn from_bytes(path: &Path, bytes: &[u8]) -> Result<Notebook, NotebookError> {
    // Jupyter and many editors accept a UTF-8 byte-order mark; so does nbenv.
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let notebook = if is_script(path) {
        let text = std::str::from_utf8(bytes).map_err(|e| NotebookError::Io {
            path: path.to_path_buf(),
            source: std::io::Error::new(std::io::ErrorKind::InvalidData, e),
        })?;
        script::parse(path, text)
    } else {
        ipynb::parse(path, bytes)?
    };
    check_language(&notebook)?;
    if !notebook.cells.iter().any(|c| c.is_nonempty_code()) {
        return Err(NotebookError::Empty {
            path: path.to_path_buf(),
            cells: notebook.cells.len(),
        });
    }
    Ok(notebook)
}

fn is_script(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("py") || e.eq_ignore_ascii_case("pyw"))
}

/// Kernels whose language is not Python (IR, IJulia, ...) are refused; a notebook that does not
/// say its language is taken to be Python, as Jupyter itself assumed in nbformat 3.
fn check_language(nb: &Notebook) -> Result<(), NotebookError> {
    let Some(kernel) = &nb.kernel else {
        return Ok(());
    };
    let Some(language) = &kernel.language else {
        return Ok(());
    };
    if is_python_language(language) {
        return Ok(());
    }
    // A Python kernel whose language field holds something odd would still run code cells as
    // Python; only refuse when the kernel name does not say Python either.
    if kernel
        .name
        .as_deref()
        .is_some_and(|n| n.to_ascii_lowercase().contains("python"))
    {
        return Ok(());
    }
    Err(NotebookError::NotPython {
        path: nb.path.clone(),
        language: language.clone(),
        kernel: kernel
            .name
            .clone()
            .or_else(|| kernel.display_name.clone())
            .unwrap_or_else(|| "unknown".into()),
    })
}

fn is_python_language(language: &str) -> bool {
    let l = language.to_ascii_lowercase();
    l.contains("python") || l == "py" || l == "pyspark"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_byte_order_mark_is_read_past() {
        let nb = b"\xEF\xBB\xBF{\"nbformat\": 4, \"nbformat_minor\": 2, \"metadata\": {},
                    \"cells\": [{\"cell_type\": \"code\", \"source\": \"import six\", \"outputs\": []}]}";
        assert_eq!(from_bytes(Path::new("b.ipynb"), nb).unwrap().cells.len(), 1);
        let py = b"\xEF\xBB\xBFimport six\n";
        let nb = from_bytes(Path::new("b.py"), py).unwrap();
        assert!(nb.cells[0].source.starts_with("import six"));
    }

    #[test]
    fn refuses_r_and_empty() {
        let r = br#"{"nbformat": 4, "nbformat_minor": 2, "metadata": {"kernelspec": {"name": "ir", "language": "R", "display_name": "R"}},
                    "cells": [{"cell_type": "code", "source": "library(x)", "outputs": []}]}"#;
        let err = from_bytes(Path::new("r.ipynb"), r).unwrap_err();
        assert!(matches!(err, NotebookError::NotPython { ref language, .. } if language == "R"));
        assert!(err.to_string().contains("r.ipynb"));

        let empty = br#"{"nbformat": 4, "nbformat_minor": 2, "metadata": {},
                        "cells": [{"cell_type": "markdown", "source": "hi"}, {"cell_type": "code", "source": "  \n", "outputs": []}]}"#;
        assert!(matches!(
            from_bytes(Path::new("e.ipynb"), empty),
            Err(NotebookError::Empty { cells: 2, .. })
        ));
    }
}
