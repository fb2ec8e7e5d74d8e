//! Turns the global options into the library objects a subcommand needs.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, Result};
use nbenv::pypi::{HttpEvent, IndexClient, IndexConfig};

use super::args::GlobalArgs;

/// `--cache-dir`, else the user's cache directory, else `.nbenv-cache` here.
pub fn cache_dir(global: &GlobalArgs) -> PathBuf {
    global.cache_dir.clone().unwrap_or_else(|| {
        dirs::cache_dir()
            .map(|d| d.join("nbenv"))
            .unwrap_or_else(|| super::args::absolute(PathBuf::from(".nbenv-cache")))
    })
}

/// The interpreters on this machine, found once per process (each run to read its version):
/// every command, every round of a restore and every notebook of a batch reads the same list.
pub fn interpreters() -> &'static [nbenv::python::Interpreter] {
    nbenv::python::found()
}

/// uv's and pip's own caches, inside nbenv's cache directory (see
/// [`nbenv::commands::GlobalSettings::confine_installer_caches`]).
pub fn confine_installer_caches(global: &GlobalArgs) {
    settings(global).confine_installer_caches();
}

/// One budget for what verification leaves on disk (`NBENV_ENV_CACHE_SIZE`); see
/// [`nbenv::commands::GlobalSettings::disk_budget`].
pub fn disk_budget(
    global: &GlobalArgs,
    envs: &std::path::Path,
    installer: &nbenv::python::Installer,
) -> nbenv::verify::DiskBudget {
    settings(global).disk_budget(envs, installer)
}

/// The global options, the environment and the defaults, resolved into the library's plain
/// settings once per use.
pub fn settings(global: &GlobalArgs) -> nbenv::commands::GlobalSettings {
    let dir = cache_dir(global);
    let cache_dir = std::path::absolute(&dir).unwrap_or(dir);
    nbenv::commands::GlobalSettings {
        bank: super::bank::bank_path(global),
        index: index_config(global),
        events: events(global.verbose),
        bank_lock: super::bank::waiting_lock(),
        env_cache_budget: global.env_cache_budget(),
        cache_dir,
    }
}

/// The index client, configured by the global options and the environment (checked already).
pub fn index_client(global: &GlobalArgs) -> Result<IndexClient> {
    IndexClient::new(index_config(global), events(global.verbose))
        .context("setting up the index client")
}

/// The index's configuration, from the global options and the environment.
fn index_config(global: &GlobalArgs) -> IndexConfig {
    let mut config = IndexConfig::new(global.index_url().to_string(), cache_dir(global));
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

/// The inference session the global options and `options` describe, opened once.
pub fn open_session(
    global: &GlobalArgs,
    options: &nbenv::resolve::options::InferOptions,
) -> Result<nbenv::resolve::session::InferSession> {
    Ok(settings(global).open_session(options)?)
}

/// The index installers are given, where it is not PyPI (a private index works for them too).
pub fn index_url_if_not_pypi(global: &GlobalArgs) -> Option<String> {
    settings(global).index_url_if_not_pypi()
}

pub use nbenv::commands::global::TOOLS_DIR;

/// nbenv's tools (uv, old virtualenv), kept in `<cache>/tools` and installed from the index
/// nbenv uses, with the newest suitable interpreter among `interpreters`.
pub fn tools(
    global: &GlobalArgs,
    interpreters: &[nbenv::python::Interpreter],
) -> nbenv::python::Tools {
    settings(global).tools(interpreters)
}
