//! IPython escapes inside the traced code: `%line` magics, `!shell` commands, `obj?` help, and
//! cell magics (whose bodies are Python, Cython, a shell script or a file to write).

use std::str::FromStr;

use pep508_rs::Requirement;
use ruff_python_ast::IpyEscapeKind;
use ruff_python_parser::parse_expression;

use crate::names::{DistName, ModulePath};

use super::collect::RawImport;
use super::location::Location;
use super::magic::{self, CellMagicKind};
use super::requirement::{pip_requirement, InstallRequirement, Installer};
use super::shell::{self, ShellFinding};
use super::tracing::Tracer;
use super::usage::{ImportVia, Note, NoteKind};

impl Tracer {
    pub(crate) fn note(&mut self, kind: NoteKind, detail: String, at: Location) {
        self.ev.notes.push(Note { kind, detail, at });
    }

    pub(crate) fn escape(&mut self, kind: IpyEscapeKind, value: &str, at: Location) {
        match kind {
            IpyEscapeKind::Shell | IpyEscapeKind::ShCap => self.shell(value, at),
            IpyEscapeKind::Magic | IpyEscapeKind::Magic2 => self.line_magic(value, at),
            IpyEscapeKind::Help | IpyEscapeKind::Help2 => {
                // `np.linalg.norm?` names an API
                let expr = value.trim().trim_end_matches('?').trim_start_matches('?');
                if let Ok(parsed) = parse_expression(expr) {
                    let saved = self.force_line.replace(at.line);
                    self.eval(parsed.expr());
                    self.force_line = saved;
                }
            }
            IpyEscapeKind::Quote | IpyEscapeKind::Quote2 | IpyEscapeKind::Paren => {}
        }
    }

    /// A shell command: installs become requirements, downloads become notes.
    pub(crate) fn shell(&mut self, command: &str, at: Location) {
        let mut findings = Vec::new();
        shell::scan(command, &mut findings);
        let command_text = command.split_whitespace().collect::<Vec<_>>().join(" ");
        let command_text = command_text.as_str();
        for finding in findings {
            match finding {
                ShellFinding::Requirement {
                    requirement,
                    name,
                    installer,
                } => self.ev.requirements.push(InstallRequirement {
                    requirement: *requirement,
                    name,
                    installer,
                    command: command_text.to_string(),
                    optional: self.optional(),
                    at,
                }),
                ShellFinding::Note(kind, detail) => self.note(kind, detail, at),
            }
        }
        if lists_packages(command_text) {
            self.ev.listing_cells.push(at.cell);
        }
    }

    pub(crate) fn line_magic(&mut self, value: &str, at: Location) {
        let value = value.trim();
        let (name, args) = match value.find(char::is_whitespace) {
            Some(i) => (&value[..i], value[i..].trim_start()),
            None => (value, ""),
        };
        let name = name.trim_start_matches('%');
        match name {
            "load_ext" | "reload_ext" => {
                for ext in args.split_whitespace() {
                    self.load_ext(ext, at);
                }
            }
            "matplotlib" => {
                self.implied_import("matplotlib", ImportVia::Magic, at);
                if args.contains("widget") || args.contains("ipympl") {
                    self.implied_import("ipympl", ImportVia::Magic, at);
                }
            }
            "pylab" => self.pylab(at),
            "pip" | "conda" | "mamba" => self.shell(value, at),
            "sx" | "system" => self.shell(args, at),
            "run" => self.note(NoteKind::RunScript, format!("%run {args}"), at),
            "tensorflow_version" => self.tensorflow_version(args, at),
            "aimport" => {
                for module in args
                    .split([',', ' '])
                    .map(|m| m.trim().trim_start_matches('-'))
                {
                    if !module.is_empty() {
                        self.implied_import(module, ImportVia::Magic, at);
                    }
                }
            }
            "watermark" => self.ev.listing_cells.push(at.cell),
            n if magic::is_statement_magic(n) => {
                let statement = &args[magic::statement_of(n, args)..];
                if !statement.trim().is_empty() {
                    self.nested_python(statement, at.line);
                }
            }
            _ => {}
        }
    }

    fn load_ext(&mut self, ext: &str, at: Location) {
        if magic::ipython_extension(ext) {
            let module = format!("IPython.extensions.{ext}");
            self.implied_import(&module, ImportVia::LoadExt, at);
            if let Some(needs) = magic::ipython_extension_needs(ext) {
                self.implied_import(needs, ImportVia::LoadExt, at);
            }
        } else {
            self.implied_import(ext, ImportVia::LoadExt, at);
        }
    }

    /// `%pylab` imports numpy and matplotlib and star-imports `pylab` into the namespace.
    fn pylab(&mut self, at: Location) {
        use super::binding::Value;
        use ruff_python_ast::name::Name;
        self.implied_import("numpy", ImportVia::Magic, at);
        self.implied_import("matplotlib.pyplot", ImportVia::Magic, at);
        if let Ok(module) = ModulePath::new("matplotlib.pylab") {
            self.ev.imports.push(RawImport {
                module,
                name: None,
                alias: None,
                star: true,
                level: 0,
                optional: self.optional(),
                in_function: false,
                via: ImportVia::Magic,
                at,
            });
        }
        self.scopes
            .bind_global(&Name::new("np"), Value::Api("numpy".into()));
        self.scopes
            .bind_global(&Name::new("plt"), Value::Api("matplotlib.pyplot".into()));
        self.star_modules.push("matplotlib.pylab".into());
    }

    /// Colab's `%tensorflow_version 1.x` selected the preinstalled TensorFlow major version.
    fn tensorflow_version(&mut self, args: &str, at: Location) {
        let major: Option<u32> = args.trim().split('.').next().and_then(|m| m.parse().ok());
        self.note(
            NoteKind::TensorflowVersion,
            format!("%tensorflow_version {}", args.trim()),
            at,
        );
        let requirement = major.and_then(|major| {
            Requirement::from_str(&format!("tensorflow>={major},<{}", major + 1)).ok()
        });
        if let (Some(requirement), Ok(name)) = (requirement, DistName::new("tensorflow")) {
            self.ev.requirements.push(InstallRequirement {
                requirement,
                name,
                installer: Installer::Colab,
                command: format!("%tensorflow_version {}", args.trim()),
                optional: self.optional(),
                at,
            });
        }
    }

    /// A cell magic on line `line` of cell `cell`; its body starts on the next line. With
    /// `force_line` every finding is placed on `line` (for magics run via `get_ipython()`).
    pub(crate) fn cell_magic(
        &mut self,
        cell: u32,
        name: &str,
        args: &str,
        line: u32,
        body: &str,
        force_line: bool,
    ) {
        let at = Location::new(cell, line);
        let saved_force = self.force_line;
        if force_line {
            self.force_line = Some(line);
        }
        if let Some(module) = magic::cell_magic_import(name) {
            self.implied_import(module, ImportVia::Magic, at);
        }
        match magic::cell_magic_kind(name, args) {
            CellMagicKind::Python => {
                if name == "timeit" || name == "prun" || name == "time" {
                    // `%%timeit` may carry a setup statement on its first line
                    let setup = &args[magic::statement_of(name, args)..];
                    if !setup.trim().is_empty() {
                        self.nested_python(setup, line);
                    }
                }
                self.python(cell, body, line);
            }
            CellMagicKind::PythonElsewhere => {
                self.isolated(ImportVia::Statement, true, |t| t.python(cell, body, line));
            }
            CellMagicKind::Cython => self.cython_imports(body, cell, line),
            CellMagicKind::WriteFile => self.write_file(args, body, cell, line),
            CellMagicKind::Shell => {
                let mut continued = String::new();
                let mut start = line + 1;
                for (i, l) in body.lines().enumerate() {
                    let n = line + 1 + i as u32;
                    if continued.is_empty() {
                        start = n;
                    }
                    match l.strip_suffix('\\') {
                        Some(head) => {
                            continued.push_str(head);
                            continued.push(' ');
                        }
                        None => {
                            continued.push_str(l);
                            let at = self
                                .force_line
                                .map_or(Location::new(cell, start), |f| Location::new(cell, f));
                            let command = std::mem::take(&mut continued);
                            self.shell(&command, at);
                        }
                    }
                }
                if !continued.is_empty() {
                    self.shell(&continued, Location::new(cell, start));
                }
            }
            CellMagicKind::Skip => {}
            CellMagicKind::Unknown => {
                self.note(
                    NoteKind::UnknownCellMagic,
                    format!("%%{name} (body not analysed)"),
                    at,
                );
            }
        }
        self.force_line = saved_force;
    }

    /// `import x` / `cimport x` / `from x cimport y` lines of a `%%cython` cell.
    fn cython_imports(&mut self, body: &str, cell: u32, line: u32) {
        for (i, l) in body.lines().enumerate() {
            let at = self
                .force_line
                .map_or(Location::new(cell, line + 1 + i as u32), |f| {
                    Location::new(cell, f)
                });
            let l = l.trim();
            let modules: Vec<&str> = if let Some(rest) = l
                .strip_prefix("import ")
                .or_else(|| l.strip_prefix("cimport "))
            {
                rest.split(',')
                    .map(|m| m.split_whitespace().next().unwrap_or(""))
                    .collect()
            } else if let Some(rest) = l.strip_prefix("from ") {
                let module = rest.split_whitespace().next().unwrap_or("");
                let keyword = rest.split_whitespace().nth(1);
                if matches!(keyword, Some("import" | "cimport")) {
                    vec![module]
                } else {
                    Vec::new()
                }
            } else {
                Vec::new()
            };
            for module in modules {
                let top = module.split('.').next().unwrap_or(module);
                // Cython's own declaration packages are not Python modules.
                if matches!(top, "libc" | "libcpp" | "cpython" | "posix" | "") {
                    continue;
                }
                self.implied_import(module, ImportVia::Cython, at);
            }
        }
    }

    /// `%%writefile [-a] path`: a `.py` file becomes a local module whose imports count; a
    /// requirements file's lines become requirements.
    fn write_file(&mut self, args: &str, body: &str, cell: u32, line: u32) {
        let Some(path) = args.split_whitespace().rfind(|a| !a.starts_with('-')) else {
            return;
        };
        let path = path.trim_matches(['"', '\'']);
        let file = path.rsplit(['/', '\\']).next().unwrap_or(path);
        let at = Location::new(cell, line);
        if let Some(stem) = file.strip_suffix(".py") {
            let top = path
                .trim_start_matches("./")
                .split(['/', '\\'])
                .next()
                .unwrap_or(stem);
            let module = if top == file { stem } else { top };
            self.ev.written_modules.push((module.to_string(), at));
            self.isolated(ImportVia::WrittenModule, false, |t| {
                t.python(cell, body, line)
            });
        } else if file.starts_with("requirements") && file.ends_with(".txt") {
            for (i, l) in body.lines().enumerate() {
                let l = l.split('#').next().unwrap_or("").trim();
                if let Some((requirement, name)) = pip_requirement(l) {
                    self.ev.requirements.push(InstallRequirement {
                        requirement,
                        name,
                        installer: Installer::Pip,
                        command: format!("%%writefile {path}"),
                        optional: false,
                        at: Location::new(cell, line + 1 + i as u32),
                    });
                }
            }
        }
    }
}

/// Commands whose output lists installed packages and versions.
fn lists_packages(command: &str) -> bool {
    let words: Vec<&str> = command.split_whitespace().collect();
    words.windows(2).any(|w| {
        (w[0].starts_with("pip") || w[0] == "conda") && matches!(w[1], "freeze" | "list" | "show")
    }) || words
        .windows(3)
        .any(|w| w[0] == "-m" && w[1] == "pip" && matches!(w[2], "freeze" | "list" | "show"))
}
