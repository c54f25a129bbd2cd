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


def fma64_unchecked(a, b, c) -> np.ndarray:
    """``fma64`` for operands the caller has bounded: the same Dekker product, two-sum and
    round-to-odd addition, without the scans for infinities, NaNs, magnitudes beyond
    2**±400 and zero products.

    Exact when every operand is finite and no intermediate overflows; an intermediate that
    underflows is harmless only where the product is negligible beside a nonzero `c` (the
    result is then `c`, as the error terms lost are far below its last bit), and a zero
    result may carry the wrong sign.  Sleef's polynomials in reduced arguments (constant
    terms of 1e-9 and more) meet these conditions.  A scalar `b` is split once.
    """
    a = np.asarray(a, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        ph = a * b
        t = a * _SPLIT
        ah = t - (t - a)
        al = a - ah
        if np.ndim(b) == 0:
            bh, bl = _split_scalar(float(b))
        else:
            bh, bl = _split(np.asarray(b, dtype=np.float64))
        pl = ah * bh
        pl -= ph
        pl += ah * bl
        pl += al * bh
        al *= bl
        pl += al
        uh, ul = two_sum(c, ph)
        uh += round_to_odd_sum(ul, pl)
    return uh


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
    r = uh + v
    if e == 0.0:
        return r if r != 0.0 else ph + c  # exact; a zero takes IEEE's sign rule
    # v carries an error e below half its ulp, so RN(uh + v) can only be wrong when
    # uh + v is exactly halfway between two doubles: then e breaks the tie.
    bb = r - uh
    g = (uh - (r - bb)) + (v - bb)
    if g == 0.0:
        return r
    half = math.ulp(r) / 2
    if (g > 0) != (r > 0) and abs(math.frexp(r)[0]) == 0.5:
        half /= 2  # below a power of two the spacing halves
    if abs(g) != half or (e > 0) != (g > 0):
        return r
    return r + 2 * g


_CHUNK64 = 16384


def _split_scalar(b: float) -> tuple[float, float]:
    t = b * _SPLIT
    hi = t - (t - b)
    return hi, b - hi


def fma64_scalars(a: np.ndarray, b: float, c: float) -> np.ndarray:
    """Exact ``fma(a, b, c)`` for a float64 array ``a`` and float64 scalars ``b``, ``c``.

    The common case of ``uniform_`` and ``normal_``: the scalars are split once, the array is
    processed in cache-sized chunks (on worker threads for large arrays).  Same algorithm as
    ``fma64`` (Dekker product, two-sum, round-to-odd).  The non-zero magnitudes of ``a``
    must lie in [2^-400, 2^400], as uniforms and Box-Muller normals do; the scalars are
    checked and sent to ``fma64`` when they are out of that range.
    """
    a = np.ascontiguousarray(a, dtype=np.float64)
    b, c = float(b), float(c)
    scalars_ok = (b == 0.0 or _SAFE_LO < abs(b) < _SAFE_HI) and (
        c == 0.0 or _SAFE_LO < abs(c) < _SAFE_HI
    )
    if not scalars_ok:
        return fma64(a, b, c)
    if b == 0.0 or a.size == 0:
        return a * b + c  # an exact zero product: IEEE addition is the FMA
    flat = a.reshape(-1)
    out = np.empty_like(flat)
    bh, bl = _split_scalar(b)
    m = min(_CHUNK64, flat.size)

    def task(i: int) -> None:
        x = flat[i * m : (i + 1) * m]
        o = out[i * m : (i + 1) * m]
        k = x.size
        u, v, w, xh = (np.empty(k) for _ in range(4))
        # Veltkamp split of x: xh + (x - xh)
        np.multiply(x, _SPLIT, out=u)
        np.subtract(u, x, out=v)
        np.subtract(u, v, out=xh)
        np.subtract(x, xh, out=w)  # xl
        # ph = x*b (kept in o), pl = ((xh*bh - ph) + xh*bl + xl*bh) + xl*bl (in u)
        np.multiply(x, b, out=o)
        np.multiply(xh, bh, out=u)
        np.subtract(u, o, out=u)
        np.multiply(xh, bl, out=v)
        np.add(u, v, out=u)
        np.multiply(w, bh, out=v)
        np.add(u, v, out=u)
        np.multiply(w, bl, out=v)
        np.add(u, v, out=u)
        # (uh, ul) = two_sum(c, ph): uh in xh, ul in w
        np.add(o, c, out=xh)
        np.subtract(xh, c, out=v)  # bb
        np.subtract(o, v, out=w)  # ph - bb
        np.subtract(xh, v, out=v)  # uh - bb
        np.subtract(c, v, out=v)  # c - (uh - bb)
        np.add(v, w, out=w)  # ul
        # s = RO(ul + pl): two_sum then a one-ulp nudge of even, inexact sums
        np.add(w, u, out=o)  # s
        np.subtract(o, w, out=v)  # bb
        np.subtract(u, v, out=u)  # pl - bb
        np.subtract(o, v, out=v)  # s - bb
        np.subtract(w, v, out=v)  # ul - (s - bb)
        np.add(v, u, out=v)  # e, the exact error of s
        sb, eb = o.view(np.int64), v.view(np.int64)
        ib = u.view(np.int64)
        # inexact and even: move toward the exact value, i.e. +1 ulp in magnitude when e has
        # s's sign, else -1; (s_bits + m) | 1 does both, with m = 0 or -1 from the signs
        np.bitwise_xor(sb, eb, out=ib)
        np.right_shift(ib, 63, out=ib)
        np.add(sb, ib, out=ib)
        np.bitwise_or(ib, 1, out=ib)
        np.not_equal(v, 0.0, out=w.view(np.bool_)[:k])
        np.copyto(sb, ib, where=w.view(np.bool_)[:k])
        np.add(xh, o, out=o)  # RN(uh + RO(ul + pl))

    from gradshell.core.random._parallel import run_chunks  # (the random package imports us)

    run_chunks(task, -(-flat.size // m))
    # An exactly zero result needs IEEE's sign rule: RN(ph + c) is then exact.
    zero = out == 0.0
    if zero.any():
        out[zero] = flat[zero] * b + c
    return out.reshape(a.shape)


_F32_SAFE_LO = 2.0**-100


def fma32_scalars(a: np.ndarray, b: np.float32, c: np.float32) -> np.ndarray:
    """Exact float32 ``fma(a, b, c)`` for a float32 array and float32 scalars (lean path)."""
    b, c = np.float32(b), np.float32(c)
    s = a.astype(np.float64)
    s *= float(b)  # exact: 24 x 24 bits
    s += float(c)
    with np.errstate(over="ignore"):
        r = s.astype(np.float32)
    mag = np.abs(s)
    if (
        midpoint_mask(s).any()
        or not (mag.max(initial=0.0) < 3.0e38)
        or (mag.min(initial=1.0) < _F32_TINY and (s != 0).any())
    ):
        return fma32(a, b, c)  # midpoints, subnormals, overflow: the exact general path
    return r


_TWO53 = 9007199254740992.0


def fma64_list(values: list[float], b: float, c: float) -> list[float]:
    """Exact ``fma(v, b, c)`` for a short list of finite floats ``v`` in integer arithmetic.

    For a few dozen elements this beats the vectorised error-free transforms: each product
    is an exact integer, and Python's ``int / int`` is correctly rounded (subnormals too).
    ``b`` and ``c`` must be finite.
    """
    mb, eb = math.frexp(b)
    bi, eb = int(mb * _TWO53), eb - 53
    mc, ec = math.frexp(c)
    ci, ec = int(mc * _TWO53), ec - 53
    out = []
    for v in values:
        mv, ev = math.frexp(v)
        p = int(mv * _TWO53) * bi
        e = ev - 53 + eb
        if e <= ec:
            num, ex = p + (ci << (ec - e)), e
        else:
            num, ex = (p << (e - ec)) + ci, ec
        if num == 0:
            # an exact zero: IEEE's sign rule when the product is zero, +0 for a cancellation
            out.append(v * b + c if v == 0.0 or b == 0.0 else 0.0)
            continue
        try:
            out.append(num / (1 << -ex) if ex < 0 else float(num << ex))
        except OverflowError:
            out.append(math.inf if num > 0 else -math.inf)
    return out
