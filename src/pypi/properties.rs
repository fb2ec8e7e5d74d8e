//! Property tests: every reader of what an index serves (PEP 503 and 691 pages, core
//! metadata, zip and tar archives) returns a value or an error on any input, generated or
//! mutated from a valid one, and never panics. `PROPTEST_CASES` sets how many inputs each
//! property gets (README: running them longer).

use std::io::{Cursor, Write};

use proptest::prelude::*;
use serde_json::{json, Value};

use super::archive::ArchiveLimits;
use super::byte_source::LocalBytes;
use super::filename::SdistFormat;
use super::metadata::CoreMetadata;
use super::project::PageFormat;
use super::sdist::read_sdist;
use super::simple_page::build_page;
use super::zip_reader::read_zip;
use super::{simple_html, simple_json};
use crate::names::DistName;

/// One edit of a valid input; positions are taken modulo its length.
#[derive(Debug, Clone)]
enum Mutation {
    Flip(usize, u8),
    Set(usize, u8),
    /// Four bytes of a value parsers treat specially (0, 0xFF.., a signature byte).
    Word(usize, u32),
    Insert(usize, Vec<u8>),
    Delete(usize, usize),
    Truncate(usize),
}

fn mutations() -> impl Strategy<Value = Vec<Mutation>> {
    let word = prop_oneof![
        Just(0u32),
        Just(u32::MAX),
        Just(0xFFFF),
        Just(0x0403_4b50),
        Just(0x0201_4b50),
        Just(0x0606_4b50),
        Just(0x0706_4b50),
        any::<u32>(),
    ];
    let one = prop_oneof![
        4 => (any::<usize>(), 1u8..).prop_map(|(at, x)| Mutation::Flip(at, x)),
        2 => (any::<usize>(), any::<u8>()).prop_map(|(at, b)| Mutation::Set(at, b)),
        3 => (any::<usize>(), word).prop_map(|(at, w)| Mutation::Word(at, w)),
        1 => (any::<usize>(), prop::collection::vec(any::<u8>(), 1..16))
            .prop_map(|(at, b)| Mutation::Insert(at, b)),
        1 => (any::<usize>(), 1usize..64).prop_map(|(at, n)| Mutation::Delete(at, n)),
        1 => any::<usize>().prop_map(Mutation::Truncate),
    ];
    prop::collection::vec(one, 1..6)
}

fn mutate(mut bytes: Vec<u8>, edits: &[Mutation]) -> Vec<u8> {
    for edit in edits {
        let len = bytes.len().max(1);
        match edit {
            Mutation::Flip(at, x) => {
                if let Some(b) = bytes.get_mut(at % len) {
                    *b ^= x;
                }
            }
            Mutation::Set(at, v) => {
                if let Some(b) = bytes.get_mut(at % len) {
                    *b = *v;
                }
            }
            Mutation::Word(at, w) => {
                let at = at % len;
                for (i, b) in w.to_le_bytes().into_iter().enumerate() {
                    if let Some(slot) = bytes.get_mut(at + i) {
                        *slot = b;
                    }
                }
            }
            Mutation::Insert(at, new) => {
                let at = at % (bytes.len() + 1);
                bytes.splice(at..at, new.iter().copied());
            }
            Mutation::Delete(at, n) => {
                let at = at % len;
                let end = (at + n).min(bytes.len());
                if at < end {
                    bytes.drain(at..end);
                }
            }
            Mutation::Truncate(at) => bytes.truncate(at % len),
        }
    }
    bytes
}

/// Small limits, so that a mutated size field is refused rather than read.
fn limits() -> ArchiveLimits {
    ArchiveLimits {
        max_members: 1_000,
        max_member_size: 1 << 20,
        max_total_size: 8 << 20,
        max_streamed_size: 8 << 20,
    }
}

fn member_names() -> impl Strategy<Value = Vec<String>> {
    prop::collection::btree_set("[a-z]{1,6}(/[a-z_]{1,8}){0,2}\\.(py|txt)", 1..6)
        .prop_map(|s| s.into_iter().collect())
}

fn zip_archive(names: &[String], zip64: bool, deflate: bool) -> Vec<u8> {
    let method = if deflate {
        zip::CompressionMethod::Deflated
    } else {
        zip::CompressionMethod::Stored
    };
    let mut w = zip::ZipWriter::new(Cursor::new(Vec::new()));
    for (i, name) in names.iter().enumerate() {
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(method)
            .large_file(zip64 && i % 2 == 0);
        w.start_file(name.as_str(), options).unwrap();
        w.write_all(format!("# {name}\nx = {i}\n").repeat(i + 1).as_bytes())
            .unwrap();
    }
    if zip64 {
        w.set_raw_zip64_extensible_data_sector(Box::new([]));
    }
    w.finish().unwrap().into_inner()
}

fn tar_archive(names: &[String]) -> Vec<u8> {
    let mut builder = tar::Builder::new(Vec::new());
    for (i, name) in names.iter().enumerate() {
        let data = format!("# {name}\n").repeat(i + 1);
        let mut header = tar::Header::new_gnu();
        header.set_size(data.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        builder
            .append_data(&mut header, format!("pkg-1.0/{name}"), data.as_bytes())
            .unwrap();
    }
    builder.into_inner().unwrap()
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(bytes).unwrap();
    enc.finish().unwrap()
}

fn bzip2(bytes: &[u8]) -> Vec<u8> {
    let mut enc = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
    enc.write_all(bytes).unwrap();
    enc.finish().unwrap()
}

fn read_zip_bytes(bytes: &[u8]) {
    let mut source = LocalBytes {
        name: "fuzz.zip",
        bytes,
    };
    let _ = read_zip(&mut source, &|_: &str| true, &limits());
}

/// A project page as an HTML index could write it, attributes in any order and quoting.
fn html_page() -> impl Strategy<Value = String> {
    let value = "[ -~]{0,24}";
    let attribute = (
        prop::sample::select(vec![
            "href",
            "data-requires-python",
            "data-yanked",
            "data-core-metadata",
            "data-dist-info-metadata",
            "rel",
        ]),
        value,
        prop::sample::select(vec!["\"", "'", ""]),
    )
        .prop_map(|(name, value, quote)| format!(" {name}={quote}{value}{quote}"));
    let anchor = (prop::collection::vec(attribute, 0..5), "[ -~]{0,30}")
        .prop_map(|(attrs, text)| format!("<a{}>{text}</a><br/>\n", attrs.concat()));
    let noise = prop::sample::select(vec![
        "<!DOCTYPE html>",
        "<html><head><title>Links</title>",
        "<base href=\"../\">",
        "<!-- a comment <a href=x> -->",
        "<script>var a = '<a href=\"y\">';</script>",
        "<h1>Links for x</h1>",
        "</body></html>",
        "&amp;&lt;&#62;&bogus;&",
        "<a",
        "<",
        "\"",
    ]);
    prop::collection::vec(
        prop_oneof![3 => anchor, 1 => noise.prop_map(str::to_string)],
        0..12,
    )
    .prop_map(|parts| parts.concat())
}

/// A JSON value of any shape, to stand where a field of a page is expected.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>().prop_map(|n| json!(n)),
        "[ -~]{0,20}".prop_map(Value::String),
        Just(json!("2019-01-02T03:04:05.123456Z")),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z-]{1,10}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn json_page() -> impl Strategy<Value = Value> {
    let field = prop::sample::select(vec![
        "filename",
        "url",
        "hashes",
        "requires-python",
        "size",
        "upload-time",
        "yanked",
        "core-metadata",
        "dist-info-metadata",
    ]);
    let file = prop::collection::btree_map(field, json_value(), 0..9)
        .prop_map(|m| Value::Object(m.into_iter().map(|(k, v)| (k.to_string(), v)).collect()));
    (prop::collection::vec(file, 0..6), json_value())
        .prop_map(|(files, meta)| json!({"meta": meta, "name": "foo", "files": files}))
}

fn metadata_text() -> impl Strategy<Value = String> {
    let header = prop_oneof![
        "Requires-Dist: [ -~]{0,40}",
        "Requires-Dist: [a-z]{1,8} \\(([<>=!~]{1,2}[0-9a-z.*]{0,6},?){0,3}\\)( ?; ?[ -~]{0,30})?",
        "Requires-Dist: [a-z]{1,8}(\\[[a-z,]{0,10}\\])?[<>=!~]{0,2}[0-9.]{0,6}( ; (python_version|extra|sys_platform) ?[<>=!]{1,2} ?['\"][ -~]{0,8}['\"])?",
        "Requires-Python: [ -~]{0,20}",
        "Provides-Extra: [ -~]{0,10}",
        "Name: [ -~]{0,10}",
        "Version: [ -~]{0,10}",
        "[ \t][ -~]{0,20}",
        "[ -~]{0,30}",
    ];
    prop::collection::vec(header, 0..12).prop_map(|lines| {
        format!(
            "Metadata-Version: 2.1\nName: x\nVersion: 1\n{}\n\nbody",
            lines.join("\n")
        )
    })
}

proptest! {
    #[test]
    fn html_pages_never_panic(page in html_page(), edits in mutations()) {
        let page_url = reqwest::Url::parse("https://index.test/simple/foo/").unwrap();
        let name = DistName::new("foo").unwrap();
        for body in [page.clone().into_bytes(), mutate(page.into_bytes(), &edits)] {
            let (raw, base) = simple_html::parse(&body);
            let base = base.and_then(|b| page_url.join(&b).ok()).unwrap_or(page_url.clone());
            let _ = build_page(&name, &base, PageFormat::Html, raw);
        }
    }

    /// Any value written with the quoting HTML allows comes back as written, whatever it holds
    /// (`>` included) and wherever the attribute stands.
    #[test]
    fn html_attributes_round_trip(
        href in "[!-~&&[^\"&<]]{1,30}",
        requires_python in "[ -~]{0,20}",
        first in any::<bool>(),
    ) {
        let escaped = requires_python.replace('&', "&amp;").replace('"', "&quot;");
        let rp = format!("data-requires-python=\"{escaped}\"");
        let link = format!("href=\"{}\"", href.replace('>', "&gt;"));
        let attrs = if first { format!("{rp} {link}") } else { format!("{link} {rp}") };
        let (files, _) = simple_html::parse(format!("<a {attrs}>x</a>").as_bytes());
        prop_assert_eq!(files.len(), 1);
        prop_assert_eq!(&files[0].href, &href);
        prop_assert_eq!(files[0].requires_python.as_deref(), Some(requires_python.as_str()));
    }

    #[test]
    fn json_pages_never_panic(page in json_page(), edits in mutations()) {
        let page_url = reqwest::Url::parse("https://index.test/simple/foo/").unwrap();
        let name = DistName::new("foo").unwrap();
        let bytes = serde_json::to_vec(&page).unwrap();
        for body in [bytes.clone(), mutate(bytes, &edits)] {
            if let Ok(raw) = simple_json::parse(&body) {
                let _ = build_page(&name, &page_url, PageFormat::Json, raw);
            }
        }
    }

    #[test]
    fn core_metadata_never_panics(text in metadata_text(), edits in mutations()) {
        for bytes in [text.clone().into_bytes(), mutate(text.into_bytes(), &edits)] {
            if let Ok(meta) = CoreMetadata::parse(&bytes) {
                for requirement in meta.requirements().into_iter().flatten() {
                    let _ = requirement.requirement.to_string();
                }
            }
        }
    }

    #[test]
    fn zip_archives_never_panic(
        names in member_names(),
        zip64 in any::<bool>(),
        deflate in any::<bool>(),
        edits in mutations(),
    ) {
        let archive = zip_archive(&names, zip64, deflate);
        read_zip_bytes(&mutate(archive, &edits));
    }

    /// The central directory and end records alone, mutated: the parts a reader trusts most.
    #[test]
    fn zip_directories_never_panic(names in member_names(), edits in mutations()) {
        let archive = zip_archive(&names, true, false);
        let tail_at = archive.len().saturating_sub(200);
        let (body, tail) = archive.split_at(tail_at);
        let mut bytes = body.to_vec();
        bytes.extend(mutate(tail.to_vec(), &edits));
        read_zip_bytes(&bytes);
    }

    #[test]
    fn tar_streams_never_panic(
        names in member_names(),
        format in prop::sample::select(vec![SdistFormat::Tar, SdistFormat::TarGz, SdistFormat::TarBz2]),
        compress_after in any::<bool>(),
        edits in mutations(),
    ) {
        let tar = tar_archive(&names);
        let compress = |bytes: &[u8]| match format {
            SdistFormat::TarGz => gzip(bytes),
            SdistFormat::TarBz2 => bzip2(bytes),
            _ => bytes.to_vec(),
        };
        // Mutate the tar stream itself, or the compressed bytes.
        let bytes = if compress_after {
            compress(&mutate(tar, &edits))
        } else {
            mutate(compress(&tar), &edits)
        };
        let _ = read_sdist(&bytes, format, "fuzz.tar", &|_: &str| true, &limits());
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..2048)) {
        let _ = simple_html::parse(&bytes);
        let _ = simple_json::parse(&bytes);
        let _ = CoreMetadata::parse(&bytes);
        read_zip_bytes(&bytes);
        for format in [SdistFormat::Tar, SdistFormat::TarGz, SdistFormat::TarBz2, SdistFormat::Zip] {
            let _ = read_sdist(&bytes, format, "fuzz", &|_: &str| true, &limits());
        }
    }
}
