//! Run records: written after every run of a notebook, read by every resolution.

use std::io::Write as _;
use std::path::Path;

use nbenv::bank::store::Store;

/// `nbenv bank runs [--forget]`.
pub fn show(bank: &Path, forget: bool, format: super::args::Format) -> anyhow::Result<()> {
    if forget {
        let forgotten = Store::open(bank)?.forget_runs()?;
        super::printer::say(&format!(
            "forgot {} and the releases they saw fail",
            super::output::count(forgotten as usize, "run", "runs")
        ));
        return Ok(());
    }
    let store = Store::open_read_only(bank)?;
    let runs = store.run_count()?;
    let failures = store.release_failures()?;
    match format {
        super::args::Format::Json => super::output::write_json(
            &mut super::printer::stdout(),
            &serde_json::json!({ "runs": runs, "failed_releases": failures }),
        )?,
        super::args::Format::Text => {
            let mut out = super::printer::stdout();
            writeln!(
                out,
                "{} recorded; {} failed:",
                super::output::count(runs as usize, "run", "runs"),
                super::output::count(failures.len(), "release", "releases")
            )?;
            for f in &failures {
                writeln!(
                    out,
                    "  {} {} on Python {}: failed to {} ({}, {})",
                    f.dist,
                    f.version,
                    f.python,
                    f.step,
                    f.at.strftime("%Y-%m-%d"),
                    f.notebook
                )?;
            }
        }
    }
    Ok(())
}
