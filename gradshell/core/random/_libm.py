"""The C library's ``log``, ``log1p``, ``sin``, ``cos`` (and float ``logf``/``sinf``/``cosf``),
bit for bit, on NumPy arrays.

PyTorch's float64 normal kernels call the platform libm, so a faithful sample needs the
very same function, not NumPy's own SIMD ``np.log``/``np.log1p`` (which differ from glibc in
a fraction of a percent of inputs).  Python's ``math`` module calls the same libm as PyTorch
in the same process, so ``math.log`` per element is exact by construction, but slow.

``log`` has a fast exact path: glibc's ``log`` (since 2.28) is within 0.52 ULP of the true
value, so whenever the true value lies more than 0.03 ULP from a rounding midpoint the
libm result must be the correctly rounded one.  A double-double evaluation (error far below
0.001 ULP) finds that correctly rounded value and the rare near-midpoint elements, which go
to ``math.log``.  A self-check against ``math.log`` on first use switches the fast path off
when the local libm does not fit that model.  ``sin``/``cos`` use ``np.sin``/``np.cos``
when they agree with ``math`` on a self-check (NumPy calls libm for float64 sin/cos).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import math
from decimal import Decimal, getcontext
from functools import lru_cache

import numpy as np

_OFF = 0x3FE6000000000000  # 0.6875: each binade is cut at this mantissa offset
_BITS = 8  # 256 sub-intervals per binade
_N = 1 << _BITS
_SPLIT = 134217729.0
_MANT = 0x000FFFFFFFFFFFFF
_EXP = 0x7FF0000000000000
_LN2_HI = float.fromhex("0x1.62e42fefa3800p-1")  # ln 2 to 42 bits, so k*_LN2_HI is exact
_MARGIN = 0.94  # flag |lo| > 0.94 * half-ulp: within 0.03 ULP of a midpoint


@lru_cache(maxsize=1)
def _log_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    # invc: a short (10-bit) approximation of 1/c for the centre c of each sub-interval, so
    # that z * invc has an exact two-term product; the two intervals touching 1 use c = 1
    # so that inputs near 1 incur no cancellation.  logc = -log(invc) to ~100 bits.
    getcontext().prec = 50
    ln2 = Decimal(2).ln()
    ln2_lo = float(ln2 - Decimal(_LN2_HI))
    invc = np.empty(_N)
    hi = np.empty(_N)
    lo = np.empty(_N)
    for i in range(_N):
        z0 = float(np.int64(_OFF + (i << (52 - _BITS))).view(np.float64))
        width = 2.0 ** -(_BITS + 1) if z0 < 1.0 else 2.0**-_BITS
        if z0 == 1.0 or z0 + width == 1.0:
            inv = 1.0
        else:
            inv = round(1024.0 / (z0 + width / 2)) / 1024.0
        invc[i] = inv
        lg = -Decimal(inv).ln()
        h = round(float(lg) * 2.0**43) / 2.0**43  # on the 2^-43 grid, like k*_LN2_HI
        hi[i] = h
        lo[i] = float(lg - Decimal(h))
    return invc, hi, lo, ln2_lo


# Taylor coefficients of (log1p(r) - r + r^2/2) / r^3 = 1/3 - r/4 + r^2/5 - ...
_Q = [(-1.0) ** k / (k + 3) for k in range(8)]


def _fast_log(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Correctly rounded log of positive normal float64s, plus a mask of unsure elements."""
    invc_t, hi_t, lo_t, ln2_lo = _log_tables()
    bits = x.view(np.int64)
    tmp = bits - _OFF
    i = (tmp >> (52 - _BITS)) & (_N - 1)
    k = (tmp >> 52).astype(np.float64)
    z = (bits - (tmp & np.int64(-(1 << 52)))).view(np.float64)
    invc = invc_t[i]
    # r = z*invc - 1 exactly, as rh + rl (invc has 10 bits, so the split products are exact)
    t = z * _SPLIT
    zh = t - (t - z)
    zl = z - zh
    p = z * invc
    perr = (zh * invc - p) + zl * invc
    rh0 = p - 1.0
    rh = rh0 + perr
    rl = perr - (rh - rh0)
    # log1p(r) = r - r^2/2 + r^3*Q(r), with r - r^2/2 kept as double-double
    t = rh * _SPLIT
    ah = t - (t - rh)
    al = rh - ah
    s2 = rh * rh
    s2l = ((ah * ah - s2) + 2.0 * ah * al) + al * al
    h = rh - 0.5 * s2
    hl = (rh - h) - 0.5 * s2
    q = _Q[-1]
    for c in _Q[-2::-1]:
        q = q * rh + c
    lo = hl + (rl - 0.5 * s2l - rh * rl + s2 * rh * q)
    # y = k*ln2 + logc + (h + lo); k*_LN2_HI + hi is exact by construction
    a = k * _LN2_HI + hi_t[i]
    b = k * ln2_lo + lo_t[i]
    s = a + h
    bb = s - a
    e = (a - (s - bb)) + (h - bb)
    t = e + (lo + b)
    yh = s + t
    yl = t - (yh - s)
    ybits = yh.view(np.int64)
    half_ulp = (ybits & _EXP).view(np.float64) * 2.0**-53
    unsure = (np.abs(yl) > _MARGIN * half_ulp) | ((ybits & _MANT) == 0)
    return yh, unsure


def _map(fn, x: np.ndarray) -> np.ndarray:
    return np.fromiter(map(fn, x.ravel().tolist()), dtype=np.float64, count=x.size).reshape(x.shape)


_TINY = 2.0**-1022
_state: dict[str, bool] = {}


def _self_check(name: str) -> bool:
    # Compare the vectorised path with the libm (via math) on a fixed, varied sample; any
    # disagreement means the model does not hold for this libm, so fall back to math.*.
    if name in _state:
        return _state[name]
    rng = np.random.Generator(np.random.MT19937(20240613))
    u = (rng.integers(0, 1 << 53, 60000, dtype=np.int64).astype(np.float64)) * 2.0**-53
    if name == "log":
        xs = np.concatenate((1.0 - u, u + 2.0**-53, rng.random(2000) * 1e6, [1.0, 0.5, 2.0**-53]))
        ok = np.array_equal(log(xs, _checked=True), _map(math.log, xs))
    elif name in ("sin", "cos"):
        theta = 2.0 * math.pi * u
        fn = getattr(np, name)
        ok = np.array_equal(fn(theta), _map(getattr(math, name), theta))
    else:
        raise ValueError(name)
    _state[name] = bool(ok)
    return _state[name]


_LOG_CHUNK = 16384


def log(x: np.ndarray, _checked: bool = False) -> np.ndarray:
    """libm ``log`` of a float64 array, elementwise and bit-exact."""
    x = np.ascontiguousarray(x, dtype=np.float64)
    if x.size < 512 or not (_checked or _self_check("log")):
        return _map(math.log, x)
    flat = x.reshape(-1)
    out = np.empty_like(flat)
    with np.errstate(all="ignore"):
        for start in range(0, flat.size, _LOG_CHUNK):
            xs = flat[start : start + _LOG_CHUNK]
            y, unsure = _fast_log(xs)
            unsure |= ~(xs >= _TINY) | ~np.isfinite(xs)
            idx = np.flatnonzero(unsure)
            if idx.size:
                y[idx] = _map(math.log, xs[idx])
            out[start : start + xs.size] = y
    return out.reshape(x.shape)


def log1p(x: np.ndarray) -> np.ndarray:
    """libm ``log1p`` of a float64 array, elementwise and bit-exact (per element)."""
    return _map(math.log1p, np.asarray(x, dtype=np.float64))


def sin(x: np.ndarray) -> np.ndarray:
    """libm ``sin`` of a float64 array, elementwise and bit-exact."""
    x = np.asarray(x, dtype=np.float64)
    return np.sin(x) if _self_check("sin") else _map(math.sin, x)


def cos(x: np.ndarray) -> np.ndarray:
    """libm ``cos`` of a float64 array, elementwise and bit-exact."""
    x = np.asarray(x, dtype=np.float64)
    return np.cos(x) if _self_check("cos") else _map(math.cos, x)


# -- float32 functions, for the non-FMA ("default") kernels ---------------------------------
@lru_cache(maxsize=1)
def _libm_f32():
    path = ctypes.util.find_library("m")
    lib = ctypes.CDLL(path) if path else ctypes.CDLL(None)
    fns = []
    for name in ("logf", "sinf", "cosf"):
        fn = getattr(lib, name)
        fn.restype = ctypes.c_float
        fn.argtypes = [ctypes.c_float]
        fns.append(fn)
    return tuple(fns)


def _map_f32(fn, x: np.ndarray) -> np.ndarray:
    return np.fromiter(map(fn, x.ravel().tolist()), dtype=np.float32, count=x.size).reshape(x.shape)


def logf(x: np.ndarray) -> np.ndarray:
    """libm ``logf`` of a float32 array (one ctypes call per element)."""
    return _map_f32(_libm_f32()[0], np.asarray(x, dtype=np.float32))


def sinf(x: np.ndarray) -> np.ndarray:
    """libm ``sinf`` of a float32 array (one ctypes call per element)."""
    return _map_f32(_libm_f32()[1], np.asarray(x, dtype=np.float32))


def cosf(x: np.ndarray) -> np.ndarray:
    """libm ``cosf`` of a float32 array (one ctypes call per element)."""
    return _map_f32(_libm_f32()[2], np.asarray(x, dtype=np.float32))
