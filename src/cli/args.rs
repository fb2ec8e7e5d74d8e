//! The arguments every command shares, and the conventions they follow: global options under
//! their own heading, environment variables read by [`super::env`], `--format` per command,
//! counts that must be positive.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use nbenv::notebook::KNOWN_VERSIONS;
use nbenv::python::PythonVersion;
use nbenv::resolve::options::{DateCap, EraChoice, Introspect, Sdists};

use super::env::{self, Env};
use super::exit::{CliError, Code};

/// Restore the execution environment of Jupyter notebooks.
#[derive(Debug, Parser)]
#[command(name = "nbenv", version, about, propagate_version = true)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

const GLOBAL: &str = "Global options";

/// Options every command accepts. Those an environment variable can set are filled in from
/// it by [`parse`] when not given.
#[derive(Debug, Clone, Default, Args)]
pub struct GlobalArgs {
    /// The API bank (an SQLite file). Default: `<data dir>/nbenv/bank.sqlite3`.
    #[arg(long, global = true, value_name = "PATH", help_heading = GLOBAL)]
    pub bank: Option<PathBuf>,
    /// Where downloaded index pages and files are cached. Default: `<cache dir>/nbenv`.
    #[arg(long, global = true, value_name = "DIR", help_heading = GLOBAL)]
    pub cache_dir: Option<PathBuf>,
    /// How much the cache may keep of archives and byte ranges (least recently used go
    /// first), e.g. `2GiB`, `500M`; 0 keeps none. Default: 2GiB.
    #[arg(long, global = true, value_name = "SIZE", value_parser = byte_size, help_heading = GLOBAL)]
    pub cache_size: Option<u64>,
    /// The package index's simple API (PEP 691 JSON or PEP 503 HTML). Default:
    /// https://pypi.org/simple/.
    #[arg(long, global = true, value_name = "URL", help_heading = GLOBAL)]
    pub index_url: Option<String>,
    /// Use only the cache; fail instead of touching the network.
    #[arg(long, global = true, help_heading = GLOBAL)]
    pub offline: bool,
    /// Print only results and the summary: no progress, no notes.
    #[arg(short, long, global = true, conflicts_with = "verbose", help_heading = GLOBAL)]
    pub quiet: bool,
    /// Print what nbenv fetches and retries (repeat for cache hits too).
    #[arg(short, long, global = true, action = clap::ArgAction::Count, help_heading = GLOBAL)]
    pub verbose: u8,
    /// Never draw progress bars.
    #[arg(long, global = true, help_heading = GLOBAL)]
    pub no_progress: bool,
    /// At the end, print where the time went, stage by stage (index pages, byte ranges,
    /// parsing, the flow, bank writes, the writer lock, introspection, the solver).
    #[arg(long, global = true, help_heading = GLOBAL)]
    pub timings: bool,
    /// The environment's settings, checked.
    #[arg(skip)]
    pub env: Env,
}

impl GlobalArgs {
    /// `--index-url`, else `NBENV_INDEX_URL`, else PyPI.
    pub fn index_url(&self) -> &str {
        self.index_url
            .as_deref()
            .unwrap_or(nbenv::pypi::PYPI_SIMPLE)
    }

    /// `--cache-size`, else `NBENV_CACHE_SIZE`, else 2 GiB.
    pub fn cache_budget(&self) -> u64 {
        self.cache_size.unwrap_or(nbenv::pypi::DEFAULT_CACHE_BUDGET)
    }

    /// `NBENV_ENV_CACHE_SIZE`, else 10 GiB: what built environments may hold.
    pub fn env_cache_budget(&self) -> u64 {
        self.env.env_cache_size.unwrap_or(10 << 30)
    }

    /// Options win over the environment. The bank and the cache directory are made absolute
    /// here, once: they are handed to processes started elsewhere (the notebook runs in its
    /// own directory) and reported, and a relative path would mean another place there.
    fn apply(&mut self, env: Env) {
        self.bank = self.bank.take().or_else(|| env.bank.clone()).map(absolute);
        self.cache_dir = self
            .cache_dir
            .take()
            .or_else(|| env.cache_dir.clone())
            .map(absolute);
        self.cache_size = self.cache_size.or(env.cache_size);
        self.index_url = self.index_url.take().or_else(|| env.index_url.clone());
        self.offline |= env.offline;
        self.env = env;
    }
}

/// `path` from the current directory; as given when there is no current directory to read.
pub fn absolute(path: PathBuf) -> PathBuf {
    std::path::absolute(&path).unwrap_or(path)
}

/// How a command prints its result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum Format {
    /// For people: aligned columns and sentences.
    #[default]
    Text,
    /// For programs: one JSON document, `schema_version` first.
    Json,
}

/// `--format`, the same for every command that prints a result.
#[derive(Debug, Clone, Copy, Args)]
pub struct FormatArg {
    /// How to print the result.
    #[arg(long, value_enum, default_value_t, value_name = "FORMAT")]
    pub format: Format,
}

/// A count that must be at least 1 (`--jobs`, `--latest`).
pub fn positive(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(0) => Err("must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("`{s}` is not a whole number")),
    }
}

/// A size in bytes: a whole number, or a number with a unit (`K`, `M`, `G`, `T`, with or
/// without `B` or `iB`; all powers of 1024, since that is what disks and `du -h` show).
pub fn byte_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        _ => {
            return Err(format!(
                "`{s}` is not a size: use bytes, or a unit K, M, G or T"
            ))
        }
    };
    let value: f64 = number
        .parse()
        .map_err(|_| format!("`{s}` is not a size: use bytes, or a unit K, M, G or T"))?;
    let bytes = value * (1u64 << shift) as f64;
    if !bytes.is_finite() || bytes >= u64::MAX as f64 {
        return Err(format!("`{s}` is too large"));
    }
    Ok(bytes as u64)
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// The packages, versions and Python a notebook needs, as pinned requirements with the
    /// evidence behind each pin.
    Infer(super::infer::InferArgs),
    /// Show the environment evidence in a notebook: imports, APIs, installs, Python version.
    Usage(super::usage::UsageArgs),
    /// Build an environment from requirements, run the notebook in it, and say how far it got
    /// and why it stopped.
    Verify(super::verify::VerifyArgs),
    /// Infer, build the environment, run the notebook; when it stops at an environment
    /// error, learn from it and go again.
    Restore(super::restore::RestoreArgs),
    /// Move an old notebook's code to today's APIs where the bank proves where they went;
    /// write the modernized notebook beside it and print the diff and the evidence.
    Modernize(super::modernize::ModernizeArgs),
    /// Measure many notebooks on worker threads, one JSONL record each: triage, inferred
    /// environment; resumable, shardable across machines.
    Batch(super::batch::BatchArgs),
    /// Tables over batch records (shards merged): outcomes, triage, executability, error
    /// types, needed distributions, failing releases.
    Report(super::report::ReportArgs),
    /// Build and query the API bank.
    Bank(super::bank::BankArgs),
    /// Look at what the package index says about a project.
    Index(super::index::IndexArgs),
    /// Show and clean what nbenv keeps on disk: archives, ranges, summaries, scratch venvs.
    Cache(super::cache::CacheArgs),
    /// Print a shell completion script (see the README for where to put it).
    Completions(super::completions::CompletionsArgs),
}

/// The command-line definition, with each environment variable named in its option's help
/// and all of them listed under `nbenv --help`.
pub fn command() -> clap::Command {
    let mut cmd = Cli::command();
    for var in env::VARS {
        if let Some(id) = var.option {
            cmd = cmd.mut_arg(id, |arg| {
                let help = arg.get_help().map(ToString::to_string).unwrap_or_default();
                arg.help(format!("{help} [env: {}]", var.name))
            });
        }
    }
    let mut listing = String::from("Environment variables:\n");
    for var in env::VARS {
        let default = if var.default.is_empty() {
            String::new()
        } else {
            format!(" [default: {}]", var.default)
        };
        listing.push_str(&format!(
            "  {:<20} {}{default}\n",
            var.name,
            var.meaning.replace('`', "")
        ));
    }
    listing.push_str("\nBooleans take 1 or 0, true or false, yes or no.\n\nExit codes:\n");
    for code in Code::ALL {
        let meaning = code.meaning().replace('`', "");
        listing.push_str(&format!("  {:<4} {meaning}\n", code.value()));
    }
    cmd.after_long_help(listing.trim_end().to_string())
}

/// Parses the command line and the environment. Bad arguments exit at once with clap's
/// message and code 2; bad environment values come back as a usage error (code 2 too).
pub fn parse() -> Result<Cli, CliError> {
    parse_from(std::env::args_os(), Env::load)
}

fn parse_from(
    args: impl IntoIterator<Item = impl Into<OsString> + Clone>,
    load_env: impl FnOnce() -> Result<Env, CliError>,
) -> Result<Cli, CliError> {
    let matches = command().get_matches_from(args);
    let mut cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    cli.global.apply(load_env()?);
    Ok(cli)
}

/// A version nbenv has a standard-library list for; any other would silently count every
/// stdlib module as third-party.
pub fn parse_python(s: &str) -> Result<PythonVersion, String> {
    let known: Vec<String> = KNOWN_VERSIONS.iter().map(ToString::to_string).collect();
    let known = known.join(", ");
    let v = PythonVersion::parse(s.trim())
        .filter(|_| s.trim().split('.').count() == 2)
        .ok_or_else(|| format!("`{s}` is not a Python version like 3.8 (known: {known})"))?;
    if !KNOWN_VERSIONS.contains(&v) {
        return Err(format!(
            "nbenv has no standard-library list for Python {v} (known: {known})"
        ));
    }
    Ok(v)
}

pub fn parse_date(s: &str) -> Result<jiff::Timestamp, String> {
    let t = s.trim();
    if let Ok(ts) = t.parse::<jiff::Timestamp>() {
        return Ok(ts);
    }
    t.parse::<jiff::civil::Date>()
        .ok()
        .and_then(|d| d.to_zoned(jiff::tz::TimeZone::UTC).ok())
        .map(|z| z.timestamp())
        .ok_or_else(|| format!("`{s}` is not a date like 2019-06-30"))
}

/// `--exclude-newer DATE`.
pub fn date_cap(exclude_newer: Option<jiff::Timestamp>) -> DateCap {
    exclude_newer.map_or(DateCap::None, DateCap::Before)
}

/// `--date auto|DATE|none`.
pub fn parse_era(s: &str) -> Result<EraChoice, String> {
    match s.trim() {
        "auto" => Ok(EraChoice::Auto),
        "none" => Ok(EraChoice::Off),
        date => parse_date(date).map(EraChoice::At),
    }
}

/// `--allow-sdist` or `--wheels-only` (which clap keeps apart).
pub fn sdists(allow_sdist: bool, wheels_only: bool) -> Sdists {
    if allow_sdist {
        Sdists::Allowed
    } else if wheels_only {
        Sdists::Never
    } else {
        Sdists::AsFallback
    }
}

/// `--no-introspect`, or `--introspect-budget SECS`.
pub fn introspect(no_introspect: bool, budget: u64) -> Introspect {
    if no_introspect {
        Introspect::Never
    } else {
        Introspect::Within(std::time::Duration::from_secs(budget))
    }
}

/// `--sandbox`, shared by `verify` and `restore`.
#[derive(Debug, Clone, Copy, Args)]
pub struct SandboxArg {
    /// Run the notebook confined: no network (a network namespace of its own), limits on
    /// memory (16 GiB of address space), CPU time (the run's limit), file size (4 GiB) and
    /// processes, a temporary HOME, none of your environment variables. Refused (exit 23)
    /// where the system allows no network namespace.
    #[arg(long)]
    pub sandbox: bool,
}

impl SandboxArg {
    /// Refuses before anything is built when the sandbox cannot be had here.
    pub fn check(&self) -> anyhow::Result<()> {
        if self.sandbox {
            if let nbenv::verify::sandbox::ProcessLimit::RlimitOnly { reason } =
                nbenv::verify::sandbox::check()?
            {
                super::printer::note(&format!(
                    "--sandbox: no cgroup for the runs' processes here ({reason}); \
                     RLIMIT_NPROC alone bounds them, and it does not bind root"
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_is_consistent() {
        command().debug_assert();
    }

    /// Every argument and option of every command says what it is for.
    #[test]
    fn every_argument_is_described() {
        fn walk(cmd: &clap::Command, path: &str, missing: &mut Vec<String>) {
            for arg in cmd.get_arguments() {
                let id = arg.get_id().as_str();
                if matches!(id, "help" | "version") {
                    continue;
                }
                if arg.get_help().is_none() && arg.get_long_help().is_none() {
                    missing.push(format!("{path} {id}"));
                }
            }
            for sub in cmd.get_subcommands() {
                if sub.get_about().is_none() && sub.get_name() != "help" {
                    missing.push(format!("{path} {}", sub.get_name()));
                }
                walk(sub, &format!("{path} {}", sub.get_name()), missing);
            }
        }
        let mut cmd = command();
        cmd.build();
        let mut missing = Vec::new();
        walk(&cmd, "nbenv", &mut missing);
        assert!(missing.is_empty(), "undescribed: {missing:?}");
    }

    /// The reference's tables of exit codes and environment variables are these tables.
    #[test]
    fn the_reference_tables_match() {
        let readme = concat!(
            include_str!("../../docs/reference/exit-codes.md"),
            include_str!("../../docs/reference/configuration.md")
        );
        let rows = |header: &str| -> Vec<String> {
            let start = readme.find(header).unwrap_or_else(|| panic!("{header}"));
            readme[start..]
                .lines()
                .skip(2)
                .take_while(|l| l.starts_with('|'))
                .map(|l| l.split('|').nth(1).unwrap_or("").trim().to_string())
                .collect()
        };
        let codes: Vec<String> = Code::ALL.iter().map(|c| c.value().to_string()).collect();
        assert_eq!(rows("| Code | Meaning |"), codes);
        let mut documented: Vec<String> = readme
            .lines()
            .filter(|l| l.starts_with('|'))
            .filter_map(|l| l.split('|').nth(2))
            .filter_map(|c| {
                c.trim()
                    .strip_prefix('`')?
                    .strip_suffix('`')
                    .map(String::from)
            })
            .filter(|c| c.starts_with("NBENV_"))
            .collect();
        documented.sort();
        let mut vars: Vec<String> = env::VARS.iter().map(|v| v.name.to_string()).collect();
        vars.sort();
        assert_eq!(documented, vars);
    }

    #[test]
    fn options_win_over_the_environment() {
        let env = || {
            Ok(Env {
                bank: Some("env.sqlite3".into()),
                index_url: Some("http://env/simple/".into()),
                offline: true,
                ..Env::default()
            })
        };
        let cli = parse_from(["nbenv", "--bank", "flag.sqlite3", "bank", "stats"], env).unwrap();
        let here = std::env::current_dir().unwrap();
        assert_eq!(cli.global.bank, Some(here.join("flag.sqlite3")));
        assert_eq!(cli.global.index_url(), "http://env/simple/");
        assert!(cli.global.offline);
    }

    /// Relative paths mean the current directory, whether given as options or variables.
    #[test]
    fn the_bank_and_the_cache_directory_are_made_absolute() {
        let here = std::env::current_dir().unwrap();
        let env = || {
            Ok(Env {
                bank: Some("b/bank.sqlite3".into()),
                cache_dir: Some("c".into()),
                ..Env::default()
            })
        };
        let cli = parse_from(["nbenv", "bank", "stats"], env).unwrap();
        assert_eq!(cli.global.bank, Some(here.join("b/bank.sqlite3")));
        assert_eq!(cli.global.cache_dir, Some(here.join("c")));
        let cli = parse_from(["nbenv", "--cache-dir", "d", "bank", "stats"], env).unwrap();
        assert_eq!(cli.global.cache_dir, Some(here.join("d")));
        let cli = parse_from(
            ["nbenv", "--bank", "/abs/bank.sqlite3", "bank", "stats"],
            env,
        )
        .unwrap();
        assert_eq!(cli.global.bank, Some(PathBuf::from("/abs/bank.sqlite3")));
    }

    #[test]
    fn sizes_take_units() {
        assert_eq!(byte_size("0"), Ok(0));
        assert_eq!(byte_size("1048576"), Ok(1 << 20));
        assert_eq!(byte_size("2GiB"), Ok(2 << 30));
        assert_eq!(byte_size("2 g"), Ok(2 << 30));
        assert_eq!(byte_size("500M"), Ok(500 << 20));
        assert_eq!(byte_size("1.5KB"), Ok(1536));
        assert!(byte_size("2 GB of disk").is_err());
        assert!(byte_size("lots").is_err());
        assert!(byte_size("-1G").is_err());
        assert!(byte_size("99999999T").is_err());
    }

    #[test]
    fn counts_are_positive() {
        assert_eq!(positive("3"), Ok(3));
        assert!(positive("0").is_err());
        assert!(positive("-1").is_err());
    }
}
