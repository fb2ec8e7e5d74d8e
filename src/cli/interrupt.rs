//! Ctrl-C, the same way for every command. Outside a [`Graceful`] section the first Ctrl-C
//! ends nbenv at once with exit code 130, as the default handler would. Inside one (indexing,
//! introspection) it only raises [`nbenv::interrupt`]'s flag: the work in flight finishes or is
//! abandoned cleanly, temporary directories are removed as the stack unwinds, and the command
//! ends with one line saying what was kept, and code 130. A second Ctrl-C ends nbenv at once.

use std::sync::atomic::{AtomicUsize, Ordering};

use super::exit::{CliError, Code};

static HITS: AtomicUsize = AtomicUsize::new(0);

extern "C" fn on_interrupt(_signal: libc::c_int) {
    // Only async-signal-safe work here: atomics and _exit(2).
    let first = HITS.fetch_add(1, Ordering::SeqCst) == 0;
    if first && nbenv::interrupt::graceful() {
        nbenv::interrupt::request();
        return;
    }
    // SAFETY: _exit(2) is async-signal-safe and ends the process without running Rust code.
    unsafe { libc::_exit(i32::from(Code::Interrupted.value())) }
}

/// Installs the handler; called once, first thing in `main`.
pub fn install() {
    // SAFETY: a zeroed sigaction with a valid handler, an empty mask and SA_RESTART (so reads
    // interrupted by the signal are retried) is a valid argument to sigaction(2).
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_interrupt as extern "C" fn(libc::c_int) as libc::sighandler_t;
        action.sa_flags = libc::SA_RESTART;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGINT, &action, std::ptr::null_mut());
    }
}

/// The error that ends an interrupted run: `kept` and `left` are counts of `noun` (plural).
pub fn stopped(kept: usize, left: usize, noun: &str) -> CliError {
    CliError::interrupted(format!("{kept} {noun} kept; {left} left for the next run"))
}
