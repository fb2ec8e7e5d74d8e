//! Shell commands (`!cmd`, `%pip`, `%%bash` bodies): the installs and downloads they perform.
//! Commands are split on `&&`, `||`, `;`, `|` and newlines and tokenized with shell quoting.

use pep508_rs::Requirement;

use crate::names::DistName;

use super::requirement::{conda_requirement, is_url, pip_requirement, Installer};
use super::usage::NoteKind;

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ShellFinding {
    Requirement {
        requirement: Box<Requirement>,
        name: DistName,
        installer: Installer,
    },
    Note(NoteKind, String),
}

/// Everything `command` (one or more shell commands) installs or fetches.
pub(crate) fn scan(command: &str, out: &mut Vec<ShellFinding>) {
    let mut words: Vec<String> = Vec::new();
    for simple in split_commands(command) {
        words.clear();
        tokenize(simple, &mut words);
        scan_simple(simple.trim(), &words, out);
    }
}

fn split_commands(command: &str) -> impl Iterator<Item = &str> {
    command
        .split(['\n', ';', '|', '&'])
        .filter(|s| !s.trim().is_empty())
}

/// Shell words with quotes removed; backslash escapes the next character.
fn tokenize(s: &str, out: &mut Vec<String>) {
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                for q in chars.by_ref() {
                    if q == '\'' {
                        break;
                    }
                    cur.push(q);
                }
            }
            '"' => {
                in_word = true;
                while let Some(q) = chars.next() {
                    match q {
                        '"' => break,
                        '\\' => {
                            if let Some(e) = chars.next() {
                                cur.push(e);
                            }
                        }
                        _ => cur.push(q),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(e) = chars.next() {
                    cur.push(e);
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    out.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        out.push(cur);
    }
}

fn basename(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

fn is_python(word: &str) -> bool {
    let b = basename(word);
    let rest = b
        .strip_prefix("python")
        .or_else(|| b.strip_prefix("ipython"));
    rest.is_some_and(|r| r.chars().all(|c| c.is_ascii_digit() || c == '.'))
        || word.contains("sys.executable")
        || word.eq_ignore_ascii_case("$PYTHON")
}

fn is_pip(word: &str) -> bool {
    let b = basename(word);
    b.strip_prefix("pip")
        .is_some_and(|r| r.chars().all(|c| c.is_ascii_digit() || c == '.'))
}

fn scan_simple(text: &str, words: &[String], out: &mut Vec<ShellFinding>) {
    // Skip wrappers and environment assignments: `sudo -H pip ...`, `FOO=1 pip ...`.
    let mut i = 0;
    while i < words.len() {
        let w = words[i].as_str();
        if matches!(w, "sudo" | "time" | "nohup" | "env" | "!" | "yes" | "exec")
            || (w.contains('=')
                && !w.starts_with('-')
                && w.split('=').next().is_some_and(|k| {
                    !k.is_empty()
                        && k.chars()
                            .all(|c| c.is_ascii_uppercase() || c == '_' || c.is_ascii_digit())
                }))
            || (i > 0 && words[i - 1] == "sudo" && w.starts_with('-'))
        {
            i += 1;
        } else {
            break;
        }
    }
    let words = &words[i..];
    let Some(program) = words.first() else {
        return;
    };
    let args = &words[1..];
    if is_pip(program) {
        pip(text, args, out);
    } else if is_python(program) {
        python(text, args, out);
    } else {
        match basename(program) {
            "conda" | "mamba" | "micromamba" => conda(text, args, out),
            "apt" | "apt-get" | "yum" | "dnf" | "brew" | "apk"
                if args.iter().any(|a| a == "install" || a == "add") =>
            {
                out.push(ShellFinding::Note(
                    NoteKind::SystemPackage,
                    text.to_string(),
                ));
            }
            "wget" | "curl" | "kaggle" | "gdown" => {
                out.push(ShellFinding::Note(NoteKind::DataDownload, text.to_string()));
            }
            "git" if args.first().is_some_and(|a| a == "clone") => {
                out.push(ShellFinding::Note(NoteKind::GitClone, text.to_string()));
            }
            "spacy" if args.first().is_some_and(|a| a == "download") => {
                out.push(ShellFinding::Note(
                    NoteKind::ModelDownload,
                    text.to_string(),
                ));
            }
            _ => {}
        }
    }
}

fn python(text: &str, args: &[String], out: &mut Vec<ShellFinding>) {
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        if a == "-m" {
            let module = args.get(i + 1).map(String::as_str).unwrap_or("");
            let rest = &args[(i + 2).min(args.len())..];
            match module {
                "pip" => pip(text, rest, out),
                "spacy" | "nltk.downloader" | "textblob.download_corpora" | "stanza" => out.push(
                    ShellFinding::Note(NoteKind::ModelDownload, text.to_string()),
                ),
                _ => {}
            }
            return;
        }
        if a.ends_with("setup.py") {
            if args[i + 1..]
                .iter()
                .any(|a| a == "install" || a == "develop")
            {
                out.push(ShellFinding::Note(
                    NoteKind::SourceInstall,
                    text.to_string(),
                ));
            }
            return;
        }
        if a.starts_with('-') {
            i += 1;
        } else {
            return;
        }
    }
}

/// pip options that take a value as the next word.
const PIP_VALUE_OPTIONS: &[&str] = &[
    "-c",
    "--constraint",
    "-i",
    "--index-url",
    "--extra-index-url",
    "-f",
    "--find-links",
    "-t",
    "--target",
    "--prefix",
    "--root",
    "--src",
    "--trusted-host",
    "--platform",
    "--python-version",
    "--implementation",
    "--abi",
    "--only-binary",
    "--no-binary",
    "--progress-bar",
    "--cache-dir",
    "--log",
    "--proxy",
    "--timeout",
    "--retries",
    "--upgrade-strategy",
    "--config-settings",
    "--global-option",
    "--install-option",
    "--report",
];

fn pip(text: &str, args: &[String], out: &mut Vec<ShellFinding>) {
    let mut args = args
        .iter()
        .map(String::as_str)
        .skip_while(|a| a.starts_with('-'));
    match args.next() {
        Some("install") => {}
        Some("uninstall") => {
            out.push(ShellFinding::Note(NoteKind::Uninstall, text.to_string()));
            return;
        }
        _ => return,
    }
    let args: Vec<&str> = args.collect();
    let mut i = 0;
    while i < args.len() {
        let a = args[i];
        i += 1;
        if a == "-r" || a == "--requirement" || a.starts_with("--requirement=") {
            out.push(ShellFinding::Note(
                NoteKind::RequirementsFile,
                text.to_string(),
            ));
            if !a.contains('=') {
                i += 1;
            }
        } else if a == "-e" || a == "--editable" {
            let target = args.get(i).copied().unwrap_or("");
            i += 1;
            match pip_requirement(target) {
                Some((requirement, name)) if is_url(target) => {
                    out.push(ShellFinding::Requirement {
                        requirement: Box::new(requirement),
                        name,
                        installer: Installer::Pip,
                    })
                }
                _ => out.push(ShellFinding::Note(
                    NoteKind::SourceInstall,
                    text.to_string(),
                )),
            }
        } else if PIP_VALUE_OPTIONS.contains(&a) {
            i += 1;
        } else if a.starts_with('-') {
        } else if let Some((requirement, name)) = pip_requirement(a) {
            out.push(ShellFinding::Requirement {
                requirement: Box::new(requirement),
                name,
                installer: Installer::Pip,
            });
        } else if a == "."
            || a.starts_with("./")
            || a.starts_with('/')
            || a.ends_with(".whl")
            || is_url(a)
        {
            out.push(ShellFinding::Note(
                NoteKind::SourceInstall,
                text.to_string(),
            ));
        }
    }
}

const CONDA_VALUE_OPTIONS: &[&str] = &[
    "-c",
    "--channel",
    "-n",
    "--name",
    "-p",
    "--prefix",
    "--file",
    "--override-channels-from",
    "--repodata-fn",
];

fn conda(text: &str, args: &[String], out: &mut Vec<ShellFinding>) {
    if args.first().map(String::as_str) != Some("install") {
        if args
            .first()
            .is_some_and(|a| a == "remove" || a == "uninstall")
        {
            out.push(ShellFinding::Note(NoteKind::Uninstall, text.to_string()));
        }
        return;
    }
    let mut i = 1;
    while i < args.len() {
        let a = args[i].as_str();
        i += 1;
        if a == "--file" {
            out.push(ShellFinding::Note(
                NoteKind::RequirementsFile,
                text.to_string(),
            ));
            i += 1;
        } else if CONDA_VALUE_OPTIONS.contains(&a) {
            i += 1;
        } else if a.starts_with('-') {
        } else if let Some((requirement, name)) = conda_requirement(a) {
            out.push(ShellFinding::Requirement {
                requirement: Box::new(requirement),
                name,
                installer: Installer::Conda,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reqs(cmd: &str) -> Vec<String> {
        let mut out = Vec::new();
        scan(cmd, &mut out);
        out.into_iter()
            .filter_map(|f| match f {
                ShellFinding::Requirement { requirement, .. } => Some(requirement.to_string()),
                ShellFinding::Note(..) => None,
            })
            .collect()
    }

    fn notes(cmd: &str) -> Vec<NoteKind> {
        let mut out = Vec::new();
        scan(cmd, &mut out);
        out.into_iter()
            .filter_map(|f| match f {
                ShellFinding::Note(k, _) => Some(k),
                ShellFinding::Requirement { .. } => None,
            })
            .collect()
    }

    #[test]
    fn pip_lines() {
        assert_eq!(reqs(" pip install tensorflow==1.15"), ["tensorflow==1.15"]);
        assert_eq!(
            reqs("pip install -q -U 'pandas<1.0' keras==2.2.4 --user"),
            ["pandas<1.0", "keras==2.2.4"]
        );
        assert_eq!(
            reqs("python3 -m pip install --index-url https://x/simple numpy"),
            ["numpy"]
        );
        assert_eq!(
            reqs("{sys.executable} -m pip install xgboost==0.82"),
            ["xgboost==0.82"]
        );
        assert_eq!(reqs("sudo -H pip3 install gensim && echo done"), ["gensim"]);
        assert_eq!(
            reqs("pip install -r requirements.txt"),
            Vec::<String>::new()
        );
        assert_eq!(
            notes("pip install -r requirements.txt"),
            [NoteKind::RequirementsFile]
        );
        assert_eq!(reqs("pip list"), Vec::<String>::new());
        assert_eq!(
            reqs("conda install -y -c conda-forge lightgbm=2.2"),
            ["lightgbm==2.2.*"]
        );
    }

    #[test]
    fn downloads_and_others() {
        assert_eq!(
            notes("python -m spacy download en_core_web_sm"),
            [NoteKind::ModelDownload]
        );
        assert_eq!(
            notes(" wget http://x.org/data.zip && unzip data.zip"),
            [NoteKind::DataDownload]
        );
        assert_eq!(
            notes("apt-get install -y graphviz"),
            [NoteKind::SystemPackage]
        );
        assert_eq!(
            notes("git clone https://github.com/a/b"),
            [NoteKind::GitClone]
        );
        assert_eq!(notes("pip install -e ."), [NoteKind::SourceInstall]);
        assert!(notes("ls -la").is_empty());
    }
}
