//! Classifying failures: one pure function ([`classify`]) for an exception raised while nbenv
//! runs a notebook and for an error output stored in the notebook, so that `nbenv usage`
//! reports stored errors in the same classes the repair loop acts on.
//!
//! The classes follow the executability and ML-crash studies (`seeds/`): **environment**
//! (missing third-party module, a library complaining about versions or naming a package to
//! install, code for another Python, and a name the installed release lacks that some other
//! release has), **data/input** (missing file, local module or NLTK data, network,
//! `input()`), **code** (NameError with its def-use diagnosis, SyntaxError, anything else
//! raised in notebook code, a name no release of the library ever had), **unknown** (a name
//! the installed release lacks, and no bank to say whether another release has it),
//! **resource** (memory, time, killed), **hardware** (CUDA or another accelerator) and
//! **install**. Environment failures give a repair round something to learn; an unknown one
//! may be tried.
//!
//! A missing attribute, imported name, submodule, member or keyword of a library, or
//! arguments it does not take, is the environment's only when the bank shows another release
//! differs ([`ApiHistory`]): `pandas.dataframe` is a typo whatever the release.
//!
//! It lives in the notebook stage, before both the verify stage and the usage report, and
//! needs only the notebook, its [`Usage`](super::Usage) and, when one is at hand, the bank.

mod bank_history;
mod bindings;
mod cause;
mod classify;
mod context;
mod frame;
mod history;
mod message;
mod optional;
mod problem;
mod programs;
mod traceback;

pub use bank_history::BankHistory;
pub use bindings::Bindings;
pub use cause::{Cause, Definition, Failure, FailureClass, InstallReason};
pub use classify::{classify, install_reason};
pub use context::FailureContext;
pub use frame::{Frame, FrameOrigin};
pub use history::{ApiHistory, BankSays};
pub use problem::{Problem, Raised};
pub use programs::{from_pypi as programs_from_pypi, known as known_program, Program, PyPiBuild};
