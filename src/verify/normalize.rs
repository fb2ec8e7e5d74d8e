//! Text outputs made comparable across runs: what legitimately differs between two runs of
//! the same code (memory addresses, timings, the last digits of floats, alignment) is
//! taken out.
//!
//! - `0x7f3a…` addresses become `0x?`;
//! - a number followed by a time unit (`2.5 s`, `3ms/step`) becomes `<duration>`, and
//!   `%time` / `%timeit` report lines (`Wall time: …`, `… loops, best of 3`) are dropped;
//! - floats are written with 6 significant digits (`0.8333333333333334` → `8.33333e-1`);
//! - runs of whitespace become one space (pretty-printers align and wrap differently).

const TIME_UNITS: &[&str] = &[
    "ns", "us", "µs", "ms", "s", "sec", "secs", "second", "seconds", "min", "mins", "minute",
    "minutes",
];

/// Lines that only report how long something took.
fn is_timing_line(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("CPU times:")
        || t.starts_with("Wall time:")
        || t.contains("loops, best of")
        || t.contains("per loop (mean")
        || (t.contains(" per loop") && t.contains("loop"))
}

pub fn normalize(text: &str) -> String {
    let mut kept = String::with_capacity(text.len());
    for line in text.lines() {
        if !is_timing_line(line) {
            kept.push_str(line);
            kept.push('\n');
        }
    }
    let chars: Vec<char> = kept.chars().collect();
    let mut out = String::with_capacity(kept.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let prev_word = i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
        let starts_number =
            c.is_ascii_digit() || (c == '.' && chars.get(i + 1).is_some_and(char::is_ascii_digit));
        if !starts_number || prev_word {
            if c.is_whitespace() {
                if !out.ends_with(' ') && !out.is_empty() {
                    out.push(' ');
                }
            } else {
                out.push(c);
            }
            i += 1;
            continue;
        }
        // A hex address.
        if c == '0' && matches!(chars.get(i + 1), Some('x' | 'X')) {
            let mut j = i + 2;
            while j < chars.len() && chars[j].is_ascii_hexdigit() {
                j += 1;
            }
            if j - i - 2 >= 4 {
                out.push_str("0x?");
                i = j;
                continue;
            }
        }
        let (end, is_float, dotted) = number_end(&chars, i);
        // Letters glued to it: a unit (`3ms`) or a word (`3rd`, `64bit`, kept as it is).
        let mut g = end;
        while g < chars.len() && (chars[g].is_alphanumeric() || chars[g] == '_') {
            g += 1;
        }
        if g > end {
            let word: String = chars[end..g].iter().collect();
            if !dotted && TIME_UNITS.contains(&word.as_str()) {
                out.push_str("<duration>");
            } else {
                out.extend(&chars[i..g]);
            }
            i = g;
            continue;
        }
        // A unit after a space (`2.5 s`, `10 seconds`)?
        let mut j = end;
        while j < chars.len() && chars[j] == ' ' {
            j += 1;
        }
        let mut k = j;
        while k < chars.len() && (chars[k].is_alphanumeric() || chars[k] == '_') {
            k += 1;
        }
        let unit: String = chars[j..k].iter().collect();
        if !dotted && k > j && TIME_UNITS.contains(&unit.as_str()) {
            out.push_str("<duration>");
            i = k;
            continue;
        }
        let token: String = chars[i..end].iter().collect();
        match (is_float && !dotted, token.parse::<f64>()) {
            (true, Ok(v)) if v.is_finite() => out.push_str(&format!("{v:.5e}")),
            _ => out.push_str(&token),
        }
        i = end;
    }
    out.trim().to_string()
}

/// The end of the number starting at `i`; whether it is a float; whether it has more than
/// one dot (a version like `1.15.0`, kept as it is).
fn number_end(chars: &[char], i: usize) -> (usize, bool, bool) {
    let mut j = i;
    let mut dots = 0;
    let mut exponent = false;
    while j < chars.len() {
        let c = chars[j];
        if c.is_ascii_digit() {
            j += 1;
        } else if c == '.'
            && chars
                .get(j + 1)
                .is_none_or(|n| n.is_ascii_digit() || !n.is_alphabetic())
        {
            dots += 1;
            j += 1;
        } else if matches!(c, 'e' | 'E')
            && !exponent
            && j > i
            && (chars.get(j + 1).is_some_and(char::is_ascii_digit)
                || (matches!(chars.get(j + 1), Some('+' | '-'))
                    && chars.get(j + 2).is_some_and(char::is_ascii_digit)))
        {
            exponent = true;
            j += 2;
        } else {
            break;
        }
    }
    (j, dots == 1 || exponent, dots > 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_differs_between_runs_is_taken_out() {
        assert_eq!(
            normalize("<matplotlib.figure.Figure at 0x7f3a2c1b9e48>"),
            "<matplotlib.figure.Figure at 0x?>"
        );
        assert_eq!(
            normalize("0.8333333333333334\n"),
            normalize("0.833333333333")
        );
        assert_ne!(normalize("0.8333"), normalize("0.8334"));
        assert_eq!(normalize("accuracy 1e-3"), normalize("accuracy 0.001"));
        assert_eq!(
            normalize("CPU times: user 1 ms, sys: 0 ns\nWall time: 2.5 s\n42\n"),
            "42"
        );
        assert_eq!(normalize("100 loops, best of 3: 2.1 ms per loop\n"), "");
        assert_eq!(
            normalize("1/1 [====] - 2s 3ms/step - loss: 0.25"),
            "1/1 [====] - <duration> <duration>/step - loss: 2.50000e-1"
        );
        assert_eq!(normalize("numpy 1.15.0 x1.5"), "numpy 1.15.0 x1.5");
        assert_eq!(normalize("   a    b\n\n c  "), "a b c");
        assert_eq!(normalize("3 samples, 10 seconds"), "3 samples, <duration>");
        assert_eq!(normalize("[1.0, 2.5]"), "[1.00000e0, 2.50000e0]");
    }
}
