"""softmax, log_softmax and logsumexp over the last dimension, as PyTorch 2.13's CPU build
computes them for float32 and float64.

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
* logsumexp is not a kernel of its own in PyTorch: ``amax``, ``exp``, ``sum``, ``log`` and
  an add (see ``logsumexp``).

Rows are independent, so the thread split does not change any bit.
"""

from __future__ import annotations

import numpy as np

from gradshell.core.fma import fma64
from gradshell.core.kernels import fp32, sleef_f32, sleef_f64

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


def softmax(x: np.ndarray) -> np.ndarray:
    """torch.softmax(x, dim=-1) of a float32/float64 array (``_vec_softmax_lastdim``)."""
    if x.size == 0:
        return x.copy()
    with np.errstate(all="ignore"):
        _, e, s = _shifted_exp_sum(_rows(x))
        one = x.dtype.type(1)
        e *= (one / s)[:, None]
    return e.reshape(x.shape)


def log_softmax(x: np.ndarray) -> np.ndarray:
    """torch.log_softmax(x, dim=-1) of a float32/float64 array (``_vec_log_softmax_lastdim``)."""
    if x.size == 0:
        return x.copy()
    with np.errstate(all="ignore"):
        shifted, _, s = _shifted_exp_sum(_rows(x))
        shifted -= _vlog(s)[:, None]
    return shifted.reshape(x.shape)


def softmax_backward(g: np.ndarray, y: np.ndarray) -> np.ndarray:
    """softmax's gradient along the last dim from its output y (``_vec_host_softmax_backward_
    lastdim``): ``(g - sum(g*y)) * y``, the sum folded as the forward's."""
    g2, y2 = _rows(g), _rows(y)
    with np.errstate(all="ignore"):
        s = _reduce_rows(g2 * y2, np.add)
        r = (g2 - s[:, None]) * y2
    return r.reshape(y.shape)


def log_softmax_backward(g: np.ndarray, y: np.ndarray) -> np.ndarray:
    """log_softmax's gradient along the last dim from its output y: ``g - exp(y) * sum(g)``
    with Sleef's exp and one fused multiply-add, the sum folded as the forward's."""
    g2, y2 = _rows(g), _rows(y)
    with np.errstate(all="ignore"):
        s = np.broadcast_to(_reduce_rows(g2, np.add)[:, None], g2.shape)
        # g - exp(y) * sum: GCC contracts the multiply and subtract into one FMA
        e = _vexp(y2)
        np.negative(e, out=e)
        r = fp32.fma(e, s, g2) if g2.dtype == np.float32 else fma64(e, s, g2)
    return r.reshape(y.shape)


def logsumexp(x: np.ndarray) -> np.ndarray:
    """torch.logsumexp(x, dim=-1) for a float32/float64 array, as PyTorch composes it:
    ``m = amax(x)`` (infinite maxima replaced by 0), ``log(sum(exp(x - m))) + m`` with its
    unary exp and log (MKL's on PyTorch's x86 build, see ``elementwise``) and its sum's
    reduction order."""
    from gradshell.core.kernels import elementwise
    from gradshell.ops import summation  # (the ops import this package)

    if x.size == 0 or x.ndim == 0:
        with np.errstate(all="ignore"):
            return np.log(np.sum(np.exp(x), axis=-1) if x.ndim else np.exp(x))
    with np.errstate(all="ignore"):
        m = np.max(x, axis=-1, keepdims=True)
        m = np.where(np.isinf(m), x.dtype.type(0), m)
        s = summation.torch_sum(elementwise.exp(x - m), (x.ndim - 1,), True)
        r = elementwise.log(np.asarray(s, x.dtype)) + m
    return r[..., 0]


__all__ = [
    "lanes",
    "log_softmax",
    "log_softmax_backward",
    "logsumexp",
    "softmax",
    "softmax_backward",
]
