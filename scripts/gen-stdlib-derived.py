"""Write src/notebook/stdlib/<target>.txt for a version with no interpreter at hand.

Usage: gen-stdlib-derived.py OUT_DIR TARGET BASE   (e.g. `... src/notebook/stdlib 3.5 3.6`)

The list is BASE's (generated from a real interpreter, or derived in turn), less the modules
that the `stdlibs` package (PyPI; lists read from CPython's sources per release) records as
added between TARGET and BASE, plus those it records as removed. Checked on the versions that
have interpreters: deriving 3.6 from 3.7, ..., 3.13 from 3.14 this way gives every public
module of the real lists; the differences are private build details (`_hashlib`, `_dbm`).
Run by scripts/gen-stdlib-lists under `uv run --with stdlibs`.
"""
import importlib
import os
import re
import sys

# Names stdlibs reads from build files of platforms no notebook runs on (OS/2's config.c still
# listed Python 2 modules in 3.3): never importable on Linux, Windows or macOS.
NOT_IMPORTABLE = {"SOCKET", "_emx_link", "imageop", "md5", "os2", "pcre", "rgbimg"}


def stdlibs_names(version):
    return set(importlib.import_module("stdlibs.py" + version.replace(".", "")).module_names)


def key(version):
    return tuple(int(p) for p in version.split("."))


def main():
    out_dir, target, base = sys.argv[1:4]
    with open(os.path.join(out_dir, base + ".txt")) as f:
        names = set(f.read().split())
    older, newer = sorted([target, base], key=key)
    added = stdlibs_names(newer) - stdlibs_names(older)
    removed = stdlibs_names(older) - stdlibs_names(newer)
    if target == older:
        names = (names - added) | (removed - NOT_IMPORTABLE)
    else:
        names = (names - removed) | (added - NOT_IMPORTABLE)
    # The sysconfig data module is generated at build time, so stdlibs does not list it; it
    # took the ABI and platform into its name in 3.6.
    sysconfigdata = {n for n in names if re.match(r"_sysconfigdata($|_)", n)}
    if sysconfigdata and key(target) < (3, 6):
        names = (names - sysconfigdata) | {"_sysconfigdata"}
    with open(os.path.join(out_dir, target + ".txt"), "w") as f:
        f.write("".join(n + "\n" for n in sorted(names)))


main()
