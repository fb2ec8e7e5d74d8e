//! The `nbenv` command line: parse arguments, call one function per subcommand, map errors to
//! exit codes. Everything else lives in the library or in `cli/`.

mod cli;

use std::process::ExitCode;

use cli::args::{Cli, Command};

fn main() -> ExitCode {
    let started = std::time::Instant::now();
    cli::interrupt::install();
    let result = cli::args::parse()
        .map_err(anyhow::Error::from)
        .and_then(|cli| {
            let result = run(&cli);
            if cli.global.timings {
                cli::output::timings(started.elapsed());
            }
            result
        });
    cli::exit::report(result)
}

fn run(cli: &Cli) -> anyhow::Result<()> {
    cli::context::confine_installer_caches(&cli.global);
    match &cli.command {
        Command::Infer(args) => cli::infer::run(&cli.global, args),
        Command::Usage(args) => cli::usage::run(&cli.global, args),
        Command::Verify(args) => cli::verify::run(&cli.global, args),
        Command::Restore(args) => cli::restore::run(&cli.global, args),
        Command::Modernize(args) => cli::modernize::run(&cli.global, args),
        Command::Batch(args) => cli::batch::run(&cli.global, args),
        Command::Report(args) => cli::report::run(&cli.global, args),
        Command::Bank(args) => cli::bank::run(&cli.global, args),
        Command::Index(args) => cli::index::run(&cli.global, args),
        Command::Cache(args) => cli::cache::run(&cli.global, args),
        Command::Completions(args) => cli::completions::run(args),
    }
}
