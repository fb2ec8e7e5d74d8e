//! Turns the global options into the library objects a subcommand needs, once: [`Global`].

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, Result};
use nbenv::pypi::{HttpEvent, IndexClient, IndexConfig};

use super::args::GlobalArgs;
use super::printer::Printer;

/// The global options resolved once, at the edge: the library's settings and how this
/// process prints. Every command takes this, never the parsed arguments.
#[derive(Clone)]
pub struct Global {
    pub settings: nbenv::commands::GlobalSettings,
    pub printer: Printer,
}

impl Global {
    pub fn of(args: &GlobalArgs) -> Self {
        Self {
            settings: settings(args),
            printer: Printer::of(args),
        }
    }

    pub fn offline(&self) -> bool {
        self.settings.offline()
    }

    pub fn cache_dir(&self) -> PathBuf {
        self.settings.cache_dir.clone()
    }

    pub fn bank(&self) -> PathBuf {
        self.settings.bank.clone()
    }

    /// What the index cache may keep (`--cache-size`).
    pub fn cache_budget(&self) -> u64 {
        self.settings.index.cache_budget
    }

    pub fn index_client(&self) -> Result<IndexClient> {
        self.settings
            .index_client()
            .context("setting up the index client")
    }
}

/// `--cache-dir`, else the user's cache directory, else `.nbenv-cache` here.
fn cache_dir(global: &GlobalArgs) -> PathBuf {
    global.cache_dir.clone().unwrap_or_else(|| {
        dirs::cache_dir()
            .map(|d| d.join("nbenv"))
            .unwrap_or_else(|| super::args::absolute(PathBuf::from(".nbenv-cache")))
    })
}

/// `--bank`, else `<data dir>/nbenv/bank.sqlite3`.
fn bank_path(global: &GlobalArgs) -> PathBuf {
    global.bank.clone().unwrap_or_else(|| {
        dirs::data_dir()
            .map(|d| d.join("nbenv"))
            .unwrap_or_else(|| super::args::absolute(PathBuf::from(".nbenv")))
            .join("bank.sqlite3")
    })
}

/// The interpreters on this machine, found once per process (each run to read its version):
/// every command, every round of a restore and every notebook of a batch reads the same list.
pub fn interpreters() -> &'static [nbenv::python::Interpreter] {
    nbenv::python::found()
}

/// The global options, the environment and the defaults, resolved into the library's plain
/// settings.
fn settings(global: &GlobalArgs) -> nbenv::commands::GlobalSettings {
    let dir = cache_dir(global);
    nbenv::commands::GlobalSettings {
        bank: bank_path(global),
        index: index_config(global, dir.clone()),
        events: events(global.verbose),
        bank_lock: super::bank::waiting_lock(),
        env_cache_budget: global.env_cache_budget(),
        cache_dir: std::path::absolute(&dir).unwrap_or(dir),
    }
}

/// The index's configuration, from the global options and the environment.
fn index_config(global: &GlobalArgs, cache_dir: PathBuf) -> IndexConfig {
    let mut config = IndexConfig::new(global.index_url().to_string(), cache_dir);
    config.offline = global.offline;
    config.cache_budget = global.cache_budget();
    let env = &global.env;
    if let Some(max) = env.max_sdist_size {
        config.limits.max_streamed_size = max;
    }
    if let Some(n) = env.http_retries {
        config.http.retry.retries = n;
    }
    if let Some(timeout) = env.http_timeout {
        config.http.page_timeout = timeout;
    }
    if let Some(timeout) = env.download_timeout {
        config.http.file_timeout = timeout;
    }
    if let Some(max) = env.max_page_size {
        config.http.max_page_body = max;
    }
    if let Some(n) = env.concurrency {
        config.http.max_concurrency = n;
    }
    if let Some(ttl) = env.index_ttl {
        config.page_ttl = ttl;
    }
    config
}

/// With `-v`, each request and retry said on stderr (with `-vv`, cache hits too).
fn events(verbose: u8) -> Option<nbenv::pypi::EventSink> {
    (verbose > 0).then(|| {
        Arc::new(move |event: &HttpEvent<'_>| {
            let line = match event {
                HttpEvent::Request { url, range } => match range {
                    Some(r) => format!("GET {url} ({r})"),
                    None => format!("GET {url}"),
                },
                HttpEvent::Retry {
                    url,
                    attempt,
                    delay,
                    cause,
                } => format!(
                    "retry {attempt} of {url} in {:.1}s: {cause}",
                    delay.as_secs_f64()
                ),
                HttpEvent::CacheHit { url } if verbose > 1 => format!("cached {url}"),
                HttpEvent::NotModified { url } if verbose > 1 => format!("not modified {url}"),
                _ => return,
            };
            super::printer::say(&format!("nbenv: {line}"));
        }) as nbenv::pypi::EventSink
    })
}
