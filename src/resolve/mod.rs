//! Resolution: from a notebook's evidence (`notebook::Usage`) and the API bank to pinned
//! distributions on a chosen Python.
//!
//! - `evidence` reads the bank through a provider trait and turns imports and used APIs into
//!   candidate distributions and version sets, each with the evidence records behind it;
//! - `import_time` says what each release imports from other distributions whenever it is
//!   imported (the bank's reading of its code), which the solver adds to its Requires-Dist;
//! - `era` is the notebook's date, a preference for every release chosen;
//! - `options` holds how an inference runs, decided once from a command's arguments;
//! - `session` is the inference a command runs: notebooks read, evidence gathered, what the
//!   bank lacks indexed and introspected lazily, the resolution, said through a reporter;
//! - `interpreter` plans which CPython versions to resolve for and keeps the first that
//!   resolves;
//! - `solver` runs PubGrub over what a [`solver::Catalog`] says of each distribution's
//!   releases (Requires-Dist, Requires-Python, wheel tags, yanked, upload times) for one
//!   target interpreter, and explains a conflict in the notebook's own terms.

pub mod era;
pub mod evidence;
pub mod import_time;
pub mod index_providers;
pub mod infer;
pub mod interpreter;
pub mod joint;
pub mod lazy;
pub mod options;
pub mod passed_over;
pub mod session;
pub mod solver;
