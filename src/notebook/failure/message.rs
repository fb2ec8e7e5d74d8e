//! The standard CPython exception messages, read into their parts. Python 2 and old Python 3
//! forms are kept: notebooks of every era store them (`No module named foo`,
//! `cannot import name X`, `'module' object has no attribute 'x'`).

/// What a message says, for the messages the classifier decides on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Message<'a> {
    /// `No module named 'a.b'` (`No module named a.b` on Python 2).
    NoModule {
        module: &'a str,
    },
    /// `cannot import name 'X' from 'Y' (path)`; Python 2 and 3.3–3.6 omit the module.
    CannotImport {
        name: &'a str,
        module: Option<&'a str>,
        /// `from partially initialized module`: a circular import.
        circular: bool,
    },
    /// `module 'Y' has no attribute 'X'`.
    ModuleAttribute {
        module: &'a str,
        attribute: &'a str,
        circular: bool,
    },
    /// Python 2's `'module' object has no attribute 'X'`: which module is not said.
    SomeModuleAttribute {
        attribute: &'a str,
    },
    /// `'T' object has no attribute 'X'`, `type object 'T' has no attribute 'X'`, Python 2's
    /// `T instance has no attribute 'X'`.
    ObjectAttribute {
        type_name: &'a str,
        attribute: &'a str,
    },
    /// `f() got an unexpected keyword argument 'k'` (3.10+: `Class.method() got …`).
    UnexpectedKeyword {
        function: &'a str,
        keyword: &'a str,
    },
    /// A keyword handed down through `**kwargs` to where nothing takes it: matplotlib's
    /// `'Rectangle' object has no property 'normed'` (3.1 to 3.5), `Unknown property normed`
    /// (before).
    UnknownProperty {
        keyword: &'a str,
    },
    /// `f() takes 2 positional arguments but 3 were given`, `f() missing 1 required
    /// positional argument: 'x'`, Python 2's `f() takes exactly 2 arguments (3 given)`.
    Arguments {
        function: &'a str,
    },
    /// `name 'x' is not defined`, Python 2's `global name 'x' is not defined`.
    NameNotDefined {
        name: &'a str,
    },
    /// `Missing parentheses in call to 'print'`: Python 2 code on Python 3.
    MissingParentheses {
        call: &'a str,
    },
    /// `attempted relative import with no known parent package` (Python 2: `Attempted
    /// relative import in non-package`): a module with `from .x import y` imported at the
    /// top level, outside its package.
    RelativeImportOutsidePackage,
    /// `Non-ASCII character '\xcf' in file m.py on line 78, but no encoding declared`:
    /// Python 2 reading a UTF-8 source file that Python 3 reads as it is.
    UndeclaredEncoding {
        file: &'a str,
    },
    /// NLTK's `Resource punkt not found.` (under a line of stars; older releases quote the
    /// resource's path: `Resource u'tokenizers/punkt/english.pickle' not found.`).
    ResourceNotFound {
        resource: &'a str,
    },
    /// matplotlib's `Format 'tif' is not supported (supported formats: eps, pdf, ...)`.
    UnsupportedFormat {
        format: &'a str,
    },
    Other,
}

/// The first quoted word: `'x'` (or `"x"`).
fn quoted(s: &str) -> Option<(&str, &str)> {
    let start = s.find(['\'', '"'])?;
    let quote = s.as_bytes()[start] as char;
    let rest = &s[start + 1..];
    let end = rest.find(quote)?;
    Some((&rest[..end], &rest[end + 1..]))
}

fn unquote(s: &str) -> &str {
    let s = s.trim();
    s.strip_prefix(['\'', '"'])
        .and_then(|r| r.strip_suffix(['\'', '"']))
        .unwrap_or(s)
}

/// Reads the first line of `evalue` (a line of stars framing the message is not one).
pub(crate) fn parse(evalue: &str) -> Message<'_> {
    let line = evalue
        .lines()
        .find(|l| !l.trim().is_empty() && !l.trim().chars().all(|c| c == '*'))
        .unwrap_or("")
        .trim();
    if let Some(rest) = line.strip_prefix("No module named ") {
        // `No module named 'a.b'; 'a' is not a package`
        let rest = rest.split(';').next().unwrap_or(rest);
        // `No module named 'atari_py'. (HINT: ... 'pip install gym[atari]'.)`: a library's
        // words after the quoted name are not part of it.
        let module = match quoted(rest) {
            Some((name, _)) if rest.starts_with(['\'', '"']) => name,
            _ => unquote(rest.trim_end_matches('.')),
        };
        if !module.is_empty() {
            return Message::NoModule { module };
        }
    }
    if let Some(rest) = line.strip_prefix("Format ") {
        if let Some((format, after)) = quoted(rest) {
            if after.trim_start().starts_with("is not supported") && !format.is_empty() {
                return Message::UnsupportedFormat { format };
            }
        }
    }
    if let Some(rest) = line.strip_prefix("cannot import name ") {
        let (name, after) = match quoted(rest) {
            Some((n, a)) if rest.starts_with(['\'', '"']) => (n, a),
            _ => {
                let n = rest.split_whitespace().next().unwrap_or("");
                (n, &rest[n.len()..])
            }
        };
        let circular = after.contains("partially initialized module");
        let module = after
            .find(" from ")
            .and_then(|i| quoted(&after[i..]))
            .map(|(m, _)| m);
        if !name.is_empty() {
            return Message::CannotImport {
                name,
                module,
                circular,
            };
        }
    }
    let circular = line.starts_with("partially initialized module ");
    if let Some(rest) = line
        .strip_prefix("module ")
        .or_else(|| line.strip_prefix("partially initialized module "))
    {
        if let Some((module, after)) = quoted(rest) {
            if let Some((attribute, _)) = after.strip_prefix(" has no attribute ").and_then(quoted)
            {
                return Message::ModuleAttribute {
                    module,
                    attribute,
                    circular,
                };
            }
        }
    }
    if let Some(rest) = line.strip_prefix("'module' object has no attribute ") {
        if let Some((attribute, _)) = quoted(rest) {
            return Message::SomeModuleAttribute { attribute };
        }
    }
    if let Some(i) = line.find(" has no attribute ") {
        let head = &line[..i];
        let attribute = quoted(&line[i..]).map(|(a, _)| a);
        let type_name = if let Some(t) = head.strip_prefix("type object ") {
            Some(unquote(t))
        } else if let Some(t) = head.strip_suffix(" object") {
            Some(unquote(t))
        } else {
            head.strip_suffix(" instance").map(unquote)
        };
        if let (Some(type_name), Some(attribute)) = (type_name, attribute) {
            return Message::ObjectAttribute {
                type_name,
                attribute,
            };
        }
    }
    if let Some(i) = line.find(" object has no property ") {
        if let Some((keyword, _)) = quoted(&line[i..]) {
            return Message::UnknownProperty { keyword };
        }
    }
    if let Some(rest) = line.strip_prefix("Unknown property ") {
        let keyword = rest.trim();
        if !keyword.is_empty() && keyword.chars().all(|c| c.is_alphanumeric() || c == '_') {
            return Message::UnknownProperty { keyword };
        }
    }
    if let Some(i) = line.find(" got an unexpected keyword argument ") {
        let function = line[..i].trim_end_matches("()");
        if let Some((keyword, _)) = quoted(&line[i..]) {
            return Message::UnexpectedKeyword { function, keyword };
        }
    }
    if let Some(i) = line.find("() ") {
        let after = &line[i + 3..];
        if after.starts_with("takes ")
            || after.starts_with("missing ")
            || after.starts_with("got multiple values")
        {
            return Message::Arguments {
                function: &line[..i],
            };
        }
    }
    if let Some(rest) = line
        .strip_prefix("name ")
        .or_else(|| line.strip_prefix("global name "))
        .or_else(|| line.strip_prefix("free variable "))
        .or_else(|| line.strip_prefix("cannot access free variable "))
    {
        if let Some((name, after)) = quoted(rest) {
            if after.contains("not defined")
                || after.contains("referenced before assignment")
                || after.contains("not associated with a value")
            {
                return Message::NameNotDefined { name };
            }
        }
    }
    if let Some(rest) = line.strip_prefix("Missing parentheses in call to ") {
        if let Some((call, _)) = quoted(rest) {
            return Message::MissingParentheses { call };
        }
    }
    if line.starts_with("attempted relative import with no known parent package")
        || line.starts_with("Attempted relative import in non-package")
    {
        return Message::RelativeImportOutsidePackage;
    }
    if let Some(rest) = line.strip_prefix("Non-ASCII character ") {
        if let Some((_, rest)) = rest.split_once(" in file ") {
            if let Some((file, _)) = rest.split_once(" on line ") {
                if rest.contains("but no encoding declared") {
                    return Message::UndeclaredEncoding { file };
                }
            }
        }
    }
    if let Some(rest) = line.strip_prefix("Resource ") {
        if let Some((resource, _)) = rest.split_once(" not found") {
            let resource = resource.trim();
            let resource = unquote(resource.strip_prefix('u').unwrap_or(resource));
            if !resource.is_empty() && !resource.contains(' ') {
                return Message::ResourceNotFound { resource };
            }
        }
    }
    Message::Other
}

/// Words that follow "install" or precede "is required" without naming a package.
const NOT_A_PACKAGE: &[&str] = &[
    "a", "all", "an", "and", "as", "at", "by", "either", "for", "from", "if", "in", "it", "least",
    "of", "on", "one", "or", "that", "the", "them", "these", "this", "those", "to", "using",
    "version", "via", "with", "you", "your", "pip", "conda", "python", "package", "packages",
    "module", "library",
];

/// The name a library's message tells the user to install: `Please install openpyxl`,
/// `Missing optional dependency 'xlrd'.`, `You must `pip install pydot``, and, when
/// `import_error` (an ImportError says it is about a missing module), `matplotlib is required
/// for plotting`, `XLNetTokenizer requires the SentencePiece library`, `tables is not
/// installed`.
pub(crate) fn install_hint(evalue: &str, import_error: bool) -> Option<&str> {
    // ASCII lowercasing keeps every byte where it was: offsets into `lower` are offsets into
    // `evalue`.
    let lower = evalue.to_ascii_lowercase();
    let after = |marker: &str| {
        let i = lower.find(marker)? + marker.len();
        package_word(&evalue[i..])
    };
    let before = |marker: &str| {
        let i = lower.find(marker)?;
        let mut head = evalue[..i].trim_end();
        // `BeautifulSoup4 (bs4) not found`: the distribution, then its module in parentheses.
        if let Some(open) = head.strip_suffix(')').and_then(|h| h.rfind('(')) {
            head = head[..open].trim_end();
        }
        let head = head.trim_end_matches(['\'', '"', '`']);
        let start = head
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')))
            .map_or(0, |s| s + 1);
        package_word(&head[start..])
    };
    // `lxml not found, please install it` (pandas' read_html): the name comes first.
    if let Some(name) = before(" not found, please install it") {
        return Some(name);
    }
    let strong = [
        "missing optional dependency ",
        "pip install ",
        "please install ",
    ]
    .into_iter()
    .chain([
        "you need to install ",
        "you must install ",
        "conda install ",
    ])
    .find_map(after);
    let strong = strong
        .or_else(|| one_of(evalue, &lower))
        .or_else(|| asked_from_native_code(evalue));
    if strong.is_some() || !import_error {
        return strong;
    }
    after("requires the ")
        .or_else(|| after("requires "))
        .or_else(|| before(" is required"))
        .or_else(|| before(" is not installed"))
        .or_else(|| before(" not installed"))
}

/// The package and release a message asks to upgrade to: `Please upgrade your tensorflow
/// installation to v1.4.0!` (a notebook's own check of `tf.__version__`), `upgrade numpy to
/// version 1.16`. The version as written, without a `v`.
pub(crate) fn upgrade_to(evalue: &str) -> Option<(&str, &str)> {
    let lower = evalue.to_ascii_lowercase();
    let at = lower.find("upgrade ")? + "upgrade ".len();
    let rest = &evalue[at..];
    let rest = rest
        .strip_prefix("your ")
        .or_else(|| rest.strip_prefix("Your "))
        .unwrap_or(rest);
    let name = package_word(rest)?;
    let offset = rest.find(name)? + name.len();
    let tail = rest[offset..].trim_start();
    let tail = tail
        .strip_prefix("installation")
        .unwrap_or(tail)
        .trim_start();
    let tail = tail.strip_prefix("to ")?.trim_start();
    let tail = tail.strip_prefix("version ").unwrap_or(tail);
    let tail = tail.strip_prefix('v').unwrap_or(tail);
    let end = tail
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(tail.len());
    let version = tail[..end].trim_end_matches('.');
    (version.starts_with(|c: char| c.is_ascii_digit())).then_some((name, version))
}

/// The package to install of those a library says it needs one of: `PyQtGraph requires one
/// of PyQt4, PyQt5, PySide or PySide2`, `Please install either pyarrow (preferred) or
/// hdfs3`. The one it prefers when it says so; else the last it lists (libraries list the
/// older bindings first, and the newest is the one an installer still has).
fn one_of<'a>(evalue: &'a str, lower: &str) -> Option<&'a str> {
    let names = listed_one_of(evalue, lower)?;
    names
        .iter()
        .find(|(_, preferred)| *preferred)
        .or(names.last())
        .map(|(w, _)| *w)
}

/// The other packages a library says would do instead of `chosen` (`hdfs3` beside the
/// preferred `pyarrow`), in its order; none when it named one package.
pub(crate) fn alternatives_to<'a>(evalue: &'a str, chosen: &str) -> Vec<&'a str> {
    let lower = evalue.to_ascii_lowercase();
    let Some(names) = listed_one_of(evalue, &lower) else {
        return Vec::new();
    };
    if !names.iter().any(|(w, _)| *w == chosen) {
        return Vec::new();
    }
    names
        .into_iter()
        .map(|(w, _)| w)
        .filter(|w| *w != chosen)
        .collect()
}

/// Each package of a "one of" list, with whether the library prefers it; at least two.
fn listed_one_of<'a>(evalue: &'a str, lower: &str) -> Option<Vec<(&'a str, bool)>> {
    let at = [
        "requires one of ",
        "requires either ",
        "install either ",
        "one of ",
    ]
    .iter()
    .find_map(|m| lower.find(m).map(|i| i + m.len()))?;
    let end = evalue[at..]
        .find([';', '\n', '!'])
        .map_or(evalue.len(), |e| at + e);
    let list = &evalue[at..end];
    let mut names: Vec<(&str, bool)> = Vec::new();
    for part in list.split([',', '/']).flat_map(|p| p.split(" or ")) {
        let preferred = part.to_ascii_lowercase().contains("(preferred)");
        if let Some(word) = package_word(part) {
            names.push((word, preferred));
        }
    }
    (names.len() >= 2).then_some(names)
}

/// A package compiled code says it lacks, which no Python frame of the library shows: torch
/// without numpy, asked for `.numpy()` ("Numpy is not available"; torch of 2017 installed
/// numpy along, later releases do not).
pub(crate) fn asked_from_native_code(evalue: &str) -> Option<&str> {
    let trimmed = evalue.trim();
    trimmed
        .eq_ignore_ascii_case("numpy is not available")
        .then(|| &trimmed[..5])
}

/// The version requirement right after a package name at the start of `s` (`>= 2.1.11`),
/// as PEP 440 writes it, when the message gives one.
pub(crate) fn version_after(s: &str) -> Option<String> {
    let s = s.trim_start().trim_start_matches(['\'', '"', '`']);
    let s =
        s.trim_start_matches(|c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'));
    let s = s.trim_start_matches(['\'', '"', '`']).trim_start();
    let op_end = s.find(|c: char| !matches!(c, '<' | '>' | '=' | '!' | '~'))?;
    let op = &s[..op_end];
    if !matches!(op, ">=" | "<=" | "==" | ">" | "<" | "!=" | "~=") {
        return None;
    }
    let rest = s[op_end..].trim_start();
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '.'))
        .unwrap_or(rest.len());
    let version = rest[..end].trim_end_matches('.');
    (!version.is_empty() && version.starts_with(|c: char| c.is_ascii_digit()))
        .then(|| format!("{op}{version}"))
}

/// The package name at the start of `s`: quotes and backticks around it and a version
/// requirement after it left out.
fn package_word(s: &str) -> Option<&str> {
    let s = s.trim_start().trim_start_matches(['\'', '"', '`']);
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')))
        .unwrap_or(s.len());
    let word = s[..end].trim_end_matches(['.', '-']);
    let lower = word.to_ascii_lowercase();
    (!word.is_empty()
        && word.starts_with(|c: char| c.is_ascii_alphabetic())
        && !NOT_A_PACKAGE.contains(&lower.as_str()))
    .then_some(word)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A word of the sentence is no package (a real run was told "a library asks for the
    /// package `as`").
    #[test]
    fn function_words_name_no_package() {
        for evalue in [
            "the interactive viewer requires as its backend a running server",
            "this feature requires that the server is reachable",
            "Please install in a virtual environment",
        ] {
            assert_eq!(install_hint(evalue, true), None, "{evalue}");
        }
    }

    #[test]
    fn a_name_before_please_install_it() {
        assert_eq!(
            install_hint("lxml not found, please install it", true),
            Some("lxml")
        );
        // pandas' read_html before 0.23.
        assert_eq!(
            install_hint("BeautifulSoup4 (bs4) not found, please install it", true),
            Some("BeautifulSoup4")
        );
    }

    #[test]
    fn a_library_asking_for_one_of_several_packages() {
        assert_eq!(
            install_hint(
                "PyQtGraph requires one of PyQt4, PyQt5, PySide or PySide2; none of these packages could be imported",
                false
            ),
            Some("PySide2")
        );
        assert_eq!(
            install_hint(
                "Please install either `pyarrow` (preferred) or `hdfs3`",
                false
            ),
            Some("pyarrow")
        );
        assert_eq!(
            alternatives_to(
                "Please install either `pyarrow` (preferred) or `hdfs3`",
                "pyarrow"
            ),
            ["hdfs3"]
        );
        assert!(alternatives_to("Please install openpyxl", "openpyxl").is_empty());
    }

    #[test]
    fn import_messages() {
        assert_eq!(
            parse("No module named 'atari_py'. (HINT: you can install Atari dependencies by running 'pip install gym[atari]'.)"),
            Message::NoModule { module: "atari_py" }
        );
        assert_eq!(
            parse("No module named 'sklearn.cross_validation'"),
            Message::NoModule {
                module: "sklearn.cross_validation"
            }
        );
        assert_eq!(
            parse("No module named foo.bar"),
            Message::NoModule { module: "foo.bar" }
        );
        assert_eq!(
            parse("No module named 'a.b'; 'a' is not a package"),
            Message::NoModule { module: "a.b" }
        );
        assert_eq!(
            parse("cannot import name 'joblib' from 'sklearn.externals' (/x/__init__.py)"),
            Message::CannotImport {
                name: "joblib",
                module: Some("sklearn.externals"),
                circular: false
            }
        );
        assert_eq!(
            parse("cannot import name izip"),
            Message::CannotImport {
                name: "izip",
                module: None,
                circular: false
            }
        );
        assert_eq!(
            parse("cannot import name 'x' from partially initialized module 'pandas' (most likely due to a circular import) (/a/pandas.py)"),
            Message::CannotImport { name: "x", module: Some("pandas"), circular: true }
        );
    }

    #[test]
    fn attribute_messages() {
        assert_eq!(
            parse("module 'numpy' has no attribute 'float'.\n`np.float` was a deprecated alias"),
            Message::ModuleAttribute {
                module: "numpy",
                attribute: "float",
                circular: false
            }
        );
        assert_eq!(
            parse("'module' object has no attribute 'float'"),
            Message::SomeModuleAttribute { attribute: "float" }
        );
        assert_eq!(
            parse("'DataFrame' object has no attribute 'ix'"),
            Message::ObjectAttribute {
                type_name: "DataFrame",
                attribute: "ix"
            }
        );
        assert_eq!(
            parse("type object 'DataFrame' has no attribute 'from_items'"),
            Message::ObjectAttribute {
                type_name: "DataFrame",
                attribute: "from_items"
            }
        );
        assert_eq!(
            parse("Foo instance has no attribute 'bar'"),
            Message::ObjectAttribute {
                type_name: "Foo",
                attribute: "bar"
            }
        );
    }

    #[test]
    fn keywords_handed_down_to_an_artist() {
        assert_eq!(
            parse("'Rectangle' object has no property 'normed'"),
            Message::UnknownProperty { keyword: "normed" }
        );
        assert_eq!(
            parse("Unknown property normed"),
            Message::UnknownProperty { keyword: "normed" }
        );
        assert_eq!(parse("Unknown property of a thing"), Message::Other);
    }

    #[test]
    fn call_and_name_messages() {
        assert_eq!(
            parse("DataFrame.to_csv() got an unexpected keyword argument 'line_terminator'"),
            Message::UnexpectedKeyword {
                function: "DataFrame.to_csv",
                keyword: "line_terminator"
            }
        );
        assert_eq!(
            parse("__init__() got an unexpected keyword argument 'n_iter'"),
            Message::UnexpectedKeyword {
                function: "__init__",
                keyword: "n_iter"
            }
        );
        assert_eq!(
            parse("f() takes 1 positional argument but 2 were given"),
            Message::Arguments { function: "f" }
        );
        assert_eq!(
            parse("name 'np' is not defined"),
            Message::NameNotDefined { name: "np" }
        );
        assert_eq!(
            parse("global name 'np' is not defined"),
            Message::NameNotDefined { name: "np" }
        );
        assert_eq!(
            parse("name 'xrange' is not defined. Did you mean: 'range'?"),
            Message::NameNotDefined { name: "xrange" }
        );
        assert_eq!(
            parse("Missing parentheses in call to 'print'. Did you mean print(...)?"),
            Message::MissingParentheses { call: "print" }
        );
        assert_eq!(
            parse("Non-ASCII character '\\xcf' in file nrl/game.py on line 78, but no encoding declared; see http://python.org/dev/peps/pep-0263/ for details"),
            Message::UndeclaredEncoding { file: "nrl/game.py" }
        );
        assert_eq!(
            parse("attempted relative import with no known parent package"),
            Message::RelativeImportOutsidePackage
        );
        assert_eq!(
            parse("Attempted relative import in non-package"),
            Message::RelativeImportOutsidePackage
        );
        assert_eq!(parse("division by zero"), Message::Other);
    }

    #[test]
    fn upgrades_asked_for() {
        assert_eq!(
            upgrade_to("Please upgrade your tensorflow installation to v1.4.0!"),
            Some(("tensorflow", "1.4.0"))
        );
        assert_eq!(
            upgrade_to("upgrade numpy to version 1.16."),
            Some(("numpy", "1.16"))
        );
        assert_eq!(upgrade_to("please upgrade to the latest release"), None);
        assert_eq!(upgrade_to("an upgrade is available"), None);
    }

    #[test]
    fn nltk_resources() {
        let modern = "\n**********************************************************************\n  Resource punkt not found.\n  Please use the NLTK Downloader to obtain the resource:\n";
        assert_eq!(
            parse(modern),
            Message::ResourceNotFound { resource: "punkt" }
        );
        assert_eq!(
            parse("Resource u'tokenizers/punkt/english.pickle' not found.  Please use the NLTK Downloader"),
            Message::ResourceNotFound {
                resource: "tokenizers/punkt/english.pickle"
            }
        );
    }

    #[test]
    fn a_format_a_library_does_not_write() {
        assert_eq!(
            parse("Format 'tif' is not supported (supported formats: eps, pdf, pgf, png, ps, raw, rgba, svg, svgz)"),
            Message::UnsupportedFormat { format: "tif" }
        );
        assert_eq!(parse("Format is fine"), Message::Other);
    }

    #[test]
    fn what_libraries_say_to_install() {
        let hint = |s| install_hint(s, false);
        assert_eq!(
            hint("Missing optional dependency 'openpyxl'.  Use pip or conda to install openpyxl."),
            Some("openpyxl")
        );
        assert_eq!(hint("Please install tables>=3.6 first"), Some("tables"));
        assert_eq!(
            hint("Failed to import pydot. You must `pip install pydot` and install graphviz"),
            Some("pydot")
        );
        assert_eq!(hint("Numpy is not available"), Some("Numpy"));
        assert_eq!(hint("CUDA is not available"), None);
        // Only an ImportError's `is required` names a package.
        assert_eq!(hint("Parameter labels is required"), None);
        let import = |s| install_hint(s, true);
        assert_eq!(
            import("matplotlib is required for plotting when the default backend \"matplotlib\" is selected."),
            Some("matplotlib")
        );
        assert_eq!(
            import("XLNetTokenizer requires the SentencePiece library but it was not found in your environment."),
            Some("SentencePiece")
        );
        assert_eq!(import("requires at least 2 samples"), None);
    }
}
