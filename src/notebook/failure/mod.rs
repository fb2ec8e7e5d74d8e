//! Classifying failures: one pure function ([`classify`]) for an exception raised while nbenv
//! runs a notebook and for an error output stored in the notebook, so that `nbenv usage`
//! reports stored errors in the same classes the repair loop acts on.
//!
//! The classes follow the executability and ML-crash studies (`seeds/`): **environment**
//! (missing third-party module, `cannot import name X from Y`, `module Y has no attribute
//! X` or a library class lacking a member, an unexpected keyword to a library API, a library
//! complaining about versions, code for another Python), **data/input** (missing file or
//! local module, network, `input()`), **code** (NameError with its def-use diagnosis,
//! SyntaxError, anything else raised in notebook code), **resource** (memory, time,
//! killed), **hardware** (CUDA or another accelerator) and **install**. Only environment
//! failures give a repair round something to learn.
//!
//! It lives in the notebook stage, before both the verify stage and the usage report, and
//! needs only the notebook and its [`Usage`](super::Usage).

mod bindings;
mod cause;
mod classify;
mod context;
mod frame;
mod message;
mod problem;
mod traceback;

pub use bindings::Bindings;
pub use cause::{Cause, Definition, Failure, FailureClass, InstallReason};
pub use classify::{classify, install_reason};
pub use context::FailureContext;
pub use frame::{Frame, FrameOrigin};
pub use problem::{Problem, Raised};
