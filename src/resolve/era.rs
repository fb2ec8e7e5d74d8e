//! The notebook's era: the date it last ran for its author, as a preference for every release
//! a resolution chooses (roots and dependencies alike). A notebook of 2017 meets the libraries
//! of 2017 first, and today's only where nothing of its time installs: protobuf 4 under a
//! tensorflow 1.15 of 2021 is what a resolution without an era gets.
//!
//! The date is the notebook's last commit, else the newest upload among the releases its
//! stored outputs show it ran with (a printed `__version__`, pip's `Successfully installed`);
//! `--date DATE` sets it, `--date none` turns the preference off.

use std::path::Path;

use jiff::Timestamp;
use serde::Serialize;

/// How the era is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EraChoice {
    /// From the notebook's record (the default).
    #[default]
    Auto,
    /// The user's date.
    At(Timestamp),
    /// No preference: the newest release a range allows.
    Off,
}

/// Where the era's date came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum EraSource {
    /// `--date DATE`.
    Asked,
    /// The notebook's last commit in its git repository.
    LastCommit,
    /// The newest release the notebook's stored outputs show it ran with.
    StoredVersion { dist: String, version: String },
}

/// The notebook's era.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Era {
    /// The day, as its source gives it.
    pub date: Timestamp,
    pub source: EraSource,
}

impl Era {
    /// The era as asked, or from the notebook's git history; `None` when off or when the
    /// notebook has no commit (the session may still find one in its stored outputs).
    pub fn of_notebook(choice: EraChoice, notebook: &Path) -> Option<Era> {
        match choice {
            EraChoice::Off => None,
            EraChoice::At(date) => Some(Era {
                date,
                source: EraSource::Asked,
            }),
            EraChoice::Auto => crate::notebook::last_commit_date(notebook).map(|date| Era {
                date,
                source: EraSource::LastCommit,
            }),
        }
    }

    /// The instant releases are preferred before: the end of the era's day (UTC), so that
    /// what was on the index the day the notebook was committed counts.
    pub fn prefer_before(&self) -> Timestamp {
        end_of_day(self.date)
    }

    /// `2017-03-02`.
    pub fn day(&self) -> String {
        self.date.strftime("%Y-%m-%d").to_string()
    }

    /// Why this date, in a reader's words.
    pub fn why(&self) -> String {
        match &self.source {
            EraSource::Asked => "asked for with --date".to_string(),
            EraSource::LastCommit => "the notebook's last commit".to_string(),
            EraSource::StoredVersion { dist, version } => {
                format!("its stored outputs show {dist} {version}")
            }
        }
    }
}

/// The first instant of the day after `t`'s (UTC).
pub fn end_of_day(t: Timestamp) -> Timestamp {
    t.to_zoned(jiff::tz::TimeZone::UTC)
        .date()
        .tomorrow()
        .ok()
        .and_then(|d| d.to_zoned(jiff::tz::TimeZone::UTC).ok())
        .map_or(t, |z| z.timestamp())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_era_ends_with_its_day() {
        let era = Era {
            date: "2017-03-02T15:04:05Z".parse().unwrap(),
            source: EraSource::Asked,
        };
        assert_eq!(
            era.prefer_before(),
            "2017-03-03T00:00:00Z".parse::<Timestamp>().unwrap()
        );
        assert_eq!(era.day(), "2017-03-02");
    }

    #[test]
    fn off_is_none_and_a_date_is_asked() {
        let p = Path::new("/nonexistent/nb.ipynb");
        assert_eq!(Era::of_notebook(EraChoice::Off, p), None);
        assert_eq!(Era::of_notebook(EraChoice::Auto, p), None);
        let at: Timestamp = "2016-01-01T00:00:00Z".parse().unwrap();
        assert_eq!(
            Era::of_notebook(EraChoice::At(at), p).unwrap().source,
            EraSource::Asked
        );
    }
}
