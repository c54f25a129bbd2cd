"""Running independent chunks of a large draw on several threads.

The expensive float kernels (the float32 Box-Muller emulation, the float64 normal path,
the float64 FMA) work chunk by chunk, and the chunks are independent: each one's result
depends only on its own uniforms.  NumPy releases the GIL inside its loops, so a few worker
threads shorten large draws on a multi-core machine without changing a single bit.  The
random words themselves are always drawn first, serially, in stream order.

``GRADSHELL_RNG_THREADS`` (read at import) or ``set_threads()`` sets the number of threads.
The default is 1 (everything on the calling thread): on a shared two-core machine extra
threads measured no faster, while on an idle multi-core machine a few threads shorten 10^6-
element float draws (worth setting there).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

THREADS_ENV_VAR = "GRADSHELL_RNG_THREADS"
MIN_PARALLEL_CHUNKS = 4  # below this many chunks the pool costs more than it saves


def _default_threads() -> int:
    raw = os.environ.get(THREADS_ENV_VAR, "").strip()
    if raw:
        value = int(raw)
        if value < 1:
            raise ValueError(f"{THREADS_ENV_VAR} must be a positive integer, got {raw!r}")
        return value
    return 1


_threads = _default_threads()
_pool: ThreadPoolExecutor | None = None
_lock = threading.Lock()


def get_threads() -> int:
    """Number of threads large draws may use."""
    return _threads


def set_threads(count: int) -> None:
    """Set the number of threads large draws may use (1 disables the pool)."""
    global _threads, _pool
    count = int(count)
    if count < 1:
        raise ValueError(f"thread count must be positive, got {count}")
    with _lock:
        _threads = count
        if _pool is not None:
            _pool.shutdown(wait=True)
            _pool = None


_in_worker = threading.local()


def _run_in_worker(task: Callable[[int], None], i: int) -> None:
    _in_worker.active = True
    task(i)


def run_chunks(task: Callable[[int], None], count: int) -> None:
    """Call ``task(i)`` for ``i in range(count)``, in parallel when worthwhile.

    Calls made from inside a worker run serially, so nested use cannot deadlock the pool.
    """
    global _pool
    if _threads == 1 or count < MIN_PARALLEL_CHUNKS or getattr(_in_worker, "active", False):
        for i in range(count):
            task(i)
        return
    with _lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=_threads, thread_name_prefix="gradshell-rng")
        pool = _pool
    for future in [pool.submit(_run_in_worker, task, i) for i in range(count)]:
        future.result()  # re-raises a worker's exception here
