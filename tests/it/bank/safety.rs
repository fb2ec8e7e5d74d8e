//! The bank stays whole when several writers meet it, and foreign files are left alone.

use std::path::{Path, PathBuf};
use std::process::{Child, Output, Stdio};
use std::time::{Duration, Instant};

use crate::support::archives::WheelBuilder;
use crate::support::context::TestContext;
use crate::support::server::FixtureFile;

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

/// `alpha`, `beta` and `gamma` 1.0–4.0 on the index; release i alone defines `only_in_i`.
fn context() -> TestContext {
    let ctx = TestContext::with_index();
    for name in ["alpha", "beta", "gamma"] {
        let files: Vec<FixtureFile> = (1..=4)
            .map(|i| {
                wheel(
                    name,
                    &format!("{i}.0"),
                    &format!("def only_in_{i}():\n    pass\n"),
                )
            })
            .collect();
        ctx.server().publish(name, &files);
    }
    ctx
}

fn spawn(ctx: &TestContext, args: &[&str]) -> Child {
    ctx.command()
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn present(ctx: &TestContext, api: &str) -> Vec<String> {
    let out = ctx.output(["bank", "query", api, "--format", "json"]);
    assert!(out.status.success(), "{api}: {}", text(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    v["results"][0]["present"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            format!(
                "{}-{}",
                r["first"].as_str().unwrap(),
                r["last"].as_str().unwrap()
            )
        })
        .collect()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Starts writers together and waits for all of them; each must succeed.
fn together(env: &TestContext, runs: &[&[&str]]) {
    let children: Vec<Child> = runs.iter().map(|args| spawn(env, args)).collect();
    for (args, child) in runs.iter().zip(children) {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", text(&out));
    }
}

fn check_everything_indexed(env: &TestContext, names: &[&str]) {
    for name in names {
        assert_eq!(
            present(env, &format!("{name}.shared")),
            ["1.0-4.0"],
            "{name}"
        );
        assert_eq!(
            present(env, &format!("{name}.Model.fit")),
            ["1.0-4.0"],
            "{name}"
        );
        for i in 1..=4 {
            assert_eq!(
                present(env, &format!("{name}.only_in_{i}")),
                [format!("{i}.0-{i}.0")],
                "{name}"
            );
        }
    }
}

#[test]
fn two_writers_on_a_new_bank_both_finish_and_lose_nothing() {
    let env = context();
    for _ in 0..2 {
        // Both start on a bank that does not exist yet.
        let _ = std::fs::remove_file(env.bank());
        together(
            &env,
            &[
                &["bank", "add", "alpha", "--all-versions", "--jobs", "2"],
                &["bank", "add", "beta", "--all-versions", "--jobs", "2"],
            ],
        );
        check_everything_indexed(&env, &["alpha", "beta"]);
    }
}

#[test]
fn two_writers_of_one_distribution_on_an_existing_bank_lose_nothing() {
    let env = context();
    let out = env.output(["bank", "add", "gamma", "--all-versions"]);
    assert!(out.status.success(), "{}", text(&out));
    // Both write releases of the same distribution: the same API rows and release sets.
    together(
        &env,
        &[
            &["bank", "add", "alpha==1.0", "alpha==3.0", "--jobs", "1"],
            &["bank", "add", "alpha==2.0", "alpha==4.0", "--jobs", "1"],
            &["bank", "add", "beta", "--all-versions"],
        ],
    );
    check_everything_indexed(&env, &["alpha", "beta", "gamma"]);
}

/// Holds the writer lock of `bank` as another nbenv would.
fn hold_lock(bank: &Path) -> std::fs::File {
    use std::os::fd::AsRawFd;
    let mut lock = bank.as_os_str().to_owned();
    lock.push(".lock");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(lock)
        .unwrap();
    assert_eq!(unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) }, 0);
    file
}

#[test]
fn a_second_writer_waits_with_a_message_or_fails_at_once_with_no_wait() {
    let env = context();
    let out = env.output(["bank", "add", "gamma"]);
    assert!(out.status.success(), "{}", text(&out));
    let lock = hold_lock(&env.bank());

    let started = Instant::now();
    let out = env.output(["bank", "add", "alpha", "--no-wait"]);
    assert_eq!(out.status.code(), Some(7), "{}", text(&out));
    assert!(
        text(&out).contains("another nbenv is writing"),
        "{}",
        text(&out)
    );
    assert!(started.elapsed() < Duration::from_secs(20));

    // Readers do not wait.
    assert_eq!(present(&env, "gamma.shared"), ["4.0-4.0"]);

    let child = spawn(&env, &["bank", "add", "alpha"]);
    std::thread::sleep(Duration::from_millis(1500));
    drop(lock);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("waiting for another nbenv"),
        "{}",
        text(&out)
    );
    assert_eq!(present(&env, "alpha.shared"), ["4.0-4.0"]);
}

#[test]
fn a_foreign_file_is_refused_and_left_untouched() {
    let env = context();
    let path = env.bank();
    {
        let db = rusqlite::Connection::open(&path).unwrap();
        db.execute_batch("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT); INSERT INTO notes (text) VALUES ('mine');")
            .unwrap();
    }
    let before = std::fs::read(&path).unwrap();
    for args in [
        &["bank", "add", "alpha"][..],
        &["bank", "query", "alpha.shared"][..],
        &["bank", "stats"][..],
    ] {
        let out = env.output(args);
        assert_eq!(out.status.code(), Some(7), "{args:?}: {}", text(&out));
        assert!(text(&out).contains("not an nbenv bank"), "{}", text(&out));
    }
    assert_eq!(
        std::fs::read(&path).unwrap(),
        before,
        "the file is unchanged"
    );
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    assert!(!Path::new(&wal).exists() || std::fs::metadata(&wal).unwrap().len() == 0);

    // A file that is not SQLite at all, too.
    std::fs::write(&path, b"just some text, not a database\n").unwrap();
    let out = env.output(["bank", "add", "alpha"]);
    assert_eq!(out.status.code(), Some(7), "{}", text(&out));
    assert_eq!(
        std::fs::read(&path).unwrap(),
        b"just some text, not a database\n"
    );

    // An empty file becomes a bank.
    std::fs::write(&path, b"").unwrap();
    let out = env.output(["bank", "add", "alpha"]);
    assert!(out.status.success(), "{}", text(&out));
}

/// A SHA-256 of the file at `path`, to show it was left byte for byte.
fn digest(path: &Path) -> String {
    use sha2::Digest;
    format!("{:x}", sha2::Sha256::digest(std::fs::read(path).unwrap()))
}

fn side_file(path: &Path, suffix: &str) -> PathBuf {
    let mut side = path.as_os_str().to_owned();
    side.push(suffix);
    PathBuf::from(side)
}

/// Another program's SQLite file that sets `user_version` (as many do) is still not a bank:
/// reads refuse it without switching it to WAL, writes refuse it, and `bank import --force`
/// will not replace it; each says which file, with the bank's exit code, and the file stays
/// byte for byte.
#[test]
fn a_foreign_file_with_a_user_version_is_refused_by_every_command_and_left_untouched() {
    let env = context();
    // A snapshot of a real bank, to import.
    let real = env.root().join("real.sqlite3");
    let snapshot = env.root().join("real.nbsnap");
    let with_real = |args: &[&str]| {
        env.command()
            .arg("--bank")
            .arg(&real)
            .args(args)
            .output()
            .unwrap()
    };
    let out = with_real(&["bank", "add", "alpha"]);
    assert!(out.status.success(), "{}", text(&out));
    let out = with_real(&["bank", "export", snapshot.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));

    let path = env.bank();
    {
        let db = rusqlite::Connection::open(&path).unwrap();
        db.execute_batch(
            "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT); \
             INSERT INTO notes (text) VALUES ('mine'); PRAGMA user_version = 5;",
        )
        .unwrap();
    }
    let before = digest(&path);
    let nb = env.root().join("nb.ipynb");
    std::fs::write(
        &nb,
        r#"{"cells": [{"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [],
            "source": "import alpha\nalpha.shared(1)"}],
            "metadata": {"kernelspec": {"name": "python3"}}, "nbformat": 4, "nbformat_minor": 2}"#,
    )
    .unwrap();
    for args in [
        &["bank", "stats"][..],
        &["bank", "query", "alpha.shared"][..],
        &["bank", "diff", "alpha", "1.0", "2.0"][..],
        &["bank", "runs"][..],
        &["bank", "runs", "--forget"][..],
        &["bank", "add", "alpha"][..],
        &["infer", nb.to_str().unwrap()][..],
        &["bank", "import", "--force", snapshot.to_str().unwrap()][..],
    ] {
        let out = env.output(args);
        let said = text(&out);
        assert_eq!(out.status.code(), Some(7), "{args:?}: {said}");
        assert!(said.contains("not an nbenv bank"), "{args:?}: {said}");
        assert!(
            said.contains(&path.display().to_string()),
            "{args:?}: {said}"
        );
        assert_eq!(digest(&path), before, "{args:?} changed the file");
        for suffix in ["-wal", "-journal"] {
            assert!(!side_file(&path, suffix).exists(), "{args:?}: {suffix}");
        }
    }
    let out = env.output(["bank", "import", "--force", snapshot.to_str().unwrap()]);
    assert!(text(&out).contains("remove it by hand"), "{}", text(&out));
}

/// Reading a bank never changes it; a bank an earlier nbenv made (no application id) is read
/// as it is and gets nbenv's id at its first write.
#[test]
fn reads_leave_a_bank_byte_for_byte_and_the_first_write_marks_an_older_one() {
    let env = context();
    let path = env.bank();
    let out = env.output(["bank", "add", "alpha==1.0", "alpha==2.0"]);
    assert!(out.status.success(), "{}", text(&out));
    let application_id = |path: &Path| -> i32 {
        let db =
            rusqlite::Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
                .unwrap();
        db.pragma_query_value(None, "application_id", |r| r.get(0))
            .unwrap()
    };
    let nbenv_id = i32::from_be_bytes(*b"nbEn");
    assert_eq!(application_id(&path), nbenv_id);
    let reads: [&[&str]; 4] = [
        &["bank", "stats"],
        &["bank", "query", "alpha.shared"],
        &["bank", "diff", "alpha", "1.0", "2.0"],
        &["bank", "runs"],
    ];
    let read_all = |what: &str| {
        let before = digest(&path);
        for args in reads {
            let out = env.output(args);
            assert!(out.status.success(), "{what} {args:?}: {}", text(&out));
            assert_eq!(digest(&path), before, "{what}: {args:?} changed the bank");
        }
    };
    read_all("a bank");

    // As an earlier nbenv left it: no application id.
    {
        let db = rusqlite::Connection::open(&path).unwrap();
        db.pragma_update(None, "application_id", 0).unwrap();
        db.pragma_update(None, "journal_mode", "DELETE").unwrap();
    }
    read_all("an older bank");
    assert_eq!(application_id(&path), 0, "a read marked it");
    let out = env.output(["bank", "add", "beta"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(application_id(&path), nbenv_id);
}
