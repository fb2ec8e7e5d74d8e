//! `nbenv index`: look at what a package index says about a project.

use std::io::Write;
use std::str::FromStr;

use anyhow::Result;
use clap::{Args, Subcommand};
use nbenv::commands::index::{self, ReleaseMetadata};
use nbenv::commands::CommandError;
use nbenv::names::DistName;
use nbenv::pypi::{FileKind, ProjectPage, Release, Version};
use serde_json::json;

use super::args::{Format, FormatArg};
use super::context::Global;
use super::exit::{self, CliError};
use super::output::{table, write_json};

#[derive(Debug, Args)]
pub struct IndexArgs {
    #[command(subcommand)]
    pub command: IndexCommand,
}

#[derive(Debug, Subcommand)]
pub enum IndexCommand {
    /// Versions with upload dates, wheel/sdist, requires-python and yanked state.
    Releases {
        /// One or more projects, e.g. `numpy`; several are fetched in parallel.
        #[arg(required = true, value_name = "NAME")]
        names: Vec<DistName>,
        #[command(flatten)]
        format: FormatArg,
    },
    /// The files of one release, with their tags, sizes and hashes.
    Files {
        /// The release, e.g. `six==1.16.0`.
        #[arg(value_name = "NAME==VERSION")]
        spec: ReleaseSpec,
        #[command(flatten)]
        format: FormatArg,
    },
    /// The core metadata of one release (Requires-Dist, Requires-Python, extras).
    Metadata {
        /// The release, e.g. `pandas==0.20.0`.
        #[arg(value_name = "NAME==VERSION")]
        spec: ReleaseSpec,
        #[command(flatten)]
        format: FormatArg,
    },
}

/// `NAME==VERSION` on the command line.
#[derive(Debug, Clone)]
pub struct ReleaseSpec {
    pub name: DistName,
    pub version: Version,
}

impl FromStr for ReleaseSpec {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let (name, version) = s
            .split_once("==")
            .ok_or_else(|| format!("`{s}` is not NAME==VERSION"))?;
        Ok(Self {
            name: DistName::new(name.trim()).map_err(|e| e.to_string())?,
            version: Version::from_str(version.trim())
                .map_err(|e| format!("`{version}` is not a PEP 440 version: {e}"))?,
        })
    }
}

pub fn run(global: &Global, args: &IndexArgs) -> Result<()> {
    let settings = &global.settings;
    match &args.command {
        IndexCommand::Releases { names, format } => {
            releases(index::releases(settings, names)?, format.format)
        }
        IndexCommand::Files { spec, format } => files(
            &index::release(settings, &spec.name, &spec.version)?,
            spec,
            format.format,
        ),
        IndexCommand::Metadata { spec, format } => metadata(
            &index::metadata(settings, &spec.name, &spec.version)?,
            format.format,
        ),
    }
}

fn releases(pages: Vec<Result<ProjectPage, CommandError>>, format: Format) -> Result<()> {
    let asked = pages.len();
    let mut out = super::printer::stdout();
    let mut json_pages = Vec::new();
    let mut first_error = None;
    for (i, page) in pages.into_iter().enumerate() {
        let page = match page {
            Ok(p) => p,
            // Said here, once, so the other projects' results still follow.
            Err(e) if asked > 1 => {
                let e = anyhow::Error::from(e);
                let code = exit::code_for(&e);
                super::printer::block(&exit::render(&e, code));
                first_error.get_or_insert(code);
                continue;
            }
            Err(e) => return Err(e.into()),
        };
        match format {
            Format::Json => json_pages.push(releases_json(&page)),
            Format::Text => {
                if i > 0 {
                    writeln!(out)?;
                }
                write_releases_text(&mut out, &page)?;
            }
        }
    }
    if format == Format::Json {
        write_json(&mut out, &json!({ "projects": json_pages }))?;
    }
    match first_error {
        Some(code) => Err(CliError::reported(code).into()),
        None => Ok(()),
    }
}

fn release_json(r: &Release<'_>) -> serde_json::Value {
    let yanked_reason = r
        .is_yanked()
        .then(|| r.files.iter().find_map(|f| f.yanked.clone()))
        .flatten();
    json!({
        "version": r.version,
        "upload_time": r.upload_time(),
        "wheels": r.files.iter().filter(|f| f.is_wheel()).count(),
        "sdist": r.has_sdist(),
        "requires_python": r.requires_python().text(),
        "yanked": r.is_yanked(),
        "yanked_reason": yanked_reason,
    })
}

fn releases_json(page: &ProjectPage) -> serde_json::Value {
    json!({
        "name": page.name,
        "url": page.url,
        "format": page.format,
        "releases": page.releases().iter().map(release_json).collect::<Vec<_>>(),
        "skipped": page.skipped,
    })
}

fn write_releases_text(out: &mut impl Write, page: &ProjectPage) -> Result<()> {
    let releases = page.releases();
    writeln!(
        out,
        "{} ({} releases, {})",
        page.name,
        releases.len(),
        page.url
    )?;
    let rows: Vec<[String; 5]> = releases
        .iter()
        .map(|r| {
            let wheels = r.files.iter().filter(|f| f.is_wheel()).count();
            let kinds = match (wheels, r.has_sdist()) {
                (0, true) => "sdist".to_string(),
                (n, false) => format!("{n} wheel{}", plural(n)),
                (n, true) => format!("{n} wheel{} + sdist", plural(n)),
            };
            [
                r.version.to_string(),
                r.upload_time().map_or("-".into(), utc_date),
                kinds,
                r.requires_python().text().unwrap_or("-").to_string(),
                if r.is_yanked() { "yanked" } else { "" }.to_string(),
            ]
        })
        .collect();
    write_table(
        out,
        &["VERSION", "UPLOADED", "FILES", "REQUIRES-PYTHON", ""],
        &rows,
    )?;
    let invalid: Vec<_> = page.skipped.iter().filter(|s| !s.is_other_kind()).collect();
    if !invalid.is_empty() {
        writeln!(
            out,
            "skipped {} file(s) that nbenv cannot use:",
            invalid.len()
        )?;
        for s in invalid {
            writeln!(out, "  {}: {}", s.filename, s.reason)?;
        }
    }
    Ok(())
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// A header and rows as aligned columns (see [`table`]).
pub fn write_table<const N: usize>(
    out: &mut impl Write,
    header: &[&str; N],
    rows: &[[String; N]],
) -> Result<()> {
    let mut all: Vec<Vec<String>> = vec![header.iter().map(|h| h.to_string()).collect()];
    all.extend(rows.iter().map(|r| r.to_vec()));
    out.write_all(table(&all, "", &[]).as_bytes())?;
    Ok(())
}

fn files(page: &ProjectPage, spec: &ReleaseSpec, format: Format) -> Result<()> {
    let release = page.release(&spec.version).expect("the library found it");
    let mut out = super::printer::stdout();
    if format == Format::Json {
        let value = json!({
            "name": spec.name,
            "version": spec.version.to_string(),
            "files": release.files,
        });
        write_json(&mut out, &value)?;
        return Ok(());
    }
    let rows: Vec<[String; 5]> = release
        .files
        .iter()
        .map(|f| {
            let kind = match &f.kind {
                FileKind::Wheel { tags, .. } => tags.to_string(),
                FileKind::Sdist { .. } => "sdist".to_string(),
            };
            [
                f.filename.clone(),
                kind,
                f.size.map_or("-".into(), human_size),
                f.upload_time.map_or("-".into(), utc_date),
                match &f.yanked {
                    Some(r) if !r.is_empty() => format!("yanked: {r}"),
                    Some(_) => "yanked".into(),
                    None => String::new(),
                },
            ]
        })
        .collect();
    write_table(&mut out, &["FILE", "TAGS", "SIZE", "UPLOADED", ""], &rows)?;
    Ok(())
}

/// `YYYY-MM-DD` of an upload, in UTC as the index keeps it.
fn utc_date(time: jiff::Timestamp) -> String {
    time.strftime("%Y-%m-%d").to_string()
}

pub use nbenv::reporter::human_size;

fn metadata(read: &ReleaseMetadata, format: Format) -> Result<()> {
    let (file, meta, source) = (&read.file, &read.metadata, &read.source);
    let mut out = super::printer::stdout();
    if format == Format::Json {
        let value = json!({
            "file": file.filename,
            "source": source,
            "metadata": meta,
        });
        write_json(&mut out, &value)?;
        return Ok(());
    }
    let mut rows = vec![
        vec!["Name:".to_string(), meta.name_as_written.clone()],
        vec!["Version:".to_string(), meta.version.to_string()],
    ];
    if let Some(v) = &meta.metadata_version {
        rows.push(vec!["Metadata-Version:".into(), v.clone()]);
    }
    if let Some(s) = &meta.summary {
        let first = s.lines().next().unwrap_or_default().to_string();
        rows.push(vec!["Summary:".into(), first]);
    }
    rows.push(vec![
        "Requires-Python:".into(),
        meta.requires_python.text().unwrap_or("-").to_string(),
    ]);
    rows.push(vec![
        "Provides-Extra:".into(),
        if meta.provides_extra.is_empty() {
            "-".into()
        } else {
            meta.provides_extra.join(", ")
        },
    ]);
    rows.push(vec![
        "Requires-Dist:".into(),
        if meta.requires_dist.is_empty() {
            "-"
        } else {
            ""
        }
        .into(),
    ]);
    out.write_all(table(&rows, "", &[]).as_bytes())?;
    for r in &meta.requires_dist {
        writeln!(out, "  {r}")?;
    }
    let source = match source {
        nbenv::pypi::MetadataSource::Pep658 => "the index's PEP 658 metadata file",
        nbenv::pypi::MetadataSource::Wheel => "METADATA inside the wheel",
        nbenv::pypi::MetadataSource::Sdist => "PKG-INFO inside the sdist",
    };
    writeln!(out, "(from {source} of {})", file.filename)?;
    Ok(())
}
