//! The command line as people and programs meet it. The snapshot macros below are shared by
//! the modules of `cli` (defined before them, so that each sees them): whole outputs
//! asserted against `tests/it/cli/snapshots/` with the placeholders of
//! [`crate::support::snapshot`].

/// What a command that only reads printed, with the [`STATIC`] placeholders.
///
/// [`STATIC`]: crate::support::snapshot::STATIC
macro_rules! snapshot {
    ($name:expr, $text:expr) => {
        $crate::assert_printed!($crate::support::snapshot::STATIC, $name, $text)
    };
}

/// What a command that runs notebooks (or installs releases) printed, with the [`RUNS`]
/// placeholders.
///
/// [`RUNS`]: crate::support::snapshot::RUNS
macro_rules! run_snapshot {
    ($name:expr, $text:expr) => {
        $crate::assert_printed!($crate::support::snapshot::RUNS, $name, $text)
    };
}

/// As `run_snapshot!`, with `$extra` placeholders applied after the shared ones: for the
/// values only one command prints that differ between runs or machines (sizes, hashes,
/// dates), which the shared lists leave alone.
macro_rules! filtered_snapshot {
    ($extra:expr, $name:expr, $text:expr) => {{
        let filters: Vec<(&str, &str)> = $crate::support::snapshot::RUNS
            .iter()
            .chain($extra.iter())
            .copied()
            .collect();
        $crate::assert_printed!(filters, $name, $text);
    }};
}

mod cache;
mod conventions;
mod disk_full;
mod human;
mod index;
mod leftovers;
mod snapshots_more;
