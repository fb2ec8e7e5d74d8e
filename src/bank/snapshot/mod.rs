//! Bank snapshots: one compressed, checksummed file that carries a whole bank to other
//! machines (`nbenv bank export` / `nbenv bank import`), so that batch workers start warm.
//!
//! `container` is the file format, `copy` the consistent copy of a live bank and what is
//! done to it (run records dropped), `export` writes a snapshot, `source`, `unpack` and
//! `install` read one back: checked whole before the bank is touched, then renamed into
//! place without ever meeting the old bank's WAL.

mod container;
mod copy;
mod error;
mod export;
mod import;
mod index_section;
mod install;
mod source;
mod unpack;

pub use container::{
    BankCounts, Compression, Defect, HeaderError, Part, SnapshotHeader, FORMAT_VERSION, MAGIC,
};
pub use copy::RunRecords;
pub use error::SnapshotError;
pub use export::{export, ExportOptions, ExportReport, DEFAULT_LEVEL};
pub use import::{import, ImportOptions, ImportReport, DEFAULT_MAX_SIZE};
pub use index_section::{CacheInstall, IndexSection};
pub use install::{may_replace, ExistingBank};
pub use source::SnapshotSource;
