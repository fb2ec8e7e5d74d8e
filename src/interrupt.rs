//! The user asked nbenv to stop (Ctrl-C). Signals are process-wide, so this is one flag for the
//! process: the command line sets it from its signal handler, long-running loops (indexing,
//! introspection, child processes) read it between units of work, stop taking new ones, and
//! unwind normally so that temporary directories are removed and finished work is kept.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

static REQUESTED: AtomicBool = AtomicBool::new(false);

/// How many [`Graceful`] sections are open: a batch holds one while each notebook's lazy
/// indexing opens and closes its own.
static ARMED: AtomicUsize = AtomicUsize::new(0);

/// While alive, work that checks [`requested`] is under way (indexing, introspection): the
/// signal handler asks it to stop instead of ending the process. Async-signal-safe to read.
pub struct Graceful(());

impl Graceful {
    pub fn start() -> Self {
        ARMED.fetch_add(1, Ordering::SeqCst);
        Graceful(())
    }
}

impl Drop for Graceful {
    fn drop(&mut self) {
        ARMED.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Whether a [`Graceful`] section is open. Async-signal-safe: one atomic load.
pub fn graceful() -> bool {
    ARMED.load(Ordering::SeqCst) > 0
}

/// Asks every loop that checks [`requested`] to stop. Async-signal-safe: one atomic store.
pub fn request() {
    REQUESTED.store(true, Ordering::SeqCst);
}

/// Whether a stop was asked for.
pub fn requested() -> bool {
    REQUESTED.load(Ordering::SeqCst)
}
