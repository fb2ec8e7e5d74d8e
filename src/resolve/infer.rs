//! `infer`: the notebook's evidence, turned into root requirements, resolved on the best
//! interpreter. The steps are pure over their inputs (a bank view, a catalog, the
//! interpreters found), so tests run them on in-memory banks and catalogs.

use std::collections::BTreeSet;

use serde::Serialize;

use super::era::Era;
use super::evidence::{
    Change, DistVersions, Effect, Evidence, EvidenceError, EvidenceRecord, EvidenceSource, Need,
    Relaxation, ShownVersion, Span,
};
use super::interpreter::{choose, InterpreterPlan, PythonCandidate, PythonChoice, Reach};
use super::solver::{
    solve, Allowed, Catalog, CatalogError, LockedKind, RootRequirement, Solution, SolveError,
    SolveOptions, Steer, Target,
};
use crate::names::DistName;
use crate::notebook::Installer;
use crate::python::PythonVersion;
use pep508_rs::pep440_rs::Version;

/// What `infer` concluded.
#[derive(Debug, Clone, Serialize)]
pub struct Inference {
    pub evidence: Evidence,
    /// The interpreter resolved for, and whether it is installed here.
    pub python: PythonCandidate,
    pub python_choice: PythonChoice,
    /// Better interpreters that had no resolution, each with why.
    pub passed_over: Vec<PassedOver>,
    pub plan: InterpreterPlan,
    pub solution: Solution,
    /// Set when no interpreter had a resolution from wheels alone and this one allows
    /// sdists: why each interpreter had none from wheels, and the pins built from source.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sdist_fallback: Option<SdistFallback>,
    /// The pins with no wheel for the interpreter whose sdists are pure Python: built on
    /// install, with nothing to compile.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pure_sdists: Vec<(DistName, Version)>,
    /// The pins a restoration's search builds from compiled sdists: no release of theirs
    /// with a wheel for the interpreter was left to try.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub search_builds: Vec<(DistName, Version)>,
    /// The notebook's era, whose releases were preferred.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub era: Option<Era>,
    /// Set when a restoration's search steered the resolution and its bounds had to give way
    /// (no resolution kept within them): only what runs refuted was kept out.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub search_bounds_set_aside: bool,
}

/// A resolution that builds some releases from their sdists, because none from wheels alone
/// exists.
#[derive(Debug, Clone, Serialize)]
pub struct SdistFallback {
    /// Why each interpreter tried had no resolution from wheels.
    pub wheels_only: Vec<PassedOver>,
    /// The pins with no wheel for the interpreter and no pure-Python sdist: built from their
    /// sdists on install (the pure ones are in [`Inference::pure_sdists`]).
    pub built: Vec<(DistName, Version)>,
    /// Sdists counted for every distribution, not only those with no wheel at all (the last
    /// resort).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub anywhere: bool,
}

impl Inference {
    /// The top-level modules the notebook imports that no distribution provides, as far as
    /// the bank, the provider lists and the index know.
    pub fn unprovided_modules(&self) -> Vec<String> {
        self.evidence
            .imports
            .iter()
            .filter(|d| {
                matches!(
                    d.outcome,
                    crate::resolve::evidence::ImportOutcome::Unresolved(
                        crate::resolve::evidence::Unresolved::NoProvider
                    )
                )
            })
            .map(|d| d.import.top_level().to_string())
            .collect()
    }

    /// The options the resolution was made under: with sdists allowed after a fallback.
    pub fn options_used(&self, asked: &SolveOptions) -> SolveOptions {
        SolveOptions {
            sdist_where_no_wheel: asked.sdist_where_no_wheel || self.sdist_fallback.is_some(),
            sdist_anywhere: asked.sdist_anywhere
                || self.sdist_fallback.as_ref().is_some_and(|f| f.anywhere),
            ..asked.clone()
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct PassedOver {
    pub python: PythonVersion,
    pub why: String,
    /// Distributions whose releases the reason leaves out for want of a wheel, with an sdist
    /// the rules refused: `--allow-sdist` would admit them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sdists_refused: Vec<DistName>,
}

#[derive(Debug, thiserror::Error)]
pub enum InferError {
    #[error(transparent)]
    Evidence(#[from] EvidenceError),
    /// No interpreter the evidence allows has a resolution.
    #[error("no environment satisfies the notebook's evidence{}", why_each(tried))]
    NoSolution { tried: Vec<PassedOver> },
    /// No interpreter to resolve for: none nbenv knows (or, to run the notebook here, none
    /// installed) fits what the notebook's code needs.
    #[error("{}", no_interpreter(*allowed, *reach))]
    NoInterpreter {
        allowed: crate::python::PythonRange,
        reach: Reach,
    },
    /// The index could not say what the resolution needs.
    #[error(transparent)]
    Catalog(#[from] CatalogError),
    #[error("interrupted")]
    Interrupted,
    /// Notebooks resolved together leave a distribution no version in common.
    #[error(transparent)]
    Joint(#[from] super::joint::JointConflict),
}

/// `: on Python 3.6, ...` when one interpreter was tried (its reason fits the message),
/// else nothing: the caller lists each.
fn why_each(tried: &[PassedOver]) -> String {
    match tried {
        [one] => {
            let why = one.why.trim_end().replace('\n', " ");
            let said = match super::passed_over::sdist_hint(tried) {
                // The hint goes inside the reason's sentence, before its full stop.
                Some(hint) => match why.strip_suffix('.') {
                    Some(body) => format!("{body} ({hint})."),
                    None => format!("{why} ({hint})"),
                },
                None => why,
            };
            format!(" on Python {}: {said}", one.python)
        }
        _ => String::new(),
    }
}

fn no_interpreter(allowed: crate::python::PythonRange, reach: Reach) -> String {
    match reach {
        Reach::Known => {
            format!("no Python nbenv knows fits what the notebook's code needs (Python {allowed})")
        }
        Reach::Installed => format!(
            "no Python installed here fits what the notebook's code needs (Python {allowed}): \
             install one (pyenv install) to run it"
        ),
    }
}

/// The distributions the notebook needs, each with the versions its evidence allows and the
/// evidence in words (which conflicts quote).
pub fn root_requirements(evidence: &Evidence) -> Vec<RootRequirement> {
    evidence
        .distributions
        .iter()
        .map(|d| RootRequirement {
            dist: d.dist.clone(),
            extras: Vec::new(),
            allowed: allowed(d),
            evidence: labels(d),
        })
        .collect()
}

/// The bank's allowed releases when it has the distribution; else what the notebook's
/// install lines say (or anything).
fn allowed(d: &DistVersions) -> Allowed {
    if d.in_bank {
        return Allowed::Versions(d.allowed.iter().cloned().collect::<BTreeSet<_>>());
    }
    let specifiers = d.requirements.iter().find_map(|r| match &r.version_or_url {
        Some(pep508_rs::VersionOrUrl::VersionSpecifier(s)) => Some(s.clone()),
        _ => None,
    });
    specifiers.map_or_else(Allowed::any, Allowed::Specifiers)
}

/// Why the distribution is needed, in the notebook's terms: the constraining evidence first,
/// else the import that asked for it.
fn labels(d: &DistVersions) -> Vec<String> {
    let mut out: Vec<String> = d
        .records
        .iter()
        .filter(|r| r.effect == Effect::Constrains)
        .map(describe)
        .collect();
    if out.is_empty() {
        out.extend(d.needs.iter().map(|n| match n {
            Need::Import { import } => format!("the notebook imports {import}"),
            Need::Installed { at } => format!("cell {} installs it", at.cell),
            Need::AskedInRun { requirement, at } => format!(
                "cell {} ran code that asked for {requirement} (seen in a run)",
                at.cell
            ),
            Need::Undeclared { by } if by.is_empty() => {
                "a dependency the installer chose failed in a run: resolved by nbenv".to_string()
            }
            Need::Undeclared { by } => {
                format!("{by} needs it without declaring it (seen installing)")
            }
            Need::ImportedInRun { import, at } => {
                format!(
                    "cell {} ran code that imports {import} (seen in a run)",
                    at.cell
                )
            }
            Need::ImportedByModule {
                import,
                file,
                imported_as,
            } => format!("{file} imports {import} (the notebook imports {imported_as})"),
        }));
    }
    out
}

/// One piece of evidence as a phrase: "cell 3 uses sklearn.cross_validation (removed in
/// 0.20.0)".
pub fn describe(record: &EvidenceRecord) -> String {
    let place = match (&record.notebook, record.at()) {
        (Some(file), Some(at)) if record.in_module => format!("{file} line {}", at.line),
        (Some(nb), Some(at)) => format!("{nb} cell {}", at.cell),
        (Some(nb), None) => nb.clone(),
        (None, Some(at)) => format!("cell {}", at.cell),
        (None, None) => "the notebook".to_string(),
    };
    let what = match &record.source {
        EvidenceSource::Import { module } => format!("{place} imports {module}"),
        EvidenceSource::Api { api } => format!("{place} uses {api}"),
        EvidenceSource::Member { example, .. } => format!("{place} uses {example}"),
        EvidenceSource::Keyword { api, keyword } => format!("{place} passes {keyword}= to {api}"),
        EvidenceSource::Install {
            command,
            installer: Installer::Library,
            ..
        } => format!("{place} ran code that asked for {command} (seen in a run)"),
        EvidenceSource::Install { command, .. } => format!("{place} runs `{command}`"),
        EvidenceSource::Output {
            shown,
            version,
            cell,
        } => {
            let place = match &record.notebook {
                Some(nb) => format!("{nb} cell {cell}"),
                None => format!("cell {cell}"),
            };
            match shown {
                ShownVersion::Printed { module } => {
                    format!("{place} printed {module}.__version__ {version}")
                }
                ShownVersion::Pip => format!("{place}'s pip output shows {version} installed"),
            }
        }
        EvidenceSource::Declared { text, at, .. } => format!("{at} declares {text}"),
    };
    let turns: Vec<String> = record
        .changes()
        .iter()
        .map(|c| {
            let (verb, version, after) = match c {
                Change::Added { version, after } => ("added", version, after),
                Change::Removed { version, after } => ("removed", version, after),
            };
            if neighbours(&record.history, after, version) {
                format!("{verb} in {version}")
            } else {
                // Releases between were not read (or cannot be told apart): say what is known.
                format!("{verb} after {after}, by {version}")
            }
        })
        .collect();
    if turns.is_empty() {
        what
    } else {
        format!("{what} ({})", turns.join(", "))
    }
}

/// Whether `older` ends the span right before the one `newer` starts: no release between them
/// is unread or unknown.
fn neighbours(history: &[Span], older: &Version, newer: &Version) -> bool {
    history
        .windows(2)
        .any(|w| &w[0].last == older && &w[1].first == newer)
}

/// [`resolve_evidence`], steered by a restoration's search when it asks anything: when the
/// bounds its runs set leave no resolution, they give way, and only the releases runs refuted
/// stay out.
pub fn resolve(
    evidence: Evidence,
    plan: InterpreterPlan,
    requested: bool,
    catalog: &dyn Catalog,
    options: &SolveOptions,
) -> Result<Inference, InferError> {
    steered(evidence, plan, requested, catalog, options).map(|i| i.with_search_builds(options))
}

fn steered(
    evidence: Evidence,
    plan: InterpreterPlan,
    requested: bool,
    catalog: &dyn Catalog,
    options: &SolveOptions,
) -> Result<Inference, InferError> {
    let bounded = options
        .steer
        .iter()
        .any(|s| s.above.is_some() || s.below.is_some());
    if !bounded {
        return resolve_evidence(evidence, plan, requested, catalog, options);
    }
    match resolve_evidence(evidence.clone(), plan.clone(), requested, catalog, options) {
        Err(InferError::NoSolution { tried }) => {
            let refuted_only = SolveOptions {
                steer: options
                    .steer
                    .iter()
                    .map(|s| Steer {
                        above: None,
                        below: None,
                        ..s.clone()
                    })
                    .collect(),
                ..options.clone()
            };
            match resolve_evidence(evidence, plan, requested, catalog, &refuted_only) {
                Ok(mut inference) => {
                    inference.search_bounds_set_aside = true;
                    Ok(inference)
                }
                Err(InferError::NoSolution { .. }) => Err(InferError::NoSolution { tried }),
                Err(e) => Err(e),
            }
        }
        other => other,
    }
}

/// Resolves the evidence on each interpreter of `plan` in turn and keeps the first solution.
/// When no interpreter has one, evidence is set aside and the plan tried again, weakest
/// first: the repository's declarations, then the notebook's soft evidence; then, unless
/// told not to, the same again building sdists where no wheel exists (the notebook's whole
/// hard evidence is worth a build); only then its hard evidence, rank by rank
/// ([`Relaxation::LADDER`]: guessed attributions, APIs used once, every API use), never its
/// imports and install lines. The records set aside say so.
fn resolve_evidence(
    evidence: Evidence,
    plan: InterpreterPlan,
    requested: bool,
    catalog: &dyn Catalog,
    options: &SolveOptions,
) -> Result<Inference, InferError> {
    if plan.candidates.is_empty() {
        return Err(InferError::NoInterpreter {
            allowed: plan.allowed,
            reach: plan.reach,
        });
    }
    let fallback = options.sdist_fallback && !options.allow_sdist && !options.sdist_where_no_wheel;
    let with_sdist = SolveOptions {
        sdist_where_no_wheel: true,
        ..options.clone()
    };
    let (soft, hard) = Relaxation::LADDER.split_at(3);
    // Where the notebook ran (or its repository says it runs) outranks its soft and guessed
    // evidence: a keyword the bank misreads, or a member of an object traced to a class
    // whose members the bank cannot see (`Variable(x).data` in torch 0.4), must not move a
    // Python 3.5 notebook to 3.8. Each preferred interpreter is then tried with those set
    // aside before the next one; the evidence of the notebook's own calls still chooses
    // among all of them.
    let groups: Vec<InterpreterPlan> = if plan.has_preference() {
        (0..plan.candidates.len()).map(|i| plan.only(i)).collect()
    } else {
        vec![plan.clone()]
    };
    let mut wheels_only: Vec<PassedOver> = Vec::new();
    let mut passed_with_sdist: Vec<PassedOver> = Vec::new();
    for (whole, steps, groups) in [
        (true, soft, &groups[..]),
        (false, hard, &[plan.clone()][..]),
    ] {
        let attempt = |plan| Attempt {
            evidence: &evidence,
            plan,
            requested,
            catalog,
        };
        let mut passed: Vec<PassedOver> = Vec::new();
        for group in groups {
            match attempt(group).relaxing(whole, steps, options) {
                Ok(inference) => return Ok(inference.after(&passed)),
                Err(InferError::NoSolution { tried }) => passed.extend(tried),
                Err(e) => return Err(e),
            }
        }
        // A phase that tried nothing new keeps the reasons of the one before.
        if !passed.is_empty() {
            wheels_only = passed;
        }
        if !fallback {
            continue;
        }
        for group in groups {
            match attempt(group).relaxing(whole, steps, &with_sdist) {
                Ok(inference) => {
                    return Ok(inference
                        .after(&passed_with_sdist)
                        .built_for_want_of_wheels(&wheels_only, false));
                }
                Err(InferError::Interrupted) => return Err(InferError::Interrupted),
                Err(InferError::NoSolution { tried }) => passed_with_sdist.extend(tried),
                // A resolution that cannot be read (offline, an sdist's metadata not cached):
                // the reasons from wheels alone are the answer.
                Err(_) => {}
            }
        }
        passed_with_sdist.clear();
    }
    // The last resort before no resolution: sdists of every distribution, built by the
    // installer, wheels still preferred release by release.
    if fallback {
        let anywhere = SolveOptions {
            sdist_anywhere: true,
            ..with_sdist.clone()
        };
        let attempt = Attempt {
            evidence: &evidence,
            plan: &plan,
            requested,
            catalog,
        };
        if let Ok(inference) = attempt.relaxing(true, hard, &anywhere) {
            return Ok(inference.built_for_want_of_wheels(&wheels_only, true));
        }
    }
    Err(InferError::NoSolution { tried: wheels_only })
}

impl Inference {
    /// The inference, marked as one that builds sdists for want of a resolution from wheels
    /// alone (`wheels_only`: why each interpreter had none), naming the pins built.
    fn built_for_want_of_wheels(mut self, wheels_only: &[PassedOver], anywhere: bool) -> Self {
        let built = self
            .solution
            .pins
            .iter()
            .filter(|p| !p.files.iter().any(|f| f.kind == LockedKind::Wheel))
            .filter(|p| !p.builds_pure_sdist())
            .map(|p| (p.dist.clone(), p.version.clone()))
            .collect();
        self.sdist_fallback = Some(SdistFallback {
            wheels_only: wheels_only.to_vec(),
            built,
            anywhere,
        });
        self
    }

    /// The inference, naming the pins a restoration's search asked to build from a compiled
    /// sdist (see [`Steer::build`]).
    fn with_search_builds(mut self, options: &SolveOptions) -> Self {
        self.search_builds =
            self.solution
                .pins
                .iter()
                .filter(|p| {
                    options.steer.iter().any(|s| {
                        s.build && s.dist == p.dist && s.target.as_ref() == Some(&p.version)
                    })
                })
                .filter(|p| p.builds_from_sdist() && !p.builds_pure_sdist())
                .map(|p| (p.dist.clone(), p.version.clone()))
                .collect();
        self
    }

    /// The inference with `earlier` interpreters, tried and passed over before the plan that
    /// found it, named first among those passed over.
    fn after(mut self, earlier: &[PassedOver]) -> Self {
        if !earlier.is_empty() {
            let mut all = earlier.to_vec();
            all.append(&mut self.passed_over);
            self.passed_over = all;
        }
        self
    }
}

/// One evidence, plan and catalog, tried under some options with steps of relaxation.
struct Attempt<'a> {
    evidence: &'a Evidence,
    plan: &'a InterpreterPlan,
    requested: bool,
    catalog: &'a dyn Catalog,
}

impl Attempt<'_> {
    /// The evidence as it is (when `whole`), then with each of `steps` set aside in turn,
    /// each made only when the one before had no resolution; a step that sets aside nothing
    /// new is skipped. The last failure's reasons when none resolves.
    fn relaxing(
        &self,
        whole: bool,
        steps: &[Relaxation],
        options: &SolveOptions,
    ) -> Result<Inference, InferError> {
        let mut last = Vec::new();
        let mut tried: Vec<Evidence> = Vec::new();
        let mut candidates: Vec<Evidence> = Vec::new();
        if whole {
            candidates.push(self.evidence.clone());
        }
        for attempt in candidates
            .into_iter()
            .chain(steps.iter().filter_map(|r| self.evidence.relaxed(*r)))
        {
            if tried
                .iter()
                .any(|t| t.distributions == attempt.distributions)
            {
                continue;
            }
            match resolve_once(&attempt, self.plan, self.requested, self.catalog, options) {
                Ok(found) => return Ok(found.into_inference(attempt, self.plan)),
                Err(InferError::NoSolution { tried: why }) => last = why,
                Err(e) => return Err(e),
            }
            tried.push(attempt);
        }
        Err(InferError::NoSolution { tried: last })
    }
}

/// A resolution found on one interpreter, before it is joined to the evidence it came from.
struct Found {
    python: PythonCandidate,
    python_choice: PythonChoice,
    passed_over: Vec<PassedOver>,
    solution: Solution,
}

impl Found {
    fn into_inference(self, mut evidence: Evidence, plan: &InterpreterPlan) -> Inference {
        // A relaxation sets aside whole ranks; what the pins satisfy anyway was not dropped.
        for d in &mut evidence.distributions {
            if let Some(pin) = self.solution.pins.iter().find(|p| p.dist == d.dist) {
                d.honour_satisfied(&pin.version);
            }
        }
        let pure_sdists = self
            .solution
            .pins
            .iter()
            .filter(|p| p.builds_pure_sdist())
            .map(|p| (p.dist.clone(), p.version.clone()))
            .collect();
        Inference {
            pure_sdists,
            search_builds: Vec::new(),
            evidence,
            python: self.python,
            python_choice: self.python_choice,
            passed_over: self.passed_over,
            plan: plan.clone(),
            solution: self.solution,
            sdist_fallback: None,
            era: None,
            search_bounds_set_aside: false,
        }
    }
}

fn resolve_once(
    evidence: &Evidence,
    plan: &InterpreterPlan,
    requested: bool,
    catalog: &dyn Catalog,
    options: &SolveOptions,
) -> Result<Found, InferError> {
    let roots = root_requirements(evidence);
    let mut fatal: Option<InferError> = None;
    let chosen = choose(plan, requested, |candidate| {
        if fatal.is_some() {
            return Err(Default::default());
        }
        match solve(catalog, &Target::new(candidate.version), &roots, options) {
            Ok(solution) => Ok(solution),
            Err(SolveError::NoSolution {
                explanation,
                sdists_refused,
            }) => Err((explanation, sdists_refused)),
            Err(SolveError::Catalog(e)) => {
                fatal = Some(InferError::Catalog(e));
                Err(Default::default())
            }
            Err(SolveError::Interrupted) => {
                fatal = Some(InferError::Interrupted);
                Err(Default::default())
            }
        }
    });
    if let Some(e) = fatal {
        return Err(e);
    }
    let passed = |tried: Vec<(PythonVersion, (String, Vec<DistName>))>| -> Vec<PassedOver> {
        tried
            .into_iter()
            .map(|(python, (why, sdists_refused))| PassedOver {
                python,
                why,
                sdists_refused,
            })
            .collect()
    };
    match chosen {
        Ok(c) => Ok(Found {
            python: c.candidate,
            python_choice: c.how,
            passed_over: passed(c.passed_over),
            solution: c.result,
        }),
        Err(tried) => Err(InferError::NoSolution {
            tried: passed(tried),
        }),
    }
}

/// For `--ranges`: each root distribution's versions that its evidence allows and that
/// install on the chosen interpreter, as a specifier (`>=0.14,<=0.19.2,!=0.15.1`), whatever
/// the other roots chose.
pub fn compatible_ranges(
    inference: &Inference,
    catalog: &dyn Catalog,
    options: &SolveOptions,
) -> Result<Vec<(DistName, String)>, CatalogError> {
    let target = Target::new(inference.python.version);
    let mut out = Vec::new();
    for root in root_requirements(&inference.evidence) {
        if inference.solution.get(&root.dist).is_none() {
            continue;
        }
        let releases = catalog.releases(&root.dist)?;
        let fits: Vec<bool> = releases
            .iter()
            .zip(super::solver::exclusions(
                catalog, &root.dist, &releases, &target, options,
            ))
            .map(|(r, out)| root.allowed.contains(&r.version) && out.is_none())
            .collect();
        let (Some(lo), Some(hi)) = (fits.iter().position(|&f| f), fits.iter().rposition(|&f| f))
        else {
            continue;
        };
        let mut spec = format!(">={},<={}", releases[lo].version, releases[hi].version);
        if lo == hi {
            spec = format!("=={}", releases[lo].version);
        }
        for (r, fit) in releases[lo..=hi].iter().zip(&fits[lo..=hi]) {
            // Pre-releases are out of a range unless named: no need to exclude them.
            if !fit && !r.version.any_prerelease() {
                spec.push_str(&format!(",!={}", r.version));
            }
        }
        out.push((root.dist, spec));
    }
    Ok(out)
}

/// Rules out releases a verification saw fail (to install, or to run the notebook): they
/// leave the allowed versions of their distribution.
pub fn exclude(evidence: &mut Evidence, releases: &[(DistName, Version)]) {
    for d in &mut evidence.distributions {
        d.allowed
            .retain(|v| !releases.iter().any(|(dist, x)| dist == &d.dist && x == v));
    }
}

/// The distributions the evidence chose that the bank has not registered: what an `infer`
/// on a bank lacking them indexes before reading the evidence again.
pub fn missing_from_bank(evidence: &Evidence) -> Vec<DistName> {
    evidence
        .distributions
        .iter()
        .filter(|d| !d.in_bank)
        .map(|d| d.dist.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resolve::evidence::ReleaseState;

    fn span(state: ReleaseState, first: &str, last: &str) -> Span {
        Span {
            state,
            first: first.parse().unwrap(),
            last: last.parse().unwrap(),
        }
    }

    #[test]
    fn a_turn_is_exact_only_between_neighbouring_read_releases() {
        let v = |s: &str| s.parse::<Version>().unwrap();
        // Read on both sides of the turn: "removed in 2.0".
        let read = [
            span(ReleaseState::Present, "1.0", "1.15"),
            span(ReleaseState::Absent, "2.0", "2.21"),
        ];
        assert!(neighbours(&read, &v("1.15"), &v("2.0")));
        // Releases between not read (lazy indexing scoped by a `pip install` line): the turn
        // lies somewhere after 1.15 and by 2.21, and is told so.
        let gap = [
            span(ReleaseState::Present, "1.15", "1.15"),
            span(ReleaseState::NotIndexed, "1.15.1", "2.20"),
            span(ReleaseState::Absent, "2.21", "2.21"),
        ];
        assert!(!neighbours(&gap, &v("1.15"), &v("2.21")));
    }
}
