"""seccomp-bpf: refuse the system calls a learner's code never needs, for every thread.

The filter is a short classic-BPF program the kernel runs on each system call. It kills
the process on a foreign calling convention (a wrong audit architecture, or x86_64's x32
numbers), refuses new processes, program execution, tracing, mounts, namespaces, kernel
keyrings, BPF, io_uring, module loading and `connect` with EPERM, lets `clone` through only
for new threads, lets `socket`/`socketpair` through only for Unix stream sockets, refuses
the two terminal ioctls that inject input (TIOCSTI, TIOCLINUX), and allows everything else.
`clone3` answers ENOSYS: its flags live in memory a filter cannot read, and glibc then
falls back to `clone`, whose flags it can.
"""

from __future__ import annotations

import ctypes
import errno

from gradshell.kernel import linux

# Refused with EPERM whatever their arguments; a name absent on this architecture is skipped.
DENIED = (
    "execve",
    "execveat",
    "fork",
    "vfork",
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "unshare",
    "setns",
    "keyctl",
    "add_key",
    "request_key",
    "bpf",
    "perf_event_open",
    "kexec_load",
    "kexec_file_load",
    "init_module",
    "finit_module",
    "delete_module",
    "reboot",
    "swapon",
    "swapoff",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "userfaultfd",
    "personality",
    # The new mount API, and two ways around path checks: file handles (which
    # CAP_DAC_READ_SEARCH would otherwise open by inode) and stealing another process's fds.
    "open_tree",
    "move_mount",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "mount_setattr",
    "open_by_handle_at",
    "pidfd_getfd",
    "acct",
    # The only sockets left are Unix ones; any server they could connect to is outside.
    "connect",
)

AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
X32_SYSCALL_BIT = 0x40000000
CLONE_THREAD = 0x00010000
# CLONE_NEWTIME, NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET: a namespace.
CLONE_NAMESPACES = 0x00000080 | 0x00020000 | 0x7E000000
AF_UNIX = 1
SOCK_STREAM = 1
SOCK_TYPE_MASK = 0xF
# ioctl requests that type into, or drive, a terminal: TIOCSTI would let the kernel push
# keystrokes into the learner's shell through a terminal it still holds.
TIOCSTI = 0x5412
TIOCLINUX = 0x541C

SECCOMP_SET_MODE_FILTER = 1
SECCOMP_FILTER_FLAG_TSYNC = 1
SECCOMP_RET_KILL_PROCESS = 0x80000000
SECCOMP_RET_ERRNO = 0x00050000
SECCOMP_RET_ALLOW = 0x7FFF0000
PR_GET_SECCOMP = 21
PR_SET_SECCOMP = 22

# Classic BPF opcodes (linux/filter.h).
_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_JSET_K = 0x45
_RET_K = 0x06
_AND_K = 0x54

# Offsets in struct seccomp_data: int nr; u32 arch; u64 ip; u64 args[6]. Both supported
# architectures are little-endian, so an argument's low 32 bits sit at its offset.
_NR, _ARCH, _ARG0, _ARG1 = 0, 4, 16, 24


class _SockFilter(ctypes.Structure):
    _fields_ = [
        ("code", ctypes.c_uint16),
        ("jt", ctypes.c_uint8),
        ("jf", ctypes.c_uint8),
        ("k", ctypes.c_uint32),
    ]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_SockFilter))]


def available() -> str | None:
    """None when a filter can be installed here; otherwise why not, in words."""
    machine = linux.arch()
    if machine is None:
        return "not available: seccomp filter known for x86_64 and aarch64 only"
    try:
        linux.prctl(PR_GET_SECCOMP)
    except OSError as exc:
        if exc.errno == errno.EINVAL:
            return "not available: kernel without seccomp"
        raise
    return None


def program(machine: str) -> list[tuple[int, int, int, int]]:
    """The filter for `machine` as (code, jt, jf, k) instructions."""
    calls = linux.SYSCALLS[machine]
    deny = SECCOMP_RET_ERRNO | errno.EPERM
    insns = [
        (_LD_W_ABS, 0, 0, _ARCH),
        (_JEQ_K, 1, 0, AUDIT_ARCH[machine]),
        (_RET_K, 0, 0, SECCOMP_RET_KILL_PROCESS),
        (_LD_W_ABS, 0, 0, _NR),
    ]
    if machine == "x86_64":
        # x32 system calls are x86_64 numbers with this bit set: another table, refused.
        insns += [(_JGE_K, 0, 1, X32_SYSCALL_BIT), (_RET_K, 0, 0, deny)]
    for name in DENIED:
        if name in calls:
            insns += [(_JEQ_K, 0, 1, calls[name]), (_RET_K, 0, 0, deny)]
    insns += [(_JEQ_K, 0, 1, calls["clone3"]), (_RET_K, 0, 0, SECCOMP_RET_ERRNO | errno.ENOSYS)]
    # clone(flags, ...): a thread shares the process (CLONE_THREAD); anything else is a
    # process. A thread in namespaces of its own is refused too.
    insns += [
        (_JEQ_K, 0, 5, calls["clone"]),
        (_LD_W_ABS, 0, 0, _ARG0),
        (_JSET_K, 2, 0, CLONE_NAMESPACES),
        (_JSET_K, 0, 1, CLONE_THREAD),
        (_RET_K, 0, 0, SECCOMP_RET_ALLOW),
        (_RET_K, 0, 0, deny),
    ]
    # socket(family, type, ...) and socketpair(family, type, ...): Unix stream sockets only
    # (socket.socketpair() between threads); no network family of any kind, and no Unix
    # datagrams, whose sendto()/sendmsg() could name any socket file (/dev/log, say). With
    # connect() refused above, no Unix socket reaches a server outside the sandbox —
    # Landlock does not guard connecting to a socket file. Each block is entered with
    # A = nr, and its jump past itself leaves A untouched for the next.
    for name in ("socket", "socketpair"):
        insns += [
            (_JEQ_K, 0, 7, calls[name]),
            (_LD_W_ABS, 0, 0, _ARG0),
            (_JEQ_K, 0, 4, AF_UNIX),
            (_LD_W_ABS, 0, 0, _ARG1),
            (_AND_K, 0, 0, SOCK_TYPE_MASK),  # SOCK_NONBLOCK and SOCK_CLOEXEC may be or-ed in
            (_JEQ_K, 0, 1, SOCK_STREAM),
            (_RET_K, 0, 0, SECCOMP_RET_ALLOW),
            (_RET_K, 0, 0, deny),
        ]
    insns += [
        (_JEQ_K, 0, 4, calls["ioctl"]),
        (_LD_W_ABS, 0, 0, _ARG1),
        (_JEQ_K, 1, 0, TIOCSTI),
        (_JEQ_K, 0, 1, TIOCLINUX),
        (_RET_K, 0, 0, deny),
    ]
    insns.append((_RET_K, 0, 0, SECCOMP_RET_ALLOW))
    return insns


def install() -> str:
    """Install the filter on every thread of the process (no_new_privs must be set).

    Returns one line saying what holds; raises OSError if the kernel refuses.
    """
    machine = linux.arch()
    assert machine is not None, "call available() first"
    insns = program(machine)
    filters = (_SockFilter * len(insns))(*(_SockFilter(*insn) for insn in insns))
    prog = _SockFprog(len(insns), filters)
    try:
        # TSYNC: threads that already exist (a BLAS pool, say) get the filter too.
        synced = linux.syscall(
            "seccomp",
            ctypes.c_uint(SECCOMP_SET_MODE_FILTER),
            ctypes.c_uint(SECCOMP_FILTER_FLAG_TSYNC),
            ctypes.byref(prog),
        )
    except OSError as exc:
        if exc.errno != errno.ENOSYS:
            raise
        # Kernels before 3.17 have only the prctl form, which filters this thread alone.
        linux.prctl(PR_SET_SECCOMP, 2, ctypes.addressof(prog))
        synced = 0
    if synced:
        raise OSError(errno.EBUSY, f"seccomp: thread {synced} could not take the filter")
    return (
        f"{len(insns)}-instruction filter on every thread: no new processes or programs "
        "(fork, exec, clone without CLONE_THREAD), no ptrace, mounts, namespaces, keyrings, "
        "BPF, io_uring or modules; sockets: Unix stream only, no connect()"
    )
