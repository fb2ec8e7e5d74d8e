//! The local modules a notebook imports, read as code of their own. `import helpers` runs
//! `helpers.py`, so what that file imports at its top is as much a requirement of the notebook
//! as its own imports, and its API use is evidence on the same versions. pipreqs finds these
//! by reading every `.py` file of a repository; nbenv reads only the modules the notebook (or
//! a module it reads) imports, so a script that sits beside the notebook but is never
//! imported asks for nothing.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::analyze::{analyze, notebook_dir, AnalyzeOptions};
use super::usage::{Origin, Usage};
use crate::names::ModulePath;

/// At most this many module files are read for one run: a notebook importing a large local
/// package should not turn a resolution into an analysis of the whole repository.
const MAX_FILES: usize = 64;

/// Larger files are generated code or data, not helpers: not read.
const MAX_FILE_BYTES: u64 = 1 << 20;

/// One notebook's usage, named `name`, then those of the local modules it imports (see
/// [`local_imports`]), as `infer` reads them.
pub fn with_local_imports(
    name: String,
    usage: Usage,
    options: &AnalyzeOptions,
    base: &Path,
) -> Vec<(String, Usage)> {
    let mut usages = vec![(name, usage)];
    let modules = local_imports(&usages, options, base);
    usages.extend(modules);
    usages
}

/// The local module files `usages` import, and the ones those import in turn, each analysed
/// as a script and named by its path relative to `base` (where the notebooks' names start).
/// Files already among `usages` (a script given as the notebook) and files that do not read
/// as Python are left out.
pub fn local_imports(
    usages: &[(String, Usage)],
    options: &AnalyzeOptions,
    base: &Path,
) -> Vec<(String, Usage)> {
    let mut seen: BTreeSet<PathBuf> = usages
        .iter()
        .filter_map(|(_, u)| u.notebook.path.canonicalize().ok())
        .collect();
    let mut out: Vec<(String, Usage)> = Vec::new();
    let mut queue: Vec<(PathBuf, ModulePath)> =
        usages.iter().flat_map(|(_, u)| imported_files(u)).collect();
    let mut next = 0;
    while next < queue.len() && out.len() < MAX_FILES {
        let (file, imported_as) = queue[next].clone();
        next += 1;
        let Ok(canonical) = file.canonicalize() else {
            continue;
        };
        if !seen.insert(canonical) {
            continue;
        }
        if std::fs::metadata(&file).map_or(true, |m| m.len() > MAX_FILE_BYTES) {
            continue;
        }
        let Ok(nb) = super::read(&file) else {
            continue;
        };
        let mut usage = analyze(&nb, options);
        usage.imported_as = Some(imported_as);
        queue.extend(imported_files(&usage));
        let name = file.strip_prefix(base).unwrap_or(&file);
        let name = name.strip_prefix(".").unwrap_or(name);
        out.push((name.display().to_string(), usage));
    }
    out
}

/// The files of the local modules `usage` imports: `x.py` for `import x`; for a package, its
/// `__init__.py` and the submodules named (`from pkg.sub import f`, `from pkg import sub`).
fn imported_files(usage: &Usage) -> Vec<(PathBuf, ModulePath)> {
    let dir = notebook_dir(&usage.notebook.path);
    let mut out = Vec::new();
    for import in usage.imports.iter().filter(|i| i.origin == Origin::Local) {
        if import.level > 0 {
            relative_files(usage, import, dir, &mut out);
            continue;
        }
        let module = import.module.as_str();
        let top = module.split('.').next().unwrap_or(module);
        let Some(local) = usage.local_modules.iter().find(|m| m.name == top) else {
            continue;
        };
        let Some(file) = &local.file else {
            continue;
        };
        let root = dir.join(file);
        let mut parts: Vec<&str> = module.split('.').skip(1).collect();
        if root.is_dir() {
            push_module(&mut out, root.join("__init__.py"), top);
            // `from pkg import sub` names a submodule when `sub.py` is there.
            if let Some(name) = &import.name {
                parts.push(name);
            }
            submodules(&mut out, root, top.to_string(), &parts);
        } else if root.extension().is_some_and(|e| e == "py" || e == "pyw") {
            push_module(&mut out, root, top);
        }
    }
    out
}

/// The files a relative import of a module read as part of a package names (`from .figures
/// import *` in `fig_code/__init__.py` is `fig_code/figures.py`): resolved from the module's
/// own package, one folder up per dot past the first. A notebook's own relative imports, or a
/// module whose package is not known, name none.
fn relative_files(
    usage: &Usage,
    import: &super::Import,
    dir: &Path,
    out: &mut Vec<(PathBuf, ModulePath)>,
) {
    let Some(me) = &usage.imported_as else {
        return;
    };
    let is_init = usage
        .notebook
        .path
        .file_name()
        .is_some_and(|n| n == "__init__.py");
    let mut package: Vec<&str> = me.as_str().split('.').collect();
    if !is_init {
        package.pop();
    }
    let mut at = dir.to_path_buf();
    for _ in 1..import.level {
        if package.pop().is_none() || !at.pop() {
            return;
        }
    }
    // Beyond the top-level package: Python refuses it.
    if package.is_empty() {
        return;
    }
    let mut parts: Vec<&str> = import
        .module
        .as_str()
        .split('.')
        .filter(|p| !p.is_empty())
        .collect();
    if let Some(name) = &import.name {
        parts.push(name);
    }
    submodules(out, at, package.join("."), &parts);
}

/// The modules `parts` name down from the package at `at` (dotted `dotted`): each package's
/// `__init__.py`, then the module file where a part is no folder.
fn submodules(
    out: &mut Vec<(PathBuf, ModulePath)>,
    mut at: PathBuf,
    mut dotted: String,
    parts: &[&str],
) {
    for part in parts {
        at = at.join(part);
        dotted = format!("{dotted}.{part}");
        if at.is_dir() {
            push_module(out, at.join("__init__.py"), &dotted);
        } else {
            push_module(out, at.with_extension("py"), &dotted);
            break;
        }
    }
}

fn push_module(out: &mut Vec<(PathBuf, ModulePath)>, file: PathBuf, dotted: &str) {
    if !file.is_file() || out.iter().any(|(f, _)| f == &file) {
        return;
    }
    if let Ok(module) = dotted.parse::<ModulePath>() {
        out.push((file, module));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage_of(path: &Path) -> (String, Usage) {
        let nb = crate::notebook::read(path).unwrap();
        (
            path.display().to_string(),
            analyze(&nb, &AnalyzeOptions::default()),
        )
    }

    #[test]
    fn only_imported_modules_are_read_each_once_and_named_from_the_base() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir_all(d.join("pkg/inner")).unwrap();
        let write = |p: &str, s: &str| std::fs::write(d.join(p), s).unwrap();
        write(
            "nb.py",
            "import a\nfrom pkg import b\nfrom pkg.inner.c import f\nimport pkg.missing\n",
        );
        write("a.py", "import a2\nimport nb\n");
        write("a2.py", "import a\n");
        write("pkg/__init__.py", "X = 1\n");
        write("pkg/b.py", "Y = 2\n");
        write("pkg/inner/__init__.py", "Z = 3\n");
        write("pkg/inner/c.py", "def f():\n    pass\n");
        write("never.py", "import numpy\n");
        write("big.py", &"x = 1\n".repeat(200_000));
        write("nb2.py", "import big\n");

        let usages = vec![usage_of(&d.join("nb.py"))];
        let found = local_imports(&usages, &AnalyzeOptions::default(), d);
        let mut names: Vec<(String, String)> = found
            .iter()
            .map(|(n, u)| (n.clone(), u.imported_as.as_ref().unwrap().to_string()))
            .collect();
        names.sort();
        let expect = [
            ("a.py", "a"),
            ("a2.py", "a2"),
            ("pkg/__init__.py", "pkg"),
            ("pkg/b.py", "pkg.b"),
            ("pkg/inner/__init__.py", "pkg.inner"),
            ("pkg/inner/c.py", "pkg.inner.c"),
        ];
        assert_eq!(
            names,
            expect
                .iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect::<Vec<_>>(),
            "the notebook itself (imported back by a.py) is not read again; never.py is not imported"
        );

        // A file over the size limit is not read.
        let usages = vec![usage_of(&d.join("nb2.py"))];
        assert!(local_imports(&usages, &AnalyzeOptions::default(), d).is_empty());
    }

    /// jakevdp's `fig_code/__init__.py` star-imports its submodules relatively: they are the
    /// package's modules, read as such, and a dot more climbs one package up.
    #[test]
    fn a_packages_relative_imports_are_its_modules() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir_all(d.join("fig/sub")).unwrap();
        let write = |p: &str, s: &str| std::fs::write(d.join(p), s).unwrap();
        write("nb.py", "import fig\nfrom .nowhere import x\n");
        write(
            "fig/__init__.py",
            "from .figures import *\nfrom . import data\nfrom .sub import deep\n",
        );
        write("fig/figures.py", "from ..outside import y\n");
        write("fig/data.py", "X = 1\n");
        write("fig/sub/__init__.py", "A = 1\n");
        write("fig/sub/deep.py", "from ..data import X\n");
        write("outside.py", "Y = 1\n");
        let usages = vec![usage_of(&d.join("nb.py"))];
        let mut names: Vec<(String, String)> =
            local_imports(&usages, &AnalyzeOptions::default(), d)
                .iter()
                .map(|(n, u)| (n.clone(), u.imported_as.as_ref().unwrap().to_string()))
                .collect();
        names.sort();
        assert_eq!(
            names,
            [
                ("fig/__init__.py", "fig"),
                ("fig/data.py", "fig.data"),
                ("fig/figures.py", "fig.figures"),
                ("fig/sub/__init__.py", "fig.sub"),
                ("fig/sub/deep.py", "fig.sub.deep"),
            ]
            .map(|(a, b)| (a.to_string(), b.to_string())),
            "`..outside` climbs above the package's root: not followed"
        );
    }
}
