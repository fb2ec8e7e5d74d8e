//! `nbenv usage NB`: the environment evidence of one notebook, as compact text or JSON.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;

use anyhow::Context as _;
use clap::Args;

use nbenv::notebook::{
    self, AnalyzeOptions, Import, ImportVia, Location, Origin, OutputEvidence, PyVersion, Receiver,
    SourceFormat, Usage, KNOWN_VERSIONS,
};

use super::args::{Format, FormatArg, GlobalArgs};
use super::output::{count, write_json};

#[derive(Debug, Args)]
pub struct UsageArgs {
    /// The notebook: `.ipynb` (nbformat 3 or 4), a jupytext percent script or a plain `.py`.
    pub notebook: PathBuf,
    #[command(flatten)]
    pub format: FormatArg,
    /// A Python version the notebook may run on (repeatable): 2.7 or 3.6 to 3.14. Modules in
    /// the standard library of any of them are not third-party. Default: all of them.
    #[arg(long = "python", value_name = "X.Y", value_parser = parse_python)]
    pub python: Vec<PyVersion>,
    /// Do not look for local modules beside the notebook.
    #[arg(long)]
    pub no_local_modules: bool,
}

/// A version nbenv has a standard-library list for; any other would silently count every
/// stdlib module as third-party.
fn parse_python(s: &str) -> Result<PyVersion, String> {
    let known: Vec<String> = KNOWN_VERSIONS.iter().map(ToString::to_string).collect();
    let known = known.join(", ");
    let v = PyVersion::parse(s.trim())
        .filter(|_| s.trim().split('.').count() == 2)
        .ok_or_else(|| format!("`{s}` is not a Python version like 3.8 (known: {known})"))?;
    if !KNOWN_VERSIONS.contains(&v) {
        return Err(format!(
            "nbenv has no standard-library list for Python {v} (known: {known})"
        ));
    }
    Ok(v)
}

pub fn run(_global: &GlobalArgs, args: &UsageArgs) -> anyhow::Result<()> {
    let nb = notebook::read(&args.notebook)?;
    let mut options = AnalyzeOptions {
        scan_local_modules: !args.no_local_modules,
        ..AnalyzeOptions::default()
    };
    if !args.python.is_empty() {
        options.python_versions = args.python.clone();
    }
    let usage = notebook::analyze(&nb, &options);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
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

/// The text report: one header line, then one compact section per kind of evidence.
pub fn render(u: &Usage) -> String {
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
        "{} · {format} · {} cells, {} code",
        u.notebook.path.display(),
        u.notebook.cells,
        u.notebook.code_cells
    );
    if let Some(k) = u.python.kernel.as_ref().and_then(|k| k.name.as_deref()) {
        let _ = write!(s, " · kernel {k}");
    }
    if let Some(v) = &u.python.language_version {
        let _ = write!(s, " · Python {v}");
    }
    s.push_str("\n\n");

    let python = if u.python.conflict {
        "conflicting evidence (see below)".to_string()
    } else {
        u.python.range.to_string()
    };
    let _ = writeln!(s, "python       {python}");
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
    let _ = writeln!(
        s,
        "third-party  {}",
        if third.is_empty() {
            "none".to_string()
        } else {
            third.join(", ")
        }
    );
    if third.iter().any(|t| t.ends_with('?')) {
        s.push_str("             (? = only imported optionally)\n");
    }
    if !u.local_modules.is_empty() {
        let names: Vec<&str> = u.local_modules.iter().map(|m| m.name.as_str()).collect();
        let _ = writeln!(s, "local        {}", names.join(", "));
    }

    if !u.imports.is_empty() {
        let _ = writeln!(s, "\nimports ({})", u.imports.len());
        for i in &u.imports {
            let _ = writeln!(
                s,
                "  {:<7} {:<5} {}",
                i.at.to_string(),
                origin_tag(i.origin),
                import_text(i)
            );
        }
    }

    let third_apis: Vec<_> = u.third_party_apis().collect();
    let others = u.apis.len() - third_apis.len();
    if !u.apis.is_empty() {
        let _ = writeln!(
            s,
            "\napis ({} third-party{})",
            third_apis.len(),
            if others > 0 {
                format!(", {others} stdlib or local not shown")
            } else {
                String::new()
            }
        );
        let width = third_apis
            .iter()
            .map(|a| a.api.as_str().len())
            .max()
            .unwrap_or(0)
            .min(72);
        for a in &third_apis {
            let kinds: Vec<String> = a
                .kinds
                .iter()
                .map(|k| {
                    serde_json::to_value(k)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_owned))
                        .unwrap_or_default()
                })
                .collect();
            let keywords = if a.keywords.is_empty() {
                String::new()
            } else {
                format!("  kw: {}", a.keywords.join(", "))
            };
            let _ = writeln!(
                s,
                "  {:<width$}  {:>3}×  {:<22} {}{keywords}",
                a.api.as_str(),
                a.count,
                kinds.join(" "),
                locations(&a.locations),
            );
        }
    }

    if !u.members.is_empty() {
        let _ = writeln!(
            s,
            "\nmembers on values of unknown type ({})",
            u.members.len()
        );
        let width = u
            .members
            .iter()
            .map(|m| m.example.chars().count())
            .max()
            .unwrap_or(0)
            .min(40);
        for m in &u.members {
            let receiver = match &m.receiver {
                Receiver::Unknown => "unknown receiver".to_string(),
                Receiver::DerivedFrom(api) => format!("from {api}"),
            };
            let call = if m.called { "()" } else { "" };
            let _ = writeln!(
                s,
                "  {:<width$}  {:>3}×  {:<40} {}",
                format!("{}{call}", m.example),
                m.count,
                receiver,
                locations(&m.locations)
            );
        }
    }

    if !u.requirements.is_empty() {
        let _ = writeln!(s, "\ninstalls ({})", u.requirements.len());
        for r in &u.requirements {
            let installer = serde_json::to_value(r.installer)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default();
            let _ = writeln!(
                s,
                "  {:<7} {:<30} {:<6} {}{}",
                r.at.to_string(),
                r.requirement,
                installer,
                r.command,
                if r.optional { "  (optional)" } else { "" }
            );
        }
    }

    if !u.python.hints.is_empty() {
        let _ = writeln!(s, "\npython-version evidence ({})", u.python.hints.len());
        for h in &u.python.hints {
            let reason = serde_json::to_value(h.reason)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default();
            let at = h.at.map(|a| format!("  first {a}")).unwrap_or_default();
            let count = if h.count > 1 {
                format!("  ×{}", h.count)
            } else {
                String::new()
            };
            let _ = writeln!(
                s,
                "  {:<15} {:<38} {:<14}{}{count}{at}",
                reason,
                h.detail,
                h.range.to_string(),
                if h.weak { "  (weak)" } else { "" },
            );
        }
    }

    if !u.outputs.is_empty() {
        let _ = writeln!(s, "\nstored outputs ({})", u.outputs.len());
        for o in &u.outputs {
            let line = match o {
                OutputEvidence::LibraryPath {
                    module,
                    python,
                    cell,
                    count,
                } => format!(
                    "cell {cell:<3} library file  {module}{}{}",
                    python.map(|p| format!(" (python {p})")).unwrap_or_default(),
                    if *count > 1 {
                        format!("  ×{count}")
                    } else {
                        String::new()
                    }
                ),
                OutputEvidence::Warning {
                    category,
                    message,
                    cell,
                    ..
                } => format!("cell {cell:<3} warning       {category}: {message}"),
                OutputEvidence::Error {
                    ename,
                    evalue,
                    cell,
                } => format!("cell {cell:<3} error         {ename}: {evalue}"),
                OutputEvidence::Version {
                    module,
                    version,
                    cell,
                } => format!("cell {cell:<3} version       {module} {version}"),
                OutputEvidence::Installed {
                    name,
                    version,
                    cell,
                } => format!("cell {cell:<3} installed     {name} {version}"),
            };
            let line: String = line
                .chars()
                .map(|c| if c.is_control() { ' ' } else { c })
                .take(160)
                .collect();
            let _ = writeln!(s, "  {line}");
        }
    }

    if !u.notes.is_empty() {
        let _ = writeln!(s, "\nnotes ({})", u.notes.len());
        for n in &u.notes {
            let kind = serde_json::to_value(n.kind)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default();
            let _ = writeln!(s, "  {:<7} {:<19} {}", n.at.to_string(), kind, n.detail);
        }
    }

    if !u.warnings.is_empty() {
        let _ = writeln!(s, "\nwarnings ({})", u.warnings.len());
        for w in &u.warnings {
            let _ = writeln!(s, "  {:<7} {}", w.at.to_string(), w.message);
        }
    }
    s
}
