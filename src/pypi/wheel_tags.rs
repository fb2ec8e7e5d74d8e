use std::fmt;

use serde::{Deserialize, Serialize};

/// The compatibility tags of a wheel file name (`cp311-cp311-manylinux_2_17_x86_64`).
///
/// Each part may hold several values separated by dots (`py2.py3-none-any`); a wheel fits an
/// interpreter when some combination of the three matches.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct WheelTags {
    pub python: Vec<String>,
    pub abi: Vec<String>,
    pub platform: Vec<String>,
}

impl WheelTags {
    pub fn parse(python: &str, abi: &str, platform: &str) -> Option<Self> {
        let split = |s: &str| -> Option<Vec<String>> {
            let parts: Vec<String> = s.split('.').map(str::to_string).collect();
            (!parts.iter().any(String::is_empty)).then_some(parts)
        };
        Some(Self {
            python: split(python)?,
            abi: split(abi)?,
            platform: split(platform)?,
        })
    }

    /// A wheel that runs anywhere: pure Python, no ABI, any platform.
    pub fn is_universal(&self) -> bool {
        self.abi.iter().any(|a| a == "none") && self.platform.iter().any(|p| p == "any")
    }
}

impl fmt::Display for WheelTags {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}-{}-{}",
            self.python.join("."),
            self.abi.join("."),
            self.platform.join(".")
        )
    }
}
