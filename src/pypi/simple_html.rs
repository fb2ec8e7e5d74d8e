use super::dist_file::MetadataHint;
use super::simple_page::RawFile;

/// Reads a PEP 503 HTML project page: every `<a>` is a file, its text the file name, with
/// PEP 503 / 592 / 658 / 714 `data-*` attributes. Also returns a `<base href>` if present.
///
/// A tolerant scanner rather than an HTML parser: index pages are machine-written and simple,
/// and this keeps a dependency and its build time out.
pub(crate) fn parse(body: &[u8]) -> (Vec<RawFile>, Option<String>) {
    let text = String::from_utf8_lossy(body);
    let lower = text.to_ascii_lowercase();
    let mut files = Vec::new();
    let mut base = None;
    let mut pos = 0;
    while let Some(offset) = lower[pos..].find('<') {
        let start = pos + offset + 1;
        let Some(tag_len) = lower[start..].find('>') else {
            break;
        };
        let tag = &text[start..start + tag_len];
        let tag_lower = &lower[start..start + tag_len];
        pos = start + tag_len + 1;
        let (tag_name, attrs) = tag.split_at(tag.find(char::is_whitespace).unwrap_or(tag.len()));
        let tag_name_lower = &tag_lower[..tag_name.len()];
        if tag_name_lower == "base" {
            base = attribute(attrs, "href");
            continue;
        }
        if tag_name_lower != "a" {
            continue;
        }
        let Some(href) = attribute(attrs, "href") else {
            continue;
        };
        let text_end = lower[pos..].find("</a").map_or(lower.len(), |e| pos + e);
        let filename = decode_entities(text[pos..text_end].trim());
        pos = text_end;
        let yanked = attribute(attrs, "data-yanked");
        let metadata = attribute(attrs, "data-core-metadata")
            .or_else(|| attribute(attrs, "data-dist-info-metadata"));
        let core_metadata = metadata.map(|value| match value.as_str() {
            "false" => MetadataHint::Absent,
            v => MetadataHint::Available {
                sha256: v.strip_prefix("sha256=").map(str::to_ascii_lowercase),
            },
        });
        files.push(RawFile {
            filename,
            href,
            requires_python: attribute(attrs, "data-requires-python"),
            yanked,
            core_metadata,
            ..RawFile::default()
        });
    }
    (files, base)
}

/// The entity-decoded value of attribute `name`; `Some("")` for a bare attribute.
fn attribute(attrs: &str, name: &str) -> Option<String> {
    let bytes = attrs.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        while i < bytes.len() && (bytes[i].is_ascii_whitespace() || bytes[i] == b'/') {
            i += 1;
        }
        let key_start = i;
        while i < bytes.len() && !bytes[i].is_ascii_whitespace() && bytes[i] != b'=' {
            i += 1;
        }
        let key = &attrs[key_start..i];
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        let value = if i < bytes.len() && bytes[i] == b'=' {
            i += 1;
            while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                i += 1;
            }
            let (start, end) = match bytes.get(i) {
                Some(&q @ (b'"' | b'\'')) => {
                    let start = i + 1;
                    let end = attrs[start..]
                        .find(q as char)
                        .map_or(attrs.len(), |e| start + e);
                    i = (end + 1).min(attrs.len());
                    (start, end)
                }
                _ => {
                    let start = i;
                    while i < bytes.len() && !bytes[i].is_ascii_whitespace() {
                        i += 1;
                    }
                    (start, i)
                }
            };
            &attrs[start..end]
        } else {
            ""
        };
        if key.eq_ignore_ascii_case(name) {
            return Some(decode_entities(value));
        }
        if key.is_empty() {
            i += 1;
        }
    }
    None
}

fn decode_entities(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        rest = &rest[amp..];
        let Some(semi) = rest[..rest.len().min(12)].find(';') else {
            out.push('&');
            rest = &rest[1..];
            continue;
        };
        let entity = &rest[1..semi];
        let decoded = match entity {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            _ => entity
                .strip_prefix("#x")
                .or_else(|| entity.strip_prefix("#X"))
                .and_then(|h| u32::from_str_radix(h, 16).ok())
                .or_else(|| entity.strip_prefix('#').and_then(|d| d.parse().ok()))
                .and_then(char::from_u32),
        };
        match decoded {
            Some(c) => {
                out.push(c);
                rest = &rest[semi + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_anchors_and_data_attributes() {
        let page = br#"<!DOCTYPE html><html><body>
<a href="../../files/foo-1.0.tar.gz#sha256=ABC" data-requires-python="&gt;=3.6">foo-1.0.tar.gz</a><br/>
<A HREF='foo-1.1-py3-none-any.whl' data-yanked="broken build" data-dist-info-metadata="sha256=def">
  foo-1.1-py3-none-any.whl </A>
<a href=foo-1.2.zip data-yanked>foo-1.2.zip</a>
</body></html>"#;
        let (files, base) = parse(page);
        assert_eq!(base, None);
        assert_eq!(files.len(), 3);
        assert_eq!(files[0].href, "../../files/foo-1.0.tar.gz#sha256=ABC");
        assert_eq!(files[0].requires_python.as_deref(), Some(">=3.6"));
        assert_eq!(files[1].filename, "foo-1.1-py3-none-any.whl");
        assert_eq!(files[1].yanked.as_deref(), Some("broken build"));
        assert_eq!(
            files[1].core_metadata,
            Some(MetadataHint::Available {
                sha256: Some("def".into())
            })
        );
        assert_eq!(files[2].href, "foo-1.2.zip");
        assert_eq!(files[2].yanked.as_deref(), Some(""));
    }

    #[test]
    fn entities() {
        assert_eq!(decode_entities("a&amp;b&#62;&#x3C;&bogus;"), "a&b><&bogus;");
    }
}
