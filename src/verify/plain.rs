//! A cell as plain Python, for interpreters without IPython: `%magic args` becomes
//! `get_ipython().run_line_magic('magic', 'args')`, `!cmd` `get_ipython().system('cmd')`,
//! `x = !cmd` `x = get_ipython().getoutput('cmd')`, a `%%magic` cell one
//! `run_cell_magic` call, the way IPython's own input transformers rewrite them. The
//! runner's small shell answers those calls. Line numbers stay those of the cell, so that
//! tracebacks point at the right lines.

use ruff_python_ast::visitor::{walk_expr, walk_stmt, Visitor};
use ruff_python_ast::{Expr, IpyEscapeKind, Mod, Stmt};
use ruff_python_parser::{Mode, ParseOptions};
use ruff_text_size::{Ranged, TextRange};

use crate::notebook::cell::{self, CellCode};

/// `source` (a code cell) as Python that plain exec can run.
pub fn plain_source(source: &str) -> String {
    match cell::split(source) {
        CellCode::CellMagic {
            name,
            args,
            line,
            body,
        } => format!(
            "{}get_ipython().run_cell_magic({}, {}, {}, first_line={})\n",
            "\n".repeat(line.saturating_sub(1) as usize),
            py_str(name),
            py_str(args),
            py_str(body),
            line + 1
        ),
        CellCode::Python {
            source,
            line_offset,
        } => {
            let mut out = "\n".repeat(line_offset as usize);
            out.push_str(&replace_escapes(&source));
            out
        }
    }
}

struct Escape {
    range: TextRange,
    kind: IpyEscapeKind,
    value: String,
    statement: bool,
}

#[derive(Default)]
struct Collector {
    found: Vec<Escape>,
}

impl<'a> Visitor<'a> for Collector {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        if let Stmt::IpyEscapeCommand(c) = stmt {
            self.found.push(Escape {
                range: c.range(),
                kind: c.kind,
                value: c.value.to_string(),
                statement: true,
            });
        } else {
            walk_stmt(self, stmt);
        }
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        if let Expr::IpyEscapeCommand(c) = expr {
            self.found.push(Escape {
                range: c.range(),
                kind: c.kind,
                value: c.value.to_string(),
                statement: false,
            });
        } else {
            walk_expr(self, expr);
        }
    }
}

fn replace_escapes(source: &str) -> String {
    let Ok(parsed) = crate::parse::unchecked(source, ParseOptions::from(Mode::Ipython)) else {
        return source.to_string();
    };
    let mut collector = Collector::default();
    if let Mod::Module(module) = parsed.syntax() {
        for stmt in &module.body {
            collector.visit_stmt(stmt);
        }
    }
    let mut found = collector.found;
    if found.is_empty() {
        return source.to_string();
    }
    found.sort_by_key(|e| e.range.start());
    let mut out = String::with_capacity(source.len() + 64);
    let mut pos = 0usize;
    for e in found {
        let start = e.range.start().to_usize();
        let end = e.range.end().to_usize();
        if start < pos || end > source.len() {
            continue;
        }
        out.push_str(&source[pos..start]);
        out.push_str(&replacement(&e));
        // Continuation lines of the command become blank lines: line numbers stay.
        let newlines = source[start..end].matches('\n').count();
        out.push_str(&"\n".repeat(newlines));
        pos = end;
    }
    out.push_str(&source[pos..]);
    out
}

fn replacement(e: &Escape) -> String {
    let value = e.value.trim();
    let (head, rest) = match value.find(char::is_whitespace) {
        Some(i) => (&value[..i], value[i..].trim_start()),
        None => (value, ""),
    };
    match e.kind {
        IpyEscapeKind::Shell if e.statement => format!("get_ipython().system({})", py_str(value)),
        IpyEscapeKind::Shell | IpyEscapeKind::ShCap => {
            format!("get_ipython().getoutput({})", py_str(value))
        }
        IpyEscapeKind::Magic => format!(
            "get_ipython().run_line_magic({}, {})",
            py_str(head.trim_start_matches('%')),
            py_str(rest)
        ),
        IpyEscapeKind::Magic2 => format!(
            "get_ipython().run_cell_magic({}, {}, '')",
            py_str(head.trim_start_matches('%')),
            py_str(rest)
        ),
        IpyEscapeKind::Help | IpyEscapeKind::Help2 => {
            if e.statement {
                "pass".to_string()
            } else {
                "None".to_string()
            }
        }
        IpyEscapeKind::Quote => {
            let args: Vec<String> = rest.split_whitespace().map(py_str).collect();
            format!("{head}({})", args.join(", "))
        }
        IpyEscapeKind::Quote2 => format!("{head}({})", py_str(rest)),
        IpyEscapeKind::Paren => {
            let args: Vec<&str> = rest.split_whitespace().collect();
            format!("{head}({})", args.join(", "))
        }
    }
}

/// A Python string literal with the same text on Python 2 and 3.
fn py_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_become_calls() {
        assert_eq!(
            plain_source("%matplotlib inline\nimport numpy as np\n!ls -l 'a b'\nfiles = !ls\n"),
            "get_ipython().run_line_magic('matplotlib', 'inline')\nimport numpy as np\n\
             get_ipython().system('ls -l \\'a b\\'')\nfiles = get_ipython().getoutput('ls')\n"
        );
        assert_eq!(
            plain_source("if True:\n    %time x = f(1)\n    np.sum?\n"),
            "if True:\n    get_ipython().run_line_magic('time', 'x = f(1)')\n    pass\n"
        );
    }

    #[test]
    fn line_numbers_are_kept() {
        // A continued command keeps its lines as blank ones; leading blank lines stay.
        let out = plain_source("\n!pip install \\\n  numpy\nx = 1\n");
        assert_eq!(
            out,
            "\nget_ipython().system('pip install   numpy')\n\nx = 1\n"
        );
        let out = plain_source("\n%%writefile helpers.py\ndef f():\n    return 1\n");
        assert_eq!(
            out,
            "\nget_ipython().run_cell_magic('writefile', 'helpers.py', 'def f():\\n    return 1\\n', first_line=3)\n"
        );
        // An indented cell is dedented, as IPython before 9 did.
        assert_eq!(plain_source("  x = 1\n  y = 2\n"), "x = 1\ny = 2\n");
    }
}
