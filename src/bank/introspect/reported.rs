//! [`introspect`] as commands and inferences run it: what happens said through a
//! [`Reporter`], and a Ctrl-C abandoning the release in flight.

use std::path::Path;
use std::time::Duration;

use super::{introspect, IntrospectConfig, IntrospectObserver, IntrospectReport, Outcome};
use crate::bank::indexer::{BuildTarget, IndexError};
use crate::interrupt::Graceful;
use crate::names::DistName;
use crate::pypi::{IndexClient, Version};
use crate::python::{Installer, InstallerOrigin, Interpreter, Tools};
use crate::reporter::{Reporter, Task};

/// Introspects `targets` into the bank at `bank`, saying how it goes through `reporter`.
pub fn introspect_reported(
    client: &IndexClient,
    bank: &Path,
    targets: &[BuildTarget],
    config: &IntrospectConfig,
    reporter: &dyn Reporter,
) -> Result<IntrospectReport, IndexError> {
    let observer = Reported {
        task: reporter.task("introspected", 0),
    };
    let _graceful = Graceful::start();
    let report = introspect(client, bank, targets, config, &observer);
    observer.task.finish();
    report
}

/// The installer `tools` give, saying where it came from when the reader should know: uv
/// installed just now, or pip (which cannot hold dependencies to a release's date).
pub fn installer_said(tools: &Tools, reporter: &dyn Reporter) -> Installer {
    let (installer, origin) = tools.installer();
    match &origin {
        InstallerOrigin::Installed { path, now: true } => reporter.note(
            &format!("uv was not on PATH: installed it into {}", path.display()),
            None,
        ),
        InstallerOrigin::Pip { why } => reporter.note(
            &format!(
                "installing with pip, which cannot hold dependencies to a release's date ({why})"
            ),
            None,
        ),
        _ => {}
    }
    installer
}

impl IntrospectConfig {
    /// What an inference asks of introspection: `bank introspect`'s defaults, within the
    /// inference's budget, and not trying again what an earlier run could not introspect.
    pub fn for_inference(
        interpreters: Vec<Interpreter>,
        installer: Installer,
        tools: Tools,
        index_url: Option<String>,
        within: Option<Duration>,
    ) -> Self {
        let mut config = IntrospectConfig::new(interpreters, installer, tools);
        config.index_url = index_url;
        config.deadline = within.map(|w| std::time::Instant::now() + w);
        config.retry_gaps = false;
        config
    }
}

/// Introspection's events as a reporter's. A release that could not be introspected is said
/// once, by the caller's summary (a command's table, an inference's note), not here as well.
struct Reported<'a> {
    task: Box<dyn Task + 'a>,
}

impl IntrospectObserver for Reported<'_> {
    fn queued(&self, releases: usize) {
        self.task.set_length(releases as u64);
    }

    fn finished(&self, name: &DistName, version: &Version, _outcome: &Outcome) {
        self.task.advance(&format!("{name} {version}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reporter::{Event, Recorder};

    /// A gap is not said beside the task: the caller's summary says it, once.
    #[test]
    fn a_release_advances_the_task_and_its_gap_is_left_to_the_summary() {
        let recorder = Recorder::default();
        let observer = Reported {
            task: recorder.task("introspected", 0),
        };
        observer.queued(1);
        observer.finished(
            &DistName::new("dynpkg").unwrap(),
            &"6.0".parse().unwrap(),
            &Outcome::Gap {
                reason: "Python 3.11: installing failed".into(),
            },
        );
        assert_eq!(
            recorder.events(),
            [
                Event::Task("introspected".into()),
                Event::Length(1),
                Event::Advance("dynpkg 6.0".into()),
            ]
        );
    }
}
