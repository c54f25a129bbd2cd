"""PyTorch 2.13's CPU batch normalisation in its own float order (float32 and float64).

Measured against PyTorch on an AMD EPYC with AVX-512 (16 float32 lanes), for a
contiguous input (N, C, *) in training mode:

* statistics, when each channel's plane has more than one element: per channel the
  input is summed in float64 in memory order; ``mean = float(sum / count)``; then
  ``var_sum = float(Σ float64(float((x - mean) * (x - mean))))``, in float64 too;
* statistics of an (N, C) input (a plane of one element: PyTorch treats it as
  channels-last): rows are split among the intra-op threads (``at::parallel_for`` with a
  grain of 1), each thread adds its rows into its own float32 buffer of C sums, and the
  buffers are added in float64 (``sum / count`` rounded to float32); the squares
  ``(x - mean) * (x - mean)`` are summed the same way, fused into the additions (with no
  more rows than threads PyTorch takes another loop, not worked out);
* ``invstd = float(1 / sqrt(float64(var_sum / count) + eps))`` (the division in float32);
  ``running_mean = m * mean + (1 - m) * running_mean`` in float32 with ``m = float(momentum)``;
  ``running_var = float(m * float64(var_sum / (count - 1)) + float64((1 - m) *
  running_var))``;
* output: ``alpha = invstd * weight``, ``beta = bias - mean * alpha``, ``x * alpha + beta``
  (with fused multiply-adds where the vector code fuses them: ``beta`` and the output);
* backward, per channel and per batch item: ``Σ dy`` and ``Σ (x - mean) * dy`` over the
  plane as ``vec::reduce_all`` does them (16-lane vector accumulators folded in a
  halving tree), accumulated over the batch in float64.

A float64 input follows the same code with 8 lanes; its accumulate type is float64 too.
"""

from __future__ import annotations

import numpy as np

from gradshell.core.kernels.fp32 import fma
from gradshell.core.threads import get_num_threads

REDUCE_BYTES = 32  # the backward's reductions run on 256-bit vectors


def _fused(a, b, c):
    """a*b + c with one rounding, in a's dtype."""
    if np.asarray(a).dtype == np.float32:
        return fma(np.asarray(a, np.float32), np.asarray(b, np.float32), np.asarray(c, np.float32))
    from gradshell.core.fma import fma64

    return fma64(a, b, c)


def _thread_rows(n: int, threads: int) -> list[tuple[int, int]]:
    """at::parallel_for(0, n, 1)'s split of n rows among `threads` threads."""
    nt = min(threads, n)
    size = -(-n // nt)
    return [(t * size, min(n, t * size + size)) for t in range(nt) if t * size < n]


def stats(x: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """(mean, var_sum) per channel of a contiguous (N, C, *) input, in x's dtype; None for
    an (N, C) input with no more rows than threads (its order is not worked out)."""
    n, c = x.shape[:2]
    dt = x.dtype.type
    plane = x.size // (n * c) if n * c else 0
    count = n * plane
    if plane == 1:
        rows = x.reshape(n, c)
        threads = get_num_threads()
        if n > threads:
            chunks = _thread_rows(n, threads)
            buf = np.zeros((len(chunks), c), x.dtype)
            for t, (b, e) in enumerate(chunks):
                # each thread's float32 running sum, in row order (0 + the first row is exact)
                buf[t] = np.add.accumulate(rows[b:e], axis=0)[-1]
            mean = (buf.astype(np.float64).sum(axis=0) / count).astype(dt)
            # a buffer per thread of the full thread count (unused ones stay zero)
            sq = np.zeros((len(chunks), c), x.dtype)
            for t, (b, e) in enumerate(chunks):
                for i in range(b, e):
                    d = rows[i] - mean
                    sq[t] = _fused(d, d, sq[t])
            var_sum = _seq64(sq).astype(dt)
            return mean, var_sum
        return None  # as many rows as threads: PyTorch's order not worked out
    flat = np.moveaxis(x.reshape(n, c, plane), 1, 0).reshape(c, count)
    mean = (_seq64(flat.T) / count).astype(dt)
    d = flat - mean[:, None]
    return mean, _seq64((d * d).T).astype(dt)


def _seq64(a: np.ndarray) -> np.ndarray:
    """Σ over axis 0 in float64, left to right (a C loop over a double accumulator).

    ``np.add.accumulate`` adds strictly in order (unlike ``np.sum``'s pairwise blocks), so
    its last row is that loop's result, in one pass."""
    if a.shape[0] == 0:
        return np.zeros(a.shape[1:], np.float64)
    return np.add.accumulate(a, axis=0, dtype=np.float64)[-1]


def invstd(var_sum: np.ndarray, count: int, eps: float) -> np.ndarray:
    """1 / sqrt(var_sum / count + eps), the division in the input's dtype, the rest in
    float64, rounded once."""
    dt = var_sum.dtype.type
    var = (var_sum / dt(count)).astype(np.float64)
    with np.errstate(divide="ignore"):
        r = 1.0 / np.sqrt(var + eps)
    r[(var == 0) & (eps == 0)] = 0.0
    return r.astype(dt)


def running(rm, rv, mean, var_sum, count: int, momentum: float):
    """The new running mean and variance (arrays in the parameters' dtype)."""
    dt = mean.dtype.type
    m = dt(momentum)
    new_mean = m * mean + (dt(1) - m) * rm
    with np.errstate(divide="ignore", invalid="ignore"):
        unbiased = (var_sum / dt(count - 1)).astype(np.float64)
    new_var = (np.float64(m) * unbiased + ((dt(1) - m) * rv).astype(np.float64)).astype(dt)
    return new_mean, new_var


def transform(x: np.ndarray, mean, inv, weight, bias) -> np.ndarray:
    """x * alpha + beta per channel, alpha = invstd * weight, beta = bias - mean * alpha."""
    dt = x.dtype.type
    c = x.shape[1]
    alpha = inv if weight is None else inv * weight
    b = np.zeros(c, x.dtype) if bias is None else bias
    beta = _fused(-mean, alpha, b)
    view = (1, c) + (1,) * (x.ndim - 2)
    return _fused(x, alpha.reshape(view), np.broadcast_to(beta.reshape(view), x.shape)).astype(dt)


def _reduce_all(v: np.ndarray, times: np.ndarray | None = None) -> np.ndarray:
    """``vec::reduce_all`` of + over the last axis of `v` (rows of one plane each), or
    ``vec::map2_reduce_all`` of ``v * times`` when `times` is given, on 256-bit vectors
    (8 float32 lanes: measured, although the CPU has 512-bit ones).

    A plane shorter than one vector is added up element by element.  Otherwise the first
    vector (its products rounded) starts a vector accumulator, each later full vector is
    added lane by lane, the partial last vector into the leading lanes (there, measured,
    the products are fused into the addition: one rounding), and the lanes are folded by
    halves.
    """
    lanes = REDUCE_BYTES // v.dtype.itemsize
    size = v.shape[-1]
    if size < lanes:
        p = v if times is None else v * times
        acc = p[..., 0].copy()
        for i in range(1, size):
            acc += p[..., i]
        return acc
    full = size - size % lanes

    def add(acc, sl, fused: bool):
        if times is None:
            return acc + v[..., sl]
        if fused:
            return _fused(v[..., sl], times[..., sl], acc)
        return acc + v[..., sl] * times[..., sl]

    acc = v[..., :lanes] if times is None else v[..., :lanes] * times[..., :lanes]
    for d in range(lanes, full, lanes):
        acc = add(acc, slice(d, d + lanes), False)
    if full < size:
        acc = acc.copy()
        acc[..., : size - full] = add(acc[..., : size - full], slice(full, size), True)
    # the halving tree: lanes i and i + w/2 added, w halving down to 1
    w = lanes
    while w > 1:
        w //= 2
        acc = acc[..., :w] + acc[..., w : 2 * w]
    return acc[..., 0]


def backward_sums(x: np.ndarray, dy: np.ndarray, mean: np.ndarray):
    """(Σ dy, Σ (x - mean) dy) per channel, as float64 arrays, for contiguous (N, C, *)
    arrays whose planes have more than one element."""
    n, c = x.shape[:2]
    xs = x.reshape(n, c, -1)
    gs = dy.reshape(n, c, -1)
    per_sum = _reduce_all(gs)  # (N, C)
    centred = xs - mean.reshape(1, c, 1)
    per_dot = _reduce_all(centred, gs)
    return _seq64(per_sum), _seq64(per_dot)


def grad_input(x, dy, mean, inv, weight, sum_dy, dotp, count: int) -> np.ndarray:
    """The training-mode input gradient of a contiguous (N, C, *) input:
    ``(dy - sum_dy / count - (x - mean) * k) * invstd * weight`` with
    ``k = dotp * invstd * invstd / count`` (float64 sums rounded first)."""
    dt = x.dtype.type
    c = x.shape[1]
    view = (1, c) + (1,) * (x.ndim - 2)
    k = dotp.astype(dt) * inv * inv / dt(count)
    grad_mean = (sum_dy / count).astype(dt)
    w = np.ones(c, x.dtype) if weight is None else weight
    # the vector code fuses (dy - grad_mean) - (x - mean) * k into one multiply-add
    diff = dy - grad_mean.reshape(view)
    centred = x - mean.reshape(view)
    shape = x.shape
    part = _fused(-centred, np.broadcast_to(k.reshape(view), shape), diff)
    return part * inv.reshape(view) * w.reshape(view)


def strided_dotp(x: np.ndarray, dy: np.ndarray, mean: np.ndarray) -> np.ndarray:
    """Σ (x - mean) * dy per channel when the input or its gradient is not contiguous
    (an expanded gradient, say): PyTorch's serial loop adds each float product to a
    float64 sum, in the input's order (C order here)."""
    c = x.shape[1]
    view = (1, c) + (1,) * (x.ndim - 2)
    prod = (x - mean.reshape(view)) * dy
    return _seq64(np.moveaxis(prod, 1, -1).reshape(-1, c))


def strided_grad_input(x, dy, mean, inv, weight, sum_dy, dotp, count: int) -> np.ndarray:
    """The training-mode input gradient on the strided path: ``gi = (x - mean) * k``, then
    ``(dy - sum_dy / count - gi) * invstd * weight``, in plain float arithmetic."""
    dt = x.dtype.type
    c = x.shape[1]
    view = (1, c) + (1,) * (x.ndim - 2)
    k = dotp.astype(dt) * inv * inv / dt(count)
    grad_mean = sum_dy / dt(count)
    w = np.ones(c, x.dtype) if weight is None else weight
    gi = (x - mean.reshape(view)) * k.reshape(view)
    return (dy - grad_mean.reshape(view) - gi) * inv.reshape(view) * w.reshape(view)
