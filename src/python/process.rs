//! Child processes with a time limit, killed as a whole process group when it runs out:
//! installers and notebooks start children of their own, and none may outlive the limit.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What a finished (or killed) child left behind.
#[derive(Debug, Clone)]
pub struct Finished {
    /// `None` when killed by a signal, including on timeout.
    pub code: Option<i32>,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub timed_out: bool,
    /// Killed because the user interrupted nbenv (see [`crate::interrupt`]).
    pub interrupted: bool,
    pub elapsed: Duration,
}

impl Finished {
    pub fn success(&self) -> bool {
        self.code == Some(0) && !self.timed_out && !self.interrupted
    }

    /// The end of stderr, for error messages.
    pub fn stderr_tail(&self, lines: usize) -> String {
        let text = String::from_utf8_lossy(&self.stderr);
        let all: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        all[all.len().saturating_sub(lines)..].join("\n")
    }
}

#[derive(Debug, thiserror::Error)]
#[error("could not start `{program}`: {source}")]
pub struct ProcessError {
    pub program: String,
    #[source]
    pub source: std::io::Error,
}

/// Runs `command` with `stdin` as its input, in its own process group, for at most `limit`.
/// Being in its own group, the child does not see the terminal's Ctrl-C: it is killed here
/// when [`crate::interrupt::requested`] turns true, so an interrupted nbenv never waits for an
/// install to finish.
pub fn run_limited(
    mut command: Command,
    stdin: &[u8],
    limit: Duration,
) -> Result<Finished, ProcessError> {
    let program = command.get_program().to_string_lossy().into_owned();
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let started = Instant::now();
    let mut child = command.spawn().map_err(|source| ProcessError {
        program: program.clone(),
        source,
    })?;
    let pid = child.id() as i32;

    // Feed stdin and drain both pipes on threads, so a chatty child never blocks on a full
    // pipe while we wait for it.
    let input = stdin.to_vec();
    let mut child_stdin = child.stdin.take();
    let writer = std::thread::spawn(move || {
        if let Some(mut s) = child_stdin.take() {
            use std::io::Write;
            let _ = s.write_all(&input);
        }
    });
    let mut out_pipe = child.stdout.take();
    let mut err_pipe = child.stderr.take();
    let out_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(p) = out_pipe.as_mut() {
            let _ = p.read_to_end(&mut buf);
        }
        buf
    });
    let err_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(p) = err_pipe.as_mut() {
            let _ = p.read_to_end(&mut buf);
        }
        buf
    });

    let mut timed_out = false;
    let mut interrupted = false;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if started.elapsed() >= limit => {
                timed_out = true;
                kill_group(pid);
                break child.wait().ok();
            }
            Ok(None) if crate::interrupt::requested() => {
                interrupted = true;
                kill_group(pid);
                break child.wait().ok();
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(_) => break None,
        }
    };
    // The child is gone; make sure its own children are too, or they would hold the pipes.
    kill_group(pid);
    let _ = writer.join();
    let stdout = out_reader.join().unwrap_or_default();
    let stderr = err_reader.join().unwrap_or_default();
    Ok(Finished {
        code: status.and_then(|s| s.code()),
        stdout,
        stderr,
        timed_out,
        interrupted,
        elapsed: started.elapsed(),
    })
}

fn kill_group(pgid: i32) {
    // SAFETY: kill(2) with a negative pid signals the process group; no memory is involved.
    unsafe {
        libc::kill(-pgid, libc::SIGKILL);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn captures_output_and_kills_on_timeout() {
        let mut c = Command::new("sh");
        c.args(["-c", "read x; echo got $x; echo err >&2"]);
        let f = run_limited(c, b"hello\n", Duration::from_secs(10)).unwrap();
        assert!(f.success());
        assert_eq!(String::from_utf8_lossy(&f.stdout), "got hello\n");
        assert_eq!(f.stderr_tail(5), "err");

        // A grandchild holding the pipe open must not keep us waiting.
        let mut c = Command::new("sh");
        c.args(["-c", "sleep 30 & sleep 30"]);
        let f = run_limited(c, b"", Duration::from_millis(300)).unwrap();
        assert!(f.timed_out && !f.success());
        assert!(f.elapsed < Duration::from_secs(5));
    }

    /// Ctrl-C reaches nbenv, not the child in its own process group: the child is killed when
    /// the stop flag rises, instead of running to its limit. (The flag is process-wide; nextest
    /// runs each test in its own process.)
    #[test]
    fn an_interrupt_kills_the_child_group() {
        let raise = std::thread::spawn(|| {
            std::thread::sleep(Duration::from_millis(300));
            crate::interrupt::request();
        });
        let mut c = Command::new("sh");
        c.args(["-c", "sleep 30 & sleep 30"]);
        let f = run_limited(c, b"", Duration::from_secs(60)).unwrap();
        raise.join().unwrap();
        assert!(f.interrupted && !f.timed_out && !f.success());
        assert!(f.elapsed < Duration::from_secs(5), "{:?}", f.elapsed);
    }
}
