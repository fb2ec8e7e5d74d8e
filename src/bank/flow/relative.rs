//! Relative imports, resolved against the importing module.

use crate::names::ModulePath;

/// The absolute module of `from <level dots><module> import ...` written in `current`.
///
/// One dot is the current package: the module itself for a package's `__init__`, else its
/// parent. Each further dot goes one package up. `None` when the dots climb above the top
/// level (Python raises ImportError there too).
pub fn absolute_module(
    current: &ModulePath,
    is_package: bool,
    level: u32,
    module: Option<&str>,
) -> Option<String> {
    if level == 0 {
        return module.map(str::to_string);
    }
    let mut base = if is_package {
        Some(current.clone())
    } else {
        current.parent()
    };
    for _ in 1..level {
        base = base?.parent();
    }
    let base = base?;
    Some(match module {
        Some(m) => format!("{}.{m}", base.as_str()),
        None => base.as_str().to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(s: &str) -> ModulePath {
        ModulePath::new(s).unwrap()
    }

    #[test]
    fn levels() {
        assert_eq!(
            absolute_module(&m("a.b.c"), false, 1, Some("x")).as_deref(),
            Some("a.b.x")
        );
        assert_eq!(
            absolute_module(&m("a.b.c"), false, 2, Some("x")).as_deref(),
            Some("a.x")
        );
        assert_eq!(
            absolute_module(&m("a.b"), true, 1, None).as_deref(),
            Some("a.b")
        );
        assert_eq!(
            absolute_module(&m("a.b"), true, 2, Some("y")).as_deref(),
            Some("a.y")
        );
        assert_eq!(absolute_module(&m("a.b"), false, 3, Some("y")), None);
        assert_eq!(
            absolute_module(&m("a"), false, 0, Some("numpy")).as_deref(),
            Some("numpy")
        );
    }
}
