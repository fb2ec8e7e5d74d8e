//! Query latency of a built bank (run by `scripts/bench-bank`): opens the bank given as the
//! first argument and asks it about `N` APIs spread over its distributions.

use std::time::Instant;

use nbenv::bank::store::Store;

fn main() {
    let mut args = std::env::args().skip(1).filter(|a| !a.starts_with("--"));
    let Some(bank) = args.next() else {
        eprintln!("usage: bank_query BANK [N]");
        std::process::exit(2);
    };
    let n: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(100);
    let store = Store::open_read_only(std::path::Path::new(&bank)).expect("open bank");
    let paths = sample_paths(&bank, n);
    let mut times = Vec::with_capacity(paths.len());
    let mut found = 0;
    for path in &paths {
        let start = Instant::now();
        let reports = store.query_api(path).expect("query");
        times.push(start.elapsed().as_secs_f64() * 1000.0);
        found += usize::from(!reports.is_empty());
    }
    times.sort_by(f64::total_cmp);
    let median = times[times.len() / 2];
    let p95 = times[(times.len() * 95 / 100).min(times.len() - 1)];
    let mean = times.iter().sum::<f64>() / times.len() as f64;
    println!(
        "queried {} APIs ({} found): median {:.2} ms, p95 {:.2} ms, mean {:.2} ms",
        paths.len(),
        found,
        median,
        p95,
        mean
    );
}

/// Every k-th public API path, so the sample covers all distributions.
fn sample_paths(bank: &str, n: usize) -> Vec<String> {
    let conn =
        rusqlite::Connection::open_with_flags(bank, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap();
    let total: i64 = conn
        .query_row("SELECT COUNT(*) FROM apis", [], |r| r.get(0))
        .unwrap();
    let step = (total as usize / n).max(1);
    let mut stmt = conn.prepare("SELECT path FROM apis ORDER BY id").unwrap();
    stmt.query_map([], |r| r.get::<_, String>(0))
        .unwrap()
        .filter_map(Result::ok)
        .step_by(step)
        .take(n)
        .collect()
}
