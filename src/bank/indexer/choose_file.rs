use crate::pypi::{DistFile, FileKind, Release};

/// The file to index for a release: any wheel will do, since Python sources are the same on
/// every platform. Pure wheels first (smallest overall), then Python 3 wheels, then the
/// smallest; an sdist only when there is no wheel. Eggs and installers are never used.
pub fn choose_file<'a>(release: &Release<'a>) -> Option<&'a DistFile> {
    let score = |f: &&'a DistFile| match &f.kind {
        FileKind::Wheel { tags, .. } => {
            let py3 = tags
                .python
                .iter()
                .any(|t| t.starts_with("py3") || t.starts_with("cp3"));
            (0u8, !tags.is_universal(), !py3, f.size.unwrap_or(u64::MAX))
        }
        FileKind::Sdist { .. } => (1, false, false, f.size.unwrap_or(u64::MAX)),
    };
    release.files.iter().copied().min_by_key(score)
}
