use super::catalog::CatalogError;

#[derive(Debug, thiserror::Error)]
pub enum SolveError {
    /// No set of releases meets every requirement on the target; `explanation` is the
    /// derivation, naming the notebook's evidence on each side; `sdists_refused`, the
    /// distributions in it whose releases were out for want of a wheel, with an sdist the
    /// rules refused.
    #[error("no environment meets the notebook's requirements:\n{explanation}")]
    NoSolution {
        explanation: String,
        sdists_refused: Vec<crate::names::DistName>,
    },
    #[error(transparent)]
    Catalog(#[from] CatalogError),
    #[error("resolution interrupted")]
    Interrupted,
}
