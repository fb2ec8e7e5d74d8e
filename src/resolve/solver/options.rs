//! What the user can ask of a resolution beyond its requirements.

use jiff::Timestamp;

#[derive(Debug, Clone, Default)]
pub struct SolveOptions {
    /// Count a release with an sdist but no fitting wheel as installable (it will be built).
    pub allow_sdist: bool,
    /// Ignore files uploaded after this instant, to reproduce an era (`--exclude-newer`).
    /// Files whose upload time the index does not give are kept.
    pub exclude_newer: Option<Timestamp>,
}
