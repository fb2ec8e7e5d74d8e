use jiff::tz::TimeZone;
use jiff::Timestamp;
use serde_json::Value;

use super::dist_file::MetadataHint;
use super::simple_page::RawFile;

/// Reads a PEP 691 JSON project page (with the PEP 700 `size` and `upload-time` fields).
///
/// Fields whose types vary between index implementations (`yanked` as bool or reason,
/// `core-metadata` as bool or hash map) are read leniently.
/// An RFC 3339 upload time (PyPI: `2019-01-02T03:04:05.123456Z`); one without an offset is
/// read as UTC, as some mirrors write it. An unreadable one is dropped, not fatal to the page.
fn upload_time(text: &str) -> Option<Timestamp> {
    text.parse::<Timestamp>().ok().or_else(|| {
        let civil: jiff::civil::DateTime = text.parse().ok()?;
        civil.to_zoned(TimeZone::UTC).ok().map(|z| z.timestamp())
    })
}

/// Why a PEP 691 page cannot be read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum JsonPageError {
    #[error("invalid JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error("no `files` array")]
    NoFiles,
    #[error("files[{index}] has no filename")]
    NoFilename { index: usize },
    #[error("files[{index}] ({filename}) has no url")]
    NoUrl { index: usize, filename: String },
}

pub(crate) fn parse(body: &[u8]) -> Result<Vec<RawFile>, JsonPageError> {
    let root: Value = serde_json::from_slice(body)?;
    let files = root
        .get("files")
        .and_then(Value::as_array)
        .ok_or(JsonPageError::NoFiles)?;
    let mut out = Vec::with_capacity(files.len());
    for (i, file) in files.iter().enumerate() {
        let field = |k: &str| file.get(k);
        let filename = field("filename")
            .and_then(Value::as_str)
            .ok_or(JsonPageError::NoFilename { index: i })?;
        let href = field("url")
            .and_then(Value::as_str)
            .ok_or_else(|| JsonPageError::NoUrl {
                index: i,
                filename: filename.to_string(),
            })?;
        let hashes = field("hashes")
            .and_then(Value::as_object)
            .map(|m| {
                m.iter()
                    .filter_map(|(k, v)| {
                        Some((k.to_ascii_lowercase(), v.as_str()?.to_ascii_lowercase()))
                    })
                    .collect()
            })
            .unwrap_or_default();
        let yanked = match field("yanked") {
            Some(Value::Bool(true)) => Some(String::new()),
            Some(Value::String(reason)) => Some(reason.clone()),
            _ => None,
        };
        let metadata = field("core-metadata").or_else(|| field("dist-info-metadata"));
        let core_metadata = match metadata {
            None => None,
            Some(Value::Bool(false)) => Some(MetadataHint::Absent),
            Some(Value::Bool(true)) => Some(MetadataHint::Available { sha256: None }),
            Some(Value::Object(m)) => Some(MetadataHint::Available {
                sha256: m
                    .get("sha256")
                    .and_then(Value::as_str)
                    .map(str::to_ascii_lowercase),
            }),
            Some(_) => None,
        };
        out.push(RawFile {
            filename: filename.to_string(),
            href: href.to_string(),
            hashes,
            requires_python: field("requires-python")
                .and_then(Value::as_str)
                .map(str::to_string),
            size: field("size").and_then(Value::as_u64),
            upload_time: field("upload-time")
                .and_then(Value::as_str)
                .and_then(upload_time),
            yanked,
            core_metadata,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upload_times() {
        let t = |s: &str| upload_time(s).map(|t| t.to_string());
        assert_eq!(
            t("2019-01-02T03:04:05.123456Z").as_deref(),
            Some("2019-01-02T03:04:05.123456Z")
        );
        assert_eq!(
            t("2019-01-02T03:04:05+01:00").as_deref(),
            Some("2019-01-02T02:04:05Z")
        );
        assert_eq!(
            t("2019-01-02T03:04:05").as_deref(),
            Some("2019-01-02T03:04:05Z")
        );
        assert_eq!(t("yesterday"), None);
        assert_eq!(t("2019-02-30T00:00:00Z"), None);
    }
}
