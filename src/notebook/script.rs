//! Reading `.py` files: jupytext percent scripts (`# %%` cells, magics commented out as
//! `# %matplotlib inline`) and plain scripts, which nbconvert may have split with `# In[ ]:`.

use std::path::Path;

use super::format::{Cell, CellKind, Kernel, Notebook, SourceFormat};

/// Splits a script into cells; `path` is only recorded.
pub(crate) fn parse(path: &Path, text: &str) -> Notebook {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let lines: Vec<&str> = text.lines().collect();
    let percent = lines.iter().any(|l| is_percent_marker(l));
    let (header_end, kernel) = jupytext_header(&lines);
    let body = &lines[header_end..];
    let mut cells = Vec::new();
    if percent {
        split(body, &mut cells, |l| {
            is_percent_marker(l).then(|| percent_kind(l))
        });
        for cell in &mut cells {
            if cell.kind == CellKind::Code {
                cell.source = uncomment_magics(&cell.source);
            }
        }
    } else if body.iter().any(|l| is_nbconvert_marker(l).is_some()) {
        split(body, &mut cells, is_nbconvert_marker);
    } else {
        cells.push(code_cell(1, body.join("\n")));
    }
    Notebook {
        path: path.to_path_buf(),
        format: if percent {
            SourceFormat::PercentScript
        } else {
            SourceFormat::Script
        },
        kernel,
        language_version: None,
        cells,
    }
}

fn code_cell(number: u32, source: String) -> Cell {
    Cell {
        number,
        kind: CellKind::Code,
        source,
        execution_count: None,
        outputs: Vec::new(),
    }
}

/// Splits at marker lines (which are not part of any cell). Text before the first marker is a
/// cell only if it holds more than comments (a shebang and `# coding:` line are not a cell).
fn split(lines: &[&str], cells: &mut Vec<Cell>, marker: impl Fn(&str) -> Option<CellKind>) {
    let mut kind = CellKind::Code;
    let mut current: Vec<&str> = Vec::new();
    let mut seen_marker = false;
    let flush = |kind: CellKind, current: &mut Vec<&str>, seen: bool, cells: &mut Vec<Cell>| {
        let has_code = current.iter().any(|l| {
            let t = l.trim();
            !t.is_empty() && !t.starts_with('#')
        });
        if seen || has_code {
            let mut cell = code_cell(cells.len() as u32 + 1, current.join("\n"));
            cell.kind = kind;
            cells.push(cell);
        }
        current.clear();
    };
    for line in lines {
        if let Some(next) = marker(line) {
            flush(kind, &mut current, seen_marker, cells);
            kind = next;
            seen_marker = true;
        } else {
            current.push(line);
        }
    }
    flush(kind, &mut current, seen_marker, cells);
}

/// `# %%`, `# %% title`, `# %% [markdown]` (jupytext, VS Code, Spyder).
fn is_percent_marker(line: &str) -> bool {
    let Some(rest) = line.strip_prefix('#') else {
        return false;
    };
    let Some(rest) = rest.trim_start_matches(' ').strip_prefix("%%") else {
        return false;
    };
    rest.is_empty() || rest.starts_with(char::is_whitespace)
}

fn percent_kind(line: &str) -> CellKind {
    if line.contains("[markdown]") || line.contains("[md]") {
        CellKind::Markdown
    } else if line.contains("[raw]") {
        CellKind::Raw
    } else {
        CellKind::Code
    }
}

/// nbconvert's `# In[3]:` and IPython 1's `# <codecell>` / `# <markdowncell>`.
fn is_nbconvert_marker(line: &str) -> Option<CellKind> {
    let t = line.trim_end();
    if let Some(rest) = t.strip_prefix("# In[") {
        let inner = rest.strip_suffix("]:")?;
        return inner
            .chars()
            .all(|c| c.is_ascii_digit() || c == ' ')
            .then_some(CellKind::Code);
    }
    match t {
        "# <codecell>" => Some(CellKind::Code),
        "# <markdowncell>" => Some(CellKind::Markdown),
        "# <rawcell>" => Some(CellKind::Raw),
        _ => None,
    }
}

/// Shell commands jupytext comments out (`# !pip install x`). Only well-known commands are
/// uncommented so that prose comments starting with `!` stay comments.
const SHELL_WORDS: &[&str] = &[
    "pip",
    "pip3",
    "conda",
    "mamba",
    "python",
    "python3",
    "wget",
    "curl",
    "git",
    "apt",
    "apt-get",
    "sudo",
    "unzip",
    "tar",
    "ls",
    "mkdir",
    "cd",
    "rm",
    "cp",
    "mv",
    "cat",
    "nvidia-smi",
    "echo",
    "kaggle",
    "gdown",
    "head",
];

/// Jupytext writes magics as comments (`# %matplotlib inline`); make them magics again.
fn uncomment_magics(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    for (i, line) in source.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let indent_len = line.len() - line.trim_start().len();
        let (indent, rest) = line.split_at(indent_len);
        let uncommented = rest.strip_prefix("# ").filter(|r| is_commented_magic(r));
        match uncommented {
            Some(magic) => {
                out.push_str(indent);
                out.push_str(magic);
            }
            None => out.push_str(line),
        }
    }
    out
}

fn is_commented_magic(rest: &str) -> bool {
    if let Some(m) = rest.strip_prefix('%') {
        let m = m.strip_prefix('%').unwrap_or(m);
        return m.starts_with(|c: char| c.is_ascii_alphabetic());
    }
    if let Some(cmd) = rest.strip_prefix('!') {
        let word = cmd
            .trim_start()
            .split(|c: char| c.is_whitespace())
            .next()
            .unwrap_or("");
        return SHELL_WORDS.contains(&word);
    }
    false
}

/// The jupytext YAML header (`# ---` … `# ---`): its kernelspec tells the language.
fn jupytext_header(lines: &[&str]) -> (usize, Option<Kernel>) {
    let mut i = 0;
    while i < lines.len() && (lines[i].trim().is_empty() || lines[i].starts_with("#!")) {
        i += 1;
    }
    if lines.get(i).map(|l| l.trim_end()) != Some("# ---") {
        return (0, None);
    }
    let start = i;
    let Some(end) = lines[start + 1..]
        .iter()
        .position(|l| l.trim_end() == "# ---")
        .map(|p| start + 1 + p)
    else {
        return (0, None);
    };
    let mut kernel = Kernel::default();
    let mut in_kernelspec = false;
    for line in &lines[start + 1..end] {
        let body = line.trim_start_matches('#');
        let trimmed = body.trim();
        if trimmed == "kernelspec:" {
            in_kernelspec = true;
            continue;
        }
        if !body.starts_with("     ") && !trimmed.is_empty() {
            in_kernelspec = false;
        }
        if in_kernelspec {
            if let Some((key, value)) = trimmed.split_once(':') {
                let value = Some(value.trim().trim_matches('"').to_string());
                match key {
                    "name" => kernel.name = value,
                    "display_name" => kernel.display_name = value,
                    "language" => kernel.language = value,
                    _ => {}
                }
            }
        }
    }
    let kernel = (kernel != Kernel::default()).then_some(kernel);
    (end + 1, kernel)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_cells_and_magics() {
        let nb = parse(
            Path::new("a.py"),
            "# ---\n# jupyter:\n#   kernelspec:\n#     display_name: Python 3\n#     language: python\n#     name: python3\n# ---\n\n# %% [markdown]\n# # Title\n\n# %%\n# %matplotlib inline\nimport numpy as np\n# !pip install x\n# !important: a comment\n\n# %%\nnp.zeros(3)\n",
        );
        assert_eq!(nb.format, SourceFormat::PercentScript);
        assert_eq!(nb.kernel.unwrap().name.as_deref(), Some("python3"));
        assert_eq!(nb.cells.len(), 3);
        assert_eq!(nb.cells[0].kind, CellKind::Markdown);
        assert_eq!(
            nb.cells[1].source,
            "%matplotlib inline\nimport numpy as np\n!pip install x\n# !important: a comment\n"
        );
        assert_eq!(nb.cells[2].number, 3);
    }

    #[test]
    fn plain_and_nbconvert_scripts() {
        let nb = parse(Path::new("a.py"), "import os\nos.getcwd()\n");
        assert_eq!(nb.cells.len(), 1);
        assert_eq!(nb.format, SourceFormat::Script);
        let nb = parse(
            Path::new("a.py"),
            "#!/usr/bin/env python\n# coding: utf-8\n\n# In[1]:\n\n\nimport os\n\n\n# In[ ]:\n\n\nos.getcwd()\n",
        );
        assert_eq!(nb.cells.len(), 2);
        assert!(nb.cells[1].source.contains("os.getcwd()"));
    }
}
