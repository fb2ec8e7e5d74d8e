//! One environment for a folder of notebooks, as a repository's maintainer needs: each
//! distribution's allowed versions are those every notebook allows, every record keeps the
//! notebook it came from, and where the notebooks leave a distribution no version in common,
//! the conflict names them. A notebook's local modules are read with it, but give way: where
//! a module's reading leaves none of the versions the notebook's own evidence allows, the
//! module's records are dropped.

use std::collections::BTreeSet;

use pep508_rs::pep440_rs::Version;
use serde::Serialize;

use super::evidence::{DistVersions, DropReason, Effect, Evidence, Need};
use crate::bank::store::ReleaseSet;
use crate::names::DistName;
use crate::notebook::PythonEvidence;

/// Notebooks whose evidence on one distribution has no version in common.
#[derive(Debug, Clone, Serialize, thiserror::Error)]
#[error("the notebooks allow no version of {dist} in common: {}", describe(.allowed))]
pub struct JointConflict {
    pub dist: DistName,
    /// Each notebook that constrains the distribution, with the versions it allows.
    pub allowed: PerNotebook,
}

/// Each notebook's name with the versions it allows.
type PerNotebook = Vec<(String, Vec<Version>)>;

fn describe(allowed: &[(String, Vec<Version>)]) -> String {
    allowed
        .iter()
        .map(|(nb, versions)| match (versions.first(), versions.last()) {
            (Some(lo), Some(hi)) if lo == hi => format!("{nb} allows only {lo}"),
            (Some(lo), Some(hi)) => format!("{nb} allows {lo} to {hi}"),
            _ => format!("{nb} allows none"),
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// One notebook's evidence, or a local module's that a notebook imports, and how outputs name
/// it: `None` for the one notebook of a resolution (its places are said as cells alone).
#[derive(Debug, Clone)]
pub struct Part {
    pub name: Option<String>,
    /// A local module file, whose places are lines of the file.
    pub in_module: bool,
    pub evidence: Evidence,
}

/// The evidence of all `parts` as one: records and import decisions labelled with their
/// part, version sets intersected.
pub fn joint_evidence(parts: Vec<Part>) -> Result<Evidence, JointConflict> {
    let mut imports = Vec::new();
    let mut by_dist: Vec<(DistVersions, PerNotebook, Option<NotebooksAllow>)> = Vec::new();
    for Part {
        name,
        in_module,
        evidence,
    } in parts
    {
        for mut decision in evidence.imports {
            decision.notebook.clone_from(&name);
            decision.in_module = in_module;
            imports.push(decision);
        }
        for mut d in evidence.distributions {
            for r in &mut d.records {
                r.notebook.clone_from(&name);
                r.in_module = in_module;
            }
            // A module's needs name it as the part does.
            if let Some(name) = name.as_ref().filter(|_| in_module) {
                for n in &mut d.needs {
                    if let Need::ImportedByModule { file, .. } = n {
                        file.clone_from(name);
                    }
                }
            }
            let own = (
                name.clone().unwrap_or_else(|| "the notebook".to_string()),
                d.allowed.clone(),
            );
            let notebooks = (!in_module).then(|| NotebooksAllow {
                allowed: d.allowed.clone(),
                not_indexed: d.allowed_not_indexed.clone(),
                set: d.allowed_set.clone(),
            });
            match by_dist.iter_mut().find(|(j, _, _)| j.dist == d.dist) {
                None => by_dist.push((d, vec![own], notebooks)),
                Some((j, seen, theirs)) => {
                    seen.push(own);
                    *theirs = match (theirs.take(), notebooks) {
                        (Some(a), Some(b)) => Some(a.and(&b)),
                        (a, b) => a.or(b),
                    };
                    let keep: BTreeSet<&Version> = d.allowed.iter().collect();
                    j.allowed.retain(|v| keep.contains(v));
                    let keep: BTreeSet<&Version> = d.allowed_not_indexed.iter().collect();
                    j.allowed_not_indexed.retain(|v| keep.contains(v));
                    j.allowed_set = j.allowed_set.intersection(&d.allowed_set);
                    j.in_bank |= d.in_bank;
                    j.needs.extend(d.needs);
                    j.requirements.extend(d.requirements);
                    j.records.extend(d.records);
                }
            }
        }
    }
    let mut distributions = Vec::new();
    for (mut d, seen, notebooks) in by_dist {
        if d.in_bank && d.allowed.is_empty() && seen.iter().all(|(_, v)| !v.is_empty()) {
            // A local module's static reading is weaker than the notebook's own evidence (a
            // name its cells use, what a run taught): where they part, the module's records
            // that leave none of the notebook's versions are dropped.
            match notebooks.filter(|n| !n.allowed.is_empty()) {
                Some(n) if seen.len() > 1 => {
                    for r in &mut d.records {
                        if r.in_module
                            && r.effect == Effect::Constrains
                            && r.allowed.intersection(&n.set).is_empty()
                        {
                            r.effect = Effect::Dropped(DropReason::Contradicts);
                        }
                    }
                    d.allowed = n.allowed;
                    d.allowed_not_indexed = n.not_indexed;
                    d.allowed_set = n.set;
                }
                _ => {
                    return Err(JointConflict {
                        dist: d.dist,
                        allowed: seen,
                    })
                }
            }
        }
        distributions.push(d);
    }
    Ok(Evidence {
        imports,
        distributions,
    })
}

/// The versions the notebooks themselves allow, their local modules aside.
struct NotebooksAllow {
    allowed: Vec<Version>,
    not_indexed: Vec<Version>,
    set: ReleaseSet,
}

impl NotebooksAllow {
    fn and(self, other: &NotebooksAllow) -> NotebooksAllow {
        let keep: BTreeSet<&Version> = other.allowed.iter().collect();
        let keep_not_indexed: BTreeSet<&Version> = other.not_indexed.iter().collect();
        NotebooksAllow {
            allowed: self
                .allowed
                .into_iter()
                .filter(|v| keep.contains(v))
                .collect(),
            not_indexed: self
                .not_indexed
                .into_iter()
                .filter(|v| keep_not_indexed.contains(v))
                .collect(),
            set: self.set.intersection(&other.set),
        }
    }
}

/// What the notebooks say about Python together: the versions all of them allow.
pub fn joint_python(notebooks: &[PythonEvidence]) -> Option<PythonEvidence> {
    let mut iter = notebooks.iter();
    let mut joint = iter.next()?.clone();
    for p in iter {
        joint.range = joint.range.intersect(&p.range);
        joint.conflict |= p.conflict;
        joint.hints.extend(p.hints.iter().cloned());
        if joint.kernel.is_none() {
            joint.kernel = p.kernel.clone();
        }
    }
    joint.conflict |= joint.range.is_empty();
    Some(joint)
}
