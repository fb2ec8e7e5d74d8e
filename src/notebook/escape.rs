//! IPython escapes inside the traced code: `%line` magics, `!shell` commands, `obj?` help, and
//! cell magics (whose bodies are Python, Cython, a shell script or a file to write).

use std::str::FromStr;

use pep508_rs::Requirement;
use ruff_python_ast::IpyEscapeKind;

use crate::names::{DistName, ModulePath};

use super::collect::RawImport;
use super::external::{FileAccess, FileUse};
use super::location::Location;
use super::magic::{self, CellMagicKind};
use super::requirement::{pip_requirement, InstallRequirement, Installer};
use super::shell::{self, ShellFinding};
use super::tracing::Tracer;
use super::usage::{ImportVia, Note, NoteKind};

/// The module `%pylab` star-imports into the namespace.
pub(crate) const PYLAB_STAR: &str = "matplotlib.pylab";

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
                if let Some(parsed) = crate::parse::expression(expr) {
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
        if let Ok(module) = ModulePath::new(PYLAB_STAR) {
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
        self.star_modules.push(PYLAB_STAR.into());
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
        // A setup statement (`%%timeit -n1 import x`) is traced as part of this cell.
        let saved_cell = std::mem::replace(&mut self.cell, cell);
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
        self.cell = saved_cell;
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
        self.ev.files.push(FileUse {
            path: path.to_string(),
            access: FileAccess::Write,
            call: "%%writefile".into(),
            at,
        });
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

#[cfg(test)]
mod tests {
    use super::super::usage::ImportVia;
    use super::*;

    fn trace(source: &str) -> Tracer {
        let mut t = Tracer::new();
        t.python(1, source, 0);
        t
    }

    fn imports(t: &Tracer) -> Vec<(String, ImportVia, u32)> {
        t.ev.imports
            .iter()
            .map(|i| (i.module.to_string(), i.via, i.at.line))
            .collect()
    }

    fn requirements(t: &Tracer) -> Vec<(String, Installer, u32)> {
        t.ev.requirements
            .iter()
            .map(|r| (r.requirement.to_string(), r.installer, r.at.line))
            .collect()
    }

    fn notes(t: &Tracer) -> Vec<(NoteKind, String)> {
        t.ev.notes
            .iter()
            .map(|n| (n.kind, n.detail.clone()))
            .collect()
    }

    #[test]
    fn line_magics() {
        let t = trace(
            "%matplotlib widget\n%load_ext autoreload\n%load_ext sql\n%aimport foo.bar, -baz\n\
             %time import pandas as pd\n%run helpers.py\n%watermark\n",
        );
        assert_eq!(
            imports(&t),
            [
                ("matplotlib".into(), ImportVia::Magic, 1),
                ("ipympl".into(), ImportVia::Magic, 1),
                (
                    "IPython.extensions.autoreload".into(),
                    ImportVia::LoadExt,
                    2
                ),
                ("sql".into(), ImportVia::LoadExt, 3),
                ("foo.bar".into(), ImportVia::Magic, 4),
                ("baz".into(), ImportVia::Magic, 4),
                ("pandas".into(), ImportVia::Statement, 5),
            ]
        );
        assert_eq!(notes(&t), [(NoteKind::RunScript, "%run helpers.py".into())]);
        assert_eq!(t.ev.listing_cells, [1]);
    }

    #[test]
    fn pylab_binds_numpy_and_pyplot() {
        let t = trace("%pylab inline\nx = np.linspace(0, 1)\nplt.plot(x)\nfigure()\n");
        let apis: std::collections::BTreeSet<&str> = t.ev.apis.keys().map(|k| &**k).collect();
        assert!(apis.contains("numpy.linspace"), "{apis:?}");
        assert!(apis.contains("matplotlib.pyplot.plot"), "{apis:?}");
        assert!(apis.contains("matplotlib.pylab.figure"), "{apis:?}");
        assert!(t
            .ev
            .imports
            .iter()
            .any(|i| i.star && i.module.as_str() == "matplotlib.pylab"));
    }

    #[test]
    fn shell_escapes_install_and_download() {
        let t = trace(
            "!pip install -q 'pandas<1.0' keras==2.2.4\n%pip install --upgrade seaborn\n\
             files = !ls data\n!wget https://example.org/data.csv\n!conda install -y numpy=1.16\n",
        );
        assert_eq!(
            requirements(&t),
            [
                ("pandas<1.0".into(), Installer::Pip, 1),
                ("keras==2.2.4".into(), Installer::Pip, 1),
                ("seaborn".into(), Installer::Pip, 2),
                ("numpy==1.16.*".into(), Installer::Conda, 5),
            ]
        );
        assert_eq!(
            t.ev.requirements[0].command,
            "pip install -q 'pandas<1.0' keras==2.2.4"
        );
        assert!(notes(&t).iter().any(|(k, _)| *k == NoteKind::DataDownload));
    }

    #[test]
    fn colab_tensorflow_version() {
        let t = trace("%tensorflow_version 1.x\nimport tensorflow as tf\n");
        assert_eq!(
            requirements(&t),
            [("tensorflow>=1,<2".into(), Installer::Colab, 1)]
        );
        assert_eq!(
            notes(&t),
            [(
                NoteKind::TensorflowVersion,
                "%tensorflow_version 1.x".into()
            )]
        );
        // Not a version: no requirement.
        assert!(requirements(&trace("%tensorflow_version latest\n")).is_empty());
    }

    #[test]
    fn help_names_an_api() {
        let t = trace("import numpy as np\nnp.linalg.norm?\n");
        assert!(t.ev.apis.contains_key("numpy.linalg.norm"));
    }

    #[test]
    fn cell_magics() {
        let mut t = Tracer::new();
        t.cell_magic(
            2,
            "writefile",
            "helpers.py",
            1,
            "import scipy.stats\n",
            false,
        );
        t.cell_magic(
            3,
            "writefile",
            "-a requirements.txt",
            1,
            "gensim==3.8.0  # topic models\n\nnltk\n",
            false,
        );
        t.cell_magic(
            4,
            "bash",
            "",
            1,
            "pip install \\\n  xgboost==0.82\necho done\n",
            false,
        );
        t.cell_magic(
            5,
            "cython",
            "",
            1,
            "from libc.math cimport sin\ncimport numpy as cnp\n",
            false,
        );
        t.cell_magic(
            6,
            "timeit",
            "-n 1 import torch",
            1,
            "torch.zeros(1)\n",
            false,
        );
        t.cell_magic(7, "R", "", 1, "library(ggplot2)\n", false);
        t.cell_magic(8, "mystery", "", 1, "import sklearn\n", false);
        assert_eq!(
            t.ev.written_modules,
            [("helpers".into(), Location::new(2, 1))]
        );
        let imports: Vec<(String, u32, u32)> =
            t.ev.imports
                .iter()
                .map(|i| (i.module.to_string(), i.at.cell, i.at.line))
                .collect();
        assert_eq!(
            imports,
            [
                ("scipy.stats".into(), 2, 2),
                ("Cython".into(), 5, 1),
                ("numpy".into(), 5, 3),
                ("torch".into(), 6, 1),
            ]
        );
        let reqs: Vec<(String, u32, u32)> =
            t.ev.requirements
                .iter()
                .map(|r| (r.requirement.to_string(), r.at.cell, r.at.line))
                .collect();
        assert_eq!(
            reqs,
            [
                ("gensim==3.8.0".into(), 3, 2),
                ("nltk".into(), 3, 4),
                ("xgboost==0.82".into(), 4, 2),
            ]
        );
        assert_eq!(
            notes(&t),
            [(
                NoteKind::UnknownCellMagic,
                "%%mystery (body not analysed)".into()
            )]
        );
    }
}
