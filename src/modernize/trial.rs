//! A candidate change (a successor only a deprecation warning names) is kept only when the
//! modernized notebook does better with it. [`try_candidates`] restores the notebook with the
//! candidates first; when that does not run to the end, again with only the proven changes.
//! The candidates are kept when the notebook ran to its end with them, and, marked
//! unconfirmed, when neither ran to the end but the run with them stopped at a later cell
//! (their cells ran; something after them did not). What a restoration is belongs to the
//! [`TrialSteps`] implementation (`modernize`, `restore --prefer modern`, a batch); the
//! order and the choice are decided here, on types.

/// The steps of a trial: restoring the modernized notebook with or without its candidates.
pub trait TrialSteps {
    type Restored;
    type Error;

    /// Restores the modernized notebook, with the candidate changes or only the proven ones.
    fn restore(&mut self, candidates: bool) -> Result<Self::Restored, Self::Error>;

    /// Whether the rounds' last run went to the notebook's end.
    fn ran(&self, restored: &Self::Restored) -> bool;

    /// The cell the rounds' last run stopped at, when it stopped at one.
    fn stopped_at(&self, restored: &Self::Restored) -> Option<u32>;
}

/// What became of the changes only a warning names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CandidatesKept {
    /// The notebook ran to its end with them.
    Kept,
    /// Neither way ran to the end; with them the notebook got further. Kept, unconfirmed.
    Unconfirmed,
    /// The notebook did as well or better without them.
    Dropped,
}

impl CandidatesKept {
    /// Whether the notebook kept has them.
    pub fn written(self) -> bool {
        matches!(self, Self::Kept | Self::Unconfirmed)
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
/// when that does not run to the end; the better of the two is kept.
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
    let without = steps.restore(false);
    let reached = |r: &Result<S::Restored, S::Error>| match r {
        Ok(r) if steps.ran(r) => Reached::End,
        Ok(r) => steps.stopped_at(r).map_or(Reached::Nowhere, Reached::Cell),
        Err(_) => Reached::Nowhere,
    };
    if reached(&with) > reached(&without) {
        CandidateRun {
            kept: with,
            set_aside: Some(without),
            candidates: Some(CandidatesKept::Unconfirmed),
        }
    } else {
        CandidateRun {
            kept: without,
            set_aside: Some(with),
            candidates: Some(CandidatesKept::Dropped),
        }
    }
}

/// How far a restoration got, ordered: no cell known, a cell it stopped at, the end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Reached {
    Nowhere,
    Cell(u32),
    End,
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

        fn stopped_at(&self, restored: &(bool, Ends)) -> Option<u32> {
            match restored.1 {
                Ends::At(cell) => Some(cell),
                _ => None,
            }
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

    #[test]
    fn candidates_are_dropped_when_the_notebook_does_as_well_without_them() {
        for (with, without) in [
            (Ends::At(3), Ends::Ran),
            (Ends::Error, Ends::Ran),
            (Ends::At(3), Ends::At(3)),
            (Ends::At(2), Ends::At(5)),
            (Ends::Error, Ends::Error),
            (Ends::Error, Ends::At(1)),
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

    /// Neither runs to the end, but the candidates' cells ran and the run stopped later:
    /// the notebook with them is the further one, kept and said to be unconfirmed.
    #[test]
    fn candidates_that_get_further_are_kept_unconfirmed() {
        for without in [Ends::At(2), Ends::Error] {
            let (done, log) = trial(Ends::At(3), without);
            assert_eq!(log, [true, false]);
            assert_eq!(done.candidates, Some(CandidatesKept::Unconfirmed));
            assert_eq!(done.kept, Ok((true, Ends::At(3))));
            assert!(CandidatesKept::Unconfirmed.written());
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
