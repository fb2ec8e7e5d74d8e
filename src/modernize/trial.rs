//! A candidate change (a successor only a deprecation warning names) is kept only when the
//! modernized notebook runs to its end with it. [`try_candidates`] restores the notebook with
//! the candidates first; when that does not run to the end, again with only the proven
//! changes, and that is kept. What a restoration is belongs to the [`TrialSteps`]
//! implementation (`modernize`, `restore --prefer modern`, a batch); the order and the choice
//! are decided here, on types.

/// The steps of a trial: restoring the modernized notebook with or without its candidates.
pub trait TrialSteps {
    type Restored;
    type Error;

    /// Restores the modernized notebook, with the candidate changes or only the proven ones.
    fn restore(&mut self, candidates: bool) -> Result<Self::Restored, Self::Error>;

    /// Whether the rounds' last run went to the notebook's end.
    fn ran(&self, restored: &Self::Restored) -> bool;
}

/// What became of the changes only a warning names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CandidatesKept {
    /// The notebook ran to its end with them.
    Kept,
    /// It did not: the notebook is restored and written without them.
    Dropped,
}

impl CandidatesKept {
    /// Whether the notebook kept has them.
    pub fn written(self) -> bool {
        self == Self::Kept
    }
}

/// What a trial did.
#[derive(Debug)]
pub struct CandidateRun<R, E> {
    /// The restoration kept.
    pub kept: Result<R, E>,
    /// The other restoration, when both were made (its environments are the caller's to
    /// remove).
    pub set_aside: Option<Result<R, E>>,
    /// What became of the candidates; `None` when there were none.
    pub candidates: Option<CandidatesKept>,
}

/// Restores as the candidates allow: with them first when `candidates`, and without them
/// when that does not run to the end.
pub fn try_candidates<S: TrialSteps>(
    steps: &mut S,
    candidates: bool,
) -> CandidateRun<S::Restored, S::Error> {
    if !candidates {
        return CandidateRun {
            kept: steps.restore(false),
            set_aside: None,
            candidates: None,
        };
    }
    let with = steps.restore(true);
    if matches!(&with, Ok(r) if steps.ran(r)) {
        return CandidateRun {
            kept: with,
            set_aside: None,
            candidates: Some(CandidatesKept::Kept),
        };
    }
    CandidateRun {
        kept: steps.restore(false),
        set_aside: Some(with),
        candidates: Some(CandidatesKept::Dropped),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// How a scripted restoration ends: at the end, at a cell, or in an error.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum Ends {
        Ran,
        At(u32),
        Error,
    }

    /// Scripted restorations with and without the candidates, and the log of what was
    /// restored.
    struct Script {
        with: Ends,
        without: Ends,
        log: Vec<bool>,
    }

    impl TrialSteps for Script {
        /// (with candidates, how it ended)
        type Restored = (bool, Ends);
        type Error = &'static str;

        fn restore(&mut self, candidates: bool) -> Result<(bool, Ends), &'static str> {
            self.log.push(candidates);
            match if candidates { self.with } else { self.without } {
                Ends::Error => Err("no resolution"),
                ends => Ok((candidates, ends)),
            }
        }

        fn ran(&self, restored: &(bool, Ends)) -> bool {
            restored.1 == Ends::Ran
        }
    }

    fn trial(with: Ends, without: Ends) -> (CandidateRun<(bool, Ends), &'static str>, Vec<bool>) {
        let mut s = Script {
            with,
            without,
            log: Vec::new(),
        };
        let done = try_candidates(&mut s, true);
        (done, s.log)
    }

    #[test]
    fn candidates_that_run_are_kept_without_a_second_run() {
        let (done, log) = trial(Ends::Ran, Ends::Ran);
        assert_eq!(log, [true]);
        assert_eq!(done.kept, Ok((true, Ends::Ran)));
        assert_eq!(done.candidates, Some(CandidatesKept::Kept));
        assert!(done.set_aside.is_none());
    }

    /// Not running to the end with them drops them, whatever the run without them gives
    /// (even a later stop with them: the rule is a run that passes).
    #[test]
    fn candidates_that_do_not_run_to_the_end_are_dropped() {
        for (with, without) in [
            (Ends::At(3), Ends::Ran),
            (Ends::Error, Ends::Ran),
            (Ends::At(3), Ends::At(3)),
            (Ends::At(5), Ends::At(2)),
            (Ends::Error, Ends::Error),
        ] {
            let (done, log) = trial(with, without);
            assert_eq!(log, [true, false], "{with:?} {without:?}");
            assert_eq!(done.candidates, Some(CandidatesKept::Dropped));
            // The run without them is kept; the one with them set aside.
            match &done.kept {
                Ok((candidates, _)) => assert!(!candidates),
                Err(_) => assert_eq!(without, Ends::Error),
            }
            match &done.set_aside {
                Some(Ok((candidates, _))) => assert!(candidates),
                Some(Err(_)) => assert_eq!(with, Ends::Error),
                None => panic!("both were made"),
            }
        }
    }

    #[test]
    fn without_candidates_one_run() {
        let mut s = Script {
            with: Ends::Ran,
            without: Ends::At(1),
            log: Vec::new(),
        };
        let done = try_candidates(&mut s, false);
        assert_eq!(s.log, [false]);
        assert_eq!(done.kept, Ok((false, Ends::At(1))));
        assert_eq!(done.candidates, None);
    }
}
