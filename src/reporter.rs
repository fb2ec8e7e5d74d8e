//! What library code says as it goes: notes, warnings, progress, a restoration's round lines.
//! The library says everything it has to say; the caller's [`Reporter`] decides what to show
//! (the command line's printer knows `-q`, `-v`, `--no-progress`, colour and terminals), so a
//! quiet run and a verbose one receive the same events. [`Silent`] drops them all: for tests
//! and for callers that record what matters themselves (a batch).

/// Where library code reports what happened while it works (not its result, which it returns).
pub trait Reporter: Sync {
    /// What is happening, or what was found that the result does not show: `note: ...`.
    /// `detail` (an installer's own words, say) is for a reader who asked for more.
    fn note(&self, message: &str, detail: Option<&str>);
    /// Something went wrong and the work goes on without it: `warning: ...`.
    fn warn(&self, message: &str, detail: Option<&str>);
    /// A note only a reader who asked for more wants (what each step is doing).
    fn verbose_note(&self, message: &str);
    /// A line tracing the work step by step (`indexing pandas 0.25.3`), for a reader who
    /// asked for more.
    fn trace(&self, line: &str);
    /// One line of a restoration's round: `round 2: Python 3.8, pandas==0.25.3`.
    fn round(&self, round: u32, line: &str);
    /// Why the error about to be returned happened, in several lines (one per interpreter
    /// tried, say). Returns whether they reach the reader, so the error can point at them.
    fn explain(&self, lines: &[String]) -> bool;
    /// A counted task starts (`unit`: what it counts, `releases`); `len` may be set later.
    fn task(&self, unit: &str, len: u64) -> Box<dyn Task + '_>;
    /// One long step without a count starts (`building the environment on Python 3.8`); it
    /// lasts until the returned task's [`Task::finish`].
    fn step(&self, message: &str) -> Box<dyn Task + '_>;
    /// A line that only a person at a terminal watches change (the cell running now and for
    /// how long): [`Task::advance`] replaces it. Nothing where nobody watches (a pipe, a
    /// log, JSON), unlike [`Reporter::step`].
    fn live(&self, _message: &str) -> Box<dyn Task + '_> {
        Box::new(Silent)
    }
}

/// A counted task under way, as [`Reporter::task`] started it.
pub trait Task: Sync {
    /// How many there are to do, once known.
    fn set_length(&self, len: u64);
    /// One more done; `item` names it.
    fn advance(&self, item: &str);
    /// One fewer to do: it needed no work (done by an earlier run).
    fn shrink(&self);
    /// A note about the task, said beside its progress.
    fn note(&self, message: &str);
    /// An item of the task failed and the task goes on; the caller's summary lists it too.
    fn warn(&self, message: &str);
    /// The task is over (done, or stopped).
    fn finish(&self);
}

/// `1 release`, `3 releases`: a counted noun, as every message says one.
pub fn count(n: usize, singular: &str, plural: &str) -> String {
    format!("{n} {}", if n == 1 { singular } else { plural })
}

/// A size in bytes as messages say it: `512 B`, `1.5 MiB`.
pub fn human_size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// Says nothing: tests, and library callers that keep what matters themselves.
#[derive(Debug, Clone, Copy, Default)]
pub struct Silent;

impl Reporter for Silent {
    fn note(&self, _: &str, _: Option<&str>) {}
    fn warn(&self, _: &str, _: Option<&str>) {}
    fn verbose_note(&self, _: &str) {}
    fn trace(&self, _: &str) {}
    fn round(&self, _: u32, _: &str) {}
    fn explain(&self, _: &[String]) -> bool {
        false
    }
    fn task(&self, _: &str, _: u64) -> Box<dyn Task + '_> {
        Box::new(Silent)
    }
    fn step(&self, _: &str) -> Box<dyn Task + '_> {
        Box::new(Silent)
    }
}

impl Task for Silent {
    fn set_length(&self, _: u64) {}
    fn advance(&self, _: &str) {}
    fn shrink(&self) {}
    fn note(&self, _: &str) {}
    fn warn(&self, _: &str) {}
    fn finish(&self) {}
}

/// A reporter that keeps every event, in order: for tests, and for a caller of a command
/// function that reads what was said afterwards.
#[derive(Debug, Default)]
pub struct Recorder {
    events: std::sync::Mutex<Vec<Event>>,
}

/// One event a [`Recorder`] received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    Note(String, Option<String>),
    Warning(String, Option<String>),
    VerboseNote(String),
    Trace(String),
    Round(u32, String),
    Explained(Vec<String>),
    Task(String),
    Step(String),
    Length(u64),
    Advance(String),
    Shrink,
    TaskNote(String),
    TaskWarning(String),
    Finish,
}

impl Recorder {
    pub fn events(&self) -> Vec<Event> {
        self.events.lock().unwrap().clone()
    }

    fn push(&self, event: Event) {
        self.events.lock().unwrap().push(event);
    }
}

impl Reporter for Recorder {
    fn note(&self, message: &str, detail: Option<&str>) {
        self.push(Event::Note(message.into(), detail.map(Into::into)));
    }
    fn warn(&self, message: &str, detail: Option<&str>) {
        self.push(Event::Warning(message.into(), detail.map(Into::into)));
    }
    fn verbose_note(&self, message: &str) {
        self.push(Event::VerboseNote(message.into()));
    }
    fn trace(&self, line: &str) {
        self.push(Event::Trace(line.into()));
    }
    fn round(&self, round: u32, line: &str) {
        self.push(Event::Round(round, line.into()));
    }
    fn explain(&self, lines: &[String]) -> bool {
        self.push(Event::Explained(lines.to_vec()));
        true
    }
    fn task(&self, unit: &str, len: u64) -> Box<dyn Task + '_> {
        self.push(Event::Task(unit.into()));
        if len > 0 {
            self.push(Event::Length(len));
        }
        Box::new(RecordedTask(self))
    }
    fn step(&self, message: &str) -> Box<dyn Task + '_> {
        self.push(Event::Step(message.into()));
        Box::new(RecordedTask(self))
    }
}

struct RecordedTask<'a>(&'a Recorder);

impl Task for RecordedTask<'_> {
    fn set_length(&self, len: u64) {
        self.0.push(Event::Length(len));
    }
    fn advance(&self, item: &str) {
        self.0.push(Event::Advance(item.into()));
    }
    fn shrink(&self) {
        self.0.push(Event::Shrink);
    }
    fn note(&self, message: &str) {
        self.0.push(Event::TaskNote(message.into()));
    }
    fn warn(&self, message: &str) {
        self.0.push(Event::TaskWarning(message.into()));
    }
    fn finish(&self) {
        self.0.push(Event::Finish);
    }
}
