//! requirements.txt from an inference: a header naming the Python and how it was chosen, one
//! pinned line per distribution the notebook asks for with its evidence as a comment, and the
//! import names that got no requirement, as comments, never as requirements.

use std::fmt::Write as _;

use crate::names::DistName;
use crate::notebook::WRITTEN_BY_NBENV;
use crate::resolve::evidence::{
    AvoidKind, Change, Channel, ImportOutcome, NotOnPyPiSource, Unresolved,
};
use crate::resolve::infer::{describe, Inference};
use crate::resolve::interpreter::{PythonChoice, Reach};
use crate::resolve::solver::RequiredBy;
use pep508_rs::pep440_rs::Version;

/// Why a run goes on another interpreter than the one the notebook last ran on, when it does
/// (that one is not installed here, or has no resolution): for `restore`'s first round.
pub fn recorded_elsewhere(inference: &Inference) -> Option<String> {
    let recorded = inference.plan.recorded.as_ref().filter(|r| r.applied)?;
    let python = inference.python.version;
    if recorded.range.contains(python) {
        return None;
    }
    Some(format!(
        "the notebook last ran on Python {} ({}); running it on Python {python}, the nearest \
         one installed here that its code allows and that has a full resolution",
        recorded.range, recorded.recorded_by
    ))
}

/// The interpreter, and how it was chosen, in one sentence.
pub fn python_line(inference: &Inference) -> String {
    let python = &inference.python;
    let here = match &python.installed {
        Some(path) => format!("installed here at {}", path.display()),
        None => "not installed here".to_string(),
    };
    let how = match inference.python_choice {
        PythonChoice::Requested => "asked for with --python".to_string(),
        PythonChoice::NewestForModern => {
            "the newest installed here where the modernized notebook has a resolution \
             (--python chooses another)"
                .to_string()
        }
        PythonChoice::NewestInstalled => {
            "the newest installed interpreter the notebook allows that has a full resolution \
             (nothing records where it last ran)"
                .to_string()
        }
        PythonChoice::NotInstalled => {
            "no installed interpreter the notebook allows has a full resolution; this is the newest that has"
                .to_string()
        }
        PythonChoice::Recorded => match &inference.plan.recorded {
            Some(r) if r.range.min.is_some() && r.range.min == r.range.max => {
                format!("where the notebook last ran ({})", r.recorded_by)
            }
            // `kernelspec python3`: a major, not the version chosen within it.
            Some(r) => format!(
                "one of the Pythons where the notebook last ran ({} says Python {}, not which)",
                r.recorded_by, r.range
            ),
            None => "where the notebook last ran".to_string(),
        },
        PythonChoice::NearestRecorded => {
            let installed = if inference.plan.reach == Reach::Installed {
                "is installed here and "
            } else {
                ""
            };
            match &inference.plan.recorded {
                Some(r) => format!(
                    "the nearest to Python {} (where the notebook last ran: {}) that {installed}\
                     has a full resolution",
                    r.range, r.recorded_by
                ),
                None => format!(
                    "the nearest to where the notebook last ran that {installed}has a full \
                     resolution"
                ),
            }
        }
        PythonChoice::Declared => match &inference.plan.declared {
            Some(d) => format!("declared by {}, allowed by the notebook", d.declared_at),
            None => "declared by the repository".to_string(),
        },
    };
    let mut line = format!("Python {} ({here}): {how}", python.version);
    if !inference.passed_over.is_empty() {
        let tried: Vec<String> = inference
            .passed_over
            .iter()
            .map(|p| p.python.to_string())
            .collect();
        let _ = write!(line, "; no resolution on {}", tried.join(", "));
    }
    if let Some(d) = inference.plan.declared.as_ref().filter(|d| !d.applied) {
        let why = if inference.plan.allowed.contains(d.version) {
            "which nbenv does not resolve for"
        } else {
            "which the notebook rules out"
        };
        let _ = write!(
            line,
            "; {} declares Python {}, {why}",
            d.declared_at, d.version
        );
    }
    if inference.plan.evidence_ignored {
        line.push_str("; the notebook's Python hints contradict each other and were set aside");
    } else if inference.plan.allowed != Default::default() {
        let _ = write!(
            line,
            "; the notebook allows Python {}",
            inference.plan.allowed
        );
    }
    line
}

/// The repository's own projects the notebook imports, as path requirements, each once:
/// `-e ..  # cell 2 imports pyrotfa, which ../setup.py names`. The path is the project's
/// folder as seen from where nbenv was started (the notebook's path joined with the folder),
/// where `pip install -r` reads it from too.
fn project_lines(
    unresolved: &[(&crate::resolve::evidence::ImportDecision, &Unresolved)],
    notebook: &str,
) -> Vec<String> {
    let mut lines: Vec<(std::path::PathBuf, String)> = Vec::new();
    for (decision, why) in unresolved {
        let Unresolved::LocalModule {
            repository: Some(place),
            ..
        } = why
        else {
            continue;
        };
        let Some(project) = &place.project else {
            continue;
        };
        let dir = project_path(notebook, &project.dir);
        if lines.iter().any(|(d, _)| *d == dir) {
            continue;
        }
        let at = decision
            .at
            .map(|at| format!("cell {} imports", at.cell))
            .unwrap_or_else(|| "the notebook imports".to_string());
        lines.push((
            dir.clone(),
            format!(
                "-e {}  # {at} {}, which {} names: the repository's own package",
                dir.display(),
                decision.import,
                project.file.display()
            ),
        ));
    }
    lines.into_iter().map(|(_, line)| line).collect()
}

/// `dir` (relative to the notebook's folder) as a path from where the notebook was named,
/// with `..` taken out where the notebook's path allows (`notebooks/x.ipynb` and `..`: `.`).
fn project_path(notebook: &str, dir: &std::path::Path) -> std::path::PathBuf {
    use std::path::Component;
    let folder = std::path::Path::new(notebook)
        .parent()
        .unwrap_or(std::path::Path::new(""));
    let mut parts: Vec<Component> = folder.components().collect();
    for c in dir.components() {
        match c {
            Component::ParentDir if matches!(parts.last(), Some(Component::Normal(_))) => {
                parts.pop();
            }
            Component::CurDir => {}
            c => parts.push(c),
        }
    }
    let path: std::path::PathBuf = parts.iter().collect();
    if path.as_os_str().is_empty() {
        std::path::PathBuf::from(".")
    } else {
        path
    }
}

/// A requirement line without its comment: what the installer reads of it.
fn requirement_body(line: &str) -> &str {
    line.split(" #").next().unwrap_or(line).trim()
}

/// Whether a requirement (without its comment) is a local path (`-e ..`, `-e ./lib`, `.`,
/// `file:…`): nbenv never installs one (a build writes into the repository); its runs put
/// the repository's folders on `sys.path` instead.
fn is_local_path(body: &str) -> bool {
    let target = body
        .strip_prefix("-e ")
        .or_else(|| body.strip_prefix("--editable "))
        .or_else(|| body.strip_prefix("--editable="))
        .map(str::trim)
        .unwrap_or(body);
    target.starts_with('.') || target.starts_with('/') || target.starts_with("file:")
}

/// The requirements text without its local path requirements ([`is_local_path`]).
pub fn without_local_paths(text: &str) -> String {
    text.lines()
        .filter(|line| !is_local_path(requirement_body(line)))
        .flat_map(|line| [line, "\n"])
        .collect()
}

/// What of a requirements text reaches the installer: each requirement line without its
/// comment (local paths left out, as [`without_local_paths`] does), and the header line that
/// says which pins build from their sdists. Two texts that differ only in comments (a new
/// `# Not requirements:` line) build the same environment.
pub fn installed_lines(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| {
            if line.starts_with(super::header::SDIST_LINE) {
                return Some(line.to_string());
            }
            let body = requirement_body(line);
            (!body.is_empty() && !body.starts_with('#') && !is_local_path(body))
                .then(|| body.to_string())
        })
        .collect()
}

/// Why an import name is no requirement, in a few words.
pub fn unresolved_reason(why: &Unresolved) -> String {
    match why {
        Unresolved::NoProvider => {
            "no distribution provides it (a helper module not copied along?)".to_string()
        }
        Unresolved::ProvidersLackApis { providers } => {
            let names: Vec<String> = providers.iter().map(|(d, _)| d.to_string()).collect();
            format!(
                "{} install a module of that name but lack every API the notebook uses from it",
                names.join(", ")
            )
        }
        Unresolved::OnlyAvoided { dists } => {
            let names: Vec<String> = dists
                .iter()
                .map(|(d, kind)| {
                    let kind = match kind {
                        AvoidKind::Placeholder => "placeholder",
                        AvoidKind::Stub => "stub",
                        AvoidKind::Lookalike => "lookalike",
                    };
                    format!("{d} ({kind})")
                })
                .collect();
            format!("only {} provide it", names.join(", "))
        }
        Unresolved::LocalModule {
            file: Some(f),
            repository: Some(place),
            ..
        } => {
            let how = match &place.project {
                Some(p) => format!(
                    "the repository's own package, which {} names (installed with -e below)",
                    p.file.display()
                ),
                None => {
                    "a module of the repository, which no project file of it installs".to_string()
                }
            };
            format!(
                "{how}; nbenv's runs put {} on sys.path ({})",
                place.import_root.display(),
                f.display()
            )
        }
        Unresolved::LocalModule { file, .. } => match file {
            Some(f) => format!("a local module ({})", f.display()),
            None => "a local module".to_string(),
        },
        Unresolved::NotOnPyPi {
            channel,
            package,
            said_by,
        } => {
            let from = match channel {
                Channel::Conda => "conda",
                Channel::System => "the system's packages",
            };
            let package = package
                .as_deref()
                .map(|p| format!(" ({p})"))
                .unwrap_or_default();
            let said = match said_by {
                NotOnPyPiSource::ProviderList { note, .. } => note.clone(),
                NotOnPyPiSource::Notebook { at, command } => {
                    format!("cell {} runs `{command}`", at.cell)
                }
            };
            format!("not on PyPI: from {from}{package}; {said}")
        }
    }
}

/// `lime 0.2.0.1, langid 1.1.6`.
fn listed(pins: &[(DistName, Version)]) -> String {
    pins.iter()
        .map(|(dist, version)| format!("{dist} {version}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The pins a resolution builds from their sdists (`lime 0.2.0.1, langid 1.1.6`), when no
/// resolution from wheels alone existed (pure-Python ones aside: see [`pure_sdist_builds`]).
pub fn sdist_builds(inference: &Inference) -> Option<String> {
    let fallback = inference.sdist_fallback.as_ref()?;
    Some(if fallback.built.is_empty() {
        "none of the pins on this Python".to_string()
    } else {
        listed(&fallback.built)
    })
}

/// The pins built from pure-Python sdists (`seaborn 0.7.1, pydotplus 2.0.2`), if any.
pub fn pure_sdist_builds(inference: &Inference) -> Option<String> {
    (!inference.pure_sdists.is_empty()).then(|| listed(&inference.pure_sdists))
}

/// What [`super::header::SDIST_LINE`] says of the pure-Python ones.
pub(super) const PURE_PYTHON: &str = "pure Python";

/// The header line of a resolution that builds pins from their sdists, which `verify -r`
/// reads back: `# Built from sdists: seaborn 0.7.1 (pure Python); lime 0.2.0.1 (no
/// resolution from wheels alone ...)`, each group with why in parentheses.
pub(super) fn sdist_line(inference: &Inference) -> Option<String> {
    let mut groups = Vec::new();
    if let Some(pure) = pure_sdist_builds(inference) {
        groups.push(format!("{pure} ({PURE_PYTHON})"));
    }
    if let Some(built) = sdist_builds(inference) {
        groups.push(format!(
            "{built} (no resolution from wheels alone on any Python the notebook allows; --wheels-only refuses this)"
        ));
    }
    if !inference.search_builds.is_empty() {
        groups.push(format!(
            "{} (the search builds it: runs refuted every release with a wheel for this Python; --wheels-only refuses this)",
            listed(&inference.search_builds)
        ));
    }
    (!groups.is_empty()).then(|| format!("{}{}", super::header::SDIST_LINE, groups.join("; ")))
}

/// What starts the header line of a resolution that preferred the notebook's era.
pub const ERA_LINE: &str = "# Era: ";

/// `# Era: 2017-03-02 (the notebook's last commit): its releases preferred; newer where none of
/// then fits: pandas 0.25.3`.
fn era_line(inference: &Inference) -> Option<String> {
    let era = inference.era.as_ref()?;
    let before = era.prefer_before();
    let newer: Vec<String> = inference
        .solution
        .pins
        .iter()
        .filter(|p| uploaded(p).is_some_and(|t| t > before))
        .map(|p| format!("{} {}", p.dist, p.version))
        .collect();
    let mut line = format!(
        "{ERA_LINE}{} ({}): releases of then preferred",
        era.day(),
        era.why()
    );
    if !newer.is_empty() {
        let _ = write!(
            line,
            "; newer where none of then fits the evidence and installs on Python {}: {}",
            inference.python.version,
            newer.join(", ")
        );
    }
    Some(line)
}

/// When a pin's release appeared: its earliest installable file's upload.
fn uploaded(pin: &crate::resolve::solver::Pin) -> Option<jiff::Timestamp> {
    pin.files.iter().filter_map(|f| f.upload_time).min()
}

/// Why a dependency held below the newest is listed: an installer would take the newest.
fn held(pin: &crate::resolve::solver::Pin, inference: &Inference) -> Option<String> {
    let parents: Vec<String> = pin
        .required_by
        .iter()
        .filter_map(|r| match r {
            RequiredBy::Dependency {
                parent,
                parent_version,
                requirement,
                ..
            } => Some(format!("{parent} {parent_version} requires {requirement}")),
            _ => None,
        })
        .collect();
    let why = match pin.held? {
        crate::resolve::solver::Held::Era => match &inference.era {
            // Held below the newest, yet newer than the era: none of the era fitted.
            Some(era) if uploaded(pin).is_some_and(|t| t > era.prefer_before()) => format!(
                "the first after the notebook's era ({}) that fits; none of then does",
                era.day()
            ),
            Some(era) => format!("held to the notebook's era ({})", era.day()),
            None => "held to the notebook's era".to_string(),
        },
        crate::resolve::solver::Held::Search => {
            "held where runs of the notebook left the search (newer ones failed it)".to_string()
        }
    };
    Some(if parents.is_empty() {
        why
    } else {
        format!("{}; {why}", parents.join("; "))
    })
}

/// Why a pin no root asks for is listed: `scikit-learn 0.19.1 imports scipy (undeclared)`,
/// for each release that imports it.
fn imported_by(pin: &crate::resolve::solver::Pin) -> Option<String> {
    let said: Vec<String> = pin
        .required_by
        .iter()
        .filter_map(|r| match r {
            RequiredBy::Imported {
                parent,
                parent_version,
                modules,
            } => Some(format!(
                "{parent} {parent_version} imports {} (undeclared)",
                modules.join(", ")
            )),
            _ => None,
        })
        .collect();
    (!said.is_empty()).then(|| said.join("; "))
}

/// Why `pin` is in the requirements, as its comment says: the evidence that caps it (the
/// earliest removal after it; with several notebooks, that names the one that forced it),
/// else what narrows the versions most, else what asked for it.
pub fn pin_reason(pin: &crate::resolve::solver::Pin, inference: &Inference) -> Option<String> {
    let removal_after = |r: &&crate::resolve::evidence::EvidenceRecord| {
        r.changes()
            .into_iter()
            .filter_map(|c| match c {
                Change::Removed { version, .. } if version > pin.version => Some(version),
                _ => None,
            })
            .min()
    };
    inference
        .evidence
        .distributions
        .iter()
        .find(|d| d.dist == pin.dist)
        .and_then(|d| {
            d.records
                .iter()
                .filter(|r| r.effect == crate::resolve::evidence::Effect::Constrains)
                .min_by_key(|r| {
                    let removal = removal_after(r);
                    (removal.is_none(), removal, r.allowed.len())
                })
                .map(describe)
        })
        .or_else(|| {
            pin.required_by.iter().find_map(|r| match r {
                RequiredBy::Root { evidence } => evidence.first().cloned(),
                RequiredBy::Dependency { .. } | RequiredBy::Imported { .. } => None,
            })
        })
        .or_else(|| imported_by(pin))
        .or_else(|| held(pin, inference))
}

/// The requirements file: `# ` comments, then `name==version  # why` lines sorted by name, or
/// with `ranges` (from [`crate::resolve::infer::compatible_ranges`]) each distribution's
/// compatible versions instead of its pin. Besides the notebook's own distributions, it
/// pins those a chosen release imports without declaring them (installing the rest would
/// not bring them).
pub fn requirements_txt(
    inference: &Inference,
    notebook: &str,
    ranges: Option<&[(crate::names::DistName, String)]>,
) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} {} from {notebook}",
        WRITTEN_BY_NBENV[0],
        env!("CARGO_PKG_VERSION")
    );
    let _ = writeln!(out, "# {}", python_line(inference));
    if let Some(line) = era_line(inference) {
        let _ = writeln!(out, "{line}");
    }
    if let Some(line) = sdist_line(inference) {
        let _ = writeln!(out, "{line}");
    }
    let listed = inference
        .solution
        .pins
        .iter()
        .filter(|p| p.is_root() || p.is_imported_undeclared() || p.held.is_some());
    for pin in listed {
        let why = pin_reason(pin, inference);
        let range = ranges.and_then(|r| r.iter().find(|(d, _)| *d == pin.dist));
        let mut line = match range {
            Some((dist, spec)) => format!("{dist}{spec}"),
            None => format!("{}=={}", pin.dist, pin.version),
        };
        if let Some(why) = why {
            let _ = write!(line, "  # {why}");
        }
        let _ = writeln!(out, "{line}");
    }
    let unresolved: Vec<_> = inference
        .evidence
        .imports
        .iter()
        .filter_map(|d| match &d.outcome {
            ImportOutcome::Unresolved(why) => Some((d, why)),
            ImportOutcome::Provided { .. } => None,
        })
        .collect();
    for line in project_lines(&unresolved, notebook) {
        let _ = writeln!(out, "{line}");
    }
    if !unresolved.is_empty() {
        let _ = writeln!(out, "# Not requirements:");
        for (decision, why) in unresolved {
            let place = match (&decision.notebook, decision.at) {
                (Some(file), Some(at)) if decision.in_module => {
                    format!(" ({file} line {})", at.line)
                }
                (Some(nb), Some(at)) => format!(" ({nb} cell {})", at.cell),
                (Some(nb), None) => format!(" ({nb})"),
                (None, Some(at)) => format!(" (cell {})", at.cell),
                (None, None) => String::new(),
            };
            let _ = writeln!(
                out,
                "#   {}{place}: {}",
                decision.import,
                unresolved_reason(why)
            );
        }
    }
    out
}
