//! The tests against the real PyPI and real installs: one binary, so that
//! `cargo nextest run -E 'not binary(live)'` leaves them all out. Small and bounded.

#[path = "../support/mod.rs"]
mod support;

mod bank;
mod environments;
mod infer;
mod pylock;
mod pypi;
mod restore;
mod verify_ipython;
