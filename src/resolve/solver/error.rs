use super::catalog::CatalogError;

#[derive(Debug, thiserror::Error)]
pub enum SolveError {
    /// No set of releases meets every requirement on the target; `explanation` is the
    /// derivation, naming the notebook's evidence on each side.
    #[error("no environment meets the notebook's requirements:\n{explanation}")]
    NoSolution { explanation: String },
    #[error(transparent)]
    Catalog(#[from] CatalogError),
    #[error("resolution interrupted")]
    Interrupted,
}
