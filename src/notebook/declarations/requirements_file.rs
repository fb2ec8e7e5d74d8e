//! pip requirements files: one PEP 508 requirement a line, `\` continuations, `#` comments,
//! per-requirement options (`--hash=…`), and `-r` / `-c` lines naming further files, which are
//! read too (relative to the file naming them). Editable installs, local paths and URLs that
//! name no distribution say nothing about PyPI versions and are passed over.

use std::path::{Path, PathBuf};

use super::search::shown;
use super::{DeclarationKind, Sink};
use crate::names::parse_requirement;
use crate::notebook::requirement::{is_url, pip_requirement};

/// How deep `-r` includes are followed: real repositories nest one or two.
const MAX_INCLUDE_DEPTH: usize = 4;

pub(super) fn read(path: &Path, text: &str, sink: &mut Sink<'_>) {
    let mut seen = vec![path.canonicalize().unwrap_or_else(|_| path.to_path_buf())];
    read_one(path, text, sink, &mut seen, 0);
}

fn read_one(path: &Path, text: &str, sink: &mut Sink<'_>, seen: &mut Vec<PathBuf>, depth: usize) {
    for (line, entry) in logical_lines(text) {
        let Some(entry) = strip_comment(&entry) else {
            continue;
        };
        if let Some(include) = included_file(entry) {
            let target = path.parent().unwrap_or(Path::new(".")).join(include);
            follow(&target, line, sink, seen, depth);
            continue;
        }
        if entry.starts_with('-') {
            // Editable installs and index options name no PyPI version.
            continue;
        }
        // Per-requirement options (`--hash=sha256:…`) follow the requirement.
        let requirement = match entry.find(" --").or_else(|| entry.find("\t--")) {
            Some(i) => entry[..i].trim_end(),
            None => entry,
        };
        if is_url(requirement)
            || requirement.starts_with(['.', '/', '~'])
            || requirement.contains('/')
            || requirement.contains('$')
        {
            if let Some((r, _)) = pip_requirement(requirement) {
                sink.requirement(r, requirement, DeclarationKind::RequirementsFile, line);
            }
            continue;
        }
        match parse_requirement(requirement) {
            Ok(r) => sink.requirement(r, requirement, DeclarationKind::RequirementsFile, line),
            Err(e) => sink.problem(Some(line), e.to_string()),
        }
    }
}

/// Reads a file a `-r` or `-c` line names, once, with its own path in what it declares.
fn follow(target: &Path, line: u32, sink: &mut Sink<'_>, seen: &mut Vec<PathBuf>, depth: usize) {
    let canonical = target
        .canonicalize()
        .unwrap_or_else(|_| target.to_path_buf());
    if seen.contains(&canonical) {
        return;
    }
    if depth >= MAX_INCLUDE_DEPTH {
        sink.problem(
            Some(line),
            format!(
                "{} is nested more than {MAX_INCLUDE_DEPTH} files deep: not read",
                target.display()
            ),
        );
        return;
    }
    seen.push(canonical);
    let text = match std::fs::read(target) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) => {
            sink.problem(
                Some(line),
                format!("cannot read {}: {e}", shown(target).display()),
            );
            return;
        }
    };
    let file = shown(target);
    sink.out.files.push(file.clone());
    let mut inner = Sink {
        file: &file,
        out: sink.out,
    };
    read_one(target, &text, &mut inner, seen, depth + 1);
}

/// Physical lines joined where one ends in `\`, each with the line it starts on.
fn logical_lines(text: &str) -> Vec<(u32, String)> {
    let mut out = Vec::new();
    let mut current: Option<(u32, String)> = None;
    for (i, raw) in text.lines().enumerate() {
        let number = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let (start, mut joined) = current.take().unwrap_or((number, String::new()));
        match raw.strip_suffix('\\') {
            Some(head) => {
                joined.push_str(head);
                current = Some((start, joined));
            }
            None => {
                joined.push_str(raw);
                out.push((start, joined));
            }
        }
    }
    out.extend(current);
    out
}

/// The line without its comment (`#` at the start or after whitespace), or `None` if
/// nothing is left.
fn strip_comment(line: &str) -> Option<&str> {
    let mut end = line.len();
    let bytes = line.as_bytes();
    for (i, b) in bytes.iter().enumerate() {
        if *b == b'#' && (i == 0 || bytes[i - 1].is_ascii_whitespace()) {
            end = i;
            break;
        }
    }
    let kept = line[..end].trim();
    (!kept.is_empty()).then_some(kept)
}

/// The file of a `-r FILE`, `-rFILE`, `--requirement=FILE`, `-c FILE` or `--constraint FILE`
/// line.
fn included_file(entry: &str) -> Option<&str> {
    let rest = ["--requirement", "--constraint"]
        .iter()
        .find_map(|option| {
            let rest = entry.strip_prefix(option)?;
            rest.starts_with(['=', ' ', '\t'])
                .then(|| rest.trim_start_matches('='))
        })
        .or_else(|| ["-r", "-c"].iter().find_map(|o| entry.strip_prefix(o)))?;
    let file = rest.trim();
    (!file.is_empty()).then_some(file)
}

#[cfg(test)]
mod tests {
    use super::super::{read_declarations, DeclarationKind};

    #[test]
    fn requirements_with_comments_continuations_options_and_includes() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join(".git")).unwrap();
        std::fs::write(
            dir.path().join("requirements.txt"),
            "# pinned for the course\n\
             numpy==1.16.4  # works\n\
             pandas>=0.23,\\\n    <0.25\n\
             -e git+https://github.com/o/helper.git#egg=helper\n\
             --index-url https://example.org/simple\n\
             ./local_pkg\n\
             scipy==1.2.1 --hash=sha256:abc\n\
             -r more/extra.txt\n\
             not a requirement!\n",
        )
        .unwrap();
        std::fs::create_dir(dir.path().join("more")).unwrap();
        std::fs::write(
            dir.path().join("more/extra.txt"),
            "matplotlib<3\n-r ../requirements.txt\n",
        )
        .unwrap();
        let d = read_declarations(&dir.path().join("nb.ipynb"));
        let got: Vec<(String, String, u32)> = d
            .requirements
            .iter()
            .map(|r| {
                let file =
                    r.at.file
                        .file_name()
                        .unwrap()
                        .to_string_lossy()
                        .into_owned();
                (r.requirement.to_string(), file, r.at.line)
            })
            .collect();
        assert_eq!(
            got,
            [
                (
                    "numpy==1.16.4".to_string(),
                    "requirements.txt".to_string(),
                    2
                ),
                (
                    "pandas>=0.23,<0.25".to_string(),
                    "requirements.txt".to_string(),
                    3
                ),
                (
                    "scipy==1.2.1".to_string(),
                    "requirements.txt".to_string(),
                    8
                ),
                ("matplotlib<3".to_string(), "extra.txt".to_string(), 1),
            ]
        );
        assert!(d
            .requirements
            .iter()
            .all(|r| r.kind == DeclarationKind::RequirementsFile));
        assert_eq!(d.problems.len(), 1, "{:?}", d.problems);
        assert_eq!(d.problems[0].line, Some(10));
        assert!(d.problems[0].to_string().contains("requirements.txt:10: "));
        assert_eq!(d.files.len(), 2);
    }
}
