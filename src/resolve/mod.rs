//! Resolution: from a notebook's evidence to pinned distributions on a chosen Python.
//!
//! `solver` runs PubGrub over what a [`solver::Catalog`] says of each distribution's releases
//! (Requires-Dist, Requires-Python, wheel tags, yanked, upload times) for one target
//! interpreter, and explains a conflict in the notebook's own terms.

pub mod solver;
