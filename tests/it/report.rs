//! `nbenv report --html --svg`, opened in a real headless browser (Chromium): the page renders,
//! its tables hold the numbers of known records, its charts are there with a bar per count,
//! markup in records shows as text and never runs, the SVG files parse on their own, and a
//! screenshot shows the bars' colours.
//!
//! The browser is `NBENV_BROWSER`, else `chromium` on `PATH` (Debian:
//! `apt-get install --no-install-recommends chromium`). Without one the browser test says
//! "skipped: no chromium" and passes, unless `NBENV_REQUIRE_BROWSER=1` (as `.ci/run` sets),
//! where it fails.

use std::collections::BTreeMap;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::context::bare_run;
use html5gum::{naive_next_state, Token, Tokenizer};
use serde_json::{json, Value};

/// What a record's markup tries: it must end up as text in the page.
const EVIL_ENAME: &str = "<script>document.title='pwned'</script>";
const EVIL_NOTEBOOK: &str = "<script>alert(1)</script>.ipynb";
/// The bars' colours (`nbenv::measure::chart::{BEFORE, AFTER}`), as pixels.
const BEFORE_RGB: [u8; 3] = [0xd9, 0x5f, 0x02];
const AFTER_RGB: [u8; 3] = [0x1b, 0x9e, 0x77];
/// Headless Chromium can be slow to start on a loaded machine.
const BROWSER_TIMEOUT: Duration = Duration::from_secs(60);

// ---- Records with every number known -------------------------------------------------------

fn exe(ran: u32, of: u32) -> Value {
    if ran < of {
        json!({"cells_ran": ran, "code_cells": of, "first_error_cell": ran + 1})
    } else {
        json!({"cells_ran": ran, "code_cells": of})
    }
}

fn error(ename: &str, class: &str, cause: &str) -> Value {
    json!({"class": class, "cause": cause, "ename": ename, "message": "…", "cell": 1})
}

fn env(python: &str, reqs: &[(&str, &str)]) -> Value {
    let reqs: Vec<Value> = reqs
        .iter()
        .map(|(d, v)| json!({"dist": d, "version": v}))
        .collect();
    json!({"python": python, "python_installed": true, "requirements": reqs,
           "dependencies": [{"dist": "numpy", "version": "1.18.0"}]})
}

fn record(path: &str, stage: &str, status: &str, extra: Value) -> String {
    let mut r = json!({"schema": 1, "nbenv": "0.1.0", "path": path,
                       "sha256": format!("{path}-hash"), "stage": stage, "status": status,
                       "timings": {"total_ms": 1.0}});
    for (k, v) in extra.as_object().unwrap() {
        r[k] = v.clone();
    }
    r.to_string() + "\n"
}

/// Six notebooks run (two verify, four restore) and one unreadable: executable 1; restorable
/// 3 (environment 2, data/input 1; 2 ran to the end after repair); pathological 2.
fn records() -> String {
    let pandas = env("3.8", &[("pandas", "1.0.0")]);
    let missing = || error("ModuleNotFoundError", "environment", "missing_module");
    let no_file = || error("FileNotFoundError", "data_input", "missing_file");
    let evil = || error(EVIL_ENAME, "code", "raised");
    [
        record(
            "n1.ipynb",
            "verify",
            "ok",
            json!({"executability_before": exe(5, 5), "verdict": {"kind": "executable"},
                   "environment": pandas}),
        ),
        record(
            "n2.ipynb",
            "restore",
            "ok",
            json!({"executability_before": exe(2, 10), "executability_after": exe(10, 10),
                   "first_error": missing(), "error_sequence": [missing()],
                   "verdict": {"kind": "restorable", "by": "environment"}, "environment": pandas}),
        ),
        record(
            "n3.ipynb",
            "restore",
            "ok",
            json!({"executability_before": exe(0, 4), "executability_after": exe(1, 4),
                   "first_error": no_file(), "error_sequence": [no_file(), no_file()],
                   "verdict": {"kind": "restorable", "by": "data_input"},
                   "environment": env("3.7", &[("pandas", "0.25.3")])}),
        ),
        record(
            "n4.ipynb",
            "verify",
            "ok",
            json!({"executability_before": exe(3, 6),
                   "first_error": error("ValueError", "code", "raised"),
                   "verdict": {"kind": "pathological"}, "environment": pandas,
                   "release_failures": [{"dist": "pandas", "version": "1.0.0", "python": "3.8",
                                         "kind": "install"}]}),
        ),
        record(
            "n5.ipynb",
            "restore",
            "ok",
            json!({"executability_before": exe(1, 8), "executability_after": exe(8, 8),
                   "first_error": missing(), "error_sequence": [missing()],
                   "verdict": {"kind": "restorable", "by": "environment"}, "environment": pandas,
                   "release_failures": [{"dist": "numpy", "version": "1.18.0", "python": "3.8",
                                         "kind": "import"}]}),
        ),
        record(
            EVIL_NOTEBOOK,
            "restore",
            "ok",
            json!({"executability_before": exe(2, 3), "executability_after": exe(2, 3),
                   "first_error": evil(), "error_sequence": [evil()],
                   "verdict": {"kind": "pathological"}, "environment": pandas}),
        ),
        record(
            "n7.ipynb",
            "usage",
            "error",
            json!({"error": {"kind": "broken_json", "message": "n7.ipynb: broken JSON"}}),
        ),
    ]
    .concat()
}

/// The records under a path that is itself markup: `DIR/<script>alert(1)</script>.jsonl`.
fn write_records(dir: &Path) -> PathBuf {
    let folder = dir.join("<script>alert(1)<");
    std::fs::create_dir_all(&folder).unwrap();
    let path = folder.join("script>.jsonl");
    std::fs::write(&path, records()).unwrap();
    path
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

// ---- A DOM, from Chromium's serialization --------------------------------------------------

#[derive(Debug)]
struct Element {
    name: String,
    attrs: BTreeMap<String, String>,
    /// Text content, descendants' included.
    text: String,
    parent: Option<usize>,
}

struct Dom {
    elements: Vec<Element>,
    /// Tokenizer errors: markup that does not parse cleanly.
    errors: Vec<String>,
}

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

impl Dom {
    fn parse(text: &str) -> Dom {
        let mut tokens = Tokenizer::new(text);
        let mut elements: Vec<Element> = Vec::new();
        let mut errors = Vec::new();
        let mut open: Vec<usize> = Vec::new();
        while let Some(Ok(token)) = tokens.next() {
            match token {
                Token::StartTag(tag) => {
                    if let Some(state) = naive_next_state(&tag.name) {
                        tokens.set_state(state);
                    }
                    let name = lossy(&tag.name);
                    let void = tag.self_closing || ["meta", "link", "br", "img"].contains(&&*name);
                    elements.push(Element {
                        attrs: tag
                            .attributes
                            .iter()
                            .map(|(k, v)| (lossy(k), lossy(v)))
                            .collect(),
                        name,
                        text: String::new(),
                        parent: open.last().copied(),
                    });
                    if !void {
                        open.push(elements.len() - 1);
                    }
                }
                Token::EndTag(tag) => {
                    let name = lossy(&tag.name);
                    if let Some(at) = open.iter().rposition(|&i| elements[i].name == name) {
                        open.truncate(at);
                    }
                }
                Token::String(text) => {
                    let text = lossy(&text);
                    for &i in &open {
                        elements[i].text.push_str(&text);
                    }
                }
                Token::Error(e) => errors.push(format!("{e:?}")),
                _ => {}
            }
        }
        Dom { elements, errors }
    }

    fn all(&self, name: &str) -> Vec<usize> {
        (0..self.elements.len())
            .filter(|&i| self.elements[i].name == name)
            .collect()
    }

    fn by_id(&self, id: &str) -> usize {
        (0..self.elements.len())
            .find(|&i| self.elements[i].attrs.get("id").map(String::as_str) == Some(id))
            .unwrap_or_else(|| panic!("no element #{id}"))
    }

    fn within(&self, mut i: usize, ancestor: usize) -> bool {
        while let Some(p) = self.elements[i].parent {
            if p == ancestor {
                return true;
            }
            i = p;
        }
        false
    }

    fn descendants(&self, ancestor: usize, name: &str) -> Vec<usize> {
        self.all(name)
            .into_iter()
            .filter(|&i| self.within(i, ancestor))
            .collect()
    }

    fn attr(&self, i: usize, name: &str) -> &str {
        self.elements[i]
            .attrs
            .get(name)
            .map(String::as_str)
            .unwrap_or_default()
    }

    /// The body rows of `<table id=ID>`, cell texts trimmed.
    fn rows(&self, id: &str) -> Vec<Vec<String>> {
        let table = self.by_id(&format!("table-{id}"));
        self.descendants(table, "tr")
            .into_iter()
            .filter(|&tr| self.descendants(tr, "th").is_empty())
            .map(|tr| {
                self.descendants(tr, "td")
                    .into_iter()
                    .map(|td| self.elements[td].text.trim().to_string())
                    .collect()
            })
            .collect()
    }

    /// The bars of the chart under `root`: (group, series, count, height).
    fn bars(&self, root: usize) -> Vec<(String, String, usize, f64)> {
        self.descendants(root, "rect")
            .into_iter()
            .filter(|&r| self.attr(r, "class") == "bar")
            .map(|r| {
                // Each bar carries a tooltip saying its count.
                let titles = self.descendants(r, "title");
                assert_eq!(titles.len(), 1, "a bar without its title");
                let count: usize = self.attr(r, "data-count").parse().unwrap();
                assert!(
                    self.elements[titles[0]]
                        .text
                        .ends_with(&format!(": {count}")),
                    "{:?}",
                    self.elements[titles[0]]
                );
                (
                    self.attr(r, "data-group").to_string(),
                    self.attr(r, "data-series").to_string(),
                    count,
                    self.attr(r, "height").parse().unwrap(),
                )
            })
            .collect()
    }
}

fn rows(rows: &[&[&str]]) -> Vec<Vec<String>> {
    rows.iter()
        .map(|r| r.iter().map(|c| c.to_string()).collect())
        .collect()
}

/// Bars as (group, count) per series, and each chart's heights proportional to its counts.
fn counts(bars: &[(String, String, usize, f64)], series: &str) -> Vec<(String, usize)> {
    let unit = bars
        .iter()
        .filter(|b| b.2 > 0)
        .map(|b| b.3 / b.2 as f64)
        .next()
        .unwrap();
    for (group, series, count, height) in bars {
        assert!(
            (height - *count as f64 * unit).abs() < 0.02,
            "{group} {series}: {count} drawn {height} high, {unit} a notebook"
        );
    }
    bars.iter()
        .filter(|b| b.1.starts_with(series))
        .map(|b| (b.0.clone(), b.2))
        .collect()
}

fn pairs(list: &[(&str, usize)]) -> Vec<(String, usize)> {
    list.iter().map(|(g, n)| (g.to_string(), *n)).collect()
}

// ---- The browser ---------------------------------------------------------------------------

/// `NBENV_BROWSER`, else `chromium` on `PATH`.
fn find_browser() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("NBENV_BROWSER").filter(|p| !p.is_empty()) {
        let path = PathBuf::from(path);
        assert!(
            path.is_file(),
            "NBENV_BROWSER={} is not a file",
            path.display()
        );
        return Some(path);
    }
    let paths = std::env::var_os("PATH")?;
    std::env::split_paths(&paths)
        .map(|dir| dir.join("chromium"))
        .find(|p| p.is_file())
}

struct Browser {
    path: PathBuf,
    /// A profile of its own: no state shared with other runs or a user's browser.
    profile: tempfile::TempDir,
}

impl Browser {
    /// Runs headless Chromium on `url` with `args`, within [`BROWSER_TIMEOUT`]; its stdout.
    fn run(&self, args: &[String], url: &str) -> Vec<u8> {
        use std::os::unix::process::CommandExt as _;
        let mut child = Command::new(&self.path)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--disable-extensions",
                "--hide-scrollbars",
                "--force-device-scale-factor=1",
            ])
            .arg(format!("--user-data-dir={}", self.profile.path().display()))
            .args(args)
            .arg(url)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // Its own process group: a hung browser is killed with its renderers.
            .process_group(0)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", self.path.display()));
        let mut stdout = child.stdout.take().unwrap();
        let mut stderr = child.stderr.take().unwrap();
        let out = std::thread::spawn(move || {
            let mut b = Vec::new();
            stdout.read_to_end(&mut b).map(|_| b)
        });
        let err = std::thread::spawn(move || {
            let mut b = Vec::new();
            stderr.read_to_end(&mut b).map(|_| b)
        });
        let started = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if started.elapsed() > BROWSER_TIMEOUT {
                // SAFETY: signals the process group this test started, nothing else.
                unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
                let _ = child.wait();
                panic!(
                    "{} {args:?} {url}: no answer in {BROWSER_TIMEOUT:?}",
                    self.path.display()
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        let stdout = out.join().unwrap().unwrap();
        let stderr = err.join().unwrap().unwrap();
        assert!(
            status.success(),
            "{} {args:?} {url}: {status}\n{}",
            self.path.display(),
            String::from_utf8_lossy(&stderr)
        );
        stdout
    }

    fn dump_dom(&self, file: &Path) -> String {
        let out = self.run(&["--dump-dom".into()], &file_url(file));
        String::from_utf8(out).unwrap()
    }

    fn screenshot(&self, file: &Path, png: &Path, width: u32, height: u32) -> Vec<u8> {
        self.run(
            &[
                format!("--screenshot={}", png.display()),
                format!("--window-size={width},{height}"),
            ],
            &file_url(file),
        );
        std::fs::read(png).unwrap()
    }
}

/// A `file://` URL, its path percent-encoded (the folder's name holds `<`, `>` and `(`).
fn file_url(path: &Path) -> String {
    let mut url = String::from("file://");
    for b in path.to_str().unwrap().bytes() {
        if b.is_ascii_alphanumeric() || b"/-_.~".contains(&b) {
            url.push(b as char);
        } else {
            url.push_str(&format!("%{b:02X}"));
        }
    }
    url
}

// ---- PNG, enough of it to read a screenshot's pixels ---------------------------------------

/// Width, height and RGB pixels of an 8-bit, non-interlaced RGB or RGBA PNG (what Chromium
/// writes).
fn decode_png(bytes: &[u8]) -> (u32, u32, Vec<[u8; 3]>) {
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
    let mut at = 8;
    let (mut width, mut height, mut channels) = (0u32, 0u32, 0usize);
    let mut data = Vec::new();
    while at + 8 <= bytes.len() {
        let len = u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        let kind = &bytes[at + 4..at + 8];
        let body = &bytes[at + 8..at + 8 + len];
        match kind {
            b"IHDR" => {
                width = u32::from_be_bytes(body[0..4].try_into().unwrap());
                height = u32::from_be_bytes(body[4..8].try_into().unwrap());
                assert_eq!(body[8], 8, "bit depth");
                assert_eq!(body[12], 0, "interlaced");
                channels = match body[9] {
                    2 => 3,
                    6 => 4,
                    other => panic!("colour type {other}"),
                };
            }
            b"IDAT" => data.extend_from_slice(body),
            b"IEND" => break,
            _ => {}
        }
        at += 12 + len;
    }
    let mut raw = Vec::new();
    flate2::read::ZlibDecoder::new(&data[..])
        .read_to_end(&mut raw)
        .unwrap();
    let stride = width as usize * channels;
    assert_eq!(raw.len(), (stride + 1) * height as usize, "image data size");
    let mut pixels = Vec::with_capacity((width * height) as usize);
    let mut previous = vec![0u8; stride];
    let mut row = vec![0u8; stride];
    for y in 0..height as usize {
        let line = &raw[y * (stride + 1)..(y + 1) * (stride + 1)];
        let filter = line[0];
        for x in 0..stride {
            let a = if x >= channels { row[x - channels] } else { 0 };
            let b = previous[x];
            let c = if x >= channels {
                previous[x - channels]
            } else {
                0
            };
            let predicted = match filter {
                0 => 0,
                1 => a,
                2 => b,
                3 => ((u16::from(a) + u16::from(b)) / 2) as u8,
                4 => paeth(a, b, c),
                other => panic!("filter {other}"),
            };
            row[x] = line[1 + x].wrapping_add(predicted);
        }
        for p in row.chunks(channels) {
            pixels.push([p[0], p[1], p[2]]);
        }
        std::mem::swap(&mut previous, &mut row);
    }
    (width, height, pixels)
}

fn paeth(a: u8, b: u8, c: u8) -> u8 {
    let p = i16::from(a) + i16::from(b) - i16::from(c);
    let (pa, pb, pc) = (
        (p - i16::from(a)).abs(),
        (p - i16::from(b)).abs(),
        (p - i16::from(c)).abs(),
    );
    if pa <= pb && pa <= pc {
        a
    } else if pb <= pc {
        b
    } else {
        c
    }
}

fn near(p: [u8; 3], q: [u8; 3]) -> bool {
    p.iter().zip(q).all(|(a, b)| a.abs_diff(b) <= 6)
}

// ---- The tests -----------------------------------------------------------------------------

#[test]
fn the_html_report_renders_in_a_headless_browser() {
    let dir = tempfile::tempdir().unwrap();
    let records = write_records(dir.path());
    let html = dir.path().join("report.html");
    let charts = dir.path().join("charts");
    let (code, out, err) = bare_run([
        "report",
        s(&records),
        "--html",
        s(&html),
        "--svg",
        s(&charts),
        "--format",
        "json",
    ])
    .parts();
    assert_eq!(code, 0, "{err}");
    // Standard output still gets the format asked for.
    let json: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["notebooks"], 7);
    assert_eq!(json["error_classes"]["runs_before"], 6);

    // The page as written parses without a single tokenizer error.
    let written = std::fs::read_to_string(&html).unwrap();
    let parsed = Dom::parse(&written);
    assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);

    let Some(path) = find_browser() else {
        if std::env::var("NBENV_REQUIRE_BROWSER").as_deref() == Ok("1") {
            panic!(
                "NBENV_REQUIRE_BROWSER=1 and no browser: set NBENV_BROWSER or put chromium on PATH"
            );
        }
        eprintln!(
            "skipped: no chromium (set NBENV_BROWSER or install chromium; NBENV_REQUIRE_BROWSER=1 makes this a failure)"
        );
        return;
    };
    let browser = Browser {
        path,
        profile: tempfile::tempdir().unwrap(),
    };

    let dom = Dom::parse(&browser.dump_dom(&html));
    // The markup in the records stayed text: nothing ran, nothing was added.
    assert!(dom.all("script").is_empty());
    let title = dom.all("title")[0];
    assert_eq!(dom.elements[title].text, "nbenv report: 7 notebooks");
    // The whole page made it into the document.
    assert_eq!(dom.elements[dom.by_id("end")].name, "footer");

    // The tables, with the numbers of the records.
    assert_eq!(
        dom.rows("outcomes"),
        rows(&[
            &["executable: ran to the end as it was", "1", "16.7%"],
            &[
                "restorable: stopped at the environment or its data",
                "3",
                "50.0%"
            ],
            &["by environment", "2", "33.3%"],
            &["by data/input", "1", "16.7%"],
            &["ran to the end after repair", "2", "33.3%"],
            &[
                "pathological: stopped at its own code, which no environment repairs",
                "2",
                "33.3%",
            ],
        ])
    );
    assert_eq!(
        dom.rows("statuses"),
        rows(&[&["ok", "6", "85.7%"], &["error", "1", "14.3%"]])
    );
    assert_eq!(
        dom.rows("errors-before"),
        rows(&[
            &["ModuleNotFoundError", "environment", "2"],
            &[EVIL_ENAME, "code", "1"],
            &["FileNotFoundError", "data/input", "1"],
            &["ValueError", "code", "1"],
        ])
    );
    assert_eq!(
        dom.rows("errors-after"),
        rows(&[
            &[EVIL_ENAME, "code", "1"],
            &["FileNotFoundError", "data/input", "1"],
        ])
    );
    let executability: Vec<Vec<String>> = dom
        .rows("executability")
        .into_iter()
        .filter(|r| r[1] != "0" || r[2] != "0")
        .collect();
    assert_eq!(
        executability,
        rows(&[
            &["0%", "1", "0"],
            &["10–20%", "1", "0"],
            &["20–30%", "1", "1"],
            &["50–60%", "1", "0"],
            &["60–70%", "1", "1"],
            &["100%", "1", "2"],
        ])
    );
    assert_eq!(
        dom.rows("distributions"),
        rows(&[&["pandas", "6", "100.0%", "1.0.0 (5), 0.25.3 (1)"]])
    );
    assert_eq!(
        dom.rows("release-failures"),
        rows(&[
            &["numpy 1.18.0", "3.8", "5", "0", "1", "20.0%"],
            &["pandas 1.0.0", "3.8", "5", "1", "0", "20.0%"],
        ])
    );
    assert_eq!(dom.rows("triage"), rows(&[&["no notebook could be read"]]));
    let inputs = dom.rows("inputs");
    assert_eq!(inputs.len(), 1);
    assert_eq!(inputs[0][0], records.display().to_string());
    assert!(inputs[0][0].ends_with("/<script>alert(1)</script>.jsonl"));
    assert_eq!(inputs[0][1..4], ["7", "no", "none"]);

    // The charts: three SVGs in their figures, a bar per count, heights to scale.
    let svgs = dom.all("svg");
    assert_eq!(svgs.len(), 3);
    let chart = |id: &str| -> usize {
        let figure = dom.by_id(&format!("figure-{id}"));
        let svg = dom.descendants(figure, "svg");
        assert_eq!(svg.len(), 1, "{id}");
        svg[0]
    };
    let classes = dom.bars(chart("error-classes"));
    assert_eq!(classes.len(), 8);
    assert_eq!(
        counts(&classes, "before"),
        pairs(&[
            ("environment", 2),
            ("data/input", 1),
            ("code", 2),
            ("ran to the end", 1)
        ])
    );
    assert_eq!(
        counts(&classes, "after"),
        pairs(&[
            ("environment", 0),
            ("data/input", 1),
            ("code", 1),
            ("ran to the end", 2)
        ])
    );
    let histogram = dom.bars(chart("executability"));
    assert_eq!(
        histogram.len(),
        24,
        "0%, ten deciles, 100%; before and after"
    );
    let after: Vec<(String, usize)> = counts(&histogram, "after")
        .into_iter()
        .filter(|(_, n)| *n > 0)
        .collect();
    assert_eq!(after, pairs(&[("20–30%", 1), ("60–70%", 1), ("100%", 2)]));
    let verdicts = dom.bars(chart("verdicts"));
    assert_eq!(
        counts(&verdicts, ""),
        pairs(&[
            ("executable", 1),
            ("restorable: environment", 2),
            ("restorable: data/input", 1),
            ("pathological", 2)
        ])
    );
    // Titles for screen readers and tooltips: the chart's and one per bar.
    assert_eq!(
        dom.descendants(chart("verdicts"), "title").len(),
        1 + verdicts.len()
    );

    // Each SVG file on its own: well-formed XML (Chromium shows a `parsererror` otherwise),
    // with the same bars.
    for (id, bars) in [("error-classes", 8), ("executability", 24), ("verdicts", 4)] {
        let file = charts.join(format!("{id}.svg"));
        let svg = Dom::parse(&browser.dump_dom(&file));
        assert!(svg.all("parsererror").is_empty(), "{id}.svg does not parse");
        let root = svg.all("svg");
        assert_eq!(root.len(), 1, "{id}");
        assert_eq!(svg.bars(root[0]).len(), bars, "{id}");
    }

    // What a person sees: a PNG that is not blank, with both series' colours drawn.
    let png = browser.screenshot(&html, &dir.path().join("shot.png"), 1000, 1600);
    let (width, height, pixels) = decode_png(&png);
    assert_eq!((width, height), (1000, 1600));
    let colours: std::collections::HashSet<[u8; 3]> = pixels.iter().copied().collect();
    assert!(
        colours.len() > 16,
        "{} colours: a blank page",
        colours.len()
    );
    let before = pixels.iter().filter(|&&p| near(p, BEFORE_RGB)).count();
    let after = pixels.iter().filter(|&&p| near(p, AFTER_RGB)).count();
    assert!(
        before > 1000 && after > 1000,
        "bars drawn: {before} pixels of the before colour, {after} of the after colour"
    );
}

#[test]
fn charts_are_the_same_bytes_every_time_and_files_are_written_whole() {
    let dir = tempfile::tempdir().unwrap();
    let records = write_records(dir.path());
    let (one, two) = (dir.path().join("one"), dir.path().join("two"));
    for out in [&one, &two] {
        let (code, _, err) = bare_run(["report", s(&records), "--svg", s(out), "-q"]).parts();
        assert_eq!(code, 0, "{err}");
    }
    let names = |d: &Path| -> Vec<String> {
        let mut n: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        n.sort();
        n
    };
    // No temporary file left beside them.
    assert_eq!(
        names(&one),
        ["error-classes.svg", "executability.svg", "verdicts.svg"]
    );
    for name in names(&one) {
        let a = std::fs::read(one.join(&name)).unwrap();
        assert_eq!(a, std::fs::read(two.join(&name)).unwrap(), "{name}");
        assert!(a.starts_with(b"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg "));
    }
    // Readable by others, as any new file (umask permitting): pages are made to be shared.
    use std::os::unix::fs::PermissionsExt as _;
    let mode = std::fs::metadata(one.join("verdicts.svg"))
        .unwrap()
        .permissions()
        .mode();
    assert_ne!(mode & 0o044, 0, "{mode:o}");

    // An empty input: charts that say so, not a crash.
    let empty = dir.path().join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    let out = dir.path().join("empty");
    let html = dir.path().join("empty.html");
    let (code, _, err) =
        bare_run(["report", s(&empty), "--svg", s(&out), "--html", s(&html)]).parts();
    assert_eq!(code, 0, "{err}");
    for name in names(&out) {
        let svg = std::fs::read_to_string(out.join(&name)).unwrap();
        assert!(svg.contains(">no data</text>"), "{name}");
    }
    assert_eq!(
        std::fs::read_to_string(&html)
            .unwrap()
            .matches(">no data</text>")
            .count(),
        3
    );
}

#[test]
fn an_unwritable_path_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let records = write_records(dir.path());
    // A path under a file: no one can write there, root included.
    let file = dir.path().join("file.txt");
    std::fs::write(&file, "x").unwrap();
    let html = file.join("report.html");
    let (code, out, err) = bare_run(["report", s(&records), "--html", s(&html)]).parts();
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains(&format!(
            "cannot write the HTML report to {}",
            html.display()
        )),
        "{err}"
    );
    // Nothing printed: the files are written first.
    assert!(out.is_empty(), "{out}");

    let (code, _, err) = bare_run(["report", s(&records), "--svg", s(&file)]).parts();
    assert_eq!(code, 1, "{err}");
    assert!(err.contains(&file.display().to_string()), "{err}");
}
