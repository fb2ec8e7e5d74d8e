//! The `nbenv` command line: parse arguments, call one function per subcommand, map errors to
//! exit codes. Everything else lives in the library or in `cli/`.

mod cli;

use std::process::ExitCode;

use clap::Parser;

use cli::args::{Cli, Command};

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Index(args) => cli::index::run(&cli.global, args),
        Command::Bank(args) => cli::bank::run(&cli.global, args),
        Command::Usage(args) => cli::usage::run(args),
    };
    cli::exit::report(result)
}
