"""Exact fused multiply-add, ``RN(a*b + c)`` with a single rounding, on NumPy.

NumPy has no FMA ufunc, yet PyTorch's x86-64 kernels fuse several multiply-adds (GCC
contracts them under ``-mfma``, and a few are explicit).  A fused result differs from
``a*b + c`` in the last bit for a sizeable share of inputs, so every fused step is
emulated here exactly:

* float32: the product of two floats is exact in float64, so one float64 add rounds only
  once before the final rounding to float32.  That double rounding can go wrong only when
  the float64 sum lands exactly halfway between two floats; those rare elements are found
  from the float64 bits and recomputed from an exact two-sum.
* float64: Dekker's exact product, Knuth's two-sum and a round-to-odd addition
  (Boldo & Melquiond, "Emulation of FMA and correctly rounded sums", 2008), which gives the
  correctly rounded result for every finite input that neither overflows nor underflows;
  elements outside that range go through exact rational arithmetic.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

_SPLIT = 134217729.0  # 2**27 + 1, Veltkamp's splitting constant for float64
_INT64_MIN = np.iinfo(np.int64).min
# float64 magnitudes where the split/product arithmetic can neither overflow nor underflow
_SAFE_HI = 2.0**400
_SAFE_LO = 2.0**-400
_F32_TINY = 2.0**-126
_F32_MAX = float(np.finfo(np.float32).max)


# -- scalar helpers ----------------------------------------------------------------------
def _zero_sum_sign(a: float, b: float, c: float) -> float:
    # IEEE: an exact zero sum is +0 in round-to-nearest unless both addends are -0.
    prod_neg = math.copysign(1.0, a) * math.copysign(1.0, b) < 0
    if prod_neg and math.copysign(1.0, c) < 0:
        return -0.0
    return 0.0


def fma64_scalar(a: float, b: float, c: float) -> float:
    """Return ``a*b + c`` rounded once to float64, for Python floats."""
    if not (math.isfinite(a) and math.isfinite(b) and math.isfinite(c)):
        if math.isfinite(a) and math.isfinite(b):
            return c  # a finite product cannot cancel an infinity or NaN
        return a * b + c
    if a == 0.0 or b == 0.0:
        return c if c != 0.0 else _zero_sum_sign(a, b, c)
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    if exact == 0:
        return 0.0
    try:
        r = float(exact)  # Fraction -> float is correctly rounded (integer true division)
    except OverflowError:
        return math.inf if exact > 0 else -math.inf
    if r == 0.0 and exact < 0:
        return -0.0
    return r


def _round_fraction_f32(exact: Fraction) -> float:
    # Correct rounding of an exact rational to float32: start from the (possibly double
    # rounded) candidate and pick the nearest of it and its neighbours, ties to even.
    cand = np.float32(float(exact)) if abs(exact) < 2**128 else np.float32(np.inf)
    best = None
    for v in (
        np.nextafter(cand, np.float32(-np.inf)),
        cand,
        np.nextafter(cand, np.float32(np.inf)),
    ):
        if not np.isfinite(v):
            if abs(exact) >= Fraction(2**128 - 2**103):
                return math.copysign(math.inf, exact)
            continue
        d = abs(Fraction(float(v)) - exact)
        even = int(np.float32(v).view(np.uint32)) & 1 == 0
        key = (d, not even)
        if best is None or key < best[0]:
            best = (key, float(v))
    assert best is not None
    r = best[1]
    return -0.0 if r == 0.0 and exact < 0 else r


def fma32_scalar(a: float, b: float, c: float) -> float:
    """Return ``a*b + c`` rounded once to float32 (inputs are float32 values)."""
    if not (math.isfinite(a) and math.isfinite(b) and math.isfinite(c)):
        return float(np.float32(fma64_scalar(a, b, c)))
    if a == 0.0 or b == 0.0:
        return c if c != 0.0 else _zero_sum_sign(a, b, c)
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    if exact == 0:
        return 0.0
    return _round_fraction_f32(exact)


# -- float32 -----------------------------------------------------------------------------
def midpoint_mask(s: np.ndarray) -> np.ndarray:
    """Boolean mask of float64 values lying exactly halfway between two normal float32s."""
    return np.left_shift(s.view(np.int64), 35) == _INT64_MIN


def fix_f32_midpoints(p: np.ndarray, c: np.ndarray, s: np.ndarray, r: np.ndarray) -> None:
    """Repair ``r = float32(s)`` in place where ``s = p + c`` double-rounded.

    ``p`` and ``c`` are exact float64 addends (for an FMA, the exact product and the
    addend), ``s`` their float64 sum.  Only elements where ``s`` is a float32 midpoint
    can be wrong; for those the exact two-sum error decides the direction.
    """
    idx = np.flatnonzero(midpoint_mask(s))
    if idx.size == 0:
        return
    pp = np.broadcast_to(p, s.shape).ravel()[idx]
    cc = np.broadcast_to(c, s.shape).ravel()[idx]
    ss = s.ravel()[idx]
    bb = ss - pp
    err = (pp - (ss - bb)) + (cc - bb)
    rr = ss.astype(np.float32)
    up = (rr.astype(np.float64) < ss) & (err > 0)
    down = (rr.astype(np.float64) > ss) & (err < 0)
    rr = np.where(up, np.nextafter(rr, np.float32(np.inf)), rr)
    rr = np.where(down, np.nextafter(rr, np.float32(-np.inf)), rr)
    r.ravel()[idx] = rr


def fma32(a, b, c) -> np.ndarray:
    """Exact float32 FMA of float32 arrays/scalars (broadcasting), returning float32."""
    a64 = np.asarray(a, dtype=np.float32).astype(np.float64)
    p = a64 * np.asarray(b, dtype=np.float32).astype(np.float64)
    c64 = np.asarray(c, dtype=np.float32).astype(np.float64)
    s = p + c64
    with np.errstate(over="ignore"):
        r = s.astype(np.float32)
    r = np.ascontiguousarray(r)
    fix_f32_midpoints(p, c64, np.ascontiguousarray(s), r)
    # Subnormal float32 results have a coarser grid than the midpoint test assumes, and
    # results near the top of the range may overflow differently: redo those exactly.
    mag = np.abs(s)
    odd = np.flatnonzero(((mag < _F32_TINY) & (mag > 0)) | (mag > _F32_MAX) | ~np.isfinite(s))
    if odd.size:
        fa = np.broadcast_to(a64, s.shape).ravel()
        fb = np.broadcast_to(np.asarray(b, dtype=np.float32), s.shape).ravel()
        fc = np.broadcast_to(c64, s.shape).ravel()
        flat = r.ravel()
        for i in odd.tolist():
            flat[i] = fma32_scalar(float(fa[i]), float(fb[i]), float(fc[i]))
    return r


# -- float64 -----------------------------------------------------------------------------
def _split(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    t = a * _SPLIT
    hi = t - (t - a)
    return hi, a - hi


def two_sum(a, b) -> tuple[np.ndarray, np.ndarray]:
    """Knuth's branch-free two-sum: ``a + b == s + e`` exactly."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def round_to_odd_sum(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a + b`` rounded to odd: truncate, then force the last bit to 1 if inexact."""
    s, e = two_sum(a, b)
    bits = s.view(np.int64)
    # Inexact and even: step one ulp toward the exact value, which lies on e's side of s.
    fix = (e != 0) & ((bits & 1) == 0)
    if fix.any():
        toward_larger_magnitude = (e > 0) == (s > 0)
        step = np.where(toward_larger_magnitude, 1, -1).astype(np.int64)
        bits = bits + np.where(fix, step, 0)
        s = bits.view(np.float64)
    return s


def fma64(a, b, c) -> np.ndarray:
    """Exact float64 FMA of float64 arrays/scalars (broadcasting), returning float64."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    c = np.asarray(c, dtype=np.float64)
    shape = np.broadcast_shapes(a.shape, b.shape, c.shape)
    with np.errstate(over="ignore", invalid="ignore"):
        ph = a * b
        ah, al = _split(a)
        bh, bl = _split(b)
        pl = ((ah * bh - ph) + ah * bl + al * bh) + al * bl
        uh, ul = two_sum(c, ph)
        v = round_to_odd_sum(ul, pl)
        out = np.array(np.broadcast_to(uh + v, shape), dtype=np.float64)
    # The error-free transforms need every intermediate away from overflow and underflow.
    risky = np.zeros(shape, dtype=bool)
    for x in (a, b, c):
        ax = np.abs(x)
        risky |= ~np.isfinite(ax) | (ax > _SAFE_HI) | ((ax < _SAFE_LO) & (ax > 0))
    # A zero product is exact, so IEEE addition (with its signed-zero rule) is the FMA.
    zero = np.broadcast_to((a == 0) | (b == 0), shape)
    if zero.any():
        with np.errstate(invalid="ignore"):
            np.copyto(out, np.broadcast_to(ph + c, shape), where=zero)
        risky &= ~zero
    idx = np.flatnonzero(risky)
    if idx.size:
        fa = np.broadcast_to(a, shape).ravel()
        fb = np.broadcast_to(b, shape).ravel()
        fc = np.broadcast_to(c, shape).ravel()
        flat = out.ravel()
        for i in idx.tolist():
            flat[i] = fma64_scalar(float(fa[i]), float(fb[i]), float(fc[i]))
    return out


def fma64_fast(a: float, b: float, c: float) -> float:
    """``fma64_scalar`` by error-free transforms in plain float arithmetic (about 1 us)."""
    if not (_SAFE_LO < abs(a) < _SAFE_HI and _SAFE_LO < abs(b) < _SAFE_HI) or not (
        c == 0.0 or _SAFE_LO < abs(c) < _SAFE_HI
    ):
        return fma64_scalar(a, b, c)
    ph = a * b
    t = a * _SPLIT
    ah = t - (t - a)
    al = a - ah
    t = b * _SPLIT
    bh = t - (t - b)
    bl = b - bh
    pl = ((ah * bh - ph) + ah * bl + al * bh) + al * bl
    uh = c + ph
    bb = uh - c
    ul = (c - (uh - bb)) + (ph - bb)
    v = ul + pl
    bb = v - ul
    e = (ul - (v - bb)) + (pl - bb)
    if e != 0.0:
        # round to odd: an even, inexact sum moves one ulp toward the exact value
        iv = int(np.float64(v).view(np.int64))
        if iv & 1 == 0:
            iv += 1 if (e > 0) == (v > 0) else -1
            v = float(np.int64(iv).view(np.float64))
    return uh + v
