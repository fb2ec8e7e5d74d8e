//! `nbenv completions SHELL`: a completion script generated from the same definition the
//! command line parses with, so it never goes stale.

use std::io::Write;

use anyhow::Result;
use clap::Args;
use clap_complete::Shell;

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: Shell,
}

pub fn run(args: &CompletionsArgs) -> Result<()> {
    let mut cmd = super::args::command();
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "nbenv", &mut out);
    super::printer::stdout().write_all(&out)?;
    Ok(())
}
