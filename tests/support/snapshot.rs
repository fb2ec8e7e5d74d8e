//! Whole outputs as reviewed snapshots (`tests/it/cli/snapshots/`): what a command printed,
//! stdout then stderr, then its exit code, with what differs between machines and runs
//! replaced by placeholders. A change of wording, alignment or a JSON field shows up as a
//! diff to accept with `cargo insta review`, never by accident.

use std::ffi::OsStr;
use std::process::{Command, Output};

use super::context::TestContext;

/// What nbenv printed (stdout, then stderr) and its exit code.
pub fn printed(out: &Output) -> String {
    format!(
        "{}{}[exit {}]\n",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
        out.status.code().unwrap_or(-1)
    )
}

/// [`printed`] of `cmd`, run now.
pub fn run(cmd: &mut Command) -> String {
    printed(&cmd.output().unwrap())
}

impl TestContext {
    /// What `nbenv ARGS` printed in this context, for a snapshot.
    pub fn printed<I, S>(&self, args: I) -> String
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        run(self.command().args(args))
    }
}

/// The loopback index's port, temporary directories and the version: the same on every run of
/// a command that only reads.
pub const STATIC: &[(&str, &str)] = &[
    (r"http://127\.0\.0\.1:\d+", "http://[index]"),
    (r"/tmp/\.tmp[A-Za-z0-9]+", "[tmp]"),
    (r"in \d+\.\d s", "in [time]"),
    (r"fetched .* of archives", "fetched [sizes] of archives"),
    (r"size on disk:(\s+).*", "size on disk:$1[size]"),
    (r#""bytes_on_disk": \d+"#, r#""bytes_on_disk": [size]"#),
    (r"nbenv \d+\.\d+\.\d+", "nbenv [version]"),
];

/// As [`STATIC`], for commands that run notebooks: also the machine's Python (its version
/// and path), durations, sizes, instants, and the keys of built environments, in text and in
/// JSON.
pub const RUNS: &[(&str, &str)] = &[
    (r"http://127\.0\.0\.1:\d+", "http://[index]"),
    (r"/tmp/\.tmp[A-Za-z0-9]+", "[tmp]"),
    (r"(/[\w.+-]+)+/bin/python[0-9.]*", "[python]"),
    (r"(C?Python) 3\.\d+(\.\d+)?", "$1 [python-version]"),
    (
        r#""python": "3\.\d+(\.\d+)?""#,
        r#""python": "[python-version]""#,
    ),
    (
        r#""(seconds|analysis|duration|elapsed|resolution|venv|run|install|total|[a-z_]+_time|[a-z_]+_ms|[a-z_]+_seconds)": \d+(\.\d+)?(e-?\d+)?"#,
        r#""$1": [time]"#,
    ),
    (
        r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)",
        "[instant]",
    ),
    (r"\d+(\.\d+)? ?(ms|s)\b", "[time]"),
    (r"\(\d+(\.\d+)? ?[KMG]?i?B downloaded", "([size] downloaded"),
    (r"\d+(\.\d+)? notebooks/(s|min|h)\b", "[rate]"),
    (r"envs/[0-9a-f]{8,}", "envs/[key]"),
    (r"nbenv \d+\.\d+\.\d+", "nbenv [version]"),
];

/// Asserts `$text` against the snapshot `$name` with the placeholders of `$filters`
/// ([`STATIC`] or [`RUNS`]).
#[macro_export]
macro_rules! assert_printed {
    ($filters:expr, $name:expr, $text:expr) => {
        insta::with_settings!({
            filters => $filters.to_vec(),
            prepend_module_to_snapshot => false,
            snapshot_path => concat!(env!("CARGO_MANIFEST_DIR"), "/tests/it/cli/snapshots"),
        }, {
            insta::assert_snapshot!($name, $text);
        });
    };
}
