//! The repair loop. A round resolves with what earlier rounds learned, builds the environment
//! and runs the notebook; when the run (or the build) stops at something the environment may
//! cause, its lessons go into the next round. The loop stops when the notebook runs, when the
//! failure is the notebook's own, when a round teaches nothing new, at the round limit, or at
//! the caller's time limit.
//!
//! What each step does (the resolver, uv, the runner, the bank's run records, printing) is
//! the [`RoundSteps`] implementation's; this file decides only what comes next.

use pep508_rs::pep440_rs::Version;

use crate::bank::store::ReleaseFailure;
use crate::names::DistName;
use crate::python::PythonVersion;
use crate::verify::Lesson;

use super::search::{Move, Refutation, Search, SearchSpace, Suspect};

/// Why the rounds stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stop {
    /// The notebook ran to its end.
    Ran,
    /// It stopped at its own code (or its data): no environment repairs that.
    NotEnvironmental,
    /// It runs a program no Python package installs (`latex`, `dot`): the environment's,
    /// but outside what nbenv installs.
    ProgramMissing,
    /// A round taught nothing the next could use.
    NothingLearned,
    /// The environment could not be built, and nothing was left to try.
    InstallFailed,
    MaxRounds,
    /// The caller's time limit passed between two steps.
    TimeLimit,
}

/// What the rounds learned so far, which every resolution after takes in.
#[derive(Debug, Clone, Default)]
pub struct Learned {
    /// The search over the releases runs pointed at: what they refuted, and what to try next
    /// (see [`super::search`]).
    pub search: Search,
    /// Releases broken on a Python (failed to install or import), whatever the notebook.
    pub failed: Vec<ReleaseFailure>,
    /// Interpreters the environment could not be built on, with nothing left to learn there.
    pub skipped: Vec<PythonVersion>,
}

impl Learned {
    /// Releases that failed this notebook: resolve without them.
    pub fn excluded(&self) -> Vec<(DistName, Version)> {
        self.search
            .refuted()
            .into_iter()
            .map(|r| (r.dist, r.version))
            .collect()
    }

    /// Takes in what a round taught on `python`; whether anything was new. Only broken
    /// releases are taken in here; the search takes the suspects ([`Search::failed`]), and
    /// the rest teach the notebook's evidence ([`RoundSteps::teach`]).
    pub fn take_in(&mut self, lessons: &[Lesson], python: PythonVersion, notebook: &str) -> bool {
        let mut new = false;
        for lesson in lessons {
            match lesson {
                Lesson::Exclude { .. } => {}
                Lesson::Broken {
                    dist,
                    version,
                    step,
                } => {
                    let feature = python.feature();
                    if !self.failed.iter().any(|f| {
                        &f.dist == dist && &f.version == version && f.python.feature() == feature
                    }) {
                        self.failed.push(ReleaseFailure {
                            dist: dist.clone(),
                            version: version.clone(),
                            python: feature,
                            step: *step,
                            detail: String::new(),
                            at: jiff::Timestamp::now(),
                            notebook: notebook.to_string(),
                        });
                        new = true;
                    }
                }
                Lesson::Api { .. }
                | Lesson::Keyword { .. }
                | Lesson::Module { .. }
                | Lesson::Install { .. }
                | Lesson::Undeclared { .. }
                | Lesson::Python { .. }
                | Lesson::Interpreter { .. } => {}
            }
        }
        new
    }
}

/// Why a resolution gave no environment to try.
#[derive(Debug)]
pub enum ResolveEnd<E> {
    /// The caller's time limit passed while resolving.
    OutOfTime(E),
    /// No set of releases satisfies the evidence on the interpreters left.
    NoSolution(E),
    /// Anything else: the rounds end with this error.
    Error(E),
}

/// What building the environment gave.
#[derive(Debug)]
pub enum Built<Env, Round> {
    Env(Env),
    /// It could not be built: the round as the steps record it, and what it taught.
    Failed {
        round: Round,
        lessons: Vec<Lesson>,
    },
}

/// How a run ended, as the loop needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunEnd {
    /// Every cell ran.
    Clean,
    /// It stopped; `repairable` when the environment may be at fault (or the bank cannot
    /// tell), so that another round is worth its cost.
    Failed { repairable: bool },
    /// It stopped at a program outside Python's packages.
    ProgramMissing,
}

/// A finished round: how the run ended, the round as the steps record it, what it taught.
#[derive(Debug)]
pub struct RoundEnd<Round> {
    pub end: RunEnd,
    pub round: Round,
    pub lessons: Vec<Lesson>,
    /// The cell it stopped at (none when it ran to the end, or stopped outside a cell).
    pub cell: Option<u32>,
    /// Releases the failure points at besides those its lessons exclude (the libraries of
    /// the traceback's frames), likeliest first.
    pub suspects: Vec<Suspect>,
    /// Every release the environment had installed.
    pub ran_with: Vec<(DistName, Version)>,
    /// The bank saw what the installed release lacked in other releases: the lessons name
    /// where to go, and the search only records the releases refuted.
    pub bank_knows_where: bool,
    /// The distribution whose code the run's Python could not read (see
    /// [`Suspect::unreadable`]).
    pub unreadable: Option<DistName>,
}

impl<Round> RoundEnd<Round> {
    /// The failure's suspects: the releases its lessons exclude, then the others.
    fn all_suspects(&self) -> Vec<Suspect> {
        let mut all = excluded(&self.lessons);
        for s in &self.suspects {
            if !all.iter().any(|a| a.dist == s.dist) {
                all.push(s.clone());
            }
        }
        for s in &mut all {
            s.unreadable = self.unreadable.as_ref() == Some(&s.dist);
        }
        all
    }
}

/// The releases `lessons` exclude, as suspects.
fn excluded(lessons: &[Lesson]) -> Vec<Suspect> {
    lessons
        .iter()
        .filter_map(|l| match l {
            Lesson::Exclude { dist, version } => Some(Suspect::new(dist.clone(), version.clone())),
            _ => None,
        })
        .collect()
}

/// The steps of a round. Production resolves with the bank and the index, builds with uv and
/// runs the notebook's cells; tests drive the loop with fakes. The steps also say what the
/// search needs of a distribution's releases ([`SearchSpace`]).
pub trait RoundSteps: SearchSpace {
    /// What a resolution gave: the pins, on a Python.
    type Resolution;
    /// A built environment.
    type Env;
    /// One round, as the caller records and prints it.
    type Round;
    type Error;

    /// Resolves with what the rounds learned so far.
    fn resolve(
        &mut self,
        round: u32,
        learned: &Learned,
    ) -> Result<Self::Resolution, ResolveEnd<Self::Error>>;

    /// The Python a resolution chose.
    fn python(&self, resolution: &Self::Resolution) -> PythonVersion;

    /// Builds (or reuses) the environment for a resolution; the environment carries what the
    /// run needs of the resolution.
    fn build(
        &mut self,
        round: u32,
        resolution: Self::Resolution,
    ) -> Result<Built<Self::Env, Self::Round>, Self::Error>;

    /// Runs the notebook in `env`.
    fn run(&mut self, round: u32, env: Self::Env) -> Result<RoundEnd<Self::Round>, Self::Error>;

    /// Teaches the notebook's evidence what a run revealed (a missing API, a refused
    /// keyword); whether anything was new.
    fn teach(&mut self, lessons: &[Lesson]) -> bool;

    /// Moves a modernized notebook's code past what round `round`'s run showed the
    /// environment lacks (an API the newest release removed), when a successor is known;
    /// whether the code changed. The next round runs the new code on the same releases: the
    /// lessons are not taught, since they are about code that is no longer there.
    fn forward(&mut self, round: u32, lessons: &[Lesson]) -> bool;

    /// Runs the cells in the order the notebook's stored execution counts say its author ran
    /// them, when round `round` stopped at a name only a later cell defines and the counts
    /// show that cell ran first; whether the order changed. No release is at fault: the next
    /// round runs the same environment in that order.
    fn reorder(&mut self, round: u32) -> bool;

    /// Whether an environment that cannot be built, with nothing new learned, may be tried
    /// on the next interpreter (not when the user chose the Python).
    fn may_move_on(&self) -> bool;

    /// Told when the rounds move on from `python` to the next interpreter.
    fn moving_on(&mut self, round: u32, python: PythonVersion);

    /// Whether the caller's time limit has passed.
    fn past_deadline(&self) -> bool;

    /// Whether `resolution` asks for the very environment the last round ran in: what that
    /// round taught changed nothing, and running it again would only fail the same way.
    fn repeats_last(&mut self, resolution: &Self::Resolution) -> bool;

    /// The notebook, as run records name it.
    fn notebook(&self) -> &str;

    /// Told what the search concluded from round `round`'s failure: the release it moves to
    /// next (none when it had nothing left to try), and every release runs have refuted.
    fn searched(&mut self, round: u32, moved: Option<&Move>, refuted: &[Refutation]);
}

/// What the rounds did.
#[derive(Debug)]
pub struct Rounds<Round> {
    pub rounds: Vec<Round>,
    pub stopped: Stop,
    pub learned: Learned,
}

/// Runs at most `max_rounds` rounds, starting from what `learned` already holds (interpreters
/// to skip, say).
pub fn run_rounds<S: RoundSteps>(
    steps: &mut S,
    max_rounds: u32,
    mut learned: Learned,
) -> Result<Rounds<S::Round>, S::Error> {
    let mut rounds = Vec::new();
    let mut stopped = Stop::MaxRounds;
    for round in 1..=max_rounds {
        if round > 1 && steps.past_deadline() {
            stopped = Stop::TimeLimit;
            break;
        }
        let resolution = match steps.resolve(round, &learned) {
            Ok(resolution) => resolution,
            Err(ResolveEnd::OutOfTime(_)) if round > 1 => {
                stopped = Stop::TimeLimit;
                break;
            }
            // Moved on from interpreters that could not build it, and none is left.
            Err(ResolveEnd::NoSolution(_)) if round > 1 && !learned.skipped.is_empty() => {
                stopped = Stop::InstallFailed;
                break;
            }
            Err(ResolveEnd::OutOfTime(e) | ResolveEnd::NoSolution(e) | ResolveEnd::Error(e)) => {
                return Err(e)
            }
        };
        if round > 1 && steps.repeats_last(&resolution) {
            stopped = Stop::NothingLearned;
            break;
        }
        let python = steps.python(&resolution);
        let env = match steps.build(round, resolution)? {
            Built::Env(env) => env,
            Built::Failed {
                round: this,
                lessons,
            } => {
                rounds.push(this);
                let mut new = learned.take_in(&lessons, python, steps.notebook());
                // A dependency the installer chose itself is resolved as the rest next.
                if lessons
                    .iter()
                    .any(|l| matches!(l, Lesson::Undeclared { .. }))
                {
                    new |= steps.teach(&lessons);
                }
                // A release the search asked for that does not install moves the search.
                for lesson in &lessons {
                    if let Lesson::Broken { dist, version, .. } = lesson {
                        if let Some(moved) = learned.search.broken(dist, version, steps) {
                            steps.searched(round, Some(&moved), &learned.search.refuted());
                            new = true;
                        }
                    }
                }
                if new {
                    continue;
                }
                if steps.may_move_on() {
                    steps.moving_on(round, python);
                    learned.skipped.push(python);
                    continue;
                }
                stopped = Stop::InstallFailed;
                break;
            }
        };
        let ended = steps.run(round, env)?;
        let suspects = ended.all_suspects();
        let RoundEnd {
            end,
            round: this,
            lessons,
            cell,
            ran_with,
            bank_knows_where,
            ..
        } = ended;
        rounds.push(this);
        learned
            .search
            .reached(if end == RunEnd::Clean { None } else { cell }, &ran_with);
        match end {
            RunEnd::Clean => {
                stopped = Stop::Ran;
                break;
            }
            RunEnd::Failed { repairable: false } => {
                if steps.reorder(round) {
                    continue;
                }
                stopped = Stop::NotEnvironmental;
                break;
            }
            RunEnd::ProgramMissing => {
                stopped = Stop::ProgramMissing;
                break;
            }
            RunEnd::Failed { repairable: true } => {
                if steps.forward(round, &lessons) {
                    continue;
                }
                let mut new = steps.teach(&lessons);
                new |= learned.take_in(&lessons, python, steps.notebook());
                if bank_knows_where {
                    // Only the releases the lessons exclude: the traceback's other libraries
                    // are not at fault.
                    learned
                        .search
                        .refuted_at(cell.unwrap_or(0), &excluded(&lessons));
                    steps.searched(round, None, &learned.search.refuted());
                } else if !suspects.is_empty() {
                    let moved = learned.search.failed(cell.unwrap_or(0), &suspects, steps);
                    steps.searched(round, moved.as_ref(), &learned.search.refuted());
                    new |= moved.is_some();
                }
                if !new {
                    stopped = Stop::NothingLearned;
                    break;
                }
            }
        }
    }
    Ok(Rounds {
        rounds,
        stopped,
        learned,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bank::store::FailedStep;
    use std::collections::VecDeque;

    /// A scripted restoration: each resolution picks the newest release of one distribution
    /// not yet excluded or broken, on the first interpreter not skipped; `builds` and `runs`
    /// say, round by round, what building and running gave.
    struct Script {
        releases: Vec<&'static str>,
        pythons: Vec<PythonVersion>,
        builds: VecDeque<Result<(), Vec<Lesson>>>,
        runs: VecDeque<(RunEnd, Vec<Lesson>)>,
        teaches: bool,
        rules_out_taught: bool,
        /// What it teaches rules out the release the last run used (a missing API).
        taught_rules_out: Vec<&'static str>,
        may_move_on: bool,
        deadline_after: Option<u32>,
        /// Resolutions from this round on run out of time.
        out_of_time_from: Option<u32>,
        resolved: u32,
        log: Vec<String>,
        /// The cell every failed run stops at.
        cell: u32,
        /// Instead of `runs`: releases from this one on fail, older ones run.
        passes_below: Option<Version>,
        /// What the last run ran on.
        last: Option<(PythonVersion, &'static str)>,
        /// Failed runs stop at a name the bank saw in other releases.
        knows_where: bool,
        /// Round by round, whether a failed run's code moves forward.
        forwards: VecDeque<bool>,
        /// Round by round, whether a run stopped in the notebook's code runs again in the
        /// stored order.
        reorders: VecDeque<bool>,
    }

    fn dist() -> DistName {
        DistName::new("pkg").unwrap()
    }

    fn exclude(v: &str) -> Lesson {
        Lesson::Exclude {
            dist: dist(),
            version: v.parse().unwrap(),
        }
    }

    fn broken(v: &str) -> Lesson {
        Lesson::Broken {
            dist: dist(),
            version: v.parse().unwrap(),
            step: FailedStep::Install,
        }
    }

    impl Script {
        fn new(releases: &[&'static str]) -> Self {
            Self {
                releases: releases.to_vec(),
                pythons: vec![PythonVersion::new(3, 11), PythonVersion::new(3, 8)],
                builds: VecDeque::new(),
                runs: VecDeque::new(),
                teaches: false,
                rules_out_taught: false,
                taught_rules_out: Vec::new(),
                may_move_on: true,
                deadline_after: None,
                out_of_time_from: None,
                resolved: 0,
                log: Vec::new(),
                cell: 3,
                passes_below: None,
                last: None,
                knows_where: false,
                forwards: VecDeque::new(),
                reorders: VecDeque::new(),
            }
        }
    }

    impl RoundSteps for Script {
        type Resolution = (PythonVersion, &'static str);
        type Env = (PythonVersion, &'static str);
        type Round = String;
        type Error = String;

        fn resolve(
            &mut self,
            round: u32,
            learned: &Learned,
        ) -> Result<Self::Resolution, ResolveEnd<String>> {
            self.resolved += 1;
            if self.out_of_time_from.is_some_and(|from| round >= from) {
                return Err(ResolveEnd::OutOfTime("out of time".into()));
            }
            let Some(python) = self
                .pythons
                .iter()
                .copied()
                .find(|p| !learned.skipped.contains(p))
            else {
                return Err(ResolveEnd::NoSolution("no interpreter left".into()));
            };
            let steer = learned.search.steer();
            let usable = |v: &&'static str| {
                let version: Version = v.parse().unwrap();
                if self.rules_out_taught && self.taught_rules_out.contains(v) {
                    return false;
                }
                steer.iter().all(|s| s.rules_out(&version).is_none())
                    && !learned
                        .failed
                        .iter()
                        .any(|f| f.version == version && f.python == python.feature())
            };
            let target = steer.iter().find_map(|s| s.target.clone());
            let pick = self
                .releases
                .iter()
                .copied()
                .filter(usable)
                .find(|v| {
                    target
                        .as_ref()
                        .is_none_or(|t| &v.parse::<Version>().unwrap() == t)
                })
                .or_else(|| self.releases.iter().copied().find(usable));
            match pick {
                Some(v) => Ok((python, v)),
                None => Err(ResolveEnd::NoSolution("every release passed over".into())),
            }
        }

        fn python(&self, resolution: &Self::Resolution) -> PythonVersion {
            resolution.0
        }

        fn build(
            &mut self,
            round: u32,
            (python, v): Self::Resolution,
        ) -> Result<Built<Self::Env, String>, String> {
            match self.builds.pop_front().unwrap_or(Ok(())) {
                Ok(()) => Ok(Built::Env((python, v))),
                Err(lessons) => Ok(Built::Failed {
                    round: format!("{round}: pkg=={v} on {python} not built"),
                    lessons,
                }),
            }
        }

        fn run(&mut self, round: u32, (python, v): Self::Env) -> Result<RoundEnd<String>, String> {
            self.last = Some((python, v));
            let version: Version = v.parse().unwrap();
            let (end, lessons) = match &self.passes_below {
                // Releases from `passes_below` on fail the notebook, and the failure points
                // at the release (the bank cannot tell which others differ).
                Some(limit) if &version >= limit => (FAILED, vec![exclude(v)]),
                Some(_) => (RunEnd::Clean, vec![]),
                None => self
                    .runs
                    .pop_front()
                    .ok_or_else(|| format!("round {round} was not scripted"))?,
            };
            Ok(RoundEnd {
                end,
                round: format!("{round}: pkg=={v} on {python} {end:?}"),
                lessons,
                cell: Some(self.cell),
                suspects: Vec::new(),
                ran_with: vec![(dist(), v.parse().unwrap())],
                bank_knows_where: self.knows_where && end != RunEnd::Clean,
                unreadable: None,
            })
        }

        fn forward(&mut self, round: u32, _lessons: &[Lesson]) -> bool {
            let moved = self.forwards.pop_front().unwrap_or(false);
            if moved {
                self.log.push(format!("{round}: forward"));
                // The code changed: the same release runs again.
                self.last = None;
            }
            moved
        }

        fn reorder(&mut self, round: u32) -> bool {
            let reordered = self.reorders.pop_front().unwrap_or(false);
            if reordered {
                self.log.push(format!("{round}: reorder"));
                // The order changed: the same release runs again.
                self.last = None;
            }
            reordered
        }

        fn teach(&mut self, _lessons: &[Lesson]) -> bool {
            if let Some((_, v)) = self.last.filter(|_| self.teaches) {
                self.taught_rules_out.push(v);
            }
            self.teaches
        }

        fn may_move_on(&self) -> bool {
            self.may_move_on
        }

        fn moving_on(&mut self, round: u32, python: PythonVersion) {
            self.log.push(format!("{round}: moving on from {python}"));
        }

        fn past_deadline(&self) -> bool {
            self.deadline_after.is_some_and(|n| self.resolved >= n)
        }

        fn notebook(&self) -> &str {
            "nb.ipynb"
        }

        fn repeats_last(&mut self, resolution: &Self::Resolution) -> bool {
            self.last == Some(*resolution)
        }

        fn searched(&mut self, round: u32, moved: Option<&Move>, _: &[Refutation]) {
            if let Some(m) = moved {
                self.log
                    .push(format!("{round}: search {} -> {}", m.from, m.to));
            }
        }
    }

    impl SearchSpace for Script {
        fn candidates(&mut self, _: &DistName) -> Vec<super::super::search::Candidate> {
            let mut all: Vec<_> = self
                .releases
                .iter()
                .map(|v| super::super::search::Candidate {
                    version: v.parse().unwrap(),
                    uploaded: None,
                    built: false,
                })
                .collect();
            all.sort_by(|a, b| a.version.cmp(&b.version));
            all
        }

        fn era(&self) -> Option<jiff::Timestamp> {
            None
        }

        fn python_released(&self) -> Option<jiff::Timestamp> {
            None
        }
    }

    /// A lesson that changes no pin resolves the environment the last round ran in: the
    /// rounds stop there rather than build and run it again (in production the environment
    /// is still held by the last round, and preparing it again would wait on that hold).
    #[test]
    fn a_round_resolving_the_last_environment_again_stops() {
        let mut s = Script::new(&["2.0", "1.0"]);
        s.teaches = true;
        s.runs.push_back((FAILED, vec![]));
        s.runs.push_back((FAILED, vec![]));
        let r = run_rounds(&mut s, 5, Learned::default()).unwrap();
        assert_eq!(r.stopped, Stop::NothingLearned);
        assert_eq!(r.rounds.len(), 1, "{:?}", r.rounds);
        assert_eq!(s.runs.len(), 1);
    }

    const FAILED: RunEnd = RunEnd::Failed { repairable: true };

    /// A modernized notebook's run that meets a removed API with a known successor runs
    /// again on the same release with the code moved, instead of walking the release back;
    /// the lessons of that run are not taught (nothing is excluded). When nothing moves, the
    /// lessons go to the search as before.
    #[test]
    fn code_moved_forward_runs_again_on_the_same_release() {
        let mut s = Script::new(&["2.0", "1.0"]);
        s.forwards.push_back(true);
        s.runs.push_back((FAILED, vec![exclude("2.0")]));
        s.runs.push_back((RunEnd::Clean, vec![]));
        let r = run_rounds(&mut s, 5, Learned::default()).unwrap();
        assert_eq!(r.stopped, Stop::Ran);
        assert_eq!(
            r.rounds,
            [
                "1: pkg==2.0 on 3.11 Failed { repairable: true }",
                "2: pkg==2.0 on 3.11 Clean"
            ]
        );
        assert!(r.learned.excluded().is_empty());
        assert_eq!(s.log, ["1: forward"]);

        // No successor: the failure is searched as any other.
        let mut s = Script::new(&["2.0", "1.0"]);
        s.forwards.push_back(false);
        s.runs.push_back((FAILED, vec![exclude("2.0")]));
        s.runs.push_back((RunEnd::Clean, vec![]));
        let r = run_rounds(&mut s, 5, Learned::default()).unwrap();
        assert_eq!(r.stopped, Stop::Ran);
        assert_eq!(r.rounds[1], "2: pkg==1.0 on 3.11 Clean");
    }

    /// A run stopped in the notebook's code goes again, on the same release, when the cells
    /// can run in the order their author ran them; else the rounds stop there.
    #[test]
    fn a_stop_in_the_code_runs_again_in_the_stored_order() {
        const CODE: RunEnd = RunEnd::Failed { repairable: false };
        let mut s = Script::new(&["2.0", "1.0"]);
        s.reorders.push_back(true);
        s.runs.push_back((CODE, vec![]));
        s.runs.push_back((RunEnd::Clean, vec![]));
        let r = run_rounds(&mut s, 5, Learned::default()).unwrap();
        assert_eq!(r.stopped, Stop::Ran);
        assert_eq!(
            r.rounds,
            [
                "1: pkg==2.0 on 3.11 Failed { repairable: false }",
                "2: pkg==2.0 on 3.11 Clean"
            ]
        );
        assert_eq!(s.log, ["1: reorder"]);

        let mut s = Script::new(&["2.0", "1.0"]);
        s.runs.push_back((CODE, vec![]));
        let r = run_rounds(&mut s, 5, Learned::default()).unwrap();
        assert_eq!(r.stopped, Stop::NotEnvironmental);
        assert_eq!(r.rounds.len(), 1);
    }

    /// A keyword the newest releases refuse behind `**kwargs` (matplotlib's `hold=`, gone in
    /// 3.0): the bank cannot tell which releases differ, so the run is the judge. The rounds
    /// bisect the releases instead of walking back one a round, and end in an environment
    /// that runs within the round limit; the walk took one round per release.
    #[test]
    fn an_unknown_failure_is_bisected_not_walked() {
        let releases: Vec<&'static str> = vec![
            "3.3.4", "3.3.3", "3.3.2", "3.3.1", "3.3.0", "3.2.2", "3.2.1", "3.2.0", "3.1.3",
            "3.1.2", "3.1.1", "3.1.0", "3.0.3", "3.0.2", "3.0.0", "2.2.5", "2.2.4", "2.2.3",
            "2.2.2", "2.1.2", "2.1.1", "2.1.0", "2.0.2", "2.0.0", "1.5.3",
        ];
        let mut s = Script::new(&releases);
        s.passes_below = Some("3.0.0".parse().unwrap());
        let r = run_rounds(&mut s, 4, Learned::default()).unwrap();
        assert_eq!(r.stopped, Stop::Ran, "{:?} {:?}", r.rounds, s.log);
        assert!(r.rounds.len() <= 3, "{:?}", r.rounds);
        // Every release a run saw fail is refuted, and the last one ran is not among them.
        let refuted = r.learned.excluded();
        assert!(refuted
            .iter()
            .all(|(_, v)| v >= &"3.0.0".parse::<Version>().unwrap()));
        assert!(r.rounds.last().unwrap().contains("Clean"));
    }

    /// A member the bank saw added in a later release (featuretools' `EntitySet.plot`, from
    /// 0.6.0) fails the era's 0.5.1: the lessons say where to go, and the search must not
    /// take the newer releases to fail too (it walked 0.2.1, 0.1.19, 0.1.17). The release
    /// that failed is refuted all the same.
    #[test]
    fn a_failure_the_bank_knows_the_way_out_of_is_not_searched() {
        let mut s = Script::new(&["0.5.1", "0.6.0", "0.2.1"]);
        s.knows_where = true;
        s.teaches = true;
        s.runs.push_back((FAILED, vec![exclude("0.5.1")]));
        s.runs.push_back((RunEnd::Clean, vec![]));
        let r = run_rounds(&mut s, 4, Learned::default()).unwrap();
        assert_eq!(
            r.rounds,
            [
                "1: pkg==0.5.1 on 3.11 Failed { repairable: true }",
                "2: pkg==0.6.0 on 3.11 Clean"
            ],
            "{:?}",
            s.log
        );
        assert!(r
            .learned
            .search
            .is_refuted(&dist(), &"0.5.1".parse().unwrap()));
    }

    /// What earlier restorations refuted is never tried again.
    #[test]
    fn a_resumed_search_starts_past_what_was_refuted() {
        let mut s = Script::new(&["3.0", "2.0", "1.0"]);
        s.passes_below = Some("2.0".parse().unwrap());
        let learned = Learned {
            search: Search::resumed(&[
                Refutation {
                    dist: dist(),
                    version: "3.0".parse().unwrap(),
                    cell: 3,
                    bound: None,
                },
                Refutation {
                    dist: dist(),
                    version: "2.0".parse().unwrap(),
                    cell: 3,
                    bound: None,
                },
            ]),
            ..Learned::default()
        };
        let r = run_rounds(&mut s, 4, learned).unwrap();
        assert_eq!(r.rounds, ["1: pkg==1.0 on 3.11 Clean"]);
    }

    /// The side of a refuted release earlier runs ruled out stays out: with 2.0 too new,
    /// round 1 is 1.0, not 3.0, which no run tried.
    #[test]
    fn a_resumed_search_keeps_the_bound() {
        let mut s = Script::new(&["3.0", "2.0", "1.0"]);
        s.passes_below = Some("2.0".parse().unwrap());
        let learned = Learned {
            search: Search::resumed(&[Refutation {
                dist: dist(),
                version: "2.0".parse().unwrap(),
                cell: 3,
                bound: Some(crate::bank::store::Bound::TooNew),
            }]),
            ..Learned::default()
        };
        let r = run_rounds(&mut s, 4, learned).unwrap();
        assert_eq!(r.rounds, ["1: pkg==1.0 on 3.11 Clean"]);
    }

    #[test]
    fn a_clean_first_run_is_one_round() {
        let mut s = Script::new(&["2.0", "1.0"]);
        s.runs.push_back((RunEnd::Clean, vec![]));
        let r = run_rounds(&mut s, 5, Learned::default()).unwrap();
        assert_eq!(r.stopped, Stop::Ran);
        assert_eq!(r.rounds, ["1: pkg==2.0 on 3.11 Clean"]);
    }

    /// A release the run showed failing the notebook is passed over by the next resolution.
    #[test]
    fn a_failure_learned_passes_the_release_over_next_round() {
        let mut s = Script::new(&["3.0", "2.0", "1.0"]);
        s.runs.push_back((FAILED, vec![exclude("3.0")]));
        s.runs.push_back((RunEnd::Clean, vec![]));
        let r = run_rounds(&mut s, 5, Learned::default()).unwrap();
        assert_eq!(r.stopped, Stop::Ran);
        assert_eq!(r.rounds.len(), 2);
        assert!(r.rounds[1].contains("pkg==2.0"), "{:?}", r.rounds);
        assert_eq!(r.learned.excluded().len(), 1);
    }

    /// Evidence the notebook was taught (a missing API) is new even when no release was
    /// excluded; the same lesson twice is not.
    #[test]
    fn evidence_taught_is_a_reason_to_go_again_and_a_repeat_is_not() {
        let mut s = Script::new(&["2.0", "1.0"]);
        s.teaches = true;
        s.rules_out_taught = true;
        s.runs.push_back((FAILED, vec![]));
        s.runs.push_back((RunEnd::Clean, vec![]));
        assert_eq!(
            run_rounds(&mut s, 5, Learned::default()).unwrap().stopped,
            Stop::Ran
        );

        let mut s = Script::new(&["2.0", "1.0"]);
        s.runs.push_back((FAILED, vec![exclude("2.0")]));
        s.runs.push_back((FAILED, vec![exclude("2.0")]));
        let r = run_rounds(&mut s, 5, Learned::default()).unwrap();
        assert_eq!(r.stopped, Stop::NothingLearned);
        assert_eq!(r.rounds.len(), 2);
    }

    #[test]
    fn the_notebooks_own_error_stops_at_once() {
        let mut s = Script::new(&["2.0", "1.0"]);
        s.runs
            .push_back((RunEnd::Failed { repairable: false }, vec![exclude("2.0")]));
        let r = run_rounds(&mut s, 5, Learned::default()).unwrap();
        assert_eq!(r.stopped, Stop::NotEnvironmental);
        assert_eq!(r.rounds.len(), 1);
        assert!(
            r.learned.excluded().is_empty(),
            "a code error teaches nothing"
        );
    }

    #[test]
    fn the_round_limit_stops_a_notebook_that_keeps_teaching() {
        let mut s = Script::new(&["5.0", "4.0", "3.0", "2.0", "1.0"]);
        for v in ["5.0", "4.0", "3.0"] {
            s.runs.push_back((FAILED, vec![exclude(v)]));
        }
        let r = run_rounds(&mut s, 3, Learned::default()).unwrap();
        assert_eq!(r.stopped, Stop::MaxRounds);
        assert_eq!(r.rounds.len(), 3);
    }

    /// A release broken at install is passed over on that Python from the next round.
    #[test]
    fn a_release_that_fails_to_build_is_passed_over() {
        let mut s = Script::new(&["2.0", "1.0"]);
        s.builds.push_back(Err(vec![broken("2.0")]));
        s.runs.push_back((RunEnd::Clean, vec![]));
        let r = run_rounds(&mut s, 5, Learned::default()).unwrap();
        assert_eq!(r.stopped, Stop::Ran);
        assert_eq!(
            r.rounds,
            ["1: pkg==2.0 on 3.11 not built", "2: pkg==1.0 on 3.11 Clean"]
        );
        assert_eq!(r.learned.failed[0].python, PythonVersion::new(3, 11));
    }

    /// A build that fails with nothing to learn moves to the next interpreter, unless the
    /// user chose the Python; with none left, the rounds end as not built.
    #[test]
    fn a_build_with_nothing_to_learn_moves_to_the_next_interpreter() {
        let mut s = Script::new(&["1.0"]);
        s.builds.push_back(Err(vec![]));
        s.runs.push_back((RunEnd::Clean, vec![]));
        let r = run_rounds(&mut s, 5, Learned::default()).unwrap();
        assert_eq!(r.stopped, Stop::Ran);
        assert_eq!(s.log, ["1: moving on from 3.11"]);
        assert_eq!(r.rounds[1], "2: pkg==1.0 on 3.8 Clean");

        let mut s = Script::new(&["1.0"]);
        s.may_move_on = false;
        s.builds.push_back(Err(vec![]));
        let r = run_rounds(&mut s, 5, Learned::default()).unwrap();
        assert_eq!(r.stopped, Stop::InstallFailed);
        assert!(s.log.is_empty());

        let mut s = Script::new(&["1.0"]);
        s.builds.push_back(Err(vec![]));
        s.builds.push_back(Err(vec![]));
        let r = run_rounds(&mut s, 5, Learned::default()).unwrap();
        assert_eq!(r.stopped, Stop::InstallFailed, "{:?}", r.rounds);
        assert_eq!(r.rounds.len(), 2);
    }

    /// A dependency the installer chose itself (undeclared by the release that needs it)
    /// is taught to the notebook's evidence and resolved on the same interpreter, instead of
    /// moving on to the next one.
    #[test]
    fn an_undeclared_dependency_that_failed_is_resolved_on_the_same_python() {
        let undeclared = Lesson::Undeclared {
            dist: DistName::new("pandas").unwrap(),
            by: Some((dist(), "1.0".parse().unwrap())),
        };
        let mut s = Script::new(&["1.0"]);
        s.teaches = true;
        s.builds.push_back(Err(vec![undeclared]));
        s.runs.push_back((RunEnd::Clean, vec![]));
        let r = run_rounds(&mut s, 5, Learned::default()).unwrap();
        assert_eq!(r.stopped, Stop::Ran);
        assert!(s.log.is_empty(), "{:?}", s.log);
        assert_eq!(r.rounds[1], "2: pkg==1.0 on 3.11 Clean");
    }

    /// The time limit is checked between rounds, never before the first; a resolution out of
    /// time after the first round is a stop, in the first an error.
    #[test]
    fn the_time_limit_stops_between_rounds() {
        let mut s = Script::new(&["3.0", "2.0", "1.0"]);
        s.deadline_after = Some(1);
        s.runs.push_back((FAILED, vec![exclude("3.0")]));
        let r = run_rounds(&mut s, 5, Learned::default()).unwrap();
        assert_eq!(r.stopped, Stop::TimeLimit);
        assert_eq!(r.rounds.len(), 1);

        let mut s = Script::new(&["3.0", "2.0"]);
        s.out_of_time_from = Some(2);
        s.runs.push_back((FAILED, vec![exclude("3.0")]));
        let r = run_rounds(&mut s, 5, Learned::default()).unwrap();
        assert_eq!(r.stopped, Stop::TimeLimit);

        let mut s = Script::new(&["3.0"]);
        s.out_of_time_from = Some(1);
        let e = run_rounds(&mut s, 5, Learned::default()).unwrap_err();
        assert_eq!(e, "out of time");
    }

    /// No solution after moving on from an interpreter is the end of the rounds, not an
    /// error; in the first round it is the caller's error.
    #[test]
    fn no_solution_after_moving_on_ends_as_not_built() {
        let mut s = Script::new(&["1.0"]);
        s.pythons.truncate(1);
        s.builds.push_back(Err(vec![]));
        let r = run_rounds(&mut s, 5, Learned::default()).unwrap();
        assert_eq!(r.stopped, Stop::InstallFailed);

        let mut s = Script::new(&[]);
        assert!(run_rounds(&mut s, 5, Learned::default()).is_err());
    }
}
