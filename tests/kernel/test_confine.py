"""The kernel's OS sandbox (`gradshell.kernel.confine`), attacked from inside.

Every confined test runs in a fresh `python -c` child that imports NumPy and
`gradshell.torch`, confines itself, prints its report, tries one kind of attack and
prints what happened — the pytest process itself is never confined. Where a layer is
missing on the machine, the test checks that the report says so instead.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

from gradshell.kernel import confine as confine_module
from gradshell.kernel import landlock, linux, seccomp, tasks, userns

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux sandbox")

LANDLOCK = landlock.abi_version() if sys.platform.startswith("linux") else None
SECCOMP = sys.platform.startswith("linux") and seccomp.available() is None
ROOT = os.geteuid() == 0
# An ordinary user may make a user namespace here (the settings do not forbid it).
USER_NAMESPACES = sys.platform.startswith("linux") and userns.refused_here() is None
# ... and counts the tasks in one apart from the same user's others (Linux 5.14+).
OWN_TASK_COUNT = USER_NAMESPACES and tasks.counted_per_user_namespace()

PRELUDE = """
import json, os, socket, subprocess, sys, threading
from pathlib import Path
import numpy as np
import gradshell.torch as torch
from gradshell.kernel.confine import ConfinePolicy, confine, default_read_dirs

args = json.loads(sys.argv[1])
scratch = Path(args["scratch"])
reads = default_read_dirs()
if args.get("lacking"):  # play a machine without Landlock and seccomp
    from gradshell.kernel import landlock, seccomp
    landlock.abi_version = lambda: None
    seccomp.available = lambda: "not available: kernel without seccomp"
if args.get("pty"):  # a terminal the kernel still holds, as it would its inherited stderr
    import fcntl, termios
    master, terminal = os.openpty()
    os.setsid()  # make it our controlling terminal, where TIOCSTI works without privileges
    fcntl.ioctl(terminal, termios.TIOCSCTTY, 0)
if args.get("become") is not None:  # an ordinary user's kernel: no root to start with
    os.setgroups([])
    os.setresgid(args["become"], args["become"], args["become"])
    os.setresuid(args["become"], args["become"], args["become"])
threads_before = len(os.listdir("/proc/self/task"))
report = confine(ConfinePolicy(
    scratch_dir=scratch,
    read_dirs=reads,
    memory_bytes=args.get("memory_bytes", 4 << 30),
    cpu_seconds=60,
    max_file_bytes=args.get("max_file_bytes", 256 << 20),
    max_open_files=256,
))
print(json.dumps(report.layers))
results = {}

def attempt(name, action):
    try:
        results[name] = {"ok": True, "value": action()}
    except BaseException as exc:
        results[name] = {"ok": False, "error": type(exc).__name__,
                         "errno": getattr(exc, "errno", None)}
"""

EPILOGUE = """
print(json.dumps(results, default=repr))
"""


@pytest.fixture
def open_dir():
    """A directory anyone may read and write, directly under /tmp: outside every read
    tree, so only Landlock (not file modes) can keep the confined child out of it."""
    folder = Path(tempfile.mkdtemp(prefix="gradshell-confine-", dir="/tmp"))
    folder.chmod(0o777)
    secret = folder / "secret.txt"
    secret.write_text("not for the sandbox\n")
    secret.chmod(0o666)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _child(tmp_path: Path, attack: str, scratch: Path | None, policy: dict) -> list[str]:
    """The command line of a confined child running `attack` (its scratch made if need be)."""
    if scratch is None:
        scratch = tmp_path / "scratch"
        scratch.mkdir(exist_ok=True)
    args = json.dumps({"scratch": str(scratch), **policy})
    return [sys.executable, "-c", PRELUDE + textwrap.dedent(attack) + EPILOGUE, args]


def _kernel_environment() -> dict[str, str]:
    """The environment with the BLAS thread settings the kernel's entry point makes."""
    env = dict(os.environ)
    tasks.limit_blas_threads(env)
    return env


def run_confined(
    tmp_path: Path, attack: str, scratch: Path | None = None, **policy
) -> tuple[dict, dict]:
    """Run `attack` in a fresh confined child; (report layers, results by attempt name)."""
    done = subprocess.run(
        _child(tmp_path, attack, scratch, policy),
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env=_kernel_environment(),
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    report_line, results_line = done.stdout.strip().splitlines()[-2:]
    return json.loads(report_line), json.loads(results_line)


class Held:
    """A confined child paused halfway: its attack printed its results so far (`HOLD`)
    and waits for `release()` to go on, so that the test can act meanwhile."""

    def __init__(self, tmp_path: Path, attack: str, scratch: Path | None = None, **policy):
        self.proc = subprocess.Popen(
            _child(tmp_path, attack, scratch, policy),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=tmp_path,
            env=_kernel_environment(),
        )
        assert self.proc.stdout is not None
        lines = [self.proc.stdout.readline() for _ in range(2)]
        if not all(lines):
            self.proc.kill()
            _, err = self.proc.communicate(timeout=60)
            raise AssertionError(err)
        self.layers, self.results = (json.loads(line) for line in lines)

    def release(self) -> dict:
        """Let the child go on; its final results."""
        out, err = self.proc.communicate("\n", timeout=120)
        assert self.proc.returncode == 0, err
        return json.loads(out.strip().splitlines()[-1])


#: In an attack run by `Held`: print the results so far, then wait for the release.
HOLD = """
print(json.dumps(results, default=repr), flush=True)
sys.stdin.readline()
"""


def refused(result: dict) -> bool:
    """The attempt failed with a permission error (EPERM or EACCES)."""
    return not result["ok"] and result["error"] == "PermissionError"


def test_report_names_each_layer_and_what_holds(tmp_path):
    layers, _ = run_confined(tmp_path, "")
    assert list(layers) == ["rlimits", "tasks", "network", "privileges", "landlock", "seccomp"]
    assert "address space 4 GiB" in layers["rlimits"]
    assert "256 open files" in layers["rlimits"]
    if LANDLOCK is None:
        assert layers["landlock"].startswith("not available")
    else:
        assert layers["landlock"].startswith(f"ABI {LANDLOCK}: reads limited to ")
    if SECCOMP:
        assert "sockets: Unix stream only, no connect()" in layers["seccomp"]
    else:
        assert layers["seccomp"].startswith("not available")
    if ROOT:
        assert layers["network"].startswith("own network namespace")
        uid = int(layers["privileges"].split(",")[0].removeprefix("uid "))
        assert tasks.KERNEL_UID_BASE < uid < tasks.KERNEL_UID_BASE + (1 << 22)
        assert layers["tasks"] == (
            f"at most 64 threads, counted for this kernel alone (uid {uid}, a user of its own)"
        )


def test_writes_land_only_in_the_scratch_directory(tmp_path, open_dir):
    escape = Path(f"/tmp/{open_dir.name}-escape.txt")  # a fresh name, straight in /tmp
    try:
        layers, results = run_confined(
            tmp_path,
            f"""
            attempt("inside", lambda: (scratch / "notes.txt").write_text("kept"))
            attempt("nested", lambda: (scratch / "sub").mkdir() or (scratch / "sub" / "f").write_text("x"))
            attempt("rename", lambda: os.rename(scratch / "notes.txt", scratch / "sub" / "n.txt"))
            attempt("open_dir", lambda: open({str(open_dir / "new.txt")!r}, "w").write("x"))
            attempt("overwrite", lambda: open({str(open_dir / "secret.txt")!r}, "a").write("x"))
            attempt("tmp", lambda: open({str(escape)!r}, "w").write("x"))
            attempt("devnull", lambda: open("/dev/null", "w").write("x"))
            """,
        )
        escaped = escape.exists()
    finally:
        escape.unlink(missing_ok=True)
    assert results["inside"] == {"ok": True, "value": 4}
    assert results["nested"]["ok"] and results["rename"]["ok"]
    assert (tmp_path / "scratch" / "sub" / "n.txt").read_text() == "kept"
    assert results["devnull"]["ok"]
    if LANDLOCK is not None:
        # /tmp lets anyone create files, and open_dir lets anyone write: only Landlock refuses.
        assert refused(results["tmp"]) and not escaped
        assert refused(results["open_dir"]) and refused(results["overwrite"])
        assert not (open_dir / "new.txt").exists()
        assert (open_dir / "secret.txt").read_text() == "not for the sandbox\n"
    else:
        assert layers["landlock"].startswith("not available")


def test_reads_stay_inside_the_read_trees(tmp_path, open_dir):
    layers, results = run_confined(
        tmp_path,
        f"""
        attempt("passwd", lambda: open("/etc/passwd").read())
        attempt("open_dir", lambda: open({str(open_dir / "secret.txt")!r}).read())
        attempt("listing", lambda: os.listdir("/etc"))
        attempt("stdlib", lambda: __import__("decimal").Decimal("1.5") * 2 and "imported")
        attempt("own_status", lambda: "Seccomp" in open("/proc/self/status").read())
        """,
    )
    # Lazy imports from the standard library and /proc/self keep working.
    assert results["stdlib"] == {"ok": True, "value": "imported"}
    assert results["own_status"] == {"ok": True, "value": True}
    if LANDLOCK is not None:
        assert refused(results["passwd"])
        assert refused(results["open_dir"])
        assert refused(results["listing"])
    else:
        assert layers["landlock"].startswith("not available")


def test_no_socket_but_unix_streams_and_no_connect(tmp_path, open_dir):
    # A server outside the sandbox on a socket file anyone may use (like a system bus).
    stream_path, datagram_path = open_dir / "server.sock", open_dir / "log.sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(stream_path))
    server.listen(1)
    server.settimeout(0.2)
    log = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    log.bind(str(datagram_path))
    log.settimeout(0.2)
    for path in (stream_path, datagram_path):
        path.chmod(0o777)
    try:
        layers, results = run_confined(
            tmp_path,
            f"""
            attempt("inet", lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM))
            attempt("inet_udp", lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM))
            attempt("inet6", lambda: socket.socket(socket.AF_INET6, socket.SOCK_STREAM))
            attempt("netlink", lambda: socket.socket(socket.AF_NETLINK, socket.SOCK_RAW))
            attempt("packet", lambda: socket.socket(socket.AF_PACKET, socket.SOCK_RAW))
            def unix_pair():
                a, b = socket.socketpair()
                a.sendall(b"ping")
                return b.recv(4).decode()
            attempt("unix_pair", unix_pair)
            attempt("connect", lambda: socket.socket(socket.AF_UNIX).connect({str(stream_path)!r}))
            def datagram():
                sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
                return sock.sendto(b"forged", {str(datagram_path)!r})
            attempt("datagram", datagram)
            """,
        )
        with pytest.raises(TimeoutError):
            server.accept()
        with pytest.raises(TimeoutError):
            log.recv(100)
    finally:
        server.close()
        log.close()
    assert results["unix_pair"] == {"ok": True, "value": "ping"}
    if SECCOMP:
        for attack in ("inet", "inet_udp", "inet6", "netlink", "packet", "connect", "datagram"):
            assert refused(results[attack]), attack
    else:
        assert layers["seccomp"].startswith("not available")


def test_no_new_processes_or_programs(tmp_path):
    marker = tmp_path / "scratch" / "ran.txt"
    layers, results = run_confined(
        tmp_path,
        f"""
        import subprocess
        def fork():
            pid = os.fork()
            if pid == 0:
                os._exit(0)
            return pid
        attempt("fork", fork)
        attempt("subprocess", lambda: subprocess.run(["true"]).returncode)
        attempt("system", lambda: os.system("touch {marker}"))
        attempt("execv", lambda: os.execv("/bin/true", ["true"]))
        attempt("spawn", lambda: os.posix_spawn("/bin/true", ["true"], {{}}))
        """,
    )
    if SECCOMP:
        for name in ("fork", "subprocess", "execv", "spawn"):
            assert refused(results[name]), name
        # system() cannot start its shell: the C library answers "exit status 127".
        assert results["system"] == {"ok": True, "value": 127 << 8}
        assert not marker.exists()
    else:
        assert layers["seccomp"].startswith("not available")


def test_no_typing_into_a_terminal(tmp_path):
    layers, results = run_confined(
        tmp_path,
        """
        attempt("tiocsti", lambda: fcntl.ioctl(terminal, termios.TIOCSTI, b"x"))
        attempt("size", lambda: len(fcntl.ioctl(terminal, termios.TIOCGWINSZ, b"\\0" * 8)))
        attempt("isatty", lambda: os.isatty(terminal))
        """,
        pty=True,
    )
    assert results["size"] == {"ok": True, "value": 8}
    assert results["isatty"] == {"ok": True, "value": True}
    if SECCOMP:
        assert refused(results["tiocsti"])
    else:
        assert layers["seccomp"].startswith("not available")


def test_threads_and_blas_threads_still_work_and_are_confined(tmp_path):
    _, results = run_confined(
        tmp_path,
        """
        box = []
        worker = threading.Thread(target=lambda: box.append(sum(range(10))))
        worker.start()
        worker.join()
        attempt("thread", lambda: box)
        a = np.arange(512 * 512, dtype=np.float64).reshape(512, 512) / 512**2
        attempt("matmul", lambda: float((a @ a.T).trace()))
        attempt("expected", lambda: float((a * a).sum()))
        attempt("threads", lambda: (threads_before, len(os.listdir("/proc/self/task"))))
        def states():
            found = []
            for tid in os.listdir("/proc/self/task"):
                fields = dict(line.split(":", 1) for line in
                              open(f"/proc/self/task/{tid}/status").read().splitlines())
                found.append((fields["NoNewPrivs"].strip(), fields["Seccomp"].strip()))
            return found
        attempt("states", states)
        """,
    )
    assert results["thread"] == {"ok": True, "value": [45]}
    assert results["matmul"]["value"] == pytest.approx(results["expected"]["value"])
    before, after = results["threads"]["value"]
    # OpenBLAS's pool was stopped for confine() and started again for the product.
    assert after >= before
    expected = ("1", "2") if SECCOMP else ("1", "0")
    assert all(tuple(state) == expected for state in results["states"]["value"])


def test_address_space_limit_turns_a_huge_array_into_memory_error(tmp_path):
    _, results = run_confined(
        tmp_path,
        """
        attempt("huge", lambda: np.ones(1 << 31).nbytes)
        attempt("small", lambda: int(np.ones(1 << 20).sum()))
        """,
        memory_bytes=2 << 30,
    )
    assert results["huge"]["error"] == "MemoryError"
    assert results["small"] == {"ok": True, "value": 1 << 20}


def test_file_size_limit_is_an_error_not_a_kill(tmp_path):
    _, results = run_confined(
        tmp_path,
        """
        attempt("big", lambda: (scratch / "big.bin").write_bytes(b"x" * (2 << 20)))
        """,
        max_file_bytes=1 << 20,
    )
    assert results["big"]["error"] == "OSError"
    assert results["big"]["errno"] == 27  # EFBIG


def test_root_becomes_a_user_of_its_own(tmp_path):
    _, results = run_confined(
        tmp_path,
        """
        attempt("ids", lambda: (os.getuid(), os.geteuid(), os.getgid(), os.getgroups()))
        attempt("pid", os.getpid)
        attempt("setuid", lambda: os.setuid(0))
        attempt("owner", lambda: scratch.stat().st_uid)
        """,
    )
    uid, euid, gid, groups = results["ids"]["value"]
    if ROOT:
        # Its pid makes it unique among the live kernels, so its task count is its own.
        own = tasks.kernel_uid(results["pid"]["value"])
        assert (uid, euid, gid, groups) == (own, own, own, [])
        assert results["owner"]["value"] == own
        assert refused(results["setuid"])
    else:
        assert uid == os.getuid()


@pytest.fixture
def nobody_scratch(open_dir):
    """A scratch directory for a child that turns itself into an ordinary user first."""
    scratch = open_dir / "scratch"
    scratch.mkdir()
    os.chown(scratch, 65534, 65534)
    return scratch


@pytest.mark.skipif(not ROOT, reason="the test makes its child an ordinary user")
def test_an_ordinary_user_gets_every_layer(tmp_path, open_dir, nobody_scratch):
    layers, results = run_confined(
        tmp_path,
        f"""
        attempt("inside", lambda: (scratch / "a.txt").write_text("ok"))
        attempt("outside", lambda: open({str(open_dir / "b.txt")!r}, "w").write("x"))
        attempt("passwd", lambda: open("/etc/passwd").read())
        attempt("inet", lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM))
        attempt("fork", os.fork)
        a = np.ones((512, 512))
        attempt("matmul", lambda: float((a @ a)[0, 0]))
        attempt("ids", lambda: (os.getuid(), os.getgid()))
        attempt("caps", lambda: [line.split()[1] for line in open("/proc/self/status")
                                 if line.startswith(("CapEff", "CapPrm", "CapBnd"))])
        """,
        scratch=nobody_scratch,
        become=65534,
    )
    assert layers["privileges"] == "uid 65534 (not root, nothing to drop); no_new_privs"
    # The user namespace maps the kernel's ids to themselves and leaves no capability.
    assert results["ids"]["value"] == [65534, 65534]
    assert results["caps"]["value"] == ["0000000000000000"] * 3
    if USER_NAMESPACES:
        assert layers["network"].startswith(
            "own network namespace (only a loopback, down) and IPC namespace, "
            "made in a user namespace of its own"
        )
        if OWN_TASK_COUNT:
            assert layers["tasks"] == (
                "at most 64 threads, counted for this kernel alone (a user namespace of its own)"
            )
        else:
            assert layers["tasks"].startswith("not available (Linux before 5.14")
    else:
        assert layers["network"].startswith("no network namespace (not root)")
        assert layers["tasks"].startswith("not available (")
    assert results["inside"] == {"ok": True, "value": 2}
    assert results["matmul"] == {"ok": True, "value": 512.0}
    if LANDLOCK is not None:
        assert refused(results["outside"]) and refused(results["passwd"])
    if SECCOMP:
        assert refused(results["inet"]) and refused(results["fork"])


# Start threads until the task limit refuses one, hold them while the test looks, then
# let them end and start one more.
FILL_THE_TASK_LIMIT = (
    """
stop = threading.Event()
held = []
def fill():
    while True:
        worker = threading.Thread(target=stop.wait)
        worker.start()
        held.append(worker)
try:
    fill()
except RuntimeError as exc:
    results["refusal"] = str(exc)
results["held"] = len(held)
a = np.ones((512, 512))
attempt("matmul_while_full", lambda: float((a @ a)[0, 0]))
"""
    + HOLD
    + """
stop.set()
for worker in held:
    worker.join()
box = []
worker = threading.Thread(target=lambda: box.append("ran"))
worker.start()
worker.join()
attempt("thread_after", lambda: box)
"""
)


def _as(who: str, nobody_scratch: Path) -> dict:
    if who == "root":
        return {}
    return {"scratch": nobody_scratch, "become": 65534}


@pytest.mark.parametrize("who", ["root", "ordinary user"])
def test_threads_stop_at_the_task_limit_and_each_kernel_counts_its_own(
    tmp_path, nobody_scratch, who
):
    if who == "ordinary user" and not ROOT:
        pytest.skip("the test makes its child an ordinary user")
    first = Held(tmp_path, FILL_THE_TASK_LIMIT, **_as(who, nobody_scratch))
    try:
        if "not available" in first.layers["tasks"]:
            assert who == "ordinary user" and not OWN_TASK_COUNT, first.layers["tasks"]
            return
        # A second kernel, of the same user when not root, while the first holds its
        # threads: it gets as many, so the first one's do not count against it.
        second = Held(tmp_path, FILL_THE_TASK_LIMIT, **_as(who, nobody_scratch))
        second_after = second.release()
    finally:
        first_after = first.release()
    held = first.results["held"]
    assert first.results["refusal"] == "can't start new thread"
    # The main thread and BLAS's pool (at most BLAS_THREADS) count too.
    assert tasks.TASK_LIMIT - tasks.BLAS_THREADS <= held < tasks.TASK_LIMIT
    assert second.results["held"] == held
    assert second.results["refusal"] == "can't start new thread"
    for run, after in ((first, first_after), (second, second_after)):
        # BLAS's pool was started before the learner's threads could take its places.
        assert run.results["matmul_while_full"] == {"ok": True, "value": 512.0}
        assert after["thread_after"] == {"ok": True, "value": ["ran"]}


@pytest.mark.parametrize("who", ["root", "ordinary user"])
def test_an_abstract_socket_the_kernel_binds_is_out_of_the_hosts_reach(
    tmp_path, nobody_scratch, who
):
    if who == "ordinary user" and not ROOT:
        pytest.skip("the test makes its child an ordinary user")
    name = f"\0gradshell-test-{os.urandom(6).hex()}"
    attack = f"""
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        attempt("bind", lambda: server.bind({name!r}))
        attempt("listen", lambda: server.listen(1))
        """
    kernel = Held(tmp_path, textwrap.dedent(attack) + HOLD, **_as(who, nobody_scratch))
    try:
        assert kernel.results["bind"]["ok"] and kernel.results["listen"]["ok"]
        host = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            host.connect(name)
            reached = True
        except ConnectionRefusedError:
            reached = False
        finally:
            host.close()
    finally:
        kernel.release()
    if kernel.layers["network"].startswith("own network namespace"):
        assert not reached, "the host reached the kernel's abstract socket"
    else:
        # Without a network namespace the report must say so, and here it holds not.
        assert kernel.layers["network"].startswith("no network namespace")
        assert who == "ordinary user" and not USER_NAMESPACES


def test_a_machine_without_landlock_or_seccomp_gets_the_other_layers(tmp_path):
    layers, results = run_confined(
        tmp_path,
        """
        attempt("status", lambda: [line for line in open("/proc/self/status").read().splitlines()
                                   if line.startswith(("Seccomp:", "CapEff:"))])
        a = np.ones((64, 64))
        attempt("matmul", lambda: float((a @ a)[0, 0]))
        """,
        lacking=True,
    )
    assert layers["landlock"] == "not available: kernel without Landlock (needs Linux 5.13+)"
    assert layers["seccomp"] == "not available: kernel without seccomp"
    assert layers["rlimits"].startswith("address space 4 GiB")
    assert results["matmul"] == {"ok": True, "value": 64.0}
    seccomp_line, caps_line = sorted(results["status"]["value"], reverse=True)
    assert seccomp_line.split() == ["Seccomp:", "0"]
    if ROOT:
        # Without Landlock to bound reads, no capability is kept, whatever is out of reach.
        assert "no capabilities" in layers["privileges"]
        assert caps_line.split() == ["CapEff:", "0000000000000000"]
        assert (
            layers["network"] == "own network namespace (only a loopback, down) and IPC namespace"
        )


def test_gradshell_torch_autograd_works_after_confinement(tmp_path):
    _, results = run_confined(
        tmp_path,
        """
        def autograd():
            x = torch.ones(2, requires_grad=True)
            y = (x * x * 3).sum()
            y.backward()
            return [x.grad.tolist(), repr(y)]
        attempt("autograd", autograd)
        """,
    )
    grad, printed = results["autograd"]["value"]
    assert grad == [6.0, 6.0]
    assert printed == "tensor(6., grad_fn=<SumBackward0>)"


def test_confine_refuses_while_other_threads_run(tmp_path):
    code = textwrap.dedent(
        f"""
        import threading
        from pathlib import Path
        from gradshell.kernel.confine import ConfinePolicy, confine, default_read_dirs
        stop = threading.Event()
        threading.Thread(target=stop.wait, name="helper").start()
        try:
            confine(ConfinePolicy({str(tmp_path)!r}, default_read_dirs(), None, None, 1 << 20, 64))
        except RuntimeError as exc:
            print("refused:", exc)
        stop.set()
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert "refused: confine() must run while the process has one thread" in done.stdout


def test_default_read_dirs_cover_python_and_gradshell_but_not_etc():
    import gradshell

    reads = [Path(os.path.realpath(p)) for p in confine_module.default_read_dirs()]

    def covered(path) -> bool:
        real = Path(os.path.realpath(path))
        return any(real.is_relative_to(tree) for tree in reads)

    assert covered(sys.base_prefix) and covered(sys.prefix)
    assert covered(Path(gradshell.__file__).parent)
    assert covered(json.__file__)
    assert not covered("/etc/passwd") and not covered("/etc")
    # No tree is listed twice, nor beneath another.
    assert not any(a != b and a.is_relative_to(b) for a in reads for b in reads)
    assert len(set(reads)) == len(reads)


@pytest.mark.parametrize(
    ("release", "counted"),
    [
        ("6.18.44-fc-v1300", True),
        ("5.14.0-1-generic", True),
        ("5.13.19", False),
        ("4.19.0-25-amd64", False),
        ("not-a-version", False),
    ],
)
def test_the_task_limit_is_per_namespace_from_linux_5_14(release, counted):
    assert tasks.counted_per_user_namespace(release) is counted


@pytest.mark.parametrize("machine", sorted(linux.SYSCALLS))
def test_seccomp_program_is_well_formed(machine):
    insns = seccomp.program(machine)
    assert len(insns) < 4096  # BPF_MAXINSNS
    for index, (code, jt, jf, _) in enumerate(insns):
        if code & 0x07 == 0x05:  # a jump: both targets inside the program
            assert index + 1 + max(jt, jf) < len(insns)
    assert insns[-1] == (0x06, 0, 0, seccomp.SECCOMP_RET_ALLOW)
    constants = {k for code, _, _, k in insns if code == 0x15}
    for name in ("execve", "clone3", "ptrace", "mount", "unshare", "bpf", "socket"):
        assert linux.SYSCALLS[machine][name] in constants, name
