//! The interpreter and platform a resolution is for.

use pep508_rs::pep440_rs::Version;
use pep508_rs::{MarkerEnvironment, MarkerEnvironmentBuilder};

use crate::pypi::WheelTags;
use crate::python::{wheel_fits, PythonVersion};

/// A CPython version on this machine's platform (Linux, glibc, `std::env::consts::ARCH`).
///
/// A feature release (`3.11`) stands for any of its patch levels: Requires-Python is then met
/// when some patch level meets it (`>=3.7.1` holds for `3.7`, as every 3.7 still in use is
/// newer), and markers see `X.Y.0`, the only patch level certain to exist.
#[derive(Debug, Clone)]
pub struct Target {
    python: PythonVersion,
    version: Version,
    markers: MarkerEnvironment,
}

impl Target {
    pub fn new(python: PythonVersion) -> Self {
        let version = python.as_pep440();
        let full = version.to_string();
        let feature = python.feature().to_string();
        let markers = MarkerEnvironment::try_from(MarkerEnvironmentBuilder {
            implementation_name: "cpython",
            implementation_version: &full,
            os_name: "posix",
            platform_machine: std::env::consts::ARCH,
            platform_python_implementation: "CPython",
            // The kernel of the machine that will run it is unknown; no marker worth honouring
            // compares it.
            platform_release: "",
            platform_system: "Linux",
            platform_version: "",
            python_full_version: &full,
            python_version: &feature,
            sys_platform: "linux",
        })
        .expect("X.Y.Z from a PythonVersion is a valid PEP 440 version");
        Self {
            python,
            version,
            markers,
        }
    }

    pub fn python(&self) -> PythonVersion {
        self.python
    }

    /// The one version of the solver's `Python` package (`X.Y.0` for a feature release).
    pub fn python_pep440(&self) -> &Version {
        &self.version
    }

    pub fn markers(&self) -> &MarkerEnvironment {
        &self.markers
    }

    /// Whether a wheel with these tags installs on the target.
    pub fn fits(&self, tags: &WheelTags) -> bool {
        wheel_fits(tags, self.python)
    }
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CPython {}", self.python)
    }
}
