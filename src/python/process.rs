//! Child processes with a time limit, killed as a whole process group when it runs out:
//! installers and notebooks start children of their own, and none may outlive the limit.

use std::collections::VecDeque;
use std::io::Read;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::child::{DieWithNbenv, GroupWatch};

/// What a finished (or killed) child left behind.
#[derive(Debug, Clone)]
pub struct Finished {
    /// `None` when killed by a signal, including on timeout.
    pub code: Option<i32>,
    /// The signal that killed it, if one did.
    pub signal: Option<i32>,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub timed_out: bool,
    /// Killed because the user interrupted nbenv (see [`crate::interrupt`]).
    pub interrupted: bool,
    pub elapsed: Duration,
    /// Bytes of stdout and of stderr dropped from the middle to stay within the cap.
    pub dropped: [u64; 2],
}

/// How much of each output stream is kept: its beginning and its end, where what went wrong
/// and results are. A notebook or an import can print gigabytes; the rest is read and dropped,
/// so the child never blocks on a full pipe and nbenv's memory stays bounded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutputCap {
    pub head: usize,
    pub tail: usize,
}

impl Default for OutputCap {
    /// 64 MiB a stream, nearly all of it the end: the introspection script's result, a few
    /// MB for the largest libraries, is its last line.
    fn default() -> Self {
        Self {
            head: 1 << 20,
            tail: 63 << 20,
        }
    }
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

/// Runs `command` with `stdin` as its input, in its own process group, for at most `limit`;
/// the group is killed if nbenv dies first (see [`super::child`]).
/// Being in its own group, the child does not see the terminal's Ctrl-C: it is killed here
/// when [`crate::interrupt::requested`] turns true, so an interrupted nbenv never waits for an
/// install to finish.
pub fn run_limited(
    command: Command,
    stdin: &[u8],
    limit: Duration,
) -> Result<Finished, ProcessError> {
    run_capped(command, stdin, limit, OutputCap::default())
}

/// [`run_limited`] keeping at most `cap` of each output stream.
pub fn run_capped(
    command: Command,
    stdin: &[u8],
    limit: Duration,
    cap: OutputCap,
) -> Result<Finished, ProcessError> {
    run_capped_watching(command, stdin, limit, cap, &|_| false, &mut |_| {})
}

/// [`run_capped`], telling `seen` each line of stdout that `wanted` picks (a cheap test on
/// the raw line), as it arrives, on the calling thread: progress from a long run.
pub fn run_capped_watching(
    mut command: Command,
    stdin: &[u8],
    limit: Duration,
    cap: OutputCap,
    wanted: &(dyn Fn(&[u8]) -> bool + Sync),
    seen: &mut dyn FnMut(&[u8]),
) -> Result<Finished, ProcessError> {
    let program = command.get_program().to_string_lossy().into_owned();
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .die_with_nbenv();
    let started = Instant::now();
    let mut child = command.spawn().map_err(|source| ProcessError {
        program: program.clone(),
        source,
    })?;
    let pid = child.id() as i32;
    let _watch = GroupWatch::start(child.id());

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
    let (lines_tx, lines_rx) = std::sync::mpsc::channel::<Vec<u8>>();
    let (out_dropped, stdout, stderr, status, timed_out, interrupted) =
        std::thread::scope(|scope| {
            let out_reader = scope.spawn(move || match out_pipe.as_mut() {
                Some(p) => capture_lines(p, cap, &|line| {
                    if wanted(line) {
                        let _ = lines_tx.send(line.to_vec());
                    }
                }),
                None => (Vec::new(), 0),
            });
            let err_reader = scope.spawn(move || match err_pipe.as_mut() {
                Some(p) => capture(p, cap),
                None => (Vec::new(), 0),
            });
            let (status, timed_out, interrupted) =
                wait_for(&mut child, pid, started, limit, &lines_rx, seen);
            // The child is gone; make sure its own children are too, or they would hold the
            // pipes.
            kill_group(pid);
            let (stdout, out_dropped) = out_reader.join().unwrap_or_default();
            let (stderr, err_dropped) = err_reader.join().unwrap_or_default();
            for line in lines_rx.try_iter() {
                seen(&line);
            }
            (
                [out_dropped, err_dropped],
                stdout,
                stderr,
                status,
                timed_out,
                interrupted,
            )
        });
    let _ = writer.join();
    Ok(Finished {
        code: status.and_then(|s| s.code()),
        signal: status.and_then(|s| s.signal()),
        stdout,
        stderr,
        timed_out,
        interrupted,
        elapsed: started.elapsed(),
        dropped: out_dropped,
    })
}

/// Waits for `child` within `limit` (killing its group past it, or on an interrupt), telling
/// `seen` the lines the reader sends meanwhile; the exit status, and whether it timed out or
/// was interrupted.
fn wait_for(
    child: &mut std::process::Child,
    pid: i32,
    started: Instant,
    limit: Duration,
    lines: &std::sync::mpsc::Receiver<Vec<u8>>,
    seen: &mut dyn FnMut(&[u8]),
) -> (Option<std::process::ExitStatus>, bool, bool) {
    let mut timed_out = false;
    let mut interrupted = false;
    let status = loop {
        for line in lines.try_iter() {
            seen(&line);
        }
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
    (status, timed_out, interrupted)
}

/// [`capture`], telling `line` each whole line as it is read (up to 64 KiB of one line).
fn capture_lines(pipe: &mut dyn Read, cap: OutputCap, line: &dyn Fn(&[u8])) -> (Vec<u8>, u64) {
    struct Lines<'a> {
        inner: &'a mut dyn Read,
        partial: Vec<u8>,
        line: &'a dyn Fn(&[u8]),
    }
    impl Read for Lines<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.inner.read(buf)?;
            for &b in &buf[..n] {
                if b == b'\n' {
                    (self.line)(&self.partial);
                    self.partial.clear();
                } else if self.partial.len() < 64 << 10 {
                    self.partial.push(b);
                }
            }
            Ok(n)
        }
    }
    capture(
        &mut Lines {
            inner: pipe,
            partial: Vec::new(),
            line,
        },
        cap,
    )
}

/// Reads `pipe` to its end, keeping its first `cap.head` and last `cap.tail` bytes; returns
/// them (with a line saying what was dropped between) and the count dropped.
fn capture(pipe: &mut dyn Read, cap: OutputCap) -> (Vec<u8>, u64) {
    let mut head = Vec::new();
    let mut tail: VecDeque<u8> = VecDeque::new();
    let mut dropped = 0u64;
    let mut buf = vec![0u8; 64 << 10];
    loop {
        let n = match pipe.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        let mut chunk = &buf[..n];
        let room = cap.head.saturating_sub(head.len()).min(chunk.len());
        head.extend_from_slice(&chunk[..room]);
        chunk = &chunk[room..];
        if chunk.len() >= cap.tail {
            dropped += (tail.len() + chunk.len() - cap.tail) as u64;
            tail.clear();
            chunk = &chunk[chunk.len() - cap.tail..];
        }
        let over = (tail.len() + chunk.len()).saturating_sub(cap.tail);
        tail.drain(..over);
        dropped += over as u64;
        tail.extend(chunk);
    }
    if dropped > 0 {
        head.extend_from_slice(
            format!("\n[nbenv dropped {dropped} bytes of output here]\n").as_bytes(),
        );
    }
    head.extend(tail);
    (head, dropped)
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

    /// A child printing far more than the cap runs to its end (the pipe is drained), and what
    /// is kept is its beginning, its end and a line saying how much was dropped.
    #[test]
    fn output_is_capped_at_both_ends() {
        let mut c = Command::new("sh");
        // 50 MB of `y` lines between a first and a last line.
        c.args([
            "-c",
            "echo first; yes | head -c 50000000; echo last; echo oops >&2",
        ]);
        let cap = OutputCap {
            head: 1000,
            tail: 2000,
        };
        let f = run_capped(c, b"", Duration::from_secs(60), cap).unwrap();
        assert!(f.success(), "{f:?}");
        let text = String::from_utf8_lossy(&f.stdout);
        assert!(text.starts_with("first\ny\n"), "{}", &text[..20]);
        assert!(text.ends_with("y\nlast\n"));
        let total = 6 + 50_000_000 + 5;
        assert_eq!(f.dropped[0], total - 3000);
        assert!(text.contains(&format!(
            "[nbenv dropped {} bytes of output here]",
            total - 3000
        )));
        assert!(f.stdout.len() < 3100, "{}", f.stdout.len());
        assert_eq!((f.dropped[1], f.stderr.as_slice()), (0, &b"oops\n"[..]));
    }

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
