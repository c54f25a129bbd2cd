"""Raw Linux system calls through ctypes, for the sandbox layers (`landlock`, `seccomp`).

Only what the confinement needs: the machine's architecture, its system-call numbers for
the calls the sandbox names, a `syscall()` that turns a failure into an `OSError`, and
the few prctl/unshare/capset helpers the layers share.
"""

from __future__ import annotations

import ctypes
import os
import platform

# The numbers differ per architecture; these are the two the sandbox knows
# (x86_64: arch/x86/entry/syscalls/syscall_64.tbl, aarch64: include/uapi/asm-generic/unistd.h).
# aarch64 has no fork/vfork: glibc builds them on clone there.
SYSCALLS: dict[str, dict[str, int]] = {
    "x86_64": {
        "execve": 59,
        "execveat": 322,
        "fork": 57,
        "vfork": 58,
        "clone": 56,
        "clone3": 435,
        "ptrace": 101,
        "process_vm_readv": 310,
        "process_vm_writev": 311,
        "mount": 165,
        "umount2": 166,
        "pivot_root": 155,
        "chroot": 161,
        "unshare": 272,
        "setns": 308,
        "keyctl": 250,
        "add_key": 248,
        "request_key": 249,
        "bpf": 321,
        "perf_event_open": 298,
        "kexec_load": 246,
        "kexec_file_load": 320,
        "init_module": 175,
        "finit_module": 313,
        "delete_module": 176,
        "reboot": 169,
        "swapon": 167,
        "swapoff": 168,
        "io_uring_setup": 425,
        "io_uring_enter": 426,
        "io_uring_register": 427,
        "userfaultfd": 323,
        "personality": 135,
        "socket": 41,
        "socketpair": 53,
        "connect": 42,
        "ioctl": 16,
        "open_by_handle_at": 304,
        "open_tree": 428,
        "move_mount": 429,
        "fsopen": 430,
        "fsconfig": 431,
        "fsmount": 432,
        "fspick": 433,
        "mount_setattr": 442,
        "pidfd_getfd": 438,
        "acct": 163,
        "capset": 126,
        "seccomp": 317,
        "landlock_create_ruleset": 444,
        "landlock_add_rule": 445,
        "landlock_restrict_self": 446,
    },
    "aarch64": {
        "execve": 221,
        "execveat": 281,
        "clone": 220,
        "clone3": 435,
        "ptrace": 117,
        "process_vm_readv": 270,
        "process_vm_writev": 271,
        "mount": 40,
        "umount2": 39,
        "pivot_root": 41,
        "chroot": 51,
        "unshare": 97,
        "setns": 268,
        "keyctl": 219,
        "add_key": 217,
        "request_key": 218,
        "bpf": 280,
        "perf_event_open": 241,
        "kexec_load": 104,
        "kexec_file_load": 294,
        "init_module": 105,
        "finit_module": 273,
        "delete_module": 106,
        "reboot": 142,
        "swapon": 224,
        "swapoff": 225,
        "io_uring_setup": 425,
        "io_uring_enter": 426,
        "io_uring_register": 427,
        "userfaultfd": 282,
        "personality": 92,
        "socket": 198,
        "socketpair": 199,
        "connect": 203,
        "ioctl": 29,
        "open_by_handle_at": 265,
        "open_tree": 428,
        "move_mount": 429,
        "fsopen": 430,
        "fsconfig": 431,
        "fsmount": 432,
        "fspick": 433,
        "mount_setattr": 442,
        "pidfd_getfd": 438,
        "acct": 89,
        "capset": 91,
        "seccomp": 277,
        "landlock_create_ruleset": 444,
        "landlock_add_rule": 445,
        "landlock_restrict_self": 446,
    },
}

PR_CAPBSET_DROP = 24
LINUX_CAPABILITY_VERSION_3 = 0x20080522

_ARCH_ALIASES = {"x86_64": "x86_64", "amd64": "x86_64", "aarch64": "aarch64", "arm64": "aarch64"}

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


def arch() -> str | None:
    """'x86_64' or 'aarch64' when this is 64-bit Linux on one of them, else None."""
    if not platform.system() == "Linux" or ctypes.sizeof(ctypes.c_void_p) != 8:
        return None
    return _ARCH_ALIASES.get(platform.machine().lower())


def number(name: str) -> int | None:
    """The system-call number of `name` on this machine (None: no such call here)."""
    machine = arch()
    return SYSCALLS[machine].get(name) if machine else None


def syscall(name: str, *args: object) -> int:
    """Call the system call `name` with integer or pointer `args`; its result, or OSError."""
    nr = number(name)
    if nr is None:
        raise OSError(38, f"{name}: {os.strerror(38)}")  # ENOSYS
    result = _libc.syscall(ctypes.c_long(nr), *args)
    if result < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{name}: {os.strerror(err)}")
    return result


def prctl(option: int, arg2: int = 0, arg3: int = 0, arg4: int = 0, arg5: int = 0) -> int:
    """prctl(2) with unsigned-long arguments; its result, or OSError."""
    ulong = ctypes.c_ulong
    result = _libc.prctl(ctypes.c_int(option), ulong(arg2), ulong(arg3), ulong(arg4), ulong(arg5))
    if result < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"prctl({option}): {os.strerror(err)}")
    return result


def unshare(flags: int) -> None:
    """unshare(2) through libc; OSError on failure."""
    if _libc.unshare(ctypes.c_int(flags)) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"unshare: {os.strerror(err)}")


def thread_ids() -> list[int]:
    """The ids of this process's threads (from /proc/self/task)."""
    return sorted(int(tid) for tid in os.listdir("/proc/self/task"))


def status_field(name: str, tid: int | None = None) -> str | None:
    """One field of /proc/self/status (or of thread `tid`), e.g. 'CapEff'; None if absent."""
    where = f"/proc/self/task/{tid}/status" if tid is not None else "/proc/self/status"
    for line in read_bytes(where).decode("utf-8", "replace").splitlines():
        key, _, value = line.partition(":")
        if key == name:
            return value.strip()
    return None


def read_bytes(path: str) -> bytes:
    """A whole (small, /proc) file as bytes.

    Bytes, because a text file would look up its codec by importing it, and the
    confinement may run where the standard library can no longer be read.
    """
    with open(path, "rb") as stream:
        return stream.read()


def drop_bounding_set(keep: int | None = None) -> None:
    """Drop every capability from the bounding set but `keep` (no exec could regain them)."""
    last = int(read_bytes("/proc/sys/kernel/cap_last_cap"))
    for cap in range(last + 1):
        if cap != keep:
            prctl(PR_CAPBSET_DROP, cap)


def effective_capabilities() -> int:
    """This thread's effective capability set as a bit mask."""
    return int(status_field("CapEff") or "0", 16)


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [
        ("effective", ctypes.c_uint32),
        ("permitted", ctypes.c_uint32),
        ("inheritable", ctypes.c_uint32),
    ]


def set_capabilities(mask: int) -> None:
    """Make `mask` this thread's effective and permitted sets (nothing inheritable)."""
    header = _CapHeader(LINUX_CAPABILITY_VERSION_3, 0)
    data = (_CapData * 2)()
    for i in range(2):
        word = (mask >> (32 * i)) & 0xFFFFFFFF
        data[i].effective = data[i].permitted = word
    syscall("capset", ctypes.byref(header), data)
