//! What nbenv writes for other tools: requirements files from an inference, written
//! atomically (a temporary file beside the target, then a rename), so an interrupted run
//! never leaves half a file where a good one was.

mod atomic;
mod requirements;

pub use atomic::write_atomically;
pub use requirements::{python_line, requirements_txt, unresolved_reason};
