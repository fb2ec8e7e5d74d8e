//! Core metadata read out of an archive, remembered: a wheel without a PEP 658 file has its
//! METADATA read by range (the zip's directory, then the member), and an sdist its PKG-INFO,
//! each time a resolution visits the release. The headers are kept as a small blob beside
//! PEP 658 files, keyed by the archive's sha256, so they can never belong to another file.

use super::dist_file::DistFile;
use super::metadata::{CoreMetadata, MetadataSource};

const MAGIC: &[u8] = b"nbenv-archive-metadata-v2\n";

/// Memos written before an sdist's egg-info requirements were read: a wheel's still holds,
/// an sdist's says it requires nothing and is read again.
const MAGIC_V1: &[u8] = b"nbenv-archive-metadata-v1\n";

/// The blob key for what `file`'s archive says.
pub(crate) fn key(file: &DistFile) -> String {
    format!("{}.from-archive", file.cache_key())
}

/// The source, then the metadata's headers (the description after them is never read).
pub(crate) fn encode(source: MetadataSource, raw: &[u8]) -> Vec<u8> {
    let mut end = raw.len();
    let mut at = 0;
    while at < raw.len() {
        let line_end = raw[at..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(raw.len(), |i| at + i + 1);
        if raw[at..line_end].iter().all(u8::is_ascii_whitespace) {
            end = at;
            break;
        }
        at = line_end;
    }
    let mut out = Vec::with_capacity(MAGIC.len() + 2 + end);
    out.extend_from_slice(MAGIC);
    out.push(match source {
        MetadataSource::Pep658 => b'p',
        MetadataSource::Wheel => b'w',
        MetadataSource::Sdist => b's',
    });
    out.push(b'\n');
    out.extend_from_slice(&raw[..end]);
    out
}

/// What [`encode`] kept, if `bytes` is such a blob and still reads as metadata.
pub(crate) fn decode(bytes: &[u8]) -> Option<(CoreMetadata, MetadataSource)> {
    let (rest, v1) = match bytes.strip_prefix(MAGIC) {
        Some(rest) => (rest, false),
        None => (bytes.strip_prefix(MAGIC_V1)?, true),
    };
    let (&tag, rest) = rest.split_first()?;
    if v1 && tag == b's' {
        return None;
    }
    let source = match tag {
        b'p' => MetadataSource::Pep658,
        b'w' => MetadataSource::Wheel,
        b's' => MetadataSource::Sdist,
        _ => return None,
    };
    let headers = rest.strip_prefix(b"\n")?;
    Some((CoreMetadata::parse(headers).ok()?, source))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_headers_and_the_source() {
        let raw = b"Metadata-Version: 2.1\nName: foo\nVersion: 1.0\nRequires-Dist: numpy (>=1.0)\nRequires-Dist: six; extra == 'compat'\nRequires-Python: >=3.7\n\n# Foo\n\nRequires-Dist: not-a-header\n";
        let blob = encode(MetadataSource::Wheel, raw);
        assert!(
            !blob.windows(6).any(|w| w == b"# Foo\n"),
            "the description is dropped"
        );
        let (meta, source) = decode(&blob).unwrap();
        assert_eq!(source, MetadataSource::Wheel);
        assert_eq!(meta, CoreMetadata::parse(raw).unwrap());
        assert!(decode(&blob[..blob.len() / 2]).is_none_or(|(m, _)| m != meta));
        assert!(decode(b"something else").is_none());
    }

    /// An sdist's memo from before egg-info requirements were read is read past; a wheel's
    /// stands.
    #[test]
    fn an_sdists_memo_from_before_the_egg_info_is_read_again() {
        let raw = b"Metadata-Version: 1.1\nName: foo\nVersion: 1.0\n\n";
        let old = |tag: u8| [MAGIC_V1, &[tag, b'\n'], raw].concat();
        assert!(decode(&old(b's')).is_none());
        assert_eq!(decode(&old(b'w')).unwrap().1, MetadataSource::Wheel);
        let new = encode(MetadataSource::Sdist, raw);
        assert_eq!(decode(&new).unwrap().1, MetadataSource::Sdist);
    }
}
