//! The command-line edge: argument definitions, one module per subcommand, exit codes.

pub mod args;
pub mod bank;
pub mod context;
pub mod exit;
pub mod index;
pub mod output;
pub mod progress;
pub mod usage;
