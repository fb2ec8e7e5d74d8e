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

/// [`interpreters`] as choosing a Python needs them: versions read from the file names where
/// they say it, only the others run; found once per process.
pub fn interpreters_by_name() -> &'static [nbenv::python::Interpreter] {
    nbenv::python::found_by_name()
}

/// uv's and pip's own caches, inside nbenv's cache directory rather than the machine's,
/// unless the user chose theirs: a day of restores grew `~/.cache/uv` to tens of GB, and
/// nbenv's cache is what its budget and `cache prune` look after. Called once, before any
/// thread starts, so that every installer nbenv runs inherits it.
pub fn confine_installer_caches(global: &GlobalArgs) {
    let dir = cache_dir(global);
    let root = std::path::absolute(&dir).unwrap_or(dir);
    for (var, sub) in [("UV_CACHE_DIR", "uv"), ("PIP_CACHE_DIR", "pip")] {
        if std::env::var_os(var).is_none() {
            std::env::set_var(var, root.join(sub));
        }
    }
}

/// One budget for what verification leaves on disk (`NBENV_ENV_CACHE_SIZE`): the environments
/// under `envs` and nbenv's own installer caches (`<cache>/uv`, `<cache>/pip`, the ones
/// [`confine_installer_caches`] chooses); a cache the user chose is not nbenv's to count or
/// prune. uv's cache is pruned and cleaned by the uv that installs (`installer`).
pub fn disk_budget(
    global: &GlobalArgs,
    envs: &std::path::Path,
    installer: &nbenv::python::Installer,
) -> nbenv::verify::DiskBudget {
    let dir = cache_dir(global);
    let root = std::path::absolute(&dir).unwrap_or(dir);
    nbenv::verify::DiskBudget {
        envs: envs.to_path_buf(),
        caches: nbenv::verify::InstallerCache::under(&root),
        bytes: global.env_cache_budget(),
        uv: match installer {
            nbenv::python::Installer::Uv(uv) => Some(uv.clone()),
            nbenv::python::Installer::Pip => None,
        },
        largest_seen: Default::default(),
        reserved: Default::default(),
    }
}

/// The index client, configured by the global options and the environment (checked already).
pub fn index_client(global: &GlobalArgs) -> Result<IndexClient> {
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
            super::printer::say(&format!("nbenv: {line}"));
        }) as nbenv::pypi::EventSink
    });
    IndexClient::new(config, events).context("setting up the index client")
}

/// Where an inference session works, as the global options say.
pub fn session_place(global: &GlobalArgs) -> nbenv::resolve::session::SessionPlace {
    nbenv::resolve::session::SessionPlace {
        bank: super::bank::bank_path(global),
        tools_dir: cache_dir(global).join(TOOLS_DIR),
        installer_index: index_url_if_not_pypi(global),
        offline: global.offline,
        installed: interpreters_by_name().to_vec(),
        lock: super::bank::waiting_lock(),
    }
}

/// The inference session the global options and `options` describe, opened once.
pub fn open_session(
    global: &GlobalArgs,
    options: &nbenv::resolve::options::InferOptions,
) -> Result<nbenv::resolve::session::InferSession> {
    Ok(nbenv::resolve::session::InferSession::open(
        session_place(global),
        index_client(global)?,
        options,
    )?)
}

/// The index installers are given, where it is not PyPI (a private index works for them too).
pub fn index_url_if_not_pypi(global: &GlobalArgs) -> Option<String> {
    (global.index_url() != nbenv::pypi::PYPI_SIMPLE).then(|| global.index_url().to_string())
}

/// nbenv's tools (uv, old virtualenv), kept in `<cache>/tools` and installed from the index
/// nbenv uses, with the newest suitable interpreter among `interpreters`.
/// Where, under the cache directory, nbenv installs the tools it needs (uv, virtualenv).
pub const TOOLS_DIR: &str = "tools";

pub fn tools(
    global: &GlobalArgs,
    interpreters: &[nbenv::python::Interpreter],
) -> nbenv::python::Tools {
    nbenv::python::Tools::new(
        cache_dir(global).join(TOOLS_DIR),
        Some(global.index_url().to_string()),
        interpreters,
    )
}
