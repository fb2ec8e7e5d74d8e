//! Compiled extension modules (`.so`, `.pyd`): importable, but their names cannot be read
//! statically. They become opaque modules unless a `.pyi` stub describes them.

use crate::names::ModulePath;

/// The module name of an extension file name: `_core.cpython-311-x86_64-linux-gnu.so`,
/// `_core.abi3.so`, `_core.so` and `_core.cp311-win_amd64.pyd` all give `_core`.
/// Shared libraries that are not modules (`libopenblas-r0.so`) give `None`.
pub fn extension_module_name(file_name: &str) -> Option<&str> {
    let stem = file_name
        .strip_suffix(".so")
        .or_else(|| file_name.strip_suffix(".pyd"))?;
    let name = stem.split('.').next()?;
    ModulePath::new(name).is_ok().then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(
            extension_module_name("_core.cpython-311-x86_64-linux-gnu.so"),
            Some("_core")
        );
        assert_eq!(extension_module_name("_core.abi3.so"), Some("_core"));
        assert_eq!(extension_module_name("fast.so"), Some("fast"));
        assert_eq!(
            extension_module_name("_ufuncs.cp39-win_amd64.pyd"),
            Some("_ufuncs")
        );
        assert_eq!(
            extension_module_name("libopenblas64_p-r0-2f7c42d4.3.18.so"),
            None
        );
        assert_eq!(extension_module_name("x.py"), None);
        assert_eq!(extension_module_name("libfoo.so.1"), None);
    }
}
