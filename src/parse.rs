//! Python source parsed with ruff's parser, guarded. The parser keeps `unreachable!` arms that
//! some malformed input reaches (`from m import[*` and then a `;` line before a `%%` magic:
//! found by the property tests). A notebook cell like that must read as source that does not
//! parse, not end nbenv; and the panic's message, which would look like nbenv's own crash, is
//! not printed.

use std::cell::Cell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

use ruff_python_ast::{Mod, ModExpression, ModModule, PySourceType};
use ruff_python_parser::{ParseOptions, Parsed};

/// The parser gave up on the source by panicking: nothing in it can be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the Python parser failed on this source")]
pub struct ParserFailed;

/// Every syntax error of the source is reported; the statements that parsed are kept.
pub fn unchecked(source: &str, options: ParseOptions) -> Result<Parsed<Mod>, ParserFailed> {
    guarded(|| ruff_python_parser::parse_unchecked(source, options))
}

/// [`unchecked`] for a module's source of the given type (a `.py` or a `.pyi`).
pub fn unchecked_source(
    source: &str,
    source_type: PySourceType,
) -> Result<Parsed<ModModule>, ParserFailed> {
    guarded(|| ruff_python_parser::parse_unchecked_source(source, source_type))
}

/// One expression; `None` when it has a syntax error or the parser failed on it.
pub fn expression(source: &str) -> Option<Parsed<ModExpression>> {
    guarded(|| ruff_python_parser::parse_expression(source).ok())
        .ok()
        .flatten()
}

thread_local! {
    /// How many guarded parses this thread is inside: their panics are not printed.
    static GUARDED: Cell<u32> = const { Cell::new(0) };
}

fn guarded<T>(parse: impl FnOnce() -> T) -> Result<T, ParserFailed> {
    static QUIET_HOOK: Once = Once::new();
    QUIET_HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if GUARDED.with(Cell::get) == 0 {
                previous(info);
            }
        }));
    });
    GUARDED.with(|g| g.set(g.get() + 1));
    let parsed = panic::catch_unwind(AssertUnwindSafe(parse));
    GUARDED.with(|g| g.set(g.get() - 1));
    parsed.map_err(|_| ParserFailed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ruff_python_parser::Mode;

    /// The shortest input found that reaches the parser's `unreachable!`.
    const PANICS: &str = "from pylab import[*\n;       %%writefile re";

    #[test]
    fn a_parser_panic_is_a_failed_parse() {
        let options = || ParseOptions::from(Mode::Ipython);
        assert_eq!(unchecked(PANICS, options()).err(), Some(ParserFailed));
        let fine = unchecked("import numpy as np\n", options()).unwrap();
        assert!(fine.errors().is_empty());
        let broken = unchecked("def (\n", options()).unwrap();
        assert!(!broken.errors().is_empty());
    }

    #[test]
    fn the_guard_is_left_after_a_failed_parse() {
        // Panics after it, nbenv's own, are printed again.
        let _ = unchecked(PANICS, ParseOptions::from(Mode::Ipython));
        assert_eq!(GUARDED.with(Cell::get), 0);
    }

    #[test]
    fn expressions() {
        assert!(expression("np.linalg.norm").is_some());
        assert!(expression("np.(").is_none());
    }
}
