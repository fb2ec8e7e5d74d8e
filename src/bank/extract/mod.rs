//! Extraction: one compact summary per source file, and the module each file provides.
//!
//! A summary depends only on the file's bytes, so the store caches it by the file's sha256 and
//! a file shared by many releases is parsed once. Which module a file is depends on the whole
//! release ([`ReleaseLayout`]), and how names flow between modules is `bank::flow`'s job.

mod all_names;
mod class_body;
mod compiled;
mod deprecation;
mod dotted;
mod import_structure;
mod module_effects;
mod module_getattr;
mod module_path;
mod record;
mod signature;
mod summary;
mod visitor;

pub use all_names::AllNames;
pub use compiled::extension_module_name;
pub use deprecation::{named_successor, KeywordRename, Shim, Template, Warned};
pub use module_path::{
    ArchiveKind, LayoutModule, LayoutSource, ModuleFile, ReleaseLayout, SourceKind,
};
pub use record::{Record, RecordEntry, RecordProblem, Sha256};
pub use signature::{InvalidSignature, Param, ParamKind, Signature};
pub use summary::{
    is_private, Binding, Class, FileSummary, Function, Import, ImportFrom, ImportedName, Member,
    MemberKind, Variable,
};
pub use visitor::{summarize_bytes, summarize_source};

/// The version of what a [`FileSummary`] holds. A cache of summaries must be keyed by
/// (file sha256, `is_stub`, this version), and this bumped whenever extraction changes what
/// it records, so that summaries made by older rules are made again.
pub const SUMMARY_VERSION: u32 = 12;
