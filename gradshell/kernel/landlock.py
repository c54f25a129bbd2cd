"""Landlock (Linux >= 5.13): limit which files the process may read and write, for good.

A ruleset names every access right the running kernel's Landlock ABI knows ("handled");
rules then give some of them back beneath chosen directories. Whatever a rule does not
give back is denied to this thread and every thread or process it later creates, root or
not, and cannot be undone. From ABI 4 the same ruleset can deny TCP bind/connect, and
from ABI 6 it scopes abstract Unix sockets and signals to the sandbox itself.
"""

from __future__ import annotations

import ctypes
import errno
import os
import stat
from collections.abc import Iterable
from pathlib import Path

from gradshell.kernel import linux

CREATE_RULESET_VERSION = 1 << 0
RULE_PATH_BENEATH = 1

# Filesystem rights (include/uapi/linux/landlock.h), with the ABI that introduced them.
FS_EXECUTE = 1 << 0
FS_WRITE_FILE = 1 << 1
FS_READ_FILE = 1 << 2
FS_READ_DIR = 1 << 3
FS_REMOVE_DIR = 1 << 4
FS_REMOVE_FILE = 1 << 5
FS_MAKE_CHAR = 1 << 6
FS_MAKE_DIR = 1 << 7
FS_MAKE_REG = 1 << 8
FS_MAKE_SOCK = 1 << 9
FS_MAKE_FIFO = 1 << 10
FS_MAKE_BLOCK = 1 << 11
FS_MAKE_SYM = 1 << 12
FS_REFER = 1 << 13  # ABI 2: rename/link across directories
FS_TRUNCATE = 1 << 14  # ABI 3
FS_IOCTL_DEV = 1 << 15  # ABI 5
NET_BIND_TCP = 1 << 0  # ABI 4
NET_CONNECT_TCP = 1 << 1  # ABI 4
SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0  # ABI 6
SCOPE_SIGNAL = 1 << 1  # ABI 6

# Rights that make sense on a file (not a directory): a rule on a file may hold only these.
_FILE_RIGHTS = FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),  # ABI 4
        ("scoped", ctypes.c_uint64),  # ABI 6
    ]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1  # the kernel's struct is __attribute__((packed))
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def abi_version() -> int | None:
    """The Landlock ABI this kernel offers (1, 2, ...), or None when it has no Landlock.

    None covers a kernel built without Landlock (ENOSYS), one that has it but not enabled
    at boot (EOPNOTSUPP), and an architecture whose system calls we do not know.
    """
    if linux.arch() is None:
        return None
    try:
        return linux.syscall(
            "landlock_create_ruleset",
            None,
            ctypes.c_size_t(0),
            ctypes.c_uint32(CREATE_RULESET_VERSION),
        )
    except OSError as exc:
        if exc.errno in (errno.ENOSYS, errno.EOPNOTSUPP):
            return None
        raise


def handled_fs(abi: int) -> int:
    """Every filesystem right ABI `abi` knows: the kernel refuses a ruleset naming more."""
    rights = (FS_MAKE_SYM << 1) - 1
    if abi >= 2:
        rights |= FS_REFER
    if abi >= 3:
        rights |= FS_TRUNCATE
    if abi >= 5:
        rights |= FS_IOCTL_DEV
    return rights


def read_rights() -> int:
    """Read a file, list a directory, and execute (`mmap` of a shared library needs no more)."""
    return FS_EXECUTE | FS_READ_FILE | FS_READ_DIR


def write_rights(abi: int) -> int:
    """Everything in a writable tree except executing and making device nodes."""
    return handled_fs(abi) & ~(FS_EXECUTE | FS_MAKE_CHAR | FS_MAKE_BLOCK | FS_IOCTL_DEV)


def device_rights(abi: int, *, write: bool) -> int:
    """What /dev/null (write) or /dev/urandom (read only) needs: reading, and maybe writing."""
    rights = FS_READ_FILE
    if write:
        rights |= FS_WRITE_FILE | (FS_TRUNCATE if abi >= 3 else 0)
    if abi >= 5:
        rights |= FS_IOCTL_DEV  # isatty() and friends on a device opened later
    return rights


def restrict(
    abi: int,
    reads: Iterable[Path],
    writes: Iterable[Path],
    devices: Iterable[tuple[Path, bool]] = (),
) -> str:
    """Confine this thread for good: read under `reads`, write under `writes`, no TCP.

    `devices` are (path, writable) pairs for device files such as /dev/null. Paths that do
    not exist, and read paths this process may not even open, are left out. Returns one line saying what now holds. Raises OSError when the
    kernel refuses a step; the caller must have set no_new_privs first.
    """
    attr = _RulesetAttr(handled_access_fs=handled_fs(abi))
    size = 8
    if abi >= 4:
        attr.handled_access_net = NET_BIND_TCP | NET_CONNECT_TCP  # no net rule: no TCP at all
        size = 16
    if abi >= 6:
        attr.scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL
        size = 24
    ruleset = linux.syscall(
        "landlock_create_ruleset", ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0)
    )
    try:
        read_trees, out_of_reach = _add_rules(ruleset, reads, read_rights(), may_skip=True)
        write_trees, _ = _add_rules(ruleset, writes, write_rights(abi))
        for device, writable in devices:
            _add_rules(ruleset, [device], device_rights(abi, write=writable), may_skip=True)
        linux.syscall("landlock_restrict_self", ctypes.c_int(ruleset), ctypes.c_uint32(0))
    finally:
        os.close(ruleset)
    words = [
        f"ABI {abi}: reads limited to {read_trees} trees",
        f"writes to {_trees(write_trees, 'the scratch directory')}",
    ]
    if out_of_reach:
        # Not a hole: the process could not open them, so it cannot read beneath them either.
        words[0] += f" ({len(out_of_reach)} more out of reach already: {', '.join(out_of_reach)})"
    if abi >= 4:
        words.append("TCP bind/connect denied")
    if abi >= 6:
        words.append("abstract Unix sockets and signals scoped to the sandbox")
    return ", ".join(words)


def _trees(count: int, one: str) -> str:
    return one if count == 1 else f"{count} trees"


def _add_rules(
    ruleset: int, paths: Iterable[Path], rights: int, *, may_skip: bool = False
) -> tuple[int, list[str]]:
    """Add one rule per existing path; (how many were added, paths skipped as unreadable).

    With `may_skip`, a path the process may not open is skipped rather than an error.
    """
    added, skipped = 0, []
    for path in paths:
        try:
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        except FileNotFoundError:
            continue
        except PermissionError:
            if not may_skip:
                raise
            skipped.append(str(path))
            continue
        try:
            allowed = rights if stat.S_ISDIR(os.fstat(fd).st_mode) else rights & _FILE_RIGHTS
            rule = _PathBeneathAttr(allowed_access=allowed, parent_fd=fd)
            linux.syscall(
                "landlock_add_rule",
                ctypes.c_int(ruleset),
                ctypes.c_int(RULE_PATH_BENEATH),
                ctypes.byref(rule),
                ctypes.c_uint32(0),
            )
        finally:
            os.close(fd)
        added += 1
    return added, skipped
