//! Builders for the wheels and sdists the loopback index serves.

use std::io::{Cursor, Write};

use base64::Engine;
use sha2::{Digest, Sha256};
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipWriter};

/// Builds a wheel with the given members plus METADATA, WHEEL and RECORD, as a build backend
/// would.
pub struct WheelBuilder {
    name: String,
    version: String,
    tag: String,
    files: Vec<(String, Vec<u8>)>,
    requires_dist: Vec<String>,
    requires_python: Option<String>,
    stored: bool,
}

impl WheelBuilder {
    pub fn new(name: &str, version: &str) -> Self {
        Self {
            name: name.to_string(),
            version: version.to_string(),
            tag: "py3-none-any".to_string(),
            files: Vec::new(),
            requires_dist: Vec::new(),
            requires_python: None,
            stored: false,
        }
    }

    pub fn tag(mut self, tag: &str) -> Self {
        self.tag = tag.to_string();
        self
    }

    pub fn file(mut self, path: &str, contents: impl AsRef<[u8]>) -> Self {
        self.files
            .push((path.to_string(), contents.as_ref().to_vec()));
        self
    }

    pub fn requires(mut self, req: &str) -> Self {
        self.requires_dist.push(req.to_string());
        self
    }

    pub fn requires_python(mut self, spec: &str) -> Self {
        self.requires_python = Some(spec.to_string());
        self
    }

    /// Store members uncompressed (method 0) instead of deflating them.
    pub fn stored(mut self) -> Self {
        self.stored = true;
        self
    }

    pub fn filename(&self) -> String {
        format!(
            "{}-{}-{}.whl",
            self.name.replace('-', "_"),
            self.version,
            self.tag
        )
    }

    pub fn dist_info(&self) -> String {
        format!("{}-{}.dist-info", self.name.replace('-', "_"), self.version)
    }

    pub fn metadata(&self) -> String {
        let mut m = format!(
            "Metadata-Version: 2.1\nName: {}\nVersion: {}\nSummary: fixture package\n",
            self.name, self.version
        );
        if let Some(rp) = &self.requires_python {
            m.push_str(&format!("Requires-Python: {rp}\n"));
        }
        for r in &self.requires_dist {
            m.push_str(&format!("Requires-Dist: {r}\n"));
        }
        m.push_str("\nA long description that is not a header.\n");
        m
    }

    pub fn build(&self) -> Vec<u8> {
        let dist_info = self.dist_info();
        let mut members = self.files.clone();
        members.push((
            format!("{dist_info}/METADATA"),
            self.metadata().into_bytes(),
        ));
        members.push((
            format!("{dist_info}/WHEEL"),
            format!(
                "Wheel-Version: 1.0\nGenerator: nbenv-tests\nRoot-Is-Purelib: true\nTag: {}\n",
                self.tag
            )
            .into_bytes(),
        ));
        let mut record = String::new();
        for (path, data) in &members {
            let digest =
                base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Sha256::digest(data));
            record.push_str(&format!("{path},sha256={digest},{}\n", data.len()));
        }
        record.push_str(&format!("{dist_info}/RECORD,,\n"));
        members.push((format!("{dist_info}/RECORD"), record.into_bytes()));
        zip_bytes(&members, self.stored)
    }
}

pub fn zip_bytes(members: &[(String, Vec<u8>)], stored: bool) -> Vec<u8> {
    let mut writer = ZipWriter::new(Cursor::new(Vec::new()));
    let method = if stored {
        CompressionMethod::Stored
    } else {
        CompressionMethod::Deflated
    };
    let options = SimpleFileOptions::default().compression_method(method);
    for (path, data) in members {
        writer.start_file(path.as_str(), options).unwrap();
        writer.write_all(data).unwrap();
    }
    writer.finish().unwrap().into_inner()
}

/// A `.tar.gz` sdist with a `name-version/` root, PKG-INFO and the given files.
pub fn sdist_tar_gz(name: &str, version: &str, files: &[(&str, &str)], pkg_info: &str) -> Vec<u8> {
    let tar = sdist_tar(name, version, files, pkg_info);
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(&tar).unwrap();
    enc.finish().unwrap()
}

/// The same as a `.tar.bz2`, as old sdists were.
pub fn sdist_tar_bz2(name: &str, version: &str, files: &[(&str, &str)], pkg_info: &str) -> Vec<u8> {
    let tar = sdist_tar(name, version, files, pkg_info);
    let mut enc = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default());
    enc.write_all(&tar).unwrap();
    enc.finish().unwrap()
}

/// The same as a `.zip` sdist.
pub fn sdist_zip(name: &str, version: &str, files: &[(&str, &str)], pkg_info: &str) -> Vec<u8> {
    let root = format!("{name}-{version}");
    let mut members = vec![(format!("{root}/PKG-INFO"), pkg_info.as_bytes().to_vec())];
    members.extend(
        files
            .iter()
            .map(|(p, d)| (format!("{root}/{p}"), d.as_bytes().to_vec())),
    );
    zip_bytes(&members, false)
}

fn sdist_tar(name: &str, version: &str, files: &[(&str, &str)], pkg_info: &str) -> Vec<u8> {
    let root = format!("{name}-{version}");
    let mut builder = tar::Builder::new(Vec::new());
    let mut add = |path: &str, data: &[u8]| {
        let mut header = tar::Header::new_gnu();
        header.set_size(data.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        builder
            .append_data(&mut header, format!("{root}/{path}"), data)
            .unwrap();
    };
    add("PKG-INFO", pkg_info.as_bytes());
    for (path, data) in files {
        add(path, data.as_bytes());
    }
    builder.into_inner().unwrap()
}

/// Rewrites the declared uncompressed size of member `name` in the central directory (and
/// its local header), as a zip bomb or a corrupt archive would claim.
pub fn patch_declared_size(zip: &mut [u8], name: &str, size: u32) {
    let patch = |zip: &mut [u8], sig: &[u8; 4], fixed: usize, name_at: usize, size_at: usize| {
        let mut i = 0;
        while i + fixed <= zip.len() {
            if &zip[i..i + 4] == sig {
                let name_len =
                    u16::from_le_bytes([zip[i + name_at], zip[i + name_at + 1]]) as usize;
                if zip.get(i + fixed..i + fixed + name_len) == Some(name.as_bytes()) {
                    zip[i + size_at..i + size_at + 4].copy_from_slice(&size.to_le_bytes());
                }
            }
            i += 1;
        }
    };
    patch(zip, b"PK\x01\x02", 46, 28, 24);
    patch(zip, b"PK\x03\x04", 30, 26, 22);
}

/// An in-tree PEP 517 backend that packs the package `NAME/` into a wheel: the sdist builds
/// with no build requirement to fetch, as a pure-Python one with setuptools would.
/// `{name}`, `{version}` and `{requires}` (comma-separated) are to be replaced.
pub const IN_TREE_BACKEND: &str = r#"import base64, hashlib, os, zipfile

NAME, VERSION, REQUIRES = "{name}", "{version}", "{requires}"


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    dist_info = "%s-%s.dist-info" % (NAME, VERSION)
    files = {}
    for root, _, names in os.walk(NAME):
        for n in names:
            path = os.path.join(root, n)
            with open(path, "rb") as f:
                files[path.replace(os.sep, "/")] = f.read()
    files[dist_info + "/METADATA"] = (
        "Metadata-Version: 2.1\nName: %s\nVersion: %s\n" % (NAME, VERSION)
        + "".join("Requires-Dist: %s\n" % r for r in REQUIRES.split(",") if r)
    ).encode()
    files[dist_info + "/WHEEL"] = (
        b"Wheel-Version: 1.0\nGenerator: fixture\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    )
    record = []
    for path, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
        record.append("%s,sha256=%s,%d" % (path, digest.decode(), len(data)))
    record.append(dist_info + "/RECORD,,")
    files[dist_info + "/RECORD"] = ("\n".join(record) + "\n").encode()
    wheel = "%s-%s-py3-none-any.whl" % (NAME, VERSION)
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel), "w") as z:
        for path, data in files.items():
            z.writestr(path, data)
    return wheel
"#;

/// [`IN_TREE_BACKEND`] for `name` `version`, its built wheel requiring `requires`.
pub fn in_tree_backend(name: &str, version: &str, requires: &[&str]) -> String {
    IN_TREE_BACKEND
        .replace("{name}", name)
        .replace("{version}", version)
        .replace("{requires}", &requires.join(","))
}

/// An sdist of `name` `version` with `files`, built by `backend` (the text of its in-tree
/// `backend.py`), whose build environment asks for `build_requires`. Its metadata is 1.1, as
/// old sdists' is: no Requires-Dist.
pub fn sdist_with_backend(
    name: &str,
    version: &str,
    build_requires: &[&str],
    backend: &str,
    files: &[(&str, &str)],
) -> Vec<u8> {
    let requires: Vec<String> = build_requires.iter().map(|r| format!("{r:?}")).collect();
    let pyproject = format!(
        "[build-system]\nrequires = [{}]\nbuild-backend = \"backend\"\nbackend-path = [\".\"]\n",
        requires.join(", ")
    );
    let mut all = vec![
        ("pyproject.toml", pyproject.as_str()),
        ("backend.py", backend),
    ];
    all.extend_from_slice(files);
    sdist_tar_gz(
        name,
        version,
        &all,
        &format!("Metadata-Version: 1.1\nName: {name}\nVersion: {version}\n"),
    )
}

/// An sdist of `name` `version` with `files` that builds offline with [`IN_TREE_BACKEND`],
/// its built wheel requiring `requires`, which its sdist's metadata does not say.
pub fn in_tree_sdist(
    name: &str,
    version: &str,
    requires: &[&str],
    files: &[(&str, &str)],
) -> Vec<u8> {
    let backend = in_tree_backend(name, version, requires);
    sdist_with_backend(name, version, &[], &backend, files)
}
