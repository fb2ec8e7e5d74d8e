//! The user asked nbenv to stop (Ctrl-C). Signals are process-wide, so this is one flag for the
//! process: the command line sets it from its signal handler, long-running loops (indexing,
//! introspection, child processes) read it between units of work, stop taking new ones, and
//! unwind normally so that temporary directories are removed and finished work is kept.

use std::sync::atomic::{AtomicBool, Ordering};

static REQUESTED: AtomicBool = AtomicBool::new(false);

/// Asks every loop that checks [`requested`] to stop. Async-signal-safe: one atomic store.
pub fn request() {
    REQUESTED.store(true, Ordering::SeqCst);
}

/// Whether a stop was asked for.
pub fn requested() -> bool {
    REQUESTED.load(Ordering::SeqCst)
}
