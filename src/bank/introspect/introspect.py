# nbenv's runtime introspection script (bundled into the nbenv binary).
#
# Reads a JSON request on stdin:
#   {"top_level": [...], "modules": [...], "probe": {"module": ["name", ...]},
#    "seconds_per_import": 30}
# imports each module (errors and hangs are recorded, not fatal), and prints one JSON object:
#   {"python": "3.8.18", "names": [[path, kind], ...], "aliases": [[path, canonical], ...],
#    "bases": [[class, base], ...], "failed": {module: error},
#    "listed": [module, ...], "modules": [module, ...]}
# "listed" are the modules imported and listed completely: a name not found there is absent.
# "modules" are the modules of the distribution's import names in sys.modules at the end, and
# module objects reached as attributes under their own name (six.moves, made at run time).
# Kinds: module, class, function, method, property, attribute. As in the bank, a class's
# members are recorded once, under the class's own path (module + qualified name), with its
# bases; names bound elsewhere to the class are aliases of that path.
# Runs on Python 3.6+; standard library only.

import importlib
import inspect
import json
import os
import signal
import sys
import types
import warnings

request = json.load(sys.stdin)
TOP = tuple(request["top_level"])
keep_all = set(request.get("keep_all", ()))
PER_IMPORT = int(request.get("seconds_per_import", 30))

names = {}
aliases = {}
bases = set()
classes_done = set()
failed = {}
listed = []
# Top-level modules the release's imports looked for and did not find, by the module whose
# import looked for them.
missing = {}
# Modules made at run time are listed too, up to this many.
MAX_MODULES = 5000


class ImportTimeout(BaseException):
    pass


def on_alarm(signum, frame):
    raise ImportTimeout()


_package_dirs = []


def package_dirs():
    """The directories of the distribution's top-level packages, once they are imported."""
    if not _package_dirs:
        for name in TOP:
            module = sys.modules.get(name)
            for d in getattr(module, "__path__", None) or []:
                _package_dirs.append(os.path.realpath(d) + os.sep)
    return tuple(_package_dirs)


def attr_or_none(obj, name):
    """getattr(obj, name, None) that survives objects whose __getattr__ raises something else
    than AttributeError (pandas 0.19's option wrappers raise KeyError)."""
    try:
        return getattr(obj, name, None)
    except BaseException:
        return None


def ours(obj):
    """Whether obj belongs to this distribution: its module is one of ours, or lives in our
    directories, or is no module at all (compiled classes name a bare `mtrand`)."""
    module = attr_or_none(obj, "__module__")
    if not isinstance(module, str):
        return False
    if module.split(".")[0] in TOP:
        return True
    loaded = sys.modules.get(module)
    if loaded is None:
        return module not in sys.builtin_module_names and module != "__main__"
    path = getattr(loaded, "__file__", None)
    return isinstance(path, str) and os.path.realpath(path).startswith(package_dirs() or ("\0",))


def kind_of(obj):
    if isinstance(obj, types.ModuleType):
        return "module"
    if isinstance(obj, type):
        return "class"
    if callable(obj):
        return "function"
    return "attribute"


def member_kind(cls, name):
    try:
        raw = inspect.getattr_static(cls, name)
    except Exception:
        return "attribute"
    if isinstance(raw, property) or (inspect.isdatadescriptor(raw) and not isinstance(raw, type)):
        # Data descriptors too: namedtuple fields, slots, getset descriptors of C types.
        return "property"
    if isinstance(raw, (staticmethod, classmethod)) or inspect.isfunction(raw) or inspect.ismethoddescriptor(raw):
        return "method"
    if isinstance(raw, type):
        return "class"
    if callable(raw):
        return "method"
    return "attribute"


def canonical(obj):
    """Where a class or function of ours is defined, as a dotted path."""
    module = attr_or_none(obj, "__module__")
    qualname = attr_or_none(obj, "__qualname__") or attr_or_none(obj, "__name__")
    if not isinstance(module, str) or not isinstance(qualname, str) or "<" in qualname:
        return None
    return module + "." + qualname


def record_class(path, cls):
    if path in classes_done:
        return
    classes_done.add(path)
    names[path] = "class"
    try:
        own = list(vars(cls))
    except TypeError:
        own = []
    for member in own:
        if member.startswith("_"):
            continue
        names[path + "." + member] = member_kind(cls, member)
        record_accessor(path + "." + member, cls, member)
    # Members inherited from classes that are not ours (`Timestamp.strftime` from
    # `datetime`) are recorded under the class: no class of ours defines them.
    ours_in_mro = [k for k in getattr(cls, "__mro__", ()) if ours(k)]
    defined_by_ours = set()
    for k in ours_in_mro:
        try:
            defined_by_ours.update(vars(k))
        except TypeError:
            pass
    try:
        everything = dir(cls)
    except Exception:
        everything = []
    for member in everything:
        if member.startswith("_") or member in defined_by_ours:
            continue
        names.setdefault(path + "." + member, member_kind(cls, member))
    for base in getattr(cls, "__bases__", ()):
        if ours(base):
            base_path = canonical(base)
            if base_path:
                bases.add((path, base_path))
                record_class(base_path, base)


def record_accessor(path, cls, member):
    """A descriptor that gives a class of ours when read from the class (pandas'
    `Series.str` gives `StringMethods`): users call that class's members through it
    (`Series.str.contains`), so they are recorded under the member's path."""
    try:
        raw = inspect.getattr_static(cls, member)
        value = getattr(cls, member)
    except BaseException:
        return
    if raw is value or not isinstance(value, type) or not ours(value):
        return
    try:
        members = dir(value)
    except Exception:
        return
    for name in members:
        if not name.startswith("_"):
            names.setdefault(path + "." + name, member_kind(value, name))


def public_module_name(name):
    return (isinstance(name, str) and name.split(".")[0] in TOP
            and not any(part.startswith("_") for part in name.split(".")))


def record_module(modname, module, keep_all=False):
    """Records a module's public names. A module made at run time (`six.moves`) keeps them
    all: it is made of other modules' names, and is where users reach for them."""
    names[modname] = "module"
    exported = getattr(module, "__all__", None)
    try:
        exported = set(exported) if exported is not None else set()
    except Exception:
        exported = set()
    top_level = "." not in modname
    for name in dir(module):
        if name.startswith("_"):
            continue
        try:
            obj = getattr(module, name)
        except BaseException:
            continue
        path = modname + "." + name
        is_submodule = isinstance(obj, types.ModuleType) and obj.__name__.split(".")[0] in TOP
        # Names imported from elsewhere are kept where users reach for them: in __all__, on
        # the top-level package (`pandas.np`, `numpy.float`), or when defined by this package.
        if not (keep_all or is_submodule or ours(obj) or name in exported or top_level):
            continue
        home = canonical(obj) if (isinstance(obj, type) or callable(obj)) and ours(obj) else None
        # A class whose module is not one of ours by name (numpy's `RandomState` says
        # `mtrand`) is attributed to the public path that reaches it.
        if home and home.split(".")[0] not in TOP:
            home = path
        if isinstance(obj, type) and ours(obj):
            if home and home != path:
                names[path] = "class"
                aliases[path] = home
                record_class(home, obj)
            else:
                record_class(path, obj)
        else:
            names[path] = kind_of(obj)
            if home and home != path and not isinstance(obj, types.ModuleType):
                aliases[path] = home
                names.setdefault(home, kind_of(obj))


def import_module(modname):
    if hasattr(signal, "SIGALRM"):
        signal.alarm(PER_IMPORT)
    try:
        return importlib.import_module(modname)
    finally:
        if hasattr(signal, "SIGALRM"):
            signal.alarm(0)


def main():
    if hasattr(signal, "SIGALRM"):
        signal.signal(signal.SIGALRM, on_alarm)
    os.environ.setdefault("MPLBACKEND", "Agg")
    warnings.simplefilter("ignore")
    # Importing a package's modules must not read from or write to the terminal.
    sys.stdin = open(os.devnull)
    real_stdout = sys.stdout
    sys.stdout = sys.stderr
    for modname in request["modules"]:
        try:
            module = import_module(modname)
        except BaseException as e:
            failed[modname] = "%s: %s" % (type(e).__name__, str(e)[:300])
            wanted = getattr(e, "name", None) if isinstance(e, ImportError) else None
            if isinstance(wanted, str) and wanted and wanted.split(".")[0] not in TOP:
                missing[modname] = wanted.split(".")[0]
            continue
        try:
            record_module(modname, module, keep_all=modname in keep_all)
            listed.append(modname)
        except BaseException as e:
            failed[modname] = "while listing: %s: %s" % (type(e).__name__, str(e)[:300])
    # Modules made at run time (six.moves): in sys.modules, or reached as attributes of the
    # modules listed. Each module object is listed under its own name; a public path that
    # reaches it under another (`six.moves.urllib.parse` is `six.moves.urllib_parse`) is an
    # alias of that name.
    done = set(listed) | set(failed)
    objects = {}
    pending = sorted(n for n in list(sys.modules) if public_module_name(n) and n not in done)

    def reached(parent):
        module = sys.modules.get(parent) or objects.get(parent)
        for name in dir(module) if module is not None else ():
            path = parent + "." + name
            if not public_module_name(path):
                continue
            try:
                obj = getattr(module, name)
            except BaseException:
                continue
            if not isinstance(obj, types.ModuleType):
                continue
            own = attr_or_none(obj, "__name__")
            if not isinstance(own, str):
                continue
            if own.split(".")[0] not in TOP:
                continue
            if own != path:
                names[path] = "module"
                aliases[path] = own
            if own not in done:
                objects.setdefault(own, obj)
                pending.append(own)

    for parent in list(listed):
        reached(parent)
    while pending and len(listed) < MAX_MODULES:
        modname = pending.pop(0)
        if modname in done:
            continue
        done.add(modname)
        module = sys.modules.get(modname) or objects.get(modname)
        if not isinstance(module, types.ModuleType):
            continue
        try:
            record_module(modname, module, keep_all=getattr(module, "__file__", None) is None)
            listed.append(modname)
        except BaseException as e:
            failed[modname] = "while listing: %s: %s" % (type(e).__name__, str(e)[:300])
            continue
        reached(modname)
    # Names that other releases had: reachable here only through module __getattr__ or
    # other dynamic means that dir() does not show.
    for modname, candidates in sorted(request.get("probe", {}).items()):
        module = sys.modules.get(modname)
        if module is None:
            continue
        for name in candidates:
            path = modname + "." + name
            if path in names:
                continue
            try:
                obj = getattr(module, name)
            except BaseException:
                continue
            names[path] = kind_of(obj)
    result = {
        "python": "%d.%d.%d" % tuple(sys.version_info[:3]),
        "names": sorted([path, kind] for path, kind in names.items()),
        "aliases": sorted([path, home] for path, home in aliases.items()),
        "bases": sorted([c, b] for c, b in bases),
        "failed": failed,
        "listed": sorted(listed),
        "missing": missing,
        "modules": sorted(n for n in list(sys.modules) if public_module_name(n)),
    }
    real_stdout.write(json.dumps(result))
    real_stdout.write("\n")
    real_stdout.flush()
    # Skip interpreter shutdown: threads and atexit hooks of imported packages can hang it.
    os._exit(0)


main()
