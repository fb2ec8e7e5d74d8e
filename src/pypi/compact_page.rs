//! A project page kept in nbenv's own binary form beside the cached page, so that a warm run
//! reads what the page says without parsing it again.
//!
//! Parsing a JSON page costs about 50 µs per file listed (a `serde_json::Value` tree, a URL
//! parse per link, a version parse per file): 80–300 ms for the pages of one resolution, most
//! of a warm `infer`. The compact form holds the parsed [`ProjectPage`], each version once, and
//! decodes in a few µs per file.
//!
//! A compact entry is only ever a copy of one page body: it carries the [`PageFingerprint`]
//! of the page it was made from (the body's sha256, the final URL and the content type, which
//! decide how the body is read) and is used only when the page now cached has the same one.
//! A page that changed, a different format version, a failed checksum or a truncated entry
//! all read as "no entry", and the page is parsed as before.
//!
//! A resolver reads only what it keeps: of the head, the releases and the heads of the files
//! in groups it keeps (a group of another platform's wheels is skipped whole, unread: most of
//! a binary project's files, whose heads were most of reading its copy), and, for the files it
//! keeps (those that may install here), their details, which sit together by group. For
//! numpy that is about a tenth of the copy.
//!
//! Format (integers LEB128 varints unless said; `str` is a length then UTF-8 bytes; `opt` a
//! byte 0/1 then the value; `u32` 4 bytes little-endian): `MAGIC`, `u32` head length, `u32`
//! crc32 of the head, the head, then the details of each group of files, in group order.
//! The head: fingerprint (`str` digest, `str` final URL, `opt str` content type), `str` name,
//! `str` page URL, format byte; releases in PEP 440 order (count, then each: `str` version in
//! its display form, `opt str` Requires-Python, yanked byte); the file count; groups (count,
//! then each): sdists first, then one group per wheel tag set, which starts with its python,
//! abi and platform tags (each a count and `str`s); then the length of the group's details
//! and their `u32` crc32, its file count, the length in bytes of its files' heads and those
//! heads, each: page position, release index, sdist format byte (sdists) or `opt str` build
//! tag (wheels), `opt` upload time as zigzag seconds and zigzag nanoseconds, yanked byte,
//! length of its details; then skipped file names (count, `str` each; their reasons are found
//! again from the name).
//! A file's details: `str` filename, `str` URL, hashes (count, `str` algorithm and `str`
//! digest each), `opt str` requires-python, `opt` size, `opt str` yanked reason, core-metadata
//! hint.

use std::collections::{BTreeMap, HashMap};
use std::str::FromStr;
use std::sync::Arc;

use pep440_rs::Version;

use super::cache::{hex_sha256, CachedPage};
use super::dist_file::{DistFile, MetadataHint};
use super::filename::{DistFilename, FileKind, SdistFormat};
use super::mapped_file::MappedFile;
use super::project::{PageFormat, ProjectPage, SkippedFile};
use super::requires_python::RequiresPython;
use super::wheel_tags::WheelTags;
use crate::names::DistName;

/// Bumped whenever the layout or the meaning of a field changes: older entries then read as
/// absent and are made again.
const MAGIC: &[u8] = b"nbenv-compact-page-v4\n";

/// What identifies the page body a compact entry was made from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageFingerprint {
    /// sha256 of the body, hex.
    pub digest: String,
    /// Relative links are resolved against it.
    pub final_url: String,
    /// Decides JSON or HTML.
    pub content_type: Option<String>,
}

impl PageFingerprint {
    /// The fingerprint of a cached page; the digest is computed when the page header does not
    /// carry one (a page cached by an older nbenv).
    pub fn of(page: &CachedPage) -> Self {
        Self {
            digest: page
                .digest
                .clone()
                .unwrap_or_else(|| hex_sha256(&page.body)),
            final_url: page.final_url.clone(),
            content_type: page.content_type.clone(),
        }
    }

    /// The fingerprint from a page header alone, when it records the body's digest.
    pub fn from_header(page: &CachedPage) -> Option<Self> {
        Some(Self {
            digest: page.digest.clone()?,
            final_url: page.final_url.clone(),
            content_type: page.content_type.clone(),
        })
    }
}

/// Why a compact entry was not used. Every case falls back to parsing the page.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CompactError {
    #[error("not a compact page of this nbenv")]
    Foreign,
    #[error("checksum mismatch")]
    Checksum,
    #[error("truncated or malformed")]
    Malformed,
    #[error("made from another version of the page")]
    Stale,
}

/// One release of a project as the resolver needs it: the release-wide facts, taken from
/// every file the index lists, and the files a caller chose to keep.
#[derive(Debug, Clone)]
pub struct ProjectRelease {
    pub version: Version,
    /// The Requires-Python the index gives, from the first file (in page order) that has one.
    pub requires_python: RequiresPython,
    /// Every file of the release is yanked (PEP 592), kept or not.
    pub yanked: bool,
    /// The kept files, in page order.
    pub files: Vec<ReleaseFile>,
}

/// A kept file of a release: what judging it needs (kind and tags, upload time, yanked) at
/// hand, the rest (name, URL, hashes, ...) read from the compact copy when asked for. A
/// resolution judges every file of thousands of releases and reads the whole of a few.
#[derive(Debug, Clone)]
pub struct ReleaseFile {
    pub kind: FileKind,
    pub upload_time: Option<jiff::Timestamp>,
    pub yanked: bool,
    rest: FileRest,
}

#[derive(Clone)]
enum FileRest {
    Parsed(Box<DistFile>),
    /// The file's details in a compact copy, checked when the copy was read.
    Compact {
        /// The whole copy; the details are `start..end` of it.
        bytes: CopyBytes,
        start: usize,
        end: usize,
    },
}

impl std::fmt::Debug for FileRest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FileRest::Parsed(file) => write!(f, "Parsed({})", file.filename),
            FileRest::Compact { start, end, .. } => write!(f, "Compact({start}..{end})"),
        }
    }
}

impl ReleaseFile {
    pub fn from_file(file: DistFile) -> Self {
        Self {
            kind: file.kind.clone(),
            upload_time: file.upload_time,
            yanked: file.is_yanked(),
            rest: FileRest::Parsed(Box::new(file)),
        }
    }

    /// The whole file, of release `version`.
    pub fn dist_file(&self, version: &Version) -> DistFile {
        match &self.rest {
            FileRest::Parsed(file) => (**file).clone(),
            FileRest::Compact { bytes, start, end } => {
                let mut r = Reader {
                    bytes: &(**bytes).as_ref()[*start..*end],
                    at: 0,
                };
                r.file_details(version.clone(), self.kind.clone(), self.upload_time)
                    .expect("a file's details are checked when the copy is read")
            }
        }
    }
}

/// Every release of `page`, oldest first, with only the files `keep` accepts; a release
/// keeps its place (and its release-wide facts) when none of its files is kept.
pub fn page_releases(page: ProjectPage, keep: &dyn Fn(&FileKind) -> bool) -> Vec<ProjectRelease> {
    let mut files: Vec<DistFile> = page.files;
    // Stable: each release's files stay in page order.
    files.sort_by(|a, b| a.version.cmp(&b.version));
    let mut out: Vec<ProjectRelease> = Vec::new();
    for file in files {
        let release = match out.last_mut() {
            Some(last) if last.version == file.version => last,
            _ => {
                out.push(ProjectRelease {
                    version: file.version.clone(),
                    requires_python: RequiresPython::Any,
                    yanked: true,
                    files: Vec::new(),
                });
                out.last_mut().expect("just pushed")
            }
        };
        release.yanked &= file.is_yanked();
        if release.requires_python.is_any() {
            release.requires_python.clone_from(&file.requires_python);
        }
        if keep(&file.kind) {
            release.files.push(ReleaseFile::from_file(file));
        }
    }
    out
}

/// Encodes `page`, parsed from the page body `fingerprint` identifies.
pub fn encode(page: &ProjectPage, fingerprint: &PageFingerprint) -> Vec<u8> {
    let mut w = Writer::default();
    w.str(&fingerprint.digest);
    w.str(&fingerprint.final_url);
    w.opt_str(fingerprint.content_type.as_deref());
    w.str(page.name.as_str());
    w.str(&page.url);
    w.byte(match page.format {
        PageFormat::Json => 0,
        PageFormat::Html => 1,
    });

    // Releases in PEP 440 order, each with its release-wide facts.
    let mut releases: BTreeMap<&Version, (Option<&str>, bool)> = BTreeMap::new();
    for file in &page.files {
        let (requires_python, yanked) = releases.entry(&file.version).or_insert((None, true));
        *yanked &= file.is_yanked();
        if requires_python.is_none() {
            *requires_python = file.requires_python.text();
        }
    }
    let version_at: HashMap<&Version, u64> = releases
        .keys()
        .enumerate()
        .map(|(i, v)| (*v, i as u64))
        .collect();
    w.varint(releases.len() as u64);
    for (version, (requires_python, yanked)) in &releases {
        w.str(&version.to_string());
        w.opt_str(*requires_python);
        w.byte(u8::from(*yanked));
    }

    // The files by group: sdists, then one group per distinct wheel tag set (a project has
    // hundreds of files but few tag sets), each group's files in page order.
    let mut tag_at: HashMap<&WheelTags, usize> = HashMap::new();
    let mut tag_sets: Vec<&WheelTags> = Vec::new();
    let mut members: Vec<Vec<usize>> = vec![Vec::new()];
    for (position, file) in page.files.iter().enumerate() {
        let group = match &file.kind {
            FileKind::Sdist { .. } => 0,
            FileKind::Wheel { tags, .. } => *tag_at.entry(tags).or_insert_with(|| {
                tag_sets.push(tags);
                members.push(Vec::new());
                tag_sets.len()
            }),
        };
        members[group].push(position);
    }
    w.varint(page.files.len() as u64);
    w.varint(members.len() as u64);
    let mut details = Writer::default();
    for (group, files) in members.iter().enumerate() {
        if group > 0 {
            let tags = tag_sets[group - 1];
            for part in [&tags.python, &tags.abi, &tags.platform] {
                w.varint(part.len() as u64);
                for t in part {
                    w.str(t);
                }
            }
        }
        let mut heads = Writer::default();
        let mut group_details = Writer::default();
        for &position in files {
            let file = &page.files[position];
            heads.varint(position as u64);
            heads.varint(version_at[&file.version]);
            match &file.kind {
                FileKind::Sdist { format } => heads.byte(sdist_code(*format)),
                FileKind::Wheel { build, .. } => heads.opt_str(build.as_deref()),
            }
            match file.upload_time {
                Some(t) => {
                    heads.byte(1);
                    heads.varint(zigzag(t.as_second()));
                    // Before 1970 both parts are negative.
                    heads.varint(zigzag(i64::from(t.subsec_nanosecond())));
                }
                None => heads.byte(0),
            }
            heads.byte(u8::from(file.is_yanked()));
            let before = group_details.0.len();
            group_details.file_details(file);
            heads.varint((group_details.0.len() - before) as u64);
        }
        w.varint(group_details.0.len() as u64);
        w.0.extend_from_slice(&crc32fast::hash(&group_details.0).to_le_bytes());
        w.varint(files.len() as u64);
        w.varint(heads.0.len() as u64);
        w.0.extend_from_slice(&heads.0);
        details.0.extend_from_slice(&group_details.0);
    }
    w.varint(page.skipped.len() as u64);
    for s in &page.skipped {
        w.str(&s.filename);
    }
    let head = w.0;
    let mut out = Vec::with_capacity(HEADER + head.len() + details.0.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(head.len() as u32).to_le_bytes());
    out.extend_from_slice(&crc32fast::hash(&head).to_le_bytes());
    out.extend_from_slice(&head);
    out.extend_from_slice(&details.0);
    out
}

/// Bytes before the head: the magic line, the head's length and its crc32.
const HEADER: usize = MAGIC.len() + 8;

/// The bytes of a compact copy, shared by the kept files whose details stay in them.
pub type CopyBytes = Arc<dyn AsRef<[u8]> + Send + Sync>;

/// Where a compact copy is read from: its file (mapped, so that only the parts read are
/// touched), or the whole copy in memory.
pub trait CopySource {
    fn bytes(self) -> Result<CopyBytes, CompactError>;
}

impl CopySource for &[u8] {
    fn bytes(self) -> Result<CopyBytes, CompactError> {
        Ok(Arc::new(self.to_vec()))
    }
}

impl CopySource for std::fs::File {
    fn bytes(self) -> Result<CopyBytes, CompactError> {
        let mapped = MappedFile::open(&self).map_err(|_| CompactError::Malformed)?;
        Ok(Arc::new(mapped))
    }
}

/// `len` bytes of `bytes` from `offset`.
fn part(bytes: &[u8], offset: u64, len: usize) -> Result<&[u8], CompactError> {
    let start = usize::try_from(offset).map_err(|_| CompactError::Malformed)?;
    bytes
        .get(start..start.checked_add(len).ok_or(CompactError::Malformed)?)
        .ok_or(CompactError::Malformed)
}

/// A decoded copy: the page's releases with the kept files, or the whole page.
struct Decoded {
    url: String,
    format: PageFormat,
    releases: Vec<ProjectRelease>,
    /// Every file in page order, when the whole page was asked for.
    files: Vec<DistFile>,
    skipped: Vec<SkippedFile>,
}

/// Decodes a copy for project `name` into the whole page, if it was made from the page
/// `expected` identifies.
pub fn decode(
    source: impl CopySource,
    expected: &PageFingerprint,
    name: &DistName,
) -> Result<ProjectPage, CompactError> {
    let d = decode_inner(source.bytes()?, expected, name, None)?;
    Ok(ProjectPage {
        name: name.clone(),
        url: d.url,
        format: d.format,
        files: d.files,
        skipped: d.skipped,
    })
}

/// Decodes a copy for project `name` into its releases, oldest first, with only the files
/// `keep` accepts (judged once per tag set), if it was made from the page `expected`
/// identifies. Only the head and the details of kept files are read; those details stay as
/// bytes until asked for.
pub fn decode_releases(
    source: impl CopySource,
    expected: &PageFingerprint,
    name: &DistName,
    keep: &dyn Fn(&FileKind) -> bool,
) -> Result<Vec<ProjectRelease>, CompactError> {
    Ok(decode_inner(source.bytes()?, expected, name, Some(keep))?.releases)
}

/// With `keep`, the kept files go to their releases (their details left as bytes, checked),
/// and the heads of a tag set that is not kept are skipped unread (most of a binary project's
/// files are for other platforms); without, every file is read whole into the page's list.
fn decode_inner(
    copy: CopyBytes,
    expected: &PageFingerprint,
    name: &DistName,
    keep: Option<&dyn Fn(&FileKind) -> bool>,
) -> Result<Decoded, CompactError> {
    let source: &[u8] = (*copy).as_ref();
    let header = part(source, 0, HEADER).map_err(|_| CompactError::Foreign)?;
    if !header.starts_with(MAGIC) {
        return Err(CompactError::Foreign);
    }
    let word = |at: usize| u32::from_le_bytes(header[at..at + 4].try_into().expect("4 bytes"));
    let (head_len, head_sum) = (word(MAGIC.len()) as usize, word(MAGIC.len() + 4));
    let head = part(source, HEADER as u64, head_len)?;
    if crc32fast::hash(head) != head_sum {
        return Err(CompactError::Checksum);
    }
    let mut r = Reader { bytes: head, at: 0 };
    let fingerprint = PageFingerprint {
        digest: r.str()?.to_string(),
        final_url: r.str()?.to_string(),
        content_type: r.opt_str()?.map(str::to_string),
    };
    if &fingerprint != expected || r.str()? != name.as_str() {
        return Err(CompactError::Stale);
    }
    let url = r.str()?.to_string();
    let format = match r.byte()? {
        0 => PageFormat::Json,
        1 => PageFormat::Html,
        _ => return Err(CompactError::Malformed),
    };
    let mut releases = Vec::with_capacity(r.count()?);
    // Most releases say the same Requires-Python as the one before: each text is parsed once.
    let mut parsed: HashMap<Option<&str>, RequiresPython> = HashMap::new();
    for _ in 0..releases.capacity() {
        let version = Version::from_str(r.str()?).map_err(|_| CompactError::Malformed)?;
        let requires_python = parsed
            .entry(r.opt_str()?)
            .or_insert_with_key(|text| RequiresPython::parse(*text))
            .clone();
        let yanked = r.flag()?;
        releases.push(ProjectRelease {
            version,
            requires_python,
            yanked,
            files: Vec::new(),
        });
    }
    if releases.windows(2).any(|w| w[0].version >= w[1].version) {
        return Err(CompactError::Malformed);
    }
    let n_files = r.count()?;
    let n_groups = r.count()?;
    if n_groups == 0 {
        return Err(CompactError::Malformed);
    }
    // The whole page: each file at its page position.
    let mut whole: Vec<Option<DistFile>> = if keep.is_none() {
        std::iter::repeat_with(|| None).take(n_files).collect()
    } else {
        Vec::new()
    };
    // Kept files, and each one's page position and release.
    let mut kept: Vec<Option<ReleaseFile>> = Vec::new();
    let mut kept_at: Vec<(usize, usize)> = Vec::new();
    let mut files_seen = 0usize;
    // Where the next group's details start in the copy.
    let mut details_at = HEADER + head_len;
    for group in 0..n_groups {
        let tags = if group == 0 { None } else { Some(r.tag_set()?) };
        let details_len = usize::try_from(r.varint()?).map_err(|_| CompactError::Malformed)?;
        let sum = u32::from_le_bytes(r.take(4)?.try_into().expect("4 bytes"));
        let count = r.count()?;
        let heads_len = r.count()?;
        let heads = r.take(heads_len)?;
        files_seen = files_seen
            .checked_add(count)
            .ok_or(CompactError::Malformed)?;
        let start = details_at;
        details_at = details_at
            .checked_add(details_len)
            .ok_or(CompactError::Malformed)?;
        // A tag set's files are kept or not together, judged once.
        let group_kept = match (&tags, keep) {
            (Some(tags), Some(keep)) => keep(&FileKind::Wheel {
                build: None,
                tags: tags.clone(),
            }),
            _ => true,
        };
        if !group_kept {
            continue;
        }
        // The group's details, checked once, when one of its files is kept.
        let mut details: Option<&[u8]> = None;
        let mut h = Reader {
            bytes: heads,
            at: 0,
        };
        let mut offset = 0usize;
        for _ in 0..count {
            let position = h.varint()? as usize;
            let release = h.varint()? as usize;
            if position >= n_files || release >= releases.len() {
                return Err(CompactError::Malformed);
            }
            let kind = match &tags {
                None => FileKind::Sdist {
                    format: sdist_format(h.byte()?)?,
                },
                Some(tags) => FileKind::Wheel {
                    build: h.opt_str()?.map(str::to_string),
                    tags: tags.clone(),
                },
            };
            let upload_time = h.upload_time()?;
            let yanked = h.flag()?;
            let len = usize::try_from(h.varint()?).map_err(|_| CompactError::Malformed)?;
            let file_start = offset;
            offset = offset.checked_add(len).ok_or(CompactError::Malformed)?;
            if offset > details_len {
                return Err(CompactError::Malformed);
            }
            if tags.is_none() && keep.is_some_and(|keep| !keep(&kind)) {
                continue;
            }
            let group_details = match details {
                Some(d) => d,
                None => {
                    let d = part(source, start as u64, details_len)?;
                    if crc32fast::hash(d) != sum {
                        return Err(CompactError::Checksum);
                    }
                    *details.insert(d)
                }
            };
            let mut d = Reader {
                bytes: &group_details[file_start..offset],
                at: 0,
            };
            if keep.is_none() {
                let version = releases[release].version.clone();
                let file = d.file_details(version, kind, upload_time)?;
                if d.at != len || file.is_yanked() != yanked || whole[position].is_some() {
                    return Err(CompactError::Malformed);
                }
                whole[position] = Some(file);
            } else {
                // Checked now, so that reading it later cannot fail.
                if d.check_file_details()? != yanked || d.at != len {
                    return Err(CompactError::Malformed);
                }
                kept_at.push((position, release));
                kept.push(Some(ReleaseFile {
                    kind,
                    upload_time,
                    yanked,
                    rest: FileRest::Compact {
                        bytes: copy.clone(),
                        start: start + file_start,
                        end: start + offset,
                    },
                }));
            }
        }
        if h.at != heads.len() || offset != details_len {
            return Err(CompactError::Malformed);
        }
    }
    if files_seen != n_files || details_at > source.len() {
        return Err(CompactError::Malformed);
    }
    let mut skipped = Vec::new();
    for _ in 0..r.count()? {
        let filename = r.str()?.to_string();
        // Only names that failed to parse were kept: one that parses now is not this page's.
        let error = DistFilename::parse(&filename, name)
            .err()
            .ok_or(CompactError::Malformed)?;
        skipped.push(SkippedFile {
            reason: error.to_string(),
            filename,
            error,
        });
    }
    if r.at != head.len() {
        return Err(CompactError::Malformed);
    }
    let files = whole
        .into_iter()
        .collect::<Option<Vec<DistFile>>>()
        .ok_or(CompactError::Malformed)?;
    // Each release's files in page order (sorting small keys, not the files), sized once
    // rather than grown push by push.
    let mut order: Vec<(usize, usize)> = kept_at
        .iter()
        .enumerate()
        .map(|(at, &(position, _))| (position, at))
        .collect();
    order.sort_unstable();
    if order.windows(2).any(|w| w[0].0 == w[1].0) {
        return Err(CompactError::Malformed);
    }
    let mut per_release = vec![0usize; releases.len()];
    for &(_, release) in &kept_at {
        per_release[release] += 1;
    }
    for (release, n) in releases.iter_mut().zip(per_release) {
        release.files.reserve_exact(n);
    }
    for (_, at) in order {
        let file = kept[at].take().expect("each file is placed once");
        releases[kept_at[at].1].files.push(file);
    }
    Ok(Decoded {
        url,
        format,
        releases,
        files,
        skipped,
    })
}

fn sdist_code(format: SdistFormat) -> u8 {
    match format {
        SdistFormat::TarGz => 0,
        SdistFormat::TarBz2 => 1,
        SdistFormat::TarXz => 2,
        SdistFormat::Tar => 3,
        SdistFormat::Zip => 4,
    }
}

fn sdist_format(code: u8) -> Result<SdistFormat, CompactError> {
    Ok(match code {
        0 => SdistFormat::TarGz,
        1 => SdistFormat::TarBz2,
        2 => SdistFormat::TarXz,
        3 => SdistFormat::Tar,
        4 => SdistFormat::Zip,
        _ => return Err(CompactError::Malformed),
    })
}

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

#[derive(Default)]
struct Writer(Vec<u8>);

impl Writer {
    fn byte(&mut self, b: u8) {
        self.0.push(b);
    }

    fn varint(&mut self, v: u64) {
        crate::varint::put(&mut self.0, v);
    }

    fn str(&mut self, s: &str) {
        self.varint(s.len() as u64);
        self.0.extend_from_slice(s.as_bytes());
    }

    fn opt_str(&mut self, s: Option<&str>) {
        match s {
            Some(s) => {
                self.byte(1);
                self.str(s);
            }
            None => self.byte(0),
        }
    }

    /// What a file record holds besides its version and kind.
    fn file_details(&mut self, file: &DistFile) {
        self.str(&file.filename);
        self.str(&file.url);
        self.varint(file.hashes.len() as u64);
        for (algo, digest) in &file.hashes {
            self.str(algo);
            self.str(digest);
        }
        self.opt_str(file.requires_python.text());
        match file.size {
            Some(size) => {
                self.byte(1);
                self.varint(size);
            }
            None => self.byte(0),
        }
        self.opt_str(file.yanked.as_deref());
        match &file.core_metadata {
            MetadataHint::Unknown => self.byte(0),
            MetadataHint::Absent => self.byte(1),
            MetadataHint::Available { sha256: None } => self.byte(2),
            MetadataHint::Available { sha256: Some(h) } => {
                self.byte(3);
                self.str(h);
            }
        }
    }
}

/// Tag sets read so far, by their encoded bytes.
type KnownTagSets = HashMap<Box<[u8]>, Arc<WheelTags>>;

struct Reader<'b> {
    bytes: &'b [u8],
    at: usize,
}

impl<'b> Reader<'b> {
    fn byte(&mut self) -> Result<u8, CompactError> {
        let b = *self.bytes.get(self.at).ok_or(CompactError::Malformed)?;
        self.at += 1;
        Ok(b)
    }

    fn varint(&mut self) -> Result<u64, CompactError> {
        crate::varint::take(self.bytes, &mut self.at).ok_or(CompactError::Malformed)
    }

    /// A count of items still to come: each takes at least a byte, so a count larger than
    /// what is left is malformed (and never makes a huge allocation).
    fn count(&mut self) -> Result<usize, CompactError> {
        let n = self.varint()?;
        let left = (self.bytes.len() - self.at) as u64;
        if n > left {
            return Err(CompactError::Malformed);
        }
        Ok(n as usize)
    }

    fn str(&mut self) -> Result<&'b str, CompactError> {
        let len = self.count()?;
        std::str::from_utf8(self.take(len)?).map_err(|_| CompactError::Malformed)
    }

    fn opt_str(&mut self) -> Result<Option<&'b str>, CompactError> {
        match self.byte()? {
            0 => Ok(None),
            1 => self.str().map(Some),
            _ => Err(CompactError::Malformed),
        }
    }

    fn take(&mut self, len: usize) -> Result<&'b [u8], CompactError> {
        let slice = self
            .bytes
            .get(self.at..self.at + len)
            .ok_or(CompactError::Malformed)?;
        self.at += len;
        Ok(slice)
    }

    fn flag(&mut self) -> Result<bool, CompactError> {
        match self.byte()? {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(CompactError::Malformed),
        }
    }

    fn upload_time(&mut self) -> Result<Option<jiff::Timestamp>, CompactError> {
        if !self.flag()? {
            return Ok(None);
        }
        let seconds = unzigzag(self.varint()?);
        let nanos = i32::try_from(unzigzag(self.varint()?)).map_err(|_| CompactError::Malformed)?;
        jiff::Timestamp::new(seconds, nanos)
            .map(Some)
            .map_err(|_| CompactError::Malformed)
    }

    fn file_details(
        &mut self,
        version: Version,
        kind: FileKind,
        upload_time: Option<jiff::Timestamp>,
    ) -> Result<DistFile, CompactError> {
        let filename = self.str()?.to_string();
        let url = self.str()?.to_string();
        let mut hashes = BTreeMap::new();
        for _ in 0..self.count()? {
            let algo = self.str()?.to_string();
            hashes.insert(algo, self.str()?.to_string());
        }
        let requires_python = RequiresPython::parse(self.opt_str()?);
        let size = if self.flag()? {
            Some(self.varint()?)
        } else {
            None
        };
        let yanked = self.opt_str()?.map(str::to_string);
        let core_metadata = match self.byte()? {
            0 => MetadataHint::Unknown,
            1 => MetadataHint::Absent,
            2 => MetadataHint::Available { sha256: None },
            3 => MetadataHint::Available {
                sha256: Some(self.str()?.to_string()),
            },
            _ => return Err(CompactError::Malformed),
        };
        Ok(DistFile {
            filename,
            url,
            version,
            kind,
            hashes,
            requires_python,
            size,
            upload_time,
            yanked,
            core_metadata,
        })
    }

    /// Walks what [`Self::file_details`] reads, as it reads it, without keeping anything;
    /// whether the file is yanked. Strings are skipped, not checked as UTF-8: the group's
    /// checksum, checked first, already shows they are the bytes the encoder wrote from
    /// strings (that check was a tenth of reading a resolution's copies).
    fn check_file_details(&mut self) -> Result<bool, CompactError> {
        self.skip_str()?;
        self.skip_str()?;
        for _ in 0..self.count()? {
            self.skip_str()?;
            self.skip_str()?;
        }
        self.skip_opt_str()?;
        if self.flag()? {
            self.varint()?;
        }
        let yanked = self.skip_opt_str()?;
        match self.byte()? {
            0..=2 => {}
            3 => {
                self.skip_str()?;
            }
            _ => return Err(CompactError::Malformed),
        }
        Ok(yanked)
    }

    fn skip_str(&mut self) -> Result<(), CompactError> {
        let len = self.count()?;
        self.take(len).map(drop)
    }

    /// Whether there was one.
    fn skip_opt_str(&mut self) -> Result<bool, CompactError> {
        match self.byte()? {
            0 => Ok(false),
            1 => self.skip_str().map(|()| true),
            _ => Err(CompactError::Malformed),
        }
    }

    /// A tag set (python, abi and platform tags, each a count and `str`s), shared with every
    /// copy read before that has the same one: a resolution reads the same few dozen tag sets
    /// (`cp311-cp311-manylinux_2_17_x86_64`) from many projects' copies, and making each one
    /// anew was a tenth of reading them.
    fn tag_set(&mut self) -> Result<Arc<WheelTags>, CompactError> {
        static KNOWN: std::sync::LazyLock<std::sync::Mutex<KnownTagSets>> =
            std::sync::LazyLock::new(Default::default);
        let start = self.at;
        for _ in 0..3 {
            for _ in 0..self.count()? {
                self.skip_str()?;
            }
        }
        let bytes = &self.bytes[start..self.at];
        // A poisoned map is still a valid map: entries are inserted whole.
        let mut known = KNOWN.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(tags) = known.get(bytes) {
            return Ok(tags.clone());
        }
        let mut r = Reader { bytes, at: 0 };
        let tags = Arc::new(WheelTags {
            python: r.strings()?,
            abi: r.strings()?,
            platform: r.strings()?,
        });
        known.insert(bytes.into(), tags.clone());
        Ok(tags)
    }

    fn strings(&mut self) -> Result<Vec<String>, CompactError> {
        (0..self.count()?)
            .map(|_| self.str().map(str::to_string))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(filename: &str, version: &str, kind: FileKind) -> DistFile {
        DistFile {
            filename: filename.into(),
            url: format!("https://files.example/{filename}"),
            version: version.parse().unwrap(),
            kind,
            hashes: BTreeMap::from([("sha256".into(), "ab".repeat(32))]),
            requires_python: RequiresPython::Any,
            size: Some(1234),
            upload_time: None,
            yanked: None,
            core_metadata: MetadataHint::Unknown,
        }
    }

    fn wheel(python: &str, abi: &str, platform: &str) -> FileKind {
        FileKind::Wheel {
            build: None,
            tags: WheelTags::parse(python, abi, platform).unwrap().into(),
        }
    }

    fn sample() -> (ProjectPage, PageFingerprint) {
        let name = DistName::new("demo").unwrap();
        let mut files = vec![
            file(
                "demo-1.10.tar.gz",
                "1.10",
                FileKind::Sdist {
                    format: SdistFormat::TarGz,
                },
            ),
            file(
                "demo-1.2-py2.py3-none-any.whl",
                "1.2",
                wheel("py2.py3", "none", "any"),
            ),
            file(
                "demo-1.2-cp27-cp27mu-manylinux1_x86_64.whl",
                "1.2",
                wheel("cp27", "cp27mu", "manylinux1_x86_64"),
            ),
            file(
                "demo-0.9.zip",
                "0.9",
                FileKind::Sdist {
                    format: SdistFormat::Zip,
                },
            ),
        ];
        files[0].upload_time = Some("1969-12-31T23:59:58.5Z".parse().unwrap());
        files[1].upload_time = Some("2020-02-03T04:05:06.789012Z".parse().unwrap());
        files[1].requires_python = RequiresPython::parse(Some(">=2.7, !=3.0.*"));
        files[1].yanked = Some("oops".into());
        files[1].core_metadata = MetadataHint::Available {
            sha256: Some("cd".repeat(32)),
        };
        files[2].kind = FileKind::Wheel {
            build: Some("1".into()),
            tags: WheelTags::parse("cp27", "cp27mu", "manylinux1_x86_64")
                .unwrap()
                .into(),
        };
        files[2].yanked = Some(String::new());
        files[2].core_metadata = MetadataHint::Absent;
        files[3].size = None;
        files[3].hashes.clear();
        let skipped = ["demo-1.0.win32.exe", "demo-1.0-py2.7.egg"]
            .iter()
            .map(|f| {
                let error = DistFilename::parse(f, &name).unwrap_err();
                SkippedFile {
                    filename: (*f).into(),
                    reason: error.to_string(),
                    error,
                }
            })
            .collect();
        let page = ProjectPage {
            name,
            url: "https://index.example/simple/demo/".into(),
            format: PageFormat::Json,
            files,
            skipped,
        };
        let fingerprint = PageFingerprint {
            digest: "00".repeat(32),
            final_url: page.url.clone(),
            content_type: Some("application/vnd.pypi.simple.v1+json".into()),
        };
        (page, fingerprint)
    }

    #[test]
    fn round_trips_the_whole_page() {
        let (page, fingerprint) = sample();
        let bytes = encode(&page, &fingerprint);
        let back = decode(&bytes[..], &fingerprint, &page.name).unwrap();
        assert_eq!(back.files, page.files);
        assert_eq!(back.skipped, page.skipped);
        assert_eq!((back.url, back.format), (page.url.clone(), page.format));
    }

    #[test]
    fn releases_are_in_version_order_with_the_facts_of_all_their_files() {
        let (page, fingerprint) = sample();
        let bytes = encode(&page, &fingerprint);
        let wheels_only = |k: &FileKind| matches!(k, FileKind::Wheel { .. });
        let from_copy =
            decode_releases(&bytes[..], &fingerprint, &page.name, &wheels_only).unwrap();
        let from_page = page_releases(page.clone(), &wheels_only);
        let show = |rs: &[ProjectRelease]| -> Vec<String> {
            rs.iter()
                .map(|r| {
                    let files: Vec<String> = r
                        .files
                        .iter()
                        .map(|f| f.dist_file(&r.version).filename)
                        .collect();
                    format!(
                        "{} {} {:?} {files:?}",
                        r.version,
                        r.yanked,
                        r.requires_python.text()
                    )
                })
                .collect()
        };
        assert_eq!(
            show(&from_copy),
            [
                "0.9 false None []",
                "1.2 true Some(\">=2.7, !=3.0.*\") [\"demo-1.2-py2.py3-none-any.whl\", \"demo-1.2-cp27-cp27mu-manylinux1_x86_64.whl\"]",
                "1.10 false None []",
            ]
        );
        assert_eq!(show(&from_copy), show(&from_page));
        let kept: Vec<DistFile> = from_copy
            .iter()
            .flat_map(|r| r.files.iter().map(|f| f.dist_file(&r.version)))
            .collect();
        assert_eq!(kept, [page.files[1].clone(), page.files[2].clone()]);
        // What judging needs is at hand without reading the files whole.
        let facts: Vec<(bool, Option<jiff::Timestamp>)> = from_copy
            .iter()
            .flat_map(|r| r.files.iter().map(|f| (f.yanked, f.upload_time)))
            .collect();
        assert_eq!(facts, [(true, page.files[1].upload_time), (true, None)]);
    }

    /// Copies read one after another share their tag sets; a copy of the format before,
    /// whose heads were in page order, is not read as this one.
    #[test]
    fn tag_sets_are_shared_and_older_copies_are_foreign() {
        let (page, fingerprint) = sample();
        let bytes = encode(&page, &fingerprint);
        let all = |_: &FileKind| true;
        let tags = |releases: &[ProjectRelease]| -> Vec<Arc<WheelTags>> {
            releases
                .iter()
                .flat_map(|r| &r.files)
                .filter_map(|f| match &f.kind {
                    FileKind::Wheel { tags, .. } => Some(tags.clone()),
                    FileKind::Sdist { .. } => None,
                })
                .collect()
        };
        let first = tags(&decode_releases(&bytes[..], &fingerprint, &page.name, &all).unwrap());
        let again = tags(&decode_releases(&bytes[..], &fingerprint, &page.name, &all).unwrap());
        assert_eq!(first.len(), 2);
        assert!(first.iter().zip(&again).all(|(a, b)| Arc::ptr_eq(a, b)));
        let mut older = bytes.clone();
        older[..MAGIC.len()].copy_from_slice(b"nbenv-compact-page-v3\n");
        assert_eq!(
            decode(&older[..], &fingerprint, &page.name).unwrap_err(),
            CompactError::Foreign
        );
    }

    #[test]
    fn a_copy_of_another_body_or_project_is_stale() {
        let (page, fingerprint) = sample();
        let bytes = encode(&page, &fingerprint);
        let other_body = PageFingerprint {
            digest: "11".repeat(32),
            ..fingerprint.clone()
        };
        let other_type = PageFingerprint {
            content_type: Some("text/html".into()),
            ..fingerprint.clone()
        };
        for expected in [&other_body, &other_type] {
            assert_eq!(
                decode(&bytes[..], expected, &page.name).unwrap_err(),
                CompactError::Stale
            );
        }
        let other = DistName::new("demo2").unwrap();
        assert_eq!(
            decode(&bytes[..], &fingerprint, &other).unwrap_err(),
            CompactError::Stale
        );
    }

    /// Every prefix and every single-byte change is refused, never a panic or a wrong page;
    /// reading releases, a damaged group of files not kept goes unread.
    #[test]
    fn damage_is_always_refused() {
        let (page, fingerprint) = sample();
        let bytes = encode(&page, &fingerprint);
        for len in 0..bytes.len() {
            assert!(
                decode(&bytes[..len], &fingerprint, &page.name).is_err(),
                "{len}"
            );
        }
        for at in 0..bytes.len() {
            let mut damaged = bytes.clone();
            damaged[at] ^= 0x01;
            assert!(
                decode(&damaged[..], &fingerprint, &page.name).is_err(),
                "{at}"
            );
        }
        let sdists_only = |k: &FileKind| matches!(k, FileKind::Sdist { .. });
        let mut wheel_damaged = bytes.clone();
        let last = wheel_damaged.len() - 1;
        wheel_damaged[last] ^= 0x01; // in the last tag set's group
        assert!(decode(&wheel_damaged[..], &fingerprint, &page.name).is_err());
        let releases =
            decode_releases(&wheel_damaged[..], &fingerprint, &page.name, &sdists_only).unwrap();
        let kept: Vec<String> = releases
            .iter()
            .flat_map(|r| r.files.iter().map(|f| f.dist_file(&r.version).filename))
            .collect();
        assert_eq!(kept, ["demo-0.9.zip", "demo-1.10.tar.gz"]);

        // Bytes after the last group are never read: harmless.
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(
            decode(&longer[..], &fingerprint, &page.name).unwrap().files,
            page.files
        );
    }
}
