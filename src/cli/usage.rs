//! `nbenv usage NB`: the environment evidence of one notebook, as compact text or JSON.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;

use anyhow::Context as _;
use clap::Args;

use nbenv::commands::usage::UsageSettings;
use nbenv::notebook::{
    Import, ImportVia, LocalModule, LocalSource, Location, Origin, OutputEvidence, Receiver,
    SourceFormat, Usage,
};
use nbenv::python::PythonVersion;

use super::args::{Format, FormatArg};
use super::context::Global;
use super::output::{count, table, write_json};

#[derive(Debug, Args)]
pub struct UsageArgs {
    /// The notebook: `.ipynb` (nbformat 3 or 4), a jupytext percent script or a plain `.py`.
    pub notebook: PathBuf,
    #[command(flatten)]
    pub format: FormatArg,
    /// A Python version the notebook may run on (repeatable): 2.7 or 3.3 to 3.14. Modules in
    /// the standard library of any of them are not third-party. Default: all of them.
    #[arg(long = "python", value_name = "X.Y", value_parser = super::args::parse_python)]
    pub python: Vec<PythonVersion>,
    /// Do not look for local modules beside the notebook.
    #[arg(long)]
    pub no_local_modules: bool,
}

pub fn run(global: &Global, args: &UsageArgs) -> anyhow::Result<()> {
    let settings = UsageSettings {
        notebook: args.notebook.clone(),
        pythons: args.python.clone(),
        local_modules: !args.no_local_modules,
    };
    let usage = nbenv::commands::usage::run(&global.settings, &settings)?;
    let mut out = std::io::BufWriter::new(super::printer::stdout());
    match args.format.format {
        Format::Json => {
            write_json(&mut out, &usage)?;
        }
        Format::Text => out.write_all(render(&usage).as_bytes())?,
    }
    out.flush().context("writing to stdout")?;
    Ok(())
}

/// At most this many locations per line; the rest are counted.
const MAX_LOCATIONS: usize = 4;

fn locations(locs: &[Location]) -> String {
    let mut s = String::new();
    for (i, l) in locs.iter().take(MAX_LOCATIONS).enumerate() {
        if i > 0 {
            s.push(' ');
        }
        let _ = write!(s, "{l}");
    }
    if locs.len() > MAX_LOCATIONS {
        let _ = write!(s, " +{}", locs.len() - MAX_LOCATIONS);
    }
    s
}

fn origin_tag(o: Origin) -> &'static str {
    match o {
        Origin::ThirdParty => "3rd",
        Origin::Stdlib => "std",
        Origin::Local => "local",
        Origin::Kernel => "kernel",
    }
}

fn import_text(i: &Import) -> String {
    let dots = ".".repeat(i.level as usize);
    let alias = i
        .alias
        .as_deref()
        .map(|a| format!(" as {a}"))
        .unwrap_or_default();
    let statement = match (i.via, &i.name, i.star) {
        (ImportVia::LoadExt, _, _) => format!("%load_ext {}", i.module),
        (ImportVia::Magic, _, true) => format!("%pylab (from {} import *)", i.module),
        (ImportVia::Magic, _, false) => format!("magic needs {}", i.module),
        (_, _, true) => format!("from {dots}{} import *", i.module),
        (_, Some(name), _) => format!("from {dots}{} import {name}{alias}", i.module),
        (_, None, _) if i.level > 0 => format!("from {dots} import {}{alias}", i.module),
        (_, None, _) => format!("import {}{alias}", i.module),
    };
    let mut flags = Vec::new();
    if i.via == ImportVia::Cython {
        flags.push("%%cython");
    }
    if i.via == ImportVia::WrittenModule {
        flags.push("%%writefile");
    }
    if i.optional {
        flags.push("optional");
    }
    if i.in_function {
        flags.push("in function");
    }
    if flags.is_empty() {
        statement
    } else {
        format!("{statement}  ({})", flags.join(", "))
    }
}

fn snake(value: impl serde::Serialize) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// Where a local module comes from: its file, or the cell that writes it.
fn local_origin(m: &LocalModule) -> String {
    let file = m.file.as_ref().map(|f| f.display().to_string());
    match (m.source, file, m.at) {
        (LocalSource::WriteFile, _, Some(at)) => format!("%%writefile at {at}"),
        (LocalSource::SysPath, Some(file), Some(at)) => format!("{file}, sys.path at {at}"),
        (LocalSource::Repository, Some(file), _) => {
            match m.repository.as_ref().and_then(|r| r.project.as_ref()) {
                Some(p) => format!(
                    "{file}, the repository's package ({} names it)",
                    p.file.display()
                ),
                None => format!("{file}, in the repository"),
            }
        }
        (_, Some(file), _) => file,
        (_, None, Some(at)) => at.to_string(),
        (_, None, None) => String::new(),
    }
}

/// The text report: one header line, then one compact section per kind of evidence, each an
/// aligned table; a section with nothing in it is left out.
pub fn render(u: &Usage) -> String {
    [
        header(u),
        summary(u),
        imports(u),
        apis(u),
        members(u),
        installs(u),
        python_evidence(u),
        stored_outputs(u),
        notes(u),
        warnings(u),
    ]
    .concat()
}

/// The notebook, its format and cells, its kernel and Python.
fn header(u: &Usage) -> String {
    let mut s = String::new();
    let format = match u.notebook.format {
        SourceFormat::Ipynb {
            nbformat,
            nbformat_minor,
        } => format!("nbformat {nbformat}.{nbformat_minor}"),
        SourceFormat::PercentScript => "percent script".into(),
        SourceFormat::Script => "script".into(),
    };
    let _ = write!(
        s,
        "{} · {format} · {}, {} code",
        u.notebook.path.display(),
        count(u.notebook.cells as usize, "cell", "cells"),
        u.notebook.code_cells
    );
    if let Some(k) = u.python.kernel.as_ref().and_then(|k| k.name.as_deref()) {
        let _ = write!(s, " · kernel {k}");
    }
    if let Some(v) = &u.python.language_version {
        let _ = write!(s, " · Python {v}");
    }
    s.push_str("\n\n");
    s
}

/// The Python it allows, its third-party imports and its local modules, in brief.
fn summary(u: &Usage) -> String {
    let mut python = if u.python.conflict {
        "conflicting evidence (see below)".to_string()
    } else {
        u.python.range.to_string()
    };
    // What the code allows binds; where it last ran is a preference, said beside it.
    if let Some(r) = u.python.recorded() {
        let _ = write!(python, " (last ran on {})", r.range);
    }
    let mut summary = vec![vec!["python".to_string(), python]];
    let third: Vec<String> = u
        .third_party
        .iter()
        .map(|t| {
            if t.optional {
                format!("{}?", t.name)
            } else {
                t.name.to_string()
            }
        })
        .collect();
    summary.push(vec![
        "third-party".into(),
        if third.is_empty() {
            "none".to_string()
        } else {
            third.join(", ")
        },
    ]);
    if third.iter().any(|t| t.ends_with('?')) {
        summary.push(vec![String::new(), "(? = only imported optionally)".into()]);
    }
    if !u.local_modules.is_empty() {
        let names: Vec<String> = u
            .local_modules
            .iter()
            .map(|m| match local_origin(m) {
                o if o.is_empty() => m.name.clone(),
                o => format!("{} ({o})", m.name),
            })
            .collect();
        summary.push(vec!["local".into(), names.join(", ")]);
    }
    table(&summary, "", &[])
}

/// A titled section (`title (count)`) of aligned rows; nothing when there are no rows.
fn section(title: &str, rows: &[Vec<String>], right: &[usize]) -> String {
    if rows.is_empty() {
        return String::new();
    }
    format!("\n{title}\n{}", table(rows, "  ", right))
}

fn imports(u: &Usage) -> String {
    let rows: Vec<Vec<String>> = u
        .imports
        .iter()
        .map(|i| {
            vec![
                i.at.to_string(),
                origin_tag(i.origin).to_string(),
                import_text(i),
            ]
        })
        .collect();
    section(&format!("imports ({})", u.imports.len()), &rows, &[])
}

/// Third-party APIs only; how many others there were is said in the title.
fn apis(u: &Usage) -> String {
    if u.apis.is_empty() {
        return String::new();
    }
    let third_apis: Vec<_> = u.third_party_apis().collect();
    let others = u.apis.len() - third_apis.len();
    let title = format!(
        "apis ({} third-party{})",
        third_apis.len(),
        if others > 0 {
            format!(", {others} stdlib or local not shown")
        } else {
            String::new()
        }
    );
    let rows: Vec<Vec<String>> = third_apis
        .iter()
        .map(|a| {
            let kinds: Vec<String> = a.kinds.iter().map(snake).collect();
            let keywords = if a.keywords.is_empty() {
                String::new()
            } else {
                format!("  kw: {}", a.keywords.join(", "))
            };
            vec![
                a.api.as_str().to_string(),
                format!("{}×", a.count),
                kinds.join(" "),
                format!("{}{keywords}", locations(&a.locations)),
            ]
        })
        .collect();
    format!("\n{title}\n{}", table(&rows, "  ", &[1]))
}

fn members(u: &Usage) -> String {
    let rows: Vec<Vec<String>> = u
        .members
        .iter()
        .map(|m| {
            let receiver = match &m.receiver {
                Receiver::Unknown => "unknown receiver".to_string(),
                Receiver::DerivedFrom(api) => format!("from {api}"),
            };
            let call = if m.called { "()" } else { "" };
            vec![
                format!("{}{call}", m.example),
                format!("{}×", m.count),
                receiver,
                locations(&m.locations),
            ]
        })
        .collect();
    let title = format!("members on values of unknown type ({})", u.members.len());
    section(&title, &rows, &[1])
}

/// What the notebook installs itself (`!pip install`, `%conda install`).
fn installs(u: &Usage) -> String {
    let rows: Vec<Vec<String>> = u
        .requirements
        .iter()
        .map(|r| {
            vec![
                r.at.to_string(),
                r.requirement.to_string(),
                snake(r.installer),
                format!(
                    "{}{}",
                    r.command,
                    if r.optional { "  (optional)" } else { "" }
                ),
            ]
        })
        .collect();
    section(&format!("installs ({})", u.requirements.len()), &rows, &[])
}

fn python_evidence(u: &Usage) -> String {
    let rows: Vec<Vec<String>> = u
        .python
        .hints
        .iter()
        .map(|h| {
            vec![
                snake(h.reason),
                h.detail.clone(),
                h.range.to_string(),
                if h.count > 1 {
                    format!("×{}", h.count)
                } else {
                    String::new()
                },
                h.at.map(|a| format!("first {a}")).unwrap_or_default(),
                if h.weak { "(weak)" } else { "" }.to_string(),
            ]
        })
        .collect();
    let title = format!("python-version evidence ({})", u.python.hints.len());
    section(&title, &rows, &[])
}

fn stored_outputs(u: &Usage) -> String {
    let rows: Vec<Vec<String>> = u.outputs.iter().flat_map(output_rows).collect();
    section(&format!("stored outputs ({})", u.outputs.len()), &rows, &[])
}

/// One stored output's row; an error's class goes on a row of its own, under the message.
fn output_rows(o: &OutputEvidence) -> Vec<Vec<String>> {
    let mut class = None;
    let (cell, kind, text) = match o {
        OutputEvidence::LibraryPath {
            module,
            python,
            cell,
            count,
        } => (
            cell,
            "library file",
            format!(
                "{module}{}{}",
                python.map(|p| format!(" (python {p})")).unwrap_or_default(),
                if *count > 1 {
                    format!("  ×{count}")
                } else {
                    String::new()
                }
            ),
        ),
        OutputEvidence::Warning {
            category,
            message,
            cell,
            ..
        } => (cell, "warning", format!("{category}: {message}")),
        OutputEvidence::Error {
            ename,
            evalue,
            cell,
            failure,
        } => {
            class = failure.as_ref().map(|f| format!("→ {f}"));
            let evalue = evalue.lines().next().unwrap_or("");
            (cell, "error", format!("{ename}: {evalue}"))
        }
        OutputEvidence::Version {
            module,
            version,
            cell,
        } => (cell, "version", format!("{module} {version}")),
        OutputEvidence::Installed {
            name,
            version,
            cell,
        } => (cell, "installed", format!("{name} {version}")),
    };
    let clean = |text: &str| -> String {
        text.chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .take(140)
            .collect()
    };
    let mut rows = vec![vec![format!("cell {cell}"), kind.to_string(), clean(&text)]];
    if let Some(class) = class {
        rows.push(vec![String::new(), String::new(), clean(&class)]);
    }
    rows
}

fn notes(u: &Usage) -> String {
    let rows: Vec<Vec<String>> = u
        .notes
        .iter()
        .map(|n| vec![n.at.to_string(), snake(n.kind), n.detail.clone()])
        .collect();
    section(&format!("notes ({})", u.notes.len()), &rows, &[])
}

fn warnings(u: &Usage) -> String {
    let rows: Vec<Vec<String>> = u
        .warnings
        .iter()
        .map(|w| vec![w.at.to_string(), w.message.clone()])
        .collect();
    section(&format!("warnings ({})", u.warnings.len()), &rows, &[])
}
