# nbenv's notebook runner. nbenv starts it as `python -c <bootstrap> <this file>` (compiled
# under the name `<nbenv-runner>`, so that its frames can be told from the notebook's) in a
# throw-away copy of the notebook's directory, writes the cells (JSON) to its stdin and reads one JSON line per
# cell back. It runs on Python 2.7 and 3.x, so it uses only what both have.
#
# Cells run top-down in one namespace: through IPython's InteractiveShell when IPython is
# importable (magics work as in Jupyter), else through plain exec of the source nbenv
# translated (`%magic` and `!cmd` become `get_ipython()` calls answered by the small shell
# below). Each cell's output is captured and capped; a cell that runs too long is stopped by
# SIGALRM, and if it does not stop (C code holding on) the whole process group is killed
# after writing the cell's record. Protocol lines go to a private copy of the original
# stdout; file descriptor 1 is pointed at stderr so that C extensions writing to it cannot
# corrupt the protocol.

import ast
import io
import json
import linecache
import os
import re
import signal
import subprocess
import sys
import threading
import time
import traceback
import __future__

PY2 = sys.version_info[0] == 2
if PY2:
    import __builtin__ as builtins  # noqa: N813
    text_type = unicode  # noqa: F821
else:
    import builtins
    text_type = str

MARK = "@nbenv "
RUNNER_FILE = "<nbenv-runner>"
RUNNER_PID = os.getpid()
# `timed_out`: the current cell's alarm fired. The cell's status says so whatever the cell
# made of the exception (caught it and raised another, or swallowed it).
STATE = {"proto": None, "lock": threading.Lock(), "timed_out": False}


def to_text(value):
    if isinstance(value, text_type):
        return value
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    try:
        return text_type(value)
    except Exception:
        try:
            return str(value).decode("utf-8", "replace")
        except Exception:
            return u"<unprintable>"


def emit(record):
    """Writes one protocol line, from the runner process only (never from a forked child)."""
    if os.getpid() != RUNNER_PID:
        return
    data = (MARK + json.dumps(record, ensure_ascii=True) + "\n").encode("ascii")
    with STATE["lock"]:
        while data:
            try:
                n = os.write(STATE["proto"], data)
            except OSError as e:
                if getattr(e, "errno", None) == 4:  # EINTR on Python 2
                    continue
                raise
            data = data[n:]


def future_after_others(nodes):
    """Whether a `from __future__` import follows another statement."""
    other = False
    for node in nodes:
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            if other:
                return True
        else:
            other = True
    return False


def module_of(nodes):
    """A module of these statements, on every Python the runner runs on (3.8 added
    `type_ignores`)."""
    module = ast.Module(body=nodes)
    if "type_ignores" in ast.Module._fields:
        module.type_ignores = []
    return module


class Sink(object):
    """A cell's outputs in order: stream text merged per stream, and display data; at most
    `cap` characters are kept, the rest counted."""

    def __init__(self, cap):
        self.cap = cap
        self.used = 0
        self.dropped = 0
        self.outputs = []

    def _keep(self, text):
        room = self.cap - self.used
        if room <= 0:
            self.dropped += len(text)
            return u""
        if len(text) > room:
            self.dropped += len(text) - room
            text = text[:room]
        self.used += len(text)
        return text

    def stream(self, name, text):
        text = self._keep(to_text(text))
        if not text:
            return
        last = self.outputs[-1] if self.outputs else None
        if last is not None and last["kind"] == "stream" and last["name"] == name:
            last["text"] += text
        else:
            self.outputs.append({"kind": "stream", "name": name, "text": text})

    def data(self, text):
        text = self._keep(to_text(text))
        self.outputs.append({"kind": "data", "text": text})


class Capture(io.TextIOBase):
    """Stands in for sys.stdout / sys.stderr during a cell: a text stream, as Jupyter's are
    (ipykernel's OutStream is an io.TextIOBase), so that code testing for one (pandas'
    `to_csv(sys.stdout)`) takes it."""

    encoding = "utf-8"
    errors = "replace"

    def __init__(self, name, sink, fd):
        self.name = name
        self.sink = sink
        self.fd = fd
        self.softspace = 0  # Python 2's print statement reads and writes it

    def write(self, text):
        self.sink.stream(self.name, text)
        return len(text)

    def writelines(self, lines):
        for line in lines:
            self.write(line)

    def flush(self):
        pass

    def isatty(self):
        return False

    def fileno(self):
        return self.fd

    def readable(self):
        return False

    def writable(self):
        return True

    def seekable(self):
        return False


class Forward(Capture):
    """A kernel's stdout or stderr: writes go to the running cell's capture, or to stderr
    between cells."""

    def __init__(self, name):
        Capture.__init__(self, name, None, 1 if name == "stdout" else 2)

    def write(self, text):
        stream = getattr(sys, self.name)
        if stream is self:
            stream = sys.__stderr__
        stream.write(text)
        return len(text)


class StdinNotImplementedError(IOError, NotImplementedError):
    """What Jupyter raises when a cell asks for input and the frontend cannot give it."""


class UsageError(Exception):
    """What IPython raises for an unknown magic."""


class CellTimeout(BaseException):
    """Raised in the cell when its time is up: a BaseException, so `except Exception` in the
    notebook cannot swallow it."""


def no_input(*args, **kwargs):
    raise StdinNotImplementedError(
        "raw_input was called, but this frontend does not support input requests."
    )


# ---------------------------------------------------------------- errors and frames

CELL_FILE = re.compile(r"^<cell-(\d+)>$")
IPYTHON_FILE = re.compile(r"^<ipython-input-(\d+)-")


class Cells(object):
    """Which cell a code object's file name belongs to."""

    def __init__(self):
        self.by_count = {}
        # File names a shell's compiler gives cells that the patterns above do not match
        # (ipykernel 6's `/tmp/ipykernel_<pid>/<hash>.py`), by the cell they name.
        self.by_name = {}

    def cell_of(self, filename):
        if filename in self.by_name:
            return self.by_name[filename]
        m = CELL_FILE.match(filename or "")
        if m:
            return int(m.group(1))
        m = IPYTHON_FILE.match(filename or "")
        if m:
            return self.by_count.get(int(m.group(1)))
        return None


def describe(etype, value, tb, cells):
    """ename, evalue and the frames from the first one in a cell (runner and IPython frames
    before it are plumbing)."""
    ename = getattr(etype, "__name__", to_text(etype))
    if isinstance(value, SyntaxError) and getattr(value, "msg", None):
        evalue = to_text(value.msg)
    else:
        try:
            evalue = to_text(value)
        except Exception:
            evalue = u""
    frames = []
    try:
        extracted = traceback.extract_tb(tb) if tb is not None else []
    except Exception:
        extracted = []
    started = False
    for item in extracted:
        filename, line, function, code = tuple(item)[:4]
        if filename == RUNNER_FILE:
            continue
        cell = cells.cell_of(filename)
        if cell is not None:
            started = True
        if not started:
            continue
        frames.append(
            {
                "file": to_text(filename),
                "line": line,
                "function": to_text(function),
                "code": to_text(code) if code else None,
                "cell": cell,
            }
        )
    if isinstance(value, SyntaxError):
        filename = getattr(value, "filename", None)
        frames.append(
            {
                "file": to_text(filename or "<unknown>"),
                "line": getattr(value, "lineno", None),
                "function": None,
                "code": to_text(value.text).rstrip() if getattr(value, "text", None) else None,
                "cell": cells.cell_of(filename),
            }
        )
    return {"ename": to_text(ename), "evalue": evalue, "frames": frames}


# ---------------------------------------------------------------- shell commands and magics


def expand(command, ns):
    """IPython's variable expansion in shell commands: `{expr}` and `$name`."""

    def braces(m):
        try:
            return to_text(eval(m.group(1), ns))
        except Exception:
            return m.group(0)

    def dollar(m):
        if m.group(1) == "$":
            return "$"
        name = m.group(1)
        if name in ns:
            return to_text(ns[name])
        return m.group(0)

    command = re.sub(r"\{([^{}]+)\}", braces, command)
    return re.sub(r"\$(\$|[A-Za-z_][A-Za-z0-9_]*)", dollar, command)


INSTALL = re.compile(
    r"(^|[\s;&|(])((pip[0-9.]*|conda|mamba|micromamba)\s+install|-m\s+pip\s+install)\b"
)


class SList(list):
    """The list of lines `!!cmd` and `x = !cmd` give, with IPython's shortcuts."""

    @property
    def s(self):
        return " ".join(self)

    @property
    def n(self):
        return "\n".join(self)

    @property
    def l(self):  # noqa: E743
        return list(self)

    p = l


def statement_of(name, args):
    """The Python statement after a magic's options (`-n 10 -r 3 f(x)` -> `f(x)`)."""
    takes_value = {
        "timeit": "nrp",
        "prun": "slTD",
        "snakeviz": "slTD",
        "memit": "rt",
        "lprun": "fmDT",
        "mprun": "fmDT",
        "px": "t",
    }.get(name, "")
    words = args.split(" ")
    i = 0
    while i < len(words):
        w = words[i]
        if w == "":
            i += 1
        elif len(w) >= 2 and w[0] == "-" and w[1].isalpha():
            i += 1
            if w[1] in takes_value and len(w) == 2:
                i += 1
        else:
            break
    return " ".join(words[i:])


STATEMENT_MAGICS = ("time", "timeit", "prun", "memit", "mprun", "lprun", "debug", "snakeviz", "px")
NEEDS = {"memit": "memory_profiler", "mprun": "memory_profiler", "lprun": "line_profiler",
         "snakeviz": "snakeviz", "heat": "pyheat"}
PYTHON_CELL_MAGICS = ("time", "timeit", "capture", "prun", "debug", "memit", "px", "mprun",
                      "lprun", "snakeviz", "heat", "cache")
NOOP_LINE_MAGICS = ("autoreload", "config", "xmode", "precision", "autosave", "autocall", "colors",
                    "logstart", "logstop", "qtconsole", "notebook", "connect_info", "history", "page",
                    "pprint", "pdb", "load", "store", "who", "whos", "who_ls", "tensorflow_version",
                    "autoawait", "doctest_mode", "alias_magic", "lsmagic", "magic", "clear",
                    "killbgscripts", "rehashx", "matplotlib_backend")
DISPLAY_CELL_MAGICS = {"html": "HTML", "HTML": "HTML", "javascript": "Javascript", "js": "Javascript",
                       "latex": "Latex", "markdown": "Markdown", "svg": "SVG"}


class Runner(object):
    def __init__(self, spec):
        self.spec = spec
        self.cap = int(spec.get("output_cap", 100000))
        self.allow_installs = bool(spec.get("run_installs", False))
        self.cells = Cells()
        self.sink = Sink(self.cap)
        self.current = None
        self.skipped = []
        self.absent = []
        self.flags = 0
        self.count = 0
        self.ns = {"__name__": "__main__", "__builtins__": builtins, "__doc__": None}
        self.shell = None
        self.mode = "plain"
        self.ipython_version = None
        self.plain_reason = None
        self.kernel = None
        self.kernel_name = None
        self.kernel_reason = None
        self.recorded = None

    # -- shell commands --------------------------------------------------------

    def watch_globs(self):
        """Notes each folder a glob of the notebook's looks in that is not there (a data folder
        its repository never had): the glob quietly finds nothing, and what fails later (an
        empty sample, an index out of range) is the data's, not the libraries'."""
        import glob as globbing

        def absent(pattern):
            try:
                if not isinstance(pattern, type(u"")) and not isinstance(pattern, str):
                    return None
                folder = os.path.dirname(pattern)
                while folder and globbing.has_magic(folder):
                    folder = os.path.dirname(folder)
                if folder and not os.path.isdir(folder) and folder not in self.absent:
                    self.absent.append(folder)
            except Exception:
                pass

        prefixes = tuple(set(os.path.realpath(p) for p in
                             (sys.prefix, getattr(sys, "base_prefix", sys.prefix),
                              sys.exec_prefix)))

        def notebooks(frame):
            # A cell's, or a module of the notebook's own (not a library's: matplotlib 1.x
            # globbed X11 font folders few machines have).
            name = frame.f_code.co_filename or ""
            if self.cells.cell_of(name) is not None:
                return True
            if name.startswith("<") or "site-packages" in name or "dist-packages" in name:
                return False
            return not os.path.realpath(name).startswith(prefixes)

        def watched(real):
            def glob_watched(pathname, *args, **kwargs):
                if kwargs.get("root_dir") is None and notebooks(sys._getframe(1)):
                    absent(pathname)
                return real(pathname, *args, **kwargs)
            glob_watched.__name__ = real.__name__
            glob_watched.__doc__ = real.__doc__
            return glob_watched

        globbing.glob = watched(globbing.glob)
        globbing.iglob = watched(globbing.iglob)

    def skip_install(self, command):
        if self.allow_installs or not INSTALL.search(command):
            return False
        self.skipped.append(command.strip())
        return True

    def run_command(self, command, capture):
        proc = subprocess.Popen(command, shell=True, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, stdin=open(os.devnull, "rb"))
        out = proc.communicate()[0]
        self.ns["_exit_code"] = proc.returncode
        text = to_text(out)
        if capture:
            return text
        if text:
            sys.stdout.write(text)
        return None

    def system(self, command):
        command = expand(to_text(command), self.ns)
        if self.skip_install(command):
            return None
        self.run_command(command, False)
        return None

    def getoutput(self, command, split=True):
        command = expand(to_text(command), self.ns)
        if self.skip_install(command):
            return SList()
        text = self.run_command(command, True) or u""
        return SList(text.splitlines()) if split else text

    # -- running Python inside magics -----------------------------------------

    def compile_source(self, source, filename, first_line):
        padded = u"\n" * max(first_line - 1, 0) + to_text(source)
        linecache.cache[filename] = (len(padded), None, padded.splitlines(True), filename)
        tree = compile(padded, filename, "exec", ast.PyCF_ONLY_AST | self.flags, True)
        return tree

    def exec_source(self, source, filename, first_line, display_last):
        tree = self.compile_source(source, filename, first_line)
        last = None
        if display_last and tree.body and isinstance(tree.body[-1], ast.Expr):
            last = tree.body.pop()
        # A `from __future__` import after another statement (`%matplotlib inline` first)
        # ran under Jupyter, which compiles such a cell a statement at a time; whole, CPython
        # refuses it as not at the beginning of the file.
        parts = [module_of([node]) for node in tree.body] if future_after_others(tree.body) \
            else [tree]
        for part in parts:
            code = compile(part, filename, "exec", self.flags, True)
            for name in __future__.all_feature_names:
                feature = getattr(__future__, name)
                if code.co_flags & feature.compiler_flag:
                    self.flags |= feature.compiler_flag
            exec(code, self.ns)
        if last is None:
            return None
        expr = ast.Expression(last.value)
        return eval(compile(expr, filename, "eval", self.flags, True), self.ns)

    def statement(self, name, args):
        stmt = statement_of(name, args).strip()
        if name in NEEDS:
            __import__(NEEDS[name])
        if not stmt:
            return None
        filename = "<cell-%d>" % self.current
        try:
            code = compile(stmt, filename, "eval", self.flags, True)
        except SyntaxError:
            exec(compile(stmt, filename, "exec", self.flags, True), self.ns)
            return None
        value = eval(code, self.ns)
        return value if name == "time" else None

    # -- the small shell plain exec answers magics with ------------------------

    def line_magic(self, name, line):
        name = to_text(name).lstrip("%")
        line = to_text(line)
        if name in STATEMENT_MAGICS:
            return self.statement(name, line)
        if name in NOOP_LINE_MAGICS:
            return None
        if name == "matplotlib":
            __import__("matplotlib.pyplot")
            if "widget" in line or "ipympl" in line:
                __import__("ipympl")
            return None
        if name == "pylab":
            exec("import numpy\nimport matplotlib\nfrom matplotlib import pylab, mlab, pyplot\n"
                 "np = numpy\nplt = pyplot\nfrom pylab import *\nfrom numpy import *\n", self.ns)
            return None
        if name in ("load_ext", "reload_ext"):
            for ext in line.split():
                if ext not in ("autoreload", "storemagic", "cythonmagic", "rmagic", "sympyprinting",
                               "octavemagic"):
                    __import__(ext)
            return None
        if name == "aimport":
            for module in re.split(r"[ ,]+", line):
                module = module.lstrip("-")
                if module:
                    __import__(module)
            return None
        if name == "cd":
            target = os.path.expanduser(expand(line.strip(), self.ns) or "~")
            os.chdir(target)
            print(os.getcwd())
            return None
        if name == "pwd":
            return os.getcwd()
        if name in ("env", "set_env"):
            return self.env(line)
        if name == "reset":
            keep = ("__name__", "__builtins__", "__doc__", "get_ipython", "display", "In", "Out")
            for key in list(self.ns):
                if key not in keep:
                    del self.ns[key]
            return None
        if name == "run":
            return self.run_script(line)
        if name in ("pip", "conda", "mamba"):
            command = name + " " + line
            if self.skip_install(command):
                return None
            if name == "pip":
                command = '"%s" -m pip %s' % (sys.executable, line)
            self.run_command(command, False)
            return None
        if name in ("sx", "system"):
            return self.getoutput(line)
        if name == "watermark":
            __import__("watermark")
            return None
        raise UsageError("Line magic function `%%%s` not found." % name)

    def env(self, line):
        line = line.strip()
        if not line:
            return dict(os.environ)
        m = re.match(r"^([A-Za-z_][A-Za-z0-9_]*)\s*[= ]\s*(.*)$", line)
        if m:
            os.environ[m.group(1)] = expand(m.group(2), self.ns)
            return None
        return os.environ.get(line)

    def run_script(self, line):
        import runpy
        import shlex
        words = shlex.split(line)
        interactive = "-i" in words
        words = [w for w in words if not (w.startswith("-") and len(w) == 2)]
        if not words:
            raise UsageError("%run: no file given")
        saved = sys.argv
        sys.argv = words
        try:
            init = dict(self.ns) if interactive else None
            result = runpy.run_path(words[0], init_globals=init, run_name="__main__")
        finally:
            sys.argv = saved
        for key, value in result.items():
            if not key.startswith("__"):
                self.ns[key] = value
        return None

    def cell_magic(self, name, line, cell, first_line=None):
        name = to_text(name)
        line = to_text(line)
        cell = to_text(cell)
        first = first_line or 2
        filename = "<cell-%d>" % self.current
        if name in PYTHON_CELL_MAGICS:
            if name in NEEDS:
                __import__(NEEDS[name])
            if name in ("timeit", "prun", "time"):
                setup = statement_of(name, line).strip()
                if setup:
                    exec(compile(setup, filename, "exec", self.flags, True), self.ns)
            if name == "capture":
                return self.capture(line, cell, filename, first)
            return self.exec_source(cell, filename, first, name in ("time", "cache"))
        if name in ("writefile", "file"):
            return self.write_file(line, cell)
        if name in ("bash", "sh", "system", "script", "python", "python2", "python3", "pypy"):
            if name == "script":
                words = [w for w in line.split() if not w.startswith("-")]
                program = words[0] if words else "sh"
            elif name == "python":
                program = sys.executable
            else:
                program = name
            if self.skip_install(cell):
                return None
            try:
                proc = subprocess.Popen([program], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE)
            except OSError:
                sys.stderr.write("Couldn't find program: %r\n" % program)
                return None
            out, err = proc.communicate(cell.encode("utf-8"))
            if out:
                sys.stdout.write(to_text(out))
            if err:
                sys.stderr.write(to_text(err))
            return None
        if name in DISPLAY_CELL_MAGICS:
            self.sink.data(u"<IPython.core.display.%s object>" % DISPLAY_CELL_MAGICS[name])
            return None
        raise UsageError("Cell magic `%%%%%s` not found." % name)

    def capture(self, line, cell, filename, first):
        words = [w for w in line.split() if not w.startswith("-")]
        saved = (self.sink, sys.stdout, sys.stderr)
        inner = Sink(self.cap)
        self.sink = inner
        sys.stdout = Capture("stdout", inner, 1)
        sys.stderr = Capture("stderr", inner, 2)
        try:
            self.exec_source(cell, filename, first, False)
        finally:
            self.sink, sys.stdout, sys.stderr = saved
        if words:
            self.ns[words[0]] = CapturedIO(inner)
        return None

    def write_file(self, line, cell):
        words = line.split()
        append = "-a" in words or "--append" in words
        paths = [w for w in words if not w.startswith("-")]
        if not paths:
            raise UsageError("%%writefile: no file name given")
        path = os.path.expanduser(paths[-1].strip("'\""))
        exists = os.path.exists(path)
        if append:
            print("Appending to %s" % path)
        elif exists:
            print("Overwriting %s" % path)
        else:
            print("Writing %s" % path)
        with open(path, "ab" if append else "wb") as f:
            f.write(cell.encode("utf-8"))
        return None

    def display(self, *objs, **kwargs):
        for obj in objs:
            self.sink.data(safe_repr(obj))

    # -- IPython -----------------------------------------------------------------

    def start_ipython(self):
        from IPython.core.interactiveshell import InteractiveShell
        import IPython
        try:
            from traitlets.config import Config
        except ImportError:
            from IPython.config.loader import Config
        config = Config()
        config.HistoryManager.enabled = False
        shell = self.kernel_shell(config)
        if shell is None:
            shell = InteractiveShell.instance(config=config)
        runner = self

        def showtraceback(*args, **kwargs):
            exc = kwargs.get("exc_tuple") or (args[0] if args and isinstance(args[0], tuple) else None)
            etype, value, tb = exc or sys.exc_info()
            runner.recorded = describe(etype, value, tb, runner.cells)

        def showsyntaxerror(*args, **kwargs):
            etype, value, tb = sys.exc_info()
            runner.recorded = describe(etype, value, None, runner.cells)

        def show_usage_error(exc):
            runner.recorded = {"ename": "UsageError", "evalue": to_text(exc), "frames": []}

        shell.showtraceback = showtraceback
        shell.showsyntaxerror = showsyntaxerror
        shell.show_usage_error = show_usage_error
        hook = shell.displayhook
        hook.write_output_prompt = lambda *a, **k: None
        hook.write_format_data = lambda format_dict, *a, **k: runner.sink.data(
            format_dict.get("text/plain", u""))
        pub = shell.display_pub

        def publish(*args, **kwargs):
            data = kwargs.get("data")
            if data is None:
                for arg in args:
                    if isinstance(arg, dict):
                        data = arg
                        break
            if data and "text/plain" in data:
                runner.sink.data(data["text/plain"])

        pub.publish = publish
        original_system = shell.system

        def system(command):
            if runner.skip_install(to_text(command)):
                return None
            return original_system(command)

        shell.system = system

        def enable_gui(gui=None, app=None):
            # A kernel's shell hooks a GUI toolkit's event loop in here, and for the inline
            # backend does nothing (ipykernel's `inline` loop is no loop); the base shell
            # raises NotImplementedError. matplotlib's pyplot calls it on import under
            # IPython 3, whose inline backend maps to the `inline` gui.
            return None

        shell.enable_gui = enable_gui
        try:
            original_matplotlib = shell.find_line_magic("matplotlib")
        except Exception:
            original_matplotlib = None
        if original_matplotlib is not None:
            def matplotlib_magic(line=""):
                # Jupyter always has an inline backend; a shell without ipykernel or
                # matplotlib-inline falls back to Agg (figures are still shown at the end of
                # the cell). A missing matplotlib itself stays the cell's error.
                try:
                    return original_matplotlib(line)
                except Exception:
                    __import__("matplotlib.pyplot")
                    return None
            shell.register_magic_function(matplotlib_magic, "line", "matplotlib")
        if not self.allow_installs:
            for magic in ("pip", "conda", "mamba"):
                def skip(line, _name=magic):
                    runner.skip_install(_name + " install " + line if "install" not in line
                                        else _name + " " + line)
                try:
                    shell.register_magic_function(skip, "line", magic)
                except Exception:
                    pass
        self.shell = shell
        self.ns = shell.user_ns
        self.mode = "ipython"
        self.ipython_version = to_text(IPython.__version__)

    def kernel_shell(self, config):
        """The shell of an in-process kernel, as Jupyter runs cells in a kernel's shell: comms
        open (a widget's `interact` calls its function once, as it does with no frontend
        attached; IPython 3's raise "Comms cannot be opened without a kernel" in a base
        shell) and `get_ipython().kernel` is set. ipykernel's, or IPython 3's own
        (IPython.kernel); both need pyzmq. None, and the base shell, without one."""
        from IPython.core.interactiveshell import InteractiveShell
        for name in ("ipykernel.inprocess.ipkernel", "IPython.kernel.inprocess.ipkernel"):
            try:
                module = __import__(name, fromlist=["InProcessKernel"])
            except Exception as e:
                # The first reason is the one to give: ipykernel's, in IPython 4 and later.
                self.kernel_reason = self.kernel_reason or to_text("%s: %s" % (type(e).__name__, e))
                continue
            try:
                # The kernel's streams are where a cell's output goes in Jupyter; here that
                # is the cell's capture (the shell binds them when it is made).
                kernel = module.InProcessKernel.instance(
                    config=config, stdout=Forward("stdout"), stderr=Forward("stderr"))
            except Exception as e:
                self.kernel_reason = to_text("%s: %s" % (type(e).__name__, e))
                for cls in (module.InProcessKernel, InteractiveShell):
                    try:
                        cls.clear_instance()
                    except Exception:
                        pass
                return None
            self.kernel = kernel
            self.kernel_name = to_text(name.split(".")[0])
            return kernel.shell
        return None

    def kernel_request(self, cell):
        """What a kernel does with each execute_request before running it: the request
        becomes the parent of what the cell sends (ipywidgets' Output reads its header)."""
        kernel = self.kernel
        try:
            msg = kernel.session.msg(u"execute_request", {
                u"code": cell["source"], u"silent": False, u"store_history": True,
                u"user_expressions": {}, u"allow_stdin": False, u"stop_on_error": True})
            kernel.set_parent([], msg)
        except Exception:
            pass

    def run_ipython(self, cell):
        self.cells.by_count[self.shell.execution_count] = cell["index"]
        self.name_cell(cell)
        self.recorded = None
        if self.kernel is not None:
            self.kernel_request(cell)
        result = self.shell.run_cell(cell["source"], store_history=True)
        if self.recorded is not None:
            return self.recorded
        error = getattr(result, "error_before_exec", None) or getattr(result, "error_in_exec", None)
        if error is not None:
            return describe(type(error), error, getattr(error, "__traceback__", None), self.cells)
        return None

    def name_cell(self, cell):
        """The file name the shell's compiler will give the cell's code, when it has its
        own scheme (ipykernel 6 names a cell after a hash of its source): frames there are
        the cell's."""
        compiler = getattr(self.shell, "compile", None)
        get_code_name = getattr(compiler, "get_code_name", None)
        if get_code_name is None:
            return
        source = cell["source"]
        try:
            transformed = self.shell.transform_cell(source)
        except Exception:
            transformed = source
        try:
            name = get_code_name(source, transformed, self.shell.execution_count)
        except Exception:
            return
        self.cells.by_name[to_text(name)] = cell["index"]

    # -- cells -------------------------------------------------------------------

    def run_plain(self, cell):
        filename = "<cell-%d>" % cell["index"]
        value = self.exec_source(cell["plain"], filename, 1, True)
        if value is not None:
            self.ns["_"] = value
            self.ns["Out"][self.count] = value
            self.sink.data(safe_repr(value))
        return None

    def flush_figures(self):
        """Figures left open at the end of a cell, shown as Jupyter's inline backend shows
        them (its text/plain is the figure's repr); the inline backend does this itself."""
        plt = sys.modules.get("matplotlib.pyplot")
        if plt is None:
            return
        try:
            if "inline" in plt.get_backend().lower():
                return
            for num in plt.get_fignums():
                self.sink.data(safe_repr(plt.figure(num)))
            plt.close("all")
        except Exception:
            pass

    def run_cell(self, cell, timeout):
        # Said before the cell runs, so that nbenv can show which one is running.
        emit({"event": "cell_start", "index": cell["index"]})
        self.current = cell["index"]
        self.count += 1
        self.sink = Sink(self.cap)
        self.skipped = []
        self.absent = []
        saved = (sys.stdout, sys.stderr)
        sys.stdout = Capture("stdout", self.sink, 1)
        sys.stderr = Capture("stderr", self.sink, 2)
        started = time.time()
        status = "ok"
        error = None
        watchdog = threading.Timer(timeout + 5.0, self.hard_timeout, (cell, started, timeout))
        watchdog.daemon = True
        watchdog.start()
        STATE["timed_out"] = False
        signal.setitimer(signal.ITIMER_REAL, timeout)
        try:
            try:
                if self.mode == "ipython":
                    error = self.run_ipython(cell)
                else:
                    self.ns["In"].append(cell["source"])
                    error = self.run_plain(cell)
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
        except BaseException:
            etype, value, tb = sys.exc_info()
            error = describe(etype, value, tb, self.cells)
        watchdog.cancel()
        try:
            self.flush_figures()
        except BaseException:
            pass
        sys.stdout, sys.stderr = saved
        if os.getpid() != RUNNER_PID:
            # A forked child finished the cell: it must not run the next ones.
            os._exit(0)
        # The alarm, not the exception's name, says whether the cell ran out of time: a cell
        # may catch CellTimeout and raise something else, or carry on after it.
        if STATE["timed_out"]:
            status = "timeout"
            error = None
        elif error is not None:
            status = "error"
        record = {
            "event": "cell",
            "index": cell["index"],
            "status": status,
            "duration": time.time() - started,
            "outputs": self.sink.outputs,
            "dropped": self.sink.dropped,
            "error": error,
            "skipped": self.skipped,
            "absent": self.absent,
        }
        emit(record)
        return status

    def hard_timeout(self, cell, started, timeout):
        """The cell ignored SIGALRM (C code holding on): say so, then end the process group."""
        emit({"event": "cell", "index": cell["index"], "status": "timeout",
              "duration": time.time() - started, "outputs": self.sink.outputs,
              "dropped": self.sink.dropped, "error": None, "skipped": self.skipped,
              "hard": True})
        try:
            if os.getpgrp() == RUNNER_PID:
                os.killpg(RUNNER_PID, signal.SIGKILL)
        finally:
            os._exit(124)


class CapturedIO(object):
    def __init__(self, sink):
        self.outputs = sink.outputs

    def _text(self, name):
        return u"".join(o["text"] for o in self.outputs if o.get("name") == name)

    @property
    def stdout(self):
        return self._text("stdout")

    @property
    def stderr(self):
        return self._text("stderr")

    def show(self):
        sys.stdout.write(self.stdout)
        sys.stderr.write(self.stderr)

    __call__ = show


def safe_repr(value):
    """A displayed value's text/plain: its repr, except that objects without a repr of
    their own read as IPython's pretty printer shows them (`<__main__.Box at 0x…>`)."""
    try:
        cls = type(value)
        if getattr(cls, "__repr__", None) is object.__repr__ and not isinstance(value, type):
            return u"<%s.%s at 0x%x>" % (cls.__module__, cls.__name__, id(value))
        return to_text(repr(value))
    except Exception:
        return u"<unrepresentable object>"


class PlainShell(object):
    """What `get_ipython()` returns under plain exec: the calls nbenv's translation makes,
    and the ones notebooks exported by nbconvert contain."""

    def __init__(self, runner):
        self._runner = runner
        self.kernel = None

    @property
    def user_ns(self):
        return self._runner.ns

    def system(self, command):
        return self._runner.system(command)

    def getoutput(self, command, split=True, depth=0):
        return self._runner.getoutput(command, split)

    def run_line_magic(self, name, line, _stack_depth=1):
        return self._runner.line_magic(name, line)

    def magic(self, text):
        text = to_text(text).lstrip("%")
        name, _, line = text.partition(" ")
        return self._runner.line_magic(name, line)

    def run_cell_magic(self, name, line, cell, first_line=None):
        return self._runner.cell_magic(name, line, cell, first_line)

    def ev(self, expr):
        return eval(expr, self._runner.ns)

    def ex(self, stmt):
        exec(stmt, self._runner.ns)


def main():
    if PY2:
        raw = sys.stdin.read()
    else:
        raw = sys.stdin.buffer.read()
    spec = json.loads(raw.decode("utf-8"))

    # The protocol gets a private copy of stdout; fd 1 now goes where stderr goes, and stdin
    # is empty, as in a kernel without an input frontend.
    STATE["proto"] = os.dup(1)
    if PY2:
        import fcntl
        fcntl.fcntl(STATE["proto"], fcntl.F_SETFD, fcntl.FD_CLOEXEC)
    os.dup2(2, 1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    sys.argv = [""]
    # The repository's folders its author had importable (installed, or Jupyter started at
    # the root): after the working directory, before the environment's packages.
    for i, extra in enumerate(spec.get("sys_path", [])):
        sys.path.insert(1 + i, os.path.abspath(extra))

    def alarm(signum, frame):
        STATE["timed_out"] = True
        raise CellTimeout("the cell ran longer than its time limit")

    signal.signal(signal.SIGALRM, alarm)
    builtins.input = no_input
    if PY2:
        builtins.raw_input = no_input
    import getpass
    getpass.getpass = no_input
    import warnings
    warnings.filterwarnings(
        "ignore", message="(Matplotlib is currently using agg|FigureCanvasAgg is non-interactive)")

    runner = Runner(spec)
    runner.watch_globs()
    mode = spec.get("mode", "auto")
    if mode in ("auto", "ipython"):
        try:
            runner.start_ipython()
        except Exception as e:
            runner.plain_reason = to_text("%s: %s" % (type(e).__name__, e))
            if mode == "ipython":
                emit({"event": "start", "mode": "none", "python": sys.version.split()[0],
                      "ipython": None, "reason": runner.plain_reason})
                return 3
    else:
        runner.plain_reason = u"plain exec was asked for"
    if runner.mode == "plain":
        shell = PlainShell(runner)
        runner.ns["get_ipython"] = lambda: shell
        runner.ns["display"] = runner.display
        runner.ns["In"] = [u""]
        runner.ns["Out"] = {}
    emit({"event": "start", "mode": runner.mode, "python": sys.version.split()[0],
          "ipython": runner.ipython_version, "reason": runner.plain_reason, "pid": RUNNER_PID,
          "kernel": runner.kernel_name, "kernel_reason": runner.kernel_reason})

    stop_on_error = not spec.get("keep_going", False)
    timeout = float(spec.get("cell_timeout", 600))
    end = "done"
    for cell in spec["cells"]:
        status = runner.run_cell(cell, timeout)
        if status != "ok" and stop_on_error:
            end = "stopped"
            break
    emit({"event": "end", "reason": end})
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    code = main()
    # Threads a notebook left running, and atexit handlers, must not keep a finished run
    # alive: the records are written.
    os._exit(code or 0)
