//! What the user can ask of a resolution beyond its requirements.

use jiff::Timestamp;

use crate::bank::store::ReleaseFailure;

#[derive(Debug, Clone, Default)]
pub struct SolveOptions {
    /// Count a release with an sdist but no fitting wheel as installable (it will be built).
    pub allow_sdist: bool,
    /// Ignore files uploaded after this instant, to reproduce an era (`--exclude-newer`).
    /// Files whose upload time the index does not give are kept.
    pub exclude_newer: Option<Timestamp>,
    /// Releases that failed to install or import on an interpreter in an earlier run (the
    /// bank's run records): not chosen again for that Python unless a root pins them.
    pub failed: Vec<ReleaseFailure>,
}
