//! The versions of each needed distribution that the notebook's evidence allows.
//!
//! Hard evidence: every used path the bank knows for the distribution keeps only the releases
//! that have it, may have it (unknown), or were not indexed; the result need not be
//! contiguous (an API removed, then restored). Paths no indexed release has or may have
//! constrain nothing: the bank does not know them (or has not indexed where they are). `pip install` lines keep the releases their specifiers accept.
//! Soft evidence (members on values the distribution returned, keyword arguments) then
//! applies one by one, in notebook order, when it leaves some release; else it is dropped,
//! and the record says so.
//!
//! A pure function of the notebook's usage, the import decisions and the bank view.

use pep508_rs::pep440_rs::Version;
use pep508_rs::{Requirement, VersionOrUrl};
use serde::Serialize;

use super::bank_view::BankView;
use super::candidates::ImportDecision;
use super::error::EvidenceError;
use super::history::spans;
use super::record::{Effect, EvidenceRecord, EvidenceSource, NoConstraint, Strength};
use super::used_paths::{is_under, PathUse, UsedPath};
use crate::bank::store::{Catalog, Presence, ReleaseSet};
use crate::names::{ApiPath, DistName, ModulePath};
use crate::notebook::{Installer, Location, Receiver, Usage};

/// Why a distribution is needed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Need {
    /// It provides an import name of the notebook.
    Import { import: ModulePath },
    /// The notebook installs it.
    Installed { at: Location },
}

/// The evidence on one distribution, and the versions it allows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DistVersions {
    pub dist: DistName,
    pub needs: Vec<Need>,
    /// Whether the bank has registered any release of it.
    pub in_bank: bool,
    /// The allowed releases, as the distribution's slots.
    #[serde(skip)]
    pub allowed_set: ReleaseSet,
    /// The allowed releases' versions, oldest first.
    pub allowed: Vec<Version>,
    /// Allowed releases the bank has not indexed: what indexing them could still rule out.
    pub allowed_not_indexed: Vec<Version>,
    /// The notebook's install requirements on it, hard ones only, for versions the bank does
    /// not list.
    pub requirements: Vec<Requirement>,
    /// Every piece of evidence, hard first, then soft in notebook order.
    pub records: Vec<EvidenceRecord>,
}

impl DistVersions {
    /// Soft evidence that could not be satisfied: the warnings to show.
    pub fn dropped(&self) -> impl Iterator<Item = &EvidenceRecord> {
        self.records.iter().filter(|r| r.is_dropped())
    }
}

/// The paths and needs of one distribution, collected from the import decisions.
#[derive(Default)]
struct Needed {
    needs: Vec<Need>,
    provides: Vec<ModulePath>,
    paths: Vec<UsedPath>,
}

/// The version sets of every distribution a decision chose or an install line names, in
/// the notebook's order.
pub fn version_sets<B: BankView + ?Sized>(
    usage: &Usage,
    decisions: &[ImportDecision],
    bank: &B,
) -> Result<Vec<DistVersions>, EvidenceError> {
    let mut needed: Vec<(DistName, Needed)> = Vec::new();
    let mut entry = |dist: &DistName| -> usize {
        match needed.iter().position(|(d, _)| d == dist) {
            Some(i) => i,
            None => {
                needed.push((dist.clone(), Needed::default()));
                needed.len() - 1
            }
        }
    };
    let mut choices: Vec<(usize, &ImportDecision, Vec<ModulePath>)> = Vec::new();
    for decision in decisions {
        for chosen in decision.providers() {
            choices.push((entry(&chosen.dist), decision, chosen.provides.clone()));
        }
    }
    // Conda package names are not PyPI names (`pytorch`): a conda line alone needs nothing.
    for r in usage
        .requirements
        .iter()
        .filter(|r| r.installer != Installer::Conda)
    {
        entry(&r.name);
    }
    for (i, decision, provides) in choices {
        let n = &mut needed[i].1;
        n.needs.push(Need::Import {
            import: decision.import.clone(),
        });
        for p in provides {
            if !n.provides.contains(&p) {
                n.provides.push(p);
            }
        }
        for u in &decision.paths {
            if n.provides.iter().any(|p| u.is_under(p)) && !n.paths.iter().any(|x| x.path == u.path)
            {
                n.paths.push(u.clone());
            }
        }
    }
    let mut out = Vec::with_capacity(needed.len());
    for (dist, mut n) in needed {
        for r in usage.requirements.iter().filter(|r| r.name == dist) {
            n.needs.push(Need::Installed { at: r.at });
        }
        out.push(one(usage, &dist, n, bank)?);
    }
    Ok(out)
}

/// Applies the evidence on one distribution.
fn one<B: BankView + ?Sized>(
    usage: &Usage,
    dist: &DistName,
    needed: Needed,
    bank: &B,
) -> Result<DistVersions, EvidenceError> {
    let catalog = bank.catalog(dist)?;
    let in_bank = catalog.is_some();
    let catalog = catalog.unwrap_or_default();
    let registered = catalog.registered();
    let mut allowed = registered.clone();
    let mut records = Vec::new();
    let mut requirements = Vec::new();

    // Hard: used paths.
    let paths: Vec<ApiPath> = needed.paths.iter().map(|u| u.path.clone()).collect();
    let presence = bank.api_presence(dist, &paths)?;
    for (u, p) in needed.paths.iter().zip(presence) {
        let source = match u.used {
            PathUse::Import => EvidenceSource::Import {
                module: u.path.clone(),
            },
            PathUse::Api => EvidenceSource::Api {
                api: u.path.clone(),
            },
        };
        let record = bank_record(source, Strength::Hard, &u.locations, &p, &catalog, in_bank);
        if record.effect == Effect::Constrains {
            allowed = allowed.intersection(&record.allowed);
        }
        records.push(record);
    }

    // Hard: install lines (soft when optional).
    let mut soft_installs = Vec::new();
    for r in usage.requirements.iter().filter(|r| &r.name == dist) {
        let (set, effect) = match &r.requirement.version_or_url {
            Some(VersionOrUrl::VersionSpecifier(spec)) => {
                let set = catalog.matching(spec);
                let effect = if set == registered {
                    Effect::NoConstraint(NoConstraint::Everywhere)
                } else {
                    Effect::Constrains
                };
                (set, effect)
            }
            _ => (
                registered.clone(),
                Effect::NoConstraint(NoConstraint::NoVersion),
            ),
        };
        let record = EvidenceRecord {
            source: EvidenceSource::Install {
                requirement: r.requirement.clone(),
                installer: r.installer,
                command: r.command.clone(),
            },
            strength: if r.optional {
                Strength::Soft
            } else {
                Strength::Hard
            },
            locations: vec![r.at],
            effect,
            allowed: set,
            history: Vec::new(),
            notebook: None,
        };
        if r.optional {
            soft_installs.push(record);
            continue;
        }
        requirements.push(r.requirement.clone());
        if record.effect == Effect::Constrains {
            allowed = allowed.intersection(&record.allowed);
        }
        records.push(record);
    }

    // Soft, in notebook order.
    let mut soft = soft_installs;
    for m in &usage.members {
        let Receiver::DerivedFrom(api) = &m.receiver else {
            continue;
        };
        if !needed
            .provides
            .iter()
            .any(|p| is_under(api.as_str(), p.as_str()))
        {
            continue;
        }
        let p = bank.member_presence(dist, &m.member)?;
        let source = EvidenceSource::Member {
            member: m.member.clone(),
            derived_from: api.clone(),
            example: m.example.clone(),
        };
        soft.push(bank_record(
            source,
            Strength::Soft,
            &m.locations,
            &p,
            &catalog,
            in_bank,
        ));
    }
    for u in needed.paths.iter().filter(|u| u.used == PathUse::Api) {
        for keyword in &u.keywords {
            let p = bank.keyword_presence(dist, &u.path, keyword)?;
            let source = EvidenceSource::Keyword {
                api: u.path.clone(),
                keyword: keyword.clone(),
            };
            soft.push(bank_record(
                source,
                Strength::Soft,
                &u.locations,
                &p,
                &catalog,
                in_bank,
            ));
        }
    }
    soft.sort_by_key(|r| r.at());
    for mut record in soft {
        if record.effect == Effect::Constrains {
            let kept = allowed.intersection(&record.allowed);
            if kept.is_empty() {
                record.effect = Effect::Dropped;
            } else {
                allowed = kept;
            }
        }
        records.push(record);
    }

    Ok(DistVersions {
        dist: dist.clone(),
        needs: needed.needs,
        in_bank,
        allowed: catalog.versions(&allowed),
        allowed_not_indexed: catalog.versions(&allowed.intersection(&catalog.not_indexed())),
        allowed_set: allowed,
        requirements,
        records,
    })
}

/// A record of what the bank said, and whether it constrains.
fn bank_record(
    source: EvidenceSource,
    strength: Strength,
    locations: &[Location],
    presence: &Presence,
    catalog: &Catalog,
    in_bank: bool,
) -> EvidenceRecord {
    let allowed = presence.possible();
    let effect = if !in_bank {
        Effect::NoConstraint(NoConstraint::NotInBank)
    } else if !presence.known() && !presence.not_indexed.is_empty() {
        Effect::NoConstraint(NoConstraint::NotFoundWhereIndexed)
    } else if !presence.known() {
        Effect::NoConstraint(NoConstraint::UnknownToBank)
    } else if allowed == catalog.registered() {
        Effect::NoConstraint(NoConstraint::Everywhere)
    } else {
        Effect::Constrains
    };
    EvidenceRecord {
        source,
        strength,
        locations: locations.to_vec(),
        effect,
        allowed,
        history: spans(catalog, presence),
        notebook: None,
    }
}
