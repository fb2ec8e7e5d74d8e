//! Whether a wheel installs on an interpreter of this machine (Linux, x86_64 or aarch64).

use super::version::PythonVersion;
use crate::pypi::WheelTags;

/// True when some (python, abi, platform) combination of `tags` fits a CPython `version` on
/// this machine's platform.
pub fn wheel_fits(tags: &WheelTags, version: PythonVersion) -> bool {
    let (major, minor) = (version.major, version.minor);
    let python_ok = |t: &str| -> bool {
        if let Some(rest) = t.strip_prefix("cp") {
            return rest == format!("{major}{minor}");
        }
        if let Some(rest) = t.strip_prefix("py") {
            return rest == major.to_string() || rest == format!("{major}{minor}");
        }
        false
    };
    let abi_ok = |abi: &str, py: &str| -> bool {
        match abi {
            "none" => true,
            "abi3" => py
                .strip_prefix("cp")
                .and_then(|v| v.get(1..)?.parse::<u8>().ok())
                .is_some_and(|min| major == 3 && minor >= min && py.starts_with("cp3")),
            a => {
                let ours = format!("cp{major}{minor}");
                // Before 3.8, CPython's ABI tag carried `m` (pymalloc); 2.7 also `mu`.
                a == ours
                    || (major == 3 && minor < 8 && a == format!("{ours}m"))
                    || (major == 2 && (a == "cp27mu" || a == "cp27m"))
            }
        }
    };
    let arch = std::env::consts::ARCH;
    let platform_ok = |p: &str| -> bool {
        // glibc Linux: manylinux and plain linux wheels; musllinux needs musl.
        p == "any" || (p.ends_with(arch) && (p.starts_with("manylinux") || p.starts_with("linux_")))
    };
    tags.platform.iter().any(|p| platform_ok(p))
        && tags.python.iter().any(|py| {
            let abi3_py = py.starts_with("cp3") && tags.abi.iter().any(|a| a == "abi3");
            (python_ok(py) || abi3_py) && tags.abi.iter().any(|a| abi_ok(a, py))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fits(tag: &str, v: &str) -> bool {
        let parts: Vec<&str> = tag.split('-').collect();
        wheel_fits(
            &WheelTags::parse(parts[0], parts[1], parts[2]).unwrap(),
            PythonVersion::parse(v).unwrap(),
        )
    }

    #[test]
    fn common_tags() {
        assert!(fits("py3-none-any", "3.11"));
        assert!(fits("py2.py3-none-any", "2.7"));
        assert!(!fits("py2-none-any", "3.11"));
        let arch = std::env::consts::ARCH;
        assert!(fits(
            &format!("cp311-cp311-manylinux_2_17_{arch}.manylinux2014_{arch}"),
            "3.11"
        ));
        assert!(!fits(&format!("cp311-cp311-manylinux_2_17_{arch}"), "3.10"));
        assert!(fits(&format!("cp37-cp37m-manylinux1_{arch}"), "3.7"));
        assert!(fits(&format!("cp38-abi3-manylinux2014_{arch}"), "3.12"));
        assert!(!fits(&format!("cp38-abi3-manylinux2014_{arch}"), "3.7"));
        assert!(!fits("cp311-cp311-win_amd64", "3.11"));
        assert!(!fits("cp311-cp311-macosx_10_9_x86_64", "3.11"));
    }
}
