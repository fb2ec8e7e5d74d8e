//! An old sdist's requirements: setuptools wrote them to `*.egg-info/requires.txt`, not to
//! PKG-INFO (Requires-Dist there came with metadata 2.1 and setuptools 36). Read as
//! Requires-Dist lines, they let the solver see what building the sdist will ask for: a
//! release whose dependency left the index (fancyimpute 0.2.0's `climate`) is then passed
//! over by the resolution, not found by the installer round after round.

/// Whether `name` (an archive member) is the requires.txt of an sdist's own egg-info: at the
/// sdist's root folder, or one folder down (`src/`).
pub(crate) fn is_requires_txt(name: &str) -> bool {
    let Some(dir) = name.strip_suffix(".egg-info/requires.txt") else {
        return false;
    };
    // `root/pkg` or `root/src/pkg`: the egg-info folder's own name is the last segment.
    matches!(dir.matches('/').count(), 1 | 2)
}

/// The Requires-Dist lines that `requires.txt` stands for. Its plain lines are
/// requirements; a `[section]` header scopes the lines after it to an extra (`[docs]`), a
/// marker (`[:python_version < "3"]`) or both (`[test:sys_platform == "win32"]`).
pub(crate) fn requires_dist(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut scope: Option<String> = None;
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        if let Some(section) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            scope = section_marker(section);
            continue;
        }
        out.push(match &scope {
            Some(marker) if line.contains(';') => format!("{line} and ({marker})"),
            Some(marker) => format!("{line}; {marker}"),
            None => line.to_string(),
        });
    }
    out
}

/// The marker a section header stands for: `extra == "x"`, the header's own marker, or both.
fn section_marker(section: &str) -> Option<String> {
    let (extra, marker) = match section.split_once(':') {
        Some((extra, marker)) => (extra.trim(), marker.trim()),
        None => (section.trim(), ""),
    };
    match (extra.is_empty(), marker.is_empty()) {
        (true, true) => None,
        (true, false) => Some(format!("({marker})")),
        (false, true) => Some(format!("extra == \"{extra}\"")),
        (false, false) => Some(format!("({marker}) and extra == \"{extra}\"")),
    }
}

/// PKG-INFO's headers with a Requires-Dist line for each requirement of `requires_txt`,
/// when PKG-INFO itself declares none (what it declares is never overridden).
pub(crate) fn with_requires(pkg_info: &[u8], requires_txt: &str) -> Option<Vec<u8>> {
    // Read as the metadata is read: a `Requires-Dist:` in the description is not a header.
    let declared =
        super::metadata::CoreMetadata::parse(pkg_info).is_ok_and(|m| !m.requires_dist.is_empty());
    let lines = requires_dist(requires_txt);
    if declared || lines.is_empty() {
        return None;
    }
    // Right after the first header: a 1.x Description runs on over lines of spaces, where
    // the cache's memo of the headers stops.
    let first = pkg_info
        .iter()
        .position(|&b| b == b'\n')
        .map_or(pkg_info.len(), |i| i + 1);
    let end = super::metadata::headers_end(pkg_info).max(first);
    let mut out = pkg_info[..first].to_vec();
    if !out.ends_with(b"\n") {
        out.push(b'\n');
    }
    for line in lines {
        out.extend_from_slice(format!("Requires-Dist: {line}\n").as_bytes());
    }
    out.extend_from_slice(&pkg_info[first..end]);
    out.extend_from_slice(b"\n");
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_become_markers() {
        let text = "six\nnumpy>=1.10\n\n[:python_version < \"3\"]\nfutures\n\n[docs]\nsphinx\n\n[test:sys_platform == \"win32\"]\npywin32; python_version >= \"3\"\n";
        assert_eq!(
            requires_dist(text),
            [
                "six",
                "numpy>=1.10",
                "futures; (python_version < \"3\")",
                "sphinx; extra == \"docs\"",
                "pywin32; python_version >= \"3\" and ((sys_platform == \"win32\") and extra == \"test\")",
            ]
        );
    }

    #[test]
    fn the_egg_info_of_the_sdist_itself() {
        assert!(is_requires_txt(
            "fancyimpute-0.2.0/fancyimpute.egg-info/requires.txt"
        ));
        assert!(is_requires_txt("pkg-1.0/src/pkg.egg-info/requires.txt"));
        assert!(!is_requires_txt(
            "pkg-1.0/vendor/other/x.egg-info/requires.txt"
        ));
        assert!(!is_requires_txt("requires.txt"));
    }

    #[test]
    fn declared_requirements_are_never_overridden() {
        let pkg_info =
            b"Metadata-Version: 1.0\nName: fancyimpute\nVersion: 0.2.0\n\nlong description\n";
        let added = with_requires(pkg_info, "six\nclimate\n").unwrap();
        assert_eq!(
            String::from_utf8(added).unwrap(),
            "Metadata-Version: 1.0\nRequires-Dist: six\nRequires-Dist: climate\nName: fancyimpute\nVersion: 0.2.0\n\n"
        );
        let declared = b"Metadata-Version: 2.1\nName: x\nVersion: 1\nRequires-Dist: six\n\n";
        assert_eq!(with_requires(declared, "six\nclimate\n"), None);
        assert_eq!(with_requires(pkg_info, "\n# nothing\n"), None);
    }
}
