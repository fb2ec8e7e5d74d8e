//! `nbenv bank export` / `bank import`: a bank carried whole to another place, run records
//! only when asked for, broken snapshots refused with the bank left byte for byte as it was.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::support::archives::WheelBuilder;
use crate::support::context::{bare_command, TestContext};
use crate::support::server::{FixtureFile, PageMode, TestServer};
use nbenv::bank::snapshot::SnapshotHeader;
use nbenv::bank::store::SCHEMA_VERSION;

const SNAPSHOT_REFUSED: i32 = 8;

fn wheel(name: &str, version: &str, extra: &str) -> FixtureFile {
    let w = WheelBuilder::new(name, version)
        .file(
            &format!("{name}/__init__.py"),
            format!("from .core import shared, Model\n{extra}"),
        )
        .file(
            &format!("{name}/core.py"),
            "def shared(x):\n    return x\n\nclass Model:\n    def fit(self, X):\n        return self\n",
        );
    FixtureFile::new(&w.filename(), w.build())
}

/// A loopback index with `alpha` 1.0–4.0 and `beta` 1.0–2.0, and a bank of all of them
/// plus run records: a `run_test` table of three rows, and one run in the schema's own
/// run tables, one referring to the other.
fn context() -> TestContext {
    let server = TestServer::start(PageMode::Json);
    for (name, last) in [("alpha", 4), ("beta", 2)] {
        let files: Vec<FixtureFile> = (1..=last)
            .map(|i| {
                wheel(
                    name,
                    &format!("{i}.0"),
                    &format!("def only_in_{i}():\n    pass\n"),
                )
            })
            .collect();
        server.publish(name, &files);
    }
    let env = TestContext::with_server(server);
    let bank = env.bank();
    ok(
        &env,
        &bank,
        &["bank", "add", "alpha", "beta", "--all-versions"],
    );
    let conn = rusqlite::Connection::open(&bank).unwrap();
    conn.execute_batch(
        "CREATE TABLE run_test (id INTEGER PRIMARY KEY, notebook TEXT NOT NULL);
         INSERT INTO run_test (notebook) VALUES ('a.ipynb'), ('b.ipynb'), ('c.ipynb');
         INSERT INTO run_notebooks (id, notebook, notebook_sha256, command, round, python,
             started_at, seconds, requirements, outcome)
         VALUES (1, 'nb.ipynb', 'ab', 'verify', 1, '3.11', 0, 1.5, 'alpha==1.0', 'failed');
         INSERT INTO run_releases (run_id, dist, version, python, outcome, detail)
         VALUES (1, 'alpha', '1.0', '3.11', 'install', 'no wheel');",
    )
    .unwrap();
    env
}

/// nbenv on `bank` rather than the context's.
fn command_on(ctx: &TestContext, bank: &Path, args: &[&str]) -> Command {
    let mut cmd = ctx.command();
    cmd.arg("--bank").arg(bank).args(args);
    cmd
}

fn run_on(ctx: &TestContext, bank: &Path, args: &[&str]) -> Output {
    command_on(ctx, bank, args).output().unwrap()
}

fn ok(ctx: &TestContext, bank: &Path, args: &[&str]) -> String {
    let out = run_on(ctx, bank, args);
    assert!(out.status.success(), "{args:?}: {}", text(&out));
    String::from_utf8(out.stdout).unwrap()
}

/// Exports the fixture bank to `name`.
fn export(ctx: &TestContext, name: &str, extra: &[&str]) -> PathBuf {
    let snapshot = ctx.path(name);
    let mut args = vec!["bank", "export", snapshot.to_str().unwrap()];
    args.extend_from_slice(extra);
    ok(ctx, &ctx.bank(), &args);
    snapshot
}

/// What a bank answers: query results and counts, which must survive a round trip.
fn answers(ctx: &TestContext, bank: &Path) -> Vec<serde_json::Value> {
    let mut all = Vec::new();
    for api in [
        "alpha.shared",
        "alpha.only_in_3",
        "beta.Model.fit",
        "beta.only_in_2",
    ] {
        let v: serde_json::Value =
            serde_json::from_str(&ok(ctx, bank, &["bank", "query", api, "--format", "json"]))
                .unwrap();
        all.push(v["results"].clone());
    }
    let stats: serde_json::Value =
        serde_json::from_str(&ok(ctx, bank, &["bank", "stats", "--format", "json"])).unwrap();
    let mut counts = stats["stats"].clone();
    counts.as_object_mut().unwrap().remove("bytes_on_disk");
    all.push(counts);
    all
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn file_mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

/// Rows in the run tables: `run_test`, `run_notebooks`, `run_releases`.
fn run_rows(bank: &Path) -> i64 {
    let conn = rusqlite::Connection::open(bank).unwrap();
    conn.query_row(
        "SELECT (SELECT COUNT(*) FROM run_test) + (SELECT COUNT(*) FROM run_notebooks)
                + (SELECT COUNT(*) FROM run_releases)",
        [],
        |r| r.get(0),
    )
    .unwrap()
}

/// Files in `dir` other than the bank's and the snapshots: what an import may not leave.
fn leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".nbenv"))
        .collect()
}

#[test]
fn a_bank_survives_export_and_import_and_run_records_only_when_asked() {
    let env = context();
    let before = answers(&env, &env.bank());

    let snapshot = export(&env, "bank.nbsnap", &[]);
    let out = ok(
        &env,
        &env.bank(),
        &["bank", "export", snapshot.to_str().unwrap()],
    );
    assert!(out.contains("2 distributions, 6 releases"), "{out}");
    assert!(out.contains("ratio"), "{out}");
    assert!(
        out.contains(
            "run records left out: 5 rows dropped (run_notebooks, run_refutations, run_releases, run_test)"
        ),
        "{out}"
    );
    // The live bank still has its run records: only the copy lost them.
    assert_eq!(run_rows(&env.bank()), 5);
    // Created as any file is (the umask decides), so that others may read and serve it.
    std::fs::write(env.path("plain"), "x").unwrap();
    assert_eq!(file_mode(&snapshot), file_mode(&env.path("plain")));

    let elsewhere = env.path("worker/bank.sqlite3");
    let out = ok(
        &env,
        &elsewhere,
        &["bank", "import", snapshot.to_str().unwrap()],
    );
    assert!(
        out.starts_with(&format!("imported {}", snapshot.display())),
        "{out}"
    );
    assert!(out.contains("(new bank)"), "{out}");
    assert_eq!(answers(&env, &elsewhere), before);
    assert_eq!(run_rows(&elsewhere), 0, "the table stays, its rows go");
    let conn = rusqlite::Connection::open(&elsewhere).unwrap();
    let mode: String = conn
        .pragma_query_value(None, "journal_mode", |r| r.get(0))
        .unwrap();
    assert_eq!(
        mode, "wal",
        "the usual open puts the bank back into WAL mode"
    );
    drop(conn);
    assert!(leftovers(&env.path("worker")).is_empty());
    assert!(leftovers(env.root()).is_empty());

    // With --with-runs the records travel too, and replacing needs --force.
    let with_runs = export(&env, "runs.nbsnap", &["--with-runs"]);
    let refused = run_on(
        &env,
        &elsewhere,
        &["bank", "import", with_runs.to_str().unwrap()],
    );
    assert_eq!(refused.status.code(), Some(1), "{}", text(&refused));
    assert!(text(&refused).contains("--force"), "{}", text(&refused));
    assert_eq!(run_rows(&elsewhere), 0);
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&elsewhere, std::fs::Permissions::from_mode(0o640)).unwrap();
    let out = ok(
        &env,
        &elsewhere,
        &["bank", "import", with_runs.to_str().unwrap(), "--force"],
    );
    assert_eq!(
        file_mode(&elsewhere),
        0o640,
        "a replaced bank keeps its mode"
    );
    assert!(out.contains("replaced a bank of 6 releases"), "{out}");
    assert!(
        out.contains(
            "run records kept: 5 rows (run_notebooks, run_refutations, run_releases, run_test)"
        ),
        "{out}"
    );
    assert_eq!(run_rows(&elsewhere), 5);
    assert_eq!(answers(&env, &elsewhere), before);

    // The header says what it holds, in JSON too.
    let v: serde_json::Value = serde_json::from_str(&ok(
        &env,
        &env.bank(),
        &[
            "bank",
            "export",
            snapshot.to_str().unwrap(),
            "--format",
            "json",
        ],
    ))
    .unwrap();
    assert_eq!(v["header"]["schema_version"], SCHEMA_VERSION);
    assert_eq!(v["header"]["with_runs"], false);
    assert_eq!(v["header"]["counts"]["releases"], 6);
}

/// A snapshot with its header changed as `edit` says, payload untouched.
fn rewrite_header(snapshot: &Path, out: &Path, edit: impl FnOnce(&mut SnapshotHeader)) {
    let bytes = std::fs::read(snapshot).unwrap();
    let mut input = &bytes[..];
    let mut header = SnapshotHeader::read_from(&mut input).unwrap();
    edit(&mut header);
    let mut file = Vec::new();
    header.write_to(&mut file).unwrap();
    file.extend_from_slice(input);
    std::fs::write(out, file).unwrap();
}

/// A snapshot whose index cache's entry stream is changed by `edit`, with a header that tells
/// the truth about it.
fn rewrite_index_stream(snapshot: &Path, out: &Path, edit: impl FnOnce(&mut Vec<u8>)) {
    use sha2::Digest;
    let bytes = std::fs::read(snapshot).unwrap();
    let mut header = SnapshotHeader::read_from(&mut &bytes[..]).unwrap();
    let db_end = (header.encoded_len() + header.payload_len) as usize;
    let db_payload = bytes[header.encoded_len() as usize..db_end].to_vec();
    let mut stream = zstd::decode_all(&bytes[db_end..]).unwrap();
    edit(&mut stream);
    let payload = zstd::encode_all(&stream[..], 3).unwrap();
    let index = header.index_cache.as_mut().unwrap();
    index.len = stream.len() as u64;
    index.sha256 = sha2::Sha256::digest(&stream)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    index.payload_len = payload.len() as u64;
    let mut file = Vec::new();
    header.write_to(&mut file).unwrap();
    file.extend_from_slice(&db_payload);
    file.extend_from_slice(&payload);
    std::fs::write(out, file).unwrap();
}

/// A snapshot whose database is changed by `edit` (SQL), with a header that tells the truth
/// about it except for what `header` changes.
fn rewrite_database(
    snapshot: &Path,
    out: &Path,
    sql: &str,
    header_edit: impl FnOnce(&mut SnapshotHeader),
) {
    let bytes = std::fs::read(snapshot).unwrap();
    let mut input = &bytes[..];
    SnapshotHeader::read_from(&mut input).unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let db = scratch.path().join("db.sqlite3");
    std::fs::write(&db, zstd::decode_all(input).unwrap()).unwrap();
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute_batch(sql)
        .unwrap();
    with_database(snapshot, out, &std::fs::read(&db).unwrap(), header_edit);
}

/// A snapshot whose database is `database`, with a header that tells the truth about it
/// except for what `header_edit` changes; without an index cache.
fn with_database(
    snapshot: &Path,
    out: &Path,
    database: &[u8],
    header_edit: impl FnOnce(&mut SnapshotHeader),
) {
    use sha2::Digest;
    let bytes = std::fs::read(snapshot).unwrap();
    let mut header = SnapshotHeader::read_from(&mut &bytes[..]).unwrap();
    header.index_cache = None;
    let payload = zstd::encode_all(database, 3).unwrap();
    header.db_len = database.len() as u64;
    header.db_sha256 = sha2::Sha256::digest(database)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    header.payload_len = payload.len() as u64;
    header_edit(&mut header);
    let mut file = Vec::new();
    header.write_to(&mut file).unwrap();
    file.extend_from_slice(&payload);
    std::fs::write(out, file).unwrap();
}

#[test]
fn broken_snapshots_are_refused_and_the_bank_is_left_byte_for_byte() {
    let env = context();
    let good = export(&env, "good.nbsnap", &[]);
    let bytes = std::fs::read(&good).unwrap();
    let header_len = SnapshotHeader::read_from(&mut &bytes[..])
        .unwrap()
        .encoded_len() as usize;

    // The bank to protect: another bank, with releases, replaced only with --force.
    let target = env.path("target/bank.sqlite3");
    ok(&env, &target, &["bank", "add", "beta"]);
    let original = std::fs::read(&target).unwrap();

    let mut cases: Vec<(&str, PathBuf, &str)> = Vec::new();
    let mut flipped = bytes.clone();
    let at = header_len + (bytes.len() - header_len) / 2;
    flipped[at] ^= 0x40;
    std::fs::write(env.path("flipped.nbsnap"), &flipped).unwrap();
    cases.push(("flipped", env.path("flipped.nbsnap"), "corrupt"));

    std::fs::write(
        env.path("truncated.nbsnap"),
        &bytes[..header_len + (bytes.len() - header_len) / 3],
    )
    .unwrap();
    cases.push(("truncated", env.path("truncated.nbsnap"), "truncated"));

    let mut magic = bytes.clone();
    magic[0] = b'N';
    std::fs::write(env.path("magic.nbsnap"), &magic).unwrap();
    cases.push((
        "wrong magic",
        env.path("magic.nbsnap"),
        "not an nbenv bank snapshot",
    ));

    // An SQLite file given as a snapshot is not one either.
    cases.push(("a bank", env.bank(), "not an nbenv bank snapshot"));

    let newer = SCHEMA_VERSION + 1;
    rewrite_database(
        &good,
        &env.path("newer.nbsnap"),
        &format!("PRAGMA user_version = {newer}"),
        |h| h.schema_version = newer,
    );
    cases.push((
        "newer schema",
        env.path("newer.nbsnap"),
        "newer than this nbenv",
    ));

    // A header that hides the newer schema of its database is caught by the database.
    rewrite_database(
        &good,
        &env.path("lying.nbsnap"),
        &format!("PRAGMA user_version = {newer}"),
        |_| {},
    );
    cases.push((
        "header and database disagree",
        env.path("lying.nbsnap"),
        "its header says schema version",
    ));

    // Another program's SQLite file, whole and consistent, claiming this nbenv's schema or
    // an older one (which the migrations after the install would fail on).
    for (name, version) in [
        ("foreign.nbsnap", SCHEMA_VERSION),
        ("foreign-old.nbsnap", 1),
    ] {
        let scratch = tempfile::tempdir().unwrap();
        let db = scratch.path().join("other.sqlite3");
        rusqlite::Connection::open(&db)
            .unwrap()
            .execute_batch(&format!(
                "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);
                 INSERT INTO notes (body) VALUES ('not a bank');
                 PRAGMA user_version = {version};"
            ))
            .unwrap();
        with_database(&good, &env.path(name), &std::fs::read(&db).unwrap(), |h| {
            h.schema_version = version
        });
    }
    cases.push((
        "a foreign database",
        env.path("foreign.nbsnap"),
        "its database is not an nbenv bank of schema version",
    ));
    cases.push((
        "a foreign database of an older schema",
        env.path("foreign-old.nbsnap"),
        "its database is not an nbenv bank of schema version 1",
    ));

    rewrite_header(&good, &env.path("sha.nbsnap"), |h| {
        h.db_sha256 = "0".repeat(64)
    });
    cases.push(("wrong checksum", env.path("sha.nbsnap"), "sha256"));

    let mut trailing = bytes.clone();
    trailing.extend_from_slice(b"more");
    std::fs::write(env.path("trailing.nbsnap"), &trailing).unwrap();
    cases.push((
        "trailing bytes",
        env.path("trailing.nbsnap"),
        "follow the end",
    ));

    for (what, snapshot, says) in &cases {
        let out = run_on(
            &env,
            &target,
            &["bank", "import", snapshot.to_str().unwrap(), "--force"],
        );
        let said = text(&out);
        assert_eq!(out.status.code(), Some(SNAPSHOT_REFUSED), "{what}: {said}");
        assert!(
            said.contains(&format!("snapshot {}", snapshot.display())),
            "{what}: names the file: {said}"
        );
        assert!(said.contains(says), "{what}: says {says:?}: {said}");
        assert_eq!(
            std::fs::read(&target).unwrap(),
            original,
            "{what}: the bank is untouched"
        );
        assert!(leftovers(&env.path("target")).is_empty(), "{what}");
    }

    // A missing snapshot is not found (3); the bank is still intact.
    let out = run_on(&env, &target, &["bank", "import", "nowhere.nbsnap"]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    assert_eq!(std::fs::read(&target).unwrap(), original);

    // The good snapshot then goes in.
    ok(
        &env,
        &target,
        &["bank", "import", good.to_str().unwrap(), "--force"],
    );
    assert_eq!(answers(&env, &target), answers(&env, &env.bank()));
}

#[test]
fn decompression_stops_at_the_limits_as_it_writes() {
    let env = context();
    let good = export(&env, "good.nbsnap", &[]);
    let target = env.path("target/bank.sqlite3");
    ok(&env, &target, &["bank", "add", "beta"]);
    let original = std::fs::read(&target).unwrap();

    // 128 MiB of zeros compress to a few KiB: once with a header that tells the truth about
    // them (a self-consistent bomb), once with the good bank's length, which they overrun.
    let zeros = vec![0u8; 128 << 20];
    with_database(&good, &env.path("bomb.nbsnap"), &zeros, |_| {});
    let db_len = SnapshotHeader::read_from(&mut &std::fs::read(&good).unwrap()[..])
        .unwrap()
        .db_len;
    with_database(&good, &env.path("overrun.nbsnap"), &zeros, |h| {
        h.db_len = db_len
    });
    assert!(std::fs::metadata(env.path("bomb.nbsnap")).unwrap().len() < 1 << 20);
    for (what, snapshot, extra, says) in [
        ("bomb", "bomb.nbsnap", None, "not an SQLite file"),
        ("overrun", "overrun.nbsnap", None, "not an SQLite file"),
        (
            "over --max-size",
            "good.nbsnap",
            Some("4K"),
            "byte limit (--max-size)",
        ),
        (
            "a bomb over --max-size",
            "bomb.nbsnap",
            Some("64M"),
            "byte limit (--max-size)",
        ),
    ] {
        let path = env.path(snapshot);
        let mut args = vec!["bank", "import", path.to_str().unwrap(), "--force"];
        if let Some(max) = extra {
            args.extend(["--max-size", max]);
        }
        let inner = command_on(&env, &target, &args);
        // Files written may not pass 16 MiB: a write past it kills the import (SIGXFSZ).
        let mut cmd = Command::new("bash");
        cmd.arg("-c")
            .arg("ulimit -f 16384 && exec \"$0\" \"$@\"")
            .arg(inner.get_program())
            .args(inner.get_args());
        for (k, v) in inner.get_envs() {
            if let Some(v) = v {
                cmd.env(k, v);
            }
        }
        let started = Instant::now();
        let out = cmd.output().unwrap();
        let said = text(&out);
        assert_eq!(out.status.code(), Some(SNAPSHOT_REFUSED), "{what}: {said}");
        assert!(said.contains(says), "{what}: says {says:?}: {said}");
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "{what}: quickly"
        );
        assert_eq!(std::fs::read(&target).unwrap(), original, "{what}");
        assert!(leftovers(&env.path("target")).is_empty(), "{what}");
    }
}

#[test]
fn a_snapshot_is_fetched_from_a_url_and_a_broken_download_retried() {
    let env = context();
    let snapshot = export(&env, "bank.nbsnap", &[]);
    env.server().route(
        "/snapshots/bank.nbsnap",
        std::fs::read(&snapshot).unwrap(),
        "application/octet-stream",
    );
    let url = env.server().url("/snapshots/bank.nbsnap");

    let worker = env.path("worker/bank.sqlite3");
    let out = ok(&env, &worker, &["bank", "import", &url]);
    assert!(out.starts_with(&format!("imported {url}")), "{out}");
    assert_eq!(answers(&env, &worker), answers(&env, &env.bank()));

    // A download cut off half way: without retries the import fails as a network error and
    // the bank stays; with one retry it goes through.
    let before = std::fs::read(&worker).unwrap();
    env.server().truncate_next("/snapshots/bank.nbsnap", 1);
    let out = run_on(&env, &worker, &["bank", "import", &url, "--force"]);
    assert_eq!(out.status.code(), Some(4), "{}", text(&out));
    assert_eq!(std::fs::read(&worker).unwrap(), before);
    assert!(leftovers(&env.path("worker")).is_empty());
    env.server().truncate_next("/snapshots/bank.nbsnap", 1);
    let out = command_on(&env, &worker, &["bank", "import", &url, "--force"])
        .env("NBENV_HTTP_RETRIES", "1")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));

    // Not there: 3. Over the size limit: refused before it is read (8).
    let out = run_on(
        &env,
        &worker,
        &["bank", "import", &env.server().url("/nothing"), "--force"],
    );
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    let out = run_on(
        &env,
        &worker,
        &["bank", "import", &url, "--force", "--max-size", "1K"],
    );
    assert_eq!(out.status.code(), Some(SNAPSHOT_REFUSED), "{}", text(&out));
    assert!(text(&out).contains("--max-size"), "{}", text(&out));
    let out = run_on(
        &env,
        &worker,
        &["--offline", "bank", "import", &url, "--force"],
    );
    assert_eq!(out.status.code(), Some(4), "{}", text(&out));
}

/// Export never waits for a writer: the snapshot holds what was committed when it started,
/// and a transaction in flight is left out.
#[test]
fn export_does_not_wait_for_a_writer_and_leaves_its_transaction_out() {
    let env = context();
    let bank = env.bank();
    let before = answers(&env, &bank);
    // Another writer: it holds nbenv's writer lock and an open write transaction.
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(env.path("bank.sqlite3.lock"))
        .unwrap();
    use std::os::fd::AsRawFd;
    // SAFETY: the descriptor is open for the call.
    assert_eq!(
        unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) },
        0
    );
    let writer = rusqlite::Connection::open(&bank).unwrap();
    writer
        .execute_batch(
            "BEGIN IMMEDIATE;
             INSERT INTO distributions (name) VALUES ('uncommitted');",
        )
        .unwrap();

    let snapshot = env.path("during.nbsnap");
    let started = Instant::now();
    let mut child = command_on(&env, &bank, &["bank", "export", snapshot.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    while child.try_wait().unwrap().is_none() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the export waits for the writer"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    writer.execute_batch("COMMIT").unwrap();
    drop(writer);
    drop(lock);

    let worker = env.path("worker/bank.sqlite3");
    ok(
        &env,
        &worker,
        &["bank", "import", snapshot.to_str().unwrap()],
    );
    assert_eq!(answers(&env, &worker), before);
    let conn = rusqlite::Connection::open(&worker).unwrap();
    let names: i64 = conn
        .query_row(
            "SELECT COUNT(*) FROM distributions WHERE name = 'uncommitted'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(names, 0);
}

/// Replacing the file under a process that has the bank open would leave it on a bank that
/// is gone: the import is refused (exit 7) and the bank left as it was.
#[test]
fn import_is_refused_while_the_bank_is_open_elsewhere() {
    let env = context();
    let snapshot = export(&env, "bank.nbsnap", &[]);
    let target = env.path("target/bank.sqlite3");
    ok(&env, &target, &["bank", "add", "beta"]);
    let original = std::fs::read(&target).unwrap();

    let reader = rusqlite::Connection::open(&target).unwrap();
    let _: i64 = reader
        .query_row("SELECT COUNT(*) FROM releases", [], |r| r.get(0))
        .unwrap();
    let out = run_on(
        &env,
        &target,
        &["bank", "import", snapshot.to_str().unwrap(), "--force"],
    );
    assert_eq!(out.status.code(), Some(7), "{}", text(&out));
    assert!(
        text(&out).contains("open in another process"),
        "{}",
        text(&out)
    );
    assert_eq!(std::fs::read(&target).unwrap(), original);
    assert!(leftovers(&env.path("target")).is_empty());

    drop(reader);
    ok(
        &env,
        &target,
        &["bank", "import", snapshot.to_str().unwrap(), "--force"],
    );
    assert_eq!(answers(&env, &target), answers(&env, &env.bank()));
}

/// A WAL left beside the bank's path (by a crashed writer, or a bank deleted without its
/// side files) holds pages of another database: the imported bank must never read them.
#[test]
fn the_old_wal_is_never_applied_to_the_imported_bank() {
    let env = context();
    let snapshot = export(&env, "bank.nbsnap", &[]);
    let expected = answers(&env, &env.bank());

    // An old bank of its own, whose WAL holds frames when the "crash" comes: a copy of
    // the -wal and -shm taken while its writer was open.
    let old = env.path("old/bank.sqlite3");
    ok(&env, &old, &["bank", "add", "beta"]);
    let conn = rusqlite::Connection::open(&old).unwrap();
    conn.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
    conn.execute_batch(
        "CREATE TABLE filler (x BLOB);
         WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
         INSERT INTO filler SELECT randomblob(500) FROM n;
         UPDATE distributions SET name = name || '-old';",
    )
    .unwrap();
    let wal = std::fs::read(env.path("old/bank.sqlite3-wal")).unwrap();
    let shm = std::fs::read(env.path("old/bank.sqlite3-shm")).unwrap();
    assert!(wal.len() > 100_000, "the WAL holds frames");
    drop(conn);

    // 1. Over the old bank itself, WAL restored as a crash would leave it.
    std::fs::write(env.path("old/bank.sqlite3-wal"), &wal).unwrap();
    std::fs::write(env.path("old/bank.sqlite3-shm"), &shm).unwrap();
    ok(
        &env,
        &old,
        &["bank", "import", snapshot.to_str().unwrap(), "--force"],
    );
    assert_eq!(answers(&env, &old), expected);

    // 2. A bank deleted by hand, its -wal and -shm left behind.
    let fresh = env.path("fresh/bank.sqlite3");
    std::fs::create_dir_all(env.path("fresh")).unwrap();
    std::fs::write(env.path("fresh/bank.sqlite3-wal"), &wal).unwrap();
    std::fs::write(env.path("fresh/bank.sqlite3-shm"), &shm).unwrap();
    ok(
        &env,
        &fresh,
        &["bank", "import", snapshot.to_str().unwrap()],
    );
    assert_eq!(answers(&env, &fresh), expected);
    let conn = rusqlite::Connection::open(&fresh).unwrap();
    let check: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(check, "ok");
}

/// An older schema goes in as it is and is migrated by the usual open; exporting it left
/// the source bank unmigrated (export never writes the bank).
#[test]
fn an_older_schema_is_imported_and_migrated() {
    let env = context();
    let old = env.path("v1/bank.sqlite3");
    std::fs::create_dir_all(env.path("v1")).unwrap();
    rusqlite::Connection::open(&old)
        .unwrap()
        .execute_batch(include_str!("../../fixtures/bank_schema_v1.sql"))
        .unwrap();
    let original = std::fs::read(&old).unwrap();
    let snapshot = env.path("v1.nbsnap");
    let out = ok(&env, &old, &["bank", "export", snapshot.to_str().unwrap()]);
    assert!(out.contains("schema 1"), "{out}");
    assert_eq!(std::fs::read(&old).unwrap(), original);

    let worker = env.path("worker/bank.sqlite3");
    let out = ok(
        &env,
        &worker,
        &["bank", "import", snapshot.to_str().unwrap()],
    );
    assert!(
        out.contains(&format!("schema {SCHEMA_VERSION} (migrated from 1)")),
        "{out}"
    );
    let q: serde_json::Value = serde_json::from_str(&ok(
        &env,
        &worker,
        &["bank", "query", "toolkit.thing", "--format", "json"],
    ))
    .unwrap();
    assert_eq!(
        q["results"][0]["canonical"][0]["path"], "toolkit.Thing",
        "{q}"
    );
}

#[test]
fn export_refuses_what_is_not_a_bank() {
    let env = context();
    let out = run_on(
        &env,
        &env.path("none.sqlite3"),
        &["bank", "export", "x.nbsnap"],
    );
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    std::fs::write(
        env.path("text.sqlite3"),
        "not a database at all, just some text here",
    )
    .unwrap();
    let snapshot = env.path("x.nbsnap");
    let out = run_on(
        &env,
        &env.path("text.sqlite3"),
        &["bank", "export", snapshot.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(7), "{}", text(&out));
    assert!(!snapshot.exists());
    // Onto the bank itself: refused, the bank kept.
    let bank = env.bank();
    let out = run_on(&env, &bank, &["bank", "export", bank.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert_eq!(run_rows(&bank), 5);
    assert!(leftovers(env.root()).is_empty());
}

/// A notebook whose API pins `alpha` 3.0 (`only_in_3` is in no other release).
const PINS_ALPHA_3: &str = r#"{"nbformat": 4, "nbformat_minor": 2, "metadata": {},
 "cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": null,
            "source": "import alpha\nalpha.only_in_3()\nimport beta\nbeta.only_in_2()"}]}"#;

/// The container format a snapshot file says it is in.
fn format_of(snapshot: &Path) -> u32 {
    let bytes = std::fs::read(snapshot).unwrap();
    u32::from_le_bytes(bytes[16..20].try_into().unwrap())
}

/// Files under `dir`, recursively, with their bytes.
fn tree(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            } else {
                out.push((e.path(), std::fs::read(e.path()).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn the_index_cache_travels_so_a_worker_resolves_with_no_index_at_all() {
    let env = context();
    let nb = env.path("nb.ipynb");
    std::fs::write(&nb, PINS_ALPHA_3).unwrap();
    // The exporting machine resolves once, online: its cache now holds what that read.
    let infer = |bank: &Path, cache: &Path, extra: &[&str]| -> Output {
        let mut cmd = bare_command();
        cmd.args(["--index-url", &env.server().index_url()])
            .arg("--cache-dir")
            .arg(cache)
            .arg("--bank")
            .arg(bank)
            .args(extra)
            .args([
                "infer",
                nb.to_str().unwrap(),
                "--python",
                "3.11",
                "--no-index",
            ])
            .env("NBENV_HTTP_RETRIES", "0");
        cmd.output().unwrap()
    };
    let online = infer(&env.bank(), &env.path("cache"), &[]);
    assert!(online.status.success(), "{}", text(&online));
    let wanted = String::from_utf8(online.stdout).unwrap();
    assert!(wanted.contains("alpha==3.0"), "{wanted}");
    assert!(wanted.contains("beta==2.0"), "{wanted}");

    let plain = export(&env, "plain.nbsnap", &[]);
    assert_eq!(
        format_of(&plain),
        1,
        "without the cache, the format older nbenvs read"
    );
    let carried = env.path("carried.nbsnap");
    let out = ok(
        &env,
        &env.bank(),
        &[
            "bank",
            "export",
            carried.to_str().unwrap(),
            "--with-index-cache",
        ],
    );
    assert!(
        out.contains("index cache: 2 index pages, 2 compact copies,"),
        "{out}"
    );
    assert_eq!(format_of(&carried), 2);

    // A worker on a fresh cache, offline: with the plain snapshot it cannot resolve...
    let worker = |name: &str, snapshot: &Path| -> (PathBuf, PathBuf, String) {
        let bank = env.path(&format!("{name}/bank.sqlite3"));
        let cache = env.path(&format!("{name}/cache"));
        let out = bare_command()
            .args(["--index-url", &env.server().index_url()])
            .arg("--cache-dir")
            .arg(&cache)
            .arg("--bank")
            .arg(&bank)
            .args(["bank", "import", snapshot.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out));
        (bank, cache, String::from_utf8(out.stdout).unwrap())
    };
    let (bank, cache, _) = worker("plain-worker", &plain);
    let refused = infer(&bank, &cache, &["--offline"]);
    assert!(!refused.status.success(), "{}", text(&refused));

    // ...with the carried one it resolves as the exporter did, the index never asked.
    let (bank, cache, said) = worker("worker", &carried);
    assert!(said.contains("index cache: 2 index pages"), "{said}");
    assert!(said.contains("written into"), "{said}");
    env.server().clear_log();
    let offline = infer(&bank, &cache, &["--offline"]);
    assert!(offline.status.success(), "{}", text(&offline));
    assert_eq!(String::from_utf8(offline.stdout).unwrap(), wanted);
    assert!(env.server().log().is_empty(), "{:?}", env.server().log());

    // Imported again, nothing is newer than what the worker holds: its cache is unchanged.
    let held = tree(&cache);
    let again = bare_command()
        .arg("--cache-dir")
        .arg(&cache)
        .arg("--bank")
        .arg(&bank)
        .args(["bank", "import", carried.to_str().unwrap(), "--force"])
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert!(again.status.success(), "{}", text(&again));
    let v: serde_json::Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(v["index_cache"]["written"], 0, "{v}");
    assert_eq!(v["index_cache"]["kept_local"], 4, "{v}");
    assert!(
        v["index_cache"]["already_held"].as_u64().unwrap() > 0,
        "{v}"
    );
    assert_eq!(tree(&cache), held);

    // A damaged index cache is refused before the bank or the cache is touched.
    let bytes = std::fs::read(&carried).unwrap();
    let header = SnapshotHeader::read_from(&mut &bytes[..]).unwrap();
    let index = header.index_cache.clone().unwrap();
    let index_start = (header.encoded_len() + header.payload_len) as usize;
    let mut flipped = bytes.clone();
    flipped[index_start + index.payload_len as usize / 2] ^= 0x20;
    std::fs::write(env.path("flipped.nbsnap"), &flipped).unwrap();
    std::fs::write(env.path("cut.nbsnap"), &bytes[..bytes.len() - 5]).unwrap();
    rewrite_header(&carried, &env.path("sha.nbsnap"), |h| {
        h.index_cache.as_mut().unwrap().sha256 = "0".repeat(64)
    });
    // An index page that does not read, after one that does: refused before either is
    // written, not half way through the cache.
    rewrite_index_stream(&carried, &env.path("page.nbsnap"), |stream| {
        let mut at = b"nbenv-index-cache-v1\n".len();
        let mut last_page = None;
        while at < stream.len() {
            let key_len = stream[at + 1] as usize;
            let len_at = at + 2 + key_len;
            let len = u64::from_le_bytes(stream[len_at..len_at + 8].try_into().unwrap()) as usize;
            if stream[at] == b'p' {
                last_page = Some((len_at, len));
            }
            at = len_at + 8 + len;
        }
        let (len_at, len) = last_page.expect("a page");
        let garbage = b"this is not an index page".to_vec();
        stream.splice(len_at + 8..len_at + 8 + len, garbage.iter().copied());
        stream[len_at..len_at + 8].copy_from_slice(&(garbage.len() as u64).to_le_bytes());
    });
    let target = env.path("target/bank.sqlite3");
    let target_cache = env.path("target/cache");
    for (name, says) in [
        ("page.nbsnap", "does not read"),
        ("flipped.nbsnap", "index cache"),
        ("cut.nbsnap", "truncated: "),
        (
            "sha.nbsnap",
            "its compressed index cache decompresses to data with sha256",
        ),
    ] {
        let out = bare_command()
            .arg("--cache-dir")
            .arg(&target_cache)
            .arg("--bank")
            .arg(&target)
            .args(["bank", "import", env.path(name).to_str().unwrap()])
            .output()
            .unwrap();
        let said = text(&out);
        assert_eq!(out.status.code(), Some(SNAPSHOT_REFUSED), "{name}: {said}");
        assert!(said.contains(says), "{name}: says {says:?}: {said}");
        assert!(!target.exists(), "{name}: no bank installed");
        assert!(
            tree(&target_cache).is_empty(),
            "{name}: the cache was written"
        );
        assert!(leftovers(&env.path("target")).is_empty(), "{name}");
    }
    assert!(
        text(
            &bare_command()
                .arg("--bank")
                .arg(&target)
                .arg("--cache-dir")
                .arg(&target_cache)
                .args(["bank", "import", env.path("cut.nbsnap").to_str().unwrap()])
                .output()
                .unwrap()
        )
        .contains("compressed index cache"),
        "a cut names the part it cut into"
    );
}
