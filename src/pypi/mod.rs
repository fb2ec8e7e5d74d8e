//! The package-index client: PEP 691 JSON and PEP 503 HTML project pages, core metadata
//! (PEP 658, else from the archive), and archive members read with HTTP Range requests,
//! all through an on-disk cache with retries and a concurrency bound.

mod archive;
mod archive_reader;
mod byte_source;
mod cache;
mod cache_budget;
mod cache_transfer;
mod cache_usage;
mod client;
mod compact_page;
mod dist_file;
mod egg_requires;
mod error;
mod filename;
mod http;
mod limiter;
mod mapped_file;
mod metadata;
mod metadata_memo;
mod project;
#[cfg(test)]
mod properties;
mod remote_file;
mod requires_dist;
mod requires_python;
mod retry;
mod sdist;
mod sdist_survey;
mod simple_html;
mod simple_json;
mod simple_page;
mod streamed_file;
mod wheel_tags;
mod zip_directory;
mod zip_reader;

pub use archive::{ArchiveContents, ArchiveLimits, EntryInfo, Member, ReadMethod, Transfer};
pub use archive_reader::ArchiveReader;
pub use cache::{hex_sha256, write_atomic, Cache};
pub use cache_budget::{evict_to, CacheBudget, DEFAULT_CACHE_BUDGET};
pub use cache_transfer::{
    carried_entry_reads, read_carried, valid_key, CarriedEntry, Installed, CARRIED,
};
pub use cache_usage::{
    dir_size, entries as cache_entries, remove_entry, versioned_root as cache_versioned_root,
    CacheEntry, EntryKind, Tally,
};
pub use client::{IndexClient, IndexConfig, PYPI_SIMPLE};
pub use compact_page::{ProjectRelease, ReleaseFile};
pub use dist_file::{DistFile, MetadataHint};
pub use error::PypiError;
pub use filename::{DistFilename, FileKind, FilenameError, SdistFormat};
pub use http::{Budget, EventSink, HttpClient, HttpConfig, HttpEvent, StreamResponse};
pub use metadata::{CoreMetadata, InvalidMetadata, MetadataSource};
pub use project::{PageFormat, ProjectPage, Release, SkippedFile, SourceClass};
pub use requires_dist::{InvalidRequiresDist, RequiresDist};
pub use requires_python::{Admits, RequiresPython};
pub use retry::RetryPolicy;
pub use sdist_survey::{
    SdistBuild, SdistSurvey, BACKEND_MARKERS, BUILD_FILES, COMPILED_SUFFIXES, SETUP_MARKERS,
    SURVEY_MAX_BYTES,
};
pub use wheel_tags::WheelTags;

pub use pep440_rs::{Version, VersionSpecifiers};
