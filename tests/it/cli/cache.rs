//! `nbenv cache info` and `nbenv cache prune` on a cache filled by a real build against the
//! loopback index, with scratch venvs of a live and a dead process beside it.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::support::archives::{sdist_tar_gz, WheelBuilder};
use crate::support::context::TestContext;
use crate::support::server::{FixtureFile, PageMode, TestServer};
use crate::support::snapshot::printed;

use super::human::CACHE_SIZES;

/// `toolkit` 0.9 (an sdist) and 1.0 (a wheel) on the index; the context's temporary
/// directory (`tmp/`) stands for the system's, where scratch venvs go, and it has no
/// installer: uv's own cache is not this test's to touch.
fn context() -> TestContext {
    let server = TestServer::start(PageMode::Json);
    let wheel = WheelBuilder::new("toolkit", "1.0").file("toolkit/__init__.py", "x = 1\n");
    let sdist = sdist_tar_gz(
        "toolkit",
        "0.9",
        &[("toolkit/__init__.py", "y = 2\n")],
        "Name: toolkit\nVersion: 0.9\n",
    );
    server.publish(
        "toolkit",
        &[
            FixtureFile::new("toolkit-0.9.tar.gz", sdist),
            FixtureFile::new(&wheel.filename(), wheel.build()),
        ],
    );
    let ctx = TestContext::with_server(server);
    std::fs::create_dir_all(ctx.cache()).unwrap();
    std::fs::create_dir_all(ctx.path("tmp")).unwrap();
    let (tmp, no_uv) = (ctx.path("tmp"), ctx.path("no-uv"));
    ctx.env("TMPDIR", tmp).env("NBENV_UV", no_uv)
}

fn run(ctx: &TestContext, args: &[&str]) -> Output {
    let out = ctx.output(args);
    assert!(
        out.status.success(),
        "{args:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn json(ctx: &TestContext, args: &[&str]) -> serde_json::Value {
    serde_json::from_slice(&run(ctx, args).stdout).unwrap()
}

/// Fills the cache with a build, plus what older and killed runs leave behind.
fn fill(ctx: &TestContext) -> Leftovers {
    run(ctx, &["bank", "add", "toolkit", "--all-versions"]);
    let old_summaries = ctx.cache().join("summaries-v0.sqlite3");
    std::fs::write(&old_summaries, vec![0u8; 3000]).unwrap();
    // Process ids above the kernel's pid_max never run.
    let dead = ctx.path("tmp").join("nbenv-introspect-99999999-abc");
    let live = ctx
        .path("tmp")
        .join(format!("nbenv-introspect-{}-def", std::process::id()));
    // uv as nbenv installs it when the machine has none.
    let tools = ctx.cache().join("tools/bin");
    std::fs::create_dir_all(&tools).unwrap();
    std::fs::write(tools.join("uv-stand-in"), vec![2u8; 4000]).unwrap();
    for venv in [&dead, &live] {
        std::fs::create_dir_all(venv.join("venv/lib")).unwrap();
        std::fs::write(venv.join("venv/lib/big.so"), vec![1u8; 5000]).unwrap();
    }
    Leftovers {
        old_summaries,
        dead,
        live,
    }
}

struct Leftovers {
    old_summaries: PathBuf,
    dead: PathBuf,
    live: PathBuf,
}

fn part<'a>(info: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    info["parts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["part"] == name)
        .unwrap_or_else(|| panic!("no part {name} in {info}"))
}

fn count(dir: &Path) -> usize {
    let mut n = 0;
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        n += if entry.file_type().unwrap().is_dir() {
            count(&entry.path())
        } else {
            1
        };
    }
    n
}

#[test]
fn info_shows_every_part_against_the_budget() {
    let env = context();
    fill(&env);
    let info = json(
        &env,
        &["--cache-size", "3M", "cache", "info", "--format", "json"],
    );
    assert_eq!(info["schema_version"], 1);
    assert_eq!(info["budget_bytes"], 3 << 20);
    assert_eq!(part(&info, "index_pages")["entries"], 1);
    assert_eq!(part(&info, "compact_index_pages")["entries"], 1);
    // The sdist was streamed and kept whole; the wheel was read by range.
    assert_eq!(part(&info, "archives")["entries"], 1);
    assert_eq!(part(&info, "byte_ranges")["entries"], 1);
    assert!(part(&info, "summary_cache")["bytes"].as_u64().unwrap() > 0);
    assert_eq!(part(&info, "old_summary_caches")["bytes"], 3000);
    assert_eq!(part(&info, "abandoned_scratch_venvs")["entries"], 1);
    assert_eq!(part(&info, "scratch_venvs_in_use")["entries"], 1);
    assert!(
        part(&info, "abandoned_scratch_venvs")["bytes"]
            .as_u64()
            .unwrap()
            >= 5000
    );
    let budgeted = ["archives", "byte_ranges", "core_metadata"]
        .iter()
        .map(|p| part(&info, p)["bytes"].as_u64().unwrap())
        .sum::<u64>();
    assert_eq!(info["budgeted_bytes"], budgeted);

    // The environment sets the budget too; the text says it.
    let out = env
        .command_with(["cache", "info"])
        .env("NBENV_CACHE_SIZE", "512K")
        .output()
        .unwrap();
    filtered_snapshot!(CACHE_SIZES, "cache-info-budget-from-env", printed(&out));
    let bad = env
        .command_with(["cache", "info"])
        .env("NBENV_CACHE_SIZE", "lots")
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn prune_removes_what_can_be_made_again_and_keeps_what_is_in_use() {
    let env = context();
    let left = fill(&env);
    let v1 = env.cache().join("v1");
    let before = count(&v1);

    // A dry run says what would go, and removes nothing.
    let dry = json(&env, &["cache", "prune", "--dry-run", "--format", "json"]);
    assert_eq!(dry["dry_run"], true);
    assert!(dry["freed_bytes"].as_u64().unwrap() > 8000);
    assert_eq!(count(&v1), before);
    assert!(left.dead.exists() && left.old_summaries.exists());

    let pruned = json(&env, &["cache", "prune", "--format", "json"]);
    let removed: Vec<&str> = pruned["removed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["part"].as_str().unwrap())
        .collect();
    assert_eq!(
        removed,
        [
            "archives",
            "byte_ranges",
            "old_summary_caches",
            "abandoned_scratch_venvs"
        ]
    );
    assert!(!left.dead.exists() && !left.old_summaries.exists());
    assert!(left.live.exists(), "a live process's venv was removed");
    assert_eq!(count(&v1.join("files")) + count(&v1.join("ranges")), 0);
    assert_eq!(count(&v1.join("pages")), 1);
    assert_eq!(count(&v1.join("compact")), 1);
    assert!(env.cache().join("summaries-v1.sqlite3").exists());
    assert!(env.cache().join("tools/bin/uv-stand-in").exists());

    // The bank is untouched: queries work, and a refresh downloads no archive.
    run(&env, &["bank", "query", "toolkit.x"]);
    env.server().clear_log();
    run(&env, &["bank", "add", "toolkit", "--all-versions"]);
    assert!(env.server().requests_for(".whl").is_empty());
    assert!(env.server().requests_for(".tar.gz").is_empty());

    // --all: pages and the summary cache too.
    filtered_snapshot!(
        CACHE_SIZES,
        "cache-prune-all",
        env.printed(["cache", "prune", "--all"])
    );
    assert_eq!(count(&v1), 0);
    assert!(!env.cache().join("summaries-v1.sqlite3").exists());
    assert!(!env.cache().join("tools").exists());
    assert!(left.live.exists());
    let again = json(&env, &["cache", "prune", "--all", "--format", "json"]);
    assert_eq!(again["freed_bytes"], 0);
}

/// The environments budget counts the environments and nbenv's own uv cache together, a
/// file uv hard-linked into both once; `cache prune` prunes nbenv's uv cache
/// (`<cache>/uv`: a dangling entry goes) and never one the user chose with `UV_CACHE_DIR`;
/// `--all` cleans nbenv's whole. Uses the `uv` on PATH.
#[test]
fn the_budget_counts_nbenvs_uv_cache_and_prune_never_touches_the_users() {
    let env = context();
    let users = env.root().join("users-uv");
    let ours = env.cache().join("uv");
    for cache in [&users, &ours] {
        std::fs::create_dir_all(cache.join("archive-v0/dangling")).unwrap();
        std::fs::write(cache.join("archive-v0/dangling/f"), vec![3u8; 8192]).unwrap();
    }
    // An environment whose library uv linked from its cache.
    let root = env.cache().join("envs/0123456789abcdef0123");
    std::fs::create_dir_all(root.join("lib")).unwrap();
    std::fs::write(root.join("nbenv-env.json"), "{}").unwrap();
    std::fs::create_dir_all(ours.join("archive-v0/linked")).unwrap();
    std::fs::write(ours.join("archive-v0/linked/big.so"), vec![4u8; 40960]).unwrap();
    std::fs::hard_link(
        ours.join("archive-v0/linked/big.so"),
        root.join("lib/big.so"),
    )
    .unwrap();
    let with_uv = |args: &[&str]| {
        let out = env
            .command_with(args)
            .env_remove("NBENV_UV")
            .env("UV_CACHE_DIR", &users)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        out
    };
    let json = |args: &[&str]| -> serde_json::Value {
        serde_json::from_slice(&with_uv(args).stdout).unwrap()
    };

    let info = json(&["cache", "info", "--format", "json"]);
    let envs = part(&info, "environments")["bytes"].as_u64().unwrap();
    let uv = part(&info, "uv_cache")["bytes"].as_u64().unwrap();
    assert_eq!(part(&info, "environments")["entries"], 1);
    assert_eq!(part(&info, "uv_cache")["location"], ours.to_str().unwrap());
    let shared = info["environments_shared_bytes"].as_u64().unwrap();
    assert!(shared >= 40960, "{info}");
    assert_eq!(info["environments_counted_bytes"], envs + uv - shared);
    assert_eq!(info["users_uv_cache"], users.to_str().unwrap());
    filtered_snapshot!(
        CACHE_SIZES,
        "cache-info-users-uv-cache",
        printed(&with_uv(&["cache", "info"]))
    );

    let pruned = json(&["cache", "prune", "--format", "json"]);
    assert_eq!(pruned["installer_caches"][0]["done"], "pruned", "{pruned}");
    assert!(!ours.join("archive-v0/dangling").exists());
    assert!(users.join("archive-v0/dangling/f").exists());
    assert!(root.join("lib/big.so").exists());

    let all = json(&["cache", "prune", "--all", "--format", "json"]);
    assert_eq!(all["installer_caches"][0]["done"], "cleaned", "{all}");
    assert!(!ours.join("archive-v0/linked").exists());
    assert!(!root.exists(), "--all removes the environments");
    assert!(users.join("archive-v0/dangling/f").exists());
}
