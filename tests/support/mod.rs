//! Test support shared by the integration tests: a loopback package index and builders for
//! the wheels and sdists it serves. Nothing here touches the network.
#![allow(dead_code)]

pub mod archives;
pub mod cli;
pub mod corpus;
pub mod server;
pub mod toolkit;
