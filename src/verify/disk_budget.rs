//! One budget for what verification leaves on disk: the environments nbenv built and the
//! installer caches it keeps for them inside its own cache directory (`<cache>/uv`,
//! `<cache>/pip`). A cache the user chose (`UV_CACHE_DIR`, `PIP_CACHE_DIR`) and the
//! machine's `~/.cache/uv` are never counted and never touched.
//!
//! uv installs by hard-linking files from its cache into the environment, so the two share
//! most of their bytes: everything is counted as `du` counts it, each file's blocks once, and
//! what removing something frees is what nothing kept links to. A file with links outside
//! the survey is not counted: removing what nbenv keeps would not free it.
//!
//! The order, least loss first: environments, least recently used first (never the one in
//! use, nor one another run holds); the installer caches only when removing environments
//! cannot bring the total within the budget. Even then `uv cache prune` comes first: it
//! removes only what uv can no longer reach, and keeps all a later build reuses. When that
//! is not enough, nbenv's own uv cache is cleaned whole (`uv cache clean`) and pip's removed:
//! all of it can be fetched again, the files kept environments use stay on disk through
//! their links, and cleaning frees exactly what no kept environment uses, a figure known
//! beforehand. uv's entries are not tied to the environments that linked them, so nothing
//! finer than a prune or a clean can be asked of it from outside.
//!
//! [`DiskSurvey`] is what is on disk (read by [`DiskSurvey::read`]); [`plan`] decides what
//! goes (pure); [`keep_within`] surveys, plans and removes.

use std::collections::HashMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime};

/// An installer whose cache nbenv keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Installer {
    Uv,
    Pip,
}

/// An installer's cache inside nbenv's cache directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstallerCache {
    pub installer: Installer,
    pub dir: PathBuf,
}

impl InstallerCache {
    /// nbenv's own installer caches under its cache directory `cache`: what
    /// `UV_CACHE_DIR` and `PIP_CACHE_DIR` are set to when the user has not set them.
    pub fn under(cache: &Path) -> Vec<InstallerCache> {
        [(Installer::Uv, "uv"), (Installer::Pip, "pip")]
            .into_iter()
            .map(|(installer, sub)| InstallerCache {
                installer,
                dir: cache.join(sub),
            })
            .collect()
    }
}

/// What holds bytes under the budget.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Holding {
    /// A complete environment (its root).
    Environment(PathBuf),
    InstallerCache(InstallerCache),
}

/// One file (or directory) as the survey sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileOnDisk {
    /// The device and inode its content lives in.
    pub inode: (u64, u64),
    /// Bytes its blocks take on disk.
    pub bytes: u64,
    /// Links to the inode in all (1 for a directory).
    pub links: u64,
}

#[derive(Debug, Clone)]
struct Inode {
    bytes: u64,
    links: u64,
    /// Links the survey saw.
    seen: u64,
}

/// One holder of bytes and when it was last used.
#[derive(Debug, Clone)]
pub struct Holder {
    pub holding: Holding,
    pub last_used: SystemTime,
    /// An inode index for each link seen.
    links: Vec<usize>,
}

/// What the environments and the installer caches hold on disk, file by file.
#[derive(Debug, Clone, Default)]
pub struct DiskSurvey {
    inodes: Vec<Inode>,
    index: HashMap<(u64, u64), usize>,
    holders: Vec<Holder>,
}

impl DiskSurvey {
    /// Adds what `holding` is made of.
    pub fn add(
        &mut self,
        holding: Holding,
        last_used: SystemTime,
        files: impl IntoIterator<Item = FileOnDisk>,
    ) {
        let mut links = Vec::new();
        for f in files {
            let i = *self.index.entry(f.inode).or_insert_with(|| {
                self.inodes.push(Inode {
                    bytes: f.bytes,
                    links: f.links.max(1),
                    seen: 0,
                });
                self.inodes.len() - 1
            });
            self.inodes[i].seen += 1;
            links.push(i);
        }
        self.holders.push(Holder {
            holding,
            last_used,
            links,
        });
    }

    /// Reads the complete environments under `envs` and the installer caches that exist.
    pub fn read(envs: &Path, caches: &[InstallerCache]) -> Self {
        let mut survey = Self::default();
        for (root, last_used) in super::environment::complete_environments(envs) {
            let files = walk(&root);
            survey.add(Holding::Environment(root), last_used, files);
        }
        for cache in caches.iter().filter(|c| c.dir.is_dir()) {
            survey.add(
                Holding::InstallerCache(cache.clone()),
                SystemTime::now(),
                walk(&cache.dir),
            );
        }
        survey
    }

    pub fn holders(&self) -> &[Holder] {
        &self.holders
    }

    /// Bytes counted against the budget: each inode once, none with links outside.
    pub fn counted(&self) -> u64 {
        self.inodes
            .iter()
            .filter(|i| i.seen >= i.links)
            .map(|i| i.bytes)
            .sum()
    }

    /// Bytes on disk of the largest environment (its own files, shared or not).
    pub fn largest_environment(&self) -> u64 {
        self.holders
            .iter()
            .filter(|h| matches!(h.holding, Holding::Environment(_)))
            .map(|h| h.links.iter().map(|&i| self.inodes[i].bytes).sum::<u64>())
            .max()
            .unwrap_or(0)
    }

    /// Bytes on disk of the holders `which` picks, each inode once (counted or not).
    pub fn bytes_of(&self, which: impl Fn(&Holding) -> bool) -> u64 {
        let mut seen = vec![false; self.inodes.len()];
        let mut total = 0;
        for h in self.holders.iter().filter(|h| which(&h.holding)) {
            for &i in &h.links {
                if !std::mem::replace(&mut seen[i], true) {
                    total += self.inodes[i].bytes;
                }
            }
        }
        total
    }

    /// Forgets a holder that is gone from disk: its links are gone with it.
    fn forget(&mut self, holding: &Holding) {
        let Some(at) = self.holders.iter().position(|h| h.holding == *holding) else {
            return;
        };
        let gone = self.holders.remove(at);
        for i in gone.links {
            let inode = &mut self.inodes[i];
            inode.links = inode.links.saturating_sub(1);
            inode.seen = inode.seen.saturating_sub(1);
        }
    }
}

/// Every file and directory under `dir` (itself included), links not followed.
fn walk(dir: &Path) -> Vec<FileOnDisk> {
    let of = |m: &std::fs::Metadata| FileOnDisk {
        inode: (m.dev(), m.ino()),
        bytes: m.blocks() * 512,
        links: if m.is_dir() { 1 } else { m.nlink() },
    };
    let mut files = Vec::new();
    if let Ok(m) = std::fs::symlink_metadata(dir) {
        files.push(of(&m));
    }
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let Ok(m) = entry.metadata() else { continue };
            files.push(of(&m));
            if m.is_dir() {
                stack.push(entry.path());
            }
        }
    }
    files
}

/// What to remove to come within the budget.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Eviction {
    /// Environments to remove, least recently used first.
    pub environments: Vec<PathBuf>,
    /// Whether the installer caches go too.
    pub caches: bool,
    /// Bytes counted now.
    pub counted: u64,
    /// Bytes counted once those are gone; over the budget when what is spared is.
    pub after: u64,
}

/// What to remove from `survey` so that what it counts fits in `budget` bytes: the fewest
/// least recently used environments, not `spared` ones (the one in use, those other runs
/// hold); the installer caches only when environments alone cannot fit, and then as few
/// environments as fit beside the cleaned caches. When nothing fits, everything not spared.
pub fn plan(survey: &DiskSurvey, budget: u64, spared: &[PathBuf]) -> Eviction {
    let counted = survey.counted();
    let mut eviction = Eviction {
        counted,
        after: counted,
        ..Eviction::default()
    };
    if counted <= budget {
        return eviction;
    }
    let mut environments: Vec<(&Holder, &PathBuf)> = survey
        .holders
        .iter()
        .filter_map(|h| match &h.holding {
            Holding::Environment(root) if !spared.contains(root) => Some((h, root)),
            _ => None,
        })
        .collect();
    environments.sort_by_key(|(h, _)| h.last_used);
    let caches: Vec<&Holder> = survey
        .holders
        .iter()
        .filter(|h| matches!(h.holding, Holding::InstallerCache(_)))
        .collect();
    for clean in [false, true] {
        let mut removed = vec![0u64; survey.inodes.len()];
        let mut freed = 0u64;
        let mut take = |h: &Holder, freed: &mut u64| {
            for &i in &h.links {
                removed[i] += 1;
                if removed[i] == survey.inodes[i].links {
                    *freed += survey.inodes[i].bytes;
                }
            }
        };
        if clean {
            for h in &caches {
                take(h, &mut freed);
            }
        }
        let mut taken = Vec::new();
        let mut fits = counted - freed.min(counted) <= budget;
        for (h, root) in &environments {
            if fits {
                break;
            }
            take(h, &mut freed);
            taken.push((*root).clone());
            fits = counted - freed.min(counted) <= budget;
        }
        if fits || clean {
            eviction.environments = taken;
            eviction.caches = clean && !caches.is_empty();
            eviction.after = counted - freed.min(counted);
            return eviction;
        }
    }
    unreachable!("the second pass returns")
}

/// The budget: where the environments are, nbenv's installer caches, and the bytes they
/// may hold together.
#[derive(Debug, Clone)]
pub struct DiskBudget {
    pub envs: PathBuf,
    pub caches: Vec<InstallerCache>,
    pub bytes: u64,
    /// The uv that prunes and cleans uv's cache; without one, uv's cache is removed as a
    /// directory when it must go.
    pub uv: Option<PathBuf>,
    /// The largest environment seen kept under this budget so far (shared by its clones):
    /// room is made for the next build on it, not only on the largest still kept, which
    /// after an eviction may be far smaller.
    pub largest_seen: std::sync::Arc<std::sync::atomic::AtomicU64>,
    /// Bytes the builds under way (shared by its clones: a batch's workers) are expected to
    /// take: a build makes room for itself and for these.
    pub reserved: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl DiskBudget {
    /// Notes the largest environment `survey` holds; the largest seen so far.
    fn saw(&self, survey: &DiskSurvey) -> u64 {
        use std::sync::atomic::Ordering;
        let largest = survey.largest_environment();
        self.largest_seen
            .fetch_max(largest, Ordering::Relaxed)
            .max(largest)
    }
}

/// What was done to an installer cache.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CacheStep {
    /// `uv cache prune`: what uv can no longer reach.
    Pruned,
    /// Everything in it.
    Cleaned,
    /// It could not be done: why.
    Failed(String),
}

/// What [`keep_within`] did.
#[derive(Debug, Clone, Default)]
pub struct Pruned {
    /// Environments removed, least recently used first.
    pub environments: Vec<PathBuf>,
    pub caches: Vec<(InstallerCache, CacheStep)>,
    /// Bytes counted before.
    pub counted: u64,
    /// Bytes counted after, as planned (over the budget when what is spared is).
    pub after: u64,
}

impl Pruned {
    /// Says what went, and why, through `reporter`.
    pub fn say(&self, budget: &DiskBudget, reporter: &dyn crate::reporter::Reporter) {
        let size = crate::reporter::human_size;
        let within = format!(
            "to stay within NBENV_ENV_CACHE_SIZE ({} of environments and installer caches, {} allowed)",
            size(self.counted),
            size(budget.bytes)
        );
        for gone in &self.environments {
            reporter.note(
                &format!(
                    "removed the environment {} (least recently used) {within}",
                    gone.display()
                ),
                None,
            );
        }
        for (cache, step) in &self.caches {
            let which = match cache.installer {
                Installer::Uv => "uv's cache",
                Installer::Pip => "pip's cache",
            };
            let dir = cache.dir.display();
            match step {
                CacheStep::Pruned => {
                    reporter.note(&format!("pruned {which} in {dir} {within}"), None)
                }
                CacheStep::Cleaned => {
                    reporter.note(&format!("cleaned {which} in {dir} {within}"), None)
                }
                CacheStep::Failed(why) => reporter.warn(
                    &format!("{which} in {dir} could not be pruned: {why}"),
                    None,
                ),
            }
        }
    }
}

/// How long a prune or a clean of uv's cache may take: uv waits while another uv uses the
/// cache.
const UV_CACHE_TIMEOUT: Duration = Duration::from_secs(300);

/// Brings what the budget counts within it ([`plan`], then removal): `keep` (the
/// environment just used) stays, and so do those other runs are using.
pub fn keep_within(budget: &DiskBudget, keep: &Path) -> Pruned {
    let survey = DiskSurvey::read(&budget.envs, &budget.caches);
    budget.saw(&survey);
    fit(budget, survey, budget.bytes, vec![keep.to_path_buf()])
}

/// Makes room for `builds` environments about to be built (a batch's workers each build
/// one). An environment counts only once complete, so bringing what is kept within the
/// budget after each build lets the builds under way overshoot it by their whole size (a
/// TensorFlow environment is 2 GiB): before building, what is kept is brought within the
/// budget less `builds` times the largest environment kept (at most half the budget), on
/// the guess that the next is no larger than the largest so far.
pub fn make_room(budget: &DiskBudget, builds: usize) -> Pruned {
    let survey = DiskSurvey::read(&budget.envs, &budget.caches);
    let reserve = budget
        .saw(&survey)
        .saturating_mul(builds as u64)
        .min(budget.bytes / 2);
    fit(budget, survey, budget.bytes - reserve, Vec::new())
}

/// Makes room for a build expected to take `estimate` bytes, besides what the builds under
/// way reserved: what is kept is brought within the budget less both (at most the whole
/// budget: a build larger than it overshoots whatever is evicted).
pub fn make_room_for(budget: &DiskBudget, estimate: u64) -> Pruned {
    use std::sync::atomic::Ordering;
    let survey = DiskSurvey::read(&budget.envs, &budget.caches);
    budget.saw(&survey);
    let reserve = estimate
        .saturating_add(budget.reserved.load(Ordering::Relaxed))
        .min(budget.bytes);
    fit(budget, survey, budget.bytes - reserve, Vec::new())
}

/// How much disk a build of `pins` takes, as far as the index tells: each release's largest
/// wheel for the target, times what unpacking makes of a wheel, with the installer's cache
/// of them besides. `None` when no size is known (an index that gives none, sdists only).
pub fn build_estimate(pins: &[crate::resolve::solver::Pin]) -> Option<u64> {
    let zipped: u64 = pins
        .iter()
        .filter_map(|p| {
            p.files
                .iter()
                .filter(|f| f.kind == crate::resolve::solver::LockedKind::Wheel)
                .filter_map(|f| f.size)
                .max()
        })
        .sum();
    (zipped > 0).then(|| zipped.saturating_mul(UNPACKED_PER_ZIPPED))
}

/// Bytes on disk per byte of wheel: a wheel unpacks to about three times its size (numpy
/// 1.26: 18 MiB to 60; torch 2.5: 0.9 GiB to 2.6), held once for the environment and its
/// hard links in uv's cache, and the cache keeps downloads besides.
const UNPACKED_PER_ZIPPED: u64 = 4;

/// A build's share of [`DiskBudget::reserved`], given back when the build is done.
struct Reservation<'a> {
    reserved: &'a std::sync::atomic::AtomicU64,
    bytes: u64,
}

impl<'a> Reservation<'a> {
    fn hold(reserved: &'a std::sync::atomic::AtomicU64, bytes: u64) -> Self {
        reserved.fetch_add(bytes, std::sync::atomic::Ordering::Relaxed);
        Self { reserved, bytes }
    }
}

impl Drop for Reservation<'_> {
    fn drop(&mut self) {
        self.reserved
            .fetch_sub(self.bytes, std::sync::atomic::Ordering::Relaxed);
    }
}

/// A build kept within a disk budget: how many may be building at once (a batch's workers),
/// how much it is expected to take (from the wheels it installs; when unknown, room is made
/// for the largest environment seen per builder), and who hears what pruning removed.
pub struct Budgeted<'a> {
    pub budget: &'a DiskBudget,
    pub builders: usize,
    pub estimate: Option<u64>,
    pub reporter: &'a dyn crate::reporter::Reporter,
}

/// Prepares `plan`'s environment as [`super::prepare`] does, within `budget` when one is
/// given: room is made before a build, and once the environment is ready what is kept is
/// brought within the budget, the environment itself spared. Every build (a round, a batch's
/// bare environment, `verify`) goes through here, so none escapes the budget.
pub fn prepare_within(
    plan: &super::EnvPlan,
    envs: &Path,
    installer: &crate::python::Installer,
    tools: &crate::python::Tools,
    timeout: Duration,
    budget: Option<Budgeted<'_>>,
) -> Result<super::PreparedEnv, super::EnvError> {
    let mut _held = None;
    if let Some(b) = budget.as_ref().filter(|_| !plan.is_built(envs)) {
        match b.estimate {
            Some(bytes) => {
                make_room_for(b.budget, bytes).say(b.budget, b.reporter);
                _held = Some(Reservation::hold(&b.budget.reserved, bytes));
            }
            None => make_room(b.budget, b.builders).say(b.budget, b.reporter),
        }
    }
    let env = super::prepare(plan, envs, installer, tools, timeout)?;
    if let Some(b) = budget {
        keep_within(b.budget, &env.root).say(b.budget, b.reporter);
    }
    Ok(env)
}

/// Brings what `survey` counts within `limit` bytes, sparing `spared` and what other runs
/// hold.
fn fit(
    budget: &DiskBudget,
    mut survey: DiskSurvey,
    limit: u64,
    mut spared: Vec<PathBuf>,
) -> Pruned {
    let mut eviction = plan(&survey, limit, &spared);
    let mut pruned = Pruned {
        counted: eviction.counted,
        after: eviction.after,
        ..Pruned::default()
    };
    if eviction.caches {
        let mut any = false;
        for cache in budget.caches.iter().filter(|c| c.dir.is_dir()) {
            if let Some(step) = tidy_cache(cache, budget.uv.as_deref(), false) {
                any |= step == CacheStep::Pruned;
                pruned.caches.push((cache.clone(), step));
            }
        }
        if any {
            survey = DiskSurvey::read(&budget.envs, &budget.caches);
            eviction = plan(&survey, limit, &spared);
        }
    }
    'plan: loop {
        for root in eviction.environments.clone() {
            if !super::env_lock::remove_unused(&budget.envs, &root) {
                // Another run took it since: spared, and the plan made again.
                spared.push(root);
                eviction = plan(&survey, limit, &spared);
                continue 'plan;
            }
            survey.forget(&Holding::Environment(root.clone()));
            pruned.environments.push(root);
        }
        break;
    }
    if eviction.caches {
        for cache in budget.caches.iter().filter(|c| c.dir.exists()) {
            if let Some(step) = tidy_cache(cache, budget.uv.as_deref(), true) {
                pruned.caches.push((cache.clone(), step));
            }
        }
    }
    pruned.after = eviction.after;
    pruned
}

/// Prunes one of nbenv's installer caches (`uv cache prune`: what uv can no longer reach),
/// or cleans it whole (`clean`). pip's cache has no prune: `None`, nothing done. Without a
/// uv, uv's cache is removed as a directory when cleaned, and left when pruned.
pub fn tidy_cache(cache: &InstallerCache, uv: Option<&Path>, clean: bool) -> Option<CacheStep> {
    let removed = || match std::fs::remove_dir_all(&cache.dir) {
        Ok(()) => CacheStep::Cleaned,
        Err(e) => CacheStep::Failed(e.to_string()),
    };
    match (cache.installer, uv, clean) {
        (Installer::Uv, Some(uv), false) => {
            Some(uv_cache(uv, "prune", &cache.dir, CacheStep::Pruned))
        }
        (Installer::Uv, Some(uv), true) => {
            Some(uv_cache(uv, "clean", &cache.dir, CacheStep::Cleaned))
        }
        (_, _, true) => Some(removed()),
        (_, _, false) => None,
    }
}

/// `uv cache <verb> --cache-dir <dir>`: always the directory named, never the cache uv
/// would pick by itself.
fn uv_cache(uv: &Path, verb: &str, dir: &Path, done: CacheStep) -> CacheStep {
    let mut cmd = Command::new(uv);
    cmd.args(["cache", verb, "--quiet", "--cache-dir"]).arg(dir);
    match crate::python::run_limited(cmd, b"", UV_CACHE_TIMEOUT) {
        Ok(f) if f.success() => done,
        Ok(f) => CacheStep::Failed(f.stderr_tail(3)),
        Err(e) => CacheStep::Failed(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KB: u64 = 1024;

    fn at(secs: u64) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(secs)
    }

    fn env(name: &str) -> Holding {
        Holding::Environment(PathBuf::from(name))
    }

    fn uv() -> Holding {
        Holding::InstallerCache(InstallerCache {
            installer: Installer::Uv,
            dir: "/c/uv".into(),
        })
    }

    /// A file of its own: one link.
    fn own(inode: u64, bytes: u64) -> FileOnDisk {
        FileOnDisk {
            inode: (1, inode),
            bytes,
            links: 1,
        }
    }

    /// One link of a file with `links` in all.
    fn linked(inode: u64, bytes: u64, links: u64) -> FileOnDisk {
        FileOnDisk {
            inode: (1, inode),
            bytes,
            links,
        }
    }

    fn paths(names: &[&str]) -> Vec<PathBuf> {
        names.iter().map(PathBuf::from).collect()
    }

    #[test]
    fn within_the_budget_nothing_goes() {
        let mut s = DiskSurvey::default();
        s.add(env("a"), at(1), [own(1, 4 * KB)]);
        let e = plan(&s, 4 * KB, &[]);
        assert_eq!(e.environments, Vec::<PathBuf>::new());
        assert!(!e.caches);
        assert_eq!((e.counted, e.after), (4 * KB, 4 * KB));
    }

    /// The least recently used go first, as few as fit; the one in use never.
    #[test]
    fn the_least_recently_used_environments_go_first_and_the_kept_one_never() {
        let mut s = DiskSurvey::default();
        s.add(env("new"), at(30), [own(1, 10 * KB)]);
        s.add(env("old"), at(10), [own(2, 10 * KB)]);
        s.add(env("mid"), at(20), [own(3, 10 * KB)]);
        assert_eq!(plan(&s, 20 * KB, &[]).environments, paths(&["old"]));
        assert_eq!(plan(&s, 10 * KB, &[]).environments, paths(&["old", "mid"]));
        let kept = plan(&s, 10 * KB, &paths(&["old"]));
        assert_eq!(kept.environments, paths(&["mid", "new"]));
        // Nothing fits beside the kept one when it alone is over: all else goes.
        let over = plan(&s, 5 * KB, &paths(&["new"]));
        assert_eq!(over.environments, paths(&["old", "mid"]));
        assert_eq!(over.after, 10 * KB);
    }

    /// Files uv hard-linked into an environment count once; removing the environment frees
    /// nothing its cache still links, so the cache is cleaned, and then only as many
    /// environments go as must.
    #[test]
    fn shared_files_count_once_and_the_cache_goes_when_environments_alone_cannot_fit() {
        let mut s = DiskSurvey::default();
        // Two environments of 100 KB each, linked from uv's cache, with 4 KB of their own;
        // the cache holds 50 KB no environment uses.
        s.add(env("old"), at(1), [linked(1, 100 * KB, 2), own(11, 4 * KB)]);
        s.add(env("new"), at(2), [linked(2, 100 * KB, 2), own(12, 4 * KB)]);
        s.add(
            uv(),
            at(3),
            [
                linked(1, 100 * KB, 2),
                linked(2, 100 * KB, 2),
                own(3, 50 * KB),
            ],
        );
        assert_eq!(s.counted(), 258 * KB);
        assert_eq!(
            s.bytes_of(|h| matches!(h, Holding::Environment(_))),
            208 * KB
        );
        assert_eq!(s.bytes_of(|h| *h == uv()), 250 * KB);
        // 4 KB over: the old environment's own bytes are enough.
        let e = plan(&s, 254 * KB, &paths(&["new"]));
        assert_eq!((e.environments, e.caches), (paths(&["old"]), false));
        // 50 KB over: no environment frees that while the cache links it; cleaning the cache
        // does, and no environment need go.
        let e = plan(&s, 208 * KB, &paths(&["new"]));
        assert_eq!((e.environments.clone(), e.caches), (vec![], true));
        assert_eq!(e.after, 208 * KB);
        // 100 KB over: the cache and the old environment.
        let e = plan(&s, 150 * KB, &paths(&["new"]));
        assert_eq!((e.environments, e.caches), (paths(&["old"]), true));
        assert_eq!(e.after, 104 * KB);
    }

    /// A file with links outside the survey (a cache the user chose) is not counted, and
    /// removing its environment would not free it.
    #[test]
    fn files_linked_from_outside_are_not_counted() {
        let mut s = DiskSurvey::default();
        s.add(env("a"), at(1), [linked(1, 100 * KB, 2), own(2, 4 * KB)]);
        assert_eq!(s.counted(), 4 * KB);
        assert_eq!(s.bytes_of(|_| true), 104 * KB);
        assert_eq!(plan(&s, 4 * KB, &[]).environments, Vec::<PathBuf>::new());
    }

    fn ready_env(envs: &Path, key: &str, bytes: usize, used: SystemTime) -> PathBuf {
        let root = envs.join(key);
        std::fs::create_dir_all(root.join("bin")).unwrap();
        std::fs::write(root.join("bin/python"), "").unwrap();
        std::fs::write(root.join("lib.so"), vec![1u8; bytes]).unwrap();
        let ready = root.join(super::super::environment::READY);
        std::fs::write(&ready, "{}").unwrap();
        std::fs::File::options()
            .append(true)
            .open(&ready)
            .unwrap()
            .set_modified(used)
            .unwrap();
        root
    }

    /// On disk: over the budget, the least recently used environment goes with the kernel
    /// spec nbenv registered for it; the one in use stays; uv's cache is left while
    /// environments alone fit, and cleaned when they cannot.
    #[test]
    fn keeping_within_removes_environments_their_kernels_then_the_caches() {
        let tmp = tempfile::tempdir().unwrap();
        let cache = tmp.path().join("cache");
        let envs = cache.join("envs");
        let old = ready_env(&envs, "old", 200_000, at(1_000_000));
        let new = ready_env(&envs, "new", 200_000, at(2_000_000));
        let uv_dir = cache.join("uv");
        std::fs::create_dir_all(uv_dir.join("archive-v0")).unwrap();
        std::fs::hard_link(new.join("lib.so"), uv_dir.join("archive-v0/lib.so")).unwrap();
        std::fs::write(uv_dir.join("archive-v0/other.so"), vec![2u8; 100_000]).unwrap();
        let kernels = tmp.path().join("kernels");
        let ours = kernels.join("nbenv-nb-old");
        let foreign = kernels.join("python3");
        for dir in [&ours, &foreign] {
            std::fs::create_dir_all(dir).unwrap();
            std::fs::write(
                dir.join("kernel.json"),
                r#"{"argv": [], "language": "python"}"#,
            )
            .unwrap();
        }
        super::super::kernel_spec::mark_kernel_spec(&ours, &old).unwrap();

        let budget = |bytes| DiskBudget {
            envs: envs.clone(),
            caches: InstallerCache::under(&cache),
            bytes,
            uv: None,
            largest_seen: Default::default(),
            reserved: Default::default(),
        };
        let counted = DiskSurvey::read(&envs, &InstallerCache::under(&cache)).counted();
        // Over by less than the old environment holds: it goes, the cache stays.
        let pruned = keep_within(&budget(counted - 100_000), &new);
        assert_eq!(pruned.environments, vec![old.clone()]);
        assert!(pruned.caches.is_empty(), "{pruned:?}");
        assert!(!old.exists() && new.exists() && uv_dir.exists());
        assert!(!ours.exists(), "its kernel went with it");
        assert!(
            foreign.join("kernel.json").is_file(),
            "a kernel nbenv did not mark stays"
        );
        // Over by what only the cache holds: the cache goes, the environment in use stays
        // and keeps its files.
        let counted = DiskSurvey::read(&envs, &InstallerCache::under(&cache)).counted();
        let pruned = keep_within(&budget(counted - 50_000), &new);
        assert!(pruned.environments.is_empty());
        assert_eq!(pruned.caches.len(), 1, "{pruned:?}");
        assert_eq!(pruned.caches[0].1, CacheStep::Cleaned);
        assert!(!uv_dir.exists());
        assert_eq!(std::fs::read(new.join("lib.so")).unwrap().len(), 200_000);
    }

    /// Before a build, room is made for the builds under way: what is kept goes within the
    /// budget less the largest environment per build, least recently used first, though it
    /// fits the budget itself.
    #[test]
    fn room_is_made_for_the_environments_about_to_be_built() {
        let tmp = tempfile::tempdir().unwrap();
        let envs = tmp.path().join("envs");
        let oldest = ready_env(&envs, "oldest", 100_000, at(1_000_000));
        let older = ready_env(&envs, "older", 300_000, at(2_000_000));
        let newest = ready_env(&envs, "newest", 100_000, at(3_000_000));
        let survey = DiskSurvey::read(&envs, &[]);
        assert!(survey.largest_environment() >= 300_000);
        let budget = |bytes| DiskBudget {
            envs: envs.clone(),
            caches: Vec::new(),
            bytes,
            uv: None,
            largest_seen: Default::default(),
            reserved: Default::default(),
        };
        let counted = survey.counted();
        // Within the budget, with room for one more of the largest: nothing goes.
        let pruned = make_room(&budget(counted + 2 * survey.largest_environment()), 2);
        assert!(pruned.environments.is_empty(), "{pruned:?}");
        // Within the budget, not with room for one build: the least recently used go until
        // there is.
        let pruned = make_room(&budget(counted + 250_000), 1);
        assert_eq!(pruned.environments, vec![oldest.clone()]);
        assert!(!oldest.exists() && older.exists() && newest.exists());
        // Room for two builds is at most half the budget.
        let counted = DiskSurvey::read(&envs, &[]).counted();
        let pruned = make_room(&budget(counted * 3 / 2), 100);
        assert_eq!(pruned.environments, vec![older.clone()]);
        assert!(newest.exists());
    }

    /// A build whose size the index tells makes room for itself and for the builds under way
    /// in this process, whatever the environments kept so far weigh.
    #[test]
    fn room_is_made_for_the_build_and_the_builds_under_way() {
        let tmp = tempfile::tempdir().unwrap();
        let envs = tmp.path().join("envs");
        let oldest = ready_env(&envs, "oldest", 100_000, at(1_000_000));
        let newest = ready_env(&envs, "newest", 100_000, at(3_000_000));
        let budget = DiskBudget {
            envs: envs.clone(),
            caches: Vec::new(),
            bytes: DiskSurvey::read(&envs, &[]).counted() + 250_000,
            uv: None,
            largest_seen: Default::default(),
            reserved: Default::default(),
        };
        // Room for it alone: nothing goes.
        assert!(make_room_for(&budget, 200_000).environments.is_empty());
        // Another build holds 100 kB: the least recently used goes to make room for both.
        let held = Reservation::hold(&budget.reserved, 100_000);
        assert_eq!(
            make_room_for(&budget, 200_000).environments,
            vec![oldest.clone()]
        );
        assert!(!oldest.exists() && newest.exists());
        // Given back when that build is done.
        drop(held);
        assert_eq!(
            budget.reserved.load(std::sync::atomic::Ordering::Relaxed),
            0
        );
    }

    #[test]
    fn a_builds_size_is_its_largest_wheels_unpacked() {
        use crate::resolve::solver::{LockedFile, LockedKind, Pin};
        let file = |kind, size| LockedFile {
            filename: "f".into(),
            url: "u".into(),
            sha256: None,
            kind,
            size,
            upload_time: None,
            pure_python: false,
        };
        let pin = |files| Pin {
            dist: crate::names::DistName::new("d").unwrap(),
            version: "1.0".parse().unwrap(),
            extras: vec![],
            required_by: vec![],
            files,
            held: None,
        };
        let pins = [
            // Two wheels for the target: one is installed, the larger counts.
            pin(vec![
                file(LockedKind::Wheel, Some(10)),
                file(LockedKind::Wheel, Some(30)),
            ]),
            // An sdist's size says nothing of what it builds.
            pin(vec![file(LockedKind::Sdist, Some(1_000))]),
            pin(vec![file(LockedKind::Wheel, Some(5))]),
        ];
        assert_eq!(build_estimate(&pins), Some(35 * UNPACKED_PER_ZIPPED));
        assert_eq!(build_estimate(&pins[1..2]), None);
        assert_eq!(
            build_estimate(&[pin(vec![file(LockedKind::Wheel, None)])]),
            None
        );
    }

    /// Room is made for the largest environment seen under the budget, not only the largest
    /// still kept: after a TensorFlow environment is evicted, the next build may be as large.
    #[test]
    fn room_is_made_for_the_largest_environment_seen_since_evicted() {
        let tmp = tempfile::tempdir().unwrap();
        let envs = tmp.path().join("envs");
        let large = ready_env(&envs, "large", 400_000, at(1_000_000));
        let older = ready_env(&envs, "older", 100_000, at(2_000_000));
        let newer = ready_env(&envs, "newer", 100_000, at(3_000_000));
        let roomy = DiskBudget {
            envs: envs.clone(),
            caches: Vec::new(),
            bytes: 10_000_000,
            uv: None,
            largest_seen: Default::default(),
            reserved: Default::default(),
        };
        assert!(keep_within(&roomy, &newer).environments.is_empty());
        std::fs::remove_dir_all(&large).unwrap();
        // The same budget, tighter (its clones share what was seen): 200 KB kept of 350 KB.
        let tight = DiskBudget {
            bytes: 350_000,
            ..roomy.clone()
        };
        let forgetful = DiskBudget {
            largest_seen: Default::default(),
            reserved: Default::default(),
            ..tight.clone()
        };
        assert!(
            make_room(&forgetful, 1).environments.is_empty(),
            "room for the 100 KB still kept fits"
        );
        assert_eq!(make_room(&tight, 1).environments, vec![older]);
        assert!(newer.exists());
    }

    /// An environment another run holds is spared: the next one goes instead.
    #[test]
    fn an_environment_in_use_elsewhere_is_spared() {
        let tmp = tempfile::tempdir().unwrap();
        let envs = tmp.path().join("envs");
        let oldest = ready_env(&envs, "oldest", 100_000, at(1_000_000));
        let older = ready_env(&envs, "older", 100_000, at(2_000_000));
        let kept = ready_env(&envs, "kept", 100_000, at(3_000_000));
        let lock = super::super::env_lock::lock_path(&envs, "oldest");
        let lease = super::super::env_lock::Exclusive::wait(&lock)
            .unwrap()
            .share()
            .unwrap();
        let counted = DiskSurvey::read(&envs, &[]).counted();
        let budget = DiskBudget {
            envs: envs.clone(),
            caches: Vec::new(),
            bytes: counted - 50_000,
            uv: None,
            largest_seen: Default::default(),
            reserved: Default::default(),
        };
        let pruned = keep_within(&budget, &kept);
        assert_eq!(pruned.environments, vec![older.clone()]);
        assert!(oldest.exists() && !older.exists() && kept.exists());
        drop(lease);
    }
}
