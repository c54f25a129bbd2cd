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
# Elements per pass (a kernel's blocks; see ``blockwise``).  Whole-array passes over 10^6
# elements allocate megabyte temporaries, which the C library maps and page-faults afresh
# each time (measured: three live 512 KiB float64 temporaries cost 50x the arithmetic on
# them in a fresh process).  Blocks of 32768 keep a float64 temporary at 256 KiB, within
# the L2 cache and the range glibc's adaptive mmap threshold recycles from the heap;
# by CPU time on 10^6 float32 elements, 16000 was 10-30% slower and 65536 about equal.
CHUNK = 32768
_INT64_MIN = np.int64(np.iinfo(np.int64).min)
# (bits << 1) - 1 below this (as uint64): a nonzero float64 under 2**-126 in magnitude
_SUB_LIMIT = np.uint64((897 << 53) - 1)


def _redo_exact(r: np.ndarray, idx: np.ndarray, a, b, c) -> None:
    """Recompute ``r`` at the flat indices `idx` with the exact FMA."""
    shape = r.shape
    pick = [np.broadcast_to(np.asarray(v, F32), shape).reshape(-1)[idx] for v in (a, b, c)]
    r.reshape(-1)[idx] = fma32(*pick)


def _fix_midpoints(r: np.ndarray, s: np.ndarray, idx: np.ndarray, a, b, c) -> None:
    """Repair ``r = float32(s)`` at the flat indices `idx`, where the float64 sum ``s`` of
    ``a*b`` and ``c`` is a float32 midpoint.

    Most such sums are exact (true ties, which the cast already breaks to even, as the FMA
    does); the two-sum error of the exact product and ``c`` tells the rest which way the
    exact value lies.  Sums in float32's subnormal range take the exact FMA.
    """
    shape = r.shape
    aa, bb, cc = (np.broadcast_to(np.asarray(v, F32), shape).reshape(-1)[idx] for v in (a, b, c))
    pp = aa.astype(np.float64) * bb
    c64 = cc.astype(np.float64)
    ss = s.reshape(-1)[idx]
    v = ss - pp
    err = (pp - (ss - v)) + (c64 - v)  # pp + c64 == ss + err exactly (Knuth's two-sum)
    flat = r.reshape(-1)
    rr = flat[idx]
    r64 = rr.astype(np.float64)
    up = (r64 < ss) & (err > 0)
    down = (r64 > ss) & (err < 0)
    rr[up] = np.nextafter(rr[up], F32(np.inf))
    rr[down] = np.nextafter(rr[down], F32(-np.inf))
    flat[idx] = rr
    tiny = np.abs(ss) < 2.0**-126
    if tiny.any():
        flat[idx[tiny]] = fma32(aa[tiny], bb[tiny], cc[tiny])


def _f64(v):
    """`v` as float64: an array cast whole, a scalar as a Python float."""
    if isinstance(v, np.ndarray) and v.ndim:
        return v.astype(np.float64)
    return float(v)


def fma(a, b, c, normal: bool = False) -> np.ndarray:
    """``RN32(a*b + c)`` with one rounding, for float32 arrays or scalars (broadcasting).

    The float32 product is exact in float64 (24 + 24 bits <= 53), so the float64 sum
    rounds once and the cast to float32 rounds again.  Rounding twice gives the single
    rounding's result unless the float64 sum lands exactly halfway between two float32s
    (its low 29 significand bits 1000...0) or in float32's subnormal range, where the
    float32 grid is coarser; those elements (found from the float64 bits, one shift and
    one reduction) are recomputed exactly.  ``normal=True`` is the caller's proof that
    no result is a nonzero value below 2**-126 unless it is exact (skips that test).
    """
    # every operand converted to float64 by a plain cast first: a ufunc fed mixed dtypes
    # casts through small buffers and runs several times slower
    s = _f64(a) * _f64(b)
    if np.ndim(s) == 0:  # (0-d operands give a Python float)
        return np.asarray(fma32(a, b, c), dtype=F32)
    if np.shape(c) == () or np.shape(c) == s.shape:
        np.add(s, _f64(c), out=s)
    else:
        s = s + _f64(c)
    with np.errstate(over="ignore", invalid="ignore"):
        r = s.astype(F32)
    bits = s.view(np.int64)
    t = np.left_shift(bits, 35)  # the low 29 bits on top: a midpoint is INT64_MIN
    if t.size and t.min() == _INT64_MIN:
        _fix_midpoints(r, s, np.flatnonzero(t == _INT64_MIN), a, b, c)
    if not normal:
        np.left_shift(bits, 1, out=t)
        u = t.view(np.uint64)
        u -= np.uint64(1)  # zero wraps to the top: only nonzero tiny values fall below
        if u.size and u.min() < _SUB_LIMIT:
            _redo_exact(r, np.flatnonzero(u < _SUB_LIMIT), a, b, c)
    return r


def horner(x: np.ndarray, coeffs) -> np.ndarray:
    """Sleef's Horner scheme ``u = fma(u, x, c)`` over float32 constants (highest first),
    each step rounded once to float32.

    `x` is cast to float64 once and `u` stays in float64 between steps; each step keeps
    ``fma``'s midpoint test.  The caller's proof: the constant terms dominate (|x| small),
    so no step's result is subnormal.
    """
    x64 = x.astype(np.float64)
    u = F32(coeffs[0])
    u64 = float(u)
    for c in coeffs[1:]:
        p = x64 * u64
        p += float(F32(c))
        with np.errstate(over="ignore", invalid="ignore"):
            r = p.astype(F32)
        t = np.left_shift(p.view(np.int64), 35)
        if t.size and t.min() == _INT64_MIN:
            _fix_midpoints(r, p, np.flatnonzero(t == _INT64_MIN), u, x, F32(c))
        u = r
        u64 = r.astype(np.float64)
    return u


def fmapn(a, b, c) -> np.ndarray:
    """``a*b - c`` fused (Sleef's ``vfmapn``)."""
    return fma(a, b, np.negative(c))


def fmanp(a, b, c) -> np.ndarray:
    """``c - a*b`` fused (Sleef's ``vfmanp``)."""
    return fma(np.negative(a), b, c)


def product_error(x, y, rx) -> np.ndarray:
    """``fma(x, y, -rx)`` where ``rx`` is the float32 product ``x*y``: its rounding error.

    The exact product (48 bits) minus its own leading 24 bits is exact in float64, so the
    one cast to float32 is the FMA's single rounding: no midpoint or subnormal test needed
    (an overflowed ``rx`` gives -inf, as the FMA does).
    """
    e = _f64(x) * _f64(y)
    e -= _f64(rx)
    with np.errstate(over="ignore", invalid="ignore"):
        return e.astype(F32)


def reciprocal_error(d, t) -> np.ndarray:
    """``fma(-d, t, 1)`` where ``t`` is the float32 quotient ``1/d``.

    d*t lies within 2**-23 of 1 and is a multiple of 2**-47 or finer only as far as its
    own bits go, so 1 - d*t needs at most 25 significant bits: exact in float64, rounded
    once by the cast (t overflowing or underflowing keeps the product's bits within 53).
    """
    e = _f64(d) * _f64(t)
    np.subtract(1.0, e, out=e)
    with np.errstate(over="ignore", invalid="ignore"):
        return e.astype(F32)


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
    return rx, product_error(x, y, rx)


def df_mul_f2_f(x, y):
    """dfmul_vf2_vf2_vf."""
    rx = x[0] * y
    return rx, fma(x[1], y, product_error(x[0], y, rx))


def df_mul_f2_f2(x, y):
    """dfmul_vf2_vf2_vf2."""
    rx = x[0] * y[0]
    return rx, fma(x[0], y[1], fma(x[1], y[0], product_error(x[0], y[0], rx)))


def df_squ(x):
    """dfsqu_vf2_vf2."""
    rx = x[0] * x[0]
    return rx, fma(x[0] + x[0], x[1], product_error(x[0], x[0], rx))


def df_div(n, d):
    """dfdiv_vf2_vf2_vf2."""
    with np.errstate(divide="ignore", invalid="ignore"):
        t = F32(1) / d[0]
    qx = n[0] * t
    u = product_error(t, n[0], qx)
    qy = fmanp(d[1], t, reciprocal_error(d[0], t))
    qy = fma(qx, qy, fma(n[1], t, u))
    return qx, qy


def df_rec_f2(d):
    """dfrec_vf2_vf2."""
    with np.errstate(divide="ignore", invalid="ignore"):
        qx = F32(1) / d[0]
    return qx, qx * fmanp(d[1], qx, reciprocal_error(d[0], qx))


# -- exponent helpers ----------------------------------------------------------------------
def pow2i(q: np.ndarray) -> np.ndarray:
    """2**q as float32 from the exponent bits (q in the normal range)."""
    b = np.add(q, 127, dtype=np.int32)
    np.left_shift(b, 23, out=b)
    return b.view(np.float32)


def ldexp2(d: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Sleef's vldexp2: d * 2**(q>>1) * 2**(q - (q>>1)), two exact-ish steps."""
    h = q >> 1
    r = d * pow2i(h)
    np.subtract(q, h, out=h)
    r *= pow2i(h)
    return r


def ldexp3(d: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Sleef's vldexp3: add q to the exponent field (no range checks)."""
    b = np.left_shift(q, 23, dtype=np.int32)
    b += np.asarray(d, F32).view(np.int32)
    return b.view(np.float32)


def rint_int(x: np.ndarray) -> np.ndarray:
    """cvtps_epi32: round to nearest even; NaN and out-of-range give INT_MIN."""
    with np.errstate(invalid="ignore"):
        big = np.abs(x).max(initial=0) if x.size else 0
        if big < 2.0**31:  # (a NaN fails this test too)
            return np.rint(x).astype(np.int32)
        ok = np.abs(x) < 2.0**31
        return np.where(ok, np.rint(np.where(ok, x, 0)), -(2.0**31)).astype(np.int32)


def _exponent_field(x: np.ndarray) -> np.ndarray:
    f = np.right_shift(np.asarray(x, F32).view(np.int32), 23)
    np.bitwise_and(f, 0xFF, out=f)
    return f


def getexp(x: np.ndarray) -> np.ndarray:
    """AVX-512 ``vgetexpps``: floor(log2|x|) as float32 (subnormals too), inf/-inf/nan."""
    f = _exponent_field(x)
    if f.size == 0 or (f.min() > 0 and f.max() < 255):  # normal numbers: the field, unbiased
        f -= 127
        return f.astype(F32)
    with np.errstate(divide="ignore", invalid="ignore"):
        _, e = np.frexp(np.abs(x).astype(np.float64))
        r = (e - 1).astype(F32)
        ax = np.abs(x)
        r = np.where(ax == 0, F32(-np.inf), r)
        r = np.where(np.isinf(ax), F32(np.inf), r)
        r = np.where(np.isnan(x), x, r)
    return r.astype(F32)


def getmant(x: np.ndarray) -> np.ndarray:
    """AVX-512 ``vgetmantps`` with the [0.75, 1.5) interval: |x| scaled by a power of two."""
    f = _exponent_field(x)
    if f.size and f.min() > 0 and f.max() < 255:
        # normal numbers: the significand over exponent 0, or -1 where its top bit is set
        m = np.bitwise_and(np.asarray(x, F32).view(np.int32), 0x007FFFFF)
        np.right_shift(m, 22, out=f)
        np.subtract(127, f, out=f)
        np.left_shift(f, 23, out=f)
        m |= f
        return m.view(F32)
    m, _ = np.frexp(np.abs(x).astype(np.float64))  # [0.5, 1)
    m = m * 2.0
    return np.where(m >= 1.5, m * 0.5, m).astype(F32)


def blockwise(fn):
    """Run the elementwise kernel `fn(*arrays, *params)` over cache-sized blocks.

    The leading array arguments are broadcast to one shape and cut into ``CHUNK``-element
    pieces (see ``CHUNK``); trailing non-array arguments (scalars) pass through unchanged.
    """

    @functools.wraps(fn)
    def wrapper(*args):
        if not isinstance(args[0], np.ndarray):
            args = (np.asarray(args[0]), *args[1:])
        k = 0
        while k < len(args) and isinstance(args[k], np.ndarray):
            k += 1
        arrays = np.broadcast_arrays(*args[:k]) if k > 1 else list(args[:k])
        rest = args[k:]
        size = arrays[0].size
        if size <= CHUNK:
            return fn(*arrays, *rest)
        shape = arrays[0].shape
        flats = [np.ascontiguousarray(a).reshape(-1) for a in arrays]
        out = None
        for i in range(0, size, CHUNK):
            part = fn(*(f[i : i + CHUNK] for f in flats), *rest)
            if out is None:
                out = np.empty(size, dtype=part.dtype)
            out[i : i + CHUNK] = part
        return out.reshape(shape)

    return wrapper


def chunked(fn):
    """``blockwise`` for a kernel of one array."""
    return blockwise(fn)


def chunked2(fn):
    """``blockwise`` for a kernel of two arrays (broadcast to one shape first)."""
    return blockwise(fn)
