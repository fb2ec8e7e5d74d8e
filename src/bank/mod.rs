//! The API bank: which public names each release of each distribution makes reachable.
//!
//! `extract` reads source files into summaries, `flow` turns a release's summaries into its
//! public APIs with their canonical definitions.
//! `snapshot` carries a whole bank to other machines in one file.

pub mod extract;
pub mod flow;
pub mod indexer;
pub mod introspect;
pub mod notes;
pub mod snapshot;
pub mod store;
