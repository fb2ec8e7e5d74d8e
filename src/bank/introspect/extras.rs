//! Extras a release's own imports need. scikit-learn 0.19.2's wheel lists numpy and scipy
//! only under the extra `alldeps`: installed plainly, `import sklearn` fails, and the run
//! says nothing about the release. The requirements of the extras that provide the missing
//! modules are installed, except those of heavy frameworks (transformers' extras would bring
//! torch, TensorFlow and jax), which the cap leaves out and the outcome names.

use std::collections::BTreeSet;

use pep508_rs::{MarkerExpression, MarkerValueExtra};

use crate::bank::indexer::PackageEntry;
use crate::pypi::RequiresDist;

/// Distributions an install for introspection never pulls in through an extra: frameworks
/// of hundreds of megabytes that optional integrations name.
pub const LEFT_OUT_OF_EXTRAS: &[&str] = &[
    "torch",
    "torchvision",
    "torchaudio",
    "tensorflow",
    "tensorflow-cpu",
    "tensorflow-gpu",
    "tensorflow-intel",
    "tensorflow-macos",
    "tf-nightly",
    "jax",
    "jaxlib",
    "flax",
    "mxnet",
    "paddlepaddle",
    "cntk",
    "cupy",
    "onnxruntime-gpu",
];

/// What to add to an install so that the release's imports find their modules.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExtrasPlan {
    /// The extras drawn from (`alldeps`).
    pub extras: Vec<String>,
    /// Their requirements to install, without markers (`numpy>=1.8.2`).
    pub requirements: Vec<String>,
    /// Distributions the cap left out.
    pub left_out: Vec<String>,
}

impl ExtrasPlan {
    pub fn is_empty(&self) -> bool {
        self.requirements.is_empty()
    }

    /// Moves a requirement that could not be installed under the cap (it needs a left-out
    /// framework) to `left_out`, by its distribution's name.
    pub fn leave_out(&mut self, requirement: &str) {
        let name = requirement
            .split(|c: char| !(c.is_ascii_alphanumeric() || "-_.".contains(c)))
            .next()
            .unwrap_or(requirement)
            .to_string();
        if !self.left_out.contains(&name) {
            self.left_out.push(name);
        }
    }

    /// Adds what another round planned.
    pub fn merge(&mut self, other: ExtrasPlan) {
        for (ours, theirs) in [
            (&mut self.extras, other.extras),
            (&mut self.requirements, other.requirements),
            (&mut self.left_out, other.left_out),
        ] {
            for item in theirs {
                if !ours.contains(&item) {
                    ours.push(item);
                }
            }
        }
        self.extras.sort();
    }
}

/// The import names a distribution provides: from the package list where it says, else the
/// name as modules spell it (`python-dateutil` → `python_dateutil`, found only through the
/// list as `dateutil`).
fn import_names(name: &str, packages: &[PackageEntry]) -> Vec<String> {
    let listed = packages
        .iter()
        .find(|e| e.name.as_str() == name)
        .map(|e| e.import_names.clone())
        .unwrap_or_default();
    if listed.is_empty() {
        vec![name.replace(['-', '.'], "_")]
    } else {
        listed
            .iter()
            .map(|n| n.split('.').next().unwrap_or(n).to_string())
            .collect()
    }
}

/// The import names of distributions (those the cap left out): modules that fail for want of
/// them fail as expected.
pub fn import_names_of(names: &[String], packages: &[PackageEntry]) -> Vec<String> {
    names
        .iter()
        .flat_map(|n| import_names(n, packages))
        .collect()
}

/// The extras of `requires_dist` (a release's Requires-Dist lines) whose requirements provide
/// a module in `missing` (top-level names that failed to import).
pub fn plan(requires_dist: &[String], missing: &[String], packages: &[PackageEntry]) -> ExtrasPlan {
    let mut plan = ExtrasPlan::default();
    let mut extras = BTreeSet::new();
    for line in requires_dist {
        let Ok(parsed) = line.parse::<RequiresDist>() else {
            continue;
        };
        let requirement = parsed.requirement;
        let Some(MarkerExpression::Extra {
            name: MarkerValueExtra::Extra(extra),
            ..
        }) = requirement.marker.top_level_extra()
        else {
            continue;
        };
        let name = requirement.name.to_string();
        let provides = import_names(&name, packages);
        if !provides.iter().any(|p| missing.contains(p)) {
            continue;
        }
        extras.insert(extra.to_string());
        if LEFT_OUT_OF_EXTRAS.contains(&name.as_str()) {
            if !plan.left_out.contains(&name) {
                plan.left_out.push(name);
            }
            continue;
        }
        let mut text = name.clone();
        if !requirement.extras.is_empty() {
            let inner: Vec<String> = requirement.extras.iter().map(ToString::to_string).collect();
            text.push_str(&format!("[{}]", inner.join(",")));
        }
        if let Some(pep508_rs::VersionOrUrl::VersionSpecifier(spec)) = &requirement.version_or_url {
            text.push_str(&spec.to_string());
        }
        if !plan.requirements.contains(&text) {
            plan.requirements.push(text);
        }
    }
    plan.extras = extras.into_iter().collect();
    plan
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extras_that_provide_missing_modules_minus_heavy_frameworks() {
        let requires = [
            "numpy (>=1.8.2) ; extra == 'alldeps'".to_string(),
            "scipy (>=0.13.3) ; extra == 'alldeps'".to_string(),
            "torch>=1.0; extra == \"torch\"".to_string(),
            "python-dateutil>=2.7; extra == \"dates\"".to_string(),
            "requests".to_string(),
        ];
        let packages = crate::bank::indexer::built_in();
        let plan = plan(
            &requires,
            &["numpy".into(), "torch".into(), "dateutil".into()],
            &packages,
        );
        assert_eq!(plan.extras, ["alldeps", "dates", "torch"]);
        assert_eq!(plan.requirements, ["numpy>=1.8.2", "python-dateutil>=2.7"]);
        assert_eq!(plan.left_out, ["torch"]);
        let none = super::plan(&requires, &["yaml".into()], &packages);
        assert!(none.is_empty() && none.extras.is_empty());
    }
}
