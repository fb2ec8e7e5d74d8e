//! The command-line edge: argument definitions, one module per subcommand, exit codes.

pub mod args;
pub mod exit;
pub mod usage;
