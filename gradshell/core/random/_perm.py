"""``randperm``: PyTorch's forward Fisher-Yates shuffle, resolved without a Python loop.

For ``n < 214748364`` PyTorch starts from ``arange(n)`` and, for ``i = 0 .. n-2``, draws one
32-bit word, sets ``j = i + word % (n - i)`` and swaps ``a[i]`` with ``a[j]``.  Larger ``n``
use the inside-out variant with one ``random64()`` per element.

The vectorised form uses two facts: step ``i`` only touches positions ``>= i``, and position
``i`` is final once step ``i`` is done.  Let ``A(p)`` be the value at ``p`` when step ``p``
begins: it is ``p`` unless an earlier step swapped into ``p``, in which case it is ``A(m)``
for the last such step ``m``.  Step ``i`` then outputs the value sitting at ``j_i``: ``A(m)``
for the last earlier step ``m`` with the same target, or ``j_i`` itself.  "Last earlier step
with the same target" comes from one sort of ``(target, step)`` keys, and the ``A`` chains
are followed by pointer jumping.
"""

from __future__ import annotations

import numpy as np

from ._engine import Engine

BIG_N = (2**32 - 1) // 20  # from here on PyTorch switches to the inside-out shuffle
_LOOP_BELOW = 600  # a plain Python loop is faster for small n


def randperm(engine: Engine, n: int) -> np.ndarray:
    """The int64 permutation that ``torch.randperm(n)`` returns; consumes the same words."""
    if n >= BIG_N:
        return _inside_out(engine, n)
    if n < _LOOP_BELOW:
        return _loop(engine, n)
    words = engine.u32(n - 1)
    span = np.arange(n, 1, -1, dtype=np.uint32)  # n - i for i = 0 .. n-2
    j = (words % span).astype(np.int64)
    j += np.arange(n - 1, dtype=np.int64)
    return _resolve(j, n)


def _loop(engine: Engine, n: int) -> np.ndarray:
    a = list(range(n))
    if n > 1:
        words = engine.raw(n - 1)
        targets = words % np.arange(n, 1, -1, dtype=np.uint64)
        targets += np.arange(n - 1, dtype=np.uint64)
        for i, k in enumerate(targets.tolist()):
            a[i], a[k] = a[k], a[i]
    return np.array(a, dtype=np.int64)


def _resolve(j: np.ndarray, n: int) -> np.ndarray:
    m = n - 1
    bits = max(1, int(n).bit_length())
    steps = np.arange(m, dtype=np.int64)
    keys = np.sort((j << bits) | steps)  # unique keys: no stability needed
    tgt = keys >> bits
    stp = keys & ((1 << bits) - 1)
    same = np.empty(m, dtype=bool)
    same[0] = False
    np.equal(tgt[1:], tgt[:-1], out=same[1:])
    # prev_same[step] = the previous step with the same target, or -1
    prev_sorted = np.where(same, np.concatenate(([0], stp[:-1])), -1)
    prev_same = np.empty(m, dtype=np.int64)
    prev_same[stp] = prev_sorted
    # last_before[p] = the last step m < p that targeted p: the last of p's group, unless that
    # is step p itself (a self-swap), in which case the one before it.
    last_before = np.arange(n, dtype=np.int64)  # "none" points at itself (a root)
    is_last = np.empty(m, dtype=bool)
    is_last[-1] = True
    np.not_equal(tgt[1:], tgt[:-1], out=is_last[:-1])
    lp = np.flatnonzero(is_last)
    g_tgt, g_step, g_prev = tgt[lp], stp[lp], prev_sorted[lp]
    chosen = np.where(g_step == g_tgt, g_prev, g_step)
    ok = chosen >= 0
    last_before[g_tgt[ok]] = chosen[ok]
    # A(p) = A(last_before[p]); roots (no earlier swap into p) hold their own index.
    ptr = last_before
    active = np.flatnonzero(ptr != np.arange(n))
    while active.size:
        nxt = ptr[ptr[active]]
        ptr[active] = nxt
        active = active[ptr[nxt] != nxt]
    out = np.empty(n, dtype=np.int64)
    has_prev = prev_same >= 0
    out[:m] = np.where(has_prev, ptr[np.where(has_prev, prev_same, 0)], j)
    out[m] = ptr[m]
    return out


def _inside_out(engine: Engine, n: int) -> np.ndarray:
    # Only reachable for n >= 214,748,364 (more than 1.7 GB per int64 array); correct but
    # it runs at Python speed, one element at a time.
    a = np.empty(n, dtype=np.int64)
    done = 0
    while done < n:
        chunk = min(1 << 20, n - done)
        draws = engine.u64(chunk).tolist()
        for k, r in enumerate(draws):
            i = done + k
            z = r % (i + 1)
            a[i] = a[z]
            a[z] = i
        done += chunk
    return a
