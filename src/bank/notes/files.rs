//! Which files of an sdist are a library's change notes, and which release each is about.
//! Projects keep them in a docs tree (`doc/source/whatsnew/v0.17.0.rst`,
//! `doc/release/1.3.0-notes.rst`, `doc/api/prev_api_changes/api_changes_3.0.0.rst`) or at the
//! root (`CHANGELOG.md`, `HISTORY.rst`).

use pep440_rs::Version;

/// Directories whose text files are change notes.
const NOTE_DIRS: &[&str] = &[
    "whatsnew",
    "whats_new",
    "release",
    "releases",
    "release-notes",
    "release_notes",
    "changelog",
    "prev_api_changes",
    "next_api_changes",
];

/// How a change-note file's name begins, wherever it is.
const NOTE_NAMES: &[&str] = &[
    "changelog",
    "changes",
    "history",
    "news",
    "release-notes",
    "release_notes",
    "releasenotes",
    "api_changes",
    "whatsnew",
    "whats_new",
];

/// Files about making releases, not about what changed in them.
const NOT_NOTES: &[&str] = &["howto_release", "release_walkthrough", "releasing"];

/// Text formats notes are written in (an empty extension: `CHANGES`, `NEWS`).
const TEXT_EXTENSIONS: &[&str] = &["rst", "txt", "md", "inc", ""];

/// Whether `path`, a member of an sdist (its root directory included), is a change-notes
/// file. Built docs (`_build/`) and sources are not.
pub fn is_note_file(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    let mut parts: Vec<&str> = lower.split('/').collect();
    let Some(base) = parts.pop() else {
        return false;
    };
    // The sdist's own root directory (`pandas-1.0.0/`).
    if !parts.is_empty() {
        parts.remove(0);
    }
    let (stem, extension) = match base.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => (stem, ext),
        _ => (base, ""),
    };
    if base.is_empty()
        || !TEXT_EXTENSIONS.contains(&extension)
        || parts.iter().any(|p| p.starts_with('_') || *p == "build")
        || NOT_NOTES.iter().any(|n| stem.starts_with(n))
        || stem == "readme"
        || stem == "index"
    {
        return false;
    }
    let in_docs = parts.first().is_some_and(|p| *p == "doc" || *p == "docs");
    let named = NOTE_NAMES.iter().any(|n| stem.starts_with(n));
    (in_docs && parts.iter().any(|p| NOTE_DIRS.contains(p)))
        || (named && (parts.is_empty() || in_docs))
}

/// The release a notes file is about, from its name (`v0.17.0.rst`, `1.3.0-notes.rst`,
/// `version0.10.rst`) or its directory's (`api_changes_3.1.0/deprecations.rst`); `None` when
/// neither names one (`CHANGELOG.md` covers many).
pub fn release_of(path: &str) -> Option<Version> {
    let mut parts = path.rsplit('/');
    let base = parts.next()?;
    let stem = base.rsplit_once('.').map_or(base, |(s, _)| s);
    version_in(stem).or_else(|| parts.next().and_then(version_in))
}

/// The first `N.N[.N…]` in `text` that is not part of a longer number.
fn version_in(text: &str) -> Option<Version> {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_digit() && (i == 0 || !bytes[i - 1].is_ascii_digit()) {
            let end = bytes[i..]
                .iter()
                .position(|b| !(b.is_ascii_digit() || *b == b'.'))
                .map_or(bytes.len(), |n| i + n);
            let candidate = text[i..end].trim_end_matches('.');
            if candidate.contains('.') {
                if let Ok(v) = candidate.parse() {
                    return Some(v);
                }
            }
            i = end;
        } else {
            i += 1;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn change_note_files_are_told_by_their_place_and_name() {
        for yes in [
            "pandas-1.0.0/doc/source/whatsnew/v0.17.0.rst",
            "pandas-0.20.0/doc/source/whatsnew/v0.10.0.txt",
            "scikit-learn-1.3.0/doc/whats_new/v0.22.rst",
            "scipy-1.3.0/doc/release/0.10.0-notes.rst",
            "numpy-1.25.0/doc/changelog/1.12.0-changelog.rst",
            "matplotlib-3.7.0/doc/api/prev_api_changes/api_changes_3.1.0/deprecations.rst",
            "matplotlib-3.0.0/doc/api/api_changes_old.rst",
            "seaborn-0.12.2/doc/whatsnew/v0.11.0.rst",
            "networkx-2.4/doc/news.rst",
            "pkg-1.0/CHANGELOG.md",
            "pkg-1.0/HISTORY.rst",
            "pkg-1.0/CHANGES",
        ] {
            assert!(is_note_file(yes), "{yes}");
        }
        for no in [
            "numpy-1.25.0/doc/HOWTO_RELEASE.rst",
            "numpy-1.25.0/doc/RELEASE_WALKTHROUGH.rst",
            "scikit-learn-0.20.0/doc/_build/doctrees/datasets/twenty_newsgroups.doctree",
            "pandas-1.0.0/doc/source/whatsnew/index.rst",
            "pandas-1.0.0/pandas/core/frame.py",
            "pkg-1.0/pkg/changelog.py",
            "pkg-1.0/tests/release/data.txt",
            "pkg-1.0/doc/source/whatsnew/",
        ] {
            assert!(!is_note_file(no), "{no}");
        }
    }

    #[test]
    fn the_release_a_file_is_about() {
        let v = |s: &str| s.parse::<Version>().unwrap();
        assert_eq!(
            release_of("doc/source/whatsnew/v0.17.0.rst"),
            Some(v("0.17.0"))
        );
        assert_eq!(
            release_of("doc/release/0.10.0-notes.rst"),
            Some(v("0.10.0"))
        );
        assert_eq!(
            release_of("docs/source/release/version0.10.rst"),
            Some(v("0.10"))
        );
        assert_eq!(
            release_of("doc/api/prev_api_changes/api_changes_3.1.0/deprecations.rst"),
            Some(v("3.1.0"))
        );
        assert_eq!(release_of("doc/whats_new/v0.22.rst"), Some(v("0.22")));
        assert_eq!(release_of("CHANGELOG.md"), None);
        assert_eq!(
            release_of("doc/api/next_api_changes/deprecations/00001-ABC.rst"),
            None
        );
    }
}
