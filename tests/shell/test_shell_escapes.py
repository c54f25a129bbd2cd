"""Known escape attempts: each is refused with a clear message, nothing escapes, and the
session goes on with its variables intact."""

from __future__ import annotations

import os

import pytest

from gradshell.shell.session import Session

PWNED = "/tmp/gradshell_escape_marker"

# (name, source). Each must be refused or fail without reaching the host.
ESCAPES = [
    # file system
    ("open-read", "open('/etc/passwd').read()"),
    ("open-write", f"open('{PWNED}', 'w').write('x')"),
    ("builtins-dict", "__builtins__['open']"),
    ("builtins-attr", "print.__self__.open"),
    # OS, subprocess, network, interpreter
    ("os-system", "import os\nos.system('touch " + PWNED + "')"),
    ("os-exec", "import os\nos.execv('/bin/sh', ['sh'])"),
    ("os-fork", "import os\nos.fork()"),
    ("os-kill", "import os\nos.kill(os.getpid(), 9)"),
    ("os-remove", "import os\nos.remove('" + PWNED + "')"),
    ("os-popen", "import os\nos.popen('id')"),
    ("from-os", "from os import system"),
    ("import-subprocess", "import subprocess"),
    ("import-socket", "import socket"),
    ("import-ctypes", "import ctypes"),
    ("import-multiprocessing", "import multiprocessing"),
    ("open-fd", "open(0)"),
    ("open-opener", "open('x.txt', 'w', opener=print)"),
    ("path-outside", "import pathlib\npathlib.Path('/etc/passwd').read_text()"),
    ("path-chmod", "import pathlib\npathlib.Path('x').chmod(0o777)"),
    ("path-symlink", "import pathlib\npathlib.Path('x').symlink_to('/etc/passwd')"),
    ("glob-outside", "import glob\nprint(glob.glob('/etc/*'))\nkeep.nope"),
    ("attrgetter-walk", "import operator\noperator.attrgetter('__class__.__mro__')(keep)"),
    ("methodcaller-walk", "import operator\noperator.methodcaller('__reduce__')(keep)"),
    ("itemgetter-environ", "import operator\nimport os\noperator.getitem(os.environ, 'X')"),
    (
        "thread-target-refused",
        "import threading\nthreading.Thread(target=type(torch.FloatTensor))",
    ),
    ("suppress-base", "import contextlib\ncontextlib.suppress(type(type(1)))"),
    ("sys-modules", "import sys\nsys.modules['os']"),
    ("sys-getframe", "import sys\nsys._getframe()"),
    ("sys-settrace", "import sys\nsys.settrace(print)"),
    ("sys-stdout-rebind", "import sys\nsys.stdout = None"),
    ("import-importlib", "import importlib"),
    ("import-builtins", "import builtins"),
    ("dunder-import", "__import__('os').system('touch " + PWNED + "')"),
    # eval / exec / compile
    ("eval", "eval('1 + 1')"),
    ("exec", "exec('x = 1')"),
    ("compile", "compile('1', 'f', 'eval')"),
    # getattr / setattr walks
    ("getattr-dunder", "getattr(keep, '__dict__')"),
    ("getattr-globals", "def f():\n    pass\ngetattr(f, '__globals__')"),
    ("setattr", "setattr(keep, 'x', 1)"),
    ("setattr-dunder", "class A:\n    pass\nsetattr(A, '__module__', 'torch')"),
    ("vars", "vars()"),
    ("globals", "globals()['__builtins__']"),
    ("locals", "locals()"),
    # dunders and __subclasses__ walks
    ("class-attr", "keep.__class__.__base__"),
    ("subclasses", "().__class__.__bases__[0].__subclasses__()"),
    ("mro", "type(keep).__mro__"),
    ("type-mro-method", "type(type(1)).mro(type(1))"),
    ("reduce", "keep.__reduce__()"),
    ("reduce-ex", "keep.__reduce_ex__(2)"),
    ("type-three-args", "type(type(1))('X', (), {})"),
    ("metaclass-base", "class M(type(type(1))):\n    pass"),
    ("dunder-method-def", "class A:\n    def __getattribute__(self, name):\n        return 1"),
    # function globals, frames, tracebacks, generators
    ("function-globals", "def f():\n    pass\nf.__globals__"),
    ("function-code", "f = lambda: 0\nf.__code__"),
    ("func-globals-py2", "def f():\n    pass\nf.func_globals"),
    ("generator-frame", "g = (i for i in range(3))\ng.gi_frame"),
    ("generator-frame-globals", "def gen():\n    yield 1\ng = gen()\ng.gi_frame.f_globals"),
    ("generator-code", "g = (i for i in range(3))\ng.gi_code"),
    ("traceback-dunder", "try:\n    1 / 0\nexcept Exception as e:\n    t = e.__traceback__"),
    ("traceback-method", "try:\n    1 / 0\nexcept Exception as e:\n    w = e.with_traceback"),
    ("tb-frame", "try:\n    1 / 0\nexcept Exception as e:\n    e.__traceback__.tb_frame"),
    # string formatting walks
    ("format-class", "'{0.__class__}'.format(keep)"),
    ("format-deep", "'{0.__class__.__bases__}'.format(keep)"),
    ("format-map", "'{x}'.format_map({'x': 1})"),
    ("format-unbound", "str.format('{0.__class__}', keep)"),
    ("format-index-walk", "'{0[0].__class__}'.format([keep])"),
    ("fstring-dunder", "f'{keep.__class__.__mro__}'"),
    # NumPy escapes
    ("np-load", "import numpy as np\nnp.load('x.npy')"),
    ("np-save", "import numpy as np\nnp.save('" + PWNED + "', np.ones(2))"),
    ("np-fromfile", "import numpy as np\nnp.fromfile('/etc/passwd')"),
    ("np-memmap", "import numpy as np\nnp.memmap('/etc/passwd')"),
    ("np-ctypeslib", "import numpy as np\nnp.ctypeslib"),
    ("np-lib", "import numpy as np\nnp.lib"),
    ("np-core", "import numpy as np\nnp._core"),
    ("ndarray-ctypes", "import numpy as np\nnp.ones(2).ctypes"),
    ("ndarray-tofile", "import numpy as np\nnp.ones(2).tofile('" + PWNED + "')"),
    ("ndarray-dump", "import numpy as np\nnp.ones(2).dump('" + PWNED + "')"),
    ("ndarray-dumps", "import numpy as np\nnp.ones(2).dumps()"),
    ("ndarray-data", "import numpy as np\nnp.ones(2).data"),
    ("ndarray-base", "import numpy as np\nnp.ones(4)[::2].base"),
    ("np-module-setattr", "import numpy as np\nnp.load = 1"),
    ("np-from-import", "from numpy import load"),
    ("np-random-state", "import numpy as np\nnp.random.mtrand"),
    ("math-internals", "import math\nmath.sys"),
    # exception and type walks
    (
        "exception-obj",
        "class K:\n    pass\ntry:\n    K().nope\nexcept AttributeError as e:\n    e.obj",
    ),
    ("exception-class-mro", "ZeroDivisionError.mro()"),
    ("catch-base-exception", "try:\n    pass\nexcept BaseException:\n    pass"),
    ("finally-continue", "while True:\n    try:\n        pass\n    finally:\n        continue"),
    # misc builtins
    ("breakpoint", "breakpoint()"),
    ("class-module-torch", "class T:\n    __module__ = 'torch'"),
    ("array-interface", "class A:\n    def __array_interface__(self):\n        return {}"),
    ("exit-method", "class A:\n    def __del__(self):\n        pass"),
    ("dict-of-function-globals", "def f():\n    pass\nf.__globals__.__dict__"),
    ("dict-of-module", "torch.__dict__['_C']"),
    ("dict-of-library-class", "torch.Tensor.__dict__"),
    ("dict-of-library-function", "torch.ones.__dict__"),
    ("vars-of-module", "vars(torch)"),
    ("torch-private-module", "torch._ops"),
    ("tensor-internal-data", "torch.ones(2)._data"),
    ("tensor-shell-hidden", "torch.ones(2)._shell_hidden"),
    ("learner-mro-base-exception", "class E(Exception):\n    pass\nE.mro()"),
    (
        "dataclass-globals",
        "from dataclasses import dataclass\n@dataclass\nclass P:\n    x: int\nP.__init__.__globals__",
    ),
    ("warnings-rebind", "import warnings\nwarnings.showwarning = print"),
    ("memoryview", "memoryview(b'abc')"),
    ("bytearray", "bytearray(10)"),
    ("exit-dunder", "exit.__call__"),
    ("super-rebind", "super = print"),
    ("class-keyword", "class A(metaclass=type):\n    pass"),
    ("relative-import", "from . import x"),
    # callables handed to C code that calls them (map, partial, ...) are checked too:
    # the real three-argument type() would make a class the checker never saw
    ("map-type-three-args", "list(map(type, ['X'], [()], [{'__module__': 'torch'}]))"),
    ("map-metaclass", "T = type(type(1))\nlist(map(T, ['X'], [()], [{}]))"),
    ("partial-type", "import functools\nfunctools.partial(type(type(1)), 'X', ())({})"),
    ("starmap-type", "import itertools\nlist(itertools.starmap(type(type(1)), [('X', (), {})]))"),
    ("reduce-type", "import functools\nfunctools.reduce(type(type(1)), [(), {}], 'X')"),
    (
        "defaultdict-refused-factory",
        "import numpy as np\nimport collections\ncollections.defaultdict(np.ndarray)",
    ),
    ("iter-sentinel-refused", "import numpy as np\niter(np.ndarray, 1)"),
    ("lru-cache-refused", "import numpy as np\nimport functools\nfunctools.cache(np.ndarray)"),
    ("sorted-key-refused", "import numpy as np\nsorted([1], key=np.ndarray)"),
    ("filter-refused", "import numpy as np\nlist(filter(np.ndarray, [1]))"),
    (
        "field-factory-refused",
        "import numpy as np\nimport dataclasses\ndataclasses.field(default_factory=np.ndarray)",
    ),
    # a library's metaclass called, or inherited from, to make classes
    (
        "property-setter-refused",
        "import numpy as np\nclass A:\n    p = property(len)\n    p = p.setter(np.ndarray)",
    ),
    ("generator-throw", "g = (i for i in [1])\ng.throw(ValueError)"),
    ("generator-frame-after-send", "g = (i for i in [1])\ng.send(None)\ng.gi_frame"),
    # identifiers are NFKC-normalised by the parser: the checker sees the real names
    ("nfkc-shell-name", "_\uff47\uff53_ga"),
    ("nfkc-math-bold-exec", "\U0001d556\U0001d569\U0001d556\U0001d554('1')"),
    ("nfkc-dunder-attribute", "(1).__\uff4d\uff52\uff4f__"),
    (
        "nfkc-dunder-method",
        "class A:\n    def __\uff44\uff45\uff4c__(self, *a):\n        return True",
    ),
    ("fullwidth-getattr-string", "getattr(1, '__\uff43\uff4c\uff41\uff53\uff53__')"),
    ("library-function-attribute", "torch.ones.calls = 1"),
    ("learner-function-private", "def f():\n    pass\nf._secret = 1"),
    ("list-sort-key-refused", "import numpy as np\n[2, 1].sort(key=np.ndarray)"),
    (
        "astuple-factory-refused",
        "import numpy as np\nimport dataclasses\n@dataclasses.dataclass\nclass Q:\n    a: int\n"
        "dataclasses.astuple(Q(3), tuple_factory=np.ndarray)",
    ),
    ("torch-metaclass-call", "M = type(torch.FloatTensor)\nM('X', (), {'__module__': 'torch'})"),
    ("torch-metaclass-base", "M = type(torch.FloatTensor)\nclass M2(M):\n    pass"),
    # NumPy's array class reads raw bytes as pointers when called with buffer=
    (
        "ndarray-buffer",
        "import numpy as np\nnp.ndarray((1,), dtype=object, buffer='\\x10'.encode('latin-1') * 8)",
    ),
    ("ndarray-via-type", "import numpy as np\ntype(np.ones(1))((10**6, 10**6))"),
    (
        "partial-ndarray",
        "import numpy as np\nimport functools\nfunctools.partial(np.ndarray, (1,))",
    ),
]


@pytest.fixture(autouse=True)
def _no_marker():
    if os.path.exists(PWNED):
        os.remove(PWNED)
    yield
    assert not os.path.exists(PWNED), "an escape attempt touched the file system"


def test_there_are_at_least_forty_escapes():
    assert len(ESCAPES) >= 40


@pytest.mark.parametrize("name,source", ESCAPES, ids=[e[0] for e in ESCAPES])
def test_escape_is_refused(name, source):
    session = Session(viz=False)
    session.run_cell("keep = 41\nimport torch")
    result = session.run_cell(source)
    assert result.error is not None, f"{name} was not refused:\n{result.output}"
    last = result.output.strip().splitlines()[-1]
    assert last.startswith("gradshell: ") or last.startswith(
        ("NameError", "TypeError", "AttributeError", "PermissionError", "KeyError")
    ), result.output
    if last.startswith("gradshell: "):
        assert "(line " in last and "not available here" in last or "cannot" in last
    # the session goes on, its variables intact
    assert session.run_cell("keep + 1").output == "42\n"


def test_module_objects_cannot_be_modified():
    session = Session(viz=False)
    session.run_cell("import torch\nimport math")
    assert "not available here" in session.run_cell("torch.ones = 1").output
    assert "not available here" in session.run_cell("math.pi = 3").output
    assert session.run_cell("math.pi > 3.14").output == "True\n"


def test_hidden_torch_file_functions(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    session = Session(viz=False)
    session.run_cell("import torch")
    for name in ("hub", "jit"):
        out = session.run_cell(f"torch.{name}").output
        assert out.startswith("gradshell: ") or "AttributeError" in out
    # save and load are there, confined to the session directory
    out = session.run_cell("torch.save(torch.ones(1), '/etc/gradshell-escape.pt')").output
    assert "outside the session directory" in out
    out = session.run_cell("torch.load('/etc/passwd')").output
    assert "outside the session directory" in out


def test_dir_shows_only_usable_names():
    session = Session(viz=False)
    session.run_cell("import numpy as np\na = np.ones(2)")
    names = session.namespace["__builtins__"]["dir"](session.namespace["a"])
    assert "ctypes" not in names and "tofile" not in names and "sum" in names
    assert not any(n.startswith("_") for n in names)
    out = session.run_cell("dir(np)").output
    assert "'zeros'" in out and "'load'" not in out


def test_os_offers_paths_not_programs():
    session = Session(viz=False)
    out = session.run_cell("import os\nprint(os.path.join('data', 'x.pt'), os.sep)").output
    assert out == f"{os.path.join('data', 'x.pt')} {os.sep}\n"
    for name in ("system", "execv", "fork", "kill", "popen", "remove", "spawnl"):
        out = session.run_cell(f"os.{name}").output
        assert out.startswith(f"gradshell: 'os.{name}' is not available here"), out
        assert "programs, processes and file changes are not available" in out
    out = session.run_cell("os.nope").output
    assert out.endswith("AttributeError: module 'os' has no attribute 'nope'\n")
    session.run_cell("os.environ['GRADSHELL_TEST_VAR'] = '1'")
    assert "GRADSHELL_TEST_VAR" not in os.environ  # a copy: the host's is untouched


def test_sys_offers_what_tutorials_use():
    session = Session(viz=False)
    source = (
        "import sys\n"
        "sys.stdout.write('written\\n')\n"
        "print('to stderr', file=sys.stderr)\n"
        "print(sys.argv, sys.version_info.major, type(sys.path).__name__)\n"
        "sys.exit(3)\n"
        "print('not reached')\n"
    )
    result = session.run_script(source, "t.py")
    # a script's sys.argv names the script, as `python t.py` does
    assert result.output == "written\nto stderr\n['t.py'] 3 list\n"
    assert result.exit_code == 3


def test_format_without_walks_still_works():
    session = Session(viz=False)
    out = session.run_cell("'{0} {x:>4} {0!r}'.format('a', x=1)").output
    assert out == "\"a    1 'a'\"\n"


def test_os_path_answers_only_inside_the_session(tmp_path, monkeypatch):
    """The OS lets any process ask whether a file exists and how large it is; learner
    code may ask only about the session's own files, and sees no host secrets in
    os.environ."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GRADSHELL_TEST_API_TOKEN_SECRET", "hunter2")
    (tmp_path / "a.txt").write_text("x")
    session = Session(viz=False)
    out = session.run_cell(
        "import os\n"
        "print(os.path.exists('a.txt'), os.path.isfile('a.txt'), os.path.getsize('a.txt'))\n"
        "print(os.path.exists('/etc/passwd'), os.path.isdir('/root'), os.listdir('.'))"
    ).output
    assert out == "True True 1\nFalse False ['a.txt']\n"
    for source in ("os.path.getsize('/etc/passwd')", "os.listdir('/')", "os.listdir('..')"):
        out = session.run_cell(source).output
        assert "outside the session directory" in out, source
    env = session.run_cell("print(sorted(os.environ))").output
    assert "PATH" in env and "SECRET" not in env and "hunter2" not in env


def test_the_front_end_follows_no_symlink_swapped_in_after_its_check(tmp_path, monkeypatch):
    """Code in the kernel may share the session directory: a directory swapped for a
    symlink between the front end's path check and its open must not lead the front
    end's %save or %load outside."""
    from gradshell.shell.files import FileAccessError, LocalFiles, PathPolicy

    session_dir = tmp_path / "session"
    (session_dir / "sub").mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.txt").write_text("secret")
    files = LocalFiles(PathPolicy(session_dir))
    checked = files.policy.locate

    def swap_after_check(path):
        found = checked(path)
        (session_dir / "sub").rmdir()
        (session_dir / "sub").symlink_to(outside)
        return found

    monkeypatch.setattr(files.policy, "locate", swap_after_check)
    with pytest.raises(FileAccessError):
        files.read_text("sub/x.txt")
    (session_dir / "sub").unlink()
    (session_dir / "sub").mkdir()
    with pytest.raises(FileAccessError):
        files.write_text("sub/x.txt", "pwned")
    assert (outside / "x.txt").read_text() == "secret"
    monkeypatch.undo()
    (session_dir / "sub").unlink()
    (session_dir / "sub").mkdir()
    assert files.write_text("sub/y.txt", "ok") == "sub/y.txt"
    assert files.read_text("sub/y.txt") == "ok"
