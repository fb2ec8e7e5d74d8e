//! One test's world: a temporary directory holding its bank, its cache (and with it uv's and
//! pip's, which nbenv keeps inside its own), its HOME, optionally a loopback index, and the
//! nbenv binary started inside it. Nothing a context runs reads or writes the machine's caches
//! (`~/.cache/nbenv`, `~/.cache/uv`) or follows the caller's `NBENV_*` variables.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use super::archives::WheelBuilder;
use super::server::{FixtureFile, PageMode, TestServer};

/// The bank, cache and home of one test, and the index it reads (when it has one).
pub struct TestContext {
    dir: tempfile::TempDir,
    server: Option<TestServer>,
    /// Variables set (`Some`) or removed (`None`) after the context's own.
    vars: Vec<(OsString, Option<OsString>)>,
}

/// What a run of nbenv said and how it ended.
#[derive(Debug, Clone)]
pub struct Run {
    /// The exit code; -1 when a signal ended it.
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    pub fn from_output(out: &Output) -> Self {
        Self {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    pub fn success(&self) -> bool {
        self.code == 0
    }

    /// Stdout then stderr, for assertion messages and checks of either.
    pub fn text(&self) -> String {
        format!("{}{}", self.stdout, self.stderr)
    }

    /// `(code, stdout, stderr)`, for tests that name the three.
    pub fn parts(self) -> (i32, String, String) {
        (self.code, self.stdout, self.stderr)
    }
}

/// When the files of one `publish` were uploaded, as the index's JSON page says (uv refuses a
/// page whose files have none).
#[derive(Debug, Clone, Copy)]
pub enum Uploaded {
    /// Every file at this RFC 3339 time.
    At(&'static str),
    /// The i-th file on January 1st of year `start + i`: releases in the order given.
    Yearly(u32),
}

impl Uploaded {
    fn time(self, i: usize) -> String {
        match self {
            Uploaded::At(time) => time.to_string(),
            Uploaded::Yearly(start) => format!("{}-01-01T00:00:00Z", start as usize + i),
        }
    }
}

impl Default for TestContext {
    fn default() -> Self {
        Self::new()
    }
}

impl TestContext {
    /// A context without an index: nbenv is pointed at no server (requests go nowhere the
    /// test controls, so a test without one must not make any).
    pub fn new() -> Self {
        let dir = tempfile::tempdir().expect("a temporary directory");
        for sub in ["home/.cache", "home/.config", "home/.local/share"] {
            std::fs::create_dir_all(dir.path().join(sub)).unwrap();
        }
        Self {
            dir,
            server: None,
            vars: Vec::new(),
        }
    }

    /// A context with an empty loopback index serving JSON pages.
    pub fn with_index() -> Self {
        Self::with_server(TestServer::start(PageMode::Json))
    }

    /// A context reading `server`.
    pub fn with_server(server: TestServer) -> Self {
        Self {
            server: Some(server),
            ..Self::new()
        }
    }

    /// Sets `name` for every command of this context, over the context's own value.
    pub fn env(mut self, name: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Self {
        self.vars
            .push((name.as_ref().to_owned(), Some(value.as_ref().to_owned())));
        self
    }

    /// Removes `name` from every command of this context.
    pub fn env_remove(mut self, name: impl AsRef<OsStr>) -> Self {
        self.vars.push((name.as_ref().to_owned(), None));
        self
    }

    /// The context's directory.
    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// `name` inside the context's directory.
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// The bank nbenv uses (`NBENV_BANK`); absent until a command writes it.
    pub fn bank(&self) -> PathBuf {
        self.path("bank.sqlite3")
    }

    /// nbenv's cache directory (`NBENV_CACHE_DIR`).
    pub fn cache(&self) -> PathBuf {
        self.path("cache")
    }

    /// The HOME of every command (XDG directories inside it).
    pub fn home(&self) -> PathBuf {
        self.path("home")
    }

    /// uv's cache: nbenv's own choice inside its cache directory, since the context passes
    /// on no `UV_CACHE_DIR` (a test that sets one tests a cache the user chose).
    pub fn uv_cache(&self) -> PathBuf {
        self.cache().join("uv")
    }

    /// The settings every command of the library takes, as [`TestContext::command`] gives
    /// them to the binary: this context's bank, cache and index, no retries. For tests that
    /// call a command's library function, with no process.
    pub fn settings(&self) -> nbenv::commands::GlobalSettings {
        let index_url = match &self.server {
            Some(server) => server.index_url(),
            None => nbenv::pypi::PYPI_SIMPLE.to_string(),
        };
        let mut index = nbenv::pypi::IndexConfig::new(index_url, self.cache());
        index.http.retry.retries = 0;
        nbenv::commands::GlobalSettings {
            bank: self.bank(),
            cache_dir: self.cache(),
            index,
            events: None,
            bank_lock: Default::default(),
            env_cache_budget: 10 << 30,
        }
    }

    /// The loopback index; panics when the context has none.
    pub fn server(&self) -> &TestServer {
        self.server.as_ref().expect("a context with an index")
    }

    pub fn index_url(&self) -> String {
        self.server().index_url()
    }

    /// Publishes `wheels` of `project` on the loopback index, uploaded at `uploaded`.
    pub fn publish(&self, project: &str, wheels: &[WheelBuilder], uploaded: Uploaded) {
        let files: Vec<FixtureFile> = wheels
            .iter()
            .enumerate()
            .map(|(i, w)| FixtureFile {
                upload_time: Some(uploaded.time(i)),
                ..FixtureFile::new(&w.filename(), w.build())
            })
            .collect();
        self.server().publish(project, &files);
    }

    /// Writes `text` to `name` inside the context's directory, making the folders on the
    /// way, and returns the path.
    pub fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.path(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }

    /// Writes `files` (path inside `dir`, text) into the folder `dir` of the context's
    /// directory, as [`TestContext::write`] writes each, and returns the folder's path: a
    /// repository or a project laid out in one statement.
    pub fn write_files(&self, dir: &str, files: &[(&str, &str)]) -> PathBuf {
        for (name, text) in files {
            self.write(&format!("{dir}/{name}"), text);
        }
        self.path(dir)
    }

    /// The nbenv binary with this context's environment: its bank, cache and index (as
    /// `NBENV_*` variables, which any flag overrides), no retries, no colour, a fixed width,
    /// its own HOME, and none of the caller's `NBENV_*` variables or installer caches (so
    /// that uv's and pip's are nbenv's, in the context's cache).
    pub fn command(&self) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_nbenv"));
        for (name, _) in std::env::vars_os() {
            if name.to_string_lossy().starts_with("NBENV_") {
                cmd.env_remove(name);
            }
        }
        // Interpreters are found where they were before HOME moved.
        let pyenv = std::env::var_os("PYENV_ROOT")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".pyenv")));
        if let Some(pyenv) = pyenv {
            cmd.env("PYENV_ROOT", pyenv);
        }
        let home = self.home();
        cmd.env("NBENV_BANK", self.bank())
            .env("NBENV_CACHE_DIR", self.cache())
            .env("NBENV_HTTP_RETRIES", "0")
            .env("NO_COLOR", "1")
            .env("COLUMNS", "100")
            .env("HOME", &home)
            .env("XDG_CACHE_HOME", home.join(".cache"))
            .env("XDG_CONFIG_HOME", home.join(".config"))
            .env("XDG_DATA_HOME", home.join(".local/share"))
            .env_remove("UV_CACHE_DIR")
            .env_remove("PIP_CACHE_DIR");
        if let Some(server) = &self.server {
            cmd.env("NBENV_INDEX_URL", server.index_url());
        }
        for (name, value) in &self.vars {
            match value {
                Some(value) => cmd.env(name, value),
                None => cmd.env_remove(name),
            };
        }
        cmd
    }

    /// [`TestContext::command`] with `args`.
    pub fn command_with<I, S>(&self, args: I) -> Command
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut cmd = self.command();
        cmd.args(args);
        cmd
    }

    /// `nbenv ARGS...`, waited for.
    pub fn output<I, S>(&self, args: I) -> Output
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.command()
            .args(args)
            .output()
            .expect("the nbenv binary runs")
    }

    /// `nbenv ARGS...`: what it said and how it ended.
    pub fn run<I, S>(&self, args: I) -> Run
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        Run::from_output(&self.output(args))
    }

    /// `nbenv infer NOTEBOOK EXTRA...`.
    pub fn infer(&self, notebook: &Path, extra: &[&str]) -> Run {
        let mut cmd = self.command();
        cmd.arg("infer").arg(notebook).args(extra);
        Run::from_output(&cmd.output().expect("the nbenv binary runs"))
    }

    /// `nbenv restore NOTEBOOK EXTRA...`.
    pub fn restore(&self, notebook: &Path, extra: &[&str]) -> Run {
        let mut cmd = self.command();
        cmd.arg("restore").arg(notebook).args(extra);
        Run::from_output(&cmd.output().expect("the nbenv binary runs"))
    }
}

/// The nbenv binary outside any context: none of the caller's `NBENV_*` variables, a fixed
/// width, and nothing else set, for what nbenv does unconfigured (help, conventions, the
/// analysis commands that read no bank).
pub fn bare_command() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_nbenv"));
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("NBENV_") {
            cmd.env_remove(name);
        }
    }
    cmd.env("COLUMNS", "100");
    cmd
}

/// `nbenv ARGS...` outside any context ([`bare_command`]).
pub fn bare<I, S>(args: I) -> Output
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    bare_command()
        .args(args)
        .output()
        .expect("the nbenv binary runs")
}

/// [`bare`], read.
pub fn bare_run<I, S>(args: I) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    Run::from_output(&bare(args))
}
