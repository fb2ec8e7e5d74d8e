//! Helpers of the notebook-analysis tests: fixtures and what their usage records.

use std::path::{Path, PathBuf};

use nbenv::notebook::{self, AnalyzeOptions, ApiUse, Location, MemberUse, Usage};

pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/notebooks")
        .join(name)
}

/// Reads and analyses a fixture with default options.
pub fn usage_of(name: &str) -> Usage {
    let nb = notebook::read(fixture(name)).unwrap_or_else(|e| panic!("{e}"));
    notebook::analyze(&nb, &AnalyzeOptions::default())
}

/// Analyses a jupytext percent script given inline (`# %%` separates cells).
pub fn usage_of_source(source: &str) -> Usage {
    let nb = notebook::from_bytes(Path::new("inline.py"), source.as_bytes())
        .unwrap_or_else(|e| panic!("{e}"));
    let options = AnalyzeOptions {
        scan_local_modules: false,
        ..AnalyzeOptions::default()
    };
    notebook::analyze(&nb, &options)
}

pub fn at(cell: u32, line: u32) -> Location {
    Location::new(cell, line)
}

pub fn api<'a>(u: &'a Usage, path: &str) -> &'a ApiUse {
    u.apis
        .iter()
        .find(|a| a.api.as_str() == path)
        .unwrap_or_else(|| {
            let all: Vec<&str> = u.apis.iter().map(|a| a.api.as_str()).collect();
            panic!("API {path} not recorded; recorded: {all:?}")
        })
}

pub fn has_api(u: &Usage, path: &str) -> bool {
    u.apis.iter().any(|a| a.api.as_str() == path)
}

pub fn member<'a>(u: &'a Usage, name: &str) -> &'a MemberUse {
    u.members
        .iter()
        .find(|m| m.member == name)
        .unwrap_or_else(|| {
            let all: Vec<&str> = u.members.iter().map(|m| m.example.as_str()).collect();
            panic!("member {name} not recorded; recorded: {all:?}")
        })
}

pub fn third_party(u: &Usage) -> Vec<&str> {
    u.third_party.iter().map(|t| t.name.as_str()).collect()
}

pub fn requirements(u: &Usage) -> Vec<String> {
    u.requirements
        .iter()
        .map(|r| r.requirement.to_string())
        .collect()
}
