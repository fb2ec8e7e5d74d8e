//! A candidate change (a successor only a deprecation warning names) is kept only when the
//! modernized notebook runs to its end with it. [`try_candidates`] restores the notebook with
//! the candidates first and, when that does not run to the end, again with only the proven
//! changes. What a restoration is belongs to the [`TrialSteps`] implementation (`modernize`,
//! `restore --prefer modern`, a batch); the order is decided here, on types.

/// The steps of a trial: restoring the modernized notebook with or without its candidates.
pub trait TrialSteps {
    type Restored;
    type Error;

    /// Restores the modernized notebook, with the candidate changes or only the proven ones.
    fn restore(&mut self, candidates: bool) -> Result<Self::Restored, Self::Error>;

    /// Whether the rounds' last run went to the notebook's end.
    fn ran(&self, restored: &Self::Restored) -> bool;
}

/// Whether the modernized notebook ran to its end with the changes only a warning names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CandidatesKept {
    Kept,
    Dropped,
}

impl CandidatesKept {
    /// From whether the notebook ran with its candidates (`None`: it had none).
    pub fn of(ran_with_candidates: Option<bool>) -> Option<Self> {
        ran_with_candidates.map(|ran| if ran { Self::Kept } else { Self::Dropped })
    }
}

/// What a trial did.
#[derive(Debug)]
pub struct CandidateRun<R, E> {
    /// The restoration kept: with the candidates when it ran to the end, else without.
    pub kept: Result<R, E>,
    /// The restoration with the candidates, when it did not run and was set aside (its
    /// environments are the caller's to remove).
    pub dropped: Option<Result<R, E>>,
    /// Whether the notebook ran with its candidates; `None` when it had none.
    pub ran_with_candidates: Option<bool>,
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
            dropped: None,
            ran_with_candidates: None,
        };
    }
    let with = steps.restore(true);
    if matches!(&with, Ok(r) if steps.ran(r)) {
        return CandidateRun {
            kept: with,
            dropped: None,
            ran_with_candidates: Some(true),
        };
    }
    CandidateRun {
        kept: steps.restore(false),
        dropped: Some(with),
        ran_with_candidates: Some(false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Scripted restorations: whether the notebook runs with and without its candidates
    /// (or an error), and the log of what was restored.
    struct Script {
        with: Result<bool, &'static str>,
        without: Result<bool, &'static str>,
        log: Vec<bool>,
    }

    impl TrialSteps for Script {
        type Restored = (bool, bool);
        type Error = &'static str;

        fn restore(&mut self, candidates: bool) -> Result<(bool, bool), &'static str> {
            self.log.push(candidates);
            let ran = if candidates { self.with } else { self.without };
            ran.map(|r| (candidates, r))
        }

        fn ran(&self, restored: &(bool, bool)) -> bool {
            restored.1
        }
    }

    fn script(with: Result<bool, &'static str>, without: Result<bool, &'static str>) -> Script {
        Script {
            with,
            without,
            log: Vec::new(),
        }
    }

    #[test]
    fn candidates_that_run_are_kept_without_a_second_run() {
        let mut s = script(Ok(true), Ok(true));
        let done = try_candidates(&mut s, true);
        assert_eq!(s.log, [true]);
        assert_eq!(done.kept, Ok((true, true)));
        assert_eq!(done.ran_with_candidates, Some(true));
        assert!(done.dropped.is_none());
    }

    #[test]
    fn candidates_that_do_not_run_are_dropped() {
        // The run stops: the proven changes alone are restored, and kept even when they do
        // not run either (the caller falls back from there).
        for without in [Ok(true), Ok(false), Err("no resolution")] {
            let mut s = script(Ok(false), without);
            let done = try_candidates(&mut s, true);
            assert_eq!(s.log, [true, false]);
            assert_eq!(done.kept, without.map(|r| (false, r)));
            assert_eq!(done.dropped, Some(Ok((true, false))));
            assert_eq!(done.ran_with_candidates, Some(false));
        }
        // An error with them is no better than a stop.
        let mut s = script(Err("install failed"), Ok(true));
        let done = try_candidates(&mut s, true);
        assert_eq!(s.log, [true, false]);
        assert_eq!(done.kept, Ok((false, true)));
        assert_eq!(done.dropped, Some(Err("install failed")));
    }

    #[test]
    fn without_candidates_one_run() {
        let mut s = script(Ok(true), Ok(false));
        let done = try_candidates(&mut s, false);
        assert_eq!(s.log, [false]);
        assert_eq!(done.kept, Ok((false, false)));
        assert_eq!(done.ran_with_candidates, None);
    }
}
