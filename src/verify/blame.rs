//! Which pinned release an installer's failure is about. uv and pip say it in their own words
//! ("Failed to build `gast==0.2.2`", "Failed building wheel for gast"); what nbenv reads from
//! them is only which of the releases it asked for they name, on the lines that report the
//! failure, so that the next resolution can do without that release. A failure that names
//! none (the network, a full disk) blames nothing.
//!
//! A failing release none of the pins names was the installer's own choice: an sdist whose
//! `setup.py` decides its dependencies at build time (seaborn 0.7 asks for pandas only when
//! pandas is not importable) declares none, so the installer picks that dependency alone,
//! beside nbenv's pins of its era, and may land on a release that cannot build
//! (`pandas==0.12.0` on Python 3.6). That distribution is then resolved as nbenv resolves the
//! rest ([`pulled_in`]).

use pep508_rs::pep440_rs::Version;

use crate::names::DistName;

/// The pins of `pins` that the failure report `detail` names as failing: `name==version`
/// on a failure line first; failing that, a bare name on a line about building (pip names only
/// the project when a build fails), taken at its pinned version.
pub fn blamed(detail: &str, pins: &[(DistName, Version)]) -> Vec<(DistName, Version)> {
    let lines: Vec<String> = detail
        .lines()
        .map(|l| l.to_ascii_lowercase().replace('_', "-"))
        .filter(|l| is_failure_line(l))
        .collect();
    let named = |with_version: bool| -> Vec<(DistName, Version)> {
        pins.iter()
            .filter(|(dist, version)| {
                lines.iter().any(|line| {
                    if with_version {
                        contains_word(line, &format!("{}=={version}", dist.as_str()))
                    } else {
                        // pip's "Failed building wheel for numpy": a build, by name.
                        (line.contains("build") || line.contains("wheel"))
                            && contains_word(line, dist.as_str())
                    }
                })
            })
            .cloned()
            .collect()
    };
    let exact = named(true);
    if !exact.is_empty() {
        return exact;
    }
    named(false)
}

/// A line of the report that says something failed, rather than one that lists what was
/// being installed or how a conflict was derived.
fn is_failure_line(line: &str) -> bool {
    [
        "fail",
        "error",
        "no usable wheels",
        "no matching distribution",
        "cannot be used",
        "could not",
    ]
    .iter()
    .any(|w| line.contains(w))
}

/// `word` in `line` with no name character (letter, digit, `-`, `.`) right before or after:
/// `numpy` is not named by `numpy-financial` nor by `numpy.distutils`.
fn contains_word(line: &str, word: &str) -> bool {
    let name_char = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '.';
    line.match_indices(word).any(|(at, _)| {
        let before = line[..at].chars().next_back();
        let after = line[at + word.len()..].chars().next();
        !before.is_some_and(name_char) && !after.is_some_and(name_char)
    })
}

/// A distribution the installer added to the pins, whose release failed to build or install.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PulledIn {
    pub dist: DistName,
    /// The release that failed, when the report names it (uv does; pip names the project).
    pub version: Option<Version>,
    /// The release that depends on it, when the report says (uv's "was included because").
    pub by: Option<(DistName, Version)>,
}

/// The releases the failure report `detail` names as failing that are none of `pins`.
pub fn pulled_in(detail: &str, pins: &[(DistName, Version)]) -> Vec<PulledIn> {
    let pinned = |d: &DistName| pins.iter().any(|(p, _)| p == d);
    let mut out: Vec<PulledIn> = Vec::new();
    for line in detail.lines() {
        let lower = line.to_ascii_lowercase();
        let failed = if lower.contains("failed to build") || lower.contains("failed to download") {
            quoted(line)
                .into_iter()
                .filter_map(|q| {
                    let (name, version) = q.split_once("==")?;
                    Some((DistName::new(name).ok()?, version.parse().ok()))
                })
                .next()
        } else if let Some(at) = lower.find("failed building wheel for ") {
            let name = line[at + "failed building wheel for ".len()..].trim();
            DistName::new(name).ok().map(|d| (d, None))
        } else {
            None
        };
        if let Some((dist, version)) = failed.filter(|(d, _)| !pinned(d)) {
            if !out.iter().any(|p| p.dist == dist) {
                out.push(PulledIn {
                    by: included_by(detail, &dist),
                    dist,
                    version,
                });
            }
        }
    }
    out
}

/// uv's "`pandas` (v0.12.0) was included because `seaborn` (v0.7.0) depends on `pandas`".
fn included_by(detail: &str, dist: &DistName) -> Option<(DistName, Version)> {
    detail.lines().find_map(|line| {
        let (head, tail) = line.split_once("was included because")?;
        let named = quoted(head).first().and_then(|n| DistName::new(n).ok())?;
        if &named != dist {
            return None;
        }
        let by = DistName::new(quoted(tail).first()?).ok()?;
        let version = tail
            .split_once("(v")?
            .1
            .split(')')
            .next()?
            .trim()
            .parse()
            .ok()?;
        Some((by, version))
    })
}

/// The `backquoted` words of `line`, in order.
fn quoted(line: &str) -> Vec<&str> {
    line.split('`').skip(1).step_by(2).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pins(list: &[(&str, &str)]) -> Vec<(DistName, Version)> {
        list.iter()
            .map(|(d, v)| (DistName::new(d).unwrap(), v.parse().unwrap()))
            .collect()
    }

    #[test]
    fn uv_names_the_release_it_failed_to_build() {
        let detail = "Resolved 12 packages in 40ms\n  × Failed to build `gast==0.2.2`\n  ├─▶ The build backend returned an error\n  help: `gast` (v0.2.2) was included because `tensorflow` (v1.15.0) depends on `gast==0.2.2`";
        let lock = pins(&[
            ("tensorflow", "1.15.0"),
            ("gast", "0.2.2"),
            ("numpy", "1.18.5"),
        ]);
        assert_eq!(blamed(detail, &lock), pins(&[("gast", "0.2.2")]));
    }

    #[test]
    fn pip_names_only_the_project() {
        let detail = "Building wheel for numpy (setup.py): finished with status 'error'\n  ERROR: Failed building wheel for numpy\nERROR: Could not build wheels for numpy";
        let lock = pins(&[
            ("numpy", "1.11.0"),
            ("numpy-financial", "1.0"),
            ("scipy", "0.19.1"),
        ]);
        assert_eq!(blamed(detail, &lock), pins(&[("numpy", "1.11.0")]));
    }

    #[test]
    fn underscores_and_case_are_spelled_as_the_installer_spells_them() {
        let detail = "error: Failed to download `Scikit_Learn==0.19.1`";
        let lock = pins(&[("scikit-learn", "0.19.1")]);
        assert_eq!(blamed(detail, &lock), lock);
    }

    #[test]
    fn a_failure_that_names_no_pin_blames_nothing() {
        let detail =
            "error: Failed to fetch: `https://pypi.org/simple/numpy/`\n  Caused by: dns error";
        let lock = pins(&[("numpy", "1.18.5"), ("pandas", "1.0.5")]);
        assert!(blamed(detail, &lock).is_empty());
        // Lines that only list what was asked for do not blame.
        let listing = "Collecting pandas==1.0.5\nerror: No space left on device";
        assert!(blamed(listing, &lock).is_empty());
    }

    /// uv 0.9's words, as it failed to install jakevdp's sklearn tutorial on Python 3.6.
    const UV_SEABORN: &str = "Using Python 3.6.15 environment at: v36\nerror: Failed to build `pandas==0.12.0`\n  cause: The build backend returned an error\n  cause: Call to `setuptools.build_meta:__legacy__.prepare_metadata_for_build_wheel` failed (exit status: 1)\n         error in pandas setup command: use_2to3 is invalid.\n\nhint: `pandas` (v0.12.0) was included because `seaborn` (v0.7.0) depends on `pandas`\n";

    #[test]
    fn uv_names_the_release_it_chose_and_who_pulled_it_in() {
        let lock = pins(&[("seaborn", "0.7.0"), ("numpy", "1.19.5")]);
        assert_eq!(
            pulled_in(UV_SEABORN, &lock),
            vec![PulledIn {
                dist: DistName::new("pandas").unwrap(),
                version: Some("0.12.0".parse().unwrap()),
                by: Some((DistName::new("seaborn").unwrap(), "0.7.0".parse().unwrap())),
            }]
        );
    }

    #[test]
    fn a_pinned_release_that_failed_is_not_pulled_in() {
        let lock = pins(&[("seaborn", "0.7.0"), ("pandas", "0.12.0")]);
        assert!(pulled_in(UV_SEABORN, &lock).is_empty());
    }

    #[test]
    fn pip_names_the_project_only() {
        let detail =
            "  ERROR: Failed building wheel for pandas\nERROR: Could not build wheels for pandas";
        let found = pulled_in(detail, &pins(&[("seaborn", "0.7.0")]));
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].dist.as_str(), "pandas");
        assert_eq!(
            (found[0].version.clone(), found[0].by.clone()),
            (None, None)
        );
    }

    #[test]
    fn a_failure_naming_no_release_pulls_in_nothing() {
        let detail =
            "error: Failed to fetch: `https://pypi.org/simple/numpy/`\n  Caused by: dns error";
        assert!(pulled_in(detail, &pins(&[("numpy", "1.18.5")])).is_empty());
    }
}
