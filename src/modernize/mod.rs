//! `modernize`: an old notebook's code moved to today's APIs, with the moves the bank proves.
//!
//! [`Facts::gather`] reads what the bank knows of the APIs the notebook uses; [`plan()`]
//! decides the changes (a removed API with a proven successor) and what cannot move (with the
//! era pin that would run it instead); [`rewrite()`] writes the changes into the code cells,
//! touching only the tokens that name them; [`modernize`] puts it together: the modernized
//! notebook, the diff of its code cells and the report. A successor only a warning names is
//! a candidate ([`candidate`]): [`trial`] keeps it only when the modernized run passes. The
//! input is never written. The modernized notebook is then restored (the CLI runs
//! `restore`'s rounds) on the [`newest`] installed Python.

mod calls;
pub mod candidate;
mod diff;
mod error;
mod facts;
pub mod forward;
mod ipynb;
pub mod mirror;
pub mod modules;
mod notes;
pub mod plan;
pub mod prefer;
pub mod prepare;
pub mod python3;
mod report;
pub mod restoring;
pub mod rewrite;
mod run;
pub mod trial;

use std::collections::{BTreeMap, BTreeSet};

pub use calls::{CallEdit, CallRewrite};
pub use diff::unified;
pub use error::ModernizeError;
pub use facts::Facts;
pub use modules::{modernize_module, ModernModule};
pub use plan::{plan, Bound, Change, ChangeWhat, EraPin, Plan, Unmoved, Why};
pub use python3::Python3;
pub use report::{ChangeLine, Report, Trial};
pub use rewrite::{rewrite, CellSource, Left, LeftWhy, PositionalLimit, Rewrites, Rewritten};
pub use run::newest;

use crate::names::ApiPath;
use crate::notebook::{CellKind, Notebook, Usage};

/// A modernized notebook's text: its bytes, the diff of its code cells, and the rewritten
/// cells' sources by cell number.
#[derive(Debug, Clone)]
pub struct Written {
    pub notebook: Vec<u8>,
    pub diff: String,
    pub cells: BTreeMap<u32, String>,
    /// The notebook's local modules that moved, as they are with these changes.
    pub modules: Vec<crate::notebook::FileOverride>,
}

/// A modernized notebook and its report. When some change rests only on a warning's word
/// (a candidate), `with` has them and `proven` has only the proven ones: the candidates are
/// kept only when a run of `with` passes ([`trial`]).
#[derive(Debug, Clone)]
pub struct Modernized {
    pub with: Written,
    pub proven: Option<Written>,
    pub report: Report,
    /// The notebook's local modules, moved forward with it ([`modules::modernize_module`]).
    pub modules: Vec<ModernModule>,
}

impl Modernized {
    /// Whether a candidate was written: a run decides between `with` and `proven`.
    pub fn has_candidates(&self) -> bool {
        self.proven.is_some()
    }

    /// The text with the candidates, or without them.
    pub fn written(&self, candidates: bool) -> &Written {
        match (&self.proven, candidates) {
            (Some(proven), false) => proven,
            _ => &self.with,
        }
    }
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
    let moved = move_code(nb, usage, facts);
    let text = |cells: BTreeMap<u32, String>| -> Result<Written, ModernizeError> {
        Ok(Written {
            notebook: ipynb::with_sources(&nb.path, bytes, &cells)?,
            diff: unified(&nb.path.display().to_string(), new_name, &moved.old, &cells),
            cells,
            modules: Vec::new(),
        })
    };
    let proven = moved.proven.clone().map(text).transpose()?;
    let report = moved.report(&nb.path);
    Ok(Modernized {
        with: text(moved.rewritten.cells)?,
        proven,
        report,
        modules: Vec::new(),
    })
}

/// A notebook's (or a local module's) code moved forward: the Python 3 rewrites, the plan,
/// the cells with every change and, when a candidate was written, with the proven ones only.
pub(crate) struct Moved<'a> {
    /// The code cells as they were, by number.
    pub old: BTreeMap<u32, &'a str>,
    pub python3: Python3,
    pub plan: Plan,
    pub rewritten: Rewritten,
    /// The cells without the candidates, when some candidate was written.
    pub proven: Option<BTreeMap<u32, String>>,
    met: Vec<forward::Met>,
}

impl Moved<'_> {
    fn report(&self, path: &std::path::Path) -> Report {
        Report {
            notebook: path.to_path_buf(),
            changes: self
                .plan
                .changes
                .iter()
                .map(|c| ChangeLine::of(c, self.rewritten.applied.contains(&c.old)))
                .collect(),
            unmoved: self.plan.unmoved.clone(),
            left: self.rewritten.left.clone(),
            python3: self.python3.clone(),
            met: self.met.clone(),
            modules: Vec::new(),
            module: false,
        }
    }
}

/// Moves the code cells of `nb` (analysed into `usage`) forward by what `facts` prove.
pub(crate) fn move_code<'a>(nb: &'a Notebook, usage: &Usage, facts: &Facts) -> Moved<'a> {
    // Python 2 first: the APIs are then read, and moved, in Python 3 code.
    let code: Vec<(u32, &str)> = nb
        .cells
        .iter()
        .filter(|c| c.kind == CellKind::Code)
        .map(|c| (c.number, c.source.as_str()))
        .collect();
    let python3 = match usage.python.python2() {
        Some(_) => python3::convert(&code),
        None => Python3::default(),
    };
    let converted_usage;
    let usage = if python3.cells.is_empty() {
        usage
    } else {
        converted_usage = crate::notebook::analyze(
            &with_sources(nb, &python3.cells),
            &crate::notebook::AnalyzeOptions::default(),
        );
        &converted_usage
    };
    let plan = plan(&facts.uses(usage), facts);
    let cells: Vec<CellSource<'_>> = code
        .iter()
        .map(|&(number, source)| CellSource {
            number,
            source: python3.cells.get(&number).map_or(source, String::as_str),
        })
        .collect();
    let with_python3 = |mut r: Rewritten| -> Rewritten {
        for (number, source) in &python3.cells {
            r.cells.entry(*number).or_insert_with(|| source.clone());
        }
        r
    };
    let mut rewritten = with_python3(rewrite(&cells, &plan.rewrites(true)));
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
    // A candidate for an API a run met is written either way: the next run is its trial.
    let tried: BTreeSet<ApiPath> = facts.met.iter().map(|m| m.api.clone()).collect();
    let candidates_written = plan
        .changes
        .iter()
        .any(|c| c.is_candidate() && !tried.contains(&c.old) && rewritten.applied.contains(&c.old));
    let proven = candidates_written
        .then(|| with_python3(rewrite(&cells, &plan.rewrites_tried(false, &tried))).cells);
    Moved {
        old: code.iter().copied().collect(),
        python3,
        plan,
        rewritten,
        proven,
        met: facts.met.clone(),
    }
}

/// `nb` with the sources of `cells` (by number) replaced.
fn with_sources(nb: &Notebook, cells: &BTreeMap<u32, String>) -> Notebook {
    let mut out = nb.clone();
    for c in &mut out.cells {
        if let Some(source) = cells.get(&c.number) {
            c.source = source.clone();
        }
    }
    out
}
