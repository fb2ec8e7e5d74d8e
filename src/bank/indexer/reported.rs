//! [`build`] as commands and inferences run it: what happens said through a [`Reporter`] (a
//! counted task of releases, each failure beside it, with more for a reader who asks), and a
//! Ctrl-C stopping it after the releases in flight.

use std::path::Path;

use super::ReleaseOutcome;
use super::{build, BuildObserver, BuildOptions, BuildReport, BuildTarget, IndexError};
use crate::interrupt::Graceful;
use crate::names::DistName;
use crate::pypi::{IndexClient, Version};
use crate::reporter::{Reporter, Task};

/// Indexes `targets` into the bank at `bank`, saying how it goes through `reporter`.
pub fn build_reported(
    client: &IndexClient,
    bank: &Path,
    targets: &[BuildTarget],
    options: &BuildOptions,
    reporter: &dyn Reporter,
) -> Result<BuildReport, IndexError> {
    let observer = Reported {
        task: reporter.task("releases", 0),
        reporter,
    };
    let _graceful = Graceful::start();
    let report = build(client, bank, targets, options, &observer);
    observer.task.finish();
    report
}

/// A build's events as a reporter's: the build's summary lists each failure too.
struct Reported<'a> {
    task: Box<dyn Task + 'a>,
    reporter: &'a dyn Reporter,
}

impl BuildObserver for Reported<'_> {
    fn queued(&self, releases: usize) {
        self.task.set_length(releases as u64);
    }

    fn note(&self, message: &str) {
        self.task.warn(message);
    }

    fn finished(&self, name: &DistName, version: &Version, result: Result<&ReleaseOutcome, &str>) {
        self.task.advance(&format!("{name} {version}"));
        match result {
            Err(reason) => self.task.warn(&format!("{name} {version}: {reason}")),
            Ok(o) => self.reporter.verbose_note(&format!(
                "indexed {name} {version}: {} APIs, {} of {} files parsed",
                o.apis.apis.len(),
                o.counts.parsed_files,
                o.counts.source_files
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reporter::{Event, Recorder};

    /// A release that fails is said beside the task (the summary repeats it); the task
    /// counts every release, failed or not.
    #[test]
    fn each_release_advances_the_task_and_a_failure_is_a_warning_beside_it() {
        let recorder = Recorder::default();
        let observer = Reported {
            task: recorder.task("releases", 0),
            reporter: &recorder,
        };
        let name = DistName::new("toolkit").unwrap();
        let version: Version = "1.0".parse().unwrap();
        observer.queued(2);
        observer.note("toolkit: no page");
        observer.finished(&name, &version, Err("no wheel or sdist to read"));
        observer.task.finish();
        assert_eq!(
            recorder.events(),
            [
                Event::Task("releases".into()),
                Event::Length(2),
                Event::TaskWarning("toolkit: no page".into()),
                Event::Advance("toolkit 1.0".into()),
                Event::TaskWarning("toolkit 1.0: no wheel or sdist to read".into()),
                Event::Finish,
            ]
        );
    }
}
