//! What verifications saw, kept so that later resolutions learn from it: every run of a
//! notebook (`verify`, each round of `restore`), and the releases that failed to install or to
//! import on an interpreter. The second is what the resolver reads back: a release that failed
//! there is not chosen again for that Python.

use jiff::Timestamp;
use pep508_rs::pep440_rs::Version;
use rusqlite::params;
use serde::Serialize;

use super::{Store, StoreError};
use crate::names::DistName;
use crate::python::PythonVersion;

/// A release a restoration's run refuted for a notebook: it failed at `cell`, and the
/// failure pointed at it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Refutation {
    pub dist: DistName,
    pub version: Version,
    pub cell: u32,
    /// Which other releases the failure took down with it, if any; kept so that the next
    /// restoration of the notebook starts inside the bounds, not one release past this one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bound: Option<Bound>,
}

/// `pyproj 2.0.0 (cell 5, and every newer release)`.
impl std::fmt::Display for Refutation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {} (cell {}", self.dist, self.version, self.cell)?;
        match self.bound {
            Some(Bound::TooNew) => f.write_str(", and every newer release)"),
            Some(Bound::TooOld) => f.write_str(", and every older release)"),
            None => f.write_str(")"),
        }
    }
}

/// Which side of a refuted release the search ruled out with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    /// It was too new: it and every newer release are out.
    TooNew,
    /// It was too old (it passed a cell newer releases failed, then failed a later one): it
    /// and every older release are out.
    TooOld,
}

impl Bound {
    fn as_str(self) -> &'static str {
        match self {
            Bound::TooNew => "too_new",
            Bound::TooOld => "too_old",
        }
    }

    fn parse(s: &str) -> Option<Self> {
        match s {
            "too_new" => Some(Bound::TooNew),
            "too_old" => Some(Bound::TooOld),
            _ => None,
        }
    }
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RunOutcome {
    /// Every code cell ran.
    Ran,
    /// A cell raised, or the run was stopped.
    Failed,
    /// The environment could not be built.
    InstallFailed,
}

impl RunOutcome {
    fn as_str(self) -> &'static str {
        match self {
            RunOutcome::Ran => "ran",
            RunOutcome::Failed => "failed",
            RunOutcome::InstallFailed => "install_failed",
        }
    }
}

/// What a release failed at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FailedStep {
    Install,
    Import,
}

impl std::fmt::Display for FailedStep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FailedStep {
    fn as_str(self) -> &'static str {
        match self {
            FailedStep::Install => "install",
            FailedStep::Import => "import",
        }
    }

    fn parse(s: &str) -> Option<Self> {
        match s {
            "install" => Some(FailedStep::Install),
            "import" => Some(FailedStep::Import),
            _ => None,
        }
    }
}

/// One run of a notebook in a built (or unbuildable) environment.
#[derive(Debug, Clone, Serialize)]
pub struct RunRecord {
    /// The notebook as the user named it.
    pub notebook: String,
    pub notebook_sha256: String,
    /// `verify` or `restore`.
    pub command: &'static str,
    /// 1 for `verify`; the round for `restore`.
    pub round: u32,
    pub python: PythonVersion,
    pub started_at: Timestamp,
    pub seconds: f64,
    /// The requirements the environment was built from.
    pub requirements: String,
    pub outcome: RunOutcome,
    pub cells_run: Option<u32>,
    pub code_cells: Option<u32>,
    /// The first failure's class and kind (`environment`, `missing_api`).
    pub failure_class: Option<String>,
    pub failure_kind: Option<String>,
    pub failure_cell: Option<u32>,
    /// The failure's message, or the installer's.
    pub detail: Option<String>,
    /// Releases of the environment that failed in this run.
    pub failed: Vec<FailedRelease>,
}

/// A release of a run's environment that failed, and how.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FailedRelease {
    pub dist: DistName,
    pub version: Version,
    pub step: FailedStep,
    pub detail: String,
}

/// A release that failed on an interpreter in an earlier run, as the resolver reads it back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReleaseFailure {
    pub dist: DistName,
    pub version: Version,
    pub python: PythonVersion,
    pub step: FailedStep,
    pub detail: String,
    /// When the run started, and which notebook it ran.
    pub at: Timestamp,
    pub notebook: String,
}

impl Store {
    /// Stores a run and the releases that failed in it, in one transaction.
    pub fn record_run(&mut self, run: &RunRecord) -> Result<i64, StoreError> {
        self.write(|tx| {
            tx.execute(
                "INSERT INTO run_notebooks (notebook, notebook_sha256, command, round, python,
                    started_at, seconds, requirements, outcome, cells_run, code_cells,
                    failure_class, failure_kind, failure_cell, detail)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
                params![
                    run.notebook,
                    run.notebook_sha256,
                    run.command,
                    run.round,
                    run.python.feature().to_string(),
                    run.started_at.as_second(),
                    run.seconds,
                    run.requirements,
                    run.outcome.as_str(),
                    run.cells_run,
                    run.code_cells,
                    run.failure_class,
                    run.failure_kind,
                    run.failure_cell,
                    run.detail,
                ],
            )?;
            let id = tx.last_insert_rowid();
            let mut insert = tx.prepare(
                "INSERT OR REPLACE INTO run_releases (run_id, dist, version, python, outcome, detail)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?;
            for f in &run.failed {
                insert.execute(params![
                    id,
                    f.dist.as_str(),
                    f.version.to_string(),
                    run.python.feature().to_string(),
                    f.step.as_str(),
                    f.detail,
                ])?;
            }
            Ok(id)
        })
    }

    /// Every release that failed to install or import in a stored run, oldest first.
    pub fn release_failures(&self) -> Result<Vec<ReleaseFailure>, StoreError> {
        let rows: Vec<(String, String, String, String, String, i64, String)> = self
            .conn
            .prepare(
                "SELECT r.dist, r.version, r.python, r.outcome, r.detail, n.started_at, n.notebook
                 FROM run_releases r JOIN run_notebooks n ON n.id = r.run_id
                 ORDER BY n.started_at, n.id",
            )
            .and_then(|mut st| {
                st.query_map([], |r| {
                    Ok((
                        r.get(0)?,
                        r.get(1)?,
                        r.get(2)?,
                        r.get(3)?,
                        r.get(4)?,
                        r.get(5)?,
                        r.get(6)?,
                    ))
                })?
                .collect()
            })
            .map_err(self.err())?;
        rows.into_iter()
            .map(|(dist, version, python, step, detail, at, notebook)| {
                let bad = |what: &str| self.corrupt(format!("run record: {what}"));
                Ok(ReleaseFailure {
                    dist: DistName::new(&dist).map_err(|_| bad(&format!("name {dist:?}")))?,
                    version: version
                        .parse()
                        .map_err(|_| bad(&format!("version {version:?}")))?,
                    python: PythonVersion::parse(&python)
                        .ok_or_else(|| bad(&format!("Python {python:?}")))?,
                    step: FailedStep::parse(&step).ok_or_else(|| bad(&format!("step {step:?}")))?,
                    detail,
                    at: Timestamp::from_second(at).map_err(|_| bad("time"))?,
                    notebook,
                })
            })
            .collect()
    }

    /// Deletes every run record (and what runs refuted); returns how many runs there were.
    pub fn forget_runs(&mut self) -> Result<u64, StoreError> {
        let runs = self.run_count()?;
        self.write(|tx| {
            tx.execute_batch(
                "DELETE FROM run_releases; DELETE FROM run_notebooks; DELETE FROM run_refutations;",
            )
        })?;
        Ok(runs)
    }

    /// Records releases a restoration's runs refuted for the notebook whose content has
    /// `notebook_sha256`, on `python`; a release already recorded keeps its first record.
    pub fn record_refutations(
        &mut self,
        notebook_sha256: &str,
        python: PythonVersion,
        refuted: &[Refutation],
        at: Timestamp,
    ) -> Result<(), StoreError> {
        self.write(|tx| {
            let mut insert = tx.prepare(
                "INSERT OR IGNORE INTO run_refutations (notebook_sha256, dist, version, cell, python, at, bound)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?;
            for r in refuted {
                insert.execute(params![
                    notebook_sha256,
                    r.dist.as_str(),
                    r.version.to_string(),
                    r.cell,
                    python.feature().to_string(),
                    at.as_second(),
                    r.bound.map(Bound::as_str),
                ])?;
            }
            Ok(())
        })
    }

    /// The releases earlier runs refuted for the notebook whose content has
    /// `notebook_sha256`.
    pub fn refutations(&self, notebook_sha256: &str) -> Result<Vec<Refutation>, StoreError> {
        type Row = (String, String, u32, Option<String>);
        let rows: Vec<Row> = self
            .conn
            .prepare(
                "SELECT dist, version, cell, bound FROM run_refutations WHERE notebook_sha256 = ?1
                 ORDER BY dist, version",
            )
            .and_then(|mut st| {
                st.query_map([notebook_sha256], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
                })?
                .collect()
            })
            .map_err(self.err())?;
        rows.into_iter()
            .map(|(dist, version, cell, bound)| {
                let bad = |what: &str| self.corrupt(format!("run refutation: {what}"));
                Ok(Refutation {
                    dist: DistName::new(&dist).map_err(|_| bad(&format!("name {dist:?}")))?,
                    version: version
                        .parse()
                        .map_err(|_| bad(&format!("version {version:?}")))?,
                    cell,
                    bound: bound
                        .map(|b| Bound::parse(&b).ok_or_else(|| bad(&format!("bound {b:?}"))))
                        .transpose()?,
                })
            })
            .collect()
    }

    /// How many runs the bank holds.
    pub fn run_count(&self) -> Result<u64, StoreError> {
        self.conn
            .query_row("SELECT count(*) FROM run_notebooks", [], |r| {
                r.get::<_, i64>(0)
            })
            .map(|n| n as u64)
            .map_err(self.err())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(outcome: RunOutcome, failed: Vec<FailedRelease>) -> RunRecord {
        RunRecord {
            notebook: "nb.ipynb".into(),
            notebook_sha256: "00".into(),
            command: "restore",
            round: 1,
            python: PythonVersion::new(3, 11),
            started_at: Timestamp::from_second(1_700_000_000).unwrap(),
            seconds: 1.5,
            requirements: "lib==1.0\n".into(),
            outcome,
            cells_run: Some(1),
            code_cells: Some(2),
            failure_class: Some("environment".into()),
            failure_kind: Some("library_mismatch".into()),
            failure_cell: Some(2),
            detail: Some("boom".into()),
            failed,
        }
    }

    #[test]
    fn failed_releases_are_read_back_with_their_interpreter() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("bank.sqlite3")).unwrap();
        assert_eq!(store.run_count().unwrap(), 0);
        store.record_run(&run(RunOutcome::Ran, Vec::new())).unwrap();
        store
            .record_run(&run(
                RunOutcome::InstallFailed,
                vec![FailedRelease {
                    dist: DistName::new("Lib_X").unwrap(),
                    version: "1.0".parse().unwrap(),
                    step: FailedStep::Install,
                    detail: "no wheel".into(),
                }],
            ))
            .unwrap();
        assert_eq!(store.run_count().unwrap(), 2);
        let failures = store.release_failures().unwrap();
        assert_eq!(failures.len(), 1);
        let f = &failures[0];
        assert_eq!(f.dist.as_str(), "lib-x");
        assert_eq!(f.version, "1.0".parse::<Version>().unwrap());
        assert_eq!(f.python.to_string(), "3.11");
        assert_eq!(f.step, FailedStep::Install);
        assert_eq!(f.notebook, "nb.ipynb");
    }

    fn refutation(version: &str, cell: u32, bound: Option<Bound>) -> Refutation {
        Refutation {
            dist: DistName::new("pyproj").unwrap(),
            version: version.parse().unwrap(),
            cell,
            bound,
        }
    }

    /// The side a run ruled out comes back with the release; a release recorded again keeps
    /// its first record, and a bank written before bounds were kept reads as none.
    #[test]
    fn refutations_are_read_back_with_their_bound() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("bank.sqlite3")).unwrap();
        let at = Timestamp::from_second(1_700_000_000).unwrap();
        let py = PythonVersion::new(2, 7);
        let first = [
            refutation("2.0.0", 5, Some(Bound::TooNew)),
            refutation("1.9.4", 9, Some(Bound::TooOld)),
            refutation("1.9.5", 5, None),
        ];
        store.record_refutations("ab", py, &first, at).unwrap();
        store
            .record_refutations("ab", py, &[refutation("2.0.0", 7, None)], at)
            .unwrap();
        assert_eq!(
            store.refutations("ab").unwrap(),
            [first[1].clone(), first[2].clone(), first[0].clone()]
        );
        assert!(store.refutations("cd").unwrap().is_empty());

        store
            .conn
            .execute("UPDATE run_refutations SET bound = 'sideways'", [])
            .unwrap();
        let err = store.refutations("ab").unwrap_err().to_string();
        assert!(err.contains("bound \"sideways\""), "{err}");
    }

    /// A bank of schema 10 kept refutations without a side: they migrate as none.
    #[test]
    fn refutations_of_a_schema_10_bank_migrate_without_a_bound() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bank.sqlite3");
        drop(Store::open(&path).unwrap());
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch(
            "ALTER TABLE run_refutations DROP COLUMN bound;
             INSERT INTO run_refutations VALUES ('ab', 'pyproj', '2.0.0', 5, '2.7', 0);
             PRAGMA user_version = 10;",
        )
        .unwrap();
        drop(conn);
        let store = Store::open(&path).unwrap();
        assert_eq!(
            store.refutations("ab").unwrap(),
            [refutation("2.0.0", 5, None)]
        );
    }
}
