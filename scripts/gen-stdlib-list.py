"""Print the top-level standard-library module names of the running interpreter, one a line.

Run once per interpreter by scripts/gen-stdlib-lists; works on Python 2.7 and 3.x.
Names come from the interpreter's own stdlib directories (never site-packages), its builtin
modules, and on 3.10+ from sys.stdlib_module_names as well.
"""
import os
import pkgutil
import sys
import sysconfig

names = set(sys.builtin_module_names)
stdlib_dirs = set()
for key in ("stdlib", "platstdlib"):
    path = sysconfig.get_paths().get(key)
    if path:
        stdlib_dirs.add(os.path.realpath(path))


def in_stdlib(entry):
    real = os.path.realpath(entry)
    if "site-packages" in real or "dist-packages" in real:
        return False
    return any(real == d or real.startswith(d + os.sep) for d in stdlib_dirs)


for entry in sys.path:
    if entry and os.path.isdir(entry) and in_stdlib(entry):
        for info in pkgutil.iter_modules([entry]):
            names.add(info[1])

names.update(getattr(sys, "stdlib_module_names", ()))
# Modules that exist only on Windows or macOS builds, so a Linux interpreter before 3.10 cannot
# list them; 3.10+ lists them in sys.stdlib_module_names.
if sys.version_info < (3, 10):
    if sys.version_info[0] == 2:
        names.update(["_winreg", "msvcrt", "winsound", "_msi", "msilib", "nt", "_scproxy"])
    else:
        names.update(["winreg", "msvcrt", "winsound", "_winapi", "_msi", "msilib", "nt",
                      "_overlapped", "_scproxy"])
for name in sorted(names):
    if name and not name.startswith("__phello") and name not in ("site-packages",):
        sys.stdout.write(name + "\n")
