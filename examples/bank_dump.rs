//! Runs extraction and import flow on a distribution installed in a `site-packages`
//! directory, read through its RECORD, and prints what chosen paths resolve to, or the whole
//! result as JSON. For looking at real packages while working on the bank:
//!
//!   cargo run --release --example bank_dump -- SITE_PACKAGES DIST-INFO-DIR [--json | PATH...]

use std::collections::HashMap;
use std::path::Path;

use nbenv::bank::extract::{summarize_bytes, ArchiveKind, FileSummary, Record, ReleaseLayout};
use nbenv::bank::flow::{analyze, ReleaseInput};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(site), Some(dist_info)) = (args.first(), args.get(1)) else {
        eprintln!("usage: bank_dump SITE_PACKAGES DIST-INFO-DIR [--json | PATH...]");
        std::process::exit(2);
    };
    let site = Path::new(site);
    let record_path = site.join(dist_info).join("RECORD");
    let text = match std::fs::read_to_string(&record_path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("bank_dump: cannot read {}: {e}", record_path.display());
            std::process::exit(1);
        }
    };
    let record = Record::parse(&text);
    for problem in &record.problems {
        eprintln!("{}: {problem}", record_path.display());
    }
    let layout = ReleaseLayout::new(
        ArchiveKind::Wheel,
        record.entries.iter().map(|e| e.path.as_str()),
    );
    let summaries: HashMap<&str, FileSummary> = layout
        .sources()
        .filter_map(|(_, path, is_stub)| {
            let bytes = std::fs::read(site.join(path)).ok()?;
            Some((path, summarize_bytes(&bytes, is_stub)))
        })
        .collect();
    let apis = analyze(&ReleaseInput::from_layout(&layout, |p| summaries.get(p)));
    eprintln!("{:?}", apis.stats);
    if args.get(2).map(String::as_str) == Some("--json") {
        println!(
            "{}",
            serde_json::to_string_pretty(&apis).expect("APIs serialize")
        );
        return;
    }
    for path in &args[2..] {
        match apis.resolve(path) {
            Some(e) => {
                let def = apis.definition_of(e.path.as_str()).unwrap_or(e);
                let sig = def
                    .signature
                    .as_ref()
                    .map(ToString::to_string)
                    .unwrap_or_default();
                println!("{path} -> {} ({:?}) {sig}", def.path, def.kind);
            }
            None => println!("{path} -> not found"),
        }
    }
}
