use std::str::FromStr;
use std::sync::Arc;

use pep440_rs::Version;
use serde::{Deserialize, Serialize};

use super::wheel_tags::WheelTags;
use crate::names::DistName;

/// What kind of distribution file a name denotes, with the version it carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DistFilename {
    pub version: Version,
    pub kind: FileKind,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", tag = "type")]
pub enum FileKind {
    Wheel {
        build: Option<String>,
        /// Shared: the files of a project have few distinct tag sets, and a resolution holds
        /// thousands of files.
        tags: Arc<WheelTags>,
    },
    Sdist {
        format: SdistFormat,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SdistFormat {
    TarGz,
    TarBz2,
    TarXz,
    Tar,
    Zip,
}

impl SdistFormat {
    const SUFFIXES: [(&'static str, SdistFormat); 6] = [
        (".tar.gz", SdistFormat::TarGz),
        (".tgz", SdistFormat::TarGz),
        (".tar.bz2", SdistFormat::TarBz2),
        (".tar.xz", SdistFormat::TarXz),
        (".tar", SdistFormat::Tar),
        (".zip", SdistFormat::Zip),
    ];
}

/// Why a file name could not be read as a wheel or sdist of the project.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FilenameError {
    /// Eggs, Windows installers and the like: not something nbenv installs or indexes.
    #[error("not a wheel or sdist")]
    OtherKind,
    #[error("malformed wheel file name")]
    BadWheelName,
    #[error("file name does not start with the project name followed by `-`")]
    NameMismatch,
    #[error("`{version}` is not a valid PEP 440 version")]
    InvalidVersion { version: String },
}

impl DistFilename {
    /// Reads `filename` as a file of `project`.
    ///
    /// Wheels carry `{name}-{version}(-{build})?-{python}-{abi}-{platform}.whl`. Sdist names are
    /// ambiguous (`foo-bar-1.0.tar.gz`), so the project's name decides where the version starts;
    /// old uploads spell the name with any case and separators, hence the normalized comparison.
    pub fn parse(filename: &str, project: &DistName) -> Result<Self, FilenameError> {
        if let Some(stem) = filename.strip_suffix(".whl") {
            return Self::parse_wheel(stem);
        }
        let lower = filename.to_ascii_lowercase();
        let (stem, format) = SdistFormat::SUFFIXES
            .iter()
            .find_map(|(suffix, format)| {
                lower
                    .ends_with(suffix)
                    .then(|| (&filename[..filename.len() - suffix.len()], *format))
            })
            .ok_or(FilenameError::OtherKind)?;
        let version = split_sdist_version(stem, project)?;
        let version = parse_version(version)?;
        Ok(Self {
            version,
            kind: FileKind::Sdist { format },
        })
    }

    fn parse_wheel(stem: &str) -> Result<Self, FilenameError> {
        let parts: Vec<&str> = stem.split('-').collect();
        let (version, build, tags) = match parts.as_slice() {
            [_name, version, py, abi, plat] => (*version, None, (*py, *abi, *plat)),
            [_name, version, build, py, abi, plat] => {
                if !build.starts_with(|c: char| c.is_ascii_digit()) {
                    return Err(FilenameError::BadWheelName);
                }
                (*version, Some(build.to_string()), (*py, *abi, *plat))
            }
            _ => return Err(FilenameError::BadWheelName),
        };
        let tags = WheelTags::parse(tags.0, tags.1, tags.2).ok_or(FilenameError::BadWheelName)?;
        Ok(Self {
            version: parse_version(version)?,
            kind: FileKind::Wheel {
                build,
                tags: Arc::new(tags),
            },
        })
    }
}

fn parse_version(raw: &str) -> Result<Version, FilenameError> {
    Version::from_str(raw).map_err(|_| FilenameError::InvalidVersion {
        version: raw.to_string(),
    })
}

/// Finds the version part of an sdist stem: the text after the first `-` at which the prefix
/// normalizes to the project's name. Falls back to the last `-` for names that do not match
/// (renamed projects), which is what installers have always done.
fn split_sdist_version<'a>(stem: &'a str, project: &DistName) -> Result<&'a str, FilenameError> {
    for (i, _) in stem.match_indices('-') {
        if DistName::new(&stem[..i]).is_ok_and(|n| &n == project) {
            return Ok(&stem[i + 1..]);
        }
    }
    match stem.rsplit_once('-') {
        Some((_, version)) if !version.is_empty() => Ok(version),
        _ => Err(FilenameError::NameMismatch),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(s: &str) -> DistName {
        DistName::new(s).unwrap()
    }

    #[test]
    fn wheel_names() {
        let f = DistFilename::parse(
            "scikit_learn-0.20.0-cp37-cp37m-manylinux1_x86_64.whl",
            &name("scikit-learn"),
        )
        .unwrap();
        assert_eq!(f.version.to_string(), "0.20.0");
        let FileKind::Wheel { build, tags } = f.kind else {
            panic!("wheel")
        };
        assert_eq!(build, None);
        assert_eq!(tags.to_string(), "cp37-cp37m-manylinux1_x86_64");

        let f = DistFilename::parse("six-1.16.0-py2.py3-none-any.whl", &name("six")).unwrap();
        let FileKind::Wheel { tags, .. } = f.kind else {
            panic!("wheel")
        };
        assert_eq!(tags.python, vec!["py2", "py3"]);
        assert!(tags.is_universal());

        let f = DistFilename::parse("foo-1.0-b2-py3-none-any.whl", &name("foo"));
        assert_eq!(f, Err(FilenameError::BadWheelName));
        let f = DistFilename::parse("foo-1.0-2-py3-none-any.whl", &name("foo")).unwrap();
        assert!(matches!(f.kind, FileKind::Wheel { build: Some(b), .. } if b == "2"));
    }

    #[test]
    fn sdist_names() {
        let f = DistFilename::parse("foo-bar-1.0.tar.gz", &name("foo-bar")).unwrap();
        assert_eq!(f.version.to_string(), "1.0");
        let f = DistFilename::parse("Foo_Bar-2.0rc1.zip", &name("foo-bar")).unwrap();
        assert_eq!(f.version.to_string(), "2.0rc1");
        assert!(matches!(
            f.kind,
            FileKind::Sdist {
                format: SdistFormat::Zip
            }
        ));
        let f = DistFilename::parse("numpy-1.0.tar.bz2", &name("numpy")).unwrap();
        assert!(matches!(
            f.kind,
            FileKind::Sdist {
                format: SdistFormat::TarBz2
            }
        ));
    }

    #[test]
    fn invalid_and_other() {
        assert_eq!(
            DistFilename::parse("foo-latest.tar.gz", &name("foo")),
            Err(FilenameError::InvalidVersion {
                version: "latest".into()
            })
        );
        assert_eq!(
            DistFilename::parse("foo-1.0-py2.7.egg", &name("foo")),
            Err(FilenameError::OtherKind)
        );
        assert_eq!(
            DistFilename::parse("foo-1.0.win32.exe", &name("foo")),
            Err(FilenameError::OtherKind)
        );
    }
}
