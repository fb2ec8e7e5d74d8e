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
    let global = cli::context::Global::of(&cli.global);
    global.settings.confine_installer_caches();
    let global = &global;
    match &cli.command {
        Command::Infer(args) => cli::infer::run(global, args),
        Command::Usage(args) => cli::usage::run(global, args),
        Command::Verify(args) => cli::verify::run(global, args),
        Command::Restore(args) => cli::restore::run(global, args),
        Command::Modernize(args) => cli::modernize::run(global, args),
        Command::Batch(args) => cli::batch::run(global, args),
        Command::Report(args) => cli::report::run(global, args),
        Command::Bank(args) => cli::bank::run(global, args),
        Command::Index(args) => cli::index::run(global, args),
        Command::Cache(args) => cli::cache::run(global, args),
        Command::Completions(args) => cli::completions::run(args),
    }
}
