//! The API bank: which public names each release of each distribution makes reachable.
//!
//! `extract` reads source files into summaries, `flow` turns a release's summaries into its
//! public APIs with their canonical definitions.

pub mod extract;
pub mod flow;
pub mod indexer;
pub mod introspect;
pub mod store;
