"""How many intra-op threads PyTorch's CPU kernels would use, and how they split work.

Several kernels reproduce the order in which PyTorch adds numbers, and above
``GRAIN_SIZE`` elements that order depends on how ``at::parallel_for`` splits a range
among OpenMP threads. The thread count and the split live here, in the core, so that
both the core's kernels and the ops' reductions follow the same setting.
"""

from __future__ import annotations

import os

GRAIN_SIZE = 32768  # at::internal::GRAIN_SIZE: below this a reduction runs on one thread

_threads: int | None = None


def _default_threads() -> int:
    """The intra-op thread count PyTorch starts with: OMP_NUM_THREADS / MKL_NUM_THREADS,
    else the number of physical cores this process may run on."""
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        value = os.environ.get(var, "")
        if value.isdigit() and int(value) > 0:
            return int(value)
    try:
        cpus = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1
    cores = set()
    for cpu in cpus:
        base = f"/sys/devices/system/cpu/cpu{cpu}/topology/"
        try:
            with open(base + "physical_package_id") as f1, open(base + "core_id") as f2:
                cores.add((f1.read().strip(), f2.read().strip()))
        except OSError:
            cores.add(("cpu", str(cpu)))
    return max(1, len(cores))


def get_num_threads() -> int:
    """The thread count whose work split the sums reproduce (PyTorch's default unless set)."""
    global _threads
    if _threads is None:
        _threads = _default_threads()
    return _threads


def set_num_threads(n: int) -> None:
    """Reproduce PyTorch running with `n` intra-op threads (as torch.set_num_threads(n))."""
    global _threads
    if int(n) < 1:
        raise RuntimeError("set_num_threads expects a positive integer")
    _threads = int(n)


def _chunks(n: int, grain: int, threads: int) -> list[tuple[int, int]]:
    """at::parallel_for's split of range(n) among OpenMP threads."""
    if n <= grain or threads == 1:
        return [(0, n)]
    nt = min(threads, -(-n // grain))
    size = -(-n // nt)
    return [(t * size, min(n, t * size + size)) for t in range(nt) if t * size < n]
