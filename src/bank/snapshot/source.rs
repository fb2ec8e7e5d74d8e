//! Where a snapshot comes from: a file, or an http(s) URL.

use std::path::PathBuf;

use reqwest::Url;

use super::error::SnapshotError;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SnapshotSource {
    File(PathBuf),
    Url(Url),
}

impl SnapshotSource {
    /// `http://` and `https://` are URLs; any other `scheme://` is refused rather than taken
    /// for a relative path; everything else is a path.
    pub fn parse(text: &str) -> Result<Self, SnapshotError> {
        let lower = text.to_ascii_lowercase();
        if lower.starts_with("http://") || lower.starts_with("https://") {
            return Url::parse(text).map(SnapshotSource::Url).map_err(|e| {
                SnapshotError::BadSource {
                    snapshot: text.to_string(),
                    detail: format!("not a valid URL: {e}"),
                }
            });
        }
        if let Some((scheme, _)) = text.split_once("://") {
            if !scheme.is_empty()
                && scheme
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b))
            {
                return Err(SnapshotError::BadSource {
                    snapshot: text.to_string(),
                    detail: format!(
                        "`{scheme}://` is not fetched by nbenv; use a path or an http(s) URL"
                    ),
                });
            }
        }
        Ok(SnapshotSource::File(PathBuf::from(text)))
    }

    /// How messages name it.
    pub fn name(&self) -> String {
        match self {
            SnapshotSource::File(p) => p.display().to_string(),
            SnapshotSource::Url(u) => u.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_paths_and_other_schemes() {
        assert!(matches!(
            SnapshotSource::parse("https://example.org/bank.nbsnap").unwrap(),
            SnapshotSource::Url(_)
        ));
        assert!(matches!(
            SnapshotSource::parse("HTTP://example.org/b").unwrap(),
            SnapshotSource::Url(_)
        ));
        assert_eq!(
            SnapshotSource::parse("snapshots/bank.nbsnap").unwrap(),
            SnapshotSource::File("snapshots/bank.nbsnap".into())
        );
        assert!(matches!(
            SnapshotSource::parse("s3://bucket/bank.nbsnap"),
            Err(SnapshotError::BadSource { .. })
        ));
        assert!(matches!(
            SnapshotSource::parse("http://[::1"),
            Err(SnapshotError::BadSource { .. })
        ));
    }
}
