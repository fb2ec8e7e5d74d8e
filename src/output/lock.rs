//! The full resolution as a hashed requirements lock: every distribution of the transitive
//! closure pinned, each with the sha256 of every file an installer may pick on the target, so
//! that `pip install --require-hashes -r` and `uv pip install -r` install exactly it.

use std::fmt::Write as _;

use super::requirements::python_line;
use crate::resolve::infer::Inference;
use crate::resolve::solver::RequiredBy;

/// The lock's text, and the distributions for which the index gave no hash (pip refuses a
/// lock where any file lacks one, so the caller warns).
pub fn lock_txt(inference: &Inference, notebook: &str) -> (String, Vec<String>) {
    let mut out = String::new();
    let mut unhashed = Vec::new();
    let _ = writeln!(
        out,
        "{} {} from {notebook}, for this target only",
        crate::notebook::WRITTEN_BY_NBENV[1],
        env!("CARGO_PKG_VERSION")
    );
    let _ = writeln!(out, "# {}", python_line(inference));
    if let Some(line) = super::requirements::sdist_line(inference) {
        let _ = writeln!(out, "{line}");
    }
    for pin in &inference.solution.pins {
        let via: Vec<String> = pin
            .required_by
            .iter()
            .map(|r| match r {
                RequiredBy::Root { .. } => "the notebook".to_string(),
                RequiredBy::Dependency { parent, .. } => parent.to_string(),
                RequiredBy::Imported { parent, .. } => format!("{parent} (imports it)"),
            })
            .collect();
        let _ = writeln!(out, "# via {}", via.join(", "));
        let mut line = format!("{}=={}", pin.dist, pin.version);
        let mut hashes: Vec<&str> = pin
            .files
            .iter()
            .filter_map(|f| f.sha256.as_deref())
            .collect();
        hashes.sort_unstable();
        hashes.dedup();
        if hashes.is_empty() {
            unhashed.push(pin.dist.to_string());
        }
        for h in hashes {
            let _ = write!(line, " \\\n    --hash=sha256:{h}");
        }
        let _ = writeln!(out, "{line}");
    }
    (out, unhashed)
}
