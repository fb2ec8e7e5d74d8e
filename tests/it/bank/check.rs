//! Damage SQLite does not see: a flipped byte inside a stored value. `bank check` finds it
//! (naming the table and row), and the commands that read the value refuse with the bank
//! error instead of answering from it.

use std::path::Path;
use std::process::Output;

use crate::support::archives::WheelBuilder;
use crate::support::context::TestContext;
use crate::support::server::FixtureFile;
use rusqlite::types::ValueRef;
use rusqlite::Connection;

/// The bank's error (`Code::Bank`).
const BANK_ERROR: i32 = 7;

/// nbenv on `bank` rather than the context's.
fn run_on(ctx: &TestContext, bank: &Path, args: &[&str]) -> Output {
    ctx.command()
        .arg("--bank")
        .arg(bank)
        .args(args)
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// toolkit 1.0, 1.1 (`helper` gains `c`), 2.0 (`old` gone, `fit` gains `sample_weight`):
/// APIs, aliases, bases, signatures, modules and import names, over a few releases.
fn toolkit_files() -> Vec<FixtureFile> {
    let core = |helper: &str, fit: &str| {
        format!(
            "import numpy\n\ndef helper({helper}):\n    return a\n\nclass Base:\n    def score(self, X):\n        return 0\n\n    def fit(self, data):\n        return self\n\nclass Model(Base):\n    def fit(self, {fit}):\n        return self\n\nclass Open(numpy.ndarray):\n    pass\n"
        )
    };
    let wheel = |version: &str, helper: &str, fit: &str, with_old: bool| {
        let mut w =
            WheelBuilder::new("toolkit", version).file("toolkit/core.py", core(helper, fit));
        w = if with_old {
            w.file(
                "toolkit/__init__.py",
                "from .core import helper, Model, Open\nfrom . import old\n",
            )
            .file("toolkit/old.py", "def legacy(x):\n    return x\n")
        } else {
            w.file(
                "toolkit/__init__.py",
                "from .core import helper, Model, Open\n",
            )
        };
        FixtureFile::new(&w.filename(), w.build())
    };
    vec![
        wheel("1.0", "a, b=1", "X, y", true),
        wheel("1.1", "a, b=1, *, c=None", "X, y", true),
        wheel(
            "2.0",
            "a, b=1, *, c=None",
            "X, y=None, sample_weight=None",
            false,
        ),
    ]
}

/// A bank of toolkit's history, compacted (no free pages, no WAL) so that each stored value
/// is in the file once.
fn built() -> TestContext {
    let env = TestContext::with_index();
    env.server().publish("toolkit", &toolkit_files());
    let out = run_on(
        &env,
        &env.bank(),
        &["bank", "add", "toolkit", "--all-versions"],
    );
    assert!(out.status.success(), "{}", text(&out));
    std::fs::write(env.root().join("nb.py"), NOTEBOOK).unwrap();
    let conn = Connection::open(env.bank()).unwrap();
    conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE); VACUUM;")
        .unwrap();
    env
}

/// The read commands whose answers a flip must not change silently.
const READS: &[&[&str]] = &[
    &["bank", "stats", "--format", "json"],
    &[
        "bank",
        "diff",
        "toolkit",
        "1.0",
        "2.0",
        "--private",
        "--format",
        "json",
    ],
    &["bank", "diff", "toolkit", "1.0", "1.1", "--format", "json"],
    &["bank", "query", "toolkit.helper", "--format", "json"],
    &["bank", "query", "toolkit.Model.fit", "--format", "json"],
    &["bank", "query", "toolkit.Model.score", "--format", "json"],
    &["bank", "query", "toolkit.Open.reshape", "--format", "json"],
    &["bank", "query", "toolkit.old.legacy", "--format", "json"],
    &[
        "bank",
        "query",
        "--module",
        "toolkit.old",
        "--format",
        "json",
    ],
    &["bank", "query", "--module", "toolkit", "--format", "json"],
    // Members of objects of unknown type: read through every class, and the open ones.
    &["infer", "NB", "--python", "3.11"],
];

/// A notebook (as a script) that uses toolkit's APIs and members of what they return.
const NOTEBOOK: &str = "import toolkit\nm = toolkit.Model()\nm.fit(1, 2)\nx = toolkit.helper(1)\nx.reshape(3)\nx.score(2)\n";

/// Each read's exit code and output, `bank stats` without its size on disk (which a copy
/// of the file does not change, but a migration would).
fn answers(env: &TestContext, bank: &Path) -> Vec<(Option<i32>, String)> {
    READS
        .iter()
        .map(|args| {
            let nb = env.root().join("nb.py");
            let args: Vec<&str> = args
                .iter()
                .map(|&a| if a == "NB" { nb.to_str().unwrap() } else { a })
                .collect();
            let out = run_on(env, bank, &args);
            let said = String::from_utf8_lossy(&out.stdout);
            (
                out.status.code(),
                said.replace(&bank.display().to_string(), "BANK"),
            )
        })
        .collect()
}

/// Where in the file the value of `column` in the row `filter` selects of `table` is: its
/// record ends with the row's seal (a 4-byte integer, found once in the file), and the
/// values after `column` are the ones between.
fn locate(bank: &Path, table: &str, column: &str, filter: &str) -> Option<(usize, Vec<u8>)> {
    let conn = Connection::open(bank).unwrap();
    let columns: Vec<String> = conn
        .prepare(&format!("SELECT name FROM pragma_table_info('{table}')"))
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(columns.last().map(String::as_str), Some("seal"), "{table}");
    let at = columns.iter().position(|c| c == column).unwrap();
    let sql = format!("SELECT * FROM {table} WHERE {filter}");
    let mut stmt = conn.prepare(&sql).unwrap();
    let mut rows = stmt.query([]).unwrap();
    let file = std::fs::read(bank).unwrap();
    while let Some(row) = rows.next().unwrap() {
        let value: Vec<u8> = match row.get_ref(at).unwrap() {
            ValueRef::Blob(b) | ValueRef::Text(b) => b.to_vec(),
            _ => continue,
        };
        // A long value found once in the file is itself.
        let once = |needle: &[u8]| -> Option<usize> {
            let mut found = file
                .windows(needle.len())
                .enumerate()
                .filter(|(_, w)| *w == needle)
                .map(|(i, _)| i);
            let first = found.next()?;
            found.next().is_none().then_some(first)
        };
        if value.len() >= 8 {
            if let Some(start) = once(&value) {
                return Some((start, value));
            }
        }
        let seal: i64 = row.get(columns.len() - 1).unwrap();
        // The seal as SQLite stores a small integer: big-endian, in as few of 1, 2, 3, 4 bytes
        // as hold it.
        let size = [1usize, 2, 3, 4]
            .into_iter()
            .find(|&n| (-(1i64 << (8 * n - 1))..(1i64 << (8 * n - 1))).contains(&seal))
            .unwrap();
        let needle = &seal.to_be_bytes()[8 - size..];
        let found: Vec<usize> = once(needle).into_iter().collect();
        let [seal_at] = found[..] else {
            continue;
        };
        let between: usize = (at + 1..columns.len() - 1)
            .map(|i| match row.get_ref(i).unwrap() {
                ValueRef::Blob(b) | ValueRef::Text(b) => b.len(),
                ValueRef::Null => 0,
                other => panic!("{table}.{}: {other:?} between", columns[i]),
            })
            .sum();
        let Some(start) = seal_at.checked_sub(between + value.len()) else {
            continue;
        };
        if value.is_empty() || file[start..start + value.len()] != value[..] {
            continue;
        }
        return Some((start, value));
    }
    None
}

/// Flips a byte of a release set so that it still decodes: its last byte, a run's length
/// (below 128), becomes another length.
fn flip_set(bank: &Path, at: usize, value: &[u8]) {
    let offset = at + value.len() - 1;
    let last = value[value.len() - 1];
    assert!(last < 0x80, "{value:?}");
    let new = if last ^ 2 != 0 { last ^ 2 } else { last ^ 1 };
    flip_to(bank, offset, new);
}

fn flip_to(bank: &Path, offset: usize, new: u8) {
    let mut file = std::fs::read(bank).unwrap();
    file[offset] = new;
    std::fs::write(bank, file).unwrap();
}

/// `bank check` fails naming `table`; every read either answers as before or fails with the
/// bank error, and at least one fails.
fn assert_caught(env: &TestContext, bank: &Path, table: &str, before: &[(Option<i32>, String)]) {
    let check = run_on(env, bank, &["bank", "check"]);
    let said = text(&check);
    assert_eq!(check.status.code(), Some(BANK_ERROR), "{said}");
    let seals = if table.starts_with("api_path") || table.starts_with("api_member") {
        "path seals"
    } else {
        "row seals"
    };
    assert!(
        said.contains(&format!("FAIL {seals}: {table} row (")),
        "{said}"
    );
    let after = answers(env, bank);
    let mut refused = 0;
    for ((args, was), now) in READS.iter().zip(before).zip(&after) {
        if now.0 == Some(BANK_ERROR) {
            refused += 1;
        } else {
            assert_eq!(
                was, now,
                "{args:?} answered differently from a damaged {table}"
            );
        }
    }
    assert!(refused > 0, "no read of {table} noticed the damage");
}

#[test]
fn a_flipped_byte_in_any_sealed_value_is_caught_by_check_and_by_readers() {
    let env = built();
    let clean = run_on(&env, &env.bank(), &["bank", "check"]);
    let said = text(&clean);
    assert!(clean.status.success(), "{said}");
    for table in [
        "apis",
        "modules",
        "import_names",
        "aliases",
        "class_bases",
        "api_signatures",
        "signatures",
        "open_classes",
        "api_path_blocks",
        "api_member_blocks",
    ] {
        assert!(
            said.contains(&format!(": {table}, ")),
            "{table} unchecked: {said}"
        );
    }
    let before = answers(&env, &env.bank());
    assert!(
        before.iter().all(|(code, _)| *code == Some(0)),
        "{before:?}"
    );

    // One copy per value: the value read by some command of READS.
    let cases: &[(&str, &str, &str)] = &[
        ("apis", "static", "static != x''"),
        ("apis", "runtime", "runtime != x''"),
        ("apis", "open", "open != x''"),
        ("modules", "releases", "path = 'toolkit.old'"),
        ("import_names", "releases", "name = 'toolkit'"),
        ("aliases", "releases", "releases != x''"),
        ("class_bases", "releases", "releases != x''"),
        ("api_signatures", "releases", "releases != x''"),
        ("open_classes", "releases", "releases != x''"),
    ];
    let mut tried = Vec::new();
    for &(table, column, filter) in cases {
        let bank = env.root().join(format!("{table}-{column}.sqlite3"));
        std::fs::copy(env.bank(), &bank).unwrap();
        let Some((at, value)) = locate(&bank, table, column, filter) else {
            continue;
        };
        flip_set(&bank, at, &value);
        assert_caught(&env, &bank, table, &before);
        tried.push(format!("{table}.{column}"));
    }
    // A signature's text.
    let bank = env.root().join("signatures.sqlite3");
    std::fs::copy(env.bank(), &bank).unwrap();
    let (at, value) = locate(&bank, "signatures", "text", "text LIKE '%sample_weight%'")
        .expect("the signature of fit in 2.0");
    let comma = value.iter().position(|&b| b == b',').unwrap();
    flip_to(&bank, at + comma, b';');
    assert_caught(&env, &bank, "signatures", &before);
    tried.push("signatures.text".into());
    // A block of paths, and of members (sealed inside, as before: `bank check` reads them all).
    for (table, column) in [
        ("api_path_blocks", "paths"),
        ("api_member_blocks", "entries"),
    ] {
        let bank = env.root().join(format!("{table}.sqlite3"));
        std::fs::copy(env.bank(), &bank).unwrap();
        let blob: Vec<u8> = Connection::open(&bank)
            .unwrap()
            .query_row(
                &format!("SELECT {column} FROM {table} ORDER BY length({column}) DESC LIMIT 1"),
                [],
                |r| r.get(0),
            )
            .unwrap();
        let file = std::fs::read(&bank).unwrap();
        let at = file
            .windows(blob.len())
            .position(|w| w == blob)
            .expect("the block is in the file");
        let middle = at + blob.len() / 2;
        flip_to(&bank, middle, file[middle] ^ 0x01);
        assert_caught(&env, &bank, table, &before);
        tried.push(format!("{table}.{column}"));
    }
    // Every kind the fixture has was tried (the apis' runtime sets are empty: no
    // introspection here).
    assert_eq!(
        tried,
        [
            "apis.static",
            "apis.open",
            "modules.releases",
            "import_names.releases",
            "aliases.releases",
            "class_bases.releases",
            "api_signatures.releases",
            "open_classes.releases",
            "signatures.text",
            "api_path_blocks.paths",
            "api_member_blocks.entries"
        ]
    );
}

/// The reads of the sweep: fewer than [`READS`] (each flip runs them all), one of each kind.
const SWEEP_READS: &[&[&str]] = &[
    &["bank", "stats", "--format", "json"],
    &[
        "bank",
        "diff",
        "toolkit",
        "1.0",
        "2.0",
        "--private",
        "--format",
        "json",
    ],
    &["bank", "query", "toolkit.Model.fit", "--format", "json"],
    &[
        "bank",
        "query",
        "--module",
        "toolkit.old",
        "--format",
        "json",
    ],
];

/// The tables whose values are sealed, in rows or in blocks.
const SEALED: &[&str] = &[
    "apis",
    "modules",
    "import_names",
    "aliases",
    "class_bases",
    "signatures",
    "api_signatures",
    "open_classes",
    "import_time",
    "api_path_chunks",
    "api_path_blocks",
    "api_member_blocks",
];

/// The bytes of the file where SQLite keeps the records of the sealed tables and of their
/// indexes (of `kinds`: `'table'`, `'index'` or both): the cell content of each leaf page of
/// their b-trees.
fn sealed_record_bytes(bank: &Path, file: &[u8], kinds: &str) -> Vec<usize> {
    let conn = Connection::open(bank).unwrap();
    let marks = SEALED
        .iter()
        .map(|t| format!("'{t}'"))
        .collect::<Vec<_>>()
        .join(",");
    let roots: Vec<usize> = conn
        .prepare(&format!(
            "SELECT rootpage FROM sqlite_master WHERE tbl_name IN ({marks}) AND rootpage > 0 \
             AND type IN ({kinds})"
        ))
        .unwrap()
        .query_map([], |r| r.get::<_, i64>(0))
        .unwrap()
        .map(|r| r.unwrap() as usize)
        .collect();
    assert!(!roots.is_empty(), "no b-tree of {kinds}");
    let page_size = match u16::from_be_bytes([file[16], file[17]]) {
        1 => 65536,
        n => usize::from(n),
    };
    let u16_at = |at: usize| usize::from(u16::from_be_bytes([file[at], file[at + 1]]));
    let u32_at = |at: usize| u32::from_be_bytes(file[at..at + 4].try_into().unwrap()) as usize;
    let mut bytes = Vec::new();
    let mut pages = roots;
    while let Some(page) = pages.pop() {
        let start = (page - 1) * page_size;
        let header = start + if page == 1 { 100 } else { 0 };
        match file[header] {
            // Interior pages: each cell starts with a child's number; then the right-most.
            0x02 | 0x05 => {
                for i in 0..u16_at(header + 3) {
                    pages.push(u32_at(start + u16_at(header + 12 + 2 * i)));
                }
                pages.push(u32_at(header + 8));
            }
            0x0a | 0x0d => {
                let content = match u16_at(header + 5) {
                    0 => 65536,
                    n => n,
                };
                bytes.extend(start + content..start + page_size);
            }
            other => panic!("page {page}: type {other:#x}"),
        }
    }
    bytes
}

/// How many flips to sample: `default` unless `NBENV_TEST_FLIPS`.
fn flip_count(default: usize) -> usize {
    std::env::var("NBENV_TEST_FLIPS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default)
}

/// What one flip did: changed nothing, was caught by `bank check` (when it runs first), or
/// changed the reads (`answered`: some read answered differently with exit 0).
struct FlipOutcomes {
    unchanged: usize,
    caught: usize,
    changed: Vec<String>,
}

impl FlipOutcomes {
    fn answered(&self) -> usize {
        self.changed
            .iter()
            .filter(|s| s.starts_with("ANSWERED"))
            .count()
    }
}

/// Flips one bit of each of `flips` bytes sampled (seeded) from `records`, one at a time, on a
/// copy of the clean bank, and runs the sweep's reads on it; first `bank check` when
/// `check_first` (a flip it catches counts as caught, its reads are not run).
fn sweep(env: &TestContext, records: &[usize], flips: usize, check_first: bool) -> FlipOutcomes {
    let reads = |bank: &Path| -> Vec<(Option<i32>, String)> {
        SWEEP_READS
            .iter()
            .map(|args| {
                let out = run_on(env, bank, args);
                let said = String::from_utf8_lossy(&out.stdout);
                (
                    out.status.code(),
                    said.replace(&bank.display().to_string(), "BANK"),
                )
            })
            .collect()
    };
    let before = reads(&env.bank());
    assert!(
        before.iter().all(|(code, _)| *code == Some(0)),
        "{before:?}"
    );
    let clean = std::fs::read(env.bank()).unwrap();
    let mut state: u64 = 0x05ee_d0ff_11b5;
    let flips: Vec<(usize, u8)> = (0..flips)
        .map(|_| {
            // xorshift64*
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            let r = state.wrapping_mul(0x2545_f491_4f6c_dd1d);
            (records[(r >> 8) as usize % records.len()], 1u8 << (r % 8))
        })
        .collect();
    let outcomes: Vec<FlipOutcomes> = std::thread::scope(|scope| {
        let workers: Vec<_> = flips
            .chunks(flips.len().div_ceil(4).max(1))
            .enumerate()
            .map(|(worker, share)| {
                let (clean, before, reads) = (&clean, &before, &reads);
                scope.spawn(move || {
                    let bank = env.root().join(format!("flipped-{worker}.sqlite3"));
                    let mut out = FlipOutcomes {
                        unchanged: 0,
                        caught: 0,
                        changed: Vec::new(),
                    };
                    for &(offset, mask) in share {
                        let mut file = clean.clone();
                        file[offset] ^= mask;
                        for suffix in ["-wal", "-shm"] {
                            let _ = std::fs::remove_file(format!("{}{suffix}", bank.display()));
                        }
                        std::fs::write(&bank, &file).unwrap();
                        if check_first && !run_on(env, &bank, &["bank", "check"]).status.success() {
                            out.caught += 1;
                            continue;
                        }
                        let after = reads(&bank);
                        if std::env::var_os("NBENV_TEST_FLIP_DEBUG").is_some() && after != *before {
                            for args in SWEEP_READS {
                                let o = run_on(env, &bank, args);
                                eprintln!("byte {offset}: {args:?}: {}", text(&o));
                            }
                        }
                        if after == *before {
                            out.unchanged += 1;
                            continue;
                        }
                        let pairs = || SWEEP_READS.iter().zip(before.iter().zip(&after));
                        let changed: Vec<String> = pairs()
                            .filter(|(_, (a, b))| a != b)
                            .map(|(args, (_, (code, _)))| {
                                format!("{} -> {code:?}", args[..3].join(" "))
                            })
                            .collect();
                        // Answered differently (exit 0), or refused.
                        let answered = pairs().any(|(_, (a, b))| a != b && b.0 == Some(0));
                        let tag = if answered { "ANSWERED" } else { "refused" };
                        out.changed
                            .push(format!("{tag} byte {offset} ^ {mask:#04x}: {changed:?}"));
                    }
                    out
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    FlipOutcomes {
        unchanged: outcomes.iter().map(|o| o.unchanged).sum(),
        caught: outcomes.iter().map(|o| o.caught).sum(),
        changed: outcomes.into_iter().flat_map(|o| o.changed).collect(),
    }
}

/// Flips a bit of `flips` bytes of the bank (200 unless `NBENV_TEST_FLIPS`), sampled (seeded)
/// over the records of the sealed tables and their indexes, one at a time: each leaves
/// `bank check` passing and every read's answer as it was, or makes `bank check` fail. None may
/// change an answer while the check passes.
#[test]
fn no_sampled_flip_changes_an_answer_while_check_passes() {
    let env = built();
    let check = run_on(&env, &env.bank(), &["bank", "check"]);
    assert!(check.status.success(), "{}", text(&check));
    let clean = std::fs::read(env.bank()).unwrap();
    let records = sealed_record_bytes(&env.bank(), &clean, "'table','index'");
    assert!(records.len() > 1000, "{} bytes of records", records.len());
    let out = sweep(&env, &records, flip_count(200), true);
    eprintln!(
        "{} flips: {} changed nothing, {} caught by bank check; with the check passing, {} \
         changed an answer (exit 0) and {} made a read fail",
        out.unchanged + out.caught + out.changed.len(),
        out.unchanged,
        out.caught,
        out.answered(),
        out.changed.len() - out.answered()
    );
    assert!(out.changed.is_empty(), "{:#?}", out.changed);
}

/// F11: a flip in an index of a sealed table (164 sampled bits, unless `NBENV_TEST_FLIPS`),
/// with no `bank check` before the reads: each read answers as before or refuses the bank.
/// Row seals cannot see an index's entries, so the readers check what an index yields
/// against what the seals cover.
#[test]
fn no_flip_in_an_index_changes_an_answer_the_readers_give() {
    let env = built();
    let clean = std::fs::read(env.bank()).unwrap();
    let records = sealed_record_bytes(&env.bank(), &clean, "'index'");
    assert!(
        records.len() > 100,
        "{} bytes of index records",
        records.len()
    );
    let out = sweep(&env, &records, flip_count(164), false);
    eprintln!(
        "{} flips in indexes: {} changed nothing; {} changed an answer (exit 0), {} made a read \
         refuse the bank",
        out.unchanged + out.changed.len(),
        out.unchanged,
        out.answered(),
        out.changed.len() - out.answered()
    );
    let answered: Vec<&String> = out
        .changed
        .iter()
        .filter(|s| s.starts_with("ANSWERED"))
        .collect();
    assert!(answered.is_empty(), "{answered:#?}");
}

/// F16: a `releases` text made invalid UTF-8 (a column no seal covers): the readers refuse the
/// bank, and so does `bank check`, naming the table, the row and the column.
#[test]
fn a_text_the_readers_cannot_decode_fails_the_check() {
    let env = built();
    let bank = env.bank();
    let conn = Connection::open(&bank).unwrap();
    let (id, version): (i64, String) = conn
        .query_row(
            "SELECT id, version FROM releases WHERE version = '1.1'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    // The same bytes but one: `1.1` becomes `1\xff1`.
    conn.execute(
        "UPDATE releases SET version = CAST(?1 AS TEXT) WHERE id = ?2",
        rusqlite::params![[b'1', 0xff, b'1'].to_vec(), id],
    )
    .unwrap();
    drop(conn);
    assert_eq!(version, "1.1");
    let stats = run_on(&env, &bank, &["bank", "stats"]);
    assert_eq!(stats.status.code(), Some(BANK_ERROR), "{}", text(&stats));
    let check = run_on(&env, &bank, &["bank", "check"]);
    let said = text(&check);
    assert_eq!(check.status.code(), Some(BANK_ERROR), "{said}");
    assert!(
        said.contains(&format!(
            "FAIL text: releases row (id {id}): `version` is not UTF-8 text"
        )),
        "{said}"
    );
}

/// Where `needle` is in the one page of `index` (a fixture's index fits one page).
fn in_index_page(bank: &Path, index: &str, needle: &[u8]) -> usize {
    let conn = Connection::open(bank).unwrap();
    let root: i64 = conn
        .query_row(
            "SELECT rootpage FROM sqlite_master WHERE name = ?1",
            [index],
            |r| r.get(0),
        )
        .unwrap();
    let page_size: i64 = conn
        .query_row("PRAGMA page_size", [], |r| r.get(0))
        .unwrap();
    drop(conn);
    let file = std::fs::read(bank).unwrap();
    let start = ((root - 1) * page_size) as usize;
    let page = &file[start..start + page_size as usize];
    let at = page
        .windows(needle.len())
        .position(|w| w == needle)
        .unwrap_or_else(|| panic!("{needle:?} is not in {index}'s root page"));
    start + at
}

/// F11, by name: a key flipped in the index of modules by path (`toolkit.old` becomes
/// `toolkit.olf`) hides toolkit from the lookup of `toolkit.old`; the same holds for import
/// names. The readers refuse the bank instead of answering that nothing provides the module.
#[test]
fn a_flipped_key_in_an_index_by_name_is_refused_not_answered() {
    let env = built();
    let before = run_on(
        &env,
        &env.bank(),
        &["bank", "query", "--module", "toolkit.old"],
    );
    assert!(before.status.success(), "{}", text(&before));
    let clean = std::fs::read(env.bank()).unwrap();
    for (index, needle) in [
        ("modules_by_path", &b"toolkit.old"[..]),
        ("import_names_by_name", &b"toolkit"[..]),
    ] {
        std::fs::write(env.bank(), &clean).unwrap();
        let at = in_index_page(&env.bank(), index, needle);
        flip_to(
            &env.bank(),
            at + needle.len() - 1,
            needle[needle.len() - 1] ^ 0x02,
        );
        for args in [
            &["bank", "query", "--module", "toolkit.old"][..],
            &["bank", "query", "toolkit.old.legacy"][..],
        ] {
            let out = run_on(&env, &env.bank(), args);
            let said = text(&out);
            assert_eq!(
                out.status.code(),
                Some(BANK_ERROR),
                "{index}: {args:?}: {said}"
            );
            assert!(said.contains(&format!("corrupt index {index}")), "{said}");
        }
        let check = run_on(&env, &env.bank(), &["bank", "check"]);
        assert_eq!(check.status.code(), Some(BANK_ERROR), "{}", text(&check));
    }
}
