//! Libraries' own change notes, read from their sdists: the statements that name an old API
//! and what replaces it ("``DataFrame.sort`` … deprecated … in favor of
//! ``DataFrame.sort_values``"), each kept with its file, its release and its sentence as
//! evidence of kind `change-note`. Weaker than a move or a shim the bank proves: a successor
//! the notes name is a candidate, kept only when a run passes with it.
//!
//! Here: which files are notes, and what their statements say. Reading a release's sdist and
//! keeping what it says is the indexer's ([`crate::bank::indexer::read_notes`]).

mod files;
mod statement;
mod text;

pub use files::{is_note_file, release_of};
pub use statement::{read as statements, NotedExpr, NotedName, Statement};

use pep440_rs::Version;
use serde::{Deserialize, Serialize};

/// What reading one release's sdist found.
#[derive(Debug, Clone)]
pub struct NotesRead {
    pub dist: crate::names::DistName,
    pub version: Version,
    /// The sdist read.
    pub sdist: String,
    /// The notes files it holds.
    pub files: usize,
    pub notes: Vec<ChangeNote>,
}

/// One old API a notes file says is replaced, and by what.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChangeNote {
    pub old: NotedName,
    /// The replacements, as the notes name them, in their order (none when `as_if` says
    /// what replaces it).
    pub new: Vec<NotedExpr>,
    /// The value the library now always behaves as if the old API were given (`True` of
    /// "always behaves as if ``hold=True``"): a call passing just it does nothing now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub as_if: Option<String>,
    /// The notes file, below the sdist's root (`doc/source/whatsnew/v0.17.0.rst`).
    pub file: String,
    /// The release the file is about, when its name says (`v0.17.0.rst`).
    pub release: Option<Version>,
    /// The statement, in the notes' own words.
    pub sentence: String,
    pub line: usize,
}

/// The notes in one file's `text` (`file` below the sdist's root).
pub fn notes_in(file: &str, text: &str) -> Vec<ChangeNote> {
    let release = release_of(file);
    let mut out: Vec<ChangeNote> = Vec::new();
    for s in statements(text) {
        // As many old names as new ones, several: each its own ("``lda.LDA`` and
        // ``qda.QDA`` have been moved to ``LinearDiscriminantAnalysis`` and
        // ``QuadraticDiscriminantAnalysis``").
        let paired = s.old.len() > 1 && s.old.len() == s.new.len();
        for (k, old) in s.old.iter().enumerate() {
            let note = ChangeNote {
                old: old.clone(),
                new: if paired {
                    vec![s.new[k].clone()]
                } else {
                    s.new.clone()
                },
                as_if: s.as_if.clone(),
                file: file.to_string(),
                release: release.clone(),
                sentence: s.sentence.clone(),
                line: s.line,
            };
            if !out
                .iter()
                .any(|o| o.old == note.old && o.sentence == note.sentence)
            {
                out.push(note);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_old_api_of_a_statement_is_a_note_with_its_file_and_release() {
        let notes = notes_in(
            "doc/source/whatsnew/v0.17.0.rst",
            "- ``Series.order()`` and ``DataFrame.sort()`` are deprecated in favor of ``sort_values``\n",
        );
        let olds: Vec<&str> = notes.iter().map(|n| n.old.as_str()).collect();
        assert_eq!(olds, ["Series.order", "DataFrame.sort"]);
        assert!(notes
            .iter()
            .all(|n| n.release == Some("0.17.0".parse().unwrap())
                && n.new.len() == 1
                && n.line == 1));
        let paired = notes_in(
            "doc/whats_new/v0.17.rst",
            "- :class:`lda.LDA` and :class:`qda.QDA` have been moved to :class:`LinearDiscriminantAnalysis` and :class:`QuadraticDiscriminantAnalysis`.\n",
        );
        let pairs: Vec<(&str, Vec<&str>)> = paired
            .iter()
            .map(|n| (n.old.as_str(), n.new.iter().map(|e| e.as_str()).collect()))
            .collect();
        assert_eq!(
            pairs,
            [
                ("lda.LDA", vec!["LinearDiscriminantAnalysis"]),
                ("qda.QDA", vec!["QuadraticDiscriminantAnalysis"])
            ]
        );
    }
}

#[cfg(test)]
mod properties {
    use proptest::prelude::*;

    /// Notes markup, pieces of it in any order, and any characters between.
    fn notes_text() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            Just("``".to_string()),
            Just("`".to_string()),
            Just(":meth:".to_string()),
            Just(" in favor of ".to_string()),
            Just(" now always behaves as if ".to_string()),
            Just("hold=True".to_string()),
            Just(" is deprecated".to_string()),
            Just("use ".to_string()),
            Just("\n- ".to_string()),
            Just("\n\n".to_string()),
            Just("====  ====\n".to_string()),
            Just("| Old | New |\n|---|---|\n".to_string()),
            Just(". ".to_string()),
            Just("(".to_string()),
            Just("（".to_string()),
            "\\PC{0,8}",
        ];
        prop::collection::vec(piece, 0..24).prop_map(|v| v.concat())
    }

    proptest! {
        /// Whatever a notes file holds, reading it returns notes, and never panics.
        #[test]
        fn any_text_is_read_without_a_panic(text in notes_text()) {
            for note in super::notes_in("doc/whatsnew/v1.0.rst", &text) {
                prop_assert!(note.new.is_empty() == note.as_if.is_some());
            }
        }
    }
}
