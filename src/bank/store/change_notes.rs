//! Change notes read from sdists (see [`crate::bank::notes`]): table `change_notes`, one row
//! per distribution, sdist read, old API, file and sentence (the same statement in many
//! sdists is listed once, from the oldest sdist that has it); table `change_note_reads`, the releases whose sdists
//! were read (or could not be: none, too large), so that each is read once. Distributions are
//! named by normalized name: notes may be read for a distribution the bank never indexed.

use jiff::Timestamp;
use pep440_rs::Version;
use rusqlite::params;
use serde::{Deserialize, Serialize};

use super::{Store, StoreError};
use crate::bank::notes::{ChangeNote, NotedExpr, NotedName, NotesRead};
use crate::names::DistName;

/// What became of reading a release's sdist for notes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum NotesOutcome {
    Read,
    /// The release has no sdist nbenv reads.
    NoSdist,
    /// Its sdist is larger than nbenv fetches for notes.
    TooLarge,
}

impl NotesOutcome {
    fn code(self) -> &'static str {
        match self {
            NotesOutcome::Read => "read",
            NotesOutcome::NoSdist => "no-sdist",
            NotesOutcome::TooLarge => "too-large",
        }
    }

    fn parse(code: &str) -> Option<Self> {
        Some(match code {
            "read" => NotesOutcome::Read,
            "no-sdist" => NotesOutcome::NoSdist,
            "too-large" => NotesOutcome::TooLarge,
            _ => return None,
        })
    }
}

/// The version of the notes reader: an sdist read by an older one is read again when its
/// notes are next wanted. 2: "always behaves as if ``NAME=VALUE``" statements.
pub const NOTES_READER: u32 = 2;

/// A release whose sdist was read for notes.
#[derive(Debug, Clone, Serialize)]
pub struct NotesReadRow {
    pub version: Version,
    pub sdist: Option<String>,
    /// Notes files it held, and the statements found in them.
    pub files: u32,
    pub notes: u32,
    pub outcome: NotesOutcome,
    /// The notes reader that read it ([`NOTES_READER`]; 1 for reads before it was kept).
    #[serde(skip)]
    pub reader: u32,
}

impl NotesReadRow {
    /// Whether reading its sdist again would find nothing new: read by this reader, or
    /// found unreadable (no sdist, too large), which a newer reader does not change.
    pub fn is_current(&self) -> bool {
        self.outcome != NotesOutcome::Read || self.reader >= NOTES_READER
    }
}

/// What the `new` column holds: the replacements, or (a note whose `as_if` says what
/// replaces it) that value.
#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum StoredReplacement {
    Named(Vec<NotedExpr>),
    AsIf { as_if: String },
}

/// A stored note, with the release whose sdist it was first read from.
#[derive(Debug, Clone, Serialize)]
pub struct StoredNote {
    #[serde(flatten)]
    pub note: ChangeNote,
    pub read_from: Version,
}

impl Store {
    /// Keeps what reading a release's sdist found, in place of what the same sdist said
    /// before.
    pub fn record_change_notes(
        &mut self,
        read: &NotesRead,
        at: Timestamp,
    ) -> Result<(), StoreError> {
        self.write(|tx| {
            // Read again: what this sdist said before is replaced.
            tx.execute(
                "DELETE FROM change_notes WHERE dist = ?1 AND read_from = ?2",
                params![read.dist.as_str(), read.version.to_string()],
            )?;
            let mut insert = tx.prepare(
                "INSERT OR IGNORE INTO change_notes
                 (dist, old, file, sentence, line, new, release, read_from)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            )?;
            for n in &read.notes {
                let new = match &n.as_if {
                    Some(value) => StoredReplacement::AsIf {
                        as_if: value.clone(),
                    },
                    None => StoredReplacement::Named(n.new.clone()),
                };
                insert.execute(params![
                    read.dist.as_str(),
                    n.old.written(),
                    n.file,
                    n.sentence,
                    n.line as i64,
                    serde_json::to_string(&new).expect("names serialize"),
                    n.release.as_ref().map(|v| v.to_string()),
                    read.version.to_string(),
                ])?;
            }
            tx.execute(
                "INSERT OR REPLACE INTO change_note_reads (dist, version, sdist, files, notes, outcome, at, reader)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                params![
                    read.dist.as_str(),
                    read.version.to_string(),
                    read.sdist,
                    read.files as i64,
                    read.notes.len() as i64,
                    NotesOutcome::Read.code(),
                    at.as_second(),
                    NOTES_READER,
                ],
            )?;
            Ok(())
        })
    }

    /// Keeps that a release's sdist could not be read for notes, so it is not tried again.
    pub fn record_notes_unread(
        &mut self,
        dist: &DistName,
        version: &Version,
        outcome: NotesOutcome,
        at: Timestamp,
    ) -> Result<(), StoreError> {
        self.write(|tx| {
            tx.execute(
                "INSERT OR REPLACE INTO change_note_reads (dist, version, sdist, files, notes, outcome, at, reader)
                 VALUES (?1, ?2, NULL, 0, 0, ?3, ?4, ?5)",
                params![dist.as_str(), version.to_string(), outcome.code(), at.as_second(), NOTES_READER],
            )?;
            Ok(())
        })
    }

    /// The releases of `dist` whose sdists were read for notes (or could not be), oldest
    /// first.
    pub fn notes_reads(&self, dist: &DistName) -> Result<Vec<NotesReadRow>, StoreError> {
        type Row = (String, Option<String>, i64, i64, String, i64);
        let rows: Vec<Row> = self
            .conn
            .prepare("SELECT version, sdist, files, notes, outcome, reader FROM change_note_reads WHERE dist = ?1")
            .and_then(|mut st| {
                st.query_map([dist.as_str()], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?))
                })?
                .collect()
            })
            .map_err(self.err())?;
        let mut out = rows
            .into_iter()
            .map(|(version, sdist, files, notes, outcome, reader)| {
                let bad = |what: &str| self.corrupt(format!("change-note read of {dist}: {what}"));
                Ok(NotesReadRow {
                    version: version
                        .parse()
                        .map_err(|_| bad(&format!("version {version:?}")))?,
                    sdist,
                    files: files as u32,
                    notes: notes as u32,
                    outcome: NotesOutcome::parse(&outcome)
                        .ok_or_else(|| bad(&format!("outcome {outcome:?}")))?,
                    reader: reader as u32,
                })
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        out.sort_by(|a, b| a.version.cmp(&b.version));
        Ok(out)
    }

    /// Every note kept for `dist`, by the release its file is about, then old API.
    pub fn change_notes(&self, dist: &DistName) -> Result<Vec<StoredNote>, StoreError> {
        type Row = (String, String, String, i64, String, Option<String>, String);
        let rows: Vec<Row> = self
            .conn
            .prepare(
                "SELECT old, file, sentence, line, new, release, read_from FROM change_notes
                 WHERE dist = ?1",
            )
            .and_then(|mut st| {
                st.query_map([dist.as_str()], |r| {
                    Ok((
                        r.get(0)?,
                        r.get(1)?,
                        r.get(2)?,
                        r.get(3)?,
                        r.get(4)?,
                        r.get(5)?,
                        r.get(6)?,
                    ))
                })?
                .collect()
            })
            .map_err(self.err())?;
        let mut out = rows
            .into_iter()
            .map(|(old, file, sentence, line, new, release, read_from)| {
                let bad =
                    |what: String| self.corrupt(format!("change note of {dist} ({old}): {what}"));
                let old = NotedName::parse(&old).ok_or_else(|| bad("its old name".into()))?;
                let (new, as_if) = match serde_json::from_str(&new)
                    .map_err(|e| bad(format!("its replacements: {e}")))?
                {
                    StoredReplacement::Named(new) => (new, None),
                    StoredReplacement::AsIf { as_if } => (Vec::new(), Some(as_if)),
                };
                let version = |text: &str| {
                    text.parse::<Version>()
                        .map_err(|_| bad(format!("version {text:?}")))
                };
                Ok(StoredNote {
                    note: ChangeNote {
                        old,
                        new,
                        as_if,
                        file,
                        release: release.as_deref().map(version).transpose()?,
                        sentence,
                        line: line as usize,
                    },
                    read_from: version(&read_from)?,
                })
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        // The same statement in several sdists: once, from the oldest.
        out.sort_by(|a, b| {
            (
                a.note.old.written(),
                &a.note.file,
                &a.note.sentence,
                &a.read_from,
            )
                .cmp(&(
                    b.note.old.written(),
                    &b.note.file,
                    &b.note.sentence,
                    &b.read_from,
                ))
        });
        out.dedup_by(|later, first| {
            later.note.old.written() == first.note.old.written()
                && later.note.file == first.note.file
                && later.note.sentence == first.note.sentence
        });
        out.sort_by(|a, b| {
            (&a.note.release, &a.note.old, &a.note.file, a.note.line).cmp(&(
                &b.note.release,
                &b.note.old,
                &b.note.file,
                b.note.line,
            ))
        });
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bank::notes::notes_in;

    fn read(version: &str, text: &str) -> NotesRead {
        NotesRead {
            dist: DistName::new("tabular").unwrap(),
            version: version.parse().unwrap(),
            sdist: format!("tabular-{version}.tar.gz"),
            files: 1,
            notes: notes_in("doc/whatsnew/v1.1.rst", text),
        }
    }

    #[test]
    fn notes_are_kept_once_each_and_a_release_read_again_replaces_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("bank.sqlite3")).unwrap();
        let dist = DistName::new("tabular").unwrap();
        let at = Timestamp::from_second(1_700_000_000).unwrap();
        let sort = "- ``Frame.sort(columns=...)`` is deprecated in favor of ``Frame.sort_values(by=...)``\n";
        store.record_change_notes(&read("1.2", sort), at).unwrap();
        // The same statement in a later sdist is listed once, from the first.
        store.record_change_notes(&read("1.3", sort), at).unwrap();
        let notes = store.change_notes(&dist).unwrap();
        assert_eq!(notes.len(), 1);
        assert_eq!(notes[0].note.old.written(), "Frame.sort(columns=...)");
        assert_eq!(notes[0].note.new[0].as_str(), "Frame.sort_values(by=...)");
        assert_eq!(notes[0].note.release, Some("1.1".parse().unwrap()));
        assert_eq!(notes[0].read_from, "1.2".parse::<Version>().unwrap());
        // 1.2 read again, its notes changed: what it said before goes (1.3 still says it).
        let order = "- ``Frame.order()`` is deprecated, use ``Frame.sort_values()``\n";
        store.record_change_notes(&read("1.2", order), at).unwrap();
        let olds: Vec<String> = store
            .change_notes(&dist)
            .unwrap()
            .iter()
            .map(|n| n.note.old.written().to_string())
            .collect();
        assert_eq!(olds, ["Frame.order()", "Frame.sort(columns=...)"]);
        // Reads are kept with what came of them, unread ones too.
        store
            .record_notes_unread(&dist, &"1.0".parse().unwrap(), NotesOutcome::NoSdist, at)
            .unwrap();
        let reads = store.notes_reads(&dist).unwrap();
        let outcomes: Vec<(String, NotesOutcome, u32)> = reads
            .iter()
            .map(|r| (r.version.to_string(), r.outcome, r.notes))
            .collect();
        assert_eq!(
            outcomes,
            [
                ("1.0".to_string(), NotesOutcome::NoSdist, 0),
                ("1.2".to_string(), NotesOutcome::Read, 1),
                ("1.3".to_string(), NotesOutcome::Read, 1),
            ]
        );
    }

    #[test]
    fn a_value_the_library_behaves_as_if_given_is_kept_and_older_reads_are_read_again() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("bank.sqlite3")).unwrap();
        let dist = DistName::new("tabular").unwrap();
        let at = Timestamp::from_second(1_700_000_000).unwrap();
        let text =
            "Setting ``hold`` has been removed. Tabular now always behaves as if ``hold=True``.\n";
        store.record_change_notes(&read("1.2", text), at).unwrap();
        store
            .record_notes_unread(&dist, &"1.0".parse().unwrap(), NotesOutcome::NoSdist, at)
            .unwrap();
        let notes = store.change_notes(&dist).unwrap();
        assert_eq!(notes.len(), 1);
        assert_eq!(notes[0].note.old.as_str(), "hold");
        assert_eq!(notes[0].note.as_if.as_deref(), Some("True"));
        assert!(notes[0].note.new.is_empty());
        let current = |store: &Store| -> Vec<bool> {
            store
                .notes_reads(&dist)
                .unwrap()
                .iter()
                .map(|r| r.is_current())
                .collect()
        };
        assert_eq!(current(&store), [true, true]);
        // A read by the reader before this one (a bank migrated from schema 11) is read
        // again; an sdist that could not be read is not.
        store
            .conn
            .execute("UPDATE change_note_reads SET reader = 1", [])
            .unwrap();
        assert_eq!(current(&store), [true, false]);
    }
}
