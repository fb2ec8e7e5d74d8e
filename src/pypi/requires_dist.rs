//! Requires-Dist lines read by the PEP 508 parser, with the leniency old metadata needs.

use std::str::FromStr;

use pep508_rs::Requirement;

use crate::names::parse_requirement;

/// One Requires-Dist line of core metadata, parsed: name, extras, version and markers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequiresDist {
    pub requirement: Requirement,
    /// The version constraint as written, when PEP 440 cannot read it (`pytz (>=2011k)` in
    /// pandas 0.20): the dependency is kept, without a constraint, rather than lost.
    pub unreadable_version: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Requires-Dist `{line}` is not a PEP 508 requirement: {message}")]
pub struct InvalidRequiresDist {
    pub line: String,
    pub message: String,
}

impl FromStr for RequiresDist {
    type Err = InvalidRequiresDist;

    /// Reads `numpy>=1.22; python_version < "3.11"`, `pytest (>=3.0) ; extra == 'test'` and
    /// the other shapes metadata has used since Metadata-Version 1.2.
    fn from_str(line: &str) -> Result<Self, Self::Err> {
        let line = line.trim();
        let strict = match parse_requirement(line) {
            Ok(requirement) => {
                return Ok(Self {
                    requirement,
                    unreadable_version: None,
                })
            }
            Err(e) => InvalidRequiresDist {
                line: line.to_string(),
                message: e.message,
            },
        };
        // Before PEP 440, versions such as `2011k` were accepted: keep the dependency.
        let (head, marker) = match line.split_once(';') {
            Some((head, marker)) => (head, Some(marker)),
            None => (line, None),
        };
        if head.contains('@') {
            return Err(strict);
        }
        let version_at = head
            .find(['(', '<', '>', '=', '!', '~'])
            .ok_or(strict.clone())?;
        let version = head[version_at..].trim();
        let version = match version.strip_prefix('(') {
            Some(inner) => inner.strip_suffix(')').ok_or(strict.clone())?,
            None => version,
        }
        .trim();
        let mut loose = head[..version_at].trim().to_string();
        if let Some(marker) = marker {
            loose.push_str(" ; ");
            loose.push_str(marker.trim());
        }
        match parse_requirement(&loose) {
            Ok(requirement) if version.contains(|c: char| c.is_ascii_alphanumeric()) => Ok(Self {
                requirement,
                unreadable_version: Some(version.to_string()),
            }),
            _ => Err(strict),
        }
    }
}

#[cfg(test)]
mod tests {
    use pep508_rs::{ExtraName, MarkerEnvironment, MarkerEnvironmentBuilder, VersionOrUrl};

    use super::super::metadata::CoreMetadata;
    use super::*;

    /// Requires-Dist lines as real releases wrote them: pandas 0.20 (old-style parentheses, a
    /// pre-PEP 440 version), pandas 2.x (markers on the Python version, extras), requests
    /// (extras of a dependency), and a direct URL.
    const METADATA: &str = "Metadata-Version: 2.1
Name: example
Version: 1.0
Requires-Dist: numpy (>=1.7.0)
Requires-Dist: python-dateutil (>=2)
Requires-Dist: pytz (>=2011k)
Requires-Dist: numpy>=1.22.4; python_version < \"3.11\"
Requires-Dist: numpy>=1.23.2; python_version == \"3.11\"
Requires-Dist: pytest (>=3.0) ; extra == 'test'
Requires-Dist: matplotlib>=3.6.1; extra == \"all\"
Requires-Dist: PySocks!=1.5.7,>=1.5.6; extra == \"socks\"
Requires-Dist: requests[security,socks] (>=2.0) ; python_version >= \"3\" and extra == 'net'
Requires-Dist: pywin32 (>=1.0) ; sys_platform == \"win32\"
Requires-Dist: importlib-metadata; python_version<'3.8'
Requires-Dist: foo @ https://example.org/foo-1.0-py3-none-any.whl
Requires-Dist: bad (>=
Provides-Extra: all

Description body.
";

    #[test]
    fn real_metadata_shapes() {
        let meta = CoreMetadata::parse(METADATA.as_bytes()).unwrap();
        let parsed = meta.requirements();
        assert_eq!(parsed.len(), 13);
        let (ok, bad): (Vec<_>, Vec<_>) = parsed.into_iter().partition(Result::is_ok);
        let ok: Vec<RequiresDist> = ok.into_iter().map(Result::unwrap).collect();
        assert_eq!(bad.len(), 1, "{bad:?}");
        assert_eq!(bad[0].as_ref().unwrap_err().line, "bad (>=");

        let names: Vec<String> = ok.iter().map(|r| r.requirement.name.to_string()).collect();
        assert_eq!(
            names,
            [
                "numpy",
                "python-dateutil",
                "pytz",
                "numpy",
                "numpy",
                "pytest",
                "matplotlib",
                "pysocks",
                "requests",
                "pywin32",
                "importlib-metadata",
                "foo"
            ]
        );
        let version = |i: usize| match &ok[i].requirement.version_or_url {
            Some(VersionOrUrl::VersionSpecifier(v)) => v.to_string(),
            Some(VersionOrUrl::Url(u)) => format!("@ {u}"),
            None => String::new(),
        };
        assert_eq!(version(0), ">=1.7.0");
        assert_eq!(version(2), "");
        assert_eq!(ok[2].unreadable_version.as_deref(), Some(">=2011k"));
        assert!(ok
            .iter()
            .enumerate()
            .all(|(i, r)| (i == 2) == r.unreadable_version.is_some()));
        assert_eq!(version(7), ">=1.5.6, !=1.5.7");
        assert_eq!(
            version(11),
            "@ https://example.org/foo-1.0-py3-none-any.whl"
        );
        assert_eq!(
            ok[8].requirement.extras,
            [
                ExtraName::from_str("security").unwrap(),
                ExtraName::from_str("socks").unwrap()
            ]
        );

        // Which lines apply on CPython for Linux, with the extras asked for.
        let applies = |extras: &[&str], python: &str| -> Vec<usize> {
            let extras: Vec<ExtraName> = extras
                .iter()
                .map(|e| ExtraName::from_str(e).unwrap())
                .collect();
            let env = MarkerEnvironment::try_from(MarkerEnvironmentBuilder {
                implementation_name: "cpython",
                implementation_version: python,
                os_name: "posix",
                platform_machine: "x86_64",
                platform_python_implementation: "CPython",
                platform_release: "6.1.0",
                platform_system: "Linux",
                platform_version: "#1 SMP",
                python_full_version: python,
                python_version: &python[..python.rfind('.').unwrap()],
                sys_platform: "linux",
            })
            .unwrap();
            (0..ok.len())
                .filter(|&i| ok[i].requirement.evaluate_markers(&env, &extras))
                .collect()
        };
        assert_eq!(applies(&[], "3.7.3"), [0, 1, 2, 3, 10, 11]);
        assert_eq!(applies(&["test"], "3.11.4"), [0, 1, 2, 4, 5, 11]);
        assert_eq!(applies(&["net"], "3.12.1"), [0, 1, 2, 8, 11]);
    }
}
