//! A full disk is an error, not a panic: with the cache, the bank or an output file on a small
//! tmpfs that fills up, nbenv exits with the disk-full code (9), names the file it was
//! writing, and leaves the bank and the cache as a later run with room can trust.
//!
//! Mounting a tmpfs needs root (or CAP_SYS_ADMIN); where it is refused, each test says so
//! loudly and passes without checking anything.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::archives::WheelBuilder;
use crate::support::context::{Run, TestContext};
use crate::support::corpus;
use crate::support::server::{FixtureFile, PageMode, TestServer};

/// The exit code of a full disk, as `src/cli/exit.rs` and docs/reference/exit-codes.md give it.
const DISK_FULL: i32 = 9;

/// A tmpfs of a given size mounted on a fresh directory, unmounted when dropped.
struct Tmpfs {
    dir: tempfile::TempDir,
}

impl Tmpfs {
    /// `None`, said on stderr, where this machine does not let the test mount one.
    fn mount(kib: u64, test: &str) -> Option<Self> {
        let dir = tempfile::tempdir().unwrap();
        let mounted = Command::new("mount")
            .args([
                "-t",
                "tmpfs",
                "-o",
                &format!("size={kib}k,mode=0755"),
                "tmpfs",
            ])
            .arg(dir.path())
            .output();
        match mounted {
            Ok(out) if out.status.success() => Some(Self { dir }),
            Ok(out) => {
                eprintln!(
                    "SKIPPED {test}: cannot mount a tmpfs here (needs root or CAP_SYS_ADMIN): {}",
                    String::from_utf8_lossy(&out.stderr).trim()
                );
                None
            }
            Err(e) => {
                eprintln!("SKIPPED {test}: cannot run mount: {e}");
                None
            }
        }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn ballast(&self) -> PathBuf {
        self.path().join("ballast")
    }

    /// Fills the file system with a ballast file, leaving about `kib` KiB free.
    fn fill_leaving(&self, kib: u64) {
        let mut file = std::fs::File::create(self.ballast()).unwrap();
        let chunk = vec![0xa5u8; 64 << 10];
        let mut written = 0u64;
        loop {
            match file.write(&chunk) {
                Ok(0) => break,
                Ok(n) => written += n as u64,
                Err(e) if e.kind() == std::io::ErrorKind::StorageFull => break,
                Err(e) => panic!("filling the tmpfs: {e}"),
            }
        }
        file.set_len(written.saturating_sub(kib << 10)).unwrap();
        file.sync_all().unwrap();
    }

    /// Makes room again, as a user would.
    fn empty_ballast(&self) {
        std::fs::remove_file(self.ballast()).unwrap();
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let path = self.dir.path();
        let unmounted = Command::new("umount").arg(path).status();
        if !unmounted.is_ok_and(|s| s.success()) {
            let _ = Command::new("umount").arg("-l").arg(path).status();
        }
    }
}

/// Bytes no compressor shrinks, so that an archive's size is what it says.
fn noise(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

/// `toolkit` 1.0, 2.0, 3.0: each wheel has 1,500 functions of its own (a release is a few
/// hundred KiB to write into the bank) and 256 KiB of incompressible data (the tail of the
/// archive read by range is 64 KiB to cache); `f1` is gone in 3.0.
fn index() -> TestContext {
    let server = TestServer::start(PageMode::Json);
    let files: Vec<FixtureFile> = ["1.0", "2.0", "3.0"]
        .iter()
        .enumerate()
        .map(|(i, version)| {
            let mut source = String::new();
            if i < 2 {
                source.push_str("def f1():\n    pass\n");
            }
            for j in 0..1500 {
                source.push_str(&format!("def api_{i}_{j}(x, y=None):\n    return x\n"));
            }
            let wheel = WheelBuilder::new("toolkit", version)
                .file("toolkit/__init__.py", source)
                .file("toolkit/data.bin", noise(256 << 10, i as u64 + 7));
            FixtureFile::wheel(&wheel).uploaded(&format!("201{i}-01-01"))
        })
        .collect();
    server.publish("toolkit", &files);
    TestContext::with_server(server)
}

/// A tmpfs of `kib` KiB (as [`Tmpfs::mount`], `None` where it cannot be had), the fixture's
/// [`index`], and a home on a disk with room, for what the test keeps off the small one.
fn mount_with_index(kib: u64, test: &str) -> Option<(Tmpfs, TestContext, tempfile::TempDir)> {
    let fs = Tmpfs::mount(kib, test)?;
    Some((fs, index(), tempfile::tempdir().unwrap()))
}

/// A notebook calling `toolkit.f1` (which 3.0 removed), as `nb.py` in `home`.
fn notebook(home: &tempfile::TempDir) -> PathBuf {
    let nb = home.path().join("nb.py");
    std::fs::write(&nb, "import toolkit\ntoolkit.f1()\n").unwrap();
    nb
}

/// Exit code, stdout and stderr of nbenv with this cache and bank.
fn run_at(ctx: &TestContext, cache: &Path, bank: &Path, args: &[&str]) -> (i32, String, String) {
    let mut cmd = ctx.command();
    cmd.arg("--cache-dir")
        .arg(cache)
        .arg("--bank")
        .arg(bank)
        .args(args);
    Run::from_output(&cmd.output().unwrap()).parts()
}

/// The failure a full disk must be: its own code, the file named, no panic.
fn assert_disk_full(code: i32, err: &str, written_under: &Path) {
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(code, DISK_FULL, "{err}");
    assert!(
        err.contains(&format!(
            "no space left on the device writing {}",
            written_under.display()
        )),
        "{err}"
    );
}

/// [`run_at`] of `bank add toolkit --all-versions`: every release of the fixture.
fn add_all(ctx: &TestContext, cache: &Path, bank: &Path) -> (i32, String, String) {
    run_at(
        ctx,
        cache,
        bank,
        &["bank", "add", "toolkit", "--all-versions"],
    )
}

fn bank_stats(ctx: &TestContext, cache: &Path, bank: &Path) -> serde_json::Value {
    let (code, out, err) = run_at(ctx, cache, bank, &["bank", "stats", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str::<serde_json::Value>(&out).unwrap()["stats"].clone()
}

/// Files whose names say they were being written (`write_atomic`'s and SQLite's temporary
/// files aside, which are whole or gone).
fn temporary_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if entry.file_name().to_string_lossy().starts_with(".tmp")
                || entry.file_name().to_string_lossy().starts_with(".nbenv-")
            {
                found.push(path);
            }
        }
    }
    found
}

/// What the bank says of the fixture's history, to compare banks built through a full disk
/// and without one.
fn history(ctx: &TestContext, cache: &Path, bank: &Path) -> String {
    let (code, out, err) = run_at(ctx, cache, bank, &["bank", "query", "toolkit.f1"]);
    assert_eq!(code, 0, "{err}");
    out
}

#[test]
fn a_full_cache_stops_indexing_with_its_code_and_a_later_run_with_room_trusts_what_it_kept() {
    let ctx = index();
    let home = tempfile::tempdir().unwrap();
    let bank = home.path().join("bank.sqlite3");
    // Free space for the page, the summaries and about one archive's tail, at most: the
    // failure comes at some write in the middle, depending on the order of the workers.
    for free in [0, 40, 140] {
        let Some(fs) = Tmpfs::mount(2048, "a_full_cache_stops_indexing") else {
            return;
        };
        let cache = fs.path().join("cache");
        fs.fill_leaving(free);
        let (code, _, err) = add_all(&ctx, &cache, &bank);
        assert_disk_full(code, &err, &cache);
        assert!(
            err.contains("free some space or point --cache-dir"),
            "{err}"
        );
        // The bank (on a disk with room) opens and answers; no release was marked failed
        // for the disk, so the next run indexes what is left.
        let stats = bank_stats(&ctx, &cache, &bank);
        assert_eq!(stats["failed_releases"], 0, "{stats}");
        assert!(
            temporary_files(&cache).is_empty(),
            "{:?}",
            temporary_files(&cache)
        );

        fs.empty_ballast();
        let (code, out, err) = add_all(&ctx, &cache, &bank);
        assert_eq!(code, 0, "{out}{err}");
        let stats = bank_stats(&ctx, &cache, &bank);
        assert_eq!(stats["indexed_releases"], 3, "{stats}");

        // What the cache kept through the failure is what a clean run reads.
        let clean = tempfile::tempdir().unwrap();
        let clean_bank = clean.path().join("bank.sqlite3");
        let (code, _, err) = add_all(&ctx, &clean.path().join("cache"), &clean_bank);
        assert_eq!(code, 0, "{err}");
        assert_eq!(
            history(&ctx, &cache, &bank),
            history(&ctx, &clean.path().join("cache"), &clean_bank)
        );
        std::fs::remove_file(&bank).unwrap();
    }
}

#[test]
fn a_full_cache_stops_infer_with_its_code_naming_the_cache() {
    let Some((fs, ctx, home)) = mount_with_index(1024, "a_full_cache_stops_infer") else {
        return;
    };
    let nb = notebook(&home);
    let cache = fs.path().join("cache");
    let bank = home.path().join("bank.sqlite3");
    fs.fill_leaving(0);
    let args = ["infer", nb.to_str().unwrap(), "--python", "3.11"];
    let (code, out, err) = run_at(&ctx, &cache, &bank, &args);
    assert_disk_full(code, &err, &cache);
    assert!(out.is_empty(), "{out}");

    fs.empty_ballast();
    let (code, out, err) = run_at(&ctx, &cache, &bank, &args);
    assert_eq!(code, 0, "{err}");
    assert_eq!(crate::support::cli::pins(&out), ["toolkit==2.0"], "{out}");
}

#[test]
fn a_full_disk_under_the_bank_keeps_what_was_committed() {
    let ctx = index();
    let home = tempfile::tempdir().unwrap();
    let cache = home.path().join("cache");
    // With no room at all, SQLite cannot even make the WAL index (`-shm`), and says so as an
    // I/O error; with a little, the WAL fills (SQLITE_FULL). Both are a full disk.
    for free in [0, 48] {
        let Some(fs) = Tmpfs::mount(8192, "a_full_disk_under_the_bank") else {
            return;
        };
        let bank = fs.path().join("bank.sqlite3");
        let (code, _, err) = run_at(&ctx, &cache, &bank, &["bank", "add", "toolkit==1.0"]);
        assert_eq!(code, 0, "{err}");
        let before = history(&ctx, &cache, &bank);
        fs.fill_leaving(free);

        let (code, _, err) = add_all(&ctx, &cache, &bank);
        assert_disk_full(code, &err, &bank);
        assert!(err.contains("free some space or point --bank"), "{err}");

        // Still full, the bank is read or the disk is named; never "unusable".
        let (code, _, err) = run_at(&ctx, &cache, &bank, &["bank", "stats"]);
        assert!(code == 0 || code == DISK_FULL, "{code}: {err}");

        // With room again, what was committed is there, and nothing else is half there.
        fs.empty_ballast();
        let conn = rusqlite::Connection::open(&bank).unwrap();
        let check: String = conn
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))
            .unwrap();
        assert_eq!(check, "ok");
        drop(conn);
        let stats = bank_stats(&ctx, &cache, &bank);
        assert_eq!(stats["indexed_releases"], 1, "{stats}");
        assert_eq!(stats["failed_releases"], 0, "{stats}");
        assert_eq!(history(&ctx, &cache, &bank), before);

        let (code, _, err) = add_all(&ctx, &cache, &bank);
        assert_eq!(code, 0, "{err}");
        assert_eq!(bank_stats(&ctx, &cache, &bank)["indexed_releases"], 3);
    }
}

#[test]
fn a_new_bank_that_finds_its_disk_full_is_not_left_half_made() {
    let Some((fs, ctx, home)) = mount_with_index(1024, "a_new_bank_that_finds_its_disk_full")
    else {
        return;
    };
    let cache = home.path().join("cache");
    let bank = fs.path().join("bank.sqlite3");
    // Room for the database's first pages, not for its WAL index: SQLite reports an I/O
    // error, whose errno says the disk is full.
    fs.fill_leaving(16);
    let (code, _, err) = run_at(&ctx, &cache, &bank, &["bank", "add", "toolkit==1.0"]);
    assert_disk_full(code, &err, &bank);
    // No bank, rather than a file with no schema that reads as "not an nbenv bank".
    let (code, _, err) = run_at(&ctx, &cache, &bank, &["bank", "stats"]);
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("does not exist"), "{err}");
}

#[test]
fn an_output_on_a_full_disk_keeps_the_file_that_was_there() {
    let Some((fs, ctx, home)) = mount_with_index(256, "an_output_on_a_full_disk") else {
        return;
    };
    let cache = home.path().join("cache");
    let bank = home.path().join("bank.sqlite3");
    let nb = notebook(&home);
    let output = fs.path().join("requirements.txt");
    std::fs::write(&output, "previous==1.0\n").unwrap();
    fs.fill_leaving(0);

    let out = output.to_str().unwrap();
    let args = ["infer", nb.to_str().unwrap(), "--python", "3.11", "-o", out];
    let (code, _, err) = run_at(&ctx, &cache, &bank, &args);
    assert_disk_full(code, &err, &output);
    assert!(
        err.contains("free some space or write it elsewhere"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&output).unwrap(), "previous==1.0\n");
    assert!(temporary_files(fs.path()).is_empty());

    fs.empty_ballast();
    let (code, _, err) = run_at(&ctx, &cache, &bank, &args);
    assert_eq!(code, 0, "{err}");
    let written = std::fs::read_to_string(&output).unwrap();
    assert_eq!(
        crate::support::cli::pins(&written),
        ["toolkit==2.0"],
        "{written}"
    );
}

/// A corpus of three notebooks of one cell, `source`, under `home/corpus`.
fn three_notebooks(home: &Path, source: &str) -> PathBuf {
    let dir = home.join("corpus");
    for i in 0..3 {
        corpus::write(&dir, &format!("nb{i}.ipynb"), &corpus::ipynb(&[source]));
    }
    dir
}

#[test]
fn batch_records_on_a_full_disk_stop_the_batch_with_its_code() {
    let Some((fs, ctx, home)) = mount_with_index(256, "batch_records_on_a_full_disk") else {
        return;
    };
    let corpus_dir = three_notebooks(home.path(), "import json\nprint(json.dumps({}))\n");
    let records = fs.path().join("records.jsonl");
    fs.fill_leaving(0);
    let (code, _, err) = run_at(
        &ctx,
        &home.path().join("cache"),
        &home.path().join("bank.sqlite3"),
        &[
            "batch",
            corpus_dir.to_str().unwrap(),
            "--stage",
            "usage",
            "--out",
            records.to_str().unwrap(),
        ],
    );
    assert_disk_full(code, &err, &records);
}

#[test]
fn a_full_cache_stops_a_batch_and_leaves_its_notebooks_to_the_next_run() {
    let Some((fs, ctx, home)) = mount_with_index(1024, "a_full_cache_stops_a_batch") else {
        return;
    };
    let corpus_dir = three_notebooks(home.path(), "import toolkit\ntoolkit.f1()\n");
    let cache = fs.path().join("cache");
    let bank = home.path().join("bank.sqlite3");
    let records = home.path().join("records.jsonl");
    let args = [
        "batch",
        corpus_dir.to_str().unwrap(),
        "--python",
        "3.11",
        "--jobs",
        "1",
        "--out",
        records.to_str().unwrap(),
    ];
    fs.fill_leaving(0);
    let (code, _, err) = run_at(&ctx, &cache, &bank, &args);
    assert_disk_full(code, &err, &cache);
    // No notebook is recorded as failed for the disk: a record would make the next run
    // skip it.
    let written = std::fs::read_to_string(&records).unwrap_or_default();
    assert_eq!(written.lines().count(), 0, "{written}");

    fs.empty_ballast();
    let (code, _, err) = run_at(&ctx, &cache, &bank, &args);
    assert_eq!(code, 0, "{err}");
    let written = std::fs::read_to_string(&records).unwrap();
    let lines: Vec<serde_json::Value> = written
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3, "{written}");
    for record in &lines {
        assert!(record.get("error").is_none(), "{record}");
    }
}

#[test]
fn snapshots_on_a_full_disk_leave_the_output_and_the_bank_as_they_were() {
    let Some((fs, ctx, home)) = mount_with_index(8192, "snapshots_on_a_full_disk") else {
        return;
    };
    let cache = home.path().join("cache");
    let full_bank = home.path().join("full.sqlite3");
    let (code, _, err) = add_all(&ctx, &cache, &full_bank);
    assert_eq!(code, 0, "{err}");
    let bank = fs.path().join("bank.sqlite3");
    let (code, _, err) = run_at(&ctx, &cache, &bank, &["bank", "add", "toolkit==1.0"]);
    assert_eq!(code, 0, "{err}");
    let snapshot = home.path().join("full.nbsnap");
    let (code, _, err) = run_at(
        &ctx,
        &cache,
        &full_bank,
        &["bank", "export", snapshot.to_str().unwrap()],
    );
    assert_eq!(code, 0, "{err}");
    fs.fill_leaving(0);

    // Exported onto the full disk: nothing is left there, not even scratch files.
    let out = fs.path().join("out.nbsnap");
    let (code, _, err) = run_at(
        &ctx,
        &cache,
        &full_bank,
        &["bank", "export", out.to_str().unwrap()],
    );
    assert_disk_full(code, &err, &out);
    let left: Vec<_> = std::fs::read_dir(fs.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n != "ballast" && !n.starts_with("bank.sqlite3"))
        .collect();
    assert!(left.is_empty(), "{left:?}");

    // Imported over a bank on the full disk: the bank is as it was.
    let (code, _, err) = run_at(
        &ctx,
        &cache,
        &bank,
        &["bank", "import", snapshot.to_str().unwrap(), "--force"],
    );
    assert_disk_full(code, &err, &bank);
    fs.empty_ballast();
    assert_eq!(bank_stats(&ctx, &cache, &bank)["indexed_releases"], 1);
}

/// F14: the disk under the environments fills while the installer writes (uv says `No space
/// left on device (os error 28)`): exit 9 naming the environments' folder, not an install
/// failure of the requirements (exit 21), which restore would answer by trying other
/// interpreters.
#[test]
fn a_disk_that_fills_while_installing_stops_with_its_code() {
    let test = "a_disk_that_fills_while_installing_stops_with_its_code";
    let Some((tmpfs, ctx, home)) = mount_with_index(8 << 10, test) else {
        return;
    };
    let bank = home.path().join("bank.sqlite3");
    let nb = notebook(&home);
    let reqs = home.path().join("reqs.txt");
    std::fs::write(&reqs, "toolkit==2.0\n").unwrap();
    let cache = tmpfs.path().join("cache");
    std::fs::create_dir_all(&cache).unwrap();
    // Room for the environment's interpreter links, not for the wheel.
    tmpfs.fill_leaving(160);
    let python = crate::support::cli::python3_version();
    let (code, _, err) = run_at(
        &ctx,
        &cache,
        &bank,
        &[
            "verify",
            nb.to_str().unwrap(),
            "-r",
            reqs.to_str().unwrap(),
            "--python",
            &python,
            "--no-kernel-runtime",
        ],
    );
    assert_disk_full(code, &err, &cache.join("envs"));
    tmpfs.empty_ballast();
}
