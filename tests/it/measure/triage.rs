//! Pre-flight triage on notebooks written for the purpose: data files absent, present or
//! written first; network use of each kind; a relative import with no module; Python 2.

use std::path::Path;

use nbenv::measure::triage::{FileState, NetworkUseKind};
use nbenv::measure::{triage, Triage};
use nbenv::notebook::{self, AnalyzeOptions};

/// Triage of a percent script (`# %%` between cells) written into `dir`.
fn triage_of(dir: &Path, name: &str, source: &str) -> Triage {
    let path = dir.join(name);
    std::fs::write(&path, source).unwrap();
    let nb = notebook::read(&path).unwrap();
    let usage = notebook::analyze(&nb, &AnalyzeOptions::default());
    triage(&usage, &path)
}

#[test]
fn data_files_absent_present_or_written_first() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("data")).unwrap();
    std::fs::write(dir.path().join("data/present.csv"), "a\n1\n").unwrap();
    let t = triage_of(
        dir.path(),
        "files.py",
        "# %%\nimport pandas as pd\nimport numpy as np\n\
         # %%\ntrain = pd.read_csv('data/present.csv')\ntest = pd.read_csv('data/absent.csv')\n\
         # %%\ntrain.to_csv('out.csv')\nagain = pd.read_csv('./out.csv')\n\
         # %%\nw = np.load('weights.npy')\nwith open('log.txt', 'w') as f:\n    f.write('x')\n\
         with open('notes.txt') as f:\n    notes = f.read()\n",
    );
    let states: Vec<(&str, FileState)> = t
        .data_files
        .iter()
        .map(|f| (f.path.as_str(), f.state))
        .collect();
    assert_eq!(
        states,
        [
            ("data/present.csv", FileState::Present),
            ("data/absent.csv", FileState::Missing),
            ("./out.csv", FileState::Written),
            ("weights.npy", FileState::Missing),
            ("notes.txt", FileState::Missing),
        ]
    );
    let missing: Vec<&str> = t.missing_data_files().map(|f| f.call.as_str()).collect();
    assert_eq!(missing, ["pandas.read_csv", "numpy.load", "open"]);
    assert!(t.network.is_empty(), "{:?}", t.network);
    assert!(t.parseable && !t.python2);
}

#[test]
fn network_use_of_every_kind() {
    let dir = tempfile::tempdir().unwrap();
    let t = triage_of(
        dir.path(),
        "net.py",
        "# %%\n!pip install seaborn==0.9.0\n!wget https://example.org/data.zip\n\
         # %%\nimport requests\nimport seaborn as sns\nr = requests.get('https://api.example.org/v1')\n\
         tips = sns.load_dataset('tips')\n\
         # %%\n!git clone https://github.com/x/y\n",
    );
    let kinds: Vec<(NetworkUseKind, &str)> = t
        .network
        .iter()
        .map(|n| (n.kind, n.detail.as_str()))
        .collect();
    assert_eq!(
        kinds,
        [
            (NetworkUseKind::Install, "pip install seaborn==0.9.0"),
            (
                NetworkUseKind::Download,
                "wget https://example.org/data.zip"
            ),
            (NetworkUseKind::Url, "https://api.example.org/v1"),
            (NetworkUseKind::Request, "requests.get"),
            (NetworkUseKind::Fetch, "seaborn.load_dataset"),
            (NetworkUseKind::Clone, "git clone https://github.com/x/y"),
        ]
    );
}

#[test]
fn relative_imports_with_no_module_and_python_2() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("present_mod.py"), "def g(): pass\n").unwrap();
    let t = triage_of(
        dir.path(),
        "local.py",
        "# %%\nfrom .helpers import f\nfrom .present_mod import g\nfrom . import utils\nimport present_mod\n",
    );
    let missing: Vec<&str> = t.local_modules_missing.iter().map(|m| m.as_str()).collect();
    assert_eq!(missing, ["helpers", "utils"]);
    assert!(t.imports.is_empty(), "{:?}", t.imports);

    let t = triage_of(
        dir.path(),
        "old.py",
        "# %%\nimport urllib2\nprint \"fetching\"\nfor i in xrange(3):\n    pass\n",
    );
    assert!(t.python2);
    assert!(!t.parseable);
    assert_eq!(t.syntax_errors.len(), 1);
    assert!(
        t.python2_evidence
            .as_deref()
            .unwrap()
            .starts_with("print statement"),
        "{:?}",
        t.python2_evidence
    );
    let t = triage_of(dir.path(), "new.py", "# %%\nprint('fine')\nx = f'{1}'\n");
    assert!(!t.python2 && t.parseable, "{t:?}");
}
