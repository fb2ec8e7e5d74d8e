//! The offline integration tests, one binary grouped by capability (one module per stage or
//! command). Each starts nbenv in a [`support::context::TestContext`] (its own bank, cache
//! and HOME, a loopback index) or calls the library; none touches the network. The tests
//! against the real PyPI are the `live` binary; the property tests are `properties::`
//! (`cargo nextest run --profile properties`).

#[path = "../support/mod.rs"]
mod support;

mod bank;
mod batch;
mod cli;
mod measure;
mod modernize;
mod notebook;
mod properties;
mod pypi;
mod repair;
mod report;
mod resolve;
mod restore;
mod verify;
