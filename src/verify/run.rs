//! Running a notebook: the runner started with an interpreter in a throw-away view of the
//! notebook's directory (an overlay, or a copy: [`workdir`]), in its own process group under a total time limit, and its
//! records turned into a [`NotebookRun`]. Turning records into the run ([`assemble`]) is
//! pure; only [`run_notebook`] touches processes and files.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde::{Serialize, Serializer};

use super::cell_run::{CellRun, CellStatus};
use super::executability::Executability;
use super::options::RunOptions;
use super::order::ExecutionOrder;
use super::plan::RunPlan;
use super::protocol::{self, Parsed, Record, RecordStatus};
use super::reproduce::{self, Reproduction};
use super::sandbox::{self, SandboxLimits};
use super::workdir::{self, Overlay, RunFolder};
use crate::notebook::failure::{classify, Cause, Failure, FailureContext, Raised};
use crate::notebook::Notebook;
use crate::python::{run_capped_watching, Finished, OutputCap, ProcessError, PythonVersion};

/// The runner script, shipped inside the binary.
pub const RUNNER: &str = include_str!("runner.py");

/// Runs the script given as the first argument under a name of its own, so that its frames
/// are told from the notebook's; `-c` keeps the working directory first on `sys.path`, as a
/// kernel has it.
const BOOTSTRAP: &str = "import sys; exec(compile(sys.argv[1], '<nbenv-runner>', 'exec'))";

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("could not create a scratch directory for the run: {0}")]
    Scratch(#[source] std::io::Error),
    #[error("could not copy {}: {source}", path.display())]
    Copy {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{} holds more than {limit} bytes: too much to copy for a run", dir.display())]
    DirectoryTooLarge { dir: PathBuf, limit: u64 },
    #[error(transparent)]
    Start(#[from] ProcessError),
    /// The confined runner could not start: no network namespace here, or a limit refused.
    #[error("the sandboxed runner could not start: {0}")]
    Sandbox(ProcessError),
    /// The interpreter ended before the runner said anything: not a working Python, or one
    /// older than 2.7.
    #[error("the runner did not start with {}: {detail}", python.display())]
    RunnerFailed { python: PathBuf, detail: String },
    #[error("IPython was required, and {} cannot import it: {reason}", python.display())]
    NoIpython { python: PathBuf, reason: String },
    #[error("interrupted")]
    Interrupted,
}

/// How the runner executed the cells.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum RunnerMode {
    Ipython {
        version: String,
        /// The in-process kernel whose shell ran the cells (`ipykernel`, or `IPython` for
        /// IPython 3's own): comms and widgets work as under Jupyter. None: IPython's base
        /// shell, the kernel being absent or failing to start (`kernel_reason`).
        kernel: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        kernel_reason: Option<String>,
    },
    /// Plain exec; `reason` says why (IPython not importable, or plain exec was asked for).
    Plain { reason: String },
}

/// How the run as a whole ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "end")]
pub enum RunEnd {
    /// Every cell was run.
    Completed,
    /// The runner stopped at a cell that failed.
    StoppedAtError,
    /// The total time limit ran out.
    TimedOut,
    /// The interpreter died from a signal.
    Killed { signal: Option<i32> },
    /// The interpreter exited before the end.
    Exited { code: Option<i32> },
}

/// One run of a notebook.
#[derive(Debug, Clone, Serialize)]
pub struct NotebookRun {
    pub notebook: PathBuf,
    /// The interpreter as given.
    pub interpreter: PathBuf,
    /// Its version, as it reported it.
    pub python: Option<PythonVersion>,
    pub mode: RunnerMode,
    /// The cells that started, in order.
    pub cells: Vec<CellRun>,
    #[serde(flatten)]
    pub end: RunEnd,
    pub executability: Executability,
    /// The execution counts the notebook was saved with.
    pub stored_order: ExecutionOrder,
    #[serde(serialize_with = "seconds")]
    pub elapsed: Duration,
    /// Lines on the runner's protocol stream that were not records.
    pub garbage_lines: u32,
    /// The end of the interpreter's stderr (where low-level output of the cells goes).
    pub stderr_tail: String,
    /// How the run saw the notebook's folder: an overlay of it, or a copy.
    pub folder: RunFolder,
}

fn seconds<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64((d.as_secs_f64() * 1000.0).round() / 1000.0)
}

impl NotebookRun {
    /// The first cell that did not run cleanly.
    pub fn first_failed(&self) -> Option<&CellRun> {
        self.cells.iter().find(|c| !c.ok())
    }

    /// The first failure, classified in the notebook's context. One the classifier can only
    /// put down to the code or to a change of behaviour, after a glob looked in a folder
    /// that is not there, is the data's: the glob found nothing, and the cell worked on
    /// nothing (mmicatka's `resample` of no reviews, when `data/train` was never committed).
    pub fn first_failure(&self, cx: &FailureContext) -> Option<Failure> {
        let cell = self.first_failed()?;
        let failure = classify(&cell.problem()?, Some(cell.cell), cx);
        let opaque = matches!(
            failure.cause,
            Cause::BehaviourChanged { .. }
                | Cause::Raised { .. }
                | Cause::LibraryMismatch { wanted: None, .. }
        );
        let globbed = self
            .cells
            .iter()
            .take_while(|c| c.cell <= cell.cell)
            .find_map(|c| Some((c.cell, c.absent_folders.first()?)));
        match globbed {
            Some((globbed_in, folder)) if opaque => Some(Failure::new(
                Cause::AbsentFolder {
                    folder: folder.clone(),
                    globbed_in,
                },
                failure.cell,
                failure.frame,
            )),
            _ => Some(failure),
        }
    }

    /// The exception the first failed cell raised, with its frames.
    pub fn first_raised(&self) -> Option<&Raised> {
        let cell = self.first_failed()?;
        match cell.status {
            CellStatus::Error => cell.error.as_ref(),
            _ => None,
        }
    }

    /// The exception the first failed cell raised (`ModuleNotFoundError`); none when it
    /// failed otherwise (a time limit, a signal) or every cell ran.
    pub fn first_error_name(&self) -> Option<&str> {
        let cell = self.first_failed()?;
        match cell.status {
            CellStatus::Error => cell.error.as_ref().map(|e| e.ename.as_str()),
            _ => None,
        }
    }

    /// How many of the cells that ran printed what the notebook stored.
    pub fn reproduction(&self, nb: &Notebook) -> Reproduction {
        reproduce::compare(nb, &self.cells)
    }
}

/// How the runner's process ended, as [`assemble`] needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ProcessEnd {
    Exited(i32),
    Signaled(Option<i32>),
    TimedOut,
}

impl ProcessEnd {
    fn of(f: &Finished) -> Self {
        if f.timed_out {
            ProcessEnd::TimedOut
        } else if let Some(code) = f.code {
            ProcessEnd::Exited(code)
        } else {
            ProcessEnd::Signaled(f.signal)
        }
    }
}

/// Runs `nb`'s code cells with the interpreter at `python`.
pub fn run_notebook(
    nb: &Notebook,
    python: &Path,
    opts: &RunOptions,
) -> Result<NotebookRun, RunError> {
    run_notebook_watching(nb, python, opts, &mut |_| {})
}

/// [`run_notebook`], telling `starting` the number of each cell as it starts.
pub fn run_notebook_watching(
    nb: &Notebook,
    python: &Path,
    opts: &RunOptions,
    starting: &mut dyn FnMut(u32),
) -> Result<NotebookRun, RunError> {
    let wanted = |line: &[u8]| line.windows(12).any(|w| w == b"\"cell_start\"");
    let mut seen = |line: &[u8]| {
        if let Some(cell) = protocol::cell_start(line) {
            starting(cell);
        }
    };
    let plan = RunPlan::new(nb, opts);
    let scratch = crate::python::scratch_dir("run").map_err(RunError::Scratch)?;
    let work = scratch.path().join("work");
    let input = serde_json::to_vec(&plan).expect("the plan serializes");
    // Records carry each cell's capped output: room for thousands of cells. Beyond that the
    // middle is dropped and its cells are missing from the run.
    let cap = OutputCap {
        head: 16 << 20,
        tail: 240 << 20,
    };
    let (source, inside) = folder_of(nb, opts);
    let mut overlaid = None;
    if let Some(overlay) = Overlay::new(&source, &inside, scratch.path()) {
        write_overrides(overlay.upper_start(), &opts.overrides)?;
        let mut cmd = runner_command(python, opts, scratch.path(), &work)?;
        // The overlay's hook first: the sandbox's ends without the privileges to mount.
        overlay.apply(&mut cmd);
        let _confined = confine(&mut cmd, python, opts, scratch.path(), overlay.start())?;
        match run_capped_watching(cmd, &input, opts.total_timeout, cap, &wanted, &mut seen) {
            Ok(finished) => overlaid = Some(finished),
            // No overlay here after all (a file system it cannot stack on): a copy.
            Err(_) => Overlay::failed(),
        }
    }
    let (finished, folder) = match overlaid {
        Some(finished) => (finished, RunFolder::Overlay),
        None => {
            let (inside, folder) = copy_workdir(nb, opts, &work, scratch.path())?;
            let start = work.join(inside);
            write_overrides(&start, &opts.overrides)?;
            let mut cmd = runner_command(python, opts, scratch.path(), &start)?;
            let _confined = confine(&mut cmd, python, opts, scratch.path(), &start)?;
            let finished =
                run_capped_watching(cmd, &input, opts.total_timeout, cap, &wanted, &mut seen)
                    .map_err(|e| {
                        if opts.sandbox {
                            RunError::Sandbox(e)
                        } else {
                            RunError::Start(e)
                        }
                    })?;
            (finished, folder)
        }
    };
    if finished.interrupted {
        return Err(RunError::Interrupted);
    }
    let parsed = protocol::parse(&finished.stdout);
    let mut run = assemble(nb, python, &plan, parsed, ProcessEnd::of(&finished))
        .map_err(|detail| failed_start(python, detail, &finished))?;
    run.elapsed = finished.elapsed;
    run.stderr_tail = finished.stderr_tail(20);
    run.folder = folder;
    Ok(run)
}

/// Confines `cmd` ([`sandbox::confine`]) when the options say so, to start in `start`; the
/// confinement lives as long as what is returned.
fn confine(
    cmd: &mut Command,
    python: &Path,
    opts: &RunOptions,
    scratch: &Path,
    start: &Path,
) -> Result<Option<sandbox::Confinement>, RunError> {
    if !opts.sandbox {
        return Ok(None);
    }
    sandbox::confine(
        cmd,
        SandboxLimits::for_run(opts.total_timeout),
        scratch,
        start,
    )
    .map(Some)
    .map_err(|source| {
        RunError::Sandbox(ProcessError {
            program: python.display().to_string(),
            source,
        })
    })
}

/// The runner's command, started in `dir`, with the sandbox's environment when the options
/// ask for a sandbox ([`confine`] makes the rest). A relative
/// `python` (under a relative `--cache-dir`) is made absolute: the child resolves it after
/// moving to `dir`.
fn runner_command(
    python: &Path,
    opts: &RunOptions,
    scratch: &Path,
    dir: &Path,
) -> Result<Command, RunError> {
    let mut cmd = Command::new(std::path::absolute(python).unwrap_or_else(|_| python.into()));
    if opts.sandbox {
        sandbox::environment(&mut cmd, scratch, python).map_err(RunError::Scratch)?;
    }
    cmd.arg("-c")
        .arg(BOOTSTRAP)
        .arg(RUNNER)
        .current_dir(dir)
        .env("MPLBACKEND", "Agg")
        .env("IPYTHONDIR", scratch.join("ipython"))
        .env("PYTHONIOENCODING", "utf-8")
        .env_remove("PYTHONPATH")
        .env_remove("PYTHONHOME")
        .env_remove("PYTHONSTARTUP")
        .env_remove("PYTHONSAFEPATH");
    // The environment's `bin/` first, as an activated environment has it: the programs its
    // distributions ship (imageio-ffmpeg's ffmpeg) are found by name.
    if !opts.sandbox {
        if let Some(bin) = std::path::absolute(python)
            .ok()
            .and_then(|p| p.parent().map(Path::to_path_buf))
        {
            let mut path = std::ffi::OsString::from(bin.as_os_str());
            if let Some(rest) = std::env::var_os("PATH") {
                path.push(":");
                path.push(rest);
            }
            cmd.env("PATH", path);
        }
    }
    for (k, v) in &opts.env {
        cmd.env(k, v);
    }
    Ok(cmd)
}

fn failed_start(python: &Path, detail: StartFailure, finished: &Finished) -> RunError {
    match detail {
        StartFailure::NoIpython(reason) => RunError::NoIpython {
            python: python.to_path_buf(),
            reason,
        },
        StartFailure::Silent => {
            let how = match ProcessEnd::of(finished) {
                ProcessEnd::TimedOut => "no output within the time limit".to_string(),
                ProcessEnd::Exited(code) => format!("exit code {code}"),
                ProcessEnd::Signaled(Some(s)) => format!("killed by signal {s}"),
                ProcessEnd::Signaled(None) => "killed".to_string(),
            };
            let stderr = finished.stderr_tail(8);
            RunError::RunnerFailed {
                python: python.to_path_buf(),
                detail: if stderr.is_empty() {
                    how
                } else {
                    format!("{how}\n{stderr}")
                },
            }
        }
    }
}

/// What the run works in, and where in it the run starts. A notebook in a repository gets
/// the whole repository, so that what it reaches above its folder is there
/// (`sys.path.append("../")` then `from lib import plotting`, as dennybritz's
/// reinforcement-learning does); it starts in its own folder inside.
fn folder_of(nb: &Notebook, opts: &RunOptions) -> (PathBuf, PathBuf) {
    if let Some(dir) = &opts.directory {
        return (dir.clone(), PathBuf::new());
    }
    let own = notebook_dir(&nb.path);
    let inside = crate::notebook::repository_root(&nb.path).and_then(|root| {
        let own = own.canonicalize().ok()?;
        let rel = own.strip_prefix(&root).ok()?.to_path_buf();
        (!rel.as_os_str().is_empty()).then_some((root, rel))
    });
    inside.unwrap_or((own, PathBuf::new()))
}

/// Copies what the run works in ([`folder_of`]) to `work`, and returns where in it the run
/// starts. A repository over the copy limit gives way to the notebook's folder alone.
fn copy_workdir(
    nb: &Notebook,
    opts: &RunOptions,
    work: &Path,
    avoid: &Path,
) -> Result<(PathBuf, RunFolder), RunError> {
    let (source, inside) = folder_of(nb, opts);
    if inside.as_os_str().is_empty() {
        let folder = workdir::copy_tree(&source, work, opts.copy_limit, avoid)?;
        return Ok((inside, folder));
    }
    match workdir::copy_tree(&source, work, opts.copy_limit, avoid) {
        Ok(folder) => return Ok((inside, folder)),
        Err(RunError::DirectoryTooLarge { .. }) => {
            std::fs::remove_dir_all(work).map_err(|source| RunError::Copy {
                path: work.to_path_buf(),
                source,
            })?;
        }
        Err(e) => return Err(e),
    }
    let own = notebook_dir(&nb.path);
    let folder = workdir::copy_tree(&own, work, opts.copy_limit, avoid)?;
    Ok((PathBuf::new(), folder))
}

/// Writes each override's text at its path under `dir`, the run's copy of the notebook's
/// folder (or the overlay's upper layer for it).
fn write_overrides(
    dir: &Path,
    overrides: &[crate::notebook::FileOverride],
) -> Result<(), RunError> {
    for o in overrides {
        let path = dir.join(&o.relative);
        let written = path
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::write(&path, &o.text));
        written.map_err(|source| RunError::Copy {
            path: path.clone(),
            source,
        })?;
    }
    Ok(())
}

fn notebook_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

#[derive(Debug)]
pub(crate) enum StartFailure {
    /// The runner never said it started.
    Silent,
    NoIpython(String),
}

/// The run the records describe. A cell without a record, after the last one, was running
/// when the process ended: it gets the process's end as its status.
pub(crate) fn assemble(
    nb: &Notebook,
    python: &Path,
    plan: &RunPlan,
    parsed: Parsed,
    end: ProcessEnd,
) -> Result<NotebookRun, StartFailure> {
    let mut start = None;
    let mut finished = None;
    let mut cells: Vec<CellRun> = Vec::new();
    for record in parsed.records {
        match record {
            Record::Start(s) => start = Some(s),
            Record::End(e) => finished = Some(e),
            Record::CellStart { .. } => {}
            Record::Cell(c) => {
                // One record per cell: a watchdog's and the runner's may both arrive.
                if cells.iter().any(|r| r.cell == c.index) {
                    continue;
                }
                let status = match c.status {
                    RecordStatus::Ok => CellStatus::Ok,
                    RecordStatus::Error => CellStatus::Error,
                    RecordStatus::Timeout => CellStatus::Timeout,
                };
                cells.push(CellRun {
                    cell: c.index,
                    status,
                    duration: Duration::from_secs_f64(c.duration.max(0.0)),
                    outputs: c.outputs.into_iter().map(|o| o.into_output()).collect(),
                    dropped: c.dropped,
                    error: c.error,
                    skipped_installs: c.skipped,
                    absent_folders: c.absent,
                });
            }
        }
    }
    let Some(start) = start else {
        return Err(StartFailure::Silent);
    };
    let mode = match start.mode.as_str() {
        "ipython" => RunnerMode::Ipython {
            version: start.ipython.unwrap_or_default(),
            kernel_reason: start
                .kernel
                .is_none()
                .then_some(start.kernel_reason)
                .flatten(),
            kernel: start.kernel,
        },
        "plain" => RunnerMode::Plain {
            reason: start.reason.unwrap_or_default(),
        },
        _ => return Err(StartFailure::NoIpython(start.reason.unwrap_or_default())),
    };
    let stopped_by_cell = cells.last().is_some_and(|c| !c.ok());
    let run_end = match (finished, end) {
        (Some(e), _) if e.reason == "done" => RunEnd::Completed,
        (Some(_), _) => RunEnd::StoppedAtError,
        // A cell that timed out and would not stop: the runner ended its own group.
        (None, _)
            if cells
                .last()
                .is_some_and(|c| c.status == CellStatus::Timeout) =>
        {
            RunEnd::StoppedAtError
        }
        (None, ProcessEnd::TimedOut) => RunEnd::TimedOut,
        (None, ProcessEnd::Signaled(signal)) => RunEnd::Killed { signal },
        (None, ProcessEnd::Exited(code)) => RunEnd::Exited { code: Some(code) },
    };
    let dying = match run_end {
        RunEnd::TimedOut => Some(CellStatus::RunTimeout),
        RunEnd::Killed { signal } => Some(CellStatus::Killed { signal }),
        RunEnd::Exited { code } => Some(CellStatus::Exited { code }),
        _ => None,
    };
    if let Some(status) = dying {
        if !stopped_by_cell || cells.is_empty() {
            let after = cells.last().map(|c| c.cell);
            let running = plan
                .cells
                .iter()
                .find(|p| after.is_none_or(|a| p.index > a))
                .map(|p| p.index);
            if let Some(cell) = running {
                cells.push(CellRun {
                    cell,
                    status,
                    duration: Duration::ZERO,
                    outputs: Vec::new(),
                    dropped: 0,
                    error: None,
                    skipped_installs: Vec::new(),
                    absent_folders: Vec::new(),
                });
            }
        }
    }
    let code_cells = plan.cells.len() as u32;
    Ok(NotebookRun {
        notebook: nb.path.clone(),
        interpreter: python.to_path_buf(),
        python: PythonVersion::parse(&start.python),
        mode,
        executability: Executability::of(&cells, code_cells),
        cells,
        end: run_end,
        stored_order: ExecutionOrder::of(nb),
        elapsed: Duration::ZERO,
        garbage_lines: parsed.garbage,
        stderr_tail: String::new(),
        folder: RunFolder::Overlay,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::RunOptions;

    /// An environment under a relative cache directory starts: the child resolves a relative
    /// program after moving to the run's folder, where it is not.
    #[test]
    fn a_relative_interpreter_is_started_by_its_absolute_path() {
        let cmd = runner_command(
            Path::new("cache/envs/abc/bin/python"),
            &RunOptions::default(),
            Path::new("/tmp/scratch"),
            Path::new("/tmp/scratch/work"),
        )
        .unwrap();
        let program = Path::new(cmd.get_program());
        assert!(program.is_absolute(), "{}", program.display());
        assert!(program.ends_with("cache/envs/abc/bin/python"));
    }

    fn nb() -> Notebook {
        crate::notebook::from_bytes(
            Path::new("t.py"),
            b"# %%\nx = 1\n# %%\nimport time\n# %%\nprint(x)\n",
        )
        .unwrap()
    }

    fn lines(records: &[&str]) -> Parsed {
        let text: String = records
            .iter()
            .map(|r| format!("{}{r}\n", protocol::MARK))
            .collect();
        protocol::parse(text.as_bytes())
    }

    const START: &str = r#"{"event":"start","mode":"plain","python":"3.11.7","reason":"No module named 'IPython'"}"#;

    #[test]
    fn a_killed_run_blames_the_running_cell() {
        let nb = nb();
        let plan = RunPlan::new(&nb, &RunOptions::default());
        let parsed = lines(&[
            START,
            r#"{"event":"cell","index":1,"status":"ok","duration":0.01}"#,
        ]);
        let run = assemble(
            &nb,
            Path::new("py"),
            &plan,
            parsed,
            ProcessEnd::Signaled(Some(9)),
        )
        .unwrap();
        assert_eq!(run.end, RunEnd::Killed { signal: Some(9) });
        assert_eq!(run.cells.len(), 2);
        assert_eq!(run.cells[1].cell, 2);
        assert_eq!(run.cells[1].status, CellStatus::Killed { signal: Some(9) });
        assert_eq!(run.executability.cells_before_first_error, 1);
        assert_eq!(run.executability.code_cells, 3);
        assert_eq!(run.python, Some(PythonVersion::parse("3.11.7").unwrap()));

        let parsed = lines(&[START]);
        let run = assemble(&nb, Path::new("py"), &plan, parsed, ProcessEnd::TimedOut).unwrap();
        assert_eq!(run.cells[0].status, CellStatus::RunTimeout);
        assert_eq!(run.cells[0].cell, 1);
    }

    /// The runner tells a timeout by its alarm, not by the exception's name: a cell that
    /// catches the time limit's exception and raises another still timed out.
    #[test]
    fn a_timeout_is_known_by_status_whatever_the_cell_raised() {
        let out = Command::new("python3")
            .args(["-c", "import sys; print(sys.executable)"])
            .output()
            .expect("python3 on PATH");
        let python = PathBuf::from(String::from_utf8(out.stdout).unwrap().trim());
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.py");
        let source = "# %%\nimport time\ntry:\n    time.sleep(30)\nexcept BaseException:\n    raise RuntimeError('cleaning up failed')\n";
        std::fs::write(&path, source).unwrap();
        let nb = crate::notebook::from_bytes(&path, source.as_bytes()).unwrap();
        let opts = RunOptions {
            cell_timeout: Duration::from_secs(1),
            total_timeout: Duration::from_secs(60),
            kernel: crate::verify::KernelMode::Plain,
            ..RunOptions::default()
        };
        let run = run_notebook(&nb, &python, &opts).unwrap();
        assert_eq!(run.cells[0].status, CellStatus::Timeout, "{:#?}", run.cells);
        assert!(run.cells[0].error.is_none());
    }

    #[test]
    fn no_start_record_is_a_failed_start() {
        let nb = nb();
        let plan = RunPlan::new(&nb, &RunOptions::default());
        let parsed = protocol::parse(b"Traceback (most recent call last):\n");
        assert!(matches!(
            assemble(&nb, Path::new("py"), &plan, parsed, ProcessEnd::Exited(1)),
            Err(StartFailure::Silent)
        ));
        let parsed = lines(&[
            r#"{"event":"start","mode":"none","python":"3.8.1","reason":"ModuleNotFoundError: No module named 'IPython'"}"#,
        ]);
        assert!(matches!(
            assemble(&nb, Path::new("py"), &plan, parsed, ProcessEnd::Exited(3)),
            Err(StartFailure::NoIpython(r)) if r.contains("IPython")
        ));
    }
}
