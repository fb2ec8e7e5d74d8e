//! Measuring many notebooks: batch runs and their report.
//!
//! A batch expands its INPUTs into notebooks ([`input`]), keeps its shard of them
//! ([`shard`]), skips those its output already has ([`resume`]), measures the rest on worker
//! threads ([`pool`]) stage by stage ([`stages`]: [`usage_stage`], then resolution, then runs
//! counted by [`run_stage`]) and appends one [`Record`] a notebook to a JSONL file as each
//! finishes ([`append`]). [`triage`] is the static status of a notebook before any run.
//!
//! [`report`] merges the records of any number of outputs (shards) and counts the
//! measurements of the executability study (executable, restorable by class, pathological;
//! executability before and after restore; error types; needed distributions; failing
//! releases); [`tables`] lays them out, [`chart`] draws them as SVG and [`html`] makes one
//! self-contained page of both.

pub mod append;
pub mod bank_cache;
pub mod chart;
pub mod escape;
pub mod html;
pub mod input;
pub mod jsonl;
pub mod pool;
pub mod record;
pub mod report;
pub mod resume;
pub mod run_stage;
pub mod shard;
pub mod stages;
pub mod tables;
pub mod triage;
pub mod usage_stage;

pub use append::{AppendError, Appender};
pub use bank_cache::CachedBank;
pub use chart::{charts, Chart};
pub use html::{page, Source};
pub use input::{expand, Input, InputError, NotebookInput};
pub use jsonl::{read_records, RecordsError, RecordsFile, Truncated};
pub use record::{
    Environment, ErrorKind, ErrorType, Executability, ModernAttempt, Record, ReleaseFailure,
    ReleaseFailureKind, Requirement, Stage, Status, Timings, Verdict, SCHEMA,
};
pub use report::{merge, Merged, Report};
pub use resume::Done;
pub use run_stage::{record_runs, RunOutcome, Runs};
pub use shard::{shard_of, Base, Shard};
pub use tables::Table;
pub use triage::{add_resolution, triage, Triage};
pub use usage_stage::{analyse, Analysed};
