//! The environment a notebook is verified in: a venv on a chosen interpreter with the
//! requirements and a kernel runtime installed together, kept in a cache keyed by what went
//! into it, so a repeated run reuses it.
//!
//! The kernel runtime is IPython below 9.1 (from 9.1 on, a cell whose first line alone is
//! indented raises IndentationError where earlier IPythons, and Jupyter then, dedented it)
//! and ipykernel, whose inline backend `%matplotlib inline` and `%config InlineBackend` need.
//! It is installed in the same command as the requirements, so the installer resolves them
//! together and the runtime cannot break what the notebook needs; the interpreter's own
//! Requires-Python picks an IPython it runs (5.x on 2.7). Everything comes as wheels, but for
//! the dependencies of older IPythons and kernels that never had one ([`RUNTIME_SDISTS`]).
//!
//! [`EnvPlan`] is what to build (pure: its key is a hash of the interpreter, the requirements'
//! text and the options); [`prepare`] builds it, or finds it built. A half-built environment
//! is never found: it is built under a temporary name and renamed when complete.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use pep508_rs::pep440_rs::Version;
use sha2::{Digest, Sha256};

use crate::disk_full::{DiskFull, Limit, Written};
use crate::names::DistName;
use crate::notebook::failure::{install_reason, InstallReason};

use crate::python::{
    InstallOptions, Installer, Interpreter, PythonVersion, Tools, Venv, VenvError,
};

/// What the kernel runtime is, as a requirement installed with the notebook's.
pub const KERNEL_RUNTIME: &str = "ipython<9.1";

/// The Jupyter kernel beside IPython in the runtime: its inline backend.
pub const KERNEL_PACKAGE: &str = "ipykernel";

/// What the kernel runtime depends on that was only ever published as sdists: IPython up to
/// 7.x needs `simplegeneric`, IPython 5 on Python 2.7 also `scandir`, and ipykernel on
/// Python 2.7 and 3.5 a tornado of before its wheels. These build even when wheels only are
/// asked for; without them a runtime of those years cannot install, and the installer
/// quietly falls back to one older still.
pub const RUNTIME_SDISTS: &[&str] = &["simplegeneric", "scandir", "tornado"];

/// File inside a complete environment: what it was built from.
pub(crate) const READY: &str = "nbenv-env.json";

/// An environment to build.
#[derive(Debug, Clone)]
pub struct EnvPlan {
    pub interpreter: Interpreter,
    /// The requirements file's text (installed with `-r`, so hashes and options in it count).
    pub requirements: String,
    /// Wheels only, unless sdists are allowed; even so, the pins the requirements' header
    /// names as built from their sdists (`# Built from sdists: ...`) are built.
    pub only_binary: bool,
    pub index_url: Option<String>,
    /// Install the kernel runtime ([`KERNEL_RUNTIME`]) too; without it the runner executes
    /// cells as plain Python with the common magics translated.
    pub kernel_runtime: bool,
    /// The newest IPython and ipykernel the runtime may be ([`runtime_of_era`]): the
    /// notebook's era.
    pub kernel_runtime_at_most: Option<super::RuntimeEra>,
    /// The IPython the notebook's cells need to stay below ([`crate::notebook::ipython_bound`]):
    /// `7` for a `from __future__` import after a magic.
    pub kernel_runtime_below: Option<Version>,
    /// Every distribution the resolution takes as a wheel, its dependencies included (empty
    /// when only the requirements are known): when the install falls back to building what
    /// the pure sdists pull in, these stay wheels, so the installer cannot take a newer
    /// release's sdist (llvmlite 0.32 under numba on Python 2.7) over the wheel the
    /// resolution chose.
    pub wheels: Vec<String>,
}

impl EnvPlan {
    /// The kernel runtime as requirements installed beside the notebook's: `ipython<9.1`,
    /// capped at the era's release, and ipykernel, whose inline backend and `InlineBackend`
    /// configuration `%matplotlib inline` and `%config InlineBackend.*` need as in Jupyter
    /// (any release the installer finds compatible with that IPython and the interpreter).
    /// When the notebook's own evidence pins IPython (`IPython.html.widgets`: IPython 3),
    /// that pin is the runtime's IPython: a second `ipython` requirement is a double
    /// requirement to pip 20 on Python 2.7. IPython before 4.0 carries its own kernel. So
    /// with ipykernel: a resolution that pins it (a dependency of `notebook` or
    /// `ipywidgets`) has the runtime's kernel already.
    pub fn runtime_requirements(&self) -> Vec<String> {
        let pins = super::repair::pinned(&self.requirements);
        let pinned = |name: &str| {
            pins.iter()
                .find(|(d, _)| d.as_str() == name)
                .map(|(_, v)| v.clone())
        };
        let era = self.kernel_runtime_at_most.as_ref();
        let kernel = match (
            pinned(KERNEL_PACKAGE),
            era.and_then(|e| e.ipykernel.as_ref()),
        ) {
            (Some(_), _) => None,
            (None, Some(v)) => Some(format!("{KERNEL_PACKAGE}<={v}")),
            (None, None) => Some(KERNEL_PACKAGE.to_string()),
        };
        match pinned("ipython") {
            None => {
                let mut ipython = KERNEL_RUNTIME.to_string();
                if let Some(era) = era {
                    ipython.push_str(&format!(",<={}", era.ipython));
                }
                if let Some(v) = &self.kernel_runtime_below {
                    ipython.push_str(&format!(",<{v}"));
                }
                std::iter::once(ipython).chain(kernel).collect()
            }
            Some(v) if v >= Version::new([4]) => kernel.into_iter().collect(),
            Some(_) => Vec::new(),
        }
    }

    /// The runtime's requirements in one phrase, for messages.
    pub fn runtime_requirement(&self) -> String {
        match self.runtime_requirements().as_slice() {
            [] => "the notebook's own IPython".to_string(),
            some => some.join(" "),
        }
    }

    /// A hash of everything the environment is built from: of the requirements, what reaches
    /// the installer, so that texts differing only in comments (a pin's reason, a new
    /// `# Not requirements:` line) share one environment rather than build a second.
    pub fn key(&self) -> String {
        let mut h = Sha256::new();
        for part in [
            self.interpreter.path.display().to_string(),
            self.interpreter.version.to_string(),
            crate::output::installed_lines(&self.requirements).join("\n"),
            self.kernel_runtime.to_string(),
            self.runtime_requirements().join(" "),
            self.only_binary.to_string(),
            self.index_url.clone().unwrap_or_default(),
        ] {
            h.update(part.as_bytes());
            h.update([0]);
        }
        h.finalize()[..10]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    /// Whether `cache` holds this environment, complete.
    pub fn is_built(&self, cache: &Path) -> bool {
        let root = cache.join(self.key());
        root.join(READY).is_file() && root.join("bin").join("python").exists()
    }
}

/// Whether the IPython of the notebook's era (last committed `when`) may run it on `python`:
/// the Python it was saved with, or one out by a year after `when`. The IPython of 2016 runs
/// on Python 3.6 (December 2016); that of 2017 fails on 3.8, two years later.
pub fn era_fits(
    nb: &crate::notebook::Notebook,
    python: PythonVersion,
    when: jiff::Timestamp,
) -> bool {
    let saved_with = nb
        .language_version
        .as_deref()
        .and_then(PythonVersion::parse);
    if saved_with.is_some_and(|v| v.feature() == python.feature()) {
        return true;
    }
    let Some(released) = crate::python::released_on(python) else {
        return false;
    };
    let day = when.to_zoned(jiff::tz::TimeZone::UTC).date();
    day.checked_add(jiff::Span::new().years(1))
        .is_ok_and(|later| released <= later)
}

/// The IPython of the notebook's era: the newest final release uploaded by `when` (the
/// notebook's last commit), from `files` (the index's IPython files). A notebook of 2018 runs
/// under the IPython of 2018, as it did then, not today's. `None` when no release is that old.
pub fn runtime_of_era(files: &[crate::pypi::DistFile], when: jiff::Timestamp) -> Option<Version> {
    let mut first_upload: std::collections::BTreeMap<&Version, jiff::Timestamp> =
        std::collections::BTreeMap::new();
    for f in files.iter().filter(|f| f.yanked.is_none()) {
        if let Some(t) = f.upload_time {
            first_upload
                .entry(&f.version)
                .and_modify(|e| *e = (*e).min(t))
                .or_insert(t);
        }
    }
    first_upload
        .into_iter()
        .filter(|(v, t)| *t <= when && !v.any_prerelease() && !v.is_post() && !v.is_dev())
        .map(|(v, _)| v.clone())
        .max()
}

/// A built environment.
#[derive(Debug, Clone, serde::Serialize)]
pub struct PreparedEnv {
    pub root: PathBuf,
    pub python: PathBuf,
    /// Found in the cache rather than built now.
    pub reused: bool,
    /// Creating the venv and installing into it; zero when reused.
    #[serde(serialize_with = "seconds")]
    pub build_time: Duration,
    #[serde(serialize_with = "seconds")]
    pub venv_time: Duration,
    #[serde(serialize_with = "seconds")]
    pub install_time: Duration,
    /// The kernel runtime as installed (`ipython==7.34.0` and what it needs that the
    /// requirements do not): its lock, never part of the requirements.
    pub kernel_runtime: Vec<String>,
    /// Dependencies of the requirements that they leave unpinned, as installed.
    pub unpinned_dependencies: Vec<String>,
    /// Held while this value (or a clone) lives: the environment is not removed under it.
    #[serde(skip)]
    pub lease: super::env_lock::EnvLease,
}

fn seconds<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64((d.as_secs_f64() * 10.0).round() / 10.0)
}

#[derive(Debug, thiserror::Error)]
pub enum EnvError {
    /// The requirements (or the kernel runtime) could not be installed: the installer's words.
    #[error("installing the requirements on Python {python} failed:\n{detail}")]
    Install { python: String, detail: String },
    #[error(transparent)]
    Venv(VenvError),
    #[error("{what} {}: {source}", path.display())]
    Io {
        what: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    /// The disk (or quota) under the environments (in the cache directory) is full; the
    /// environment half built is removed.
    #[error("{0}")]
    DiskFull(#[from] DiskFull),
}

impl EnvError {
    /// `what` (creating, writing, ...) failed on `path`, in the environments' directory.
    fn io(what: &'static str, path: &Path, source: std::io::Error) -> Self {
        match DiskFull::of_io(path, Written::Cache, &source) {
            Some(full) => EnvError::DiskFull(full),
            None => EnvError::Io {
                what,
                path: path.to_path_buf(),
                source,
            },
        }
    }
}

/// Builds the environment of `plan` under `cache` (`<cache>/<key>`), or finds it built.
pub fn prepare(
    plan: &EnvPlan,
    cache: &Path,
    installer: &Installer,
    tools: &Tools,
    timeout: Duration,
) -> Result<PreparedEnv, EnvError> {
    let root = cache.join(plan.key());
    let python = root.join("bin").join("python");
    let io = |what, path: &Path| {
        let path = path.to_path_buf();
        move |source| EnvError::io(what, &path, source)
    };
    std::fs::create_dir_all(cache).map_err(io("creating", cache))?;
    // Builds killed runs left unfinished go first.
    super::env_lock::remove_abandoned_builds(cache);
    // Another run building this environment finishes first; one using it goes on using it.
    // A built one is used under a shared hold, taken without waiting for its users (this
    // process's earlier attempts among them); only a build takes the lock exclusively.
    let lock = super::env_lock::lock_path(cache, &plan.key());
    let mut lease = None;
    if plan.is_built(cache) {
        let shared = super::env_lock::EnvLease::wait(&lock).map_err(io("locking", &lock))?;
        // Removed by the budget before the hold was had: built again below.
        lease = plan.is_built(cache).then_some(shared);
    }
    let mut held = None;
    if lease.is_none() {
        let exclusive = super::env_lock::Exclusive::wait(&lock).map_err(io("locking", &lock))?;
        // Another run built it meanwhile.
        if plan.is_built(cache) {
            lease = Some(exclusive.share().map_err(io("locking", &lock))?);
        } else {
            held = Some(exclusive);
        }
    }
    if let Some(lease) = lease {
        link_program_builds(&root);
        let (kernel_runtime, unpinned_dependencies) = beyond_requirements(&root, plan);
        // Its last use, for the budget: the least recently used go first.
        let _ = std::fs::File::options()
            .append(true)
            .open(root.join(READY))
            .and_then(|f| f.set_modified(std::time::SystemTime::now()));
        return Ok(PreparedEnv {
            root,
            python,
            kernel_runtime,
            unpinned_dependencies,
            lease,
            reused: true,
            build_time: Duration::ZERO,
            venv_time: Duration::ZERO,
            install_time: Duration::ZERO,
        });
    }
    let held = held.expect("a build holds the lock exclusively");
    let started = Instant::now();
    let building = cache.join(format!(
        ".{}-{}",
        plan.key(),
        crate::leftover::Owner::me().tag()
    ));
    if building.exists() {
        std::fs::remove_dir_all(&building).map_err(io("removing", &building))?;
    }
    let mut built = build(plan, &building, installer, tools, timeout);
    if let (Installer::Uv(_), Err(EnvError::Install { detail, .. })) = (installer, &built) {
        // uv refuses metadata that pip takes (pandas 0.19's `pytz (>=2011k)`): those old
        // releases install with pip, as they did in their day.
        if install_reason(detail) == InstallReason::InvalidMetadata {
            let _ = std::fs::remove_dir_all(&building);
            built = build(plan, &building, &Installer::Pip, tools, timeout);
        }
    }
    let (venv_time, install_time) = match built {
        Ok(times) => times,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&building);
            return Err(e);
        }
    };
    if root.exists() {
        // Left incomplete by an interrupted build: replaced.
        std::fs::remove_dir_all(&root).map_err(io("removing", &root))?;
    }
    // The runner starts `bin/python`, which finds its environment relative to itself: the
    // venv works under its final name (its console scripts' shebangs do not, and are unused).
    std::fs::rename(&building, &root).map_err(io("renaming", &building))?;
    std::fs::write(root.join(READY), ready_record(plan)).map_err(io("writing", &root))?;
    link_program_builds(&root);
    let (kernel_runtime, unpinned_dependencies) = beyond_requirements(&root, plan);
    let lease = held.share().map_err(io("locking", &lock))?;
    Ok(PreparedEnv {
        kernel_runtime,
        unpinned_dependencies,
        lease,
        root,
        python,
        reused: false,
        build_time: started.elapsed(),
        venv_time,
        install_time,
    })
}

/// One distribution installed in an environment, with what it requires there.
#[derive(Debug, Clone)]
struct Installed {
    dist: DistName,
    version: Version,
    /// Requires-Dist names whose markers hold on the environment's Python (no extras).
    requires: Vec<DistName>,
}

/// The distributions installed in the environment at `root`, read from its `.dist-info`
/// (and old `.egg-info`) directories, with their requirements evaluated for `python`.
fn installed(root: &Path, python: crate::python::PythonVersion) -> Vec<Installed> {
    let target = crate::resolve::solver::Target::new(python.feature());
    let mut found: Vec<Installed> = Vec::new();
    let lib = root.join("lib");
    for site in std::fs::read_dir(&lib).into_iter().flatten().flatten() {
        let site = site.path().join("site-packages");
        for entry in std::fs::read_dir(&site).into_iter().flatten().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let (stem, metadata) = if let Some(stem) = name.strip_suffix(".dist-info") {
                (stem, entry.path().join("METADATA"))
            } else if let Some(stem) = name.strip_suffix(".egg-info") {
                (stem, entry.path().join("PKG-INFO"))
            } else {
                continue;
            };
            // `IPython-7.34.0` (an egg-info may add `-py2.7`).
            let mut parts = stem.splitn(3, '-');
            let (Some(dist), Some(version)) = (parts.next(), parts.next()) else {
                continue;
            };
            let (Ok(dist), Ok(version)) = (DistName::new(dist), version.parse::<Version>()) else {
                continue;
            };
            let text = std::fs::read_to_string(&metadata).unwrap_or_default();
            let requires = text
                .lines()
                .take_while(|l| !l.is_empty())
                .filter_map(|l| l.strip_prefix("Requires-Dist:"))
                .filter_map(|r| crate::names::parse_requirement(r.trim()).ok())
                .filter(|r| r.evaluate_markers(target.markers(), &[]))
                .map(|r| DistName::from(&r.name))
                .collect();
            found.push(Installed {
                dist,
                version,
                requires,
            });
        }
    }
    found.sort_by(|a, b| a.dist.cmp(&b.dist));
    found.dedup_by(|a, b| a.dist == b.dist);
    found
}

/// What the environment holds beyond the plan's pins, split in two: the kernel runtime
/// (IPython, ipykernel when a Jupyter kernel was added, and what they need that the
/// requirements do not), and the requirements' own dependencies that they leave unpinned.
fn beyond_requirements(root: &Path, plan: &EnvPlan) -> (Vec<String>, Vec<String>) {
    let all = installed(root, plan.interpreter.version);
    let closure = |from: Vec<DistName>| -> Vec<DistName> {
        let mut seen: Vec<DistName> = Vec::new();
        let mut stack = from;
        while let Some(d) = stack.pop() {
            if seen.contains(&d) {
                continue;
            }
            if let Some(i) = all.iter().find(|i| i.dist == d) {
                stack.extend(i.requires.iter().cloned());
            }
            seen.push(d);
        }
        seen
    };
    let pinned: Vec<DistName> = super::repair::pinned(&plan.requirements)
        .into_iter()
        .map(|(d, _)| d)
        .collect();
    let needed = closure(pinned.clone());
    let runtime_roots = ["ipython", "ipykernel"]
        .into_iter()
        .filter_map(|n| DistName::new(n).ok())
        .collect();
    let runtime = closure(runtime_roots);
    let tools = |d: &DistName| matches!(d.as_str(), "pip" | "setuptools" | "wheel" | "distribute");
    let (mut kernel, mut dependencies) = (Vec::new(), Vec::new());
    for i in all
        .iter()
        .filter(|i| !pinned.contains(&i.dist) && !tools(&i.dist))
    {
        let pin = format!("{}=={}", i.dist, i.version);
        if runtime.contains(&i.dist) && !needed.contains(&i.dist) {
            kernel.push(pin);
        } else {
            dependencies.push(pin);
        }
    }
    (kernel, dependencies)
}

fn ready_record(plan: &EnvPlan) -> String {
    serde_json::json!({
        "interpreter": plan.interpreter.path,
        "python": plan.interpreter.version.to_string(),
        "kernel_runtime": plan.kernel_runtime.then(|| plan.runtime_requirement()),
        "only_binary": plan.only_binary,
        "requirements": plan.requirements,
    })
    .to_string()
}

fn build(
    plan: &EnvPlan,
    root: &Path,
    installer: &Installer,
    tools: &Tools,
    timeout: Duration,
) -> Result<(Duration, Duration), EnvError> {
    let started = Instant::now();
    let venv =
        Venv::create(root, &plan.interpreter, installer, tools, timeout).map_err(EnvError::Venv)?;
    let venv_time = started.elapsed();
    let file = root.join("nbenv-requirements.txt");
    let installed = crate::output::without_local_paths(&plan.requirements);
    std::fs::write(&file, installed).map_err(|source| EnvError::io("writing", &file, source))?;
    // Everything comes as wheels, but for what IPython up to 7.x needs and never had one,
    // and the pins the requirements' header says are built from their sdists.
    let mut sdists_allowed: Vec<String> = if plan.kernel_runtime {
        RUNTIME_SDISTS.iter().map(ToString::to_string).collect()
    } else {
        Vec::new()
    };
    // A pin built from its sdist may need what its sdist alone says (old sdists' metadata
    // has no Requires-Dist). When wheels for everything else do not install, a second try
    // asks wheels only of the other pins and the runtime, and what those pull in may be
    // built. Not first: then pip takes a dependency's newest sdist over its last wheel and
    // compiles it (grpcio for TensorFlow on 2.7).
    let mut only_binary_names = Vec::new();
    let mut compiled_builds = false;
    if let Some(built) = crate::output::sdists_built(&plan.requirements) {
        compiled_builds = !built.dists.is_empty() && !built.only_pure;
        sdists_allowed.extend(built.dists.iter().map(ToString::to_string));
        if !built.dists.is_empty() {
            only_binary_names = super::repair::pinned(&plan.requirements)
                .into_iter()
                .map(|(d, _)| d.to_string())
                .chain(plan.wheels.iter().cloned())
                .filter(|d| !sdists_allowed.contains(d))
                .collect();
            only_binary_names.sort();
            only_binary_names.dedup();
            if plan.kernel_runtime {
                only_binary_names.extend(["ipython".to_string(), KERNEL_PACKAGE.to_string()]);
            }
            if only_binary_names.is_empty() {
                // Nothing must be a wheel but what is listed: the flag needs a name.
                only_binary_names.push(":none:".to_string());
            }
        }
    }
    let strict = InstallOptions {
        only_binary: plan.only_binary,
        sdists_allowed,
        index_url: plan.index_url.clone(),
        timeout,
        ..InstallOptions::default()
    };
    let mut args = vec!["-r".to_string(), file.display().to_string()];
    if plan.kernel_runtime {
        args.extend(plan.runtime_requirements());
    }
    let started = Instant::now();
    // A compiled extension built from an old sdist links the numpy its build found: an old
    // `setup.py` fetches the newest one when none is installed, and the pinned numpy then
    // refuses it at import (`numpy.core.multiarray failed to import`). The pinned numpy goes
    // in first and the builds run beside it; where that fails, as they would have.
    let mut installed = match numpy_first(&plan.requirements, compiled_builds, installer) {
        Some(first) if venv.install(&first, &strict).is_ok() => venv
            .install(
                &args,
                &InstallOptions {
                    no_build_isolation: true,
                    ..strict.clone()
                },
            )
            .or_else(|_| venv.install(&args, &strict)),
        _ => venv.install(&args, &strict),
    };
    let mut options = strict;
    if installed.is_err() && plan.only_binary && !only_binary_names.is_empty() {
        options = InstallOptions {
            only_binary_names,
            ..options
        };
        installed = venv.install(&args, &options);
    }
    // An old `setup.py` that needs numpy to build (to import it, or for its headers) gets the
    // pinned numpy installed first, and builds beside it. Each try can show one more need
    // (bcolz 1.1: Cython, then setuptools_scm), so it goes on while a try names a new one.
    let pins = super::repair::pinned(&plan.requirements);
    let mut put_first: Vec<String> = Vec::new();
    while let Err(VenvError::Install { detail, .. }) = &installed {
        let mut first: Vec<String> = needed_to_build(detail)
            .into_iter()
            .filter_map(|name| match pins.iter().find(|(d, _)| d.as_str() == name) {
                Some((d, v)) => Some(format!("{d}=={v}")),
                None => build_tool_of_the_era(name).map(str::to_string),
            })
            .filter(|r| !put_first.contains(r))
            .collect();
        if first.is_empty() {
            break;
        }
        put_first.extend(first.iter().cloned());
        first.extend(build_tools(installer));
        if venv.install(&first, &options).is_err() {
            break;
        }
        options.no_build_isolation = true;
        installed = venv.install(&args, &options);
    }
    match installed {
        Ok(_) => Ok((venv_time, started.elapsed())),
        // The disk filled while installing: not the requirements' failure, and no other
        // interpreter or release would do better.
        Err(VenvError::Install { detail, .. }) => Err(match Limit::in_report(&detail) {
            Some(limit) => EnvError::DiskFull(DiskFull {
                // The environments' folder: the one half built here is removed.
                path: venv.root.parent().unwrap_or(&venv.root).to_path_buf(),
                written: Written::Cache,
                limit,
            }),
            None => EnvError::Install {
                python: plan.interpreter.version.to_string(),
                detail,
            },
        }),
        Err(e) => Err(EnvError::Venv(e)),
    }
}

/// Puts in the environment's `bin/`, under its own name, each program a distribution
/// installed there ships a build of (imageio-ffmpeg's `ffmpeg-linux64-v4.2.2` as `ffmpeg`),
/// where a system install would have had it on `PATH`. Nothing when none is installed, or
/// the link is there already.
fn link_program_builds(root: &Path) {
    let Ok(libs) = std::fs::read_dir(root.join("lib")) else {
        return;
    };
    let site_packages: Vec<PathBuf> = libs
        .flatten()
        .map(|l| l.path().join("site-packages"))
        .collect();
    for (program, build) in crate::notebook::failure::programs_from_pypi() {
        let link = root.join("bin").join(program.name);
        if link.symlink_metadata().is_ok() {
            continue;
        }
        let binary = site_packages.iter().find_map(|site| {
            std::fs::read_dir(site.join(build.folder))
                .ok()?
                .flatten()
                .map(|f| f.path())
                .find(|p| {
                    p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with(build.prefix))
                })
        });
        if let Some(binary) = binary {
            use std::os::unix::fs::PermissionsExt;
            // Wheels do not always keep the executable bit.
            let _ = std::fs::set_permissions(&binary, std::fs::Permissions::from_mode(0o755));
            let _ = std::os::unix::fs::symlink(&binary, &link);
        }
    }
}

/// What goes in before the rest when compiled sdists are built beside a pinned numpy: that
/// numpy (and the build tools uv's environments lack). `None` when nothing is compiled, or
/// numpy is not pinned.
fn numpy_first(
    requirements: &str,
    compiled_builds: bool,
    installer: &Installer,
) -> Option<Vec<String>> {
    if !compiled_builds {
        return None;
    }
    let (name, version) = super::repair::pinned(requirements)
        .into_iter()
        .find(|(d, _)| d.as_str() == "numpy")?;
    let mut first = vec![format!("{name}=={version}")];
    first.extend(build_tools(installer));
    Some(first)
}

/// The build tools an installer's fresh environment lacks: uv's have none of their own.
fn build_tools(installer: &Installer) -> Vec<String> {
    match installer {
        Installer::Uv(_) => vec!["setuptools".to_string(), "wheel".to_string()],
        _ => Vec::new(),
    }
}

/// A build tool nothing pins, as old sources need it: one of the releases they were written
/// for. Cython 3 changed what they compile to; setuptools_scm 7 asks for a setuptools newer
/// than old builds run with.
fn build_tool_of_the_era(name: &str) -> Option<&'static str> {
    match name {
        "cython" => Some("cython<3"),
        "setuptools_scm" => Some("setuptools_scm<7"),
        _ => None,
    }
}

/// The distributions a failed build needed installed before it ran, as an installer's report
/// shows: `No module named numpy` from a `setup.py`, `lap requires numpy`, or numpy's headers
/// missing (`numpy/npy_math.h: No such file or directory`); a build that came out as version
/// 0.0.0 read its version with setuptools_scm (`use_scm_version`), which builds without
/// isolation do not have unless it is installed (bcolz 1.1.2: `Package metadata version
/// `0.0.0` does not match given version`, or pip's `inconsistent version`).
fn needed_to_build(detail: &str) -> Vec<&'static str> {
    let numpy = [
        "No module named numpy",
        "No module named 'numpy'",
        "requires numpy",
    ]
    .iter()
    .any(|w| detail.contains(w))
        || detail.match_indices("numpy/").any(|(i, _)| {
            detail[i..]
                .lines()
                .next()
                .is_some_and(|l| l.contains(".h: No such file"))
        });
    // Missing, or the newest one an isolated build fetched refused the old sources (bcolz
    // 1.1.2's `carray_ext.pyx` under Cython 3).
    let cython = [
        "No module named Cython",
        "No module named 'Cython'",
        "Cython.Compiler.Errors.CompileError",
    ]
    .iter()
    .any(|w| detail.contains(w));
    let scm = detail.contains("metadata version `0.0.0`")
        || (detail.contains("inconsistent version") && detail.contains("'0.0.0'"));
    [
        ("numpy", numpy),
        ("cython", cython),
        ("setuptools_scm", scm),
    ]
    .into_iter()
    .filter(|(_, needed)| *needed)
    .map(|(name, _)| name)
    .collect()
}

/// The complete environments under `cache` with their last use (when a run last found
/// them built). Directories being built (`.<key>-<pid>`) are not among them.
pub(crate) fn complete_environments(cache: &Path) -> Vec<(PathBuf, std::time::SystemTime)> {
    std::fs::read_dir(cache)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .filter_map(|e| {
            let root = e.path();
            let last_used = std::fs::metadata(root.join(READY)).ok()?.modified().ok()?;
            Some((root, last_used))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pypi::{DistFile, DistFilename, MetadataHint};

    #[test]
    fn what_a_build_needed_first() {
        let lap = "  File \"lap/setup.py\", line 127, in get_numpy_status\n    import numpy\nImportError: No module named numpy\nImportError: lap requires numpy, please \"pip install numpy\".";
        assert_eq!(needed_to_build(lap), ["numpy"]);
        let hmmlearn = "hmmlearn/_hmmc.c:239:10: fatal error: numpy/npy_math.h: No such file or directory\nerror: command 'gcc' failed";
        assert_eq!(needed_to_build(hmmlearn), ["numpy"]);
        assert_eq!(
            needed_to_build("ModuleNotFoundError: No module named 'Cython'"),
            ["cython"]
        );
        assert_eq!(
            needed_to_build("    raise CompileError(None, pyx_file)\nCython.Compiler.Errors.CompileError: bcolz/carray_ext.pyx"),
            ["cython"]
        );
        let uv = "hint: Metadata for `bcolz` (v1.1.2) was inconsistent:\n  Package metadata version `0.0.0` does not match given version `1.1.2`";
        assert_eq!(needed_to_build(uv), ["setuptools_scm"]);
        let pip = "Discarding bcolz-1.1.2.tar.gz: Requested bcolz==1.1.2 has inconsistent version: expected '1.1.2', but metadata has '0.0.0'";
        assert_eq!(needed_to_build(pip), ["setuptools_scm"]);
        assert!(needed_to_build("error: command 'gcc' failed with exit status 1").is_empty());
    }

    #[test]
    fn a_full_disk_under_the_environments_is_its_own_error() {
        let full = std::io::Error::from_raw_os_error(28);
        let e = EnvError::io("writing", Path::new("/c/envs/k"), full);
        assert!(matches!(&e, EnvError::DiskFull(d) if d.path == Path::new("/c/envs/k")));
        let denied = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
        let e = EnvError::io("writing", Path::new("/c/envs/k"), denied);
        assert!(matches!(
            e,
            EnvError::Io {
                what: "writing",
                ..
            }
        ));
    }

    /// A built environment is used again while this process still holds it (an earlier
    /// attempt of one restoration keeps its lease until it is set aside): taking the lock
    /// exclusively first would wait on itself forever.
    #[test]
    fn a_built_environment_is_reused_while_this_process_holds_it() {
        let cache = tempfile::tempdir().unwrap();
        let plan = plan("six==1.16.0", None);
        let root = cache.path().join(plan.key());
        std::fs::create_dir_all(root.join("bin")).unwrap();
        std::fs::write(root.join("bin").join("python"), "").unwrap();
        std::fs::write(root.join(READY), ready_record(&plan)).unwrap();
        assert!(plan.is_built(cache.path()));
        let tools = Tools::new(cache.path().join("tools"), None, &[]);
        let (tx, rx) = std::sync::mpsc::channel();
        let cache_dir = cache.path().to_path_buf();
        let worker = std::thread::spawn(move || {
            let use_it = || prepare(&plan, &cache_dir, &Installer::Pip, &tools, Duration::ZERO);
            // Both held at once.
            let first = use_it().unwrap();
            let second = use_it().unwrap();
            tx.send((first.reused, second.reused)).unwrap();
        });
        let reused = rx
            .recv_timeout(Duration::from_secs(20))
            .expect("the second use of a held environment does not wait");
        assert_eq!(reused, (true, true));
        worker.join().unwrap();
    }

    /// Requirements that differ only in comments build one environment; a pin, or the header
    /// line saying which pins build from sdists, makes another.
    #[test]
    fn the_key_is_what_reaches_the_installer() {
        let key = |text: &str| plan(text, None).key();
        let base = key("# Generated by nbenv\nsix==1.16.0  # the notebook imports six\n");
        assert_eq!(
            base,
            key("six==1.16.0  # cell 2 imports six\n# Not requirements: helpers (local)\n")
        );
        assert_ne!(base, key("six==1.15.0  # the notebook imports six\n"));
        assert_ne!(
            base,
            key("# Built from sdists: six 1.16.0 (no resolution from wheels alone)\nsix==1.16.0\n")
        );
    }

    fn file(name: &str, uploaded: &str, yanked: bool) -> DistFile {
        let parsed = DistFilename::parse(name, &DistName::new("ipython").unwrap()).unwrap();
        DistFile {
            filename: name.into(),
            url: format!("https://files/{name}"),
            version: parsed.version,
            kind: parsed.kind,
            hashes: Default::default(),
            requires_python: crate::pypi::RequiresPython::Any,
            size: None,
            upload_time: Some(uploaded.parse().unwrap()),
            yanked: yanked.then(String::new),
            core_metadata: MetadataHint::Unknown,
        }
    }

    fn plan(requirements: &str, at_most: Option<&str>) -> EnvPlan {
        EnvPlan {
            wheels: Vec::new(),
            interpreter: Interpreter {
                path: "/usr/bin/python2.7".into(),
                version: crate::python::PythonVersion::new(2, 7),
            },
            requirements: requirements.into(),
            only_binary: true,
            index_url: None,
            kernel_runtime: true,
            kernel_runtime_at_most: at_most.map(|v| super::super::RuntimeEra {
                ipython: v.parse().unwrap(),
                ipykernel: None,
            }),
            kernel_runtime_below: None,
        }
    }

    /// The era's IPython runs the notebook on the Python it was saved with, or on one out by
    /// a year after its last commit, not later.
    #[test]
    fn the_eras_ipython_fits_pythons_of_its_time() {
        let nb = |version: &str| {
            let json = format!(
                r#"{{"cells": [{{"cell_type": "code", "execution_count": null, "metadata": {{}}, "outputs": [], "source": "x = 1"}}], "metadata": {{"language_info": {{"name": "python", "version": "{version}"}}}}, "nbformat": 4, "nbformat_minor": 2}}"#
            );
            crate::notebook::from_bytes(Path::new("nb.ipynb"), json.as_bytes()).unwrap()
        };
        let v = |minor| PythonVersion::new(3, minor);
        let when: jiff::Timestamp = "2016-03-29T14:46:34Z".parse().unwrap();
        // Saved with 3.5 in March 2016: 3.6 (December 2016) fits, 3.7 (June 2018) does not.
        assert!(era_fits(&nb("3.5.1"), v(5), when));
        assert!(era_fits(&nb("3.5.1"), v(6), when));
        assert!(!era_fits(&nb("3.5.1"), v(7), when));
        // Saved with 3.8 itself, an old commit date still fits.
        assert!(era_fits(&nb("3.8.2"), v(8), when));
        // A Python nbenv knows no date for: no era.
        assert!(!era_fits(&nb("3.5.1"), v(20), when));
    }

    /// `%config InlineBackend.figure_format = 'retina'` needs ipykernel from the first round;
    /// a notebook's own IPython pin is the runtime's IPython, never a second requirement.
    #[test]
    fn the_runtime_has_a_kernel_and_takes_the_notebooks_own_ipython() {
        assert_eq!(
            plan("numpy==1.16.6\n", None).runtime_requirements(),
            ["ipython<9.1", "ipykernel"]
        );
        assert_eq!(
            plan("numpy==1.16.6\n", Some("5.8.0")).runtime_requirements(),
            ["ipython<9.1,<=5.8.0", "ipykernel"]
        );
        // ipykernel is held to the era too, when the index has one that old: ipykernel 4.10's
        // inline backend calls `matplotlib.colors.to_rgba`, which matplotlib 1.5 lacks.
        let held = EnvPlan {
            kernel_runtime_at_most: Some(super::super::RuntimeEra {
                ipython: "5.0.0".parse().unwrap(),
                ipykernel: Some("4.4.1".parse().unwrap()),
            }),
            ..plan("matplotlib==1.5.2\n", None)
        };
        assert_eq!(
            held.runtime_requirements(),
            ["ipython<9.1,<=5.0.0", "ipykernel<=4.4.1"]
        );
        let own = EnvPlan {
            requirements: "ipython==5.1.0\n".into(),
            ..held.clone()
        };
        assert_eq!(own.runtime_requirements(), ["ipykernel<=4.4.1"]);
        // The cells need IPython before 7 (a `from __future__` import after a magic).
        let below = EnvPlan {
            kernel_runtime_below: Some(Version::new([7])),
            ..plan("numpy==1.16.6\n", Some("7.16.3"))
        };
        assert_eq!(
            below.runtime_requirements(),
            ["ipython<9.1,<=7.16.3,<7", "ipykernel"]
        );
        // The notebook needs IPython 7.9 itself: the kernel only.
        assert_eq!(
            plan("ipython==7.9.0  # cell 1 uses IPython.display\n", None).runtime_requirements(),
            ["ipykernel"]
        );
        // A resolution that pins ipykernel itself (under `notebook` 5): no second ipykernel
        // requirement, which pip on Python 2.7 refuses as a double requirement.
        let kernel_pinned = EnvPlan {
            requirements: "ipykernel==4.6.1\nnotebook==5.0.0\n".into(),
            ..held.clone()
        };
        assert_eq!(
            kernel_pinned.runtime_requirements(),
            ["ipython<9.1,<=5.0.0"]
        );
        // IPython 3 (`IPython.html.widgets`) carries its own kernel.
        let three = plan("ipython==3.2.3\nnumpy==1.16.6\n", None);
        assert!(three.runtime_requirements().is_empty());
        assert_eq!(three.runtime_requirement(), "the notebook's own IPython");
    }

    #[test]
    fn the_runtime_of_an_era_is_the_newest_final_release_uploaded_by_then() {
        let files = [
            file(
                "ipython-6.5.0-py3-none-any.whl",
                "2018-07-28T00:00:00Z",
                false,
            ),
            file(
                "ipython-7.0.0b1-py3-none-any.whl",
                "2018-09-01T00:00:00Z",
                false,
            ),
            file(
                "ipython-7.0.0-py3-none-any.whl",
                "2018-09-27T00:00:00Z",
                false,
            ),
            // A wheel uploaded later does not make 7.0.0 newer than it was.
            file("ipython-7.0.0.tar.gz", "2019-01-01T00:00:00Z", false),
            file(
                "ipython-7.0.1-py3-none-any.whl",
                "2018-09-28T00:00:00Z",
                true,
            ),
            file(
                "ipython-7.1.0-py3-none-any.whl",
                "2018-10-27T00:00:00Z",
                false,
            ),
        ];
        let at = |t: &str| runtime_of_era(&files, t.parse().unwrap());
        assert_eq!(at("2018-10-01T00:00:00Z"), Some("7.0.0".parse().unwrap()));
        assert_eq!(at("2018-09-15T00:00:00Z"), Some("6.5.0".parse().unwrap()));
        assert_eq!(at("2030-01-01T00:00:00Z"), Some("7.1.0".parse().unwrap()));
        assert_eq!(at("2010-01-01T00:00:00Z"), None);
    }
}
