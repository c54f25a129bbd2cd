"""Red team: escape attempts and bombs against the whole shell (front end + kernel).

Each attack is judged by what it achieved, not by the message it got: a canary file
outside the session directory must not appear, a secret file outside it must not be
read, a TCP listener on the host must get no connection, no program may start, and
afterwards the session answers with the variable it kept. Attacks run twice: through
the normal shell (checker and sandbox), and with the in-process checker switched off,
so that the operating system's wall is shown to hold by itself.
"""

from __future__ import annotations

import io
import os
import re
import secrets
import socket
import sys
import tempfile
import textwrap
import threading
from pathlib import Path

import pytest
from support.terminal_attacks import ATTACKS, drives

from gradshell.kernel import tasks
from gradshell.kernel.client import KernelSession
from gradshell.shell.files import PathPolicy


class Target:
    """What an attacker would like to reach on the host."""

    def __init__(self, root) -> None:
        self.session_dir = root / "session"
        self.session_dir.mkdir()
        self.canary = root / "pwned"
        self.secret_file = root / "secret.txt"
        self.token = secrets.token_hex(16)
        self.secret_file.write_text(self.token)
        self.secret_file.chmod(0o600)
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(8)
        self.listener.settimeout(0.05)
        self.port = self.listener.getsockname()[1]

    def connections(self) -> int:
        """How many connections arrived since the last call."""
        count = 0
        while True:
            try:
                conn, _ = self.listener.accept()
            except (TimeoutError, OSError):
                return count
            conn.close()
            count += 1

    def fill(self, source: str) -> str:
        return (
            source.replace("CANARY", str(self.canary))
            .replace("SECRET", str(self.secret_file))
            .replace("PORT", str(self.port))
        )


# (id, source). CANARY, SECRET and PORT are filled in per run.
HOST_ATTACKS = [
    # files
    ("open-read", "print(open('SECRET').read())"),
    ("open-write", "open('CANARY', 'w').write('x')"),
    ("numpy-fromfile", "import numpy as np\nprint(bytes(np.fromfile('SECRET', dtype='u1')))"),
    ("numpy-loadtxt", "import numpy as np\nprint(np.loadtxt('SECRET', dtype=str))"),
    ("numpy-genfromtxt", "import numpy as np\nprint(np.genfromtxt('SECRET', dtype=str))"),
    ("numpy-save", "import numpy as np\nnp.save('CANARY', np.zeros(3))"),
    ("numpy-savetxt", "import numpy as np\nnp.savetxt('CANARY', np.zeros(3))"),
    ("numpy-tofile", "import numpy as np\nnp.zeros(3).tofile('CANARY')"),
    ("numpy-memmap", "import numpy as np\nm = np.memmap('CANARY', mode='w+', shape=(4,))"),
    (
        "numpy-datasource",
        "import numpy as np\nprint(np.lib.npyio.DataSource().open('SECRET').read())",
    ),
    ("torch-save", "import torch\ntorch.save(torch.ones(2), 'CANARY')"),
    ("torch-load", "import torch\nprint(torch.load('SECRET'))"),
    ("magic-save", "%save CANARY"),
    ("magic-load", "%load SECRET"),
    (
        "magic-graph-dot",
        "import torch\nq = torch.ones(1, requires_grad=True) * 2\n%graph q --dot CANARY",
    ),
    # programs and the interpreter
    ("os-system", "import os\nos.system('touch CANARY')"),
    ("os-popen", "import os\nprint(os.popen('cat SECRET').read())"),
    ("subprocess", "import subprocess\nsubprocess.run(['touch', 'CANARY'])"),
    ("dunder-import", "__import__('os').system('touch CANARY')"),
    ("importlib", "import importlib\nimportlib.import_module('os').system('touch CANARY')"),
    ("sys-modules", "import sys\nsys.modules['os'].system('touch CANARY')"),
    ("ctypes", "import ctypes\nctypes.CDLL(None).system(b'touch CANARY')"),
    ("pickle", "import pickle\npickle.loads(b\"cos\\nsystem\\n(S'touch CANARY'\\ntR.\")"),
    ("eval", "eval(\"__import__('os').system('touch CANARY')\")"),
    ("exec", "exec(\"import os; os.system('touch CANARY')\")"),
    ("compile", "exec(compile(\"open('CANARY','w')\", 's', 'exec'))"),
    ("builtins-dict", "__builtins__['open']('CANARY', 'w')"),
    ("getattr-builtins", "getattr(__builtins__, 'open')('CANARY', 'w')"),
    (
        "subclasses-walk",
        "for c in ().__class__.__base__.__subclasses__():\n"
        "    if c.__name__ == '_wrap_close':\n"
        "        c.__init__.__globals__['system']('touch CANARY')\n",
    ),
    ("format-walk", "print('{0.__class__.__base__.__subclasses__}'.format(1))"),
    ("generator-frame", "g = (i for i in [1])\nprint(g.gi_frame.f_back.f_globals)"),
    ("function-globals", "def f():\n    pass\nprint(f.__globals__['__builtins__'])"),
    ("code-replace", "f = lambda: 0\nprint(f.__code__.co_consts)"),
    # host callables handed to C code
    ("map-type", "list(map(type, ['X'], [()], [{'__init__': print}]))"),
    ("sorted-key-type", "sorted([1, 2], key=type)"),
    ("filter-open", "list(filter(open, ['CANARY']))"),
    ("iter-callable", "it = iter(open, 'x')"),
    ("metaclass-of-torch", "import torch\nM = type(torch.FloatTensor)\nX = M('X', (), {})"),
    (
        "forged-module",
        "class T:\n    __module__ = 'torch'\n    def run(self):\n        return open('SECRET').read()\nprint(T().run())",
    ),
    (
        "array-interface",
        "import numpy as np\n"
        "class A:\n"
        "    __array_interface__ = {'shape': (8,), 'typestr': '<u8', 'data': (4096, False)}\n"
        "print(np.asarray(A()))",
    ),
    (
        "as-strided",
        "import numpy as np\nb = np.lib.stride_tricks.as_strided(np.zeros(1), shape=(10**6,), strides=(8,))\nprint(b.sum())",
    ),
    ("numpy-ctypes", "import numpy as np\nprint(np.zeros(1).ctypes.data_as)"),
    ("class-getitem", "class G:\n    __class_getitem__ = open\nG['CANARY']"),
    (
        "hook-host-callable",
        "import torch\nx = torch.ones(1, requires_grad=True)\nx.register_hook(open)\n(x * 1).sum().backward()",
    ),
    ("decorator-host", "@open\ndef CANARY():\n    pass"),
    ("reduce", "print((1).__reduce_ex__(2))"),
    ("breakpoint", "breakpoint()"),
    ("help-pager", "help(print)"),
    ("code-interact", "import code\ncode.interact()"),
    # network
    ("socket-connect", "import socket\nsocket.create_connection(('127.0.0.1', PORT))"),
    ("urllib", "import urllib.request\nurllib.request.urlopen('http://127.0.0.1:PORT/')"),
    (
        "numpy-datasource-url",
        "import numpy as np\nnp.lib.npyio.DataSource().open('http://127.0.0.1:PORT/')",
    ),
    ("torch-hub", "import torch\ntorch.hub.load_state_dict_from_url('http://127.0.0.1:PORT/x.pt')"),
    # processes and signals
    ("fork", "import os\nos.fork()"),
    ("kill-parent", "import os\nos.kill(os.getppid(), 9)"),
    ("signal-ignore-alarm", "import signal\nsignal.signal(signal.SIGALRM, signal.SIG_IGN)"),
    ("threading", "import threading\nthreading.Thread(target=print).start()"),
]

# Memory forgery the checker refuses; without it they corrupt the kernel's own memory,
# which is the learner's to break (and undefined), so they run through the shell only.
CHECKED_ONLY_ATTACKS = [
    # NumPy's array class called directly: raw bytes read as object pointers
    (
        "ndarray-buffer-pointers",
        "import numpy as np\n"
        "p = ''.join(chr(b) for b in [0, 16, 0, 0, 0, 0, 0, 0]).encode('latin-1')\n"
        "print(np.ndarray((1,), dtype=object, buffer=p))",
    ),
    (
        "forged-class-array-interface",
        "import numpy as np\n"
        "d = {'__module__': 'torch', '__array_interface__': "
        "{'shape': (4,), 'typestr': '<u8', 'data': (id(keep), False)}}\n"
        "X = list(map(type, ['X'], [()], [d]))[0]\nnp.asarray(X())[0] = 0",
    ),
    ("ndarray-class-of-array", "import numpy as np\ntype(np.ones(1))((1,), object, b'x' * 8)"),
]

# Raw Python for the checker-less kernel: only the OS stands in the way.
RAW_ATTACKS = [
    ("raw-open-read", "print(open('SECRET').read())"),
    ("raw-open-write", "open('CANARY', 'w').write('x')"),
    ("raw-os-system", "import os\nos.system('touch CANARY')"),
    ("raw-subprocess", "import subprocess\nsubprocess.run(['touch', 'CANARY'])"),
    (
        "raw-fork",
        "import os\npid = os.fork()\nif pid == 0:\n    open('CANARY', 'w')\n    os._exit(0)",
    ),
    ("raw-exec", "import os\nos.execv('/bin/touch', ['touch', 'CANARY'])"),
    ("raw-socket", "import socket\nsocket.create_connection(('127.0.0.1', PORT))"),
    ("raw-ctypes-system", "import ctypes\nctypes.CDLL(None).system(b'touch CANARY')"),
    ("raw-symlink", "import os\nos.symlink('SECRET', 'link')\nprint(open('link').read())"),
    ("raw-hardlink", "import os\nos.link('SECRET', 'hard')\nprint(open('hard').read())"),
    (
        "raw-ptrace-parent",
        "import ctypes, os\nprint(ctypes.CDLL(None).ptrace(16, os.getppid(), 0, 0))",
    ),
    ("raw-proc-parent-mem", "import os\nprint(open(f'/proc/{os.getppid()}/environ').read())"),
    ("raw-kill-parent", "import os\nos.kill(os.getppid(), 9)"),
    ("raw-chmod-secret", "import os\nos.chmod('SECRET', 0o777)"),
    ("raw-setuid-root", "import os\nos.setuid(0)\nopen('CANARY', 'w')"),
    ("raw-proc-root", "print(open('/proc/self/root' + 'SECRET').read())"),
    ("raw-proc-cwd-up", "print(open('/proc/self/cwd/../secret.txt').read())"),
    ("raw-dev-shm", "open('/dev/shm/gradshell-redteam', 'w').write('x')"),
    ("raw-rename-out", "open('a', 'w').write('x')\nimport os\nos.rename('a', 'CANARY')"),
    ("raw-symlink-write", "import os\nos.symlink('CANARY', 'ln')\nopen('ln', 'w').write('x')"),
    (
        "raw-memfd-exec",
        "import os\nfd = os.memfd_create('x')\nos.write(fd, b'#!/bin/sh\\ntouch CANARY\\n')\n"
        "os.execv(f'/proc/self/fd/{fd}', ['x'])",
    ),
    ("raw-posix-spawn", "import os\nos.posix_spawn('/bin/touch', ['touch', 'CANARY'], {})"),
    (
        "raw-clone3",
        "import ctypes\nprint(ctypes.CDLL(None).syscall(435, 0, 0))\nopen('CANARY', 'w')",
    ),
    (
        "raw-pidfd-getfd",
        "import os, ctypes\nfd = os.pidfd_open(os.getppid())\nctypes.CDLL(None).syscall(438, fd, 0, 0)",
    ),
    (
        "raw-mknod-device",
        "import os\nos.mknod('mem', 0o600 | 0o20000, os.makedev(1, 1))\nprint(open('mem', 'rb').read(8))",
    ),
    ("raw-tiocsti", "import fcntl, termios\nfcntl.ioctl(0, termios.TIOCSTI, b'x')"),
    (
        "raw-udp",
        "import socket\nsocket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'x', ('127.0.0.1', PORT))",
    ),
    ("raw-setrlimit-raise", "import resource\nresource.setrlimit(resource.RLIMIT_AS, (-1, -1))"),
    (
        "raw-unshare",
        "import ctypes\nprint(ctypes.CDLL(None).unshare(0x10000000))\nopen('CANARY', 'w')",
    ),
]

# Bombs: each must end with a clear message and a usable shell.
BOMBS = [
    ("nested-tuple-hash", "t = ()\nfor i in range(10**6):\n    t = (t,)\n\nhash(t)"),
    ("nested-map", "m = [0]\nfor i in range(10**6):\n    m = map(abs, m)\n\nlist(m)"),
    ("deep-recursion", "def f(n):\n    return f(n + 1)\n\nf(0)"),
    ("native-eig", "import numpy as np\nnp.linalg.eig(np.random.rand(6000, 6000))"),
    ("busy-loop", "while True:\n    pass\n"),
    ("sleep", "import time\ntime.sleep(10**6)"),
    (
        "swallow-timeout",
        "while True:\n    try:\n        while True:\n            pass\n    except:\n        pass\n",
    ),
    (
        "exit-swallows",
        "class S:\n    def __enter__(self):\n        return self\n    def __exit__(self, *a):\n        return True\n\nwhile True:\n    with S():\n        while True:\n            pass\n",
    ),
    (
        "mro-baseexception",
        "E = ZeroDivisionError.mro()[-2]\nwhile True:\n    try:\n        while True:\n            pass\n    except E:\n        pass\n",
    ),
    ("expand-contiguous", "import torch\ntorch.ones(10**5).expand(10**5, 10**5).contiguous()"),
    ("subarray-dtype", "import numpy as np\nnp.zeros(10, dtype=('f8', (10**5, 10**5)))"),
    ("starred-display", "[*range(10**10)]"),
    ("object-power", "import numpy as np\nnp.array([2], dtype=object) ** 10**9"),
    (
        "print-precision",
        "import torch\ntorch.set_printoptions(precision=10**7)\nprint(torch.ones(1))",
    ),
    ("string-repeat", "'x' * 10**11"),
    ("int-power", "10**10**10"),
    ("list-growth", "l = []\nwhile True:\n    l.append([0] * 10**6)\n"),
    ("torch-huge", "import torch\ntorch.zeros(10**6, 10**6)"),
    ("numpy-huge", "import numpy as np\nnp.ones((10**5, 10**5))"),
    ("print-flood", "while True:\n    print('x' * 1000)\n"),
    (
        "changing-index",
        "class I:\n    n = 0\n    def __index__(self):\n        I.n += 1\n        return 1 if I.n < 3 else 10**12\n\nimport torch\ntorch.zeros(I(), I(), I())",
    ),
    (
        "graph-huge",
        "import torch\nx = torch.ones(1, requires_grad=True)\ny = x\nfor i in range(30000):\n    y = y * 1\n\n%graph y",
    ),
    ("explain-huge", "%explain y"),
    ("big-file", "import torch\ntorch.save(torch.zeros(10**8), 'big.pt')"),
    ("ndarray-unsized", "import numpy as np\nnp.ndarray((10**6, 10**6))"),
    ("infinite-star-print", "import itertools\nprint(*itertools.count())"),
    ("list-of-endless-iterator", "import itertools\nlist(itertools.repeat(1))"),
]


@pytest.fixture(scope="module")
def target(tmp_path_factory):
    t = Target(tmp_path_factory.mktemp("redteam"))
    yield t
    t.listener.close()


def _kernel(target: Target, *, checker: bool, workdir=None) -> KernelSession:
    k = KernelSession(
        viz=True,
        time_limit=2.0,
        grace=1.0,
        max_elements=10**7,
        policy=PathPolicy(target.session_dir),
        checker=checker,
        workdir=workdir,
    )
    assert k.run_cell("keep = 41").error is None
    return k


@pytest.fixture(scope="module")
def shell(target):
    k = _kernel(target, checker=True)
    yield k
    k.close()


@pytest.fixture(scope="module")
def raw_shell(target):
    k = _kernel(target, checker=False)
    yield k
    k.close()


def _assert_held(k: KernelSession, target: Target, output: str) -> None:
    assert not target.canary.exists(), "the canary file was written"
    assert target.token not in output, "the secret file was read"
    assert target.connections() == 0, "a connection reached the host"
    after = k.run_cell("keep").output
    assert after == "41\n", f"the session lost its state: {after!r}"
    assert target.secret_file.stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize(("name", "source"), HOST_ATTACKS, ids=[a[0] for a in HOST_ATTACKS])
def test_attack_through_the_shell_gets_nowhere(shell, target, name, source):
    result = shell.run_cell(target.fill(source))
    _assert_held(shell, target, result.output + result.visual)


@pytest.mark.parametrize(
    ("name", "source"), CHECKED_ONLY_ATTACKS, ids=[a[0] for a in CHECKED_ONLY_ATTACKS]
)
def test_memory_forgery_through_the_shell_is_refused(shell, target, name, source):
    restarts = shell.restarts
    result = shell.run_cell(target.fill(source))
    assert "gradshell: " in result.output and "not available here" in result.output
    assert shell.restarts == restarts
    _assert_held(shell, target, result.output + result.visual)


@pytest.mark.parametrize(
    ("name", "source"), HOST_ATTACKS + RAW_ATTACKS, ids=[a[0] for a in HOST_ATTACKS + RAW_ATTACKS]
)
def test_attack_without_the_checker_is_stopped_by_the_os(raw_shell, target, name, source):
    result = raw_shell.run_cell(target.fill(source))
    _assert_held(raw_shell, target, result.output + result.visual)


@pytest.mark.parametrize(("name", "source"), BOMBS, ids=[b[0] for b in BOMBS])
def test_bomb_ends_with_a_message_and_a_usable_shell(shell, target, name, source):
    result = shell.run_cell(target.fill(source))
    text = result.output + result.visual
    bounded = "more node(s) not drawn" in text  # a huge graph, drawn in part and said so
    assert result.error is not None or "gradshell:" in text or bounded, (
        f"no clear message: {text[-300:]!r}"
    )
    assert len(result.output) <= 20 * 1024 * 1024
    _assert_held(shell, target, text)


def test_the_parent_survives_a_kernel_that_kills_its_own_process_group(target):
    with _kernel(target, checker=False) as k:
        r = k.run_cell("import os, signal\nos.killpg(0, signal.SIGKILL)")
        assert "gradshell:" in r.output
        assert k.run_cell("keep").output == "41\n"


def test_the_kernel_is_another_user_or_confined(target):
    with _kernel(target, checker=False) as k:
        layers = k.layers
        assert layers and "not available: No module" not in " ".join(layers.values())
        if os.geteuid() == 0:
            assert k.run_cell("import os\nos.getuid()").output != "0\n"


def test_many_threads_do_not_outlive_the_statement(target):
    with _kernel(target, checker=False) as k:
        r = k.run_cell(
            "import threading, time\n"
            "def spin():\n    while True:\n        time.sleep(0.01)\n"
            "for i in range(4):\n    threading.Thread(target=spin, daemon=True).start()\n"
        )
        assert r.error is None or "gradshell" in r.output
        assert k.run_cell("keep").output == "41\n"


def test_concurrent_interrupt_and_output(target):
    """Ctrl-C while the kernel floods output still leaves a usable shell."""
    with _kernel(target, checker=True) as k:
        timer = threading.Timer(0.5, k._signal, args=(2,))
        timer.start()
        r = k.run_cell("while True:\n    print('flood')\n")
        timer.join()
        assert "KeyboardInterrupt" in r.output or "gradshell:" in r.output
        assert k.run_cell("keep").output == "41\n"


# What learner code (here without the checker) sends back must never end the kernel or
# the front end: texts too long for one message, lone surrogates UTF-8 cannot encode, and
# bytes that look like the wire's own frames.
WIRE_ATTACKS = [
    ("huge-print", "print('x' * 70_000_000)"),
    ("huge-error-message", "raise ValueError('x' * 70_000_000)"),
    ("huge-value", "'x' * 70_000_000"),
    ("surrogate-print", "print('\\ud800')"),
    ("surrogate-error", "raise ValueError('\\udcff')"),
    ("surrogate-prompt", "input('\\ud800')"),
    ("surrogate-repr", "class A:\n    def __repr__(self):\n        return chr(0xd800)\nA()"),
    ("fake-frame", 'print(\'\\x00\\x00\\x00\\x10{"type":"result"}\')'),
    ("nul-output", "print('a\\x00b')"),
    (
        "threads-printing-at-once",
        "import threading, sys\ndef spam():\n    for i in range(100):\n"
        "        sys.stdout.write('y' * 300000)\n"
        "ts = [threading.Thread(target=spam) for _ in range(3)]\nfor t in ts:\n    t.start()\n"
        "for i in range(100):\n    print('x' * 300000)\nfor t in ts:\n    t.join()",
    ),
    (
        "error-whose-str-fails",
        "class E(Exception):\n    def __str__(self):\n        return 1 / 0\nraise E()",
    ),
]


def test_what_the_kernel_sends_back_never_breaks_the_wire(target):
    with _kernel(target, checker=False) as k:
        k.read_line = lambda: "an answer"
        for name, source in WIRE_ATTACKS:
            result = k.run_cell(source)
            assert "exited unexpectedly" not in result.output, name
            assert "internal error" not in result.output, name
            assert len(result.output) <= 20 * 1024 * 1024, name
            assert k.run_cell("keep").output == "41\n", name
        assert k.restarts == 0
        assert "\ufffd" in k.run_cell("print(chr(0xd800))").output


def test_the_front_end_serves_files_and_lines_it_cannot_send_without_breaking(target):
    """A FIFO or a huge file in the session directory given to %load, a line of input
    with bytes that are not UTF-8, an input too long to send: each gets a clear message,
    the front end neither hangs nor raises, and the kernel is not replaced."""
    fifo = target.session_dir / "pipe"
    os.mkfifo(fifo)
    big = target.session_dir / "big.txt"
    big.write_text("x" * (70 * 1024 * 1024))
    try:
        with _kernel(target, checker=True) as k:
            assert "not a regular file" in k.run_cell("%load pipe").output
            assert "too large" in k.run_cell("%load big.txt").output
            k.read_line = lambda: "caf\udce9"  # a terminal's surrogateescape
            assert k.run_cell("len(input())").output == "4\n"
            long = k.run_cell("x = 1  # " + "y" * (65 * 1024 * 1024))
            assert "too long" in long.output
            k.read_line = lambda: "z" * (65 * 1024 * 1024)
            huge = k.run_cell("s = input()")
            assert "EOFError: the line of input is too large" in huge.output
            assert k.run_cell("keep").output == "41\n"
            assert k.restarts == 0
    finally:
        fifo.unlink()
        big.unlink()


def test_a_kernel_cannot_signal_or_read_another_sessions_kernel(tmp_path):
    """Two learners' kernels side by side: neither reaches the other."""
    sessions = []
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        k = KernelSession(
            viz=False, time_limit=5.0, grace=1.0, policy=PathPolicy(tmp_path / name), checker=False
        )
        sessions.append(k)
    a, b = sessions
    try:
        assert b.run_cell("keep = 2").error is None
        pid = b._proc.pid
        for source in (
            f"import os, signal\nos.kill({pid}, signal.SIGKILL)",
            f"print(open('/proc/{pid}/environ').read())",
            f"import os\nprint(os.listdir('{tmp_path / 'b'}'))",
        ):
            assert a.run_cell(source).error is not None, source
        assert b.run_cell("keep").output == "2\n"
        assert b.restarts == 0
    finally:
        a.close()
        b.close()


def test_an_error_python_ignores_is_told_without_gradshell_frames(shell):
    """A generator closed by the collector whose `finally:` loops until the time limit:
    Python can only report the error, which must not show gradshell's own code."""
    result = shell.run_cell(
        "def g():\n    try:\n        yield 1\n    finally:\n        while True:\n"
        "            pass\nx = g()\nnext(x)\ndel x"
    )
    assert "Exception ignored in: <generator object g" in result.output
    assert "stopped by the time limit" in result.output
    assert "Traceback" not in result.output and "gradshell/" not in result.output
    assert shell.run_cell("keep").output == "41\n"


def test_memory_running_out_ends_the_kernel_first(raw_shell):
    """The kernel is the out-of-memory killer's first choice (not the front end or
    another learner's kernel), and learner code cannot change that."""
    source = "with open('/proc/self/oom_score_adj') as f:\n    print(f.read().strip())"
    assert raw_shell.run_cell(source).output == "1000\n"
    lowered = raw_shell.run_cell("open('/proc/self/oom_score_adj', 'w').write('0')")
    assert lowered.error is not None
    assert raw_shell.run_cell("keep").output == "41\n"


def test_forged_messages_from_the_kernel_do_not_break_the_front_end(target):
    """Learner code running unchecked can write its own messages on the wire: a result
    with a nonsense state, completions that are not completions. The front end keeps
    what it understands and goes on."""
    forge = (
        "import gc\nfrom gradshell.kernel import server\n"
        "ch = [o for o in gc.get_objects() if isinstance(o, server.Channel)][0]\n"
        "ch.send({'type': 'result', 'output': 1, 'error': 'x', 'exit_code': 'no', "
        "'state': {'style': 'evil', 'prompt': ['x'], 'execution_count': 'many', 'tutor': 1}})\n"
        "ch.send({'type': 'completions', 'items': [['a', 'x', 'b'], 'junk', None]})\n"
        "ch.send({'type': 'completions', 'items': 'not a list'})\n"
    )
    with _kernel(target, checker=False) as k:
        before = (k.style, k.prompt, k.execution_count)
        result = k.run_cell(forge)
        assert result.output == "1"
        assert (k.style, k.prompt) == before[:2] and isinstance(k.execution_count, int)
        assert k.complete("ke") == []
        assert k.complete("ke") == []
        # The answers the forgeries stood in for arrive late, one per request; the
        # session soon answers in step again.
        answers = [k.run_cell("keep").output for _ in range(5)]
        assert "41\n" in answers and k.restarts == 0


FORGED_DTYPES = {
    # a structured dtype with an object field whose flags say it holds no objects
    "structured": (("V8", False, True), (3, "|", None, ("a",), {"a": ("O", 0)}, 8, 1, 0)),
    # the object dtype itself, its flags cleared
    "object": (("O8", False, True), (3, "|", None, None, None, 8, 8, 0)),
}


@pytest.mark.parametrize("kind", FORGED_DTYPES)
def test_a_crafted_dtype_in_a_torch_file_forges_no_objects(target, kind):
    import io
    import pickle
    import zipfile

    import numpy as np

    args, state = FORGED_DTYPES[kind]
    if state[4] is not None:
        state = (*state[:4], {"a": (np.dtype("O"), 0)}, *state[5:])

    class ForgedDtype:
        def __reduce__(self):
            return (np.dtype, args, state)

    class ForgedArray:
        def __reduce__(self):
            rebuild = np.arange(1).__reduce__()[0]
            state = (1, (1,), ForgedDtype(), False, b"\x10" + b"\x00" * 7)
            return (rebuild, (np.ndarray, (0,), b"b"), state)

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("archive/data.pkl", pickle.dumps(ForgedArray(), protocol=2))
    path = target.session_dir / "forged.pt"
    path.write_bytes(buf.getvalue())
    try:
        with _kernel(target, checker=True) as k:
            k.run_cell("import numpy as np\nimport torch")
            out = k.run_cell("a = torch.load('forged.pt', weights_only=False)\nprint(a[0])")
            assert k.restarts == 0
            assert "UnpicklingError" in out.output, out.output
    finally:
        path.unlink()


def test_ctrl_c_while_a_lost_kernel_is_replaced_keeps_the_variables(target):
    """A learner pressing Ctrl-C while a crashed kernel's replacement starts: the start
    goes on, the variables come back, and the Ctrl-C does not escape the front end."""
    with _kernel(target, checker=False) as k:
        real_wait = k.wait_ready
        presses = []

        def impatient() -> None:
            if k._proc is not None and not k._ready and not presses:
                presses.append(1)
                raise KeyboardInterrupt
            real_wait()

        k.wait_ready = impatient
        try:
            crashed = k.run_cell("import os\nos._exit(3)")
        except KeyboardInterrupt:
            pytest.fail("the Ctrl-C escaped the front end and the kernel was left half started")
        assert presses and "a new one was started" in crashed.output
        assert k.run_cell("keep").output == "41\n"


def test_time_spent_typing_an_answer_is_not_the_cells(shell):
    """A learner slower to answer input() than the statement time limit: the cell goes
    on with the answer instead of being stopped (the clock stops while it waits)."""
    import time

    def slow_learner() -> str:
        time.sleep(shell.time_limit + shell.grace + 0.5)
        return "Ada"

    shell.read_line = slow_learner
    try:
        result = shell.run_cell("name = input('name? ')\nprint('hi', name)")
    finally:
        del shell.read_line
    assert result.output.endswith("hi Ada\n"), result.output
    assert shell.run_cell("keep").output == "41\n"


def test_an_input_that_fails_when_re_run_is_not_counted_as_restored(target):
    """After a crash the finished inputs are re-run; one that fails this time (here: the
    file it read is gone) is reported as lost, not as come back, and by name."""
    with _kernel(target, checker=False) as k:
        (k.writable_dir / "needed.txt").write_text("data")
        assert k.run_cell("once = open('needed.txt').read()").error is None
        crashed = k.run_cell("import os\nos.remove('needed.txt')\nos._exit(3)")
        assert "1 of the 2 earlier inputs" in crashed.output, crashed.output
        assert "back: keep" in crashed.output and "not back: once" in crashed.output
        assert k.run_cell("keep").output == "41\n"
        assert "NameError" in k.run_cell("once").output


# --- side doors: a new kernel starts clean ------------------------------------------------

#: Files learner code plants where Python might import them from, each writing the ran-file
#: when run. RAN is filled in per test.
PLANTED = {
    "json.py": "open(RAN, 'w').write('json')\n",
    "numpy.py": "open(RAN, 'w').write('numpy')\n",
    "sitecustomize.py": "open(RAN, 'w').write('sitecustomize')\n",
    "usercustomize.py": "open(RAN, 'w').write('usercustomize')\n",
    "evil.pth": "import os; open(RAN, 'w').write('pth')\n",
    "encodings/__init__.py": "open(RAN, 'w').write('encodings')\n",
    "gradshell/__init__.py": "open(RAN, 'w').write('gradshell')\n",
    "gradshell/kernel/__init__.py": "open(RAN, 'w').write('gradshell.kernel')\n",
    "gradshell/kernel/__main__.py": "open(RAN, 'w').write('gradshell.kernel.__main__')\n",
}

#: Plants every file above in every folder this kernel can write (its working directory,
#: its temporary folder, its home), each plant tried on its own.
PLANT = """
import os, tempfile
planted = []
for folder in {os.getcwd(), tempfile.gettempdir(), os.path.expanduser('~')}:
    for name, text in FILES.items():
        path = os.path.join(folder, name)
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, 'w') as f:
                f.write(text)
            planted.append(path)
        except OSError:
            pass
print(len(planted), 'planted')
"""

#: Ways to lose a kernel: each leaves the front end to start a new one. (None: the test
#: kills the kernel from outside, as the machine's out-of-memory killer would.)
RESTARTS = {
    "crash": "import os\nos._exit(3)",
    "segfault": "import ctypes\nctypes.string_at(0)",
    "time-limit-kill": (
        "import signal\nsignal.pthread_sigmask(signal.SIG_BLOCK, set(signal.Signals))\n"
        "while True:\n    pass"
    ),
    "memory-kill": None,
    "reset": "%reset",
}


@pytest.mark.parametrize("restart", list(RESTARTS))
def test_files_planted_for_the_next_kernel_never_run(target, tmp_path, restart):
    """Learner code (the checker off) plants modules, a .pth, sitecustomize and a fake
    gradshell package everywhere it can write, then loses its kernel: the new kernel
    starts, runs none of them, and has the learner's variables back."""
    ran = tmp_path / "planted-code-ran"
    files = {name: text.replace("RAN", repr(str(ran))) for name, text in PLANTED.items()}
    with _kernel(target, checker=False) as k:
        planted = k.run_cell(PLANT.replace("FILES", repr(files)))
        assert planted.error is None and " planted" in planted.output, planted.output
        source = RESTARTS[restart]
        if source is None:
            killer = threading.Timer(0.5, os.kill, args=(k._proc.pid, 9))
            killer.start()
            lost = k.run_cell("while True:\n    pass")
            killer.join()
        else:
            lost = k.run_cell(source)
        if restart != "reset":
            assert "new one" in lost.output and "started" in lost.output, lost.output
            assert k.run_cell("keep").output == "41\n"
        assert k.run_cell("import json\nprint(json.dumps([1]))").output.endswith("[1]\n")
        assert not ran.exists(), f"planted code ran: {ran.read_text()}"


def test_a_torch_file_named_like_a_module_does_not_stop_later_kernels(target):
    """With the checker on: a tensor saved as json.py, then a statement that overruns
    its limit. The next kernel starts (it never imports from the workspace)."""
    with _kernel(target, checker=True) as k:
        saved = k.run_cell("import torch\ntorch.save(torch.ones(1), 'json.py')")
        assert saved.error is None, saved.output
        assert (k.writable_dir / "json.py").exists()
        os.kill(k._proc.pid, 9)  # the statement that overran: its kernel is gone
        k._proc.wait()
        lost = k.run_cell("keep")
        assert "a new one was started" in lost.output, lost.output
        assert k.run_cell("keep").output == "41\n"


def test_the_kernel_sees_no_host_variables(target, monkeypatch):
    """The host's tokens and Python's own variables never reach the kernel."""
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "host-secret-123")
    monkeypatch.setenv("PYTHONSTARTUP", "/nonexistent/startup.py")
    monkeypatch.setenv("LD_PRELOAD", "/nonexistent/preload.so")
    with _kernel(target, checker=False) as k:
        environ = k.run_cell("print(open('/proc/self/environ').read())").output
        assert "host-secret-123" not in environ
        assert "PYTHONSTARTUP" not in environ and "LD_PRELOAD" not in environ
        flags = k.run_cell("import sys\nprint(sys.flags.isolated, '' in sys.path)").output
        assert flags.strip().endswith("1 False"), flags


def test_kernel_writes_only_in_its_workspace_and_reads_no_hidden_file(target):
    """Learner code (the checker off) writes in gradshell-files/ only, never the session
    directory's top level, and reads the session's visible files but no hidden one."""
    session = target.session_dir
    (session / ".ssh").mkdir(exist_ok=True)
    key = session / ".ssh" / "id_ed25519"
    key.write_text("PRIVATE KEY")
    key.chmod(0o600)
    (session / "notes.txt").write_text("visible notes")
    (session / "proj" / ".git").mkdir(parents=True, exist_ok=True)
    (session / "proj" / ".git" / "config").write_text("hidden config")
    (session / "proj" / "data.txt").write_text("visible data")
    attacks = [
        f"open({str(session / '.bashrc')!r}, 'w').write('x')",
        f"open({str(session / 'conftest.py')!r}, 'w').write('x')",
        "open('../sitecustomize.py', 'w').write('x')",
        f"import os\nos.makedirs({str(session / '.git' / 'hooks')!r})",
        f"print(open({str(key)!r}).read())",
        f"print(open({str(session / 'proj' / '.git' / 'config')!r}).read())",
        f"import os\nprint(os.listdir({str(session / '.ssh')!r}))",
    ]
    with _kernel(target, checker=False) as k:
        before = sorted(p.name for p in session.iterdir())
        for attack in attacks:
            result = k.run_cell(attack)
            assert "PermissionError" in result.output, (attack, result.output)
            assert "PRIVATE KEY" not in result.output and "hidden config" not in result.output
        assert sorted(p.name for p in session.iterdir()) == before
        seen = k.run_cell(
            f"print(open({str(session / 'notes.txt')!r}).read(), "
            f"open({str(session / 'proj' / 'data.txt')!r}).read())"
        )
        assert seen.output.endswith("visible notes visible data\n"), seen.output
        wrote = k.run_cell("import os\nopen('model.pt', 'w').write('x')\nprint(os.getcwd())")
        assert wrote.output.endswith(f"\n{k.writable_dir}\n"), wrote.output
        assert k.writable_dir == session / "gradshell-files"
        assert (k.writable_dir / "model.pt").exists()


def test_files_the_kernel_writes_are_never_left_executable(target):
    """A file learner code marks executable is plain data again when the input ends."""
    with _kernel(target, checker=False) as k:
        k.run_cell("import os\nopen('run.sh', 'w').write('echo hi')\nos.chmod('run.sh', 0o755)")
        assert (k.writable_dir / "run.sh").stat().st_mode & 0o111 == 0


def test_the_workspace_has_a_cap(target):
    """Past the workspace's caps, the files the input wrote are removed, and it says so."""
    k = KernelSession(
        viz=False,
        time_limit=5.0,
        policy=PathPolicy(target.session_dir),
        checker=False,
        workdir=target.session_dir / "capped",
        workspace_bytes=1 << 20,
        workspace_files=50,
    )
    with k:
        result = k.run_cell("for i in range(80):\n    open(f'f{i}', 'w').write('x')")
        assert "may hold 1 MiB in 50 files at most" in result.output, result.output
        assert len(list(k.writable_dir.iterdir())) <= 50
        big = k.run_cell("open('big', 'wb').write(b'0' * (2 << 20))")
        assert "removed: big" in big.output, big.output
        assert k.run_cell("print(1)").output == "1\n"


def test_a_restart_repeats_no_prints_and_no_writes(target):
    """The quiet re-run after a crash prints nothing again and writes nowhere the
    learner sees; it says which variables came back."""
    with _kernel(target, checker=False) as k:
        first = k.run_cell(
            "import torch\nlog = open('log.txt', 'a')\nlog.write('ran\\n')\nlog.close()\n"
            "torch.save(torch.ones(1), 'w.pt')\nw = torch.load('w.pt')\nprint('printed once')"
        )
        assert first.output.endswith("printed once\n"), first.output
        stamp = (k.writable_dir / "w.pt").stat().st_mtime_ns
        lost = k.run_cell("import os\nos._exit(1)")
        assert "printed once" not in lost.output
        assert "back: " in lost.output and "w" in lost.output.split("back: ")[1]
        assert (k.writable_dir / "log.txt").read_text() == "ran\n"
        assert (k.writable_dir / "w.pt").stat().st_mtime_ns == stamp
        assert k.run_cell("print(w)").output == "tensor([1.])\n"


# --- side doors into what is the learner's: the session directory is often their home --

# (id, source, stopped only by a kernel workspace apart from the session directory).
# SESSION is filled in with the session directory; `q` is a tensor with a graph.
HOME_ATTACKS = [
    ("save-bashrc", "%save .bashrc", False),
    ("save-force-bashrc", "%save --force .bashrc", False),
    ("save-authorized-keys", "%save .ssh/authorized_keys", False),
    ("save-git-hook", "%save a/.git/hooks/pre-commit", False),
    ("save-dotdot-profile", "%save sub/../.profile", False),
    ("save-absolute-profile", "%save SESSION/.profile", False),
    ("save-through-symlink", "%save link/authorized_keys", False),
    ("save-over-learners-file", "%save notes.py", False),
    ("load-authorized-keys", "%load .ssh/authorized_keys", False),
    ("graph-dot-bashrc", "%graph q --dot .bashrc", False),
    ("graph-svg-git-hook", "%graph q --svg a/.git/hooks/pre-commit --force", False),
    ("graph-dot-over-learners-file", "%graph q --dot notes.py", False),
    ("torch-save-bashrc", "torch.save(torch.ones(1), '.bashrc')", False),
    ("torch-save-profile", "torch.save(torch.ones(1), 'SESSION/.profile')", False),
    ("torch-save-hook", "torch.save(torch.ones(1), 'SESSION/a/.git/hooks/pre-commit')", False),
    ("torch-save-dotdot", "torch.save(torch.ones(1), 'SESSION/sub/../.profile')", False),
    ("torch-save-symlink", "torch.save(torch.ones(1), 'SESSION/link/authorized_keys')", False),
    ("torch-load-keys", "print(torch.load('SESSION/.ssh/authorized_keys'))", False),
    ("torch-save-conftest", "torch.save(torch.ones(1), 'SESSION/conftest.py')", True),
    ("torch-save-sitecustomize", "torch.save(torch.ones(1), 'SESSION/sitecustomize.py')", True),
]

# Without the checker: code forging the front end's file service on the wire, and
# Python's own open() (the sandbox's writable directory is all that stands in the way).
FORGE = (
    "import gc\nfrom gradshell.kernel.server import Channel\n"
    "ch = [o for o in gc.get_objects() if isinstance(o, Channel)][0]\n"
)
RAW_HOME_ATTACKS = [
    (
        "raw-forged-force",
        FORGE + "print(ch.ask('write_file', path='notes.py', text='pwned', force=True))",
        False,
    ),
    (
        "raw-forged-hidden",
        FORGE + "print(ch.ask('write_file', path='.bashrc', text='pwned', force=True))",
        False,
    ),
    (
        "raw-forged-read-keys",
        FORGE + "print(ch.ask('read_file', path='.ssh/authorized_keys'))",
        False,
    ),
    ("raw-open-bashrc", "open('SESSION/.bashrc', 'w').write('pwned')", True),
    ("raw-open-git-hook", "open('SESSION/a/.git/hooks/pre-commit', 'w').write('pwned')", True),
]

HOME_KEY = "ssh-ed25519 AAAAC3Nza-the-learners-key"


class Home:
    """A session directory that is a learner's home: start-up files, keys, a repository,
    and a file of the learner's own."""

    def __init__(self, root) -> None:
        self.dir = root
        (root / ".bashrc").write_text("# the learner's shell\n")
        (root / ".ssh").mkdir()
        (root / ".ssh" / "authorized_keys").write_text(HOME_KEY + "\n")
        (root / "a" / ".git" / "hooks").mkdir(parents=True)
        (root / "sub").mkdir()
        (root / "link").symlink_to(root / ".ssh")
        (root / "notes.py").write_text("# the learner's notes\n")
        self.before = self.snapshot()

    def snapshot(self) -> dict[str, bytes]:
        found = {}
        for folder, _, names in os.walk(self.dir):
            for name in names:
                path = os.path.join(folder, name)
                if not os.path.islink(path):
                    with open(path, "rb") as f:
                        found[os.path.relpath(path, self.dir)] = f.read()
        return found


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    return Home(tmp_path_factory.mktemp("home"))


def _home_kernel(home: Home, *, checker: bool) -> KernelSession:
    k = KernelSession(
        viz=True, time_limit=5.0, grace=1.0, policy=PathPolicy(home.dir), checker=checker
    )
    setup = "import torch\nq = torch.ones(1, requires_grad=True) * 2\nkeep = 41"
    assert k.run_cell(setup).error is None
    return k


@pytest.fixture(scope="module")
def home_shell(home):
    k = _home_kernel(home, checker=True)
    yield k
    k.close()


@pytest.fixture(scope="module")
def raw_home_shell(home):
    k = _home_kernel(home, checker=False)
    yield k
    k.close()


def _attack_home(k: KernelSession, home: Home, source: str, needs_workspace: bool) -> None:
    assert k.writable_dir != home.dir, "learner code writes in a workspace of its own"
    result = k.run_cell(source.replace("SESSION", str(home.dir)))
    text = result.output + result.visual
    assert home.snapshot() == home.before, "a file of the learner's home changed"
    assert HOME_KEY not in text, "the learner's key was read"
    assert k.run_cell("keep").output == "41\n"


@pytest.mark.parametrize(
    ("name", "source", "needs_workspace"), HOME_ATTACKS, ids=[a[0] for a in HOME_ATTACKS]
)
def test_home_attack_through_the_shell_changes_nothing(
    home_shell, home, name, source, needs_workspace
):
    _attack_home(home_shell, home, source, needs_workspace)


@pytest.mark.parametrize(
    ("name", "source", "needs_workspace"),
    HOME_ATTACKS + RAW_HOME_ATTACKS,
    ids=[a[0] for a in HOME_ATTACKS + RAW_HOME_ATTACKS],
)
def test_home_attack_without_the_checker_changes_nothing(
    raw_home_shell, home, name, source, needs_workspace
):
    _attack_home(raw_home_shell, home, source, needs_workspace)


# A kernel started by an ordinary user has no root to make namespaces with: its own user
# namespace must do. Here the tests run as root, so such a kernel is played by a kernel
# that turns itself into 'nobody' before its start message: it imports what it needs
# first, since the interpreter may live where 'nobody' cannot read (under /root).
AS_NOBODY = """\
#!{python}
import os, socket, sys, threading
from gradshell.kernel import tasks
tasks.limit_blas_threads(os.environ)
from gradshell.kernel import confine, server
from gradshell.shell import files, session
server._warm_up(True)
# What 'nobody' could not even look at (a Python under /root) is read-only all the same,
# and so is this wrapper, the kernel's __main__ here.
read_only = confine.default_read_dirs() + [os.path.dirname(os.path.abspath(__file__))]
confine.default_read_dirs = lambda: list(read_only)
# Its two writable folders, named in its environment; never its working directory ("/").
for folder in (os.environ["HOME"], os.environ["TMPDIR"]):
    os.chown(folder, 65534, 65534)
os.setgroups([])
os.setresgid(65534, 65534, 65534)
os.setresuid(65534, 65534, 65534)
sys.exit(server.main())
"""

KERNEL_USERS = ["this-user", "nobody"]


def _kernel_as(who: str, target: Target, tmp_path, monkeypatch) -> KernelSession:
    """A kernel without the checker, run as this test's user or as 'nobody'."""
    if who == "nobody":
        if os.geteuid() != 0:
            pytest.skip("only root can start a kernel as another user")
        wrapper = tmp_path / "kernel-as-nobody"
        if not wrapper.exists():  # one per test, however many kernels it starts
            wrapper.write_text(AS_NOBODY.format(python=sys.executable))
            wrapper.chmod(0o700)
            monkeypatch.setattr(sys, "executable", str(wrapper))
        # a workspace 'nobody' can reach (the test's own folders are root's alone)
        workdir = Path(tempfile.mkdtemp(prefix="gradshell-nobody-"))
        workdir.chmod(0o755)
        return _kernel(target, checker=False, workdir=workdir)
    return _kernel(target, checker=False)


FILL_THE_TASK_LIMIT = textwrap.dedent(
    """\
    import threading
    stop = threading.Event()
    held = []
    while True:
        worker = threading.Thread(target=stop.wait)
        worker.start()
        held.append(worker)
    """
)


@pytest.mark.parametrize("who", KERNEL_USERS)
def test_threads_stop_at_the_kernels_own_task_limit(target, tmp_path, monkeypatch, who):
    """A loop starting threads stops at the kernel's limit with Python's own error, the
    session goes on, and a second learner's kernel (of the same user when not root)
    gets as many threads while the first holds all of its own."""
    first = _kernel_as(who, target, tmp_path, monkeypatch)
    second = _kernel_as(who, target, tmp_path, monkeypatch)
    try:
        if first.layers["tasks"].startswith("not available"):
            # No count of its own for an ordinary user's kernel here: no limit, and the
            # report says why (a loop would then take the machine's pids: not run).
            assert who == "nobody", first.layers["tasks"]
            return
        filled = first.run_cell(FILL_THE_TASK_LIMIT)
        assert "RuntimeError: can't start new thread" in filled.output
        held = int(first.run_cell("len(held)").output)
        assert tasks.TASK_LIMIT - tasks.BLAS_THREADS <= held < tasks.TASK_LIMIT
        again = second.run_cell(FILL_THE_TASK_LIMIT)
        assert "RuntimeError: can't start new thread" in again.output
        assert second.run_cell("len(held)").output == f"{held}\n"
        for kernel in (first, second):
            # BLAS's pool started before learner code could take its places.
            product = "import numpy as np\nprint((np.ones((400, 400)) @ np.ones((400, 400)))[0, 0])"
            assert kernel.run_cell(product).output == "400.0\n"
            assert kernel.run_cell("stop.set()\nfor w in held:\n    w.join()").error is None
            assert kernel.run_cell("keep").output == "41\n"
            assert kernel.restarts == 0
    finally:
        first.close()
        second.close()


@pytest.mark.parametrize("who", KERNEL_USERS)
def test_an_abstract_socket_bound_in_the_kernel_is_out_of_the_hosts_reach(
    target, tmp_path, monkeypatch, who
):
    """Abstract Unix sockets belong to a network namespace, not to the file system:
    only the kernel's own namespace keeps one it binds from processes on the host."""
    name = f"\0gradshell-test-{secrets.token_hex(6)}"
    with _kernel_as(who, target, tmp_path, monkeypatch) as kernel:
        bound = kernel.run_cell(
            f"import socket\nserver = socket.socket(socket.AF_UNIX)\n"
            f"server.bind({name!r})\nserver.listen(1)"
        )
        assert bound.error is None, bound.output
        host = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            host.connect(name)
            reached = True
        except ConnectionRefusedError:
            reached = False
        finally:
            host.close()
        if kernel.layers["network"].startswith("own network namespace"):
            assert not reached, "the host reached the kernel's abstract socket"
        else:  # an ordinary user without user namespaces: the report must say so
            assert who == "nobody" and "no network namespace" in kernel.layers["network"]
        assert kernel.run_cell("keep").output == "41\n"


# Nothing the kernel sends back may drive the learner's terminal: printed escape
# sequences arrive as visible text with the checker on or off, and a kernel that forges
# its own messages gets no further (only the front end's own colour codes come out).
SGR = re.compile(r"\x1b\[([0-9;]*)m")
HOSTILE = (
    "\x1b]52;c;eA==\x07\x1b[8mhid\x9b2J\u202e\x1b]8;;javascript:alert(1)\x1b\\link"
    "\x1b]8;;\x1b\\\x1b[30;40mdark\x1b[5;7mblink\x1b[0m\x08\rover\n"
)


def _written_with_only_colours(text: str) -> bool:
    """No control character but newline and tab, outside colour codes that show text
    (no hidden 8, blinking 5 or reversed 7, no black on black)."""
    for params in SGR.findall(text):
        codes = params.split(";")
        assert not {"8", "5", "7"} & set(codes), params
        assert not {"30", "40"} <= set(codes), params
    return drives(SGR.sub("", text)) == []


@pytest.mark.parametrize("checker", [True, False], ids=["checker", "no-checker"])
def test_printed_escape_sequences_drive_nothing(target, checker):
    stream = io.StringIO()
    with _kernel(target, checker=checker) as k:
        k.stream = stream
        for attack in ATTACKS:
            # the result keeps what was printed, as data (replay compares it); only
            # what is shown is made visible
            assert attack.forbidden in k.run_cell(attack.source).output, attack.name
        k.run_cell("raise ValueError('<E>' + chr(27) + '[8m')")
        k.read_line = lambda: None
        k.run_cell("input('<Q>' + chr(27) + ']0;title' + chr(7))")
    shown = stream.getvalue()
    assert drives(shown) == [], shown
    for attack in ATTACKS:
        assert attack.expected in shown and attack.forbidden not in shown, attack.name
    assert "ValueError: <E>\\x1b[8m" in shown and "<Q>\\x1b]0;title\\x07" in shown


def test_a_kernel_that_forges_its_messages_drives_nothing(target):
    """Learner code owning the kernel writes streams under every name (the lesson's
    styled one too), asks for input with a hostile prompt, and forges a result whose
    panel text and error carry escapes: the front end shows all of it as text, keeping
    at most colour codes of its own."""
    forge = (
        "import gc\nfrom gradshell.kernel import server\n"
        "ch = [o for o in gc.get_objects() if isinstance(o, server.Channel)][0]\n"
        f"H = {HOSTILE!r}\n"
        "for name in ('out', 'err', 'styled', 'other'):\n"
        "    ch.send({'type': 'stream', 'name': name, 'text': name + H})\n"
        "reply = ch.ask('input', prompt='prompt' + H)\n"
        "ch.send({'type': 'result', 'output': H, 'visual': 'panel' + H, 'exit_code': None, "
        "'error': {'type': 'E' + H, 'message': 'error' + H}, 'state': {}})\n"
    )
    stream = io.StringIO()
    with _kernel(target, checker=False) as k:
        k.stream = stream
        k.display_hints = {"width": 80, "color": True}  # the most the front end allows
        k.read_line = lambda: None
        result = k.run_cell(forge)
        shown = stream.getvalue()
        for what in ("out", "err", "styled", "other", "prompt"):
            assert what in shown, what
        assert _written_with_only_colours(shown), shown
        assert _written_with_only_colours(result.visual), result.visual
        assert "panel" in result.visual and "link" in result.visual
        # the styled texts lose their link (plain text shows its address as text)
        styled = shown.split("styled")[1].split("other")[0]
        assert "javascript" not in result.visual and "javascript" not in styled
        answers = [k.run_cell("keep").output for _ in range(3)]
        assert "41\n" in answers and k.restarts == 0


def test_the_kernel_has_no_terminal_to_write_to(raw_shell):
    """The kernel runs in a session of its own, with no controlling terminal: a learner
    who opens /dev/tty to get past the front end gets an error."""
    r = raw_shell.run_cell("open('/dev/tty', 'w').write('\\x1b]52;c;eA==\\x07')")
    assert r.error is not None and "Error" in r.output
    assert raw_shell.run_cell("keep").output == "41\n"
