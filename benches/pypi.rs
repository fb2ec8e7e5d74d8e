//! Live benchmark of the index client against the real PyPI (run: `scripts/bench-pypi`).
//!
//! 1. Bytes fetched when reading only the `.py` members of three real wheels (pure Python,
//!    pandas, torch), against each wheel's full size; the time to read them cold (network) and
//!    warm (every range in the cache: reading the central directory and inflating only).
//! 2. Time to list the releases of 20 popular projects, cold (empty cache) and warm.

use std::time::Instant;

use nbenv::names::DistName;
use nbenv::pypi::{IndexClient, IndexConfig, PYPI_SIMPLE};
use rayon::prelude::*;

const WHEELS: [(&str, &str); 3] = [
    ("sympy", "sympy-1.12-py3-none-any.whl"),
    (
        "pandas",
        "pandas-2.1.4-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
    ),
    ("torch", "torch-2.1.0-cp311-cp311-manylinux1_x86_64.whl"),
];

const POPULAR: [&str; 20] = [
    "numpy",
    "pandas",
    "scipy",
    "matplotlib",
    "scikit-learn",
    "requests",
    "six",
    "pyyaml",
    "pillow",
    "seaborn",
    "tensorflow",
    "torch",
    "jupyter",
    "ipython",
    "sympy",
    "statsmodels",
    "nltk",
    "opencv-python",
    "plotly",
    "xgboost",
];

fn client_at(cache: &std::path::Path) -> IndexClient {
    IndexClient::new(IndexConfig::new(PYPI_SIMPLE, cache), None).expect("client")
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1 << 20) as f64
}

fn main() {
    let only = std::env::args().nth(1).filter(|a| !a.starts_with('-'));
    if only.as_deref().is_none_or(|o| o == "ranges") {
        println!("== reading only the .py members ==");
        println!(
            "{:<8} {:>10} {:>10} {:>7} {:>5} {:>8} {:>8} {:>9}",
            "wheel", "size MiB", "fetched", "share", "reqs", "members", "cold s", "warm ms"
        );
        for (project, filename) in WHEELS {
            let cache = tempfile::tempdir().unwrap();
            let client = client_at(cache.path());
            let page = client
                .project(&DistName::new(project).unwrap())
                .expect("project page");
            let file = page
                .files
                .iter()
                .find(|f| f.filename == filename)
                .unwrap_or_else(|| panic!("{filename} not on PyPI"));
            let start = Instant::now();
            let contents = client
                .read_archive(file, &|n: &str| n.ends_with(".py"))
                .expect("range read");
            let secs = start.elapsed().as_secs_f64();
            // Warm: a new client on the same cache, best of five, so only reading is timed.
            let warm_ms = (0..5)
                .map(|_| {
                    let warm = client_at(cache.path());
                    let start = Instant::now();
                    let again = warm
                        .read_archive(file, &|n: &str| n.ends_with(".py"))
                        .expect("warm read");
                    assert_eq!(again.transfer.requests, 0, "warm read went to the network");
                    assert_eq!(again.members, contents.members);
                    start.elapsed().as_secs_f64() * 1000.0
                })
                .fold(f64::INFINITY, f64::min);
            let t = contents.transfer;
            println!(
                "{:<8} {:>10.1} {:>10.2} {:>6.1}% {:>5} {:>8} {:>8.2} {:>9.1}",
                project,
                mib(t.archive_size),
                mib(t.bytes_fetched),
                100.0 * t.bytes_fetched as f64 / t.archive_size as f64,
                t.requests,
                contents.members.len(),
                secs,
                warm_ms
            );
        }
    }
    if only.as_deref().is_none_or(|o| o == "releases") {
        println!("\n== listing the releases of {} projects ==", POPULAR.len());
        let cache = tempfile::tempdir().unwrap();
        for round in ["cold", "warm"] {
            let client = client_at(cache.path());
            let start = Instant::now();
            let releases: usize = POPULAR
                .par_iter()
                .map(|p| {
                    client
                        .project(&DistName::new(p).unwrap())
                        .expect("page")
                        .releases()
                        .len()
                })
                .sum();
            let secs = start.elapsed().as_secs_f64();
            println!(
                "{round}: {:.3} s total, {:.1} ms per project, {} releases, {} requests, {:.1} MiB received",
                secs,
                1000.0 * secs / POPULAR.len() as f64,
                releases,
                client.http().requests_sent(),
                mib(client.http().bytes_received()),
            );
        }
    }
}
