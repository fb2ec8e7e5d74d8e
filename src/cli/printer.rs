//! How stderr's labels look: `error:` bold red and `warning:` bold yellow on a terminal, as uv
//! and cargo print them; plain in a pipe or a log, and wherever `NO_COLOR` is set
//! (no-color.org). `CLICOLOR_FORCE` colours a pipe too. Every `error:`, `warning:` and
//! `note:` nbenv prints takes its label from here.

use std::ffi::OsString;
use std::io::IsTerminal;
use std::sync::OnceLock;

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

/// `warning: message` on stderr.
pub fn warn(message: &str) {
    eprintln!("{} {message}", Label::Warning.prefix());
}

/// `note: message` on stderr.
pub fn note(message: &str) {
    eprintln!("{} {message}", Label::Note.prefix());
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

    #[test]
    fn labels_are_plain_or_styled() {
        assert_eq!(Label::Warning.prefix_with(false), "warning:");
        assert_eq!(
            Label::Error.prefix_with(true),
            "\x1b[1;31merror\x1b[0m\x1b[1m:\x1b[0m"
        );
    }
}
