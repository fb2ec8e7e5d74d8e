//! Extraction and import-flow speed on a real local corpus (nothing is committed).
//!
//! Corpus: the Python standard library of an installed interpreter, read as one release, and
//! every distribution installed in its `site-packages` and in any further directories given
//! (each read as one release from its RECORD; unpacked wheels work too).
//! Run through `scripts/bench-extract [STDLIB_DIR [SITE_DIR...]]`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use nbenv::bank::extract::{summarize_bytes, ArchiveKind, FileSummary, Record, ReleaseLayout};
use nbenv::bank::flow::{analyze, analyze_with, FlowOptions, ReleaseApis, ReleaseInput};
use rayon::prelude::*;
use ruff_python_ast::PySourceType;

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let stdlib = args.first().map(PathBuf::from).unwrap_or_else(|| {
        let home = std::env::var("HOME").unwrap_or_else(|_| "/root".into());
        PathBuf::from(home).join(".pyenv/versions/3.11.7/lib/python3.11")
    });
    if !stdlib.is_dir() {
        eprintln!("bench-extract: {} is not a directory", stdlib.display());
        std::process::exit(2);
    }
    println!("corpus: {}", stdlib.display());
    stdlib_release(&stdlib);
    let mut sites = vec![stdlib.join("site-packages")];
    sites.extend(args.iter().skip(1).map(PathBuf::from));
    sites.retain(|s| s.is_dir());
    installed_releases(&sites);
}

struct File {
    rel: String,
    bytes: Vec<u8>,
}

fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name == "__pycache__" || name == "site-packages" {
            continue;
        }
        if path.is_dir() {
            walk(root, &path, out);
        } else if let Ok(rel) = path.strip_prefix(root) {
            out.push(rel.to_string_lossy().replace('\\', "/"));
        }
    }
}

fn is_source(path: &str) -> bool {
    path.ends_with(".py") || path.ends_with(".pyi")
}

fn mb(bytes: usize) -> f64 {
    bytes as f64 / 1e6
}

fn per_sec(n: f64, d: Duration) -> f64 {
    n / d.as_secs_f64()
}

fn best_of<T>(runs: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut best = Duration::MAX;
    let mut out = None;
    for _ in 0..runs {
        let t = Instant::now();
        let r = f();
        best = best.min(t.elapsed());
        out = Some(r);
    }
    (best, out.expect("at least one run"))
}

fn stdlib_release(root: &Path) {
    let mut paths = Vec::new();
    walk(root, root, &mut paths);
    paths.sort();
    // Compiled stdlib modules live in lib-dynload/; an installed tree would have them at the root.
    let archive_paths: Vec<String> = paths
        .iter()
        .map(|p| p.strip_prefix("lib-dynload/").unwrap_or(p).to_string())
        .collect();
    let files: Vec<File> = paths
        .iter()
        .zip(&archive_paths)
        .filter(|(p, _)| is_source(p))
        .filter_map(|(p, a)| {
            Some(File {
                rel: a.clone(),
                bytes: std::fs::read(root.join(p)).ok()?,
            })
        })
        .collect();
    let total: usize = files.iter().map(|f| f.bytes.len()).sum();
    println!(
        "\n== stdlib as one release: {} source files, {:.1} MB (tests included) ==",
        files.len(),
        mb(total)
    );

    let (parse_only, _) = best_of(3, || {
        for f in &files {
            let text = String::from_utf8_lossy(&f.bytes);
            let ty = if f.rel.ends_with(".pyi") {
                PySourceType::Stub
            } else {
                PySourceType::Python
            };
            std::hint::black_box(ruff_python_parser::parse_unchecked_source(&text, ty));
        }
    });
    let (one_core, summaries) = best_of(3, || {
        files
            .iter()
            .map(|f| summarize_bytes(&f.bytes, f.rel.ends_with(".pyi")))
            .collect::<Vec<FileSummary>>()
    });
    let (all_cores, _) = best_of(3, || {
        files
            .par_iter()
            .map(|f| summarize_bytes(&f.bytes, f.rel.ends_with(".pyi")))
            .collect::<Vec<FileSummary>>()
    });
    let n = files.len() as f64;
    println!(
        "parse only (ruff, 1 core): {:>7.1} MB/s {:>8.0} files/s",
        per_sec(mb(total), parse_only),
        per_sec(n, parse_only)
    );
    println!(
        "summarize  (1 core):       {:>7.1} MB/s {:>8.0} files/s  ({:.2}x parse-only time)",
        per_sec(mb(total), one_core),
        per_sec(n, one_core),
        one_core.as_secs_f64() / parse_only.as_secs_f64()
    );
    println!(
        "summarize  ({} threads):    {:>7.1} MB/s {:>8.0} files/s",
        rayon::current_num_threads(),
        per_sec(mb(total), all_cores),
        per_sec(n, all_cores)
    );
    let with_errors = summaries.iter().filter(|s| s.parse_errors > 0).count();
    println!(
        "files with syntax errors: {with_errors} ({:.2}%)",
        100.0 * with_errors as f64 / n
    );

    let (encode, encoded) = best_of(3, || {
        summaries
            .iter()
            .map(|s| serde_json::to_vec(s).expect("summaries serialize"))
            .collect::<Vec<Vec<u8>>>()
    });
    let encoded_total: usize = encoded.iter().map(Vec::len).sum();
    let (decode, _) = best_of(3, || {
        encoded
            .iter()
            .map(|b| serde_json::from_slice::<FileSummary>(b).expect("summaries deserialize"))
            .collect::<Vec<FileSummary>>()
    });
    println!(
        "summary JSON: {:.2} MB = {:.1}% of source ({:.0} bytes/file); encode {:.0} files/s, decode {:.0} files/s ({:.1}x faster than parsing)",
        mb(encoded_total),
        100.0 * encoded_total as f64 / total as f64,
        encoded_total as f64 / n,
        per_sec(n, encode),
        per_sec(n, decode),
        one_core.as_secs_f64() / decode.as_secs_f64()
    );

    let by_path: HashMap<&str, &FileSummary> = files
        .iter()
        .zip(&summaries)
        .map(|(f, s)| (f.rel.as_str(), s))
        .collect();
    let layout = ReleaseLayout::new(ArchiveKind::Wheel, archive_paths.iter().map(String::as_str));
    let (flow, apis) = best_of(5, || {
        let input = ReleaseInput::from_layout(&layout, |p| by_path.get(p).copied());
        analyze(&input)
    });
    report_release("stdlib", flow, &apis);
}

fn report_release(name: &str, flow: Duration, apis: &ReleaseApis) {
    let public = apis.public_apis().count();
    let aliases = apis.public_apis().filter(|e| e.canonical.is_some()).count();
    let externals = apis.apis.iter().filter(|e| e.external.is_some()).count();
    println!(
        "flow {name}: {:.1} ms for {} modules ({:.1} µs/module), {:.2} visits/module, converged={}; {} public APIs ({} aliases), {} private entries, {} external refs",
        flow.as_secs_f64() * 1e3,
        apis.stats.modules,
        flow.as_secs_f64() * 1e6 / apis.stats.modules.max(1) as f64,
        apis.stats.module_visits as f64 / apis.stats.modules.max(1) as f64,
        apis.stats.converged,
        public,
        aliases,
        apis.apis.len() - public,
        externals
    );
}

fn installed_releases(sites: &[PathBuf]) {
    let mut records: Vec<(PathBuf, PathBuf)> = Vec::new();
    for site in sites {
        let Ok(entries) = std::fs::read_dir(site) else {
            continue;
        };
        records.extend(
            entries
                .flatten()
                .map(|e| e.path().join("RECORD"))
                .filter(|p| p.is_file())
                .map(|p| (site.clone(), p)),
        );
    }
    // By dist-info directory name, so that releases of a distribution come in version order
    // (for the versions used here).
    records.sort_by_key(|(_, r)| {
        r.parent()
            .and_then(|p| p.file_name())
            .map(|n| n.to_os_string())
    });
    // Source files already seen (by RECORD sha256) in an earlier release: the store's cache
    // would neither download nor parse them again.
    let mut seen_hashes = std::collections::HashSet::new();
    let (mut hashed_sources, mut repeated_sources) = (0usize, 0usize);
    struct Row {
        name: String,
        files: usize,
        bytes: usize,
        parse: Duration,
        summarize: Duration,
        flow: Duration,
        apis: ReleaseApis,
        expanded: usize,
        /// Source files whose sha256 an earlier release already had.
        seen: usize,
    }
    let mut rows = Vec::new();
    for (site, record_path) in &records {
        let site = site.as_path();
        let Ok(text) = std::fs::read_to_string(record_path) else {
            continue;
        };
        let record = Record::parse(&text);
        let hashes: HashMap<&str, _> = record
            .entries
            .iter()
            .filter_map(|e| Some((e.path.as_str(), e.sha256?)))
            .collect();
        let paths: Vec<&str> = record.entries.iter().map(|e| e.path.as_str()).collect();
        let layout = ReleaseLayout::new(ArchiveKind::Wheel, paths.iter().copied());
        let sources: Vec<(String, Vec<u8>, bool)> = layout
            .sources()
            .filter_map(|(_, path, is_stub)| {
                Some((
                    path.to_string(),
                    std::fs::read(site.join(path)).ok()?,
                    is_stub,
                ))
            })
            .collect();
        if sources.is_empty() {
            continue;
        }
        let mut seen = 0;
        for (path, _, _) in &sources {
            if let Some(h) = hashes.get(path.as_str()) {
                hashed_sources += 1;
                if !seen_hashes.insert(*h) {
                    seen += 1;
                }
            }
        }
        repeated_sources += seen;
        let bytes = sources.iter().map(|s| s.1.len()).sum();
        let t = Instant::now();
        for (_, b, stub) in &sources {
            let text = String::from_utf8_lossy(b);
            let ty = if *stub {
                PySourceType::Stub
            } else {
                PySourceType::Python
            };
            std::hint::black_box(ruff_python_parser::parse_unchecked_source(&text, ty));
        }
        let parse = t.elapsed();
        let t = Instant::now();
        let summaries: HashMap<&str, FileSummary> = sources
            .iter()
            .map(|(p, b, stub)| (p.as_str(), summarize_bytes(b, *stub)))
            .collect();
        let summarize = t.elapsed();
        let (flow, apis) = best_of(3, || {
            let input = ReleaseInput::from_layout(&layout, |p| summaries.get(p));
            analyze(&input)
        });
        let expanded = {
            let input = ReleaseInput::from_layout(&layout, |p| summaries.get(p));
            let options = FlowOptions {
                members_through_aliases: true,
                inherited_members: true,
            };
            analyze_with(&input, &options).apis.len()
        };
        let name = record_path
            .parent()
            .and_then(|p| p.file_name())
            .map(|n| {
                n.to_string_lossy()
                    .trim_end_matches(".dist-info")
                    .to_string()
            })
            .unwrap_or_default();
        rows.push(Row {
            name,
            files: sources.len(),
            bytes,
            parse,
            summarize,
            expanded,
            seen,
            flow,
            apis,
        });
    }
    let files: usize = rows.iter().map(|r| r.files).sum();
    let bytes: usize = rows.iter().map(|r| r.bytes).sum();
    let summarize: Duration = rows.iter().map(|r| r.summarize).sum();
    let parse: Duration = rows.iter().map(|r| r.parse).sum();
    let entries: usize = rows.iter().map(|r| r.apis.apis.len()).sum();
    let expanded: usize = rows.iter().map(|r| r.expanded).sum();
    let flow: Duration = rows.iter().map(|r| r.flow).sum();
    let apis: usize = rows.iter().map(|r| r.apis.public_apis().count()).sum();
    let not_converged = rows.iter().filter(|r| !r.apis.stats.converged).count();
    println!(
        "\n== site-packages: {} installed releases (from RECORD), {} source files, {:.1} MB ==",
        rows.len(),
        files,
        mb(bytes)
    );
    println!(
        "parse only {:.1} MB/s; summarize {:.1} MB/s; flow {:.2} ms/release mean, {:.1}% of summarize time; {} public APIs; {} releases not converged",
        per_sec(mb(bytes), parse),
        per_sec(mb(bytes), summarize),
        flow.as_secs_f64() * 1e3 / rows.len().max(1) as f64,
        100.0 * flow.as_secs_f64() / summarize.as_secs_f64(),
        apis,
        not_converged
    );
    println!(
        "source files already seen by sha256 in an earlier release (name order): {repeated_sources} of {hashed_sources} ({:.1}%)",
        100.0 * repeated_sources as f64 / hashed_sources.max(1) as f64
    );
    println!(
        "entries (public + private canonicals): {entries}; with inherited members and members through every class alias listed: {expanded} ({:.1}x)",
        expanded as f64 / entries.max(1) as f64
    );
    rows.sort_by_key(|r| std::cmp::Reverse(r.bytes));
    let named: Vec<&Row> = rows
        .iter()
        .filter(|r| {
            ["pandas", "numpy", "scipy", "scikit_learn", "matplotlib"]
                .iter()
                .any(|n| r.name.starts_with(&format!("{n}-")))
        })
        .filter(|r| !rows[..10.min(rows.len())].iter().any(|t| t.name == r.name))
        .collect();
    println!(
        "{:<34} {:>6} {:>6} {:>7} {:>10} {:>9} {:>7} {:>8} {:>8} {:>9}",
        "largest releases",
        "files",
        "seen%",
        "MB",
        "summ ms",
        "flow ms",
        "visits",
        "public",
        "aliases",
        "expanded"
    );
    for r in rows.iter().take(10).chain(named.iter().copied()) {
        println!(
            "{:<34} {:>6} {:>6.1} {:>7.2} {:>10.1} {:>9.1} {:>7} {:>8} {:>8} {:>9}",
            r.name,
            r.files,
            100.0 * r.seen as f64 / r.files.max(1) as f64,
            mb(r.bytes),
            r.summarize.as_secs_f64() * 1e3,
            r.flow.as_secs_f64() * 1e3,
            format!(
                "{:.2}",
                r.apis.stats.module_visits as f64 / r.apis.stats.modules.max(1) as f64
            ),
            r.apis.public_apis().count(),
            r.apis
                .public_apis()
                .filter(|e| e.canonical.is_some())
                .count(),
            r.expanded
        );
    }
}
