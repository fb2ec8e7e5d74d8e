//! `apibank/packages.txt`: the distributions a full bank build indexes.
//!
//! One per line: `<distribution> [import=<name>[,<name>...]] [introspect]`, `#` comments.

use std::path::Path;
use std::str::FromStr;

use crate::names::DistName;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageEntry {
    pub name: DistName,
    /// The name as the list (and the index) spells it, `Pillow`, for messages.
    pub spelling: String,
    /// The import names users type, where they differ from the distribution's name.
    pub import_names: Vec<String>,
    /// Also install and introspect each release (APIs made at run time).
    pub introspect: bool,
    pub line: usize,
}

#[derive(Debug, thiserror::Error)]
pub enum PackagesError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}:{line}: {message}")]
    Syntax {
        path: String,
        line: usize,
        message: String,
    },
}

/// The package list built into nbenv (`apibank/packages.txt`), so that `bank build` and the
/// import names of well-known distributions need no file at run time.
pub const BUILT_IN: &str = include_str!("../../../apibank/packages.txt");

/// The built-in list, parsed (it is checked by the tests, so it parses).
pub fn built_in() -> Vec<PackageEntry> {
    parse_packages(BUILT_IN, "apibank/packages.txt").unwrap_or_default()
}

/// Parses a package list; `path` only names the file in errors.
pub fn parse_packages(text: &str, path: &str) -> Result<Vec<PackageEntry>, PackagesError> {
    let mut out: Vec<PackageEntry> = Vec::new();
    let mut lines: std::collections::HashMap<DistName, usize> = std::collections::HashMap::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let syntax = |message: String| PackagesError::Syntax {
            path: path.to_string(),
            line,
            message,
        };
        let content = raw.split('#').next().unwrap_or("").trim();
        if content.is_empty() {
            continue;
        }
        let mut words = content.split_whitespace();
        let spelling = words.next().expect("non-empty line has a word");
        let name = DistName::from_str(spelling).map_err(|e| syntax(e.to_string()))?;
        let mut entry = PackageEntry {
            name,
            spelling: spelling.to_string(),
            import_names: Vec::new(),
            introspect: false,
            line,
        };
        for word in words {
            if word == "introspect" {
                entry.introspect = true;
            } else if let Some(list) = word.strip_prefix("import=") {
                for import in list.split(',') {
                    if crate::names::ModulePath::new(import).is_err() {
                        return Err(syntax(format!("`{import}` is not an import name")));
                    }
                    entry.import_names.push(import.to_string());
                }
            } else {
                return Err(syntax(format!(
                    "unexpected `{word}` (expected `import=NAME[,NAME...]` or `introspect`)"
                )));
            }
        }
        // By name: a scan of the entries so far made the list's parse quadratic, a few
        // milliseconds of every `infer`.
        if let Some(first) = lines.insert(entry.name.clone(), line) {
            return Err(syntax(format!(
                "`{}` is listed twice (first on line {first})",
                entry.name
            )));
        }
        out.push(entry);
    }
    Ok(out)
}

/// Reads and parses a package list file.
pub fn read_packages(path: &Path) -> Result<Vec<PackageEntry>, PackagesError> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| PackagesError::Read {
        path: shown.clone(),
        source,
    })?;
    parse_packages(&text, &shown)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_lines() {
        let list = parse_packages(
            "# header\n\nscikit-learn import=sklearn introspect\nprotobuf import=google.protobuf # ns\nsix\n",
            "p.txt",
        )
        .unwrap();
        assert_eq!(list.len(), 3);
        assert_eq!(list[0].name.as_str(), "scikit-learn");
        assert_eq!(list[0].import_names, ["sklearn"]);
        assert!(list[0].introspect);
        assert_eq!(list[1].import_names, ["google.protobuf"]);
        assert!(!list[2].introspect);
    }

    #[test]
    fn errors_name_the_line() {
        let err = parse_packages("six\nnumpy importt=np\n", "p.txt").unwrap_err();
        assert_eq!(
            err.to_string(),
            "p.txt:2: unexpected `importt=np` (expected `import=NAME[,NAME...]` or `introspect`)"
        );
        let err = parse_packages("six\nSix\n", "p.txt").unwrap_err();
        assert!(err.to_string().contains("listed twice (first on line 1)"));
    }

    #[test]
    fn the_shipped_list_parses() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("apibank/packages.txt");
        let list = read_packages(&path).unwrap();
        assert!(list.len() >= 300, "{} entries", list.len());
        let sklearn = list
            .iter()
            .find(|e| e.name.as_str() == "scikit-learn")
            .unwrap();
        assert_eq!(sklearn.import_names, ["sklearn"]);
    }
}
