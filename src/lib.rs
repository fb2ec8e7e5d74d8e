//! nbenv: restore the execution environment of Jupyter notebooks.
//!
//! The library follows the pipeline (CONTRIBUTING.md); each stage uses only the ones before it:
//! `names` (the shared vocabulary), `pypi` (package indexes), `python` (interpreters, venvs,
//! time-limited processes), `bank` (the API bank), `notebook` (reading notebooks and
//! analysing what they use), `resolve` (from that evidence to pinned releases on a chosen
//! Python), `output` (requirements files, written atomically), `verify` (running a notebook
//! in an environment and measuring how far it gets), `restore` (the repair loop's rounds:
//! resolve, build, run, learn, behind a trait of steps), `modernize` (an old notebook's code moved
//! to the successors of the APIs it uses that the bank proves, and the era pins of what cannot
//! move), `measure` (batch runs over many
//! notebooks: triage, JSONL records, shards, resumption, the report), `commands` (the
//! application layer: one function per command on plain settings). `interrupt` is the
//! process-wide stop flag (Ctrl-C) every long loop checks; `disk_full` the error of a full
//! disk (or quota), which every stage that writes reports alike; `leftover` the temporary
//! names that say which process made them, so a killed run's leftovers can be removed;
//! `reporter` how library code says what happens as it goes (notes, warnings, progress),
//! which the caller shows or not; `timings` where a run's time went, stage by stage
//! (`--timings`).

pub mod disk_full;
pub mod interrupt;
pub mod leftover;
pub mod names;
pub mod parse;
pub mod pypi;
pub mod python;
pub mod reporter;
pub mod timings;
pub mod varint;

pub mod bank;
pub mod notebook;
pub mod resolve;

pub mod output;

pub mod verify;

pub mod restore;

pub mod modernize;

pub mod measure;

pub mod commands;
