//! What a notebook's code reaches outside itself when it runs: files it reads or writes by a
//! literal path, and the network. A notebook that reads `train.csv` with no `train.csv`
//! beside it stops at a FileNotFoundError whatever its environment, and one that downloads
//! its data needs the network: batch pipelines triage on both before running anything.
//!
//! The tracer calls [`file_call`], [`member_file_call`] and [`network_call`] with the
//! qualified path of each call it resolves (`pandas.read_csv`, whatever alias the notebook
//! used) and records what they recognise; string literals that are whole URLs are recorded
//! where they appear ([`is_url`]).

use ruff_python_ast::{Arguments, Expr};
use serde::Serialize;

use super::location::Location;

/// Whether code reads a file or writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FileAccess {
    Read,
    Write,
}

/// A file the code opens by a literal path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileUse {
    /// The path as written (relative ones are relative to the notebook's folder when it runs).
    pub path: String,
    pub access: FileAccess,
    /// What opens it: an API (`pandas.read_csv`), `open`, a method (`.to_csv`) or
    /// `%%writefile`.
    pub call: String,
    pub at: Location,
}

/// How the code uses the network.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NetworkKind {
    /// A URL in the code (`'https://…/data.csv'`, `'s3://bucket/key'`).
    Url,
    /// A network client call: `requests.get`, `urllib.request.urlopen`, `boto3.client`.
    Request,
    /// A library call that fetches a data set or model when it runs:
    /// `sklearn.datasets.fetch_openml`, `seaborn.load_dataset`, `torch.hub.load`.
    Fetch,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NetworkUse {
    pub kind: NetworkKind,
    /// The URL, or the call (`requests.get`).
    pub detail: String,
    pub at: Location,
}

/// Schemes whose URLs are fetched over the network (cloud storage included).
const URL_SCHEMES: [&str; 7] = [
    "http://", "https://", "ftp://", "ftps://", "s3://", "gs://", "hdfs://",
];

/// A string that is a URL and nothing else (no spaces: prose that mentions one is not).
pub fn is_url(s: &str) -> bool {
    let s = s.trim();
    URL_SCHEMES.iter().any(|scheme| {
        s.len() > scheme.len()
            && s.get(..scheme.len())
                .is_some_and(|p| p.eq_ignore_ascii_case(scheme))
    }) && !s.contains(char::is_whitespace)
}

/// Where a call takes its path, and whether it reads or writes it.
#[derive(Debug, Clone, Copy)]
struct PathArg {
    access: Access,
    /// Its position among the positional arguments.
    position: usize,
    keywords: &'static [&'static str],
}

#[derive(Debug, Clone, Copy)]
enum Access {
    Fixed(FileAccess),
    /// Decided by a mode argument (`open(f, 'w')`): `default` when none is given.
    Mode {
        position: usize,
        default: FileAccess,
    },
}

const PATH_KEYWORDS: &[&str] = &[
    "filepath_or_buffer",
    "path_or_buf",
    "path",
    "io",
    "fname",
    "file",
    "filename",
    "filepath",
    "name",
    "source",
    "urlpath",
    "uri",
    "fp",
    "f",
];

const fn read(position: usize) -> PathArg {
    PathArg {
        access: Access::Fixed(FileAccess::Read),
        position,
        keywords: PATH_KEYWORDS,
    }
}

const fn write(position: usize) -> PathArg {
    PathArg {
        access: Access::Fixed(FileAccess::Write),
        position,
        keywords: PATH_KEYWORDS,
    }
}

/// `open(path, mode)` and its relatives: the mode decides.
const fn by_mode(default: FileAccess) -> PathArg {
    PathArg {
        access: Access::Mode {
            position: 1,
            default,
        },
        position: 0,
        keywords: PATH_KEYWORDS,
    }
}

/// The path argument of a call to `api` (a qualified path; `open` for the builtin).
fn path_arg(api: &str) -> Option<PathArg> {
    let top = api.split('.').next().unwrap_or(api);
    let name = api.rsplit('.').next().unwrap_or(api);
    let exact = match api {
        "open" | "io.open" | "codecs.open" | "gzip.open" | "bz2.open" | "lzma.open"
        | "tarfile.open" | "zipfile.ZipFile" | "wave.open" => Some(by_mode(FileAccess::Read)),
        "scipy.io.loadmat"
        | "scipy.io.mmread"
        | "scipy.io.wavfile.read"
        | "scipy.io.arff.loadarff"
        | "scipy.misc.imread"
        | "scipy.ndimage.imread"
        | "sqlite3.connect" => Some(read(0)),
        "scipy.io.savemat" | "scipy.io.wavfile.write" => Some(write(0)),
        _ => None,
    };
    if exact.is_some() {
        return exact;
    }
    match (top, name) {
        ("pandas" | "polars" | "modin" | "dask" | "pyarrow", n)
            if n.starts_with("read_")
                && !matches!(
                    n,
                    "read_sql"
                        | "read_sql_query"
                        | "read_sql_table"
                        | "read_clipboard"
                        | "read_gbq"
                ) =>
        {
            Some(read(0))
        }
        ("pandas", "ExcelFile") => Some(read(0)),
        ("pandas", "HDFStore") | ("h5py", "File") | ("netCDF4", "Dataset") => {
            Some(by_mode(FileAccess::Read))
        }
        ("numpy", "load" | "loadtxt" | "genfromtxt" | "fromfile" | "recfromcsv" | "recfromtxt") => {
            Some(read(0))
        }
        ("numpy", "save" | "savez" | "savez_compressed" | "savetxt") => Some(write(0)),
        ("matplotlib", "imread") => Some(read(0)),
        ("matplotlib", "savefig" | "imsave") => Some(write(0)),
        ("PIL", "open") => Some(read(0)),
        ("cv2", "imread" | "VideoCapture") => Some(read(0)),
        ("cv2", "imwrite") => Some(write(0)),
        ("imageio", "imread" | "volread" | "mimread") => Some(read(0)),
        ("imageio", "imwrite" | "imsave" | "mimsave" | "mimwrite") => Some(write(0)),
        ("skimage", "imread") => Some(read(0)),
        ("joblib", "load") | ("torch", "load") => Some(read(0)),
        ("joblib", "dump") | ("torch", "save") => Some(write(1)),
        ("keras" | "tensorflow", "load_model") => Some(read(0)),
        ("xarray", "open_dataset" | "open_dataarray" | "open_mfdataset") => Some(read(0)),
        ("geopandas", "read_file") | ("fiona" | "rasterio", "open") => Some(read(0)),
        ("librosa" | "nibabel", "load") | ("soundfile", "read") => Some(read(0)),
        ("openpyxl", "load_workbook") | ("xlrd", "open_workbook") => Some(read(0)),
        ("pydicom", "dcmread") | ("docx", "Document") => Some(read(0)),
        ("PyPDF2" | "pypdf", "PdfReader" | "PdfFileReader") => Some(read(0)),
        ("datasets", "load_from_disk") => Some(read(0)),
        _ => None,
    }
}

/// Methods that write to (or read from) the path they are given, whatever the receiver:
/// `df.to_csv('out.csv')`, `fig.savefig('plot.png')`, `model.load_weights('w.h5')`.
fn member_path_arg(member: &str) -> Option<PathArg> {
    match member {
        "to_csv" | "to_excel" | "to_json" | "to_pickle" | "to_parquet" | "to_hdf"
        | "to_feather" | "to_stata" | "to_netcdf" | "to_file" | "savefig" | "save"
        | "save_weights" => Some(write(0)),
        "load_weights" => Some(read(0)),
        _ => None,
    }
}

fn string_literal(e: &Expr) -> Option<&str> {
    match e {
        Expr::StringLiteral(s) => Some(s.value.to_str()),
        _ => None,
    }
}

/// The literal path (and what is done with it) of a call whose path argument `rule` names.
fn literal_path(rule: PathArg, args: &Arguments) -> Option<(FileAccess, String)> {
    let by_keyword = |names: &[&str]| {
        args.keywords
            .iter()
            .find(|k| k.arg.as_ref().is_some_and(|a| names.contains(&a.as_str())))
            .map(|k| &k.value)
    };
    let path_expr = args
        .args
        .get(rule.position)
        .filter(|e| !matches!(e, Expr::Starred(_)))
        .or_else(|| by_keyword(rule.keywords))?;
    let path = string_literal(path_expr)?.trim();
    // Not a file path: empty, a URL (the network), a template filled in at run time, SQLite's
    // in-memory database.
    if path.is_empty()
        || is_url(path)
        || path.contains("{}")
        || path.contains('%')
        || path == ":memory:"
    {
        return None;
    }
    let access = match rule.access {
        Access::Fixed(a) => a,
        Access::Mode { position, default } => {
            let mode = args
                .args
                .get(position)
                .or_else(|| by_keyword(&["mode", "flag"]))
                .and_then(string_literal);
            match mode {
                // `r+` reads a file that must exist; `w`, `a`, `x` create it.
                Some(m) if m.contains(['w', 'a', 'x']) => FileAccess::Write,
                Some(_) => FileAccess::Read,
                None => default,
            }
        }
    };
    Some((access, path.to_string()))
}

/// The file a call to `api` (a qualified path, or `open`) reads or writes, when it names one
/// by a literal path.
pub(crate) fn file_call(api: &str, args: &Arguments) -> Option<(FileAccess, String)> {
    literal_path(path_arg(api)?, args)
}

/// The file a method call (`x.to_csv('out.csv')`) reads or writes.
pub(crate) fn member_file_call(member: &str, args: &Arguments) -> Option<(FileAccess, String)> {
    literal_path(member_path_arg(member)?, args)
}

/// Whether a call to `api` uses the network, and how. Calls that nbenv already notes as
/// downloads (`nltk.download`, `from_pretrained`, `keras.utils.get_file`, ...) are left to
/// those notes.
pub(crate) fn network_call(api: &str) -> Option<NetworkKind> {
    let top = api.split('.').next().unwrap_or(api);
    let name = api.rsplit('.').next().unwrap_or(api);
    if matches!(
        top,
        "requests"
            | "httpx"
            | "urllib3"
            | "aiohttp"
            | "pycurl"
            | "httplib2"
            | "wget"
            | "ftplib"
            | "smtplib"
            | "paramiko"
            | "boto3"
            | "tweepy"
            | "praw"
            | "openai"
            | "googleapiclient"
    ) && api != top
    {
        return Some(NetworkKind::Request);
    }
    if matches!(
        api,
        "urllib.request.urlopen"
            | "urllib.request.Request"
            | "urllib.request.build_opener"
            | "urllib.urlopen"
            | "urllib2.urlopen"
            | "urllib2.Request"
            | "http.client.HTTPConnection"
            | "http.client.HTTPSConnection"
            | "httplib.HTTPConnection"
            | "httplib.HTTPSConnection"
    ) || api.starts_with("selenium.webdriver.")
    {
        return Some(NetworkKind::Request);
    }
    let fetch = match top {
        "sklearn" => api.starts_with("sklearn.datasets.fetch_"),
        "seaborn" => name == "load_dataset",
        "tensorflow_datasets" => name == "load" || name == "builder",
        "datasets" => name == "load_dataset",
        "pandas_datareader" | "yfinance" | "quandl" | "gdown" | "kaggle" | "wikipedia" => true,
        "torch" => api == "torch.hub.load" || api == "torch.hub.download_url_to_file",
        "tensorflow_hub" => true,
        _ => false,
    };
    fetch.then_some(NetworkKind::Fetch)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(call: &str) -> Arguments {
        let parsed = ruff_python_parser::parse_expression(call).unwrap();
        match parsed.into_expr() {
            Expr::Call(c) => c.arguments,
            other => panic!("not a call: {other:?}"),
        }
    }

    #[test]
    fn reads_and_writes_by_literal_path() {
        let read = |api, call| file_call(api, &args(call));
        assert_eq!(
            read("pandas.read_csv", "f('train.csv', sep=';')"),
            Some((FileAccess::Read, "train.csv".into()))
        );
        assert_eq!(
            read(
                "pandas.io.parsers.read_csv",
                "f(filepath_or_buffer='data/x.csv')"
            ),
            Some((FileAccess::Read, "data/x.csv".into()))
        );
        assert_eq!(
            read("open", "f('notes.txt')"),
            Some((FileAccess::Read, "notes.txt".into()))
        );
        assert_eq!(
            read("open", "f('out.txt', 'w')"),
            Some((FileAccess::Write, "out.txt".into()))
        );
        assert_eq!(
            read("open", "f('log.txt', mode='a')"),
            Some((FileAccess::Write, "log.txt".into()))
        );
        assert_eq!(
            read("open", "f('db.bin', 'r+b')"),
            Some((FileAccess::Read, "db.bin".into()))
        );
        assert_eq!(
            read("numpy.load", "f('w.npy')"),
            Some((FileAccess::Read, "w.npy".into()))
        );
        assert_eq!(
            read("torch.save", "f(model, 'm.pt')"),
            Some((FileAccess::Write, "m.pt".into()))
        );
        // Not files: a URL, a name, a template, SQL, an in-memory database.
        assert_eq!(read("pandas.read_csv", "f('https://x.org/a.csv')"), None);
        assert_eq!(read("pandas.read_csv", "f(path)"), None);
        assert_eq!(read("pandas.read_csv", "f('part-{}.csv'.format(i))"), None);
        assert_eq!(read("pandas.read_sql", "f('select 1', con)"), None);
        assert_eq!(read("sqlite3.connect", "f(':memory:')"), None);
        assert_eq!(read("pandas.DataFrame", "f('x.csv')"), None);
    }

    #[test]
    fn methods_that_write() {
        assert_eq!(
            member_file_call("to_csv", &args("f('out.csv', index=False)")),
            Some((FileAccess::Write, "out.csv".into()))
        );
        assert_eq!(member_file_call("groupby", &args("f('a')")), None);
    }

    #[test]
    fn network() {
        assert!(is_url("https://example.org/data.csv"));
        assert!(is_url("  s3://bucket/key "));
        assert!(!is_url("see https://example.org for details"));
        assert!(!is_url("https://"));
        assert!(!is_url("data.csv"));
        assert_eq!(network_call("requests.get"), Some(NetworkKind::Request));
        assert_eq!(network_call("requests"), None);
        assert_eq!(
            network_call("urllib.request.urlopen"),
            Some(NetworkKind::Request)
        );
        assert_eq!(
            network_call("sklearn.datasets.fetch_openml"),
            Some(NetworkKind::Fetch)
        );
        assert_eq!(network_call("sklearn.datasets.load_iris"), None);
        assert_eq!(
            network_call("seaborn.load_dataset"),
            Some(NetworkKind::Fetch)
        );
        assert_eq!(network_call("pandas.read_csv"), None);
    }
}
