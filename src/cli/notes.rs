//! `nbenv bank notes NAME [VERSION]`: a release's change notes, read from its sdist into the
//! bank; and the notes section of `bank moves`.

use std::io::Write;
use std::path::Path;

use anyhow::Result;
use nbenv::bank::indexer::{read_notes, NotesAt, NotesError, NotesKept};
use nbenv::bank::store::{NotesOutcome, NotesReadRow, StoredNote};
use nbenv::names::DistName;
use nbenv::pypi::Version;

use super::args::Format;
use super::context::Global;
use super::exit::CliError;
use super::output::{count, write_json};

/// Reads `name`'s notes at `version` (the newest release with an sdist when `None`).
pub fn read(
    global: &Global,
    bank: &Path,
    name: &DistName,
    version: Option<&Version>,
    force: bool,
    format: Format,
) -> Result<()> {
    let client = global.index_client()?;
    let at = version.map_or(NotesAt::Newest, |v| NotesAt::Release(v.clone()));
    let kept = match read_notes(&client, bank, name, &at, force) {
        Ok(kept) => kept,
        Err(NotesError::Index(e)) => return Err(e.into()),
        Err(NotesError::Store(e)) => return Err(e.into()),
        Err(e @ (NotesError::NoRelease { .. } | NotesError::NoReleases { .. })) => {
            return Err(CliError::not_found(e.to_string()).into())
        }
    };
    let mut out = super::printer::stdout();
    if format == Format::Json {
        write_json(&mut out, &kept)?;
    } else {
        write_kept(&mut out, &kept)?;
    }
    match kept.outcome {
        NotesOutcome::Read => Ok(()),
        NotesOutcome::NoSdist => Err(CliError::not_found(format!(
            "{name} {} has no sdist nbenv reads: its notes ship only in sdists",
            kept.version
        ))
        .into()),
        NotesOutcome::TooLarge => Err(CliError::not_found(format!(
            "{name} {}'s sdist is larger than the {} MB nbenv fetches for notes",
            kept.version,
            nbenv::bank::indexer::NOTES_MAX_BYTES >> 20
        ))
        .into()),
    }
}

fn write_kept(out: &mut impl Write, kept: &NotesKept) -> Result<()> {
    if kept.outcome != NotesOutcome::Read {
        return Ok(());
    }
    let sdist = kept.sdist.as_deref().unwrap_or("its sdist");
    let when = if kept.already {
        "read before (--force reads it again)"
    } else {
        "read"
    };
    writeln!(
        out,
        "{} {}: {when}: {sdist}: {}, {} named with a replacement",
        kept.dist,
        kept.version,
        count(kept.files, "notes file", "notes files"),
        count(kept.notes, "old API", "old APIs"),
    )?;
    if kept.notes > 0 {
        writeln!(out, "  `nbenv bank moves {}` lists them", kept.dist)?;
    }
    Ok(())
}

/// `bank moves`' section of change notes: each old API and what the notes say replaces it,
/// with the file, line and sentence.
pub fn write_section(
    out: &mut impl Write,
    name: &DistName,
    notes: &[StoredNote],
    reads: &[NotesReadRow],
) -> Result<()> {
    let read: Vec<String> = reads
        .iter()
        .filter(|r| r.outcome == NotesOutcome::Read)
        .map(|r| r.version.to_string())
        .collect();
    if read.is_empty() {
        writeln!(
            out,
            "change notes: none read (`nbenv bank notes {name}` reads the newest sdist's)"
        )?;
        return Ok(());
    }
    writeln!(
        out,
        "change notes ({}, read from the sdist{} of {}; candidates, kept only when a run passes):",
        count(notes.len(), "old API", "old APIs"),
        if read.len() == 1 { "" } else { "s" },
        read.join(", ")
    )?;
    for n in notes {
        let note = &n.note;
        let new = match &note.as_if {
            Some(value) => format!("nothing (always as if {value})"),
            None => note
                .new
                .iter()
                .map(|e| e.as_str())
                .collect::<Vec<_>>()
                .join(" or "),
        };
        let release = note
            .release
            .as_ref()
            .map_or(String::new(), |v| format!(", {v}"));
        writeln!(
            out,
            "{} -> {}  ({}:{}{release})",
            note.old.written(),
            new,
            note.file,
            note.line
        )?;
        writeln!(out, "    \"{}\"", shortened(&note.sentence))?;
    }
    Ok(())
}

/// A sentence cut to a line's worth, at a word.
fn shortened(sentence: &str) -> String {
    const MAX: usize = 200;
    if sentence.chars().count() <= MAX {
        return sentence.to_string();
    }
    let cut: String = sentence.chars().take(MAX).collect();
    let at = cut.rfind(' ').unwrap_or(cut.len());
    format!("{} …", &cut[..at])
}
