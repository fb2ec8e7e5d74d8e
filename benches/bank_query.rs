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
    let paths = sample_paths(&store, n);

    // Cold: a fresh process's first query of a distribution decodes its path dictionary.
    let cold = Store::open_read_only(std::path::Path::new(&bank)).expect("open bank");
    let mut cold_times = Vec::new();
    for (id, name) in cold.distributions().expect("distributions") {
        let first = store
            .path_dictionary(id)
            .expect("paths")
            .iter()
            .next()
            .map(|(p, _)| p.to_string());
        if let Some(path) = first {
            let start = Instant::now();
            cold.query_api(&path).expect("query");
            cold_times.push((name, start.elapsed().as_secs_f64() * 1000.0));
        }
    }
    let shown: Vec<String> = cold_times
        .iter()
        .map(|(n, t)| format!("{n} {t:.1} ms"))
        .collect();
    println!("first query per distribution (cold): {}", shown.join(", "));
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

/// Every k-th API path of the bank, so the sample covers all distributions.
fn sample_paths(store: &Store, n: usize) -> Vec<String> {
    let mut all: Vec<String> = Vec::new();
    for (id, _) in store.distributions().expect("distributions") {
        let dictionary = store.path_dictionary(id).expect("paths");
        all.extend(dictionary.iter().map(|(p, _)| p.to_string()));
    }
    let step = (all.len() / n).max(1);
    all.into_iter().step_by(step).take(n).collect()
}
