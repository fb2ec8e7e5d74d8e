//! The standard library of each known Python version, from lists generated out of real
//! interpreters by `scripts/gen-stdlib-lists` (top-level module names, one a line). Modules a
//! later version removed (`imp`, `distutils`, `asynchat`) stay in the lists of the versions
//! that had them: for those versions they are never PyPI packages. The 3.14 list is 3.13's
//! with the modules 3.14 added and removed, as the `stdlibs` package (PyPI) records them,
//! since no 3.14 interpreter was at hand; regenerate it from one when there is. The 3.5, 3.4
//! and 3.3 lists are made the same way, each from the next newer one.

use std::collections::HashMap;
use std::sync::OnceLock;

use super::python_version::KNOWN_VERSIONS;
use crate::python::{PythonRange, PythonVersion};

/// One list per entry of [`KNOWN_VERSIONS`], in the same order.
const LISTS: [&str; KNOWN_VERSIONS.len()] = [
    include_str!("stdlib/2.7.txt"),
    include_str!("stdlib/3.3.txt"),
    include_str!("stdlib/3.4.txt"),
    include_str!("stdlib/3.5.txt"),
    include_str!("stdlib/3.6.txt"),
    include_str!("stdlib/3.7.txt"),
    include_str!("stdlib/3.8.txt"),
    include_str!("stdlib/3.9.txt"),
    include_str!("stdlib/3.10.txt"),
    include_str!("stdlib/3.11.txt"),
    include_str!("stdlib/3.12.txt"),
    include_str!("stdlib/3.13.txt"),
    include_str!("stdlib/3.14.txt"),
];

/// The first Python 3 of [`KNOWN_VERSIONS`] (the one before it is 2.7).
const OLDEST_PYTHON_3: PythonVersion = KNOWN_VERSIONS[1];
const _: () = assert!(OLDEST_PYTHON_3.major == 3 && KNOWN_VERSIONS[0].major == 2);

/// A set of known versions, bit `i` standing for `KNOWN_VERSIONS[i]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VersionSet(u16);
const _: () = assert!(KNOWN_VERSIONS.len() <= u16::BITS as usize);

impl VersionSet {
    pub const ALL: VersionSet = VersionSet((1 << KNOWN_VERSIONS.len()) - 1);

    /// The known versions among `versions` (unknown ones are ignored).
    pub fn of(versions: &[PythonVersion]) -> Self {
        let mut bits = 0;
        for v in versions {
            if let Some(i) = KNOWN_VERSIONS.iter().position(|k| *k == v.feature()) {
                bits |= 1 << i;
            }
        }
        VersionSet(bits)
    }

    pub fn intersects(self, other: VersionSet) -> bool {
        self.0 & other.0 != 0
    }

    pub fn iter(self) -> impl Iterator<Item = PythonVersion> {
        KNOWN_VERSIONS
            .into_iter()
            .enumerate()
            .filter(move |(i, _)| self.0 & (1 << i) != 0)
            .map(|(_, v)| v)
    }
}

fn table() -> &'static HashMap<&'static str, VersionSet> {
    static TABLE: OnceLock<HashMap<&'static str, VersionSet>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut map: HashMap<&'static str, VersionSet> = HashMap::with_capacity(400);
        for (i, list) in LISTS.iter().enumerate() {
            for name in list.lines().map(str::trim).filter(|l| !l.is_empty()) {
                map.entry(name).or_insert(VersionSet(0)).0 |= 1 << i;
            }
        }
        map
    })
}

/// Submodules of packages the lists have that only some Pythons have, first and last
/// (inclusive) where they are bounded: the lists hold top-level names only.
const SUBMODULES: &[(&str, Option<PythonVersion>, Option<PythonVersion>)] = &[
    ("collections.abc", Some(PythonVersion::new(3, 3)), None),
    ("email.MIMEText", None, Some(PythonVersion::new(2, 7))),
    ("importlib.metadata", Some(PythonVersion::new(3, 8)), None),
    ("importlib.resources", Some(PythonVersion::new(3, 7)), None),
    ("unittest.mock", Some(PythonVersion::new(3, 3)), None),
    ("urllib.error", Some(PythonVersion::new(3, 0)), None),
    ("urllib.parse", Some(PythonVersion::new(3, 0)), None),
    ("urllib.request", Some(PythonVersion::new(3, 0)), None),
    (
        "xml.etree.cElementTree",
        None,
        Some(PythonVersion::new(3, 8)),
    ),
];

/// The known versions whose standard library has the module `name`: a top-level name, or
/// a submodule only some Pythons have (`importlib.metadata`).
pub fn versions_having(name: &str) -> Option<VersionSet> {
    if let Some((_, first, last)) = SUBMODULES.iter().find(|(path, ..)| *path == name) {
        let within = KNOWN_VERSIONS
            .into_iter()
            .filter(|v| first.is_none_or(|f| *v >= f) && last.is_none_or(|l| *v <= l))
            .collect::<Vec<_>>();
        return Some(VersionSet::of(&within));
    }
    table().get(name).copied()
}

/// Whether `name` is a standard-library module of at least one of `candidates`.
pub fn is_stdlib(name: &str, candidates: VersionSet) -> bool {
    versions_having(name).is_some_and(|v| v.intersects(candidates))
}

/// The versions a stdlib import points to, when not every known version has the module.
/// One first seen in the oldest Python 3 listed (3.3) is taken to need Python 3 only, since
/// 3.0–3.2 are not listed (`queue` and `builtins` are older); one missing after some release
/// needs a version up to that release.
pub fn version_range(name: &str) -> Option<PythonRange> {
    let set = versions_having(name)?;
    if set == VersionSet::ALL || name.starts_with('_') {
        return None;
    }
    let present: Vec<PythonVersion> = set.iter().collect();
    let first = *present.first()?;
    let last = *present.last()?;
    let min = if first == KNOWN_VERSIONS[0] {
        None
    } else if first == OLDEST_PYTHON_3 {
        Some(PythonVersion::new(3, 0))
    } else {
        Some(first)
    };
    let max = (last != KNOWN_VERSIONS[KNOWN_VERSIONS.len() - 1]).then_some(last);
    // `ensurepip` is in 2.7 (since 2.7.9) and 3.4 on, not in 3.3: that says nothing.
    (min.is_some() || max.is_some()).then_some(PythonRange { min, max })
}

/// Module-level names a Python removed from its standard library, `module.name X.Y` with X.Y
/// the first version without it, generated out of real interpreters (3.6 and later) by
/// `scripts/gen-stdlib-removed`.
const REMOVED: &str = include_str!("stdlib/removed.txt");

/// The first Python whose standard library no longer has `api` (`inspect.getargspec`: 3.11),
/// when a listed Python removed it.
pub fn removed_in(api: &str) -> Option<PythonVersion> {
    static TABLE: OnceLock<HashMap<&'static str, PythonVersion>> = OnceLock::new();
    TABLE
        .get_or_init(|| {
            REMOVED
                .lines()
                .filter_map(|line| {
                    let (name, version) = line.split_once(' ')?;
                    Some((name, PythonVersion::parse(version)?))
                })
                .collect()
        })
        .get(api)
        .copied()
}

/// The Pythons that still have `api` of the standard library, when a later one removed it:
/// up to the last known version before the removal.
pub fn api_range(api: &str) -> Option<PythonRange> {
    let gone = removed_in(api)?;
    let last = KNOWN_VERSIONS.into_iter().rev().find(|v| *v < gone)?;
    Some(PythonRange::at_most(last))
}

const BACKPORTED: &[&str] = &[
    "_dummy_thread",
    "_markupbase",
    "_thread",
    "aifc",
    "asynchat",
    "asyncio",
    "asyncore",
    "audioop",
    "builtins",
    "cgi",
    "cgitb",
    "chunk",
    "concurrent",
    "configparser",
    "contextvars",
    "copyreg",
    "crypt",
    "dataclasses",
    "distutils",
    "enum",
    "html",
    "http",
    "imghdr",
    "importlib",
    "ipaddress",
    "lzma",
    "mailcap",
    "nntplib",
    "pathlib",
    "pipes",
    "queue",
    "reprlib",
    "selectors",
    "smtpd",
    "sndhdr",
    "socketserver",
    "statistics",
    "sunau",
    "telnetlib",
    "tkinter",
    "typing",
    "uu",
    "winreg",
    "xdrlib",
    "xmlrpc",
];

/// Modules that a PyPI package also provides on versions whose standard library lacks them
/// (`enum34`, `pathlib2`, `future`'s `queue`, `standard-imghdr`, setuptools' `distutils`), so
/// importing them only weakly suggests a version.
pub fn has_backport(name: &str) -> bool {
    BACKPORTED.binary_search(&name).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_a_python_removed_bound_the_python() {
        assert_eq!(
            removed_in("inspect.getargspec"),
            Some(PythonVersion::new(3, 11))
        );
        // Deprecated names a module's `__getattr__` still served count as there.
        assert_eq!(
            removed_in("collections.Mapping"),
            Some(PythonVersion::new(3, 10))
        );
        assert_eq!(
            api_range("fractions.gcd"),
            Some(PythonRange::at_most(PythonVersion::new(3, 8)))
        );
        assert_eq!(removed_in("inspect.getfullargspec"), None);
        assert_eq!(api_range("os.path.join"), None);
    }

    #[test]
    fn submodules_some_pythons_lack_have_their_own_range() {
        let range = version_range("importlib.metadata").unwrap();
        assert_eq!(range.min, Some(PythonVersion::new(3, 8)));
        assert_eq!(range.max, None);
        let range = version_range("xml.etree.cElementTree").unwrap();
        assert_eq!(
            (range.min, range.max),
            (None, Some(PythonVersion::new(3, 8)))
        );
        assert_eq!(version_range("importlib"), None);
    }

    #[test]
    fn removed_and_added_modules() {
        let py312 = VersionSet::of(&[PythonVersion::new(3, 12)]);
        let py27 = VersionSet::of(&[PythonVersion::new(2, 7)]);
        assert!(is_stdlib("imp", VersionSet::ALL));
        assert!(!is_stdlib("imp", py312));
        assert!(is_stdlib("distutils", py27));
        assert!(is_stdlib(
            "asynchat",
            VersionSet::of(&[PythonVersion::new(3, 11)])
        ));
        assert!(is_stdlib("urllib2", py27) && !is_stdlib("urllib2", py312));
        assert!(!is_stdlib("numpy", VersionSet::ALL));
        assert!(is_stdlib("os", py312) && is_stdlib("sys", py27));
        assert_eq!(
            version_range("imp"),
            Some(PythonRange::at_most(PythonVersion::new(3, 11)))
        );
        assert_eq!(
            version_range("tomllib"),
            Some(PythonRange::at_least(PythonVersion::new(3, 11)))
        );
        assert_eq!(
            version_range("cPickle"),
            Some(PythonRange::at_most(PythonVersion::new(2, 7)))
        );
        assert_eq!(version_range("os"), None);
    }

    #[test]
    fn python_3_3_to_3_5() {
        let only = |minor| VersionSet::of(&[PythonVersion::new(3, minor)]);
        let since = |name: &str, minor| {
            (3..=6).all(|m| is_stdlib(name, only(m)) == (m >= minor))
                && version_range(name) == Some(PythonRange::at_least(PythonVersion::new(3, minor)))
        };
        for name in ["asyncio", "enum", "pathlib", "statistics", "selectors"] {
            assert!(since(name, 4), "{name}");
        }
        for name in ["typing", "zipapp"] {
            assert!(since(name, 5), "{name}");
        }
        assert!(since("secrets", 6));
        assert!(!is_stdlib("ensurepip", only(3)) && is_stdlib("ensurepip", only(4)));
        assert_eq!(version_range("ensurepip"), None);
        for name in [
            "faulthandler",
            "ipaddress",
            "lzma",
            "venv",
            "imp",
            "formatter",
        ] {
            assert!((3..=5).all(|m| is_stdlib(name, only(m))), "{name}");
        }
        assert!(["asynchat", "distutils", "os", "json"]
            .iter()
            .all(|name| is_stdlib(name, only(3))));
        // New in 3.0–3.3: 3.0–3.2 are not listed, so Python 3 is all that can be said.
        assert_eq!(
            version_range("faulthandler"),
            Some(PythonRange::at_least(PythonVersion::new(3, 0)))
        );
        assert!(!is_stdlib("urllib2", only(3)) && !is_stdlib("numpy", only(5)));
    }

    #[test]
    fn backport_list_is_sorted() {
        assert!(BACKPORTED.windows(2).all(|w| w[0] < w[1]));
        assert!(has_backport("enum") && has_backport("distutils") && !has_backport("imp"));
    }
}
