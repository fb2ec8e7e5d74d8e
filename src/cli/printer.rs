//! The one owner of both streams: results go to stdout through [`stdout`] (whatever `-q`
//! says: quiet silences what is said, not what was asked for), and everything said goes to
//! stderr through this file. No other file of the command line writes to either.
//!
//! How stderr's labels look: `error:` bold red and `warning:` bold yellow on a terminal, as uv
//! and cargo print them; plain in a pipe or a log, and wherever `NO_COLOR` is set
//! (no-color.org). `CLICOLOR_FORCE` colours a pipe too. Every `error:`, `warning:` and
//! `note:` nbenv prints takes its label from here.

use std::ffi::OsString;
use std::io::IsTerminal;
use std::sync::OnceLock;

use nbenv::reporter::{Reporter, Task};

use super::args::GlobalArgs;
use super::progress::{Progress, Spinner};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Label {
    Error,
    Warning,
    Note,
    Interrupted,
}

impl Label {
    fn word(self) -> &'static str {
        match self {
            Label::Error => "error",
            Label::Warning => "warning",
            Label::Note => "note",
            Label::Interrupted => "interrupted",
        }
    }

    /// The SGR codes of the label's word: bold and a colour, or bold alone for a note.
    fn style(self) -> &'static str {
        match self {
            Label::Error | Label::Interrupted => "1;31",
            Label::Warning => "1;33",
            Label::Note => "1",
        }
    }

    /// `error:`, styled when stderr is coloured.
    pub fn prefix(self) -> String {
        self.prefix_with(colour())
    }

    fn prefix_with(self, colour: bool) -> String {
        if colour {
            format!(
                "\x1b[{}m{}\x1b[0m\x1b[1m:\x1b[0m",
                self.style(),
                self.word()
            )
        } else {
            format!("{}:", self.word())
        }
    }
}

/// The command line's [`Reporter`]: what the library says, shown as `-q`, `-v` and
/// `--no-progress` ask (progress.rs gives the convention), labelled and coloured as above.
#[derive(Debug, Clone, Copy)]
pub struct Printer {
    pub quiet: bool,
    pub no_progress: bool,
    pub verbose: u8,
}

impl Printer {
    pub fn of(global: &GlobalArgs) -> Self {
        Self {
            quiet: global.quiet,
            no_progress: global.no_progress,
            verbose: global.verbose,
        }
    }

    /// What stderr shows of one thing the library said, if anything: `-q` silences what is
    /// happening (notes, warnings, rounds) but not the reasons an error points at; `-v` adds
    /// the details and traces.
    fn render(&self, said: Said<'_>, colour: bool) -> Option<String> {
        let verbose = self.verbose > 0;
        let labelled = |label: Label, message: &str, detail: Option<&str>| {
            let prefix = label.prefix_with(colour);
            Some(match detail.filter(|_| verbose) {
                Some(detail) => format!(
                    "{prefix} {message}\n    {}",
                    detail.trim_end().replace('\n', "\n    ")
                ),
                None => format!("{prefix} {message}"),
            })
        };
        match said {
            Said::Explain(line) => Some(format!("{}\n", line.trim_end())),
            Said::Trace(line) => verbose.then(|| line.to_string()),
            _ if self.quiet => None,
            Said::Note(message, detail) => labelled(Label::Note, message, detail),
            Said::Warning(message, detail) => labelled(Label::Warning, message, detail),
            Said::VerboseNote(message) if verbose => labelled(Label::Note, message, None),
            Said::VerboseNote(_) => None,
            Said::Round(round, line) => Some(format!("round {round}: {line}")),
        }
    }

    fn print(&self, said: Said<'_>) {
        if let Some(text) = self.render(said, colour()) {
            say(&text);
        }
    }
}

/// One thing the library said, as [`Printer::render`] decides on it.
#[derive(Debug, Clone, Copy)]
enum Said<'a> {
    Note(&'a str, Option<&'a str>),
    Warning(&'a str, Option<&'a str>),
    VerboseNote(&'a str),
    Trace(&'a str),
    Round(u32, &'a str),
    Explain(&'a str),
}

impl Reporter for Printer {
    fn note(&self, message: &str, detail: Option<&str>) {
        self.print(Said::Note(message, detail));
    }

    fn warn(&self, message: &str, detail: Option<&str>) {
        self.print(Said::Warning(message, detail));
    }

    fn verbose_note(&self, message: &str) {
        self.print(Said::VerboseNote(message));
    }

    fn trace(&self, line: &str) {
        self.print(Said::Trace(line));
    }

    fn round(&self, round: u32, line: &str) {
        self.print(Said::Round(round, line));
    }

    /// Said even with `-q`: the error that follows points at them.
    fn explain(&self, lines: &[String]) -> bool {
        for line in lines {
            self.print(Said::Explain(line));
        }
        true
    }

    fn task(&self, unit: &str, len: u64) -> Box<dyn Task + '_> {
        Box::new(Progress::new(self, len, unit))
    }

    fn step(&self, message: &str) -> Box<dyn Task + '_> {
        Box::new(Spinner::start(self, Some(message.to_string())))
    }

    fn live(&self, message: &str) -> Box<dyn Task + '_> {
        Box::new(Spinner::live(self, message.to_string()))
    }
}

/// Where a command's results go: standard output, locked while the writer lives. Writing
/// through it returns errors (a closed pipe: `nbenv ... | head`) instead of panicking as
/// `print!` does.
pub fn stdout() -> std::io::StdoutLock<'static> {
    std::io::stdout().lock()
}

impl Printer {
    /// [`stdout`], for a command that holds its printer.
    pub fn stdout(&self) -> std::io::StdoutLock<'static> {
        stdout()
    }
}

/// A plain line on stderr, as is (a command's closing summary).
pub fn say(line: &str) {
    eprintln!("{line}");
}

/// Lines already ending in a newline, on stderr as they are (an error and its causes, a
/// restore's summary, `--timings`'s table).
pub fn block(text: &str) {
    eprint!("{text}");
}

/// `label: message` on stderr.
pub fn line(label: Label, message: &str) {
    eprintln!("{} {message}", label.prefix());
}

/// `note: message` on stderr.
pub fn note(message: &str) {
    line(Label::Note, message);
}

/// Whether stderr is coloured, decided once per process.
pub fn colour() -> bool {
    static COLOUR: OnceLock<bool> = OnceLock::new();
    *COLOUR.get_or_init(|| {
        wants_colour(
            std::io::stderr().is_terminal(),
            std::env::var_os("NO_COLOR"),
            std::env::var_os("CLICOLOR_FORCE"),
        )
    })
}

/// `NO_COLOR` (any non-empty value) wins; then `CLICOLOR_FORCE` (not `0`); then a terminal.
fn wants_colour(terminal: bool, no_color: Option<OsString>, force: Option<OsString>) -> bool {
    let set = |v: &Option<OsString>| v.as_ref().is_some_and(|v| !v.is_empty());
    if set(&no_color) {
        return false;
    }
    if set(&force) && force.as_deref() != Some(std::ffi::OsStr::new("0")) {
        return true;
    }
    terminal
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_color_wins_then_force_then_the_terminal() {
        let v = |s: &str| Some(OsString::from(s));
        assert!(wants_colour(true, None, None));
        assert!(!wants_colour(false, None, None));
        assert!(!wants_colour(true, v("1"), None));
        assert!(
            wants_colour(true, v(""), None),
            "an empty NO_COLOR is unset"
        );
        assert!(wants_colour(false, None, v("1")));
        assert!(!wants_colour(false, None, v("0")));
        assert!(!wants_colour(false, v("1"), v("1")));
    }

    /// The library says the same whatever the flags; the printer alone decides what shows.
    #[test]
    fn quiet_hides_what_is_happening_and_verbose_adds_details() {
        let printer = |quiet, verbose| Printer {
            quiet,
            no_progress: false,
            verbose,
        };
        let (quiet, plain, verbose) = (printer(true, 0), printer(false, 0), printer(false, 1));
        let gap = Said::Note(
            "could not introspect x 1.0: Python 3.8",
            Some("pip said\nno"),
        );
        assert_eq!(quiet.render(gap, false), None);
        assert_eq!(
            plain.render(gap, false).as_deref(),
            Some("note: could not introspect x 1.0: Python 3.8")
        );
        assert_eq!(
            verbose.render(gap, false).as_deref(),
            Some("note: could not introspect x 1.0: Python 3.8\n    pip said\n    no")
        );
        let round = Said::Round(2, "Python 3.8, x==1.0");
        assert_eq!(quiet.render(round, false), None);
        assert_eq!(
            plain.render(round, false).as_deref(),
            Some("round 2: Python 3.8, x==1.0")
        );
        for said in [
            Said::Trace("indexing x 1.0"),
            Said::VerboseNote("indexed x"),
        ] {
            assert_eq!(plain.render(said, false), None);
            assert!(verbose.render(said, false).is_some());
        }
        // The reasons an error points at show even with -q.
        assert_eq!(
            quiet
                .render(Said::Explain("Python 3.8: no wheel"), false)
                .as_deref(),
            Some("Python 3.8: no wheel\n")
        );
        assert!(quiet.render(Said::Warning("w", None), false).is_none());
    }

    #[test]
    fn labels_are_plain_or_styled() {
        assert_eq!(Label::Warning.prefix_with(false), "warning:");
        assert_eq!(
            Label::Error.prefix_with(true),
            "\x1b[1;31merror\x1b[0m\x1b[1m:\x1b[0m"
        );
    }
}
