//! The command-line edge: argument definitions, one module per subcommand, and the conventions
//! every command follows, each set in one place: exit codes (`exit`), environment variables
//! (`env`), JSON and counted nouns (`output`), the labels of stderr and their colour
//! (`printer`), progress and notes (`progress`), Ctrl-C (`interrupt`).

pub mod args;
pub mod bank;
pub mod batch;
pub mod cache;
pub mod completions;
pub mod context;
pub mod env;
pub mod exit;
pub mod index;
pub mod infer;
pub mod interrupt;
pub mod modernize;
pub mod notes;
pub mod output;
pub mod printer;
pub mod progress;
pub mod report;
pub mod restore;
pub mod runs;
pub mod snapshot;
pub mod usage;
pub mod verify;
