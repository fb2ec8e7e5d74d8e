//! Turns the global options into the library objects a subcommand needs.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use nbenv::pypi::{HttpEvent, IndexClient, IndexConfig};

use super::args::GlobalArgs;

/// `--cache-dir`, else the user's cache directory, else `.nbenv-cache` here.
pub fn cache_dir(global: &GlobalArgs) -> PathBuf {
    global.cache_dir.clone().unwrap_or_else(|| {
        dirs::cache_dir()
            .map(|d| d.join("nbenv"))
            .unwrap_or_else(|| PathBuf::from(".nbenv-cache"))
    })
}

fn env_number(name: &str) -> Result<Option<u64>> {
    match std::env::var(name) {
        Ok(v) => {
            Ok(Some(v.trim().parse().with_context(|| {
                format!("{name}={v:?} is not a whole number")
            })?))
        }
        Err(_) => Ok(None),
    }
}

/// The index client, configured by the global options and the `NBENV_HTTP_*` variables.
pub fn index_client(global: &GlobalArgs) -> Result<IndexClient> {
    let mut config = IndexConfig::new(global.index_url.clone(), cache_dir(global));
    config.offline = global.offline;
    if let Some(n) = env_number("NBENV_HTTP_RETRIES")? {
        config.http.retry.retries = n as u32;
    }
    if let Some(secs) = env_number("NBENV_HTTP_TIMEOUT")? {
        config.http.page_timeout = Duration::from_secs(secs);
    }
    if let Some(n) = env_number("NBENV_CONCURRENCY")? {
        config.http.max_concurrency = n.max(1) as usize;
    }
    if let Some(secs) = env_number("NBENV_INDEX_TTL")? {
        config.page_ttl = Duration::from_secs(secs);
    }
    let verbose = global.verbose;
    let events = (verbose > 0).then(|| {
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
            let _ = writeln!(std::io::stderr().lock(), "nbenv: {line}");
        }) as nbenv::pypi::EventSink
    });
    IndexClient::new(config, events).context("setting up the index client")
}
