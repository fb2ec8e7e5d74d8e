//! Indexing: from a project's page on the index to its releases' APIs in the store.
//!
//! Worker threads fetch and analyse releases in parallel (network and parsing overlap); the
//! calling thread is the only writer and commits one transaction per release, so a build can
//! be interrupted at any moment and resumed.

mod analysis_slots;
mod build;
mod error;
mod notes;
mod packages_list;
mod release_job;
mod reported;
mod selection;
mod summary_cache;

pub use analysis_slots::{AnalysisSlot, AnalysisSlots};
pub use build::{
    build, merge_targets, BuildObserver, BuildOptions, BuildReport, BuildTarget, FailedRelease,
    SUMMARY_CACHE_FILE,
};
pub use error::{FailureKind, IndexError};
pub use notes::{read_notes, NotesAt, NotesError, NotesKept, NOTES_MAX_BYTES};
pub use packages_list::{
    built_in, parse_packages, read_packages, PackageEntry, PackagesError, BUILT_IN,
};
pub use release_job::{index_release, index_release_files, Content, IndexedFile, ReleaseOutcome};
pub use reported::build_reported;
pub use selection::Selection;
pub use summary_cache::SummaryCache;
