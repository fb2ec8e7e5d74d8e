//! The `nbenv` command line: parse arguments, call one function per subcommand, map errors to
//! exit codes. Everything else lives in the library or in `cli/`.

mod cli;

use std::process::ExitCode;

use clap::Parser;

use cli::args::Cli;

fn main() -> ExitCode {
    let cli = Cli::parse();
    #[allow(unreachable_code)]
    let result: anyhow::Result<()> = match cli.command {};
    cli::exit::report(result, &cli.global)
}
