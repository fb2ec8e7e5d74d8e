//! `--prefer modern`: the notebook moved to today's APIs and restored on today's Python
//! first, and restored in its era (its own releases and Python) when that does not run to
//! the end. The modernized notebook runs as a temporary copy beside the input ([`ModernCopy`]), so
//! that its relative data paths still work; it is removed whatever happens.
//!
//! A modernized notebook with candidate changes (successors only a warning names) runs with
//! them first, and with only the proven changes when that does not run to the end
//! ([`super::trial`]); the era comes after both.
//!
//! What each step does (the bank's facts, the rounds, printing) is the [`PreferSteps`]
//! implementation's; [`prefer`] decides only the order and the fallback, on types.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::trial::{try_candidates, CandidatesKept, TrialSteps};

/// How a notebook is restored: moved to today's APIs, or as it was, in its era.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    Modern,
    Era,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Modern => "modern",
            Mode::Era => "era",
        }
    }
}

impl std::str::FromStr for Mode {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "modern" => Ok(Mode::Modern),
            "era" => Ok(Mode::Era),
            _ => Err(format!("expected `modern` or `era`, not `{s}`")),
        }
    }
}

/// Why the kept mode was kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Why {
    /// The era was asked for: nothing modern was tried.
    Asked,
    /// The modernized notebook ran to the end.
    ModernRan,
    /// The notebook could not be modernized (not nbformat 4, the bank unreadable).
    NotModernized,
    /// The modernized notebook's rounds ended in an error (no interpreter, no resolution).
    ModernFailed,
    /// The modernized notebook's rounds stopped before its end.
    ModernStopped,
}

impl Why {
    /// The mode this reason keeps.
    pub fn mode(self) -> Mode {
        match self {
            Why::ModernRan => Mode::Modern,
            Why::Asked | Why::NotModernized | Why::ModernFailed | Why::ModernStopped => Mode::Era,
        }
    }
}

/// The steps of a preferred restoration. Production modernizes with the bank's facts and
/// runs `restore`'s rounds; tests drive the order with fakes.
pub trait PreferSteps {
    /// A modernized notebook (its bytes, its report).
    type Modernized;
    /// What a restoration's rounds gave.
    type Restored;
    type Error;

    /// Moves the notebook to the successors the bank proves (possibly none).
    fn modernize(&mut self) -> Result<Self::Modernized, Self::Error>;

    /// Whether a change of the modernized notebook rests only on a warning's word.
    fn has_candidates(&self, modern: &Self::Modernized) -> bool;

    /// Restores the modernized notebook on today's Python, with its candidate changes or
    /// only the proven ones.
    fn restore_modern(
        &mut self,
        modern: &Self::Modernized,
        candidates: bool,
    ) -> Result<Self::Restored, Self::Error>;

    /// Restores the original notebook in its era.
    fn restore_era(&mut self) -> Result<Self::Restored, Self::Error>;

    /// Whether the rounds' last run went to the notebook's end.
    fn ran(&self, restored: &Self::Restored) -> bool;
}

/// What a preferred restoration did: each attempt made, and which one is kept and why.
#[derive(Debug)]
pub struct Preferred<M, R, E> {
    pub why: Why,
    /// Modernizing, when the modern mode was preferred.
    pub modernized: Option<Result<M, E>>,
    /// The modernized notebook's rounds, when they were tried (with or without its
    /// candidates, as `candidates` says).
    pub modern: Option<Result<R, E>>,
    /// Its other rounds, when it had candidates and they did not run to the end.
    pub set_aside: Option<Result<R, E>>,
    /// What became of its candidates; `None` when it had none or was not tried.
    pub candidates: Option<CandidatesKept>,
    /// The original notebook's rounds, when the era is kept.
    pub era: Option<Result<R, E>>,
}

impl<M, R, E> Preferred<M, R, E> {
    pub fn mode(&self) -> Mode {
        self.why.mode()
    }

    /// The kept restoration.
    pub fn kept(&self) -> &Result<R, E> {
        match self.mode() {
            Mode::Modern => self.modern.as_ref(),
            Mode::Era => self.era.as_ref(),
        }
        .expect("the kept mode's attempt was made")
    }
}

/// Restores as `prefer` says: the era alone, or the modernized notebook first and the era
/// when the modernized one cannot be had or does not run to the end. A notebook with
/// nothing to move still runs modern: today's releases on today's Python are the point.
pub fn prefer<S: PreferSteps>(
    steps: &mut S,
    prefer: Mode,
) -> Preferred<S::Modernized, S::Restored, S::Error> {
    let mut done = Preferred {
        why: Why::Asked,
        modernized: None,
        modern: None,
        set_aside: None,
        candidates: None,
        era: None,
    };
    if prefer == Mode::Modern {
        let modernized = steps.modernize();
        done.why = match &modernized {
            Err(_) => Why::NotModernized,
            Ok(m) => {
                let candidates = steps.has_candidates(m);
                let tried = try_candidates(&mut Modern { steps, modern: m }, candidates);
                let why = match &tried.kept {
                    Err(_) => Why::ModernFailed,
                    Ok(r) if steps.ran(r) => Why::ModernRan,
                    Ok(_) => Why::ModernStopped,
                };
                done.modern = Some(tried.kept);
                done.set_aside = tried.set_aside;
                done.candidates = tried.candidates;
                why
            }
        };
        done.modernized = Some(modernized);
    }
    if done.mode() == Mode::Era {
        done.era = Some(steps.restore_era());
    }
    done
}

/// The modern attempt's steps, as a trial of its candidates sees them.
struct Modern<'a, S: PreferSteps> {
    steps: &'a mut S,
    modern: &'a S::Modernized,
}

impl<S: PreferSteps> TrialSteps for Modern<'_, S> {
    type Restored = S::Restored;
    type Error = S::Error;

    fn restore(&mut self, candidates: bool) -> Result<S::Restored, S::Error> {
        self.steps.restore_modern(self.modern, candidates)
    }

    fn ran(&self, restored: &S::Restored) -> bool {
        self.steps.ran(restored)
    }
}

/// The modernized notebook as a temporary file beside the original (so that its relative
/// paths still work), named as nbenv's ([`crate::leftover`]) so that a killed run's copy is
/// found and removed; removed when dropped.
#[derive(Debug)]
pub struct ModernCopy {
    file: tempfile::NamedTempFile,
}

impl ModernCopy {
    /// Writes `bytes` beside `original`, first removing what killed runs left there.
    pub fn beside(original: &Path, bytes: &[u8]) -> std::io::Result<Self> {
        let dir = match original.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        crate::leftover::remove_abandoned_in(&dir);
        let suffix = match original.extension() {
            Some(ext) => format!(".{}", ext.to_string_lossy()),
            None => ".ipynb".to_string(),
        };
        let mut file = tempfile::Builder::new()
            .prefix(&crate::leftover::prefix(crate::leftover::Kind::Modern))
            .suffix(&suffix)
            .tempfile_in(&dir)?;
        file.write_all(bytes)?;
        file.flush()?;
        Ok(Self { file })
    }

    pub fn path(&self) -> &Path {
        self.file.path()
    }
}

/// `<stem>.modern.ipynb` beside `notebook`: where a kept modernized notebook is written.
pub fn modern_path(notebook: &Path) -> PathBuf {
    beside(notebook, "modern.ipynb")
}

/// `<stem>.<ending>` beside `path` (`nb.ipynb` → `nb.modern.ipynb`).
pub(crate) fn beside(path: &Path, ending: &str) -> PathBuf {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "notebook".into());
    path.with_file_name(format!("{stem}.{ending}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scripted preferred restoration: what modernizing gives (the number of changes, or
    /// an error), what each attempt gives (whether it ran, or an error), and the log of the
    /// steps taken.
    struct Script {
        modernized: Result<usize, &'static str>,
        /// Whether the modernized notebook has candidates, and runs with them.
        candidates: Option<bool>,
        modern: Result<bool, &'static str>,
        era: Result<bool, &'static str>,
        log: Vec<String>,
    }

    impl Script {
        fn new() -> Self {
            Self {
                modernized: Ok(2),
                candidates: None,
                modern: Ok(true),
                era: Ok(true),
                log: Vec::new(),
            }
        }
    }

    impl PreferSteps for Script {
        type Modernized = usize;
        type Restored = (Mode, bool);
        type Error = &'static str;

        fn modernize(&mut self) -> Result<usize, &'static str> {
            self.log.push("modernize".into());
            self.modernized
        }

        fn has_candidates(&self, _: &usize) -> bool {
            self.candidates.is_some()
        }

        fn restore_modern(
            &mut self,
            changes: &usize,
            candidates: bool,
        ) -> Result<(Mode, bool), &'static str> {
            if candidates {
                self.log
                    .push(format!("modern with {changes} changes and candidates"));
                return Ok((Mode::Modern, self.candidates == Some(true)));
            }
            self.log.push(format!("modern with {changes} changes"));
            self.modern.map(|ran| (Mode::Modern, ran))
        }

        fn restore_era(&mut self) -> Result<(Mode, bool), &'static str> {
            self.log.push("era".into());
            self.era.map(|ran| (Mode::Era, ran))
        }

        fn ran(&self, restored: &(Mode, bool)) -> bool {
            restored.1
        }
    }

    #[test]
    fn the_era_alone_when_asked() {
        let mut s = Script::new();
        let done = prefer(&mut s, Mode::Era);
        assert_eq!(done.why, Why::Asked);
        assert_eq!(s.log, ["era"]);
        assert!(done.modernized.is_none() && done.modern.is_none());
        assert_eq!(done.kept(), &Ok((Mode::Era, true)));
    }

    #[test]
    fn a_modernized_notebook_that_runs_is_kept_without_trying_the_era() {
        let mut s = Script::new();
        let done = prefer(&mut s, Mode::Modern);
        assert_eq!(done.why, Why::ModernRan);
        assert_eq!(done.mode(), Mode::Modern);
        assert_eq!(s.log, ["modernize", "modern with 2 changes"]);
        assert!(done.era.is_none());
        assert_eq!(done.kept(), &Ok((Mode::Modern, true)));
    }

    #[test]
    fn a_modernized_notebook_that_stops_falls_back_to_the_era() {
        let mut s = Script::new();
        s.modern = Ok(false);
        let done = prefer(&mut s, Mode::Modern);
        assert_eq!(done.why, Why::ModernStopped);
        assert_eq!(done.mode(), Mode::Era);
        assert_eq!(s.log, ["modernize", "modern with 2 changes", "era"]);
        // The modern attempt is kept for the report; the era's is the result.
        assert_eq!(done.modern, Some(Ok((Mode::Modern, false))));
        assert_eq!(done.kept(), &Ok((Mode::Era, true)));

        // The era is kept even when it does not run either: it was the fallback.
        let mut s = Script::new();
        s.modern = Ok(false);
        s.era = Ok(false);
        let done = prefer(&mut s, Mode::Modern);
        assert_eq!(done.kept(), &Ok((Mode::Era, false)));
    }

    /// Nothing to move is no reason to skip today's releases on today's Python.
    #[test]
    fn nothing_to_change_still_runs_modern() {
        let mut s = Script::new();
        s.modernized = Ok(0);
        let done = prefer(&mut s, Mode::Modern);
        assert_eq!(done.why, Why::ModernRan);
        assert_eq!(s.log, ["modernize", "modern with 0 changes"]);
    }

    /// Candidates are tried first; when they do not run, the proven changes alone, then
    /// the era.
    #[test]
    fn candidates_come_before_the_proven_changes_and_the_era() {
        let mut s = Script::new();
        s.candidates = Some(true);
        let done = prefer(&mut s, Mode::Modern);
        assert_eq!(done.why, Why::ModernRan);
        assert_eq!(done.candidates, Some(CandidatesKept::Kept));
        assert_eq!(s.log, ["modernize", "modern with 2 changes and candidates"]);

        let mut s = Script::new();
        s.candidates = Some(false);
        let done = prefer(&mut s, Mode::Modern);
        assert_eq!(done.why, Why::ModernRan);
        assert_eq!(done.candidates, Some(CandidatesKept::Dropped));
        assert_eq!(done.set_aside, Some(Ok((Mode::Modern, false))));
        assert_eq!(
            s.log,
            [
                "modernize",
                "modern with 2 changes and candidates",
                "modern with 2 changes"
            ]
        );

        let mut s = Script::new();
        s.candidates = Some(false);
        s.modern = Ok(false);
        let done = prefer(&mut s, Mode::Modern);
        assert_eq!(done.why, Why::ModernStopped);
        assert_eq!(
            s.log,
            [
                "modernize",
                "modern with 2 changes and candidates",
                "modern with 2 changes",
                "era"
            ]
        );
    }

    #[test]
    fn an_error_in_the_modern_attempt_falls_back_to_the_era() {
        let mut s = Script::new();
        s.modern = Err("no interpreter");
        let done = prefer(&mut s, Mode::Modern);
        assert_eq!(done.why, Why::ModernFailed);
        assert_eq!(done.modern, Some(Err("no interpreter")));
        assert_eq!(done.kept(), &Ok((Mode::Era, true)));

        let mut s = Script::new();
        s.modernized = Err("not nbformat 4");
        let done = prefer(&mut s, Mode::Modern);
        assert_eq!(done.why, Why::NotModernized);
        assert_eq!(s.log, ["modernize", "era"]);
        assert!(done.modern.is_none());
        assert_eq!(done.kept(), &Ok((Mode::Era, true)));

        // The era's own error is the result.
        let mut s = Script::new();
        s.modern = Err("no interpreter");
        s.era = Err("out of time");
        assert_eq!(prefer(&mut s, Mode::Modern).kept(), &Err("out of time"));
    }

    #[test]
    fn the_copy_is_beside_the_original_named_as_nbenvs_and_removed_when_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let original = dir.path().join("nb.ipynb");
        let copy = ModernCopy::beside(&original, b"{}").unwrap();
        let path = copy.path().to_path_buf();
        assert_eq!(path.parent(), Some(dir.path()));
        assert_eq!(std::fs::read(&path).unwrap(), b"{}");
        let found = crate::leftover::temporaries_in(dir.path());
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].in_use);
        assert!(path.extension().is_some_and(|e| e == "ipynb"), "{path:?}");
        drop(copy);
        assert!(!path.exists());
        assert_eq!(modern_path(&original), dir.path().join("nb.modern.ipynb"));
    }
}
