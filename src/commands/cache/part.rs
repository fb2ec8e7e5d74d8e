//! The parts of what nbenv keeps on disk, each with the paths it is made of.

use std::path::PathBuf;

use serde::Serialize;

use crate::pypi::{EntryKind, Tally};

/// One part of what nbenv keeps on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Part {
    IndexPages,
    CompactIndexPages,
    Archives,
    ByteRanges,
    CoreMetadata,
    FileLengths,
    SummaryCache,
    OldSummaryCaches,
    LeftoverTempFiles,
    Leftovers,
    BankLeftovers,
    ScratchVenvsInUse,
    AbandonedScratchVenvs,
    InstalledTools,
    Environments,
    UvCache,
    PipCache,
}

impl Part {
    pub fn label(self) -> &'static str {
        match self {
            Part::IndexPages => "index pages",
            Part::CompactIndexPages => "compact index pages",
            Part::Archives => "archives",
            Part::ByteRanges => "byte ranges",
            Part::CoreMetadata => "core metadata",
            Part::FileLengths => "file lengths",
            Part::SummaryCache => "summary cache",
            Part::OldSummaryCaches => "old summary caches",
            Part::LeftoverTempFiles => "left-over temporary files",
            Part::Leftovers => "left by killed runs",
            Part::BankLeftovers => "left beside the bank",
            Part::ScratchVenvsInUse => "scratch venvs in use",
            Part::AbandonedScratchVenvs => "abandoned scratch venvs",
            Part::InstalledTools => "tools nbenv installed",
            Part::Environments => "environments (verify, restore)",
            Part::UvCache => "uv's cache (nbenv's)",
            Part::PipCache => "pip's cache (nbenv's)",
        }
    }

    pub fn of_kind(kind: EntryKind) -> Part {
        match kind {
            EntryKind::Pages => Part::IndexPages,
            EntryKind::Compact => Part::CompactIndexPages,
            EntryKind::Files => Part::Archives,
            EntryKind::Ranges => Part::ByteRanges,
            EntryKind::Metadata => Part::CoreMetadata,
            EntryKind::Lengths => Part::FileLengths,
        }
    }

    /// Removed by a plain `prune`; the rest only with `--all`, or never (in use).
    pub fn pruned(self, all: bool) -> bool {
        match self {
            Part::IndexPages
            | Part::CompactIndexPages
            | Part::SummaryCache
            | Part::InstalledTools
            | Part::Environments => all,
            // Pruned by their installer (`uv cache prune`), and cleaned with `--all`.
            Part::ScratchVenvsInUse | Part::UvCache | Part::PipCache => false,
            _ => true,
        }
    }
}

/// A part with the paths it is made of.
pub struct Found {
    pub part: Part,
    pub tally: Tally,
    pub paths: Vec<PathBuf>,
    /// Where it is, when not in the cache directory.
    pub location: Option<PathBuf>,
}

impl Found {
    pub fn new(part: Part) -> Self {
        Self {
            part,
            tally: Tally::default(),
            paths: Vec::new(),
            location: None,
        }
    }

    pub fn add(&mut self, path: PathBuf, bytes: u64) {
        self.tally.add(bytes);
        self.paths.push(path);
    }
}

/// A part's size, as `cache info` and `cache prune` say it.
#[derive(Debug, Clone, Serialize)]
pub struct PartSize {
    pub part: Part,
    pub entries: u64,
    pub bytes: u64,
    /// Where it is, when not in the cache directory.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<PathBuf>,
}

impl PartSize {
    pub fn of(found: &Found) -> Self {
        Self {
            part: found.part,
            entries: found.tally.entries,
            bytes: found.tally.bytes,
            location: found.location.clone(),
        }
    }
}
