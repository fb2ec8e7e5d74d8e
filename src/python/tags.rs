//! Whether a wheel installs on an interpreter of this machine (Linux, x86_64 or aarch64).

use super::version::PythonVersion;
use crate::pypi::WheelTags;

/// True when some (python, abi, platform) combination of `tags` fits a CPython `version` on
/// this machine's platform. Called for every file of every release the resolver judges, so
/// it allocates nothing.
pub fn wheel_fits(tags: &WheelTags, version: PythonVersion) -> bool {
    let (major, minor) = (version.major, version.minor);
    let python_ok = |t: &str| -> bool {
        if let Some(rest) = t.strip_prefix("cp") {
            return is_version(rest, major, minor);
        }
        if let Some(rest) = t.strip_prefix("py") {
            return is_major(rest, major) || is_version(rest, major, minor);
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
                let Some(rest) = a.strip_prefix("cp") else {
                    return false;
                };
                // Before 3.8, CPython's ABI tag carried `m` (pymalloc); 2.7 also `mu`.
                is_version(rest, major, minor)
                    || (major == 3
                        && minor < 8
                        && rest
                            .strip_suffix('m')
                            .is_some_and(|r| is_version(r, major, minor)))
                    || (major == 2 && (a == "cp27mu" || a == "cp27m"))
            }
        }
    };
    wheel_platform_fits(tags)
        && tags.python.iter().any(|py| {
            let abi3_py = py.starts_with("cp3") && tags.abi.iter().any(|a| a == "abi3");
            (python_ok(py) || abi3_py) && tags.abi.iter().any(|a| abi_ok(a, py))
        })
}

/// True when some platform tag of `tags` fits this machine, whatever the Python: a wheel
/// failing this installs on no interpreter here.
pub fn wheel_platform_fits(tags: &WheelTags) -> bool {
    let arch = std::env::consts::ARCH;
    // glibc Linux: manylinux and plain linux wheels; musllinux needs musl.
    tags.platform.iter().any(|p| {
        p == "any" || (p.ends_with(arch) && (p.starts_with("manylinux") || p.starts_with("linux_")))
    })
}

/// `digits` is exactly `major` (`3`).
fn is_major(digits: &str, major: u8) -> bool {
    digits.len() == 1 && digits.as_bytes()[0] == b'0'.wrapping_add(major) && major < 10
}

/// `digits` is exactly `major` then `minor` (`311`, `36`), with no leading zero on `minor`.
fn is_version(digits: &str, major: u8, minor: u8) -> bool {
    let (Some(first), Some(rest)) = (digits.get(..1), digits.get(1..)) else {
        return false;
    };
    is_major(first, major)
        && !rest.is_empty()
        && rest.bytes().all(|b| b.is_ascii_digit())
        && (rest == "0" || !rest.starts_with('0'))
        && rest.parse::<u8>().is_ok_and(|m| m == minor)
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
        assert!(fits(&format!("cp27-cp27mu-manylinux1_{arch}"), "2.7"));
        assert!(fits(&format!("cp36-cp36m-linux_{arch}"), "3.6"));
        assert!(!fits(&format!("cp38-cp38m-linux_{arch}"), "3.8"));
        assert!(fits("py36-none-any", "3.6"));
        assert!(!fits("py306-none-any", "3.6"));
        assert!(!fits("cp3-none-any", "3.11"));
        assert!(fits(&format!("cp310-cp310-manylinux2014_{arch}"), "3.10"));
        assert!(!fits(&format!("cp310-cp310-manylinux2014_{arch}"), "3.1"));
        assert!(!fits(&format!("cp39-cp39-musllinux_1_1_{arch}"), "3.9"));
        for (tag, fits_on) in [
            ("cp35-cp35m", "3.5"),
            ("cp34-cp34m", "3.4"),
            ("cp33-cp33m", "3.3"),
        ] {
            let wheel = format!("{tag}-manylinux1_{arch}");
            for v in ["2.7", "3.3", "3.4", "3.5", "3.6"] {
                assert_eq!(fits(&wheel, v), v == fits_on, "{wheel} on {v}");
            }
        }
        assert!(fits("py35-none-any", "3.5") && !fits("py35-none-any", "3.4"));
        assert!(fits(&format!("cp33-abi3-manylinux1_{arch}"), "3.5"));
        assert!(!fits(&format!("cp34-abi3-manylinux1_{arch}"), "3.3"));
    }

    #[test]
    fn platform_alone() {
        let arch = std::env::consts::ARCH;
        let platform = |p: &str| wheel_platform_fits(&WheelTags::parse("py3", "none", p).unwrap());
        assert!(platform("any"));
        assert!(platform(&format!("manylinux_2_17_{arch}")));
        assert!(platform(&format!("linux_{arch}")));
        assert!(!platform("win_amd64"));
        assert!(!platform(&format!("musllinux_1_1_{arch}")));
    }
}
