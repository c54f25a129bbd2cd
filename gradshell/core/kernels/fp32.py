"""float32 arithmetic as a SIMD unit does it: fused multiply-adds and double-float steps.

Sleef's vector kernels are written with a handful of primitives: an FMA (``vmla``), its
sign variants, and "double-float" pairs ``(hi, lo)`` that carry about 48 bits through
a computation.  NumPy's float32 ``+ - * /`` already round exactly as the vector unit does
(round to nearest, no flush to zero); only the FMA needs help.  ``fma`` computes the
product exactly in float64 and rounds the sum once there; the rare elements where that
double rounding can differ from one rounding (float64 midpoints between float32s,
subnormal or overflowing results) go through :func:`gradshell.core.fma.fma32`.
"""

from __future__ import annotations

import functools

import numpy as np

from gradshell.core.fma import fma32

F32 = np.float32
CHUNK = 65536  # elements per pass: keeps a kernel's float64 temporaries in the cache
_TINY = 2.0**-126
_LOW29 = np.int64((1 << 29) - 1)
_HALF29 = np.int64(1 << 28)


def fma(a, b, c) -> np.ndarray:
    """``RN32(a*b + c)`` with one rounding, for float32 arrays or scalars (broadcasting)."""
    s = np.multiply(a, b, dtype=np.float64)  # exact: 24 x 24 bits fit in 53
    if s.ndim == 0:
        return np.asarray(fma32(a, b, c), dtype=F32)
    if np.shape(c) == () or np.shape(c) == s.shape:
        np.add(s, c, out=s, casting="unsafe")
    else:
        s = s + np.asarray(c, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        r = s.astype(np.float32)
    # double rounding is possible only where s lies halfway between two float32s (low 29
    # bits 1000...0), and the float32 grid is coarser for subnormal results
    bits = s.view(np.int64)
    low = np.bitwise_and(bits, _LOW29)
    suspect = (low == _HALF29).any()
    if not suspect:
        mag = np.abs(s)
        suspect = bool((mag < _TINY).any() and ((mag < _TINY) & (mag > 0)).any())
    if suspect:
        mag = np.abs(s)
        odd = (np.bitwise_and(bits, _LOW29) == _HALF29) | ((mag < _TINY) & (mag > 0))
        idx = np.nonzero(odd)
        shape = s.shape
        aa = np.broadcast_to(np.asarray(a, F32), shape)[idx]
        bb = np.broadcast_to(np.asarray(b, F32), shape)[idx]
        cc = np.broadcast_to(np.asarray(c, F32), shape)[idx]
        r[idx] = fma32(aa, bb, cc)
    return r


def fmapn(a, b, c) -> np.ndarray:
    """``a*b - c`` fused (Sleef's ``vfmapn``)."""
    return fma(a, b, np.negative(c))


def fmanp(a, b, c) -> np.ndarray:
    """``c - a*b`` fused (Sleef's ``vfmanp``)."""
    return fma(np.negative(a), b, c)


# -- double-float pairs (Sleef's df.h, FMA variants) --------------------------------------
def df_add_f_f(x, y):
    """dfadd_vf2_vf_vf: |x| >= |y| assumed."""
    rx = x + y
    return rx, (x - rx) + y


def df_add2_f_f(x, y):
    """dfadd2_vf2_vf_vf: exact two-sum."""
    rx = x + y
    v = rx - x
    return rx, (x - (rx - v)) + (y - v)


def df_add_f2_f(x, y):
    """dfadd_vf2_vf2_vf."""
    rx = x[0] + y
    return rx, ((x[0] - rx) + y) + x[1]


def df_add2_f2_f(x, y):
    """dfadd2_vf2_vf2_vf."""
    rx = x[0] + y
    v = rx - x[0]
    ry = (x[0] - (rx - v)) + (y - v)
    return rx, ry + x[1]


def df_add_f_f2(x, y):
    """dfadd_vf2_vf_vf2."""
    rx = x + y[0]
    return rx, ((x - rx) + y[0]) + y[1]


def df_add2_f_f2(x, y):
    """dfadd2_vf2_vf_vf2."""
    rx = x + y[0]
    v = rx - x
    return rx, ((x - (rx - v)) + (y[0] - v)) + y[1]


def df_add_f2_f2(x, y):
    """dfadd_vf2_vf2_vf2: |x| >= |y| assumed."""
    rx = x[0] + y[0]
    return rx, (((x[0] - rx) + y[0]) + x[1]) + y[1]


def df_add2_f2_f2(x, y):
    """dfadd2_vf2_vf2_vf2."""
    rx = x[0] + y[0]
    v = rx - x[0]
    ry = (x[0] - (rx - v)) + (y[0] - v)
    return rx, ry + (x[1] + y[1])


def df_scale(x, s):
    """dfscale_vf2_vf2_vf."""
    return x[0] * s, x[1] * s


def df_mul_f_f(x, y):
    """dfmul_vf2_vf_vf."""
    rx = x * y
    return rx, fmapn(x, y, rx)


def df_mul_f2_f(x, y):
    """dfmul_vf2_vf2_vf."""
    rx = x[0] * y
    return rx, fma(x[1], y, fmapn(x[0], y, rx))


def df_mul_f2_f2(x, y):
    """dfmul_vf2_vf2_vf2."""
    rx = x[0] * y[0]
    return rx, fma(x[0], y[1], fma(x[1], y[0], fmapn(x[0], y[0], rx)))


def df_squ(x):
    """dfsqu_vf2_vf2."""
    rx = x[0] * x[0]
    return rx, fma(x[0] + x[0], x[1], fmapn(x[0], x[0], rx))


def df_div(n, d):
    """dfdiv_vf2_vf2_vf2."""
    with np.errstate(divide="ignore", invalid="ignore"):
        t = F32(1) / d[0]
    qx = n[0] * t
    u = fmapn(t, n[0], qx)
    qy = fmanp(d[1], t, fmanp(d[0], t, F32(1)))
    qy = fma(qx, qy, fma(n[1], t, u))
    return qx, qy


def df_rec_f2(d):
    """dfrec_vf2_vf2."""
    with np.errstate(divide="ignore", invalid="ignore"):
        qx = F32(1) / d[0]
    return qx, qx * fmanp(d[1], qx, fmanp(d[0], qx, F32(1)))


# -- exponent helpers ----------------------------------------------------------------------
def pow2i(q: np.ndarray) -> np.ndarray:
    """2**q as float32 from the exponent bits (q in the normal range)."""
    return ((q.astype(np.int32) + 127) << 23).astype(np.int32).view(np.float32)


def ldexp2(d: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Sleef's vldexp2: d * 2**(q>>1) * 2**(q - (q>>1)), two exact-ish steps."""
    h = q >> 1
    return d * pow2i(h) * pow2i(q - h)


def ldexp3(d: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Sleef's vldexp3: add q to the exponent field (no range checks)."""
    bits = np.asarray(d, F32).view(np.int32) + (q.astype(np.int32) << 23)
    return bits.astype(np.int32).view(np.float32)


def rint_int(x: np.ndarray) -> np.ndarray:
    """cvtps_epi32: round to nearest even; NaN and out-of-range give INT_MIN."""
    with np.errstate(invalid="ignore"):
        ok = np.abs(x) < 2.0**31
        return np.where(ok, np.rint(np.where(ok, x, 0)), -(2.0**31)).astype(np.int32)


def getexp(x: np.ndarray) -> np.ndarray:
    """AVX-512 ``vgetexpps``: floor(log2|x|) as float32 (subnormals too), inf/-inf/nan."""
    with np.errstate(divide="ignore", invalid="ignore"):
        _, e = np.frexp(np.abs(x).astype(np.float64))
        r = (e - 1).astype(F32)
        ax = np.abs(x)
        r = np.where(ax == 0, F32(-np.inf), r)
        r = np.where(np.isinf(ax), F32(np.inf), r)
        r = np.where(np.isnan(x), x, r)
    return r.astype(F32)


def chunked(fn):
    """Run the elementwise kernel `fn` over cache-sized pieces of its input (5x faster on
    10^6 elements than whole-array passes, whose temporaries spill to memory)."""

    @functools.wraps(fn)
    def wrapper(x):
        x = np.asarray(x)
        if x.size <= CHUNK:
            return fn(x)
        flat = x.reshape(-1)
        out = np.empty(flat.shape, dtype=x.dtype)
        for i in range(0, flat.size, CHUNK):
            out[i : i + CHUNK] = fn(flat[i : i + CHUNK])
        return out.reshape(x.shape)

    return wrapper


def chunked2(fn):
    """``chunked`` for a kernel of two arrays (broadcast to one shape first)."""

    @functools.wraps(fn)
    def wrapper(x, y):
        x, y = np.broadcast_arrays(np.asarray(x), np.asarray(y))
        if x.size <= CHUNK:
            return fn(x, y)
        fx, fy = x.reshape(-1), y.reshape(-1)
        out = None
        for i in range(0, fx.size, CHUNK):
            part = fn(fx[i : i + CHUNK], fy[i : i + CHUNK])
            if out is None:
                out = np.empty(fx.shape, dtype=part.dtype)
            out[i : i + CHUNK] = part
        return out.reshape(x.shape)

    return wrapper
