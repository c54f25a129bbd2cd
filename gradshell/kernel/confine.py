"""The operating-system wall around the kernel process: `confine(policy)`, once, for good.

The kernel calls `confine` after its imports and before the first learner cell. Six
layers, each reported in one line (`ConfineReport.layers`), each independent of the others
so that a machine lacking one still gets the rest:

- rlimits: address space, CPU seconds, file size, open files, no core dumps;
- tasks: at most `tasks.TASK_LIMIT` threads, counted for this kernel alone (see `tasks`);
- network: network and IPC namespaces of its own when the process may make them (root,
  or an ordinary user through a user namespace of its own), and in every case no socket
  but Unix stream ones and no connect() (seccomp), and no TCP bind/connect (Landlock
  ABI 4+);
- privileges: no_new_privs; when root, the scratch directory handed to a user of the
  kernel's own (`tasks.kernel_uid`) and the process turned into that user, with no
  supplementary groups;
- landlock: reads only beneath the read directories, writes only beneath the scratch
  directory (and /dev/null);
- seccomp: no new processes or programs, no tracing, mounts, namespaces, keyrings, BPF,
  io_uring or kernel modules.

Why a small ctypes binding rather than a package: the sandbox is three Landlock system
calls, one seccomp call with a ~100-instruction BPF program built in a few lines, and a
handful of prctl/unshare/capset calls. Doing them through ctypes and the standard library
adds no run-time dependency (gradshell runs on numpy, prompt_toolkit and rich alone) and
nothing to compile. The packaged alternatives each bring a condition we cannot promise:
the libseccomp Python bindings need the libseccomp shared library and its matching
binding, which are neither on PyPI as a wheel nor on every machine; the Python Landlock
packages are young and track fewer ABI versions than the kernels we meet. A binding of
our own asks each Landlock ABI (1, 2, 3, ...) only for the rights it knows, says in words
what holds, and can be read in one sitting by whoever audits the wall.

The order of the layers is part of the design; see `confine`.
"""

from __future__ import annotations

import ctypes
import os
import pwd
import resource
import signal
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from gradshell.kernel import landlock, linux, seccomp, tasks, userns

PR_SET_KEEPCAPS = 8
PR_SET_NO_NEW_PRIVS = 38
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_CLEAR_ALL = 4
CAP_DAC_READ_SEARCH = 2
CAP_SYS_ADMIN = 21
CLONE_NEWNET = 0x40000000
CLONE_NEWIPC = 0x08000000

_DEVICES = (("/dev/null", True), ("/dev/urandom", False))


@dataclass
class ConfinePolicy:
    """What the kernel process may still do once confined."""

    scratch_dir: Path  # the one writable directory (exists already)
    read_dirs: list[Path]  # read-only trees (files allowed too), e.g. default_read_dirs()
    memory_bytes: int | None  # RLIMIT_AS; None: unchanged
    cpu_seconds: int | None  # RLIMIT_CPU soft limit for the kernel's life (hard = soft + 5)
    max_file_bytes: int  # RLIMIT_FSIZE
    max_open_files: int  # RLIMIT_NOFILE
    drop_to_uid: int | None = None  # None: when root, become tasks.kernel_uid(pid)
    write_dirs: list[Path] = field(default_factory=list)  # more writable folders (TMPDIR)


@dataclass
class ConfineReport:
    """Layer name -> one line saying what holds, or why the layer is not available."""

    layers: dict[str, str]


def default_read_dirs() -> list[Path]:
    """What Python, NumPy, gradshell and its lessons read once confined.

    The interpreter's prefixes and site-packages, the gradshell package and lessons, the
    system libraries and time zones, /proc/self, the CPU topology that OpenBLAS reads
    when it starts its threads, and the two devices learner code may open. Paths that do
    not exist here are left out; a path beneath another listed one is folded into it.
    """
    import gradshell

    candidates = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix]
    candidates += [p for p in sys.path if p and Path(p).name in ("site-packages", "dist-packages")]
    candidates.append(Path(gradshell.__file__).parent)
    try:
        from gradshell.learn.lesson import lessons_dir

        candidates.append(lessons_dir())
    except (ImportError, OSError):  # pragma: no cover - a gradshell without its course
        pass
    candidates += [
        "/usr/lib",
        "/usr/lib64",
        "/lib",
        "/lib64",
        "/usr/share/zoneinfo",
        "/etc/ld.so.cache",
        "/etc/localtime",
        "/dev/null",
        "/dev/urandom",
        "/proc/self",
        "/sys/devices/system/cpu",
    ]
    found: list[Path] = []
    for candidate in candidates:
        path = Path(candidate)
        if os.path.exists(path) and path not in found:  # False, not an error, when out of reach
            found.append(path)
    # Fold by real location (/lib -> /usr/lib, the venv inside a prefix), keeping the
    # spelling first given: Landlock rules follow the real path anyway.
    real = {path: Path(os.path.realpath(path)) for path in found}
    return [
        path
        for path in found
        if not any(
            other is not path
            and real[path].is_relative_to(real[other])
            and (real[path] != real[other] or found.index(other) < found.index(path))
            for other in found
        )
    ]


def confine(policy: ConfinePolicy) -> ConfineReport:
    """Confine this process for good; what holds, layer by layer.

    Must run on the main thread while it is the process's only thread (OpenBLAS's pool
    is stopped here and started again, confined, at the end): Landlock and
    the network namespace bind the calling thread and the threads it creates later, not
    threads already running. A layer this machine lacks is reported as not available;
    one it has but refuses raises RuntimeError, and the process should then exit.

    The order: resource limits first (process-wide, nothing after needs more); then the
    network namespace and the scratch directory's owner, which need root; then the
    switch to the kernel's own user; then, where that switch did not happen (not root),
    a user namespace of its own, in which an ordinary user may make the network
    namespace and after which RLIMIT_NPROC counts this kernel's tasks alone (it is set
    only once inside: the new namespace takes its creator's limit as its ceiling); then
    Landlock (it needs the no_new_privs set with the switch, and is installed by the
    unprivileged process so no later step can undo it); seccomp last, since its filter
    refuses `unshare` and friends that the steps before it use.
    """
    if not sys.platform.startswith("linux"):
        not_linux = "not available: not Linux"
        return ConfineReport(
            {
                "rlimits": _apply("rlimits", _limit_resources, policy),
                "tasks": not_linux,
                "network": not_linux,
                "privileges": not_linux,
                "landlock": not_linux,
                "seccomp": not_linux,
            }
        )
    abi = landlock.abi_version()
    seccomp_missing = seccomp.available()
    may_unshare = bool(linux.effective_capabilities() & (1 << CAP_SYS_ADMIN))
    # Every path needs one thread: Landlock, the network namespace, or a user namespace.
    blas = _stop_blas_threads()
    _require_one_thread()
    reads = [Path(p) for p in policy.read_dirs]
    layers: dict[str, str] = {}
    layers["rlimits"] = _apply("rlimits", _limit_resources, policy)
    namespace = _isolate_network() if may_unshare else None
    own_user = os.geteuid() == 0 and policy.drop_to_uid is None
    layers["privileges"] = _apply("privileges", _drop_privileges, policy, reads, abi is not None)
    if own_user:
        layers["tasks"] = _apply(
            "tasks", tasks.apply_limit, f"uid {os.getuid()}, a user of its own"
        )
    else:
        layers["tasks"], namespace = _own_user_namespace(namespace)
    if abi is None:
        layers["landlock"] = "not available: kernel without Landlock (needs Linux 5.13+)"
    else:
        layers["landlock"] = _apply(
            "landlock",
            landlock.restrict,
            abi,
            [p for p in reads if str(p) not in dict(_DEVICES)],
            [Path(policy.scratch_dir), *map(Path, policy.write_dirs)],
            [(Path(p), writable) for p, writable in _DEVICES],
        )
    layers["seccomp"] = seccomp_missing or _apply("seccomp", seccomp.install)
    if namespace is None:  # root without CAP_SYS_ADMIN
        namespace = "no network namespace (not permitted)"
    layers["network"] = _network_line(namespace, abi, seccomp_missing is None)
    _start_blas_threads(blas)
    return ConfineReport({name: layers[name] for name in _ORDER})


_ORDER = ("rlimits", "tasks", "network", "privileges", "landlock", "seccomp")


def _apply(layer: str, step, *args) -> str:
    """Run one layer's step; an OSError from the kernel becomes RuntimeError naming it."""
    try:
        return step(*args)
    except OSError as exc:
        raise RuntimeError(f"sandbox layer {layer!r} could not be applied: {exc}") from exc


# --- threads ----------------------------------------------------------------------------


def _stop_blas_threads() -> list[ctypes.CDLL]:
    """Stop OpenBLAS's worker threads; the libraries whose pools were stopped."""
    fields = (line.split(None, 5) for line in linux.read_bytes("/proc/self/maps").splitlines())
    libraries = {os.fsdecode(f[5].strip()) for f in fields if len(f) == 6 and f[5][:1] == b"/"}
    stopped = []
    for path in sorted(libraries):
        if "openblas" not in Path(path).name.lower():
            continue
        try:
            library = ctypes.CDLL(path)
        except OSError:  # a mapping of a file since deleted or replaced
            continue
        shutdown = getattr(library, "blas_thread_shutdown_", None)
        if shutdown is not None:
            shutdown()
            stopped.append(library)
    return stopped


def _start_blas_threads(libraries: list[ctypes.CDLL]) -> None:
    """Start the stopped pools again, now confined. At once rather than at the next
    product: a pool started lazily while learner threads fill the task limit could not
    get its threads, and OpenBLAS answers that by raising SIGINT."""
    for library in libraries:
        start = getattr(library, "blas_thread_init", None)
        if start is not None:
            start()


def _require_one_thread(wait: float = 5.0) -> None:
    if threading.current_thread() is not threading.main_thread():
        raise RuntimeError("confine() must be called from the main thread")
    # Stopped BLAS workers take a moment to exit, longer on a busy machine: wait for them.
    deadline = time.monotonic() + wait
    while True:
        others = [tid for tid in linux.thread_ids() if tid != os.getpid()]
        if not others or time.monotonic() >= deadline:
            break
        time.sleep(0.005)
    if others:
        names = []
        for tid in others:
            try:
                names.append(os.fsdecode(linux.read_bytes(f"/proc/self/task/{tid}/comm").strip()))
            except OSError:
                names.append(str(tid))
        raise RuntimeError(
            "confine() must run while the process has one thread (Landlock and new namespaces "
            f"would not bind threads already running); running: {', '.join(names)}"
        )


# --- rlimits ----------------------------------------------------------------------------


def _limit_resources(policy: ConfinePolicy) -> str:
    """Set the limits, soft = hard (CPU: hard 5 s later, SIGXCPU then SIGKILL)."""
    if threading.current_thread() is threading.main_thread():
        # Past RLIMIT_FSIZE a write then fails with EFBIG (an OSError the learner sees)
        # instead of SIGXFSZ killing the kernel.
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    words = []
    _set_limit(resource.RLIMIT_CORE, 0, 0)
    if policy.memory_bytes is not None:
        in_use = _address_space_in_use()
        if in_use is not None and policy.memory_bytes <= in_use:
            raise ValueError(
                f"memory_bytes={policy.memory_bytes} is below the {in_use} bytes "
                "this process has mapped already"
            )
        soft, _ = _set_limit(resource.RLIMIT_AS, policy.memory_bytes, policy.memory_bytes)
        words.append(f"address space {_size(soft)}")
    if policy.cpu_seconds is not None:
        soft, hard = _set_limit(resource.RLIMIT_CPU, policy.cpu_seconds, policy.cpu_seconds + 5)
        words.append(f"CPU {soft} s (killed at {hard} s)")
    soft, _ = _set_limit(resource.RLIMIT_FSIZE, policy.max_file_bytes, policy.max_file_bytes)
    words.append(f"files up to {_size(soft)}")
    soft, _ = _set_limit(resource.RLIMIT_NOFILE, policy.max_open_files, policy.max_open_files)
    words.append(f"{soft} open files")
    words.append("no core dumps")
    if _first_to_end_when_memory_runs_out():
        words.append("ended first if the machine runs out of memory")
    return ", ".join(words)


def _first_to_end_when_memory_runs_out() -> bool:
    """Make this process the kernel's out-of-memory killer's first choice.

    The address-space limit is set generously (a share of the machine's memory, and
    several learners' kernels share one machine), so memory may still run out while a
    kernel grows: then the kernel must go, not the front end, another learner's kernel
    or the notebook server. Raising one's own score needs no privilege (lowering it
    would, so learner code cannot undo it)."""
    try:
        with open("/proc/self/oom_score_adj", "w") as f:
            f.write("1000")
    except OSError:
        return False
    return True


def _set_limit(which: int, soft: int, hard: int) -> tuple[int, int]:
    """Lower a limit (never above the current hard limit, which we could not raise)."""
    _, current_hard = resource.getrlimit(which)
    if current_hard != resource.RLIM_INFINITY:
        hard = min(hard, current_hard)
    soft = min(soft, hard)
    resource.setrlimit(which, (soft, hard))
    return soft, hard


def _address_space_in_use() -> int | None:
    try:
        kib = linux.status_field("VmSize")
    except OSError:
        return None
    return int(kib.split()[0]) * 1024 if kib else None


def _size(n: int) -> str:
    for unit, scale in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n} bytes"


# --- tasks ------------------------------------------------------------------------------


def _own_user_namespace(namespace: str | None) -> tuple[str, str | None]:
    """For a kernel that did not become a user of its own: a user namespace of its own,
    in which RLIMIT_NPROC counts this kernel's tasks alone and an ordinary user may make
    the network namespace (`namespace`, None when none was made yet). The lines for the
    tasks layer and the namespace."""
    if linux.effective_capabilities():
        why = "a user namespace would take away the capability kept for reading"
    else:
        why = userns.refused_here()
    if why is None:
        try:
            userns.enter()
        except OSError as exc:
            why = f"user namespaces refused: {os.strerror(exc.errno or 0)}"
    if why is not None:
        shared = f"the count would include every process of uid {os.getuid()}"
        return (
            f"not available ({why}); without a user namespace {shared}",
            namespace or f"no network namespace (not root; {why})",
        )
    if namespace is None:
        namespace = _isolate_network()
        if namespace.startswith("own "):
            namespace += ", made in a user namespace of its own"
    _apply("tasks", userns.drop_capabilities)
    if not tasks.counted_per_user_namespace():
        return "not available (Linux before 5.14 counts a user's tasks together)", namespace
    return _apply("tasks", tasks.apply_limit, "a user namespace of its own"), namespace


# --- network ----------------------------------------------------------------------------


def _isolate_network() -> str:
    """A network namespace of our own (only a loopback interface, and it is down), and an
    IPC namespace, so SysV shared memory and message queues reach no other process.

    A refusal is reported, not raised: containers and user namespaces may refuse new
    namespaces even to root (or to a user namespace's owner), and the socket filter
    still keeps the network out.
    """
    try:
        linux.unshare(CLONE_NEWNET | CLONE_NEWIPC)
    except OSError as exc:
        return f"no network namespace (refused: {os.strerror(exc.errno or 0)})"
    return "own network namespace (only a loopback, down) and IPC namespace"


def _network_line(namespace: str, abi: int | None, filtered: bool) -> str:
    """The network layer in words: the namespace, the socket filter, Landlock's TCP rules."""
    words = [namespace]
    if filtered:
        words.append("socket() refused for every family but AF_UNIX (streams), connect() refused")
    if abi is not None and abi >= 4:
        words.append("TCP bind/connect denied by Landlock")
    if len(words) == 1 and namespace.startswith("no "):
        return f"not available: {namespace}, no seccomp and no Landlock network rules here"
    return "; ".join(words)


# --- privileges -------------------------------------------------------------------------


def _drop_privileges(policy: ConfinePolicy, reads: list[Path], landlocked: bool) -> str:
    """no_new_privs; when root, become the target user with no groups and no capabilities.

    One exception: when a read directory is out of the target user's reach (a Python
    installed under /root, say) and Landlock will confine reads, the process keeps
    CAP_DAC_READ_SEARCH alone — it may then read what Landlock allows whatever the
    owner, and nothing else (open_by_handle_at, the one call that capability opens
    beyond path checks, is refused by seccomp).
    """
    linux.prctl(PR_SET_NO_NEW_PRIVS, 1)
    if os.geteuid() != 0:
        if policy.drop_to_uid not in (None, os.getuid()):
            raise RuntimeError(f"cannot switch to uid {policy.drop_to_uid}: not running as root")
        return f"uid {os.getuid()} (not root, nothing to drop); no_new_privs"
    uid, gid = _target_user(policy.drop_to_uid)
    for folder in (policy.scratch_dir, *policy.write_dirs):
        _chown_tree(Path(folder), uid, gid)
    unreachable = [p for p in reads if not _reachable(p, uid, gid)]
    if not _reachable(Path(policy.scratch_dir), uid, gid):
        unreachable.append(Path(policy.scratch_dir))
    keep = CAP_DAC_READ_SEARCH if unreachable and landlocked else None
    linux.drop_bounding_set(keep)
    linux.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL)
    if keep is not None:
        linux.prctl(PR_SET_KEEPCAPS, 1)
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)
    if keep is not None:
        linux.set_capabilities(1 << keep)
        linux.prctl(PR_SET_KEEPCAPS, 0)
    expected = 0 if keep is None else 1 << keep
    if (
        os.getresuid() != (uid, uid, uid)
        or os.getresgid() != (gid, gid, gid)
        or os.getgroups()
        or linux.effective_capabilities() != expected
    ):
        raise OSError(1, "the switch of user did not take")
    words = [f"uid {uid}, gid {gid}, no supplementary groups, no_new_privs"]
    if keep is None:
        words.append("no capabilities")
        if unreachable:
            words.append(f"cannot read {', '.join(map(str, unreachable))}")
    else:
        words.append(
            "only CAP_DAC_READ_SEARCH kept (reads stay within Landlock's trees) because "
            f"uid {uid} cannot reach {', '.join(map(str, unreachable[:3]))}"
            + (" …" if len(unreachable) > 3 else "")
        )
    return "; ".join(words)


def _target_user(drop_to_uid: int | None) -> tuple[int, int]:
    """(uid, gid) to become: a user of the kernel's own by default (`tasks.kernel_uid`,
    whose task count is this kernel's alone), else `drop_to_uid` and its own group."""
    if drop_to_uid is None:
        own = tasks.kernel_uid(os.getpid())
        return own, own
    try:
        entry = pwd.getpwuid(drop_to_uid)
        return entry.pw_uid, entry.pw_gid
    except KeyError:
        return drop_to_uid, drop_to_uid


def _chown_tree(root: Path, uid: int, gid: int) -> None:
    os.chown(root, uid, gid)
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            os.lchown(os.path.join(folder, name), uid, gid)


def _reachable(path: Path, uid: int, gid: int) -> bool:
    """Whether `uid`/`gid` (no other groups) may reach and read `path`, by its mode bits."""
    try:
        real = Path(os.path.realpath(path))
        chain = [*reversed(real.parents), real]
        for step in chain:
            info = os.stat(step)
            if info.st_uid == uid:
                bits = info.st_mode >> 6
            elif info.st_gid == gid:
                bits = info.st_mode >> 3
            else:
                bits = info.st_mode
            is_dir = os.path.isdir(step)
            need = 0o1 if step != real else (0o5 if is_dir else 0o4)
            if bits & need != need:
                return False
    except OSError:
        return True  # a missing path gets no rule and needs no reach
    return True
