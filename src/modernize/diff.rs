//! The unified diff of the rewritten code cells, one hunk set per cell, so a reader sees
//! every token `modernize` touched and nothing else.

use std::collections::BTreeMap;

use similar::TextDiff;

/// The diff from `old` (cell number → source) to `new` (the rewritten cells only), labelled
/// with the two file names.
pub fn unified(
    old_name: &str,
    new_name: &str,
    old: &BTreeMap<u32, &str>,
    new: &BTreeMap<u32, String>,
) -> String {
    let mut out = String::new();
    for (number, text) in new {
        let before = old.get(number).copied().unwrap_or("");
        out.push_str(&unified_text(
            &format!("{old_name} (cell {number})"),
            &format!("{new_name} (cell {number})"),
            before,
            text,
        ));
    }
    out
}

/// The diff from `before` to `after`, whole texts (a local module's), labelled with the two
/// names.
pub fn unified_text(old_name: &str, new_name: &str, before: &str, after: &str) -> String {
    let with_newline = |s: &str| {
        if s.ends_with('\n') {
            s.to_string()
        } else {
            format!("{s}\n")
        }
    };
    let (a, b) = (with_newline(before), with_newline(after));
    TextDiff::from_lines(&a, &b)
        .unified_diff()
        .context_radius(3)
        .header(old_name, new_name)
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_line_is_shown_with_its_cell() {
        let old = BTreeMap::from([(3, "import a\nfrom a.old import f\nf()")]);
        let new = BTreeMap::from([(3, "import a\nfrom a.new import f\nf()".to_string())]);
        let d = unified("nb.ipynb", "nb.modern.ipynb", &old, &new);
        assert_eq!(
            d,
            "--- nb.ipynb (cell 3)\n+++ nb.modern.ipynb (cell 3)\n@@ -1,3 +1,3 @@\n import a\n-from a.old import f\n+from a.new import f\n f()\n"
        );
    }

    #[test]
    fn no_rewritten_cell_no_diff() {
        let old = BTreeMap::from([(1, "x = 1")]);
        assert_eq!(unified("a", "b", &old, &BTreeMap::new()), "");
        assert_eq!(unified_text("a", "b", "x = 1\n", "x = 1"), "");
    }
}
