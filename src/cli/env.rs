//! Environment variables: one table, read and checked once at start-up, before any command runs.
//!
//! nbenv reads them itself instead of through clap's `env`: clap shows an option set from the
//! environment in usage lines as if the user had typed it, and names the flag, not the
//! variable, when the value is bad. Here a bad value is refused with the variable's name and
//! exit code 2, whatever the command.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use super::args::byte_size;
use super::exit::CliError;

/// What a variable holds, which decides how its value is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `1`/`0`, `true`/`false`, `yes`/`no` (any case).
    Bool,
    /// A whole number; `min` is the smallest accepted.
    Number { min: u64 },
    /// A size in bytes, with or without a unit (`2GiB`, `500M`).
    Size,
    /// Free text: a path, a URL or a list, checked where it is used.
    Text,
}

/// One environment variable nbenv reads.
#[derive(Debug, Clone, Copy)]
pub struct Var {
    pub name: &'static str,
    /// The global option it stands for, if any (the option wins when both are given).
    pub option: Option<&'static str>,
    pub kind: Kind,
    pub default: &'static str,
    pub meaning: &'static str,
}

pub const BANK: &str = "NBENV_BANK";
pub const CACHE_DIR: &str = "NBENV_CACHE_DIR";
pub const INDEX_URL: &str = "NBENV_INDEX_URL";
pub const OFFLINE: &str = "NBENV_OFFLINE";
pub const HTTP_RETRIES: &str = "NBENV_HTTP_RETRIES";
pub const HTTP_TIMEOUT: &str = "NBENV_HTTP_TIMEOUT";
pub const DOWNLOAD_TIMEOUT: &str = "NBENV_DOWNLOAD_TIMEOUT";
pub const MAX_PAGE_SIZE: &str = "NBENV_MAX_PAGE_SIZE";
pub const CONCURRENCY: &str = "NBENV_CONCURRENCY";
pub const INDEX_TTL: &str = "NBENV_INDEX_TTL";
pub const CACHE_SIZE: &str = "NBENV_CACHE_SIZE";
pub const MAX_SDIST_SIZE: &str = "NBENV_MAX_SDIST_SIZE";
pub const ENV_CACHE_SIZE: &str = "NBENV_ENV_CACHE_SIZE";

/// Every variable nbenv reads. The configuration table (docs/reference/configuration.md) lists the same (a test checks).
pub const VARS: &[Var] = &[
    Var {
        name: INDEX_URL,
        option: Some("index_url"),
        kind: Kind::Text,
        default: nbenv::pypi::PYPI_SIMPLE,
        meaning: "The simple API root of the index",
    },
    Var {
        name: CACHE_DIR,
        option: Some("cache_dir"),
        kind: Kind::Text,
        default: "~/.cache/nbenv",
        meaning: "HTTP cache",
    },
    Var {
        name: CACHE_SIZE,
        option: Some("cache_size"),
        kind: Kind::Size,
        default: "2GiB",
        meaning: "Archives and byte ranges the cache keeps",
    },
    Var {
        name: BANK,
        option: Some("bank"),
        kind: Kind::Text,
        default: "~/.local/share/nbenv/bank.sqlite3",
        meaning: "The API bank",
    },
    Var {
        name: OFFLINE,
        option: Some("offline"),
        kind: Kind::Bool,
        default: "0",
        meaning: "Use only the cache; never touch the network",
    },
    Var {
        name: HTTP_RETRIES,
        option: None,
        kind: Kind::Number { min: 0 },
        default: "3",
        meaning: "Retries after the first attempt",
    },
    Var {
        name: HTTP_TIMEOUT,
        option: None,
        kind: Kind::Number { min: 1 },
        default: "60",
        meaning: "Seconds allowed for an index page request",
    },
    Var {
        name: DOWNLOAD_TIMEOUT,
        option: None,
        kind: Kind::Number { min: 1 },
        default: "900",
        meaning: "Seconds allowed for an archive download, a byte range or a bank snapshot",
    },
    Var {
        name: MAX_PAGE_SIZE,
        option: None,
        kind: Kind::Size,
        default: "64MiB",
        meaning: "Largest index page or metadata file read; a larger one is refused",
    },
    Var {
        name: CONCURRENCY,
        option: None,
        kind: Kind::Number { min: 1 },
        default: "8",
        meaning: "Requests in flight at once",
    },
    Var {
        name: INDEX_TTL,
        option: None,
        kind: Kind::Number { min: 0 },
        default: "600",
        meaning: "Seconds an index page is used before revalidation",
    },
    Var {
        name: MAX_SDIST_SIZE,
        option: None,
        kind: Kind::Size,
        default: "1GiB",
        meaning: "Largest tarball sdist read; past it the release is skipped",
    },
    Var {
        name: ENV_CACHE_SIZE,
        option: None,
        kind: Kind::Size,
        default: "10GiB",
        meaning: "Built environments `verify` and `restore` keep; least recently used removed first",
    },
    Var {
        name: "NBENV_PYTHON",
        option: None,
        kind: Kind::Text,
        default: "",
        meaning:
            "`:`-separated interpreters for introspection, besides those on `PATH` and pyenv's",
    },
    Var {
        name: "NBENV_UV",
        option: None,
        kind: Kind::Text,
        default: "uv",
        meaning: "The uv binary (else `uv` on `PATH`, else one nbenv installs into its cache); if set and not working, pip is used",
    },
];

/// The checked values of the variables the command line itself uses.
#[derive(Debug, Clone, Default)]
pub struct Env {
    pub bank: Option<PathBuf>,
    pub cache_dir: Option<PathBuf>,
    pub index_url: Option<String>,
    pub offline: bool,
    pub http_retries: Option<u32>,
    pub http_timeout: Option<Duration>,
    pub download_timeout: Option<Duration>,
    pub max_page_size: Option<u64>,
    pub concurrency: Option<usize>,
    pub index_ttl: Option<Duration>,
    pub cache_size: Option<u64>,
    pub max_sdist_size: Option<u64>,
    pub env_cache_size: Option<u64>,
}

impl Env {
    /// Reads and checks every variable of [`VARS`] from the process environment.
    pub fn load() -> Result<Self, CliError> {
        Self::from_lookup(|name| std::env::var_os(name))
    }

    /// Like [`Env::load`] over any lookup, so tests need not touch the process environment.
    pub fn from_lookup(get: impl Fn(&str) -> Option<OsString>) -> Result<Self, CliError> {
        // Empty counts as unset, as shells make it easy to export `X=` to clear a setting.
        let value = |name: &str| -> Result<Option<String>, CliError> {
            match get(name) {
                None => Ok(None),
                Some(v) if v.is_empty() => Ok(None),
                Some(v) => v
                    .into_string()
                    .map(Some)
                    .map_err(|v| CliError::usage(format!("{name}={v:?} is not valid UTF-8"))),
            }
        };
        for var in VARS {
            if let Some(v) = value(var.name)? {
                check(var, &v)?;
            }
        }
        let number = |name: &str| -> Result<Option<u64>, CliError> {
            Ok(value(name)?.map(|v| v.trim().parse().expect("checked above")))
        };
        let path = |name: &str| get(name).filter(|v| !v.is_empty()).map(PathBuf::from);
        let size = |name: &str| -> Result<Option<u64>, CliError> {
            Ok(value(name)?.map(|v| byte_size(&v).expect("checked above")))
        };
        Ok(Self {
            bank: path(BANK),
            cache_dir: path(CACHE_DIR),
            index_url: value(INDEX_URL)?,
            offline: value(OFFLINE)?.is_some_and(|v| parse_bool(&v) == Some(true)),
            http_retries: number(HTTP_RETRIES)?.map(|n| n.min(u64::from(u32::MAX)) as u32),
            http_timeout: number(HTTP_TIMEOUT)?.map(Duration::from_secs),
            download_timeout: number(DOWNLOAD_TIMEOUT)?.map(Duration::from_secs),
            max_page_size: size(MAX_PAGE_SIZE)?,
            concurrency: number(CONCURRENCY)?.map(|n| n as usize),
            index_ttl: number(INDEX_TTL)?.map(Duration::from_secs),
            cache_size: size(CACHE_SIZE)?,
            max_sdist_size: size(MAX_SDIST_SIZE)?,
            env_cache_size: size(ENV_CACHE_SIZE)?,
        })
    }
}

fn check(var: &Var, value: &str) -> Result<(), CliError> {
    let name = var.name;
    match var.kind {
        Kind::Bool if parse_bool(value).is_none() => Err(CliError::usage(format!(
            "{name}={value:?} is not a boolean: use 1 or 0, true or false, yes or no"
        ))),
        Kind::Number { min } => match value.trim().parse::<u64>() {
            Err(_) => Err(CliError::usage(format!(
                "{name}={value:?} is not a whole number"
            ))),
            Ok(n) if n < min => Err(CliError::usage(format!(
                "{name}={value:?} is too small: the least is {min}"
            ))),
            Ok(_) => Ok(()),
        },
        Kind::Size => byte_size(value)
            .map(|_| ())
            .map_err(|e| CliError::usage(format!("{name}={value:?}: {e}"))),
        _ => Ok(()),
    }
}

/// The boolean spellings every environment boolean accepts.
pub fn parse_bool(value: &str) -> Option<bool> {
    match value.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" => Some(true),
        "0" | "false" | "no" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Result<Env, CliError> {
        Env::from_lookup(|name| {
            pairs
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| OsString::from(v))
        })
    }

    #[test]
    fn booleans_take_the_usual_spellings() {
        for (v, expected) in [
            ("1", true),
            ("0", false),
            ("true", true),
            ("FALSE", false),
            ("yes", true),
            ("No", false),
        ] {
            assert_eq!(env(&[(OFFLINE, v)]).unwrap().offline, expected, "{v}");
        }
        let err = env(&[(OFFLINE, "maybe")]).unwrap_err();
        assert_eq!(err.code, super::super::exit::Code::Usage);
        assert!(
            err.to_string().starts_with("NBENV_OFFLINE=\"maybe\""),
            "{err}"
        );
        assert!(!err.to_string().contains("--offline"), "{err}");
    }

    #[test]
    fn numbers_are_checked_with_their_least_value() {
        let e = env(&[(HTTP_TIMEOUT, "abc")]).unwrap_err();
        assert!(e.to_string().contains("NBENV_HTTP_TIMEOUT"), "{e}");
        assert!(env(&[(HTTP_TIMEOUT, "0")]).is_err());
        assert!(env(&[(CONCURRENCY, "0")]).is_err());
        let ok = env(&[(HTTP_RETRIES, "0"), (HTTP_TIMEOUT, " 5 ")]).unwrap();
        assert_eq!(ok.http_retries, Some(0));
        assert_eq!(ok.http_timeout, Some(Duration::from_secs(5)));
        assert_eq!(env(&[(BANK, "")]).unwrap().bank, None);
    }

    #[test]
    fn sizes_are_checked() {
        let ok = env(&[(CACHE_SIZE, "500M"), (MAX_SDIST_SIZE, "0")]).unwrap();
        assert_eq!(ok.cache_size, Some(500 << 20));
        assert_eq!(ok.max_sdist_size, Some(0));
        let e = env(&[(CACHE_SIZE, "big")]).unwrap_err();
        assert_eq!(e.code, super::super::exit::Code::Usage);
        assert!(e.to_string().starts_with("NBENV_CACHE_SIZE=\"big\""), "{e}");
    }
}
