//! What runs showed: a release refusing a keyword the notebook passes.

use pep508_rs::pep440_rs::Version;
use serde::Serialize;

use crate::names::{ApiPath, DistName};

/// Release `version` of `dist` refused `keyword` when cell `cell` passed it to `api`
/// (`hist(normed=)` on matplotlib 3.3.4). The bank may not tell which releases take the
/// keyword (a signature with `**kwargs` passes it further in), but every release whose
/// signature of `api` reads as that one's refuses it too: the resolver rules them all out at
/// once, instead of a round per release.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Refusal {
    pub api: ApiPath,
    pub keyword: String,
    pub dist: DistName,
    pub version: Version,
    pub cell: u32,
}
