//! The application layer: one function per command, on plain settings, reporting through a
//! [`crate::reporter::Reporter`] and returning what it did; the command line only turns its
//! arguments into these settings and prints what comes back. A command's steps that the
//! stages leave open (what happens after a restore's rounds: the files asked for, the
//! environment kept and its kernel) are decided here.

pub mod bank;
pub mod batch;
pub mod cache;
mod error;
pub mod global;
pub mod index;
pub mod infer;
pub mod modernize;
pub mod report;
pub mod restore;
pub mod usage;
pub mod verify;

pub use error::CommandError;
pub use global::GlobalSettings;
