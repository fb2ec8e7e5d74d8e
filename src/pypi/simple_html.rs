use html5gum::{naive_next_state, Token, Tokenizer};

use super::dist_file::MetadataHint;
use super::simple_page::RawFile;

/// Reads a PEP 503 HTML project page: every `<a>` with an `href` is a file, with PEP 503 /
/// 592 / 658 / 714 `data-*` attributes. Also returns a `<base href>` if present.
///
/// A WHATWG tokenizer reads the page, because index servers write attributes in any order and
/// often leave `>` unescaped inside quoted values (`data-requires-python=">=3.6"`), which a
/// scanner that ends tags at the first `>` gets wrong.
pub(crate) fn parse(body: &[u8]) -> (Vec<RawFile>, Option<String>) {
    let text = String::from_utf8_lossy(body);
    let mut tokens = Tokenizer::new(text.as_ref());
    let mut files = Vec::new();
    let mut base = None;
    // The anchor being read, and its text so far.
    let mut open: Option<(RawFile, String)> = None;
    while let Some(Ok(token)) = tokens.next() {
        match token {
            Token::StartTag(tag) => {
                // Script and style bodies are text, not markup: links inside them are not files.
                if let Some(state) = naive_next_state(&tag.name) {
                    tokens.set_state(state);
                }
                let attribute = |name: &str| {
                    tag.attributes
                        .get(name.as_bytes())
                        .map(|v| String::from_utf8_lossy(v).into_owned())
                };
                match tag.name.as_slice() {
                    b"base" => base = base.or_else(|| attribute("href")),
                    b"a" => {
                        files.extend(open.take().map(finish));
                        let Some(href) = attribute("href") else {
                            continue;
                        };
                        let file = RawFile {
                            href,
                            requires_python: attribute("data-requires-python"),
                            yanked: attribute("data-yanked"),
                            core_metadata: attribute("data-core-metadata")
                                .or_else(|| attribute("data-dist-info-metadata"))
                                .map(|value| metadata_hint(&value)),
                            ..RawFile::default()
                        };
                        open = Some((file, String::new()));
                    }
                    _ => {}
                }
            }
            Token::String(s) => {
                if let Some((_, text)) = &mut open {
                    text.push_str(&String::from_utf8_lossy(&s));
                }
            }
            Token::EndTag(tag) if tag.name.as_slice() == b"a" => {
                files.extend(open.take().map(finish));
            }
            _ => {}
        }
    }
    files.extend(open.take().map(finish));
    (files, base)
}

/// Names the file after the last segment of its link, as pip does: PEP 503 requires the link
/// text to match it, and directory listings shorten long names (`numpy-1.26.4-cp311-..>`).
fn finish((mut file, text): (RawFile, String)) -> RawFile {
    let path = file.href.split(['#', '?']).next().unwrap_or_default();
    let segment = path.rsplit('/').next().unwrap_or_default();
    file.filename = if segment.is_empty() {
        text.trim().to_string()
    } else {
        percent_decode(segment)
    };
    file
}

/// `data-core-metadata` / `data-dist-info-metadata`: `true`, `false` or `<hash>=<digest>`.
fn metadata_hint(value: &str) -> MetadataHint {
    match value {
        "false" => MetadataHint::Absent,
        v => MetadataHint::Available {
            sha256: v.strip_prefix("sha256=").map(str::to_ascii_lowercase),
        },
    }
}

/// `%XX` escapes in a URL path segment (`foo%2Bbar` → `foo+bar`); malformed ones stay as written.
fn percent_decode(segment: &str) -> String {
    let bytes = segment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| char::from(b).to_digit(16);
        match (
            bytes[i],
            bytes.get(i + 1).copied().and_then(hex),
            bytes.get(i + 2).copied().and_then(hex),
        ) {
            (b'%', Some(hi), Some(lo)) => {
                out.push((hi * 16 + lo) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
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

    /// Reproduced: the tag ended at the `>` inside the quoted value, so the attribute came out
    /// as `"` and the link text as `=3.6">six-1.0.tar.gz`.
    #[test]
    fn unescaped_gt_after_href_keeps_requires_python() {
        let (files, _) =
            parse(br#"<a href="six-1.0.tar.gz" data-requires-python=">=3.6">six-1.0.tar.gz</a>"#);
        assert_eq!(files.len(), 1);
        assert_eq!(files[0].filename, "six-1.0.tar.gz");
        assert_eq!(files[0].requires_python.as_deref(), Some(">=3.6"));
    }

    /// Reproduced: with the attribute first, the tag ended before `href`, so the file was lost.
    #[test]
    fn unescaped_gt_before_href_keeps_the_file() {
        let (files, _) =
            parse(br#"<a data-requires-python=">=3.6" href="six-1.0.tar.gz">six-1.0.tar.gz</a>"#);
        assert_eq!(files.len(), 1);
        assert_eq!(files[0].href, "six-1.0.tar.gz");
        assert_eq!(files[0].requires_python.as_deref(), Some(">=3.6"));
    }

    /// File name, URL, Requires-Python, yanked.
    type Listed = (String, String, Option<String>, bool);

    /// Reads `body` as the page at `page_url` and lists the files it names, and the names it
    /// set aside.
    fn listed(page_url: &str, body: &str) -> (Vec<Listed>, Vec<String>) {
        let (raw, base) = parse(body.as_bytes());
        let page_url = reqwest::Url::parse(page_url).unwrap();
        let base = base.map_or(page_url.clone(), |b| page_url.join(&b).unwrap());
        let name = crate::names::DistName::new("foo-bar").unwrap();
        let page = super::super::simple_page::build_page(
            &name,
            &base,
            super::super::project::PageFormat::Html,
            raw,
        )
        .unwrap();
        let files = page
            .files
            .iter()
            .map(|f| {
                (
                    f.filename.clone(),
                    f.url.clone(),
                    f.requires_python.text().map(str::to_string),
                    f.yanked.is_some(),
                )
            })
            .collect();
        (
            files,
            page.skipped.iter().map(|s| s.filename.clone()).collect(),
        )
    }

    fn file(name: &str, url: &str, requires_python: Option<&str>, yanked: bool) -> Listed {
        (
            name.into(),
            url.into(),
            requires_python.map(str::to_string),
            yanked,
        )
    }

    /// devpi writes links relative to the page into its `+f` store, with hashes in the fragment
    /// and Requires-Python as given, `>` unescaped in older releases.
    #[test]
    fn devpi_page() {
        let body = r#"<!DOCTYPE html>
<html>
  <head>
    <title>root/pypi: links for foo-bar</title>
  </head>
  <body>
    <h1>root/pypi: links for foo-bar</h1>
    <a data-requires-python=">=3.6" href="../../+f/1a2/b3c4d5e6f7a8b/foo_bar-1.1-py3-none-any.whl#sha256=AB12">foo_bar-1.1-py3-none-any.whl</a><br/>
    <a href="../../+f/9f8/e7d6c5b4a3921/foo-bar-1.0.tar.gz#sha256=cd34" data-requires-python="&gt;=2.7, !=3.0.*">foo-bar-1.0.tar.gz</a><br/>
    <a href="../../+f/000/1112223334445/foo-bar-0.9.tar.gz#md5=ef56" data-yanked="">foo-bar-0.9.tar.gz</a><br/>
  </body>
</html>
"#;
        let (files, skipped) = listed("http://devpi.test/root/pypi/+simple/foo-bar/", body);
        assert_eq!(
            files,
            [
                file(
                    "foo_bar-1.1-py3-none-any.whl",
                    "http://devpi.test/root/pypi/+f/1a2/b3c4d5e6f7a8b/foo_bar-1.1-py3-none-any.whl",
                    Some(">=3.6"),
                    false
                ),
                file(
                    "foo-bar-1.0.tar.gz",
                    "http://devpi.test/root/pypi/+f/9f8/e7d6c5b4a3921/foo-bar-1.0.tar.gz",
                    Some(">=2.7, !=3.0.*"),
                    false
                ),
                file(
                    "foo-bar-0.9.tar.gz",
                    "http://devpi.test/root/pypi/+f/000/1112223334445/foo-bar-0.9.tar.gz",
                    None,
                    true
                ),
            ]
        );
        assert!(skipped.is_empty());
    }

    /// pypiserver links to `/packages/` from the site root, with `<br>` not closed.
    #[test]
    fn pypiserver_page() {
        let body = "<html>\n    <head>\n        <title>Links for foo-bar</title>\n    </head>\n    <body>\n        <h1>Links for foo-bar</h1>\n             <a href=\"/packages/foo_bar-2.0-py2.py3-none-any.whl#sha256=0a0b\" data-requires-python=\"&gt;=3.8\">foo_bar-2.0-py2.py3-none-any.whl</a><br>\n             <a href=\"/packages/foo-bar-2.0.zip#sha256=0c0d\">foo-bar-2.0.zip</a><br>\n    </body>\n</html>";
        let (files, skipped) = listed("http://localhost:8080/simple/foo-bar/", body);
        assert_eq!(
            files,
            [
                file(
                    "foo_bar-2.0-py2.py3-none-any.whl",
                    "http://localhost:8080/packages/foo_bar-2.0-py2.py3-none-any.whl",
                    Some(">=3.8"),
                    false
                ),
                file(
                    "foo-bar-2.0.zip",
                    "http://localhost:8080/packages/foo-bar-2.0.zip",
                    None,
                    false
                ),
            ]
        );
        assert!(skipped.is_empty());
    }

    /// Artifactory puts `data-requires-python` before `href`, adds `rel`, and may set a
    /// `<base>`; metadata hints come as `data-dist-info-metadata`.
    #[test]
    fn artifactory_page() {
        let body = r#"<html>
<head><title>Links for foo-bar</title>
<base href="https://art.test/artifactory/api/pypi/pypi-remote/simple/foo-bar/"/>
</head>
<body>
<h1>Links for foo-bar</h1>
<a data-requires-python=">=3.7" href="../../packages/packages/ab/cd/foo_bar-3.0-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl#sha256=ee11" data-dist-info-metadata="sha256=FF22" rel="internal">foo_bar-3.0-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl</a><br/>
<a data-requires-python="&gt;=3.7" href="../../packages/packages/ef/01/foo-bar-3.0.tar.gz#sha256=ee33" rel="internal">foo-bar-3.0.tar.gz</a><br/>
</body>
</html>"#;
        let (raw, _) = parse(body.as_bytes());
        assert_eq!(
            raw[0].core_metadata,
            Some(MetadataHint::Available {
                sha256: Some("ff22".into())
            })
        );
        let (files, skipped) = listed("https://mirror.test/simple/foo-bar/", body);
        assert_eq!(
            files,
            [
                file(
                    "foo_bar-3.0-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
                    "https://art.test/artifactory/api/pypi/pypi-remote/packages/packages/ab/cd/foo_bar-3.0-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
                    Some(">=3.7"),
                    false
                ),
                file(
                    "foo-bar-3.0.tar.gz",
                    "https://art.test/artifactory/api/pypi/pypi-remote/packages/packages/ef/01/foo-bar-3.0.tar.gz",
                    Some(">=3.7"),
                    false
                ),
            ]
        );
        assert!(skipped.is_empty());
    }

    /// `python -m http.server` over a directory of files: a plain list, with a parent link.
    #[test]
    fn python_directory_listing() {
        let body = r#"<!DOCTYPE HTML>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Directory listing for /foo-bar/</title>
</head>
<body>
<h1>Directory listing for /foo-bar/</h1>
<hr>
<ul>
<li><a href="foo_bar-1.0%2Blocal-py3-none-any.whl">foo_bar-1.0+local-py3-none-any.whl</a></li>
<li><a href="foo-bar-1.0.tar.gz">foo-bar-1.0.tar.gz</a></li>
<li><a href="notes.txt">notes.txt</a></li>
</ul>
<hr>
</body>
</html>
"#;
        let (files, skipped) = listed("http://127.0.0.1:8000/foo-bar/", body);
        assert_eq!(
            files,
            [
                file(
                    "foo_bar-1.0+local-py3-none-any.whl",
                    "http://127.0.0.1:8000/foo-bar/foo_bar-1.0%2Blocal-py3-none-any.whl",
                    None,
                    false
                ),
                file(
                    "foo-bar-1.0.tar.gz",
                    "http://127.0.0.1:8000/foo-bar/foo-bar-1.0.tar.gz",
                    None,
                    false
                ),
            ]
        );
        assert_eq!(skipped, ["notes.txt"]);
    }

    /// Apache and nginx autoindex pages: sort links, icons, a parent link, and (nginx) long
    /// names cut short in the link text.
    #[test]
    fn web_server_directory_listings() {
        let apache = r#"<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 3.2 Final//EN">
<html>
 <head>
  <title>Index of /simple/foo-bar</title>
 </head>
 <body>
<h1>Index of /simple/foo-bar</h1>
  <table>
   <tr><th valign="top"><img src="/icons/blank.gif" alt="[ICO]"></th><th><a href="?C=N;O=D">Name</a></th><th><a href="?C=M;O=A">Last modified</a></th><th><a href="?C=S;O=A">Size</a></th></tr>
   <tr><th colspan="4"><hr></th></tr>
<tr><td valign="top"><img src="/icons/back.gif" alt="[PARENTDIR]"></td><td><a href="/simple/">Parent Directory</a></td><td>&nbsp;</td><td align="right">  - </td></tr>
<tr><td valign="top"><img src="/icons/compressed.gif" alt="[   ]"></td><td><a href="foo-bar-1.2.tar.gz">foo-bar-1.2.tar.gz</a></td><td align="right">2020-11-04 10:00  </td><td align="right"> 12K</td></tr>
   <tr><th colspan="4"><hr></th></tr>
</table>
</body></html>
"#;
        let (files, skipped) = listed("http://apache.test/simple/foo-bar/", apache);
        assert_eq!(
            files,
            [file(
                "foo-bar-1.2.tar.gz",
                "http://apache.test/simple/foo-bar/foo-bar-1.2.tar.gz",
                None,
                false
            )]
        );
        assert_eq!(
            skipped,
            ["Name", "Last modified", "Size", "Parent Directory"]
        );

        let nginx = r#"<html>
<head><title>Index of /foo-bar/</title></head>
<body>
<h1>Index of /foo-bar/</h1><hr><pre><a href="../">../</a>
<a href="foo_bar-1.3-cp39-cp39-manylinux_2_17_x86_64.manylinux2014_x86_64.whl">foo_bar-1.3-cp39-cp39-manylinux_2_17_x86_64.many..&gt;</a> 04-Nov-2020 10:00             123456
</pre><hr></body>
</html>
"#;
        let (files, _) = listed("http://nginx.test/foo-bar/", nginx);
        assert_eq!(
            files,
            [file(
                "foo_bar-1.3-cp39-cp39-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
                "http://nginx.test/foo-bar/foo_bar-1.3-cp39-cp39-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
                None,
                false
            )]
        );
    }

    /// Links inside comments and scripts are not files.
    #[test]
    fn comments_and_scripts_hold_no_links() {
        let body = r#"<!-- <a href="foo-bar-0.1.tar.gz">foo-bar-0.1.tar.gz</a> -->
<script>var s = '<a href="foo-bar-0.2.tar.gz">x</a>';</script>
<a href="foo-bar-0.3.tar.gz">foo-bar-0.3.tar.gz</a>"#;
        let (raw, _) = parse(body.as_bytes());
        let names: Vec<_> = raw.iter().map(|f| f.filename.as_str()).collect();
        assert_eq!(names, ["foo-bar-0.3.tar.gz"]);
    }

    #[test]
    fn percent_escapes_in_file_names() {
        assert_eq!(
            percent_decode("foo%2Bbar-1.0%2blocal.tar.gz"),
            "foo+bar-1.0+local.tar.gz"
        );
        assert_eq!(percent_decode("100%-%zz%4"), "100%-%zz%4");
    }
}
