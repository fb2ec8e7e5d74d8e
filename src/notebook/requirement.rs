//! Explicit install requirements: what the notebook's own `pip install` / `conda install` lines
//! ask for. They are the strongest evidence there is, kept as PEP 508 strings.

use serde::Serialize;

use crate::names::DistName;

use super::location::Location;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Installer {
    Pip,
    /// Conda (or mamba): names are conda package names, which mostly but not always match PyPI.
    Conda,
    /// Colab's `%tensorflow_version 1.x`, which switched the preinstalled TensorFlow.
    Colab,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InstallRequirement {
    /// A PEP 508 requirement: `tensorflow==1.15`, `scikit-learn>=0.20,<0.22`,
    /// `name @ https://...`. Conda's `pkg=1.2` becomes `pkg==1.2.*`.
    pub requirement: String,
    /// The distribution, when the requirement names one (a bare URL may not).
    pub name: Option<DistName>,
    pub installer: Installer,
    /// The command as written, for messages.
    pub command: String,
    /// In a `try:`/`except` or under an `if`.
    pub optional: bool,
    pub at: Location,
}

/// A pip requirement argument (`'pandas<1.0'`, `keras==2.2.4`, `pkg[extra]>=1`): its
/// distribution name and the PEP 508 text. Returns `None` for arguments that are not
/// requirements (paths, shell variables).
pub(crate) fn pip_requirement(arg: &str) -> Option<(String, Option<DistName>)> {
    let arg = arg.trim();
    if arg.is_empty() || arg.contains('$') || arg.contains('{') || arg.starts_with('-') {
        return None;
    }
    if let Some(url_req) = url_requirement(arg) {
        return Some(url_req);
    }
    if arg.starts_with('.') || arg.starts_with('/') || arg.starts_with('~') || arg.contains('/') {
        return None;
    }
    let name_end = arg
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
        .unwrap_or(arg.len());
    let name = DistName::new(&arg[..name_end]).ok()?;
    let rest = arg[name_end..].trim_start();
    if !(rest.is_empty() || rest.starts_with(['[', '=', '<', '>', '!', '~', ';', '@', ','])) {
        return None;
    }
    let requirement: String = if rest.starts_with('@') || rest.contains(';') {
        arg.to_string()
    } else {
        arg.chars().filter(|c| !c.is_whitespace()).collect()
    };
    Some((requirement, Some(name)))
}

/// `git+https://...#egg=name`, `https://.../name-1.0-py3-none-any.whl`, `https://.../x.tar.gz`.
fn url_requirement(arg: &str) -> Option<(String, Option<DistName>)> {
    let is_url = arg.contains("://") || arg.starts_with("git+");
    if !is_url {
        return None;
    }
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
    let requirement = match &name {
        Some(n) => format!("{n} @ {arg}"),
        None => arg.to_string(),
    };
    Some((requirement, name))
}

/// A conda match spec (`pkg`, `pkg=1.2`, `pkg=1.2=py36_0`, `pkg>=1.2`, `conda-forge::pkg`) as
/// a PEP 508 requirement.
pub(crate) fn conda_requirement(arg: &str) -> Option<(String, Option<DistName>)> {
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
    Some((format!("{name}{spec}"), Some(name)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pip(s: &str) -> Option<String> {
        pip_requirement(s).map(|(r, _)| r)
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
        assert_eq!(
            pip_requirement("Keras").unwrap().1.unwrap().as_str(),
            "keras"
        );
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
        let c = |s: &str| conda_requirement(s).map(|(r, _)| r);
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
