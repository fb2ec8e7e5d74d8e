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
            let mut at = root.clone();
            push_module(&mut out, at.join("__init__.py"), top);
            // `from pkg import sub` names a submodule when `sub.py` is there.
            if let Some(name) = &import.name {
                parts.push(name);
            }
            let mut dotted = top.to_string();
            for part in parts {
                at = at.join(part);
                dotted = format!("{dotted}.{part}");
                if at.is_dir() {
                    push_module(&mut out, at.join("__init__.py"), &dotted);
                } else {
                    push_module(&mut out, at.with_extension("py"), &dotted);
                    break;
                }
            }
        } else if root.extension().is_some_and(|e| e == "py" || e == "pyw") {
            push_module(&mut out, root, top);
        }
    }
    out
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
}
