//! Test support shared by the integration tests: the context a test runs nbenv in, a loopback
//! package index and builders for the wheels and sdists it serves, notebook corpora, and the
//! helpers of the notebook-analysis tests. Nothing here touches the network.
#![allow(dead_code)]

pub mod archives;
pub mod cli;
pub mod context;
pub mod corpus;
pub mod git;
pub mod server;
pub mod snapshot;
pub mod toolkit;
pub mod usage;
