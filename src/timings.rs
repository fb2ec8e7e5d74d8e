//! Where a run's time goes, stage by stage (`--timings`): every stage adds the time it was
//! busy, so that a slow cold `infer` can be taken apart (index pages, byte ranges, parsing,
//! the flow, bank writes and the writer lock, introspection, the solver) without a profiler.
//! Indexing runs several releases at once, so the stages' sums can exceed the wall time: they
//! are busy time, summed over threads. A stage's time excludes the stages it calls (the solver
//! fetches metadata: that is index time, not solver time). Always on: a stage costs two clock
//! reads and two atomic adds, against work that takes milliseconds.

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// One kind of work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// The index's project pages (JSON or HTML), fetched.
    IndexPages,
    /// Byte ranges of archives (a wheel's central directory, its metadata, its sources).
    RangeReads,
    /// Whole files (archives, snapshots).
    Downloads,
    /// Parsing source files into summaries.
    Parsing,
    /// The import flow over a release's summaries (what each public path is).
    Flow,
    /// Waiting for the bank's writer lock (another process writing a release), or for another
    /// thread of the same session (a batch worker) to finish its indexing round.
    LockWait,
    /// Writing releases and introspection results to the bank.
    BankWrites,
    /// Installing releases and reading their names at run time.
    Introspection,
    /// Gathering a notebook's evidence from the bank.
    Evidence,
    /// Choosing releases (the solver).
    Solver,
}

impl Stage {
    pub const ALL: [Stage; 10] = [
        Stage::IndexPages,
        Stage::RangeReads,
        Stage::Downloads,
        Stage::Parsing,
        Stage::Flow,
        Stage::LockWait,
        Stage::BankWrites,
        Stage::Introspection,
        Stage::Evidence,
        Stage::Solver,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Stage::IndexPages => "index pages",
            Stage::RangeReads => "range reads",
            Stage::Downloads => "downloads",
            Stage::Parsing => "parsing",
            Stage::Flow => "flow",
            Stage::LockWait => "writer lock wait",
            Stage::BankWrites => "bank writes",
            Stage::Introspection => "introspection",
            Stage::Evidence => "evidence",
            Stage::Solver => "solver",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

const STAGES: usize = Stage::ALL.len();

static NANOS: [AtomicU64; STAGES] = [const { AtomicU64::new(0) }; STAGES];
static COUNTS: [AtomicU64; STAGES] = [const { AtomicU64::new(0) }; STAGES];

/// Runs `work`, adding its time to `stage`.
pub fn time<T>(stage: Stage, work: impl FnOnce() -> T) -> T {
    let _clock = start(stage);
    work()
}

/// A running clock: its time is added to the stage when it is dropped.
#[must_use = "the time is counted when the clock is dropped"]
pub struct Clock {
    stage: Stage,
    started: Instant,
}

thread_local! {
    /// For each running clock of this thread, innermost last: the time its inner clocks took.
    static INNER: RefCell<Vec<u64>> = const { RefCell::new(Vec::new()) };
}

pub fn start(stage: Stage) -> Clock {
    INNER.with(|inner| inner.borrow_mut().push(0));
    Clock {
        stage,
        started: Instant::now(),
    }
}

impl Drop for Clock {
    fn drop(&mut self) {
        let nanos = u64::try_from(self.started.elapsed().as_nanos()).unwrap_or(u64::MAX);
        let inner = INNER.with(|inner| {
            let mut inner = inner.borrow_mut();
            let mine = inner.pop().unwrap_or(0);
            if let Some(outer) = inner.last_mut() {
                *outer = outer.saturating_add(nanos);
            }
            mine
        });
        NANOS[self.stage.index()].fetch_add(nanos.saturating_sub(inner), Ordering::Relaxed);
        COUNTS[self.stage.index()].fetch_add(1, Ordering::Relaxed);
    }
}

/// One stage's total so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Spent {
    #[serde(serialize_with = "stage_name")]
    pub stage: Stage,
    #[serde(serialize_with = "seconds")]
    pub busy: Duration,
    pub count: u64,
}

fn stage_name<S: serde::Serializer>(stage: &Stage, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(stage.name())
}

fn seconds<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64())
}

/// Every stage's totals since the process started, in [`Stage::ALL`]'s order.
pub fn totals() -> Vec<Spent> {
    Stage::ALL
        .iter()
        .map(|&stage| Spent {
            stage,
            busy: Duration::from_nanos(NANOS[stage.index()].load(Ordering::Relaxed)),
            count: COUNTS[stage.index()].load(Ordering::Relaxed),
        })
        .collect()
}

/// The totals as a table for stderr: the wall time, then each stage that took any time, its
/// busy time, share of the wall time, and how many times it ran.
pub fn render(wall: Duration, totals: &[Spent]) -> String {
    let mut out = format!(
        "timings: {:.2} s wall; busy time by stage, summed over threads (excluding the stages each calls)\n",
        wall.as_secs_f64()
    );
    for t in totals.iter().filter(|t| t.count > 0) {
        let share = 100.0 * t.busy.as_secs_f64() / wall.as_secs_f64().max(f64::EPSILON);
        out.push_str(&format!(
            "  {:<18} {:>9.2} s {:>6.1}% {:>8}\n",
            t.stage.name(),
            t.busy.as_secs_f64(),
            share,
            t.count
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stage_adds_its_time_and_count() {
        let before = totals()[Stage::Solver.index()];
        time(Stage::Solver, || {
            std::thread::sleep(Duration::from_millis(20))
        });
        {
            let _c = start(Stage::Solver);
            std::thread::sleep(Duration::from_millis(5));
        }
        let after = totals()[Stage::Solver.index()];
        assert_eq!(after.count - before.count, 2);
        assert!(after.busy - before.busy >= Duration::from_millis(25));
        assert!(Stage::ALL.iter().enumerate().all(|(i, s)| s.index() == i));
    }

    #[test]
    fn a_stage_inside_another_counts_for_itself_only() {
        let outer = totals()[Stage::Evidence.index()].busy;
        let inner = totals()[Stage::Flow.index()].busy;
        time(Stage::Evidence, || {
            std::thread::sleep(Duration::from_millis(5));
            time(Stage::Flow, || {
                std::thread::sleep(Duration::from_millis(60))
            });
        });
        let outer = totals()[Stage::Evidence.index()].busy - outer;
        let inner = totals()[Stage::Flow.index()].busy - inner;
        assert!(inner >= Duration::from_millis(60), "{inner:?}");
        assert!(
            outer >= Duration::from_millis(5) && outer < Duration::from_millis(55),
            "{outer:?}"
        );
        assert!(Stage::ALL.iter().enumerate().all(|(i, s)| s.index() == i));
    }

    #[test]
    fn the_table_shows_stages_that_ran() {
        let totals = [
            Spent {
                stage: Stage::Parsing,
                busy: Duration::from_millis(1500),
                count: 12,
            },
            Spent {
                stage: Stage::Solver,
                busy: Duration::ZERO,
                count: 0,
            },
        ];
        let table = render(Duration::from_secs(3), &totals);
        assert!(table.starts_with("timings: 3.00 s wall"), "{table}");
        assert!(table.contains("parsing"), "{table}");
        assert!(table.contains("1.50 s   50.0%       12"), "{table}");
        assert!(!table.contains("solver"), "{table}");
    }
}
