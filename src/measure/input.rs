//! A batch's INPUTs, expanded into notebooks: directories searched recursively for `.ipynb`,
//! notebooks named directly, list files (one path per line) and `-` (a list on standard
//! input). Each notebook keeps its path relative to its INPUT, `/`-separated: what records
//! name it by and what its shard is computed from, so that a corpus gives the same names
//! wherever it is mounted.

use std::io::BufRead;
use std::path::{Path, PathBuf};

/// One INPUT argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// Every `.ipynb` under it (hidden entries and checkpoints skipped), named relative to it.
    Dir(PathBuf),
    /// One notebook (or script), named by its file name.
    Notebook(PathBuf),
    /// A file listing notebooks, one per line (blank lines and `#` comments skipped); a
    /// relative path is read against the list's folder, and named as written.
    List(PathBuf),
    /// The same, on standard input; relative paths are read against the current directory.
    Stdin,
}

impl Input {
    /// What an argument names: `-`, a directory, a notebook (`.ipynb`, `.py`) or a list.
    pub fn classify(arg: &Path) -> Input {
        if arg.as_os_str() == "-" {
            Input::Stdin
        } else if arg.is_dir() {
            Input::Dir(arg.to_path_buf())
        } else if arg
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| matches!(e.to_ascii_lowercase().as_str(), "ipynb" | "py" | "pyw"))
        {
            Input::Notebook(arg.to_path_buf())
        } else {
            Input::List(arg.to_path_buf())
        }
    }
}

/// A notebook of the batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotebookInput {
    /// Where to read it.
    pub file: PathBuf,
    /// Its name in records: relative to its INPUT, `/`-separated.
    pub path: String,
}

#[derive(Debug, thiserror::Error)]
pub enum InputError {
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}: there is no such file or directory", path.display())]
    Missing { path: PathBuf },
    #[error("{}: line {line} is not valid UTF-8", path.display())]
    NotText { path: PathBuf, line: usize },
    /// Two different files would be named alike in the records.
    #[error("two notebooks would both be recorded as `{name}`: {} and {} (give them INPUTs under which their names differ)", first.display(), second.display())]
    SameName {
        name: String,
        first: PathBuf,
        second: PathBuf,
    },
}

/// The notebooks of `inputs`, in order: each INPUT's own sorted by name, duplicates (the same
/// file under the same name) kept once. `stdin` is read for `-`.
pub fn expand(inputs: &[Input], stdin: impl BufRead) -> Result<Vec<NotebookInput>, InputError> {
    let mut stdin = Some(stdin);
    let mut out: Vec<NotebookInput> = Vec::new();
    for input in inputs {
        let found = match input {
            Input::Dir(dir) => in_directory(dir)?,
            Input::Notebook(file) => {
                if !file.exists() {
                    return Err(InputError::Missing { path: file.clone() });
                }
                let name = file
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_else(|| file.display().to_string());
                vec![NotebookInput {
                    file: file.clone(),
                    path: name,
                }]
            }
            Input::List(list) => {
                let f = std::fs::File::open(list).map_err(|source| {
                    if source.kind() == std::io::ErrorKind::NotFound {
                        InputError::Missing { path: list.clone() }
                    } else {
                        InputError::Read {
                            path: list.clone(),
                            source,
                        }
                    }
                })?;
                let base = list.parent().unwrap_or(Path::new(""));
                listed(std::io::BufReader::new(f), base, list)?
            }
            Input::Stdin => match stdin.take() {
                Some(reader) => listed(reader, Path::new(""), Path::new("<stdin>"))?,
                None => Vec::new(),
            },
        };
        out.extend(found);
    }
    dedup(out)
}

/// Lines of a list: paths relative to `base` unless absolute, named as written.
fn listed(
    reader: impl BufRead,
    base: &Path,
    list: &Path,
) -> Result<Vec<NotebookInput>, InputError> {
    let mut out = Vec::new();
    for (i, line) in reader.split(b'\n').enumerate() {
        let line = line.map_err(|source| InputError::Read {
            path: list.to_path_buf(),
            source,
        })?;
        let line = String::from_utf8(line).map_err(|_| InputError::NotText {
            path: list.to_path_buf(),
            line: i + 1,
        })?;
        let entry = line.trim();
        if entry.is_empty() || entry.starts_with('#') {
            continue;
        }
        let written = Path::new(entry);
        let file = if written.is_absolute() {
            written.to_path_buf()
        } else {
            base.join(written)
        };
        let name = entry.trim_start_matches("./").replace('\\', "/");
        out.push(NotebookInput { file, path: name });
    }
    Ok(out)
}

/// Every `.ipynb` under `dir`, sorted by name. Symbolic links to directories are not followed
/// (a link back up would loop); hidden entries (`.git`, `.ipynb_checkpoints`) are skipped.
fn in_directory(dir: &Path) -> Result<Vec<NotebookInput>, InputError> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries = std::fs::read_dir(&d).map_err(|source| InputError::Read {
            path: d.clone(),
            source,
        })?;
        for entry in entries {
            let entry = entry.map_err(|source| InputError::Read {
                path: d.clone(),
                source,
            })?;
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.starts_with('.') {
                continue;
            }
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                stack.push(path);
            } else if name.ends_with(".ipynb") {
                let relative = path.strip_prefix(dir).unwrap_or(&path);
                let parts: Vec<String> = relative
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                out.push(NotebookInput {
                    file: path.clone(),
                    path: parts.join("/"),
                });
            }
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

/// The same file listed twice under one name is one notebook; two files under one name
/// would make records ambiguous.
fn dedup(all: Vec<NotebookInput>) -> Result<Vec<NotebookInput>, InputError> {
    let mut seen: std::collections::HashMap<String, PathBuf> = Default::default();
    let mut out = Vec::with_capacity(all.len());
    for nb in all {
        match seen.get(&nb.path) {
            Some(first) if same_file(first, &nb.file) => continue,
            Some(first) => {
                return Err(InputError::SameName {
                    name: nb.path,
                    first: first.clone(),
                    second: nb.file,
                })
            }
            None => {
                seen.insert(nb.path.clone(), nb.file.clone());
                out.push(nb);
            }
        }
    }
    Ok(out)
}

fn same_file(a: &Path, b: &Path) -> bool {
    a == b || crate::output::same_file(a, b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(found: &[NotebookInput]) -> Vec<&str> {
        found.iter().map(|n| n.path.as_str()).collect()
    }

    #[test]
    fn directories_lists_and_stdin() {
        let dir = tempfile::tempdir().unwrap();
        let corpus = dir.path().join("corpus");
        for p in [
            "b.ipynb",
            "a/z.ipynb",
            "a/c.ipynb",
            ".ipynb_checkpoints/b-checkpoint.ipynb",
            "a/notes.txt",
        ] {
            let f = corpus.join(p);
            std::fs::create_dir_all(f.parent().unwrap()).unwrap();
            std::fs::write(f, "{}").unwrap();
        }
        let found = expand(&[Input::Dir(corpus.clone())], std::io::empty()).unwrap();
        assert_eq!(names(&found), ["a/c.ipynb", "a/z.ipynb", "b.ipynb"]);
        assert_eq!(found[0].file, corpus.join("a/c.ipynb"));

        let list = dir.path().join("list.txt");
        std::fs::write(
            &list,
            "# the corpus\ncorpus/b.ipynb\n\n./corpus/a/c.ipynb\n",
        )
        .unwrap();
        let found = expand(&[Input::classify(&list)], std::io::empty()).unwrap();
        assert_eq!(names(&found), ["corpus/b.ipynb", "corpus/a/c.ipynb"]);
        assert_eq!(found[1].file, dir.path().join("./corpus/a/c.ipynb"));

        let stdin = std::io::Cursor::new("x/y.ipynb\r\n");
        let found = expand(&[Input::Stdin], stdin).unwrap();
        assert_eq!(names(&found), ["x/y.ipynb"]);
        assert_eq!(found[0].file, PathBuf::from("x/y.ipynb"));

        // The same file twice is one notebook; two files under one name are refused.
        let found = expand(
            &[Input::Dir(corpus.clone()), Input::Dir(corpus.clone())],
            std::io::empty(),
        )
        .unwrap();
        assert_eq!(found.len(), 3);
        let other = dir.path().join("other");
        std::fs::create_dir_all(&other).unwrap();
        std::fs::write(other.join("b.ipynb"), "{}").unwrap();
        let err = expand(&[Input::Dir(corpus), Input::Dir(other)], std::io::empty()).unwrap_err();
        assert!(matches!(err, InputError::SameName { ref name, .. } if name == "b.ipynb"));

        let err = expand(
            &[Input::classify(&dir.path().join("absent.ipynb"))],
            std::io::empty(),
        )
        .unwrap_err();
        assert!(matches!(err, InputError::Missing { .. }));
    }
}
