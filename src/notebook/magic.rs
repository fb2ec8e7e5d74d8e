//! IPython magics: which cell magics run Python, which need a package, and how to find the
//! Python statement inside `%time` / `%timeit` and friends.

/// What a cell magic's body is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CellMagicKind {
    /// The body is Python run in the kernel (`%%time`, `%%capture`, `%%timeit`).
    Python,
    /// The body is Python run by another interpreter (`%%python2`, `%%script python`): its
    /// names do not enter the notebook's namespace.
    PythonElsewhere,
    /// Cython source; needs the Cython package.
    Cython,
    /// `%%writefile path` / `%%file path`.
    WriteFile,
    /// Shell script (`%%bash`, `%%sh`, `%%script bash`): may install packages.
    Shell,
    /// Not Python and not interesting (`%%html`, `%%javascript`, `%%latex`, `%%sql`, `%%R`).
    Skip,
    Unknown,
}

pub(crate) fn cell_magic_kind(name: &str, args: &str) -> CellMagicKind {
    match name {
        "time" | "timeit" | "capture" | "prun" | "debug" | "memit" | "px" | "mprun" | "lprun"
        | "snakeviz" | "heat" | "cache" => CellMagicKind::Python,
        "python" | "python2" | "python3" | "pypy" => CellMagicKind::PythonElsewhere,
        "cython" | "cython_inline" | "cython_pyximport" => CellMagicKind::Cython,
        "writefile" | "file" => CellMagicKind::WriteFile,
        "bash" | "sh" | "sx" | "system" => CellMagicKind::Shell,
        "script" => {
            let program = args.split_whitespace().find(|a| !a.starts_with('-'));
            match program.map(|p| p.rsplit('/').next().unwrap_or(p)) {
                Some(p) if p.starts_with("python") || p.starts_with("pypy") => {
                    CellMagicKind::PythonElsewhere
                }
                Some("bash" | "sh" | "zsh") => CellMagicKind::Shell,
                _ => CellMagicKind::Skip,
            }
        }
        "html" | "HTML" | "javascript" | "js" | "latex" | "markdown" | "svg" | "perl" | "ruby"
        | "sql" | "R" | "octave" | "julia" | "matlab" | "spark" | "local" | "configure"
        | "info" | "md" | "dot" | "graphviz" | "mermaid" | "bigquery" | "kql" | "pig" | "scala"
        | "powershell" | "cmd" => CellMagicKind::Skip,
        _ => CellMagicKind::Unknown,
    }
}

/// Packages a cell magic needs besides its body (`%%cython` needs Cython).
pub(crate) fn cell_magic_import(name: &str) -> Option<&'static str> {
    match name {
        "cython" | "cython_inline" | "cython_pyximport" => Some("Cython"),
        _ => None,
    }
}

/// `%load_ext` names that ship inside IPython itself, under `IPython.extensions`.
pub(crate) fn ipython_extension(name: &str) -> bool {
    matches!(
        name,
        "autoreload" | "storemagic" | "cythonmagic" | "rmagic" | "sympyprinting" | "octavemagic"
    )
}

/// Packages that old IPython's bundled extensions load (`%load_ext rmagic` needs rpy2).
pub(crate) fn ipython_extension_needs(name: &str) -> Option<&'static str> {
    match name {
        "cythonmagic" => Some("Cython"),
        "rmagic" => Some("rpy2"),
        "sympyprinting" => Some("sympy"),
        "octavemagic" => Some("oct2py"),
        _ => None,
    }
}

/// Line magics whose argument is a Python statement, after options.
pub(crate) fn is_statement_magic(name: &str) -> bool {
    matches!(
        name,
        "time" | "timeit" | "prun" | "memit" | "mprun" | "lprun" | "debug" | "snakeviz" | "px"
    )
}

/// The Python statement in a statement magic's arguments (`-n 10 -r 3 f(x)` → `f(x)`), and
/// its byte offset in `args`.
pub(crate) fn statement_of(name: &str, args: &str) -> usize {
    let takes_value: &[u8] = match name {
        "timeit" => b"nrp",
        "prun" | "snakeviz" => b"slTD",
        "memit" => b"rt",
        "lprun" | "mprun" => b"fmDT",
        "px" => b"t",
        _ => b"",
    };
    let mut pos = 0;
    let bytes = args.as_bytes();
    loop {
        while pos < bytes.len() && (bytes[pos] == b' ' || bytes[pos] == b'\t') {
            pos += 1;
        }
        if pos + 1 < bytes.len() && bytes[pos] == b'-' && bytes[pos + 1].is_ascii_alphabetic() {
            let flag = bytes[pos + 1];
            let word_end = args[pos..]
                .find([' ', '\t'])
                .map_or(bytes.len(), |i| pos + i);
            let attached = word_end > pos + 2;
            pos = word_end;
            if takes_value.contains(&flag) && !attached {
                while pos < bytes.len() && (bytes[pos] == b' ' || bytes[pos] == b'\t') {
                    pos += 1;
                }
                pos = args[pos..]
                    .find([' ', '\t'])
                    .map_or(bytes.len(), |i| pos + i);
            }
        } else {
            break;
        }
    }
    pos
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stmt<'a>(name: &str, args: &'a str) -> &'a str {
        &args[statement_of(name, args)..]
    }

    #[test]
    fn statement_magics() {
        assert_eq!(stmt("timeit", "-n 10 -r3 np.sum(a)"), "np.sum(a)");
        assert_eq!(stmt("timeit", "-q -o f(x)"), "f(x)");
        assert_eq!(stmt("time", "model.fit(X, y)"), "model.fit(X, y)");
        assert_eq!(stmt("prun", "-s cumulative -l 10 run()"), "run()");
        assert_eq!(stmt("time", "x = -1"), "x = -1");
    }

    #[test]
    fn cell_magic_kinds() {
        assert_eq!(cell_magic_kind("bash", ""), CellMagicKind::Shell);
        assert_eq!(cell_magic_kind("script", "bash"), CellMagicKind::Shell);
        assert_eq!(
            cell_magic_kind("script", "--bg python3"),
            CellMagicKind::PythonElsewhere
        );
        assert_eq!(cell_magic_kind("cython", "-a"), CellMagicKind::Cython);
        assert_eq!(cell_magic_kind("wibble", ""), CellMagicKind::Unknown);
    }
}
