//! Runtime introspection: what no static reading can see.
//!
//! pandas 0.x creates `DataFrame.ix` with `setattr` in a loop, C extensions without stubs
//! hide their names, and modules with `__getattr__` make names on demand. For those, nbenv
//! installs the release (wheels only, with the dependencies of its time) into a scratch venv on
//! an interpreter of this machine that fits it, imports its modules with a bundled script, and
//! merges what they expose into the bank's runtime release sets.

mod extras;
mod reported;
mod request;
mod run;

pub use extras::{plan as plan_extras, ExtrasPlan, LEFT_OUT_OF_EXTRAS};
pub use reported::{installer_said, introspect_reported};
pub use request::{RuntimeRequest, RuntimeResult};
pub use run::{
    defer, introspect, IntrospectConfig, IntrospectObserver, IntrospectReport, Outcome, OVER_BUDGET,
};

/// The bundled script, run by the release's interpreter.
pub const SCRIPT: &str = include_str!("introspect.py");
