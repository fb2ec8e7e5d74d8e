//! Progress bars and the lines printed beside them. One convention for every command: `-q`
//! silences progress and notes (what is happening), never results or the summary (what
//! happened); `--no-progress` silences only the bars; bars vanish when stderr is not a
//! terminal, notes do not; warnings that the summary repeats show only beside a drawn bar.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use nbenv::reporter::Task;

use super::printer::{Label, Printer};

/// A progress bar, and the channel for notes and warnings while it is drawn.
pub struct Progress {
    bar: ProgressBar,
    quiet: bool,
}

impl Progress {
    pub fn new(printer: &Printer, len: u64, unit: &str) -> Self {
        let bar = ProgressBar::new(len);
        if printer.quiet || printer.no_progress {
            bar.set_draw_target(ProgressDrawTarget::hidden());
        }
        let template = format!(
            "{{spinner}} [{{elapsed_precise}}] {{bar:30}} {{pos}}/{{len}} {unit} (eta {{eta}}) {{wide_msg}}"
        );
        bar.set_style(
            ProgressStyle::with_template(&template)
                .expect("valid template")
                .progress_chars("=> "),
        );
        bar.enable_steady_tick(std::time::Duration::from_millis(200));
        Self {
            bar,
            quiet: printer.quiet,
        }
    }

    pub fn set_length(&self, len: u64) {
        self.bar.set_length(len);
    }

    /// One fewer to do: it needed no work (done by an earlier run), so it counts neither as
    /// done nor in the estimate of what is left.
    pub fn shrink(&self) {
        self.bar.dec_length(1);
    }

    /// One more done; `message` names it.
    pub fn advance(&self, message: String) {
        self.bar.inc(1);
        self.bar.set_message(message);
    }

    /// `note: ...` on stderr, above the bar (a hidden bar's `println` would drop it).
    pub fn note(&self, message: &str) {
        self.line(Label::Note, message);
    }

    /// `warning: ...` on stderr while the bar is drawn: something failed and the run goes on.
    /// The summary lists it too, so where no bar is drawn (a pipe, a log, `-q`) it is said
    /// there only, once.
    pub fn warn(&self, message: &str) {
        if !self.bar.is_hidden() {
            self.line(Label::Warning, message);
        }
    }

    fn line(&self, label: Label, message: &str) {
        if !self.quiet {
            self.bar.suspend(|| super::printer::line(label, message));
        }
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl Task for Progress {
    fn set_length(&self, len: u64) {
        Progress::set_length(self, len);
    }
    fn advance(&self, item: &str) {
        Progress::advance(self, item.to_string());
    }
    fn shrink(&self) {
        Progress::shrink(self);
    }
    fn note(&self, message: &str) {
        Progress::note(self, message);
    }
    fn warn(&self, message: &str) {
        Progress::warn(self, message);
    }
    fn finish(&self) {
        Progress::finish(self);
    }
}

/// A spinner with the time spent, for one long step (building an environment). Where no
/// spinner is drawn (a pipe, a log) the step is said once as a note, so logs show it too.
pub struct Spinner {
    bar: Option<ProgressBar>,
}

impl Spinner {
    /// Starts one for `message`; `None` starts nothing (the step is quick, say a cache hit).
    pub fn start(printer: &Printer, message: Option<String>) -> Self {
        let Some(message) = message.filter(|_| !printer.quiet) else {
            return Self { bar: None };
        };
        let bar = ProgressBar::new_spinner();
        if printer.no_progress {
            bar.set_draw_target(ProgressDrawTarget::hidden());
        }
        if bar.is_hidden() {
            super::printer::note(&message);
            return Self { bar: None };
        }
        bar.set_style(
            ProgressStyle::with_template("{spinner} [{elapsed_precise}] {wide_msg}")
                .expect("valid template"),
        );
        bar.set_message(message);
        bar.enable_steady_tick(std::time::Duration::from_millis(200));
        Self { bar: Some(bar) }
    }

    /// A spinner only a terminal shows (nothing, not even a note, elsewhere), whose message
    /// [`Task::advance`] replaces, its clock starting again.
    pub fn live(printer: &Printer, message: String) -> Self {
        if printer.quiet || printer.no_progress {
            return Self { bar: None };
        }
        let bar = ProgressBar::new_spinner();
        if bar.is_hidden() {
            return Self { bar: None };
        }
        bar.set_style(
            ProgressStyle::with_template("{spinner} {wide_msg} [{elapsed}]")
                .expect("valid template"),
        );
        bar.set_message(message);
        bar.enable_steady_tick(std::time::Duration::from_millis(200));
        Self { bar: Some(bar) }
    }

    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

impl Task for Spinner {
    fn set_length(&self, _: u64) {}
    fn advance(&self, item: &str) {
        if let Some(bar) = &self.bar {
            bar.set_message(item.to_string());
            bar.reset_elapsed();
        }
    }
    fn shrink(&self) {}
    fn note(&self, message: &str) {
        match &self.bar {
            Some(bar) => bar.suspend(|| super::printer::line(Label::Note, message)),
            None => super::printer::line(Label::Note, message),
        }
    }
    fn warn(&self, message: &str) {
        if let Some(bar) = &self.bar {
            bar.suspend(|| super::printer::line(Label::Warning, message));
        }
    }
    fn finish(&self) {
        Spinner::finish(self);
    }
}
