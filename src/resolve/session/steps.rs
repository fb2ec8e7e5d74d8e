//! Lazy inference's steps, done for real: the bank read again, releases indexed and
//! introspected (one writer at a time among the threads sharing the session), the
//! resolution on the planned interpreters.

use std::time::Duration;

use super::infer::{Gatherer, Resolver};
use super::{check_time, InferRun, InferSession, RememberingBank, SessionError};
use crate::bank::indexer::{
    build_reported, BuildOptions, BuildReport, BuildTarget, IndexError, Selection,
};
use crate::bank::introspect::{introspect_reported, IntrospectReport, Outcome};
use crate::names::DistName;
use crate::reporter::{count, human_size, Reporter};
use crate::resolve::evidence::Evidence;
use crate::resolve::infer::Inference;
use crate::resolve::lazy::{LazySteps, Probe};
use std::time::Instant;

pub(super) struct Steps<'a> {
    session: &'a InferSession,
    jobs: usize,
    gatherer: &'a Gatherer<'a>,
    resolver: &'a Resolver<'a>,
    reporter: &'a dyn Reporter,
    announced: bool,
    /// Archive bytes received while indexing.
    pub(super) downloaded: u64,
    deadline: Option<Instant>,
    /// Releases introspection ran (not those an earlier run could not introspect).
    pub(super) introspected: usize,
    /// Answers to forget once the bank is written.
    written: Option<&'a dyn RememberingBank>,
}

impl<'a> Steps<'a> {
    pub(super) fn new(
        session: &'a InferSession,
        jobs: usize,
        gatherer: &'a Gatherer<'a>,
        resolver: &'a Resolver<'a>,
        run: &InferRun<'a>,
        reporter: &'a dyn Reporter,
    ) -> Self {
        Self {
            session,
            jobs,
            gatherer,
            resolver,
            reporter,
            announced: false,
            downloaded: 0,
            deadline: run.deadline,
            introspected: 0,
            written: run.bank,
        }
    }

    /// The first round is announced once: what is indexed, and that it is done once.
    fn announce(&mut self, round: &[Probe]) {
        if self.announced {
            return;
        }
        let mut names: Vec<String> = round.iter().map(|p| p.dist.to_string()).collect();
        names.dedup();
        self.reporter.note(
            &format!(
                "indexing what the notebook needs of {}: the newest releases, then those \
                 around the releases where its APIs change (once; later runs read the bank)",
                names.join(", ")
            ),
            None,
        );
        self.announced = true;
    }

    fn forget_answers(&self) {
        if let Some(cached) = self.written {
            cached.forget();
        }
    }

    /// Introspects `targets` as an inference does: on this machine's interpreters, within
    /// `within`, not trying again what an earlier run could not introspect.
    fn introspect_targets(
        &self,
        targets: &[BuildTarget],
        within: Option<Duration>,
    ) -> Result<IntrospectReport, IndexError> {
        let session = self.session;
        let config = session.introspect_config(within, self.reporter);
        introspect_reported(
            &session.client,
            &session.bank_file,
            targets,
            &config,
            self.reporter,
        )
    }

    /// What introspection could not do, said once.
    fn say_introspected(&self, report: &IntrospectReport) {
        if report.gaps_kept > 0 {
            self.reporter.verbose_note(&format!(
                "{} not introspected again: an earlier run could not (`nbenv bank \
                 introspect --force` tries again)",
                count(report.gaps_kept, "release", "releases")
            ));
        }
        if report.past_deadline > 0 {
            self.reporter.note(
                &format!(
                    "the introspection budget ran out with {} not started; what \
                     static reading cannot tell of them stays unknown",
                    count(report.past_deadline, "release", "releases")
                ),
                None,
            );
        }
        for (dist, version, outcome) in &report.releases {
            if let Outcome::Gap { reason } = outcome {
                self.reporter.note(
                    &format!("could not introspect {dist} {version}: {}", gist(reason)),
                    Some(reason),
                );
            }
        }
    }
}

impl LazySteps for Steps<'_> {
    type Error = SessionError;

    fn gather(&mut self) -> Result<Evidence, SessionError> {
        check_time(self.deadline)?;
        self.gatherer.gather()
    }

    fn index(&mut self, round: &[Probe]) -> Result<(), SessionError> {
        check_time(self.deadline)?;
        let session = self.session;
        let _claim = session.claim(&dists_of(round), self.deadline, self.reporter)?;
        self.announce(round);
        for p in round {
            self.reporter.trace(&format!("indexing {p}"));
        }
        let report = build(session, &targets_of(round), self.jobs, self.reporter);
        self.forget_answers();
        let report = report?;
        self.downloaded += report.bytes_fetched;
        Ok(())
    }

    fn resolve(&mut self, evidence: Evidence) -> Result<Inference, SessionError> {
        check_time(self.deadline)?;
        self.resolver.resolve(evidence)
    }

    fn introspect(
        &mut self,
        round: &[Probe],
        within: Option<Duration>,
    ) -> Result<(), SessionError> {
        check_time(self.deadline)?;
        let _claim = self
            .session
            .claim(&dists_of(round), self.deadline, self.reporter)?;
        for p in round {
            self.reporter.trace(&format!("introspecting {p}"));
        }
        let report = self.introspect_targets(&targets_of(round), within);
        self.forget_answers();
        let report = report.map_err(|source| SessionError::Introspect {
            bank: self.session.bank_file.clone(),
            source,
        })?;
        // A release no interpreter here installs was only looked at, not run.
        self.introspected += report.releases.len().saturating_sub(report.no_interpreter);
        if report.interrupted {
            return Err(SessionError::Interrupted {
                kept: report.releases.len(),
                left: report.releases_left,
                noun: "introspected releases",
            });
        }
        self.say_introspected(&report);
        Ok(())
    }
}

/// Indexes `targets` into the session's bank; Ctrl-C ends the inference, saying what was
/// kept; releases that could not be indexed stay unknown to the evidence: said, not fatal.
fn build(
    session: &InferSession,
    targets: &[BuildTarget],
    jobs: usize,
    reporter: &dyn Reporter,
) -> Result<BuildReport, SessionError> {
    let options = BuildOptions {
        jobs,
        ..BuildOptions::default()
    };
    let report = build_reported(
        &session.client,
        &session.bank_file,
        targets,
        &options,
        reporter,
    )
    .map_err(|source| SessionError::Build {
        bank: session.bank_file.clone(),
        source,
    })?;
    if report.interrupted {
        return Err(SessionError::Interrupted {
            kept: report.releases_indexed,
            left: report.releases_left,
            noun: "releases",
        });
    }
    for failed in &report.failed {
        let version = failed
            .version
            .as_ref()
            .map(|v| format!(" {v}"))
            .unwrap_or_default();
        reporter.note(
            &format!(
                "could not index {}{version}: {}",
                failed.distribution, failed.reason
            ),
            None,
        );
    }
    Ok(report)
}

/// Indexes the whole history of each distribution the bank lacks; returns the bytes fetched.
pub(super) fn index_missing(
    session: &InferSession,
    missing: &[DistName],
    jobs: usize,
    reporter: &dyn Reporter,
) -> Result<u64, SessionError> {
    let names: Vec<String> = missing.iter().map(ToString::to_string).collect();
    reporter.note(
        &format!(
            "indexing what the bank lacks: {} (once; later runs read the bank)",
            names.join(", ")
        ),
        None,
    );
    let targets: Vec<BuildTarget> = missing
        .iter()
        .map(|name| BuildTarget {
            name: name.clone(),
            selection: Selection::All,
        })
        .collect();
    let _claim = session.claim(missing, None, reporter)?;
    let report = build(session, &targets, jobs, reporter)?;
    reporter.note(
        &format!(
            "indexed {} ({} downloaded)",
            count(report.releases_indexed, "release", "releases"),
            human_size(report.bytes_fetched)
        ),
        None,
    );
    Ok(report.bytes_fetched)
}

/// The gist of why introspection could not settle a release: one line per interpreter tried
/// (`Python 3.6: installing x==1.0 failed`), without the installer's or the interpreter's own
/// words, which `-v` and `nbenv bank introspect` show.
pub(super) fn gist(reason: &str) -> String {
    let lines: Vec<&str> = reason
        .lines()
        .filter(|l| l.starts_with("Python "))
        .map(|l| l.trim_end().trim_end_matches(':'))
        .collect();
    if lines.is_empty() {
        reason.lines().next().unwrap_or_default().to_string()
    } else {
        lines.join("; ")
    }
}

/// The distributions a round writes, each once.
fn dists_of(round: &[Probe]) -> Vec<DistName> {
    let mut dists: Vec<DistName> = round.iter().map(|p| p.dist.clone()).collect();
    dists.sort();
    dists.dedup();
    dists
}

/// A build target per release of the round (the newest for a distribution not registered
/// yet); the indexer merges those of one distribution.
fn targets_of(round: &[Probe]) -> Vec<BuildTarget> {
    round
        .iter()
        .map(|p| BuildTarget {
            name: p.dist.clone(),
            selection: match &p.version {
                Some(v) => Selection::Exact(vec![v.clone()]),
                None => Selection::Latest(1),
            },
        })
        .collect()
}
