//! Escaping text for HTML and SVG. Records come from anyone's notebooks and batch outputs: a
//! path or an exception name holding markup must show as text, never act as markup.

use std::borrow::Cow;

/// `s` safe as element text or inside a quoted attribute value, in HTML and in XML (SVG):
/// the five characters that can end either are replaced by entities XML and HTML both know.
pub fn escape(s: &str) -> Cow<'_, str> {
    if !s.contains(['&', '<', '>', '"', '\'']) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_becomes_text() {
        assert_eq!(
            escape(r#"<script>alert("x")</script> & 'y'"#),
            "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;"
        );
        assert!(matches!(escape("data/input 10–20%"), Cow::Borrowed(_)));
    }
}
