"""softmax and log_softmax, as PyTorch 2.13's CPU build computes them for float32
and float64.

ATen's ``SoftMaxKernel.cpp`` works row by row with its ``vec`` helpers (``reduce_all``,
``map``, ``map_reduce_all``) on vectors of 16 float32 or 8 float64 lanes (AVX-512):

* the row maximum: the first vector is the accumulator, each later full vector is folded
  in lane by lane, a partial last vector only into its lanes, then the lanes are combined:
  float32 in a tree (lane i with lane i^8, then i^4, i^2, i^1), float64 in order (lane 0
  with 1, then with 2, ...).  A row shorter than one vector is folded in order.  The fold
  is ``Vectorized::maximum``: the second operand wins a tie (so -0 against +0 depends on
  the order) and a NaN anywhere gives NaN.
* softmax: ``exp(x - max)`` with Sleef's vector exp on every element (``vec::map`` loads a
  partial last vector, so there is no scalar tail), their sum folded as above, then each
  exp times ``1 / sum``.
* log_softmax: the same sum, Sleef's vector log of it, then ``(x - max) - log(sum)``.
* another dimension (``_vec_softmax``, ``_vec_logsoftmax``): vectors run along the inner
  columns and each column is reduced over the dimension in order; the columns left over
  by the vectors take the scalar code (the C library's exp), and for softmax which ones
  they are depends on how the threads share the columns (see ``softmax_dim``).  The
  backward kernels sum over the dimension per column (softmax's ``sum += g*y`` fused
  into one FMA, as GCC compiles it).
* logsumexp is not a kernel of its own in PyTorch: ``amax``, ``exp``, ``sum``, ``log`` and
  an add, which the op composes from the unary kernels and the exact sum.

Along the last dimension rows are independent, so there the thread split changes no bit.
"""

from __future__ import annotations

import numpy as np

from gradshell.core.fma import fma64
from gradshell.core.kernels import fp32, libm, sleef_f32, sleef_f64

VECTOR_BYTES = 64  # one AVX-512 register


def lanes(dtype: np.dtype) -> int:
    """Lanes of one vector register for `dtype` (16 float32, 8 float64)."""
    return VECTOR_BYTES // np.dtype(dtype).itemsize


def _vmax(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``Vectorized::maximum``: a where a > b, else b; NaN if either is NaN."""
    r = np.where(a > b, a, b)
    nan = np.isnan(a) | np.isnan(b)
    if nan.any():
        r[nan] = np.nan
    return r


def _fold_lanes(acc: np.ndarray, op) -> np.ndarray:
    """Combine the lanes of the accumulator vectors (rows of `acc`) into one value each."""
    v = acc.shape[1]
    if acc.dtype == np.float32:  # AVX-512's shuffle tree
        lane = np.arange(v)
        step = v // 2
        while step:
            acc = op(acc, acc[:, lane ^ step])
            step //= 2
        return acc[:, 0]
    r = acc[:, 0]  # float64: the generic loop, lane 0 with each lane in order
    for i in range(1, v):
        r = op(r, acc[:, i])
    return r


def _reduce_rows(x: np.ndarray, op) -> np.ndarray:
    """``vec::reduce_all(op, row)`` for every row of the 2-D array `x`, in ATen's order."""
    n, d = x.shape
    v = lanes(x.dtype)
    if d < v:
        r = x[:, 0].copy()
        for i in range(1, d):
            r = op(r, x[:, i])
        return r
    k, rem = divmod(d, v)
    full = x[:, : k * v].reshape(n, k, v)
    if op is np.add:
        # summed in order over the vectors: NumPy's reduction along a non-contiguous axis
        # adds the vectors one after another (no pairwise splitting); it starts from +0
        # unless told otherwise, and -0 is the identity that keeps a sum of -0s at -0
        acc = np.add.reduce(full, axis=1, initial=x.dtype.type(-0.0))
    else:
        acc = full[:, 0].copy()
        for j in range(1, k):
            acc = op(acc, full[:, j])
    if rem:
        acc[:, :rem] = op(acc[:, :rem], x[:, k * v :])
    return _fold_lanes(acc, op)


def _row_max(x: np.ndarray) -> np.ndarray:
    """The row maxima as ``vec::reduce_all(maximum)`` gives them (signed zeros included)."""
    with np.errstate(invalid="ignore"):
        m = np.max(x, axis=1)
    zero = np.flatnonzero(m == 0)
    if zero.size:  # the sign of a zero maximum depends on the fold order
        m[zero] = _reduce_rows(x[zero], _vmax)
    return m


def _vexp(x: np.ndarray) -> np.ndarray:
    return sleef_f32.expf(x) if x.dtype == np.float32 else sleef_f64.expd(x)


def _vlog(x: np.ndarray) -> np.ndarray:
    if x.dtype == np.float32:
        return sleef_f32.logf_u1(x)
    return sleef_f64.logd(x)


def _rows(x: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(x).reshape(-1, x.shape[-1]) if x.ndim else x.reshape(1, 1)


def _shifted_exp_sum(x2: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(x - max, exp(x - max), the rows' sums of the exps) for rows `x2`."""
    m = _row_max(x2)
    shifted = x2 - m[:, None]
    e = _vexp(shifted)
    return shifted, e, _reduce_rows(e, np.add)


def softmax(x: np.ndarray, dim: int = -1) -> np.ndarray:
    """torch.softmax(x, dim) of a float32/float64 array: ``_vec_softmax_lastdim`` for the
    last dimension, ``softmax_dim`` for the others."""
    if x.ndim and dim % x.ndim != x.ndim - 1:
        return softmax_dim(x, dim % x.ndim)
    if x.size == 0:
        return x.copy()
    with np.errstate(all="ignore"):
        _, e, s = _shifted_exp_sum(_rows(x))
        one = x.dtype.type(1)
        e *= (one / s)[:, None]
    return e.reshape(x.shape)


def log_softmax(x: np.ndarray, dim: int = -1) -> np.ndarray:
    """torch.log_softmax(x, dim) of a float32/float64 array: ``_vec_log_softmax_lastdim``
    for the last dimension, ``log_softmax_dim`` for the others."""
    if x.ndim and dim % x.ndim != x.ndim - 1:
        return log_softmax_dim(x, dim % x.ndim)
    if x.size == 0:
        return x.copy()
    with np.errstate(all="ignore"):
        shifted, _, s = _shifted_exp_sum(_rows(x))
        shifted -= _vlog(s)[:, None]
    return shifted.reshape(x.shape)


# -- other dimensions: (outer, dim, inner) with the vectors along inner ----------------------
def _split3(x: np.ndarray, dim: int) -> np.ndarray:
    """x (made contiguous, as PyTorch does) viewed as (outer, dim_size, inner)."""
    shape = x.shape
    outer = int(np.prod(shape[:dim], dtype=np.int64))
    inner = int(np.prod(shape[dim + 1 :], dtype=np.int64))
    return np.ascontiguousarray(x).reshape(outer, shape[dim], inner)


def _vector_positions(outer: int, inner: int, dim_size: int, dtype) -> np.ndarray:
    """Which of the outer*inner columns ``_vec_softmax`` computes with vectors.

    Its threads share the flattened columns evenly, however few there are (measured
    against PyTorch 2.13: 100 columns on 2 threads split 50/50); each walks its share in
    vectors that may cross neither the end of its share nor the end of an inner row, and
    sends the rest to the scalar code.
    """
    from gradshell.core.threads import _chunks, get_num_threads

    n, v = outer * inner, lanes(dtype)
    pos = np.arange(n)
    starts = np.array([b for b, _ in _chunks(n, 1, get_num_threads())])
    ends = np.append(starts[1:], n)
    t = np.searchsorted(starts, pos, side="right") - 1
    row = pos // inner
    seg_start = np.maximum(starts[t], row * inner)
    seg_end = np.minimum(ends[t], (row + 1) * inner)
    return (pos - seg_start) < (seg_end - seg_start) // v * v


def softmax_dim(x: np.ndarray, dim: int) -> np.ndarray:
    """torch.softmax(x, dim) of a float32/float64 array for any dim (``_vec_softmax`` when
    dim is not the last): per column, the maximum and the sum of exps in dim order, then
    each exp divided by the sum; Sleef's exp on vector columns, the C library's on the
    scalar ones."""
    nd = x.ndim
    if nd == 0 or dim == nd - 1 or x.size == 0:
        return softmax(x) if x.size else x.copy()
    x3 = _split3(x, dim)
    outer, dsize, inner = x3.shape
    vec = _vector_positions(outer, inner, dsize, x.dtype).reshape(outer, inner)
    with np.errstate(all="ignore"):
        out = np.empty_like(x3)
        if vec.any():  # vec::maximum (the later operand wins ties; NaN spreads), Sleef exp
            m = x3[:, 0].copy()
            for d in range(1, dsize):
                m = _vmax(m, x3[:, d])
            e = _vexp(x3 - m[:, None])
            total = np.zeros_like(m)
            for d in range(dsize):
                total = total + e[:, d]
            np.divide(e, total[:, None], out=out)
        tail = ~vec
        if tail.any():  # std::max (the first operand wins ties; a NaN after it is skipped)
            xt = x3.transpose(0, 2, 1)[tail]  # (columns, dim)
            m = xt[:, 0].copy()
            for d in range(1, dsize):
                m = np.where(m < xt[:, d], xt[:, d], m)
            e = libm.call("exp", xt - m[:, None])
            total = np.zeros_like(m)
            for d in range(dsize):
                total = total + e[:, d]
            out.transpose(0, 2, 1)[tail] = e / total[:, None]
    return out.reshape(x.shape)


def log_softmax_dim(x: np.ndarray, dim: int) -> np.ndarray:
    """torch.log_softmax(x, dim) of a float32/float64 array for any dim (``_vec_logsoftmax``
    when dim is not the last): per column the maximum (NaN skipped, ties keep the first),
    the sum of exps in dim order (Sleef's exp, the C library's on the last inner % lanes
    columns of each row), Sleef's log of the sum, then ``(x - max) - log(sum)``."""
    nd = x.ndim
    if nd == 0 or dim == nd - 1 or x.size == 0:
        return log_softmax(x) if x.size else x.copy()
    x3 = _split3(x, dim)
    outer, dsize, inner = x3.shape
    with np.errstate(all="ignore"):
        m = np.full((outer, inner), -np.inf, x.dtype)
        for d in range(dsize):
            m = np.where(x3[:, d] > m, x3[:, d], m)
        shifted = x3 - m[:, None]
        e = _vexp(shifted)
        cut = inner - inner % lanes(x.dtype)
        if cut < inner:
            e[:, :, cut:] = libm.call("exp", np.ascontiguousarray(shifted[:, :, cut:]))
        total = np.zeros_like(m)
        for d in range(dsize):
            total = total + e[:, d]
        out = shifted - _vlog(total.reshape(-1)).reshape(outer, 1, inner)
    return out.reshape(x.shape)


def _backward_dim(g: np.ndarray, y: np.ndarray, dim: int, log: bool) -> np.ndarray:
    """softmax's or log_softmax's backward along a dim other than the last
    (``_vec_softmax_backward``, ``_vec_log_softmax_backward``): per inner column the sum
    over the dimension in order, then the elementwise formula; the last inner % lanes
    columns of each row take the scalar code."""
    g3, y3 = _split3(g, dim), _split3(y, dim)
    outer, dsize, inner = y3.shape
    cut = inner - inner % lanes(y.dtype)
    with np.errstate(all="ignore"):
        total = np.zeros((outer, inner), y.dtype)
        fma = fp32.fma if y.dtype == np.float32 else fma64
        for d in range(dsize):  # softmax's sum += g*y: GCC fuses it into one FMA
            total = total + g3[:, d] if log else fma(g3[:, d], y3[:, d], total)
        s = np.broadcast_to(total[:, None], y3.shape)
        if not log:
            r = (g3 - s) * y3
        else:
            e = _vexp(y3)
            if cut < inner:
                e[:, :, cut:] = libm.call("exp", np.ascontiguousarray(y3[:, :, cut:]))
            np.negative(e, out=e)
            r = fma(e, s, g3)
    return r.reshape(y.shape)


def softmax_backward(g: np.ndarray, y: np.ndarray, dim: int = -1) -> np.ndarray:
    """softmax's gradient from its output y: ``(g - sum(g*y)) * y``; along the last dim
    (``_vec_host_softmax_backward_lastdim``) the sum folded as the forward's."""
    if y.ndim and dim % y.ndim != y.ndim - 1:
        return _backward_dim(g, y, dim % y.ndim, log=False)
    g2, y2 = _rows(g), _rows(y)
    with np.errstate(all="ignore"):
        s = _reduce_rows(g2 * y2, np.add)
        r = (g2 - s[:, None]) * y2
    return r.reshape(y.shape)


def log_softmax_backward(g: np.ndarray, y: np.ndarray, dim: int = -1) -> np.ndarray:
    """log_softmax's gradient from its output y: ``g - exp(y) * sum(g)`` with Sleef's exp
    and one fused multiply-add; along the last dim the sum folded as the forward's."""
    if y.ndim and dim % y.ndim != y.ndim - 1:
        return _backward_dim(g, y, dim % y.ndim, log=True)
    g2, y2 = _rows(g), _rows(y)
    with np.errstate(all="ignore"):
        s = np.broadcast_to(_reduce_rows(g2, np.add)[:, None], g2.shape)
        # g - exp(y) * sum: GCC contracts the multiply and subtract into one FMA
        e = _vexp(y2)
        np.negative(e, out=e)
        r = fp32.fma(e, s, g2) if g2.dtype == np.float32 else fma64(e, s, g2)
    return r.reshape(y.shape)


__all__ = [
    "lanes",
    "log_softmax",
    "log_softmax_backward",
    "log_softmax_dim",
    "softmax",
    "softmax_backward",
    "softmax_dim",
]
