//! When each CPython minor version came out: old notebooks ran on the Python of their time,
//! and old wheels only exist for the interpreters of their time.

use super::version::PythonVersion;

/// (major, minor, first release as YYYY-MM-DD).
const RELEASES: &[(u8, u8, &str)] = &[
    (2, 7, "2010-07-03"),
    (3, 5, "2015-09-13"),
    (3, 6, "2016-12-23"),
    (3, 7, "2018-06-27"),
    (3, 8, "2019-10-14"),
    (3, 9, "2020-10-05"),
    (3, 10, "2021-10-04"),
    (3, 11, "2022-10-24"),
    (3, 12, "2023-10-02"),
    (3, 13, "2024-10-07"),
    (3, 14, "2025-10-07"),
];

/// The date (YYYY-MM-DD) `version`'s minor series was first released, if known.
pub fn released_on(version: PythonVersion) -> Option<&'static str> {
    RELEASES
        .iter()
        .find(|(ma, mi, _)| *ma == version.major && *mi == version.minor)
        .map(|(_, _, d)| *d)
}

/// Orders candidate interpreter versions for software published on `date` (an ISO 8601
/// prefix): those already released by then, newest first, then later ones, oldest first.
pub fn by_fitness_for(date: Option<&str>, versions: &mut [PythonVersion]) {
    let Some(date) = date.map(|d| d.get(..10).unwrap_or(d)) else {
        versions.sort_by(|a, b| b.cmp(a));
        return;
    };
    versions.sort_by(|a, b| {
        let a_then = released_on(*a).is_some_and(|d| d <= date);
        let b_then = released_on(*b).is_some_and(|d| d <= date);
        match (a_then, b_then) {
            (true, true) => b.cmp(a),
            (false, false) => a.cmp(b),
            (true, false) => std::cmp::Ordering::Less,
            (false, true) => std::cmp::Ordering::Greater,
        }
    });
}

/// Days since 1970-01-01 of a civil date (proleptic Gregorian).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (m + if m > 2 { -3 } else { 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// `YYYY-MM-DD...` plus `days`, as an RFC 3339 timestamp at midnight UTC.
pub fn date_plus_days(iso: &str, days: i64) -> Option<String> {
    let y: i64 = iso.get(0..4)?.parse().ok()?;
    let m: i64 = iso.get(5..7)?.parse().ok()?;
    let d: i64 = iso.get(8..10)?.parse().ok()?;
    let (y, m, d) = civil_from_days(days_from_civil(y, m, d) + days);
    Some(format!("{y:04}-{m:02}-{d:02}T00:00:00Z"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn date_arithmetic() {
        assert_eq!(
            date_plus_days("2019-12-31T23:59:59Z", 1).unwrap(),
            "2020-01-01T00:00:00Z"
        );
        assert_eq!(
            date_plus_days("2020-02-28", 1).unwrap(),
            "2020-02-29T00:00:00Z"
        );
        assert_eq!(
            date_plus_days("2021-02-28", 1).unwrap(),
            "2021-03-01T00:00:00Z"
        );
        assert!(date_plus_days("bad", 1).is_none());
    }

    #[test]
    fn contemporary_interpreters_first() {
        let v = |s: &str| PythonVersion::parse(s).unwrap();
        let mut vs = vec![v("3.13"), v("3.6"), v("3.8"), v("3.11"), v("3.7")];
        by_fitness_for(Some("2019-11-02T10:00:00Z"), &mut vs);
        let shown: Vec<String> = vs
            .iter()
            .map(|v| format!("{}.{}", v.major, v.minor))
            .collect();
        assert_eq!(shown, ["3.8", "3.7", "3.6", "3.11", "3.13"]);
    }
}
