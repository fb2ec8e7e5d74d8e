//! The versions of each needed distribution that the notebook's evidence allows.
//!
//! Hard evidence: every used path the bank knows for the distribution keeps only the releases
//! that have it, may have it (unknown), or were not indexed; the result need not be
//! contiguous (an API removed, then restored). Paths no indexed release has or may have
//! constrain nothing: the bank does not know them (or has not indexed where they are). `pip install` lines keep the releases their specifiers accept.
//! Soft evidence then applies one by one when it leaves some release; else it is dropped, and
//! the record says so. First the notebook's own, in notebook order: members on values the
//! distribution returned, keyword arguments, optional install lines, and versions its stored
//! outputs show (a printed `__version__`, pip's "Successfully installed x-1.2"). Then what
//! the repository declares beside it (requirements files, `environment.yml`, `setup.py`,
//! `pyproject.toml`), nearest file first: only for distributions the notebook needs, so a
//! declared distribution it never imports is no requirement.
//!
//! When no interpreter has a full resolution with the soft evidence, [`DistVersions::relaxed`]
//! sets it aside, declarations first ([`Relaxation`]), and the records say so.
//!
//! A pure function of the notebook's usage, the import decisions and the bank view.

use std::str::FromStr;

use pep508_rs::pep440_rs::{Version, VersionSpecifiers};
use pep508_rs::{Requirement, VersionOrUrl};
use serde::Serialize;

use super::bank_view::BankView;
use super::candidates::ImportDecision;
use super::error::EvidenceError;
use super::history::spans;
use super::record::{
    DropReason, Effect, EvidenceRecord, EvidenceSource, NoConstraint, Rank, ShownVersion, Strength,
};
use super::used_paths::{is_under, PathUse, UsedPath};
use crate::bank::store::{Catalog, Presence, ReleaseSet};
use crate::names::{ApiPath, DistName, ModulePath};
use crate::notebook::{ImportVia, Installer, Location, Origin, OutputEvidence, Receiver, Usage};

/// Why a distribution is needed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Need {
    /// It provides an import name of the notebook.
    Import { import: ModulePath },
    /// The notebook installs it.
    Installed { at: Location },
    /// A run showed that code the notebook runs imports it (at `at`), though the notebook
    /// itself does not.
    ImportedInRun { import: ModulePath, at: Location },
    /// A library the notebook runs asked for it in a run (`requires pyzmq >= 2.1.11`).
    AskedInRun { requirement: String, at: Location },
    /// A release of the environment depends on it without declaring it (`by`: that release,
    /// or empty when the installer did not say), as an install showed.
    Undeclared { by: String },
    /// A local module the notebook imports (`imported_as`, read from `file`) imports it.
    ImportedByModule {
        import: ModulePath,
        file: String,
        imported_as: ModulePath,
    },
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
    /// Every piece of evidence, hard first, then soft in notebook order, then declarations.
    pub records: Vec<EvidenceRecord>,
    /// The releases the records' sets refer to, to apply them again when soft evidence is
    /// set aside.
    #[serde(skip)]
    catalog: Catalog,
}

/// Which evidence to set aside when no interpreter has a resolution with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Relaxation {
    /// What the repository's files declare: often stale, so the first to go.
    Declarations,
    /// Every soft record: only the notebook's hard evidence is left.
    AllSoft,
    /// Every record ranked at or below this one, but never an import or an install line.
    Through(Rank),
}

impl Relaxation {
    /// The weakest ranks, as far as it sets aside, in the order a resolution tries them.
    pub const LADDER: [Relaxation; 5] = [
        Relaxation::Declarations,
        Relaxation::AllSoft,
        Relaxation::Through(Rank::Guessed),
        Relaxation::Through(Rank::Single),
        Relaxation::Through(Rank::Repeated),
    ];

    fn sets_aside(self, record: &EvidenceRecord) -> bool {
        let through = match self {
            Relaxation::Declarations => return record.is_declared(),
            Relaxation::AllSoft => Rank::Soft,
            Relaxation::Through(rank) => rank.min(Rank::Repeated),
        };
        record.rank <= through
    }
}

impl DistVersions {
    /// Soft evidence that could not be satisfied: the warnings to show.
    pub fn dropped(&self) -> impl Iterator<Item = &EvidenceRecord> {
        self.records.iter().filter(|r| r.is_dropped())
    }

    /// The same evidence with the soft records `relaxation` names that constrain dropped
    /// ([`DropReason::NoResolution`]) and the versions applied again; `None` when it drops
    /// nothing.
    pub fn relaxed(&self, relaxation: Relaxation) -> Option<DistVersions> {
        let mut out = self.clone();
        let mut changed = false;
        for r in &mut out.records {
            if relaxation.sets_aside(r) && r.effect == Effect::Constrains {
                r.effect = Effect::Dropped(DropReason::NoResolution);
                changed = true;
            }
        }
        if !changed {
            return None;
        }
        let allowed = apply(&out.catalog, &mut out.records);
        out.set_allowed(allowed);
        Some(out)
    }

    /// Takes back what a relaxation set aside and `pinned` satisfies anyway: setting all soft
    /// evidence aside because one output shows a release with no wheel here must not report
    /// every keyword as dropped. What the pin satisfies is honoured (it constrains again);
    /// only what the pin violates stays dropped. Returns whether anything was taken back.
    pub fn honour_satisfied(&mut self, pinned: &Version) -> bool {
        let Some(slot) = self.catalog.find(pinned).map(|r| r.slot) else {
            return false;
        };
        let mut changed = false;
        for r in &mut self.records {
            if r.effect == Effect::Dropped(DropReason::NoResolution) && r.allowed.contains(slot) {
                r.effect = Effect::Constrains;
                changed = true;
            }
        }
        if changed {
            let allowed = apply(&self.catalog, &mut self.records);
            self.set_allowed(allowed);
        }
        changed
    }

    fn set_allowed(&mut self, allowed: ReleaseSet) {
        self.allowed = self.catalog.versions(&allowed);
        self.allowed_not_indexed = self
            .catalog
            .versions(&allowed.intersection(&self.catalog.not_indexed()));
        self.allowed_set = allowed;
    }
}

/// The releases `records` allow together: strongest first ([`Rank`]; within a rank, in
/// order), each while it leaves some release, else it is marked dropped; install lines
/// always apply. Records already dropped for want of a resolution stay dropped.
fn apply(catalog: &Catalog, records: &mut [EvidenceRecord]) -> ReleaseSet {
    let mut allowed = catalog.registered();
    let mut order: Vec<usize> = (0..records.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(records[i].rank));
    for i in order {
        let r = &mut records[i];
        if !matches!(
            r.effect,
            Effect::Constrains | Effect::Dropped(DropReason::Contradicts)
        ) {
            continue;
        }
        let kept = allowed.intersection(&r.allowed);
        if kept.is_empty() && r.rank < Rank::Install {
            r.effect = Effect::Dropped(DropReason::Contradicts);
        } else {
            r.effect = Effect::Constrains;
            allowed = kept;
        }
    }
    allowed
}

/// Where a used path stands: an import above every use, a use repeated above one made once,
/// a guessed attribution below both.
fn path_rank(u: &UsedPath) -> Rank {
    if u.used == PathUse::Import || u.imported {
        Rank::Import
    } else if u.guessed {
        Rank::Guessed
    } else if u.count > 1 {
        Rank::Repeated
    } else {
        Rank::Single
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
        let mut imports = usage
            .imports
            .iter()
            .filter(|i| i.origin == Origin::ThirdParty && i.level == 0)
            .filter(|i| i.module.top_level() == decision.import.top_level());
        let in_run = imports.clone().find(|i| i.via == ImportVia::Run);
        n.needs.push(match (in_run, &usage.imported_as) {
            (Some(i), _) if imports.all(|i| i.via == ImportVia::Run) => Need::ImportedInRun {
                import: decision.import.clone(),
                at: i.at,
            },
            (_, Some(module)) => Need::ImportedByModule {
                import: decision.import.clone(),
                file: usage.notebook.path.display().to_string(),
                imported_as: module.clone(),
            },
            _ => Need::Import {
                import: decision.import.clone(),
            },
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
    let all: Vec<DistName> = needed.iter().map(|(d, _)| d.clone()).collect();
    let mut out = Vec::with_capacity(needed.len());
    for (dist, mut n) in needed {
        for r in usage.requirements.iter().filter(|r| r.name == dist) {
            n.needs.push(match r.installer {
                Installer::Library => Need::AskedInRun {
                    requirement: r.command.clone(),
                    at: r.at,
                },
                Installer::Undeclared => Need::Undeclared {
                    by: r.command.clone(),
                },
                _ => Need::Installed { at: r.at },
            });
        }
        let others: Vec<&DistName> = all.iter().filter(|d| **d != dist).collect();
        out.push(one(usage, &dist, n, &others, bank)?);
    }
    Ok(out)
}

/// Applies the evidence on one distribution.
fn one<B: BankView + ?Sized>(
    usage: &Usage,
    dist: &DistName,
    needed: Needed,
    others: &[&DistName],
    bank: &B,
) -> Result<DistVersions, EvidenceError> {
    let catalog = bank.catalog(dist)?;
    let in_bank = catalog.is_some();
    let catalog = catalog.unwrap_or_default();
    let registered = catalog.registered();
    let mut records = Vec::new();
    let mut requirements = Vec::new();

    // Hard: used paths.
    let paths: Vec<ApiPath> = needed.paths.iter().map(|u| u.path.clone()).collect();
    let presence = bank.api_presence(dist, &paths)?;
    for (u, mut p) in needed.paths.iter().zip(presence) {
        for l in usage
            .lacked
            .iter()
            .filter(|l| &l.dist == dist && l.api == u.path)
        {
            p.seen_lacking(&lacking_from(&p, &catalog, &l.version));
        }
        let source = match u.used {
            PathUse::Import => EvidenceSource::Import {
                module: u.path.clone(),
            },
            PathUse::Api => EvidenceSource::Api {
                api: u.path.clone(),
            },
        };
        records.push(bank_record(
            source,
            path_rank(u),
            &u.locations,
            &p,
            &catalog,
            in_bank,
        ));
    }

    // Hard: install lines (soft when optional).
    let mut soft = Vec::new();
    for r in usage.requirements.iter().filter(|r| &r.name == dist) {
        let (allowed, effect) = requirement_effect(&r.requirement, &catalog, &registered);
        let rank = if r.optional {
            Rank::Soft
        } else {
            Rank::Install
        };
        let record = EvidenceRecord {
            source: EvidenceSource::Install {
                requirement: r.requirement.clone(),
                installer: r.installer,
                command: r.command.clone(),
            },
            strength: rank.strength(),
            rank,
            locations: vec![r.at],
            effect,
            allowed,
            history: Vec::new(),
            notebook: None,
            in_module: false,
        };
        if r.optional {
            soft.push(record);
            continue;
        }
        requirements.push(r.requirement.clone());
        records.push(record);
    }

    // Soft, in notebook order.
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
        let mut p = bank.member_presence(dist, &m.member)?;
        // A name some class had as a member in some release is that member, not a column an
        // open class might answer (`df.ix` after pandas 1.0): where no class lists it, it is
        // counted as lacking, as soft evidence that gives way to anything stronger. A name no
        // class ever had stays unknown where a class is open.
        if !p.present.is_empty() {
            let open = p.unknown.clone();
            p.rule_out(&open);
        }
        // But where the value's own API is a type static reading cannot see into (numpy's
        // compiled `nditer` before 1.20's stubs), the member stays unknown there: it is no
        // column, and no absence either.
        if let Ok(own) = api.member(&m.member) {
            if let Some(direct) = bank.api_presence(dist, std::slice::from_ref(&own))?.pop() {
                p.keep_unknown(&direct.unknown);
            }
        }
        let source = EvidenceSource::Member {
            member: m.member.clone(),
            derived_from: api.clone(),
            example: m.example.clone(),
        };
        let mut record = bank_record(source, Rank::Soft, &m.locations, &p, &catalog, in_bank);
        // The bank does not know what the call returned: a member some class of another
        // distribution the notebook uses has too (`scores.mean()` on the numpy array
        // scikit-learn returned) says nothing of this one, nor is it worth reading this
        // distribution's releases for where the bank cannot tell (`.index` on what patsy
        // returned is a DataFrame's).
        if record.effect != Effect::NoConstraint(NoConstraint::NotInBank) {
            for other in others {
                if !bank.member_presence(other, &m.member)?.present.is_empty() {
                    record.effect = Effect::NoConstraint(NoConstraint::AlsoElsewhere);
                    break;
                }
            }
        }
        soft.push(record);
    }
    for u in needed.paths.iter().filter(|u| u.used == PathUse::Api) {
        for keyword in &u.keywords {
            let mut p = bank.keyword_presence(dist, &u.path, keyword)?;
            for r in usage
                .refusals
                .iter()
                .filter(|r| &r.dist == dist && r.api == u.path && &r.keyword == keyword)
            {
                p.rule_out(&bank.signature_alike(dist, &u.path, &r.version)?);
            }
            let source = EvidenceSource::Keyword {
                api: u.path.clone(),
                keyword: keyword.clone(),
            };
            soft.push(bank_record(
                source,
                Rank::Soft,
                &u.locations,
                &p,
                &catalog,
                in_bank,
            ));
        }
    }
    soft.extend(shown_versions(
        usage,
        dist,
        &needed.provides,
        &catalog,
        in_bank,
    ));
    soft.sort_by_key(notebook_order);
    records.extend(soft);

    // Soft, last: the repository's declarations, nearest file first.
    for d in usage
        .declarations
        .requirements
        .iter()
        .filter(|d| &d.name == dist)
    {
        let (allowed, effect) = if !d.requirement.marker.is_true() {
            (
                registered.clone(),
                Effect::NoConstraint(NoConstraint::UnderMarker),
            )
        } else {
            requirement_effect(&d.requirement, &catalog, &registered)
        };
        records.push(EvidenceRecord {
            source: EvidenceSource::Declared {
                requirement: d.requirement.clone(),
                text: d.text.clone(),
                declared_in: d.kind,
                at: d.at.clone(),
            },
            strength: Strength::Soft,
            rank: Rank::Declared,
            locations: Vec::new(),
            effect: if in_bank {
                effect
            } else {
                Effect::NoConstraint(NoConstraint::NotInBank)
            },
            allowed,
            history: Vec::new(),
            notebook: None,
            in_module: false,
        });
    }

    let allowed = apply(&catalog, &mut records);
    let mut out = DistVersions {
        dist: dist.clone(),
        needs: needed.needs,
        in_bank,
        allowed_set: ReleaseSet::new(),
        allowed: Vec::new(),
        allowed_not_indexed: Vec::new(),
        requirements,
        records,
        catalog,
    };
    out.set_allowed(allowed);
    Ok(out)
}

/// The releases a requirement's specifiers accept, and whether that rules anything out.
fn requirement_effect(
    requirement: &Requirement,
    catalog: &Catalog,
    registered: &ReleaseSet,
) -> (ReleaseSet, Effect) {
    match &requirement.version_or_url {
        Some(VersionOrUrl::VersionSpecifier(spec)) => {
            let set = catalog.matching(spec);
            let effect = if &set == registered {
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
    }
}

/// Versions the stored outputs show for `dist`: a printed `__version__` of a module it
/// provides (the module exactly: `tensorflow.keras.__version__` is Keras's, not
/// TensorFlow's), or pip reporting it installed. Each asks for exactly that release.
fn shown_versions(
    usage: &Usage,
    dist: &DistName,
    provides: &[ModulePath],
    catalog: &Catalog,
    in_bank: bool,
) -> Vec<EvidenceRecord> {
    let mut out: Vec<EvidenceRecord> = Vec::new();
    for o in &usage.outputs {
        let (shown, version, cell) = match o {
            OutputEvidence::Version {
                module,
                version,
                cell,
            } if provides.contains(module) => (
                ShownVersion::Printed {
                    module: module.clone(),
                },
                version,
                *cell,
            ),
            OutputEvidence::Installed {
                name,
                version,
                cell,
            } if name == dist => (ShownVersion::Pip, version, *cell),
            _ => continue,
        };
        // A version PEP 440 cannot read (a conda build string, `unknown`) asks for nothing.
        let Ok(spec) = VersionSpecifiers::from_str(&format!("=={version}")) else {
            continue;
        };
        let allowed = catalog.matching(&spec);
        let effect = if !in_bank {
            Effect::NoConstraint(NoConstraint::NotInBank)
        } else if allowed == catalog.registered() {
            Effect::NoConstraint(NoConstraint::Everywhere)
        } else {
            Effect::Constrains
        };
        let source = EvidenceSource::Output {
            shown,
            version: version.clone(),
            cell,
        };
        if out.iter().any(|r| r.source == source) {
            continue;
        }
        out.push(EvidenceRecord {
            source,
            strength: Strength::Soft,
            rank: Rank::Soft,
            locations: Vec::new(),
            effect,
            allowed,
            history: Vec::new(),
            notebook: None,
            in_module: false,
        });
    }
    out
}

/// Where soft evidence sits in the notebook: its first location, or for an output the end
/// of its cell (an output follows the code that printed it).
fn notebook_order(record: &EvidenceRecord) -> (u32, u32) {
    match (&record.source, record.at()) {
        (EvidenceSource::Output { cell, .. }, _) => (*cell, u32::MAX),
        (_, Some(at)) => (at.cell, at.line),
        (_, None) => (0, 0),
    }
}

/// A record of what the bank said, and whether it constrains.
fn bank_record(
    source: EvidenceSource,
    rank: Rank,
    locations: &[Location],
    presence: &Presence,
    catalog: &Catalog,
    in_bank: bool,
) -> EvidenceRecord {
    let allowed = presence
        .possible()
        .difference(&unsettled_after_last_seen(presence, catalog));
    let effect = if !in_bank {
        Effect::NoConstraint(NoConstraint::NotInBank)
    } else if !presence.known() && !presence.not_indexed.is_empty() {
        Effect::NoConstraint(NoConstraint::NotFoundWhereIndexed)
    } else if !presence.known() {
        Effect::NoConstraint(NoConstraint::UnknownToBank)
    } else if presence.present.is_empty() {
        Effect::NoConstraint(NoConstraint::NeverSeen)
    } else if allowed == catalog.registered() {
        Effect::NoConstraint(NoConstraint::Everywhere)
    } else {
        Effect::Constrains
    };
    EvidenceRecord {
        source,
        strength: rank.strength(),
        rank,
        locations: locations.to_vec(),
        effect,
        allowed,
        history: spans(catalog, presence),
        notebook: None,
        in_module: false,
    }
}

/// What a run showing release `version` without an API rules out: that release, and the
/// releases after it the bank could not settle, unknown or not indexed (an API seldom comes
/// back once gone).
fn lacking_from(presence: &Presence, catalog: &Catalog, version: &Version) -> ReleaseSet {
    catalog
        .releases
        .iter()
        .filter(|r| {
            &r.version == version
                || (&r.version > version
                    && (presence.unknown.contains(r.slot) || presence.not_indexed.contains(r.slot)))
        })
        .map(|r| r.slot)
        .collect()
}

/// The releases the bank could not settle (unknown to static reading, or not indexed) that
/// lie between a release seen with the path and the next one seen without it: where it went
/// is somewhere in that stretch, and the last release seen with it is the one to prefer, not
/// a free choice among them (pandas 1.0 to 1.1.3, open to static reading, had no
/// `DataFrame.ix`, which left in 1.0.0; 0.25.3 was seen with it and 1.1.4 without).
fn unsettled_after_last_seen(presence: &Presence, catalog: &Catalog) -> ReleaseSet {
    let mut out = ReleaseSet::new();
    let mut gap: Vec<crate::bank::store::Slot> = Vec::new();
    let mut after_present = false;
    for r in &catalog.releases {
        if presence.present.contains(r.slot) {
            after_present = true;
            gap.clear();
        } else if presence.unknown.contains(r.slot) || presence.not_indexed.contains(r.slot) {
            if after_present {
                gap.push(r.slot);
            }
        } else if presence.absent.contains(r.slot) {
            for slot in gap.drain(..) {
                out.insert(slot);
            }
            after_present = false;
        }
    }
    out
}
