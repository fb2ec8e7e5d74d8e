//! Frames out of a stored traceback: the lines Jupyter saved with an error output, in the
//! shapes IPython printed them over the years (colour codes removed first):
//!
//! - IPython ≤ 7: `<ipython-input-3-5f…> in <module>()` or `/…/frame.py in __getattr__(self,
//!   name)`, then the source with the failing line marked `---->  12 code`;
//! - ipykernel 6: the cell as `/tmp/ipykernel_30/3171946164.py in <module>`;
//! - IPython 8: `Cell In[3], line 1` (8.0–8.4: `Input In [3], in <cell line: 1>()`) and
//!   `File /…/frame.py:5575, in NDFrame.__getattr__(self, name)`;
//! - plain Python: `File "x.py", line 3, in f`.
//!
//! When exceptions are chained, only the frames of the last one are kept.

use super::frame::Frame;
use crate::notebook::outputs::strip_ansi;

/// The frames of `traceback` (one string per entry, each possibly several lines), outermost
/// first. `cell_of_count` maps an execution count (`In [3]`) to the cell that has it.
pub(crate) fn parse(
    traceback: &[String],
    cell_of_count: &dyn Fn(u32) -> Option<u32>,
) -> Vec<Frame> {
    let mut frames: Vec<Frame> = Vec::new();
    for entry in traceback {
        let entry = strip_ansi(entry);
        for line in entry.lines() {
            let trimmed = line.trim();
            if trimmed.starts_with("During handling of the above exception")
                || trimmed.starts_with("The above exception was the direct cause")
            {
                frames.clear();
                continue;
            }
            if let Some(frame) = header(trimmed, cell_of_count) {
                frames.push(frame);
                continue;
            }
            if let Some((number, code)) = arrow(trimmed) {
                if let Some(last) = frames.last_mut() {
                    last.line = Some(number);
                    last.code = Some(code.to_string());
                }
            } else if let Some(last) = frames.last_mut() {
                // Plain Python prints the source line under its `File` line.
                if last.code.is_none()
                    && last.line.is_some()
                    && !trimmed.is_empty()
                    && line.starts_with("    ")
                    && !trimmed.starts_with('^')
                    && !trimmed.starts_with('~')
                {
                    last.code = Some(trimmed.to_string());
                }
            }
        }
    }
    frames
}

fn frame(file: &str, line: Option<u32>, function: Option<&str>, cell: Option<u32>) -> Frame {
    Frame {
        file: file.to_string(),
        line,
        function: function
            .map(|f| f.split('(').next().unwrap_or(f).trim().to_string())
            .filter(|f| !f.is_empty()),
        code: None,
        cell,
    }
}

/// A frame's first line, in any of the shapes above.
fn header(line: &str, cell_of_count: &dyn Fn(u32) -> Option<u32>) -> Option<Frame> {
    // plain: File "x.py", line 3, in f
    if let Some(rest) = line.strip_prefix("File \"") {
        let (file, rest) = rest.split_once('"')?;
        let rest = rest.trim_start_matches(',').trim();
        let rest = rest.strip_prefix("line ")?;
        let (number, function) = match rest.split_once(", in ") {
            Some((n, f)) => (n, Some(f)),
            None => (rest, None),
        };
        let count = execution_count(file);
        return Some(frame(
            file,
            number.trim().parse().ok(),
            function,
            count.and_then(cell_of_count),
        ));
    }
    // IPython 8: Cell In[3], line 1
    if let Some(rest) = line.strip_prefix("Cell In[") {
        let (count, rest) = rest.split_once(']')?;
        let count: u32 = count.trim().parse().ok()?;
        let number = rest
            .trim_start_matches(',')
            .trim()
            .strip_prefix("line ")
            .and_then(|n| n.split(|c: char| !c.is_ascii_digit()).next())
            .and_then(|n| n.parse().ok());
        return Some(frame(
            &format!("In[{count}]"),
            number,
            None,
            cell_of_count(count),
        ));
    }
    // IPython 8.0–8.4: Input In [3], in <cell line: 1>()
    if let Some(rest) = line.strip_prefix("Input In [") {
        let (count, rest) = rest.split_once(']')?;
        let count: u32 = count.trim().parse().ok()?;
        let function = rest.split_once(", in ").map(|(_, f)| f);
        return Some(frame(
            &format!("In[{count}]"),
            None,
            function,
            cell_of_count(count),
        ));
    }
    // IPython 8: File /…/frame.py:5575, in NDFrame.__getattr__(self, name)
    if let Some(rest) = line.strip_prefix("File ") {
        let (location, function) = match rest.split_once(", in ") {
            Some((l, f)) => (l, Some(f)),
            None => (rest, None),
        };
        let (file, number) = match location.rsplit_once(':') {
            Some((f, n)) if n.bytes().all(|b| b.is_ascii_digit()) && !n.is_empty() => {
                (f, n.parse().ok())
            }
            _ => (location, None),
        };
        if looks_like_file(file) {
            return Some(frame(file, number, function, None));
        }
        return None;
    }
    // IPython ≤ 7: <file> in <function>(<args>)
    let (file, function) = line.split_once(" in ")?;
    if !looks_like_file(file) || file.contains(' ') && !file.starts_with('<') {
        return None;
    }
    let count = execution_count(file);
    Some(frame(
        file,
        None,
        Some(function),
        count.and_then(cell_of_count),
    ))
}

fn looks_like_file(s: &str) -> bool {
    (s.starts_with("<ipython-input-") && s.ends_with('>'))
        || s.ends_with(".py")
        || s.ends_with(".pyc")
        || s.ends_with(".pyx")
        || s.ends_with(".so")
        || s.starts_with("<frozen ")
        || s == "<string>"
}

/// `<ipython-input-3-5f2a…>` → 3.
fn execution_count(file: &str) -> Option<u32> {
    let rest = file.strip_prefix("<ipython-input-")?;
    rest.split('-').next()?.parse().ok()
}

/// `----> 12     code` (IPython marks the failing line, `-> 12` in library frames) →
/// (12, `code`).
fn arrow(line: &str) -> Option<(u32, &str)> {
    let rest = line
        .strip_prefix('-')?
        .trim_start_matches('-')
        .strip_prefix('>')?;
    let rest = rest.trim_start();
    let end = rest.find(|c: char| !c.is_ascii_digit())?;
    let number = rest[..end].parse().ok()?;
    Some((number, rest[end..].trim()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_counts(_: u32) -> Option<u32> {
        None
    }

    #[test]
    fn ipython_7_tracebacks() {
        let tb = vec![
            "\u{1b}[0;31m---------------------------------------------------------------------------\u{1b}[0m".to_string(),
            "\u{1b}[0;31mAttributeError\u{1b}[0m                            Traceback (most recent call last)".to_string(),
            "\u{1b}[0;32m<ipython-input-4-9f8e>\u{1b}[0m in \u{1b}[0;36m<module>\u{1b}[0;34m()\u{1b}[0m\n\u{1b}[1;32m      1\u{1b}[0m \u{1b}[0mdf\u{1b}[0m \u{1b}[0;34m=\u{1b}[0m \u{1b}[0mpd\u{1b}[0m\n\u{1b}[0;32m----> 2\u{1b}[0;31m \u{1b}[0mdf\u{1b}[0m\u{1b}[0;34m.\u{1b}[0m\u{1b}[0mix\u{1b}[0m\u{1b}[0;34m[\u{1b}[0m\u{1b}[0;36m0\u{1b}[0m\u{1b}[0;34m]\u{1b}[0m\u{1b}[0;34m\u{1b}[0m\u{1b}[0m\n".to_string(),
            "\u{1b}[0;32m/usr/local/lib/python3.6/site-packages/pandas/core/generic.py\u{1b}[0m in \u{1b}[0;36m__getattr__\u{1b}[0;34m(self, name)\u{1b}[0m\n\u{1b}[1;32m   4375\u{1b}[0m             \u{1b}[0;32mreturn\u{1b}[0m \u{1b}[0mself\u{1b}[0m\u{1b}[0;34m[\u{1b}[0m\u{1b}[0mname\u{1b}[0m\u{1b}[0;34m]\u{1b}[0m\u{1b}[0;34m\u{1b}[0m\u{1b}[0m\n\u{1b}[0;32m-> 4376\u{1b}[0;31m             \u{1b}[0;32mreturn\u{1b}[0m \u{1b}[0mobject\u{1b}[0m\u{1b}[0;34m.\u{1b}[0m\u{1b}[0m__getattribute__\u{1b}[0m\u{1b}[0;34m(\u{1b}[0m\u{1b}[0mself\u{1b}[0m\u{1b}[0;34m,\u{1b}[0m \u{1b}[0mname\u{1b}[0m\u{1b}[0;34m)\u{1b}[0m\u{1b}[0;34m\u{1b}[0m\u{1b}[0m\n\u{1b}[0m".to_string(),
            "\u{1b}[0;31mAttributeError\u{1b}[0m: 'DataFrame' object has no attribute 'ix'".to_string(),
        ];
        let frames = parse(&tb, &|n| (n == 4).then_some(7));
        assert_eq!(frames.len(), 2, "{frames:?}");
        assert_eq!(frames[0].cell, Some(7));
        assert_eq!(frames[0].line, Some(2));
        assert_eq!(frames[0].code.as_deref(), Some("df.ix[0]"));
        assert_eq!(frames[1].function.as_deref(), Some("__getattr__"));
        assert_eq!(frames[1].line, Some(4376));
        assert_eq!(frames[1].library().unwrap().as_str(), "pandas.core.generic");
    }

    #[test]
    fn ipython_8_and_plain_tracebacks() {
        let tb = vec![
            "Cell In[3], line 2\n      1 import numpy as np\n----> 2 np.float(1)\n".to_string(),
            "File /v/lib/python3.11/site-packages/numpy/__init__.py:324, in __getattr__(attr)\n    319     import warnings\n--> 324     raise AttributeError(__former_attrs__[attr])\n".to_string(),
        ];
        let frames = parse(&tb, &|n| (n == 3).then_some(5));
        assert_eq!(frames.len(), 2);
        assert_eq!((frames[0].cell, frames[0].line), (Some(5), Some(2)));
        assert_eq!(
            frames[1].file,
            "/v/lib/python3.11/site-packages/numpy/__init__.py"
        );
        assert_eq!(frames[1].line, Some(324));
        assert_eq!(frames[1].function.as_deref(), Some("__getattr__"));

        let tb = vec![
            "Traceback (most recent call last):\n  File \"<ipython-input-2-aa>\", line 1, in <module>\n    import foo\n  File \"/x/helpers.py\", line 3, in <module>\n    import bar\nImportError: No module named bar\n".to_string(),
        ];
        let frames = parse(&tb, &no_counts);
        assert_eq!(frames.len(), 2);
        assert_eq!(frames[0].code.as_deref(), Some("import foo"));
        assert_eq!(frames[1].file, "/x/helpers.py");
        assert_eq!(frames[1].line, Some(3));
    }

    #[test]
    fn chained_exceptions_keep_the_last() {
        let tb = vec![
            "File \"/a.py\", line 1, in f\n".to_string(),
            "During handling of the above exception, another exception occurred:\n".to_string(),
            "File \"/b.py\", line 2, in g\n".to_string(),
        ];
        let frames = parse(&tb, &no_counts);
        assert_eq!(frames.len(), 1);
        assert_eq!(frames[0].file, "/b.py");
    }
}
