//! When each CPython minor version came out: old notebooks ran on the Python of their time,
//! and old wheels only exist for the interpreters of their time.

use jiff::civil::{date, Date};
use jiff::tz::TimeZone;
use jiff::Timestamp;

use super::version::PythonVersion;

/// (major, minor, first release).
const RELEASES: &[(u8, u8, Date)] = &[
    (2, 7, date(2010, 7, 3)),
    (3, 3, date(2012, 9, 29)),
    (3, 4, date(2014, 3, 16)),
    (3, 5, date(2015, 9, 13)),
    (3, 6, date(2016, 12, 23)),
    (3, 7, date(2018, 6, 27)),
    (3, 8, date(2019, 10, 14)),
    (3, 9, date(2020, 10, 5)),
    (3, 10, date(2021, 10, 4)),
    (3, 11, date(2022, 10, 24)),
    (3, 12, date(2023, 10, 2)),
    (3, 13, date(2024, 10, 7)),
    (3, 14, date(2025, 10, 7)),
];

/// The day `version`'s minor series was first released, if known.
pub fn released_on(version: PythonVersion) -> Option<Date> {
    RELEASES
        .iter()
        .find(|(ma, mi, _)| *ma == version.major && *mi == version.minor)
        .map(|(_, _, d)| *d)
}

/// Orders candidate interpreter versions for software published at `time`: those already
/// released by then (on that UTC day), newest first, then later ones, oldest first.
pub fn by_fitness_for(time: Option<Timestamp>, versions: &mut [PythonVersion]) {
    let Some(time) = time else {
        versions.sort_by(|a, b| b.cmp(a));
        return;
    };
    let day = time.to_zoned(TimeZone::UTC).date();
    versions.sort_by(|a, b| {
        let a_then = released_on(*a).is_some_and(|d| d <= day);
        let b_then = released_on(*b).is_some_and(|d| d <= day);
        match (a_then, b_then) {
            (true, true) => b.cmp(a),
            (false, false) => a.cmp(b),
            (true, false) => std::cmp::Ordering::Less,
            (false, true) => std::cmp::Ordering::Greater,
        }
    });
}

/// Midnight UTC at the start of the day after `time`'s: a bound that keeps everything
/// uploaded on the same day, whatever the hour.
pub fn start_of_next_day(time: Timestamp) -> Option<Timestamp> {
    let next = time.to_zoned(TimeZone::UTC).date().tomorrow().ok()?;
    Some(next.to_zoned(TimeZone::UTC).ok()?.timestamp())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    #[test]
    fn next_day_bounds() {
        let next = |s: &str| start_of_next_day(at(s)).unwrap().to_string();
        assert_eq!(next("2019-12-31T23:59:59Z"), "2020-01-01T00:00:00Z");
        assert_eq!(next("2020-02-28T00:00:00Z"), "2020-02-29T00:00:00Z");
        assert_eq!(next("2021-02-28T12:00:00.123456Z"), "2021-03-01T00:00:00Z");
        // An offset is a point in time like any other: 01:00+02:00 is the previous UTC day.
        assert_eq!(next("2021-03-01T01:00:00+02:00"), "2021-03-01T00:00:00Z");
    }

    #[test]
    fn contemporary_interpreters_first() {
        let v = |s: &str| PythonVersion::parse(s).unwrap();
        let mut vs = vec![v("3.13"), v("3.6"), v("3.8"), v("3.11"), v("3.7")];
        by_fitness_for(Some(at("2019-11-02T10:00:00Z")), &mut vs);
        let shown: Vec<String> = vs.iter().map(ToString::to_string).collect();
        assert_eq!(shown, ["3.8", "3.7", "3.6", "3.11", "3.13"]);
        // On the release day itself the new version counts as released.
        let mut vs = vec![v("3.7"), v("3.8")];
        by_fitness_for(Some(at("2019-10-14T23:00:00Z")), &mut vs);
        assert_eq!(vs, [v("3.8"), v("3.7")]);
        by_fitness_for(None, &mut vs);
        assert_eq!(vs, [v("3.8"), v("3.7")]);
        assert_eq!(released_on(v("3.12.4")), Some(date(2023, 10, 2)));
        assert_eq!(released_on(v("3.4")), Some(date(2014, 3, 16)));
        assert_eq!(released_on(v("3.2")), None);
        // A notebook of 2014 ran on 3.4 (or 2.7) before 3.5 and 3.3.
        let mut vs = vec![v("3.3"), v("3.5"), v("3.4"), v("2.7")];
        by_fitness_for(Some(at("2014-06-01T00:00:00Z")), &mut vs);
        assert_eq!(vs, [v("3.4"), v("3.3"), v("2.7"), v("3.5")]);
    }
}
