"""Prints `module name` for every public module-level name of the standard library's
importable modules and their submodules, on the Python that runs it (run with -S -E so
site-packages stays out). Names bound to modules are left out: what a module happens to
import is not its API. With a second argument, a file of `module name` pairs, prints instead
`+ module` for each of its modules that imports and `module name` for each pair the module
has (by getattr: a module `__getattr__` serves deprecated names `dir` does not list). Used by
scripts/gen-stdlib-removed."""
import pkgutil
import sys
import types
import warnings

warnings.simplefilter("ignore")
# Modules that act when imported (a browser, a window, a printout) or are the test suite.
SKIP = ("antigravity", "this", "idlelib", "tkinter", "turtle", "turtledemo", "test",
        "lib2to3", "ensurepip", "pydoc_data", "__main__", "__phello__", "__hello__", "msilib",
        "winreg", "winsound", "_winapi", "msvcrt", "nturl2path", "xxsubtype", "xxlimited")


def skipped(name):
    return any(name == s or name.startswith(s + ".") for s in SKIP) or any(
        part.startswith("_") for part in name.split("."))


def names_of(modname):
    try:
        module = __import__(modname, fromlist=["_"])
    except BaseException:
        return None
    out = []
    for name in dir(module):
        if name.startswith("_"):
            continue
        try:
            value = getattr(module, name)
        except BaseException:
            continue
        if isinstance(value, types.ModuleType):
            continue
        out.append(name)
    return module, out


def main():
    listed = [line.strip() for line in open(sys.argv[1]) if line.strip()]
    seen = set()
    todo = [m for m in listed if not skipped(m)]
    while todo:
        modname = todo.pop()
        if modname in seen:
            continue
        seen.add(modname)
        got = names_of(modname)
        if got is None:
            continue
        module, names = got
        for name in names:
            sys.stdout.write("%s %s\n" % (modname, name))
        path = getattr(module, "__path__", None)
        if path:
            for info in pkgutil.iter_modules(path, modname + "."):
                if not skipped(info[1]):
                    todo.append(info[1])


def probe(pairs):
    modules = {}
    for line in open(pairs):
        module, name = line.split()
        modules.setdefault(module, []).append(name)
    for modname in sorted(modules):
        try:
            module = __import__(modname, fromlist=["_"])
        except BaseException:
            continue
        sys.stdout.write("+ %s\n" % modname)
        for name in modules[modname]:
            try:
                getattr(module, name)
            except BaseException:
                continue
            sys.stdout.write("%s %s\n" % (modname, name))


if len(sys.argv) > 2:
    probe(sys.argv[2])
else:
    main()
