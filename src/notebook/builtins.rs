//! Names the interpreter (and IPython) defines without an import: using them is no library
//! evidence, except that Python 2's builtins point to Python 2.

/// Builtins of Python 2.7 and 3.x plus IPython's namespace additions, sorted.
const BUILTINS: &[&str] = &[
    "ArithmeticError", "AssertionError", "AttributeError", "BaseException", "BaseExceptionGroup",
    "BlockingIOError", "BrokenPipeError", "BufferError", "BytesWarning", "ChildProcessError",
    "ConnectionAbortedError", "ConnectionError", "ConnectionRefusedError", "ConnectionResetError",
    "DeprecationWarning", "EOFError", "Ellipsis", "EncodingWarning", "EnvironmentError",
    "Exception", "ExceptionGroup", "False", "FileExistsError", "FileNotFoundError",
    "FloatingPointError", "FutureWarning", "GeneratorExit", "IOError", "ImportError",
    "ImportWarning", "In", "IndentationError", "IndexError", "InterruptedError",
    "IsADirectoryError", "KeyError", "KeyboardInterrupt", "LookupError", "MemoryError",
    "ModuleNotFoundError", "NameError", "None", "NotADirectoryError", "NotImplemented",
    "NotImplementedError", "OSError", "Out", "OverflowError", "PendingDeprecationWarning",
    "PermissionError", "ProcessLookupError", "RecursionError", "ReferenceError", "ResourceWarning",
    "RuntimeError", "RuntimeWarning", "StandardError", "StopAsyncIteration", "StopIteration",
    "SyntaxError", "SyntaxWarning", "SystemError", "SystemExit", "TabError", "TimeoutError",
    "True", "TypeError", "UnboundLocalError", "UnicodeDecodeError", "UnicodeEncodeError",
    "UnicodeError", "UnicodeTranslateError", "UnicodeWarning", "UserWarning", "ValueError",
    "Warning", "ZeroDivisionError", "_", "__", "___", "__build_class__", "__debug__", "__doc__",
    "__import__", "__loader__", "__name__", "__package__", "__spec__", "_dh", "_i", "_ih", "_ii",
    "_iii", "_oh", "abs", "aiter", "all", "anext", "any", "apply", "ascii", "basestring", "bin",
    "bool", "breakpoint", "buffer", "bytearray", "bytes", "callable", "chr", "classmethod", "cmp",
    "coerce", "compile", "complex", "copyright", "credits", "delattr", "dict", "dir", "display",
    "divmod", "enumerate", "eval", "exec", "execfile", "exit", "file", "filter", "float", "format",
    "frozenset", "get_ipython", "getattr", "globals", "hasattr", "hash", "help", "hex", "id",
    "input", "int", "intern", "isinstance", "issubclass", "iter", "len", "license", "list",
    "locals", "long", "map", "max", "memoryview", "min", "next", "object", "oct", "open", "ord",
    "pow", "print", "property", "quit", "range", "raw_input", "reduce", "reload", "repr",
    "reversed", "round", "set", "setattr", "slice", "sorted", "staticmethod", "str", "sum",
    "super", "tuple", "type", "unichr", "unicode", "vars", "xrange", "zip",
];

/// Builtins Python 3 removed: calling them unbound is Python 2 evidence.
const PY2_ONLY: &[&str] = &[
    "apply", "basestring", "buffer", "cmp", "coerce", "execfile", "file", "intern", "long",
    "raw_input", "reduce", "reload", "unichr", "unicode", "xrange",
];

pub(crate) fn is_builtin(name: &str) -> bool {
    BUILTINS.binary_search(&name).is_ok()
}

pub(crate) fn is_python2_builtin(name: &str) -> bool {
    PY2_ONLY.binary_search(&name).is_ok()
}

/// Builtins whose result carries their (first) argument's values: `list(df.columns)`,
/// `enumerate(loader)`, `sorted(x)`.
pub(crate) fn passes_through(name: &str) -> bool {
    matches!(
        name,
        "list" | "tuple" | "iter" | "next" | "enumerate" | "zip" | "sorted" | "reversed" | "filter"
            | "set" | "frozenset"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorted_lists() {
        assert!(BUILTINS.windows(2).all(|w| w[0] < w[1]));
        assert!(PY2_ONLY.windows(2).all(|w| w[0] < w[1]));
        assert!(is_builtin("print") && is_builtin("xrange") && is_builtin("get_ipython"));
        assert!(!is_builtin("np"));
        assert!(is_python2_builtin("raw_input") && !is_python2_builtin("print"));
    }
}
