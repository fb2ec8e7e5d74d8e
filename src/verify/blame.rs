//! Which pinned release an installer's failure is about. uv and pip say it in their own words
//! ("Failed to build `gast==0.2.2`", "Failed building wheel for gast"); what nbenv reads from
//! them is only which of the releases it asked for they name, on the lines that report the
//! failure, so that the next resolution can do without that release. A failure that names
//! none (the network, a full disk) blames nothing.

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
}
