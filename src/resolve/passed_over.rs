//! The interpreters a resolution tried and why each had none, told once per reason.
//!
//! A notebook whose evidence no release on the index meets fails the same way on every
//! interpreter: `restore --date 2016-03-25` printed one paragraph nine times, differing only in
//! the Python it named. Reasons that differ only there are told once, for all their
//! interpreters; and where releases were out only for want of a wheel while an sdist was there,
//! the option that builds sdists is named.

use crate::names::DistName;
use crate::python::PythonVersion;

use super::infer::PassedOver;

/// One line per distinct reason: `Python 3.6, 3.7 and 3.8 (the same on each): Because ...`,
/// where each interpreter's own name reads "that CPython".
pub fn reasons_by_python(tried: &[PassedOver]) -> Vec<String> {
    let mut groups: Vec<(String, Vec<&PassedOver>)> = Vec::new();
    for t in tried {
        let general = without_own_python(t.why.trim_end(), t.python);
        match groups.iter_mut().find(|(text, _)| *text == general) {
            Some((_, same)) => same.push(t),
            None => groups.push((general, vec![t])),
        }
    }
    groups
        .into_iter()
        .map(|(general, same)| match same.as_slice() {
            [one] => format!("Python {}: {}", one.python, one.why.trim_end()),
            _ => {
                let mut pythons: Vec<PythonVersion> = same.iter().map(|t| t.python).collect();
                pythons.sort();
                format!(
                    "Python {} (the same on each): {general}",
                    and_list(&pythons.iter().map(ToString::to_string).collect::<Vec<_>>())
                )
            }
        })
        .collect()
}

/// The distributions some interpreter's reason left out for refused sdists, each once.
fn sdists_refused(tried: &[PassedOver]) -> Vec<&DistName> {
    let mut out: Vec<&DistName> = Vec::new();
    for d in tried.iter().flat_map(|t| &t.sdists_refused) {
        if !out.contains(&d) {
            out.push(d);
        }
    }
    out
}

/// What `--allow-sdist` would do here, when some reason left sdists out.
pub fn sdist_hint(tried: &[PassedOver]) -> Option<String> {
    let dists = sdists_refused(tried);
    if dists.is_empty() {
        return None;
    }
    let names: Vec<String> = dists.iter().map(ToString::to_string).collect();
    Some(format!(
        "the releases of {} the notebook allows have no wheel for {}, only sdists, which nbenv \
         builds only when asked: --allow-sdist builds them",
        and_list(&names),
        if tried.len() == 1 {
            "that Python"
        } else {
            "those Pythons"
        }
    ))
}

/// `why` with this interpreter's name (`CPython 3.11`, not `CPython 3.11.4` nor `3.1`) as
/// "that CPython".
fn without_own_python(why: &str, python: PythonVersion) -> String {
    let own = format!("CPython {python}");
    let mut out = String::with_capacity(why.len());
    let mut rest = why;
    while let Some(at) = rest.find(&own) {
        let after = &rest[at + own.len()..];
        out.push_str(&rest[..at]);
        let continues = after.starts_with(|c: char| c.is_ascii_digit())
            || (after.starts_with('.') && after[1..].starts_with(|c: char| c.is_ascii_digit()));
        out.push_str(if continues { &own } else { "that CPython" });
        rest = after;
    }
    out.push_str(rest);
    out
}

fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tried(python: &str, why: &str, sdists: &[&str]) -> PassedOver {
        PassedOver {
            python: PythonVersion::parse(python).unwrap(),
            why: why.to_string(),
            sdists_refused: sdists.iter().map(|d| DistName::new(d).unwrap()).collect(),
        }
    }

    #[test]
    fn reasons_that_differ_only_in_their_python_are_told_once() {
        let why = |p: &str| {
            format!(
                "Because the notebook needs numpy <1.11 and numpy <1.11 cannot be installed on \
                 CPython {p} (no wheel for CPython {p}, only an sdist), the notebook's \
                 requirements cannot all be met on CPython {p}.\n"
            )
        };
        let all = [
            tried("3.7", &why("3.7"), &["numpy"]),
            tried("3.6", &why("3.6"), &["numpy"]),
            tried("3.13", "Because toolkit requires Python <3.13, ...", &[]),
            tried("3.8", &why("3.8"), &["numpy"]),
        ];
        assert_eq!(
            reasons_by_python(&all),
            [
                "Python 3.6, 3.7 and 3.8 (the same on each): Because the notebook needs numpy \
                 <1.11 and numpy <1.11 cannot be installed on that CPython (no wheel for that \
                 CPython, only an sdist), the notebook's requirements cannot all be met on that \
                 CPython.",
                "Python 3.13: Because toolkit requires Python <3.13, ...",
            ]
        );
        assert_eq!(
            sdist_hint(&all).unwrap(),
            "the releases of numpy the notebook allows have no wheel for those Pythons, only \
             sdists, which nbenv builds only when asked: --allow-sdist builds them"
        );
        assert_eq!(sdist_hint(&all[2..3]), None);
    }

    #[test]
    fn another_python_named_in_a_reason_is_left_as_it_is() {
        assert_eq!(
            without_own_python(
                "on CPython 3.1 and CPython 3.11 and CPython 3.1.2",
                PythonVersion::parse("3.1").unwrap()
            ),
            "on that CPython and CPython 3.11 and CPython 3.1.2"
        );
    }
}
