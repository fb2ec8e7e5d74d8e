//! Byte offsets to line numbers, for parsers that report where a value starts as an offset.

/// The line (from 1) of each byte offset of one text.
pub(super) struct Lines {
    starts: Vec<usize>,
}

impl Lines {
    pub fn new(text: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(
            text.bytes()
                .enumerate()
                .filter(|(_, b)| *b == b'\n')
                .map(|(i, _)| i + 1),
        );
        Self { starts }
    }

    pub fn line_of(&self, offset: usize) -> u32 {
        u32::try_from(self.starts.partition_point(|&s| s <= offset)).unwrap_or(u32::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_to_lines() {
        let lines = Lines::new("a\nbc\n\nd");
        assert_eq!(lines.line_of(0), 1);
        assert_eq!(lines.line_of(1), 1);
        assert_eq!(lines.line_of(2), 2);
        assert_eq!(lines.line_of(5), 3);
        assert_eq!(lines.line_of(6), 4);
    }
}
