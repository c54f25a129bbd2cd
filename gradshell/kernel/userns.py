"""A user namespace of the kernel's own, made without privileges.

Two things in the sandbox need one when the kernel is not root. Since Linux 5.14 the
kernel counts RLIMIT_NPROC per user namespace, so inside a namespace of its own only
the kernel's own threads count against its limit, not those of every process of the same
user. And the namespace's capabilities let an ordinary user make network and IPC
namespaces, so that an abstract Unix socket the kernel binds cannot be reached from
outside. The kernel's uid and gid are mapped to themselves: files, `os.getuid()` and
Landlock see the same ids as before. The capabilities the namespace grants are dropped
again as soon as the namespaces are made.
"""

from __future__ import annotations

import errno
import os

from gradshell.kernel import linux

CLONE_NEWUSER = 0x10000000
PR_GET_DUMPABLE = 3
PR_SET_DUMPABLE = 4
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_CLEAR_ALL = 4


def refused_here() -> str | None:
    """Why this machine refuses unprivileged user namespaces, when its settings say so
    (None: nothing says so; `enter` may still be refused)."""
    for path, why in (
        ("/proc/sys/user/max_user_namespaces", "user namespaces are switched off"),
        ("/proc/sys/kernel/unprivileged_userns_clone", "unprivileged user namespaces are off"),
    ):
        try:
            if int(linux.read_bytes(path)) == 0:
                return why
        except (OSError, ValueError):
            continue  # a kernel without the setting
    return None


def enter() -> None:
    """Move this process (it must have one thread) into a new user namespace, with its
    uid and gid mapped to themselves and setgroups() denied (which an unprivileged
    mapping requires). OSError when the kernel refuses the namespace; RuntimeError when
    it made the namespace but refused the mapping, since an unmapped process cannot
    create files and must not go on."""
    uid, gid = os.geteuid(), os.getegid()
    linux.unshare(CLONE_NEWUSER)
    # A process that switched users is not dumpable, and then its /proc files belong to
    # root, whom the new namespace does not map: the maps could not be written.
    dumpable = linux.prctl(PR_GET_DUMPABLE)
    if not dumpable:
        linux.prctl(PR_SET_DUMPABLE, 1)
    try:
        for name, text in (
            ("setgroups", "deny"),
            ("uid_map", f"{uid} {uid} 1\n"),
            ("gid_map", f"{gid} {gid} 1\n"),
        ):
            fd = os.open(f"/proc/self/{name}", os.O_WRONLY | os.O_CLOEXEC)
            try:
                os.write(fd, text.encode())
            finally:
                os.close(fd)
    except OSError as exc:
        raise RuntimeError(
            f"a user namespace was made but its id maps were refused: {exc}"
        ) from exc
    finally:
        if not dumpable:
            linux.prctl(PR_SET_DUMPABLE, 0)


def drop_capabilities() -> None:
    """Give up every capability the namespace granted: bounding set, ambient set, and
    the effective, permitted and inheritable sets (OSError if one stays)."""
    linux.drop_bounding_set()
    linux.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL)
    linux.set_capabilities(0)
    if linux.effective_capabilities() != 0:
        raise OSError(errno.EPERM, "the user namespace's capabilities could not be dropped")
