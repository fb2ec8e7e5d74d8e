//! Restoration: the rounds that turn a notebook's evidence into an environment it runs in.
//! Each round resolves, builds the environment, runs the notebook, and learns from where the
//! run stopped; [`rounds`] holds that loop behind a trait of steps, so that the decisions
//! (go again, move to the next interpreter, stop, and why) are tested offline with fakes,
//! and `restore` and `batch` share them.

pub mod rounds;

pub use rounds::{
    run_rounds, Built, Learned, ResolveEnd, RoundEnd, RoundSteps, Rounds, RunEnd, Stop,
};
