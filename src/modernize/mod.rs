//! `modernize`: an old notebook's code moved to today's APIs, with the moves the bank proves.
//!
//! [`Facts::gather`] reads what the bank knows of the APIs the notebook uses; [`plan()`]
//! decides the changes (a removed API with a proven successor) and what cannot move (with the
//! era pin that would run it instead); [`rewrite()`] writes the changes into the code cells,
//! touching only the tokens that name them; [`modernize`] puts it together: the modernized
//! notebook, the diff of its code cells and the report. The input is never written. The
//! modernized notebook is then restored (the CLI runs `restore`'s rounds) on the [`newest`]
//! installed Python.

mod calls;
mod diff;
mod error;
mod facts;
mod ipynb;
pub mod plan;
pub mod prefer;
pub mod prepare;
mod report;
pub mod rewrite;
mod run;

use std::collections::{BTreeMap, BTreeSet};

pub use calls::{CallEdit, CallRewrite};
pub use diff::unified;
pub use error::ModernizeError;
pub use facts::Facts;
pub use plan::{plan, Bound, Change, ChangeWhat, EraPin, Plan, Unmoved, Why};
pub use report::{ChangeLine, Report};
pub use rewrite::{rewrite, CellSource, Left, LeftWhy, Rewrites, Rewritten};
pub use run::newest;

use crate::notebook::{CellKind, Notebook, Usage};

/// A modernized notebook: its bytes, the diff of its code cells and the report.
#[derive(Debug, Clone)]
pub struct Modernized {
    pub notebook: Vec<u8>,
    pub diff: String,
    pub report: Report,
    /// The rewritten cells' sources, by cell number.
    pub cells: BTreeMap<u32, String>,
}

/// Moves `nb` (read from `bytes`, analysed into `usage`) forward by what `facts` prove.
/// `new_name` labels the diff's new side.
pub fn modernize(
    nb: &Notebook,
    bytes: &[u8],
    usage: &Usage,
    facts: &Facts,
    new_name: &str,
) -> Result<Modernized, ModernizeError> {
    let plan = plan(&usage.apis, facts);
    let cells: Vec<CellSource<'_>> = nb
        .cells
        .iter()
        .filter(|c| c.kind == CellKind::Code)
        .map(|c| CellSource {
            number: c.number,
            source: &c.source,
        })
        .collect();
    let mut rewritten = rewrite(&cells, &plan.rewrites());
    // A change the rewriter neither wrote nor left somewhere: reached some other way.
    let left_apis: BTreeSet<_> = rewritten.left.iter().map(|l| l.api.clone()).collect();
    for c in &plan.changes {
        if !rewritten.applied.contains(&c.old) && !left_apis.contains(&c.old) {
            if let Some(at) = c.at.first() {
                rewritten.left.push(Left {
                    api: c.old.clone(),
                    at: *at,
                    why: LeftWhy::NotFound,
                });
            }
        }
    }
    let notebook = ipynb::with_sources(&nb.path, bytes, &rewritten.cells)?;
    let old: BTreeMap<u32, &str> = cells.iter().map(|c| (c.number, c.source)).collect();
    let diff = unified(
        &nb.path.display().to_string(),
        new_name,
        &old,
        &rewritten.cells,
    );
    let report = Report {
        notebook: nb.path.clone(),
        changes: plan
            .changes
            .iter()
            .map(|c| ChangeLine::of(c, rewritten.applied.contains(&c.old)))
            .collect(),
        unmoved: plan.unmoved,
        left: rewritten.left,
    };
    Ok(Modernized {
        notebook,
        diff,
        report,
        cells: rewritten.cells,
    })
}
