//! Explicit install requirements: what the notebook's own `pip install` / `conda install` lines
//! ask for. They are the strongest evidence there is, kept as PEP 508 requirements.

use pep508_rs::Requirement;
use serde::Serialize;

use crate::names::{parse_requirement, DistName};

use super::location::Location;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Installer {
    Pip,
    /// Conda (or mamba): names are conda package names, which mostly but not always match PyPI.
    Conda,
    /// Colab's `%tensorflow_version 1.x`, which switched the preinstalled TensorFlow.
    Colab,
    /// Not the notebook: a library it runs asked for the package in a run (`IPython.html
    /// .widgets requires pyzmq >= 2.1.11`), and a repair round installs it.
    Library,
    /// Not the notebook: a release nbenv pinned depends on it without declaring it (an sdist
    /// whose `setup.py` decides at build time), and an install showed it. The requirement's
    /// `command` names that release.
    Undeclared,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InstallRequirement {
    /// `tensorflow==1.15`, `scikit-learn>=0.20,<0.22`, `name @ https://...`. Conda's
    /// `pkg=1.2` becomes `pkg==1.2.*`.
    pub requirement: Requirement,
    /// The distribution the requirement names.
    pub name: DistName,
    pub installer: Installer,
    /// The command as written, for messages.
    pub command: String,
    /// In a `try:`/`except` or under an `if`.
    pub optional: bool,
    pub at: Location,
}

/// A pip requirement argument (`'pandas<1.0'`, `keras==2.2.4`, `pkg[extra]>=1`, a URL whose
/// distribution can be told), read by the PEP 508 parser. Returns `None` for arguments that
/// are not requirements (paths, shell variables, URLs that name no distribution).
pub fn pip_requirement(arg: &str) -> Option<(Requirement, DistName)> {
    let arg = arg.trim();
    if arg.is_empty() || arg.contains('$') || arg.contains('{') || arg.starts_with('-') {
        return None;
    }
    if is_url(arg) {
        return named(&url_requirement(arg)?);
    }
    if arg.starts_with(['.', '/', '~']) || arg.contains('/') {
        return None;
    }
    named(arg)
}

/// Parses a PEP 508 requirement whose name is also a valid distribution name.
fn named(text: &str) -> Option<(Requirement, DistName)> {
    let requirement = parse_requirement(text).ok()?;
    let name = DistName::from(&requirement.name);
    Some((requirement, name))
}

/// Whether a pip argument is a URL rather than a requirement or a path.
pub(crate) fn is_url(arg: &str) -> bool {
    arg.contains("://") || arg.starts_with("git+")
}

/// `name @ URL` for `git+https://...#egg=name`, `https://.../name-1.0-py3-none-any.whl`,
/// `https://.../name-1.0.tar.gz`, when the URL tells the name.
fn url_requirement(arg: &str) -> Option<String> {
    let name = if let Some((_, egg)) = arg.split_once("#egg=") {
        DistName::new(egg.split('&').next().unwrap_or(egg)).ok()
    } else {
        let file = arg.rsplit('/').next().unwrap_or("");
        if file.ends_with(".whl") || file.ends_with(".tar.gz") || file.ends_with(".zip") {
            file.split('-').next().and_then(|n| DistName::new(n).ok())
        } else if arg.starts_with("git+") {
            // git+https://github.com/owner/repo(.git)(@ref): the repository name is a good guess
            let segment = arg.trim_end_matches('/').rsplit('/').next().unwrap_or("");
            let repo = segment.split('@').next().unwrap_or(segment);
            DistName::new(repo.trim_end_matches(".git")).ok()
        } else {
            None
        }
    };
    Some(format!("{} @ {arg}", name?))
}

/// A conda match spec (`pkg`, `pkg=1.2`, `pkg=1.2=py36_0`, `pkg>=1.2`, `conda-forge::pkg`) as
/// a PEP 508 requirement.
pub(crate) fn conda_requirement(arg: &str) -> Option<(Requirement, DistName)> {
    let arg = arg.trim();
    if arg.is_empty() || arg.contains('$') || arg.starts_with('-') || arg.contains('/') {
        return None;
    }
    let arg = arg.rsplit("::").next().unwrap_or(arg);
    let name_end = arg
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
        .unwrap_or(arg.len());
    let name = DistName::new(&arg[..name_end]).ok()?;
    let rest: String = arg[name_end..]
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    let spec = if let Some(v) = rest.strip_prefix("==") {
        // `pkg==1.2=build`: drop the build string
        format!("=={}", v.split('=').next().unwrap_or(v))
    } else if let Some(v) = rest.strip_prefix('=') {
        let v = v.split('=').next().unwrap_or(v);
        let v = v.trim_end_matches('*').trim_end_matches('.');
        if v.is_empty() {
            String::new()
        } else {
            format!("=={v}.*")
        }
    } else {
        rest
    };
    named(&format!("{name}{spec}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pip(s: &str) -> Option<String> {
        pip_requirement(s).map(|(r, _)| r.to_string())
    }

    #[test]
    fn pip_arguments() {
        assert_eq!(pip("tensorflow==1.15").as_deref(), Some("tensorflow==1.15"));
        assert_eq!(pip("pandas < 1.0").as_deref(), Some("pandas<1.0"));
        assert_eq!(
            pip("scikit-learn>=0.20,<0.22").as_deref(),
            Some("scikit-learn>=0.20,<0.22")
        );
        assert_eq!(
            pip("keras[tests]==2.2.4").as_deref(),
            Some("keras[tests]==2.2.4")
        );
        assert_eq!(pip_requirement("Keras").unwrap().1.as_str(), "keras");
        assert_eq!(
            pip("scikit_learn [alldeps] >= 0.20 ; python_version < '3.8'").as_deref(),
            Some("scikit-learn[alldeps]>=0.20 ; python_full_version < '3.8'")
        );
        assert_eq!(pip("pandas==").as_deref(), None);
        assert_eq!(pip("https://x.org/download?id=3").as_deref(), None);
        assert_eq!(pip("."), None);
        assert_eq!(pip("./pkg"), None);
        assert_eq!(pip("$PKG"), None);
        assert_eq!(pip("{pkg}"), None);
        assert_eq!(
            pip("git+https://github.com/keras-team/keras-contrib.git").as_deref(),
            Some("keras-contrib @ git+https://github.com/keras-team/keras-contrib.git")
        );
        assert_eq!(
            pip("https://x.org/torch-0.4.1-cp36-cp36m-linux_x86_64.whl")
                .unwrap()
                .split(' ')
                .next(),
            Some("torch")
        );
    }

    #[test]
    fn conda_specs() {
        let c = |s: &str| conda_requirement(s).map(|(r, _)| r.to_string());
        assert_eq!(c("numpy=1.16").as_deref(), Some("numpy==1.16.*"));
        assert_eq!(c("numpy=1.16.*").as_deref(), Some("numpy==1.16.*"));
        assert_eq!(c("numpy==1.16.4=py36_0").as_deref(), Some("numpy==1.16.4"));
        assert_eq!(
            c("conda-forge::xgboost>=0.80").as_deref(),
            Some("xgboost>=0.80")
        );
        assert_eq!(c("rdkit").as_deref(), Some("rdkit"));
    }
}
