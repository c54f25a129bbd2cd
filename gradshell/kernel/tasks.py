"""How many threads one kernel may run, counted for that kernel alone.

Linux limits a user's tasks (threads and processes) with RLIMIT_NPROC, but counts every
task of that user: a limit low enough to stop one learner from taking every pid on a
shared machine would also count the other learners' kernels, which run as the same user.
The limit is therefore set only where the count is the kernel's own:

- started as root, the kernel becomes a user of its own: uid KERNEL_UID_BASE + its pid,
  which no other live process can have (pids are unique while a process lives);
- otherwise it enters a user namespace of its own (`userns`), inside which Linux 5.14
  and later count its tasks apart from every other process of the same user.

Where neither holds, the limit is left as it was and the report says so. The kernel's
BLAS libraries start their worker threads after confinement, so `limit_blas_threads`
keeps their pools well under the limit.
"""

from __future__ import annotations

import os
import resource
from collections.abc import MutableMapping

#: The most tasks (threads, the main one included) one kernel may run. Learner code
#: needs a few threads at most; NumPy's BLAS pool needs up to BLAS_THREADS.
TASK_LIMIT = 64

#: The most threads a BLAS library (OpenBLAS, MKL, OpenMP) starts in the kernel.
BLAS_THREADS = 16

#: A root-started kernel's uid is this plus its pid: 0x70000000..0x703FFFFF, in the
#: range systemd leaves unused (between container ranges and 2**31), so no login or
#: container user of the machine has it.
KERNEL_UID_BASE = 0x70000000

_BLAS_VARIABLES = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS")


def kernel_uid(pid: int) -> int:
    """The uid (and gid) a root-started kernel with process id `pid` becomes."""
    return KERNEL_UID_BASE + pid


def limit_blas_threads(environ: MutableMapping[str, str]) -> None:
    """Keep BLAS thread pools under the task limit: at most BLAS_THREADS threads each,
    fewer where the environment already asks for fewer. Must run before NumPy loads
    (OpenBLAS reads the setting once, when it starts)."""
    wanted = min(os.cpu_count() or 1, BLAS_THREADS)
    for name in _BLAS_VARIABLES:
        try:
            told = int(environ.get(name, ""))
        except ValueError:
            told = 0
        environ[name] = str(told if 0 < told <= wanted else wanted)


def counted_per_user_namespace(release: str | None = None) -> bool:
    """Whether this Linux (its `release`, e.g. '6.8.0-45-generic') counts RLIMIT_NPROC
    per user namespace: 5.14 and later. Before, the count is the user's across every
    namespace, and a limit of TASK_LIMIT would stop a kernel whose user already runs
    more processes from starting any thread."""
    text = os.uname().release if release is None else release
    try:
        major, minor = (int(part) for part in text.split("-")[0].split(".")[:2])
    except ValueError:
        return False
    return (major, minor) >= (5, 14)


def apply_limit(whose: str, limit: int = TASK_LIMIT) -> str:
    """Set RLIMIT_NPROC (soft = hard) to `limit`; the report line. `whose` says why the
    count is this kernel's alone."""
    _, hard = resource.getrlimit(resource.RLIMIT_NPROC)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_NPROC, (limit, limit))
    return f"at most {limit} threads, counted for this kernel alone ({whose})"
