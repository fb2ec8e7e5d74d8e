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

/// Release `version` of `dist` lacked `api` when cell `cell` used it (`Series.order` on pandas
/// 0.21.0). Where the bank saw the API up to some release and static reading cannot settle
/// the releases after (an open class), the run settles them: the API left somewhere between
/// the last release seen with it and this one, and none after this one is counted on to have
/// it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Lacked {
    pub api: ApiPath,
    pub dist: DistName,
    pub version: Version,
    pub cell: u32,
}
