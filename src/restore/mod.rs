//! Restored: the rounds that turn a notebook's evidence into an environment it runs in.
//! Each round resolves, builds the environment, runs the notebook, and learns from where the
//! run stopped; [`rounds`] holds that loop behind a trait of steps, so that the decisions
//! (go again, move to the next interpreter, stop, and why) are tested offline with fakes,
//! and `restore` and `batch` share them; [`steps`] holds the production steps ([`restore`]),
//! [`spec`] how they run, [`round`] what each round keeps.

pub mod kept;
pub mod round;
pub mod rounds;
pub mod search;
pub mod spec;
pub mod steps;

pub use kept::{Kept, KeptWhy};
pub use round::{pins_of, NotInstalled, Round, RoundError, Stages};
pub use rounds::{
    run_rounds, Built, Learned, ResolveEnd, RoundEnd, RoundSteps, Rounds, RunEnd, Stop,
};
pub use spec::RoundsSpec;
pub use steps::{restore, Restored};
