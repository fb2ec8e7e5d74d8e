use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Restore the execution environment of Jupyter notebooks.
#[derive(Debug, Parser)]
#[command(name = "nbenv", version, about, propagate_version = true)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

/// Options every subcommand accepts.
#[derive(Debug, Clone, Args)]
pub struct GlobalArgs {
    /// The API bank (SQLite). Default: `<data dir>/nbenv/bank.sqlite3`.
    #[arg(long, global = true, env = "NBENV_BANK", value_name = "PATH")]
    pub bank: Option<PathBuf>,
    /// Where downloaded index pages and files are cached. Default: `<cache dir>/nbenv`.
    #[arg(long, global = true, env = "NBENV_CACHE_DIR", value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,
    /// The package index's simple API (PEP 691 JSON or PEP 503 HTML).
    #[arg(
        long,
        global = true,
        env = "NBENV_INDEX_URL",
        value_name = "URL",
        default_value = "https://pypi.org/simple/"
    )]
    pub index_url: String,
    /// Use only the cache; fail instead of touching the network.
    #[arg(long, global = true, env = "NBENV_OFFLINE")]
    pub offline: bool,
    /// Print only results and errors.
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Print what nbenv fetches and retries (repeat for more).
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    /// Never draw progress bars.
    #[arg(long, global = true)]
    pub no_progress: bool,
}

/// How structured results are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum Format {
    #[default]
    Text,
    Json,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Show the environment evidence in a notebook: imports, APIs, installs, Python version.
    Usage(super::usage::UsageArgs),
    /// Build and query the API bank.
    Bank(super::bank::BankArgs),
    /// Look at what the package index says about a project.
    Index(super::index::IndexArgs),
}
