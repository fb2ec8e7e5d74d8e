//! Resolution: from a notebook's evidence (`notebook::Usage`) and the API bank to the
//! distributions and versions the notebook needs.
//!
//! `evidence` reads the bank through a provider trait and turns imports and used APIs into
//! candidate distributions and version sets, each with the evidence records behind it;
//! `interpreter` plans which CPython versions to resolve for and keeps the first that resolves.

pub mod evidence;
pub mod interpreter;
