//! nbenv: restore the execution environment of Jupyter notebooks.
//!
//! The library follows the pipeline in the README: each stage uses only the ones before it.
//! `names` is the shared vocabulary; `pypi` talks to package indexes.

pub mod names;
pub mod notebook;
