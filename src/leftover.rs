//! Temporary files and directories a killed nbenv leaves behind, and how a later nbenv tells
//! them from those of a run still going. Each temporary name nbenv makes carries its owner:
//! the process id and the process's start time (`<pid>.<start>`), so that a reused process id
//! neither keeps a leftover alive forever nor makes a live run's file look abandoned. The
//! owner is dead when no process has that id, or the one that has it started at another time.
//! Names without an owner (made by an older nbenv) are abandoned once a day old.
//!
//! The names are `.nbenv-<kind>-<owner>-<random>` (a file or a directory), beside what they
//! become: a bank being imported, a snapshot being exported, an output being written.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, SystemTime};

/// A temporary name without an owner counts as abandoned once this old.
pub const UNOWNED_AGE: Duration = Duration::from_secs(24 * 3600);

/// The process a temporary name belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Owner {
    pid: u32,
    /// When it started, in clock ticks since boot (`/proc/<pid>/stat`); `None` in names made
    /// with the id alone, or where `/proc` is missing.
    start: Option<u64>,
}

impl Owner {
    /// This process.
    pub fn me() -> Self {
        static ME: OnceLock<Owner> = OnceLock::new();
        *ME.get_or_init(|| {
            let pid = std::process::id();
            Owner {
                pid,
                start: start_time(pid),
            }
        })
    }

    /// How it is written in a name: `<pid>.<start>`, or `<pid>` alone.
    pub fn tag(&self) -> String {
        match self.start {
            Some(start) => format!("{}.{start}", self.pid),
            None => self.pid.to_string(),
        }
    }

    /// Reads [`Owner::tag`].
    pub fn parse(tag: &str) -> Option<Self> {
        let (pid, start) = match tag.split_once('.') {
            Some((pid, start)) => (pid, Some(start.parse().ok()?)),
            None => (tag, None),
        };
        let pid: u32 = pid.parse().ok()?;
        (pid > 0).then_some(Self { pid, start })
    }

    /// Whether the process is still running (a zombie has ended).
    pub fn is_alive(&self) -> bool {
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{}/stat", self.pid)) else {
            if Path::new("/proc/self/stat").exists() {
                return false;
            }
            // No /proc: whether the id is taken at all.
            let Ok(pid) = libc::pid_t::try_from(self.pid) else {
                return false;
            };
            // SAFETY: signal 0 only checks that the process exists; nothing is sent.
            let alive = unsafe { libc::kill(pid, 0) } == 0;
            return alive || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM);
        };
        let Some((state, started)) = parse_stat(&stat) else {
            return false;
        };
        state != 'Z' && self.start.is_none_or(|s| s == started)
    }
}

/// The state and the start time of `/proc/<pid>/stat`: after the command's closing
/// parenthesis come the state (field 3) and, 19 fields on, the start time (field 22).
fn parse_stat(stat: &str) -> Option<(char, u64)> {
    let rest = stat.rsplit_once(')')?.1;
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let start = fields.nth(18)?.parse().ok()?;
    Some((state, start))
}

fn start_time(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    parse_stat(&stat).map(|(_, start)| start)
}

/// What a temporary name is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A bank being imported, beside the bank.
    Import,
    /// An export's scratch directory, beside the snapshot.
    Export,
    /// A snapshot being written, beside it.
    Snapshot,
    /// An output file being written (requirements, locks, reports), beside it.
    Write,
    /// A tool's environment being installed, in nbenv's tools directory.
    Tool,
    /// A modernized notebook being restored, beside the original (`--prefer modern`).
    Modern,
}

impl Kind {
    const ALL: [Kind; 6] = [
        Kind::Import,
        Kind::Export,
        Kind::Snapshot,
        Kind::Write,
        Kind::Tool,
        Kind::Modern,
    ];

    fn word(self) -> &'static str {
        match self {
            Kind::Import => "import",
            Kind::Export => "export",
            Kind::Snapshot => "snapshot",
            Kind::Write => "write",
            Kind::Tool => "tool",
            Kind::Modern => "modern",
        }
    }
}

/// The prefix of a temporary name of `kind` this process makes; a random part follows.
pub fn prefix(kind: Kind) -> String {
    format!(".nbenv-{}-{}-", kind.word(), Owner::me().tag())
}

/// A temporary file or directory found on disk.
#[derive(Debug, Clone)]
pub struct Leftover {
    pub path: PathBuf,
    /// Its owner is still running (or, without an owner, it is recent): not to be removed.
    pub in_use: bool,
}

/// Whether `name` is one of nbenv's temporary names, and if so whether it is in use; `age`
/// is asked only of names without an owner.
fn classify(name: &str, age: impl FnOnce() -> Option<Duration>) -> Option<bool> {
    let rest = name.strip_prefix(".nbenv-")?;
    let owned = Kind::ALL.iter().find_map(|kind| {
        let after = rest.strip_prefix(kind.word())?.strip_prefix('-')?;
        Some(after.split_once('-').and_then(|(tag, _)| Owner::parse(tag)))
    });
    let owner = match owned {
        Some(owner) => owner,
        // `.nbenv-<random>.tmp`: an output being written, by an older nbenv.
        None if rest.ends_with(".tmp") => None,
        None => return None,
    };
    Some(match owner {
        Some(owner) => owner.is_alive(),
        None => age().is_none_or(|age| age < UNOWNED_AGE),
    })
}

/// nbenv's temporary files and directories in `dir` (not below it), sorted.
pub fn temporaries_in(dir: &Path) -> Vec<Leftover> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<Leftover> = entries
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name();
            let in_use = classify(name.to_str()?, || {
                let modified = entry.metadata().and_then(|m| m.modified()).ok()?;
                SystemTime::now().duration_since(modified).ok()
            })?;
            Some(Leftover {
                path: entry.path(),
                in_use,
            })
        })
        .collect();
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

/// Removes what killed runs left in `dir`; returns how many went. Cheap (one listing of
/// `dir`), for the operations that write there to call first.
pub fn remove_abandoned_in(dir: &Path) -> usize {
    temporaries_in(dir)
        .into_iter()
        .filter(|t| !t.in_use && remove(&t.path))
        .count()
}

/// Removes a file or a directory; whether it is gone.
pub fn remove(path: &Path) -> bool {
    let removed = match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(path),
        Ok(_) => std::fs::remove_file(path),
        Err(_) => return true,
    };
    removed.is_ok() || !path.exists()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An owner that never ran: ids above the kernel's pid_max (4194304 at most).
    const DEAD: &str = "99999999.5";

    #[test]
    fn this_process_is_alive_and_a_reused_id_is_not_its_old_owner() {
        let me = Owner::me();
        assert!(me.start.is_some(), "{me:?}");
        assert_eq!(Owner::parse(&me.tag()), Some(me));
        assert!(me.is_alive());
        // The same id, started at another time: the process that made the name is gone.
        let earlier = Owner {
            pid: me.pid,
            start: me.start.map(|s| s + 1),
        };
        assert!(!earlier.is_alive());
        assert!(!Owner::parse(DEAD).unwrap().is_alive());
        assert_eq!(Owner::parse("12x"), None);
        assert_eq!(Owner::parse("0"), None);
    }

    #[test]
    fn temporaries_of_live_and_dead_owners_are_told_apart() {
        let dir = tempfile::tempdir().unwrap();
        let mine = format!("{}abc", prefix(Kind::Import));
        let names = [
            mine.as_str(),
            ".nbenv-import-99999999.5-abc",
            ".nbenv-export-99999999-abc",
            ".nbenv-snapshot-99999999.5-abc",
            ".nbenv-write-99999999.5-abc.tmp",
            ".nbenv-Xy12ab.tmp",
            ".nbenv-import-Xy12ab",
            "bank.sqlite3",
            ".nbenv-notes",
        ];
        for name in names {
            std::fs::write(dir.path().join(name), "x").unwrap();
        }
        std::fs::create_dir(dir.path().join(".nbenv-tool-99999999.5-abc")).unwrap();
        std::fs::write(dir.path().join(".nbenv-tool-99999999.5-abc/f"), "x").unwrap();
        let found: Vec<(String, bool)> = temporaries_in(dir.path())
            .into_iter()
            .map(|t| {
                let name = t.path.file_name().unwrap().to_string_lossy().into_owned();
                (name, t.in_use)
            })
            .collect();
        let expect = |name: &str, in_use: bool| {
            assert!(
                found.contains(&(name.to_string(), in_use)),
                "{name}: {found:?}"
            );
        };
        assert_eq!(found.len(), 8, "{found:?}");
        expect(&mine, true);
        expect(".nbenv-import-99999999.5-abc", false);
        expect(".nbenv-export-99999999-abc", false);
        expect(".nbenv-snapshot-99999999.5-abc", false);
        expect(".nbenv-write-99999999.5-abc.tmp", false);
        expect(".nbenv-tool-99999999.5-abc", false);
        // Without an owner and recent: left alone.
        expect(".nbenv-Xy12ab.tmp", true);
        expect(".nbenv-import-Xy12ab", true);

        assert_eq!(remove_abandoned_in(dir.path()), 5);
        let left: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(left.len(), 5, "{left:?}");
        assert!(left.contains(&mine) && left.contains(&"bank.sqlite3".to_string()));
    }
}
