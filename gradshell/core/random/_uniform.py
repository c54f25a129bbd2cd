"""Uniform floats: the 24- and 53-bit conversions and ``uniform_(from, to)``.

A float32 (or float16) element takes one 32-bit word, ``U24 = (w & 0xFFFFFF) * 2**-24``; a
float64 element takes one ``random64()``, ``U53 = (u & (2**53 - 1)) * 2**-53``.  The range is
applied as ``fma(U, to - from, from)`` with ``from``/``to`` first converted to the compute
type (float for float32/float16, double for float64); GCC fuses that multiply-add in the AVX2
kernels, while the portable kernels round twice.  float16 results are computed in float and
then rounded to half.
"""

from __future__ import annotations

import numpy as np

from ._config import get_capability
from ._engine import Engine
from ._fma import fma32, fma64

_M24 = np.uint32(0xFFFFFF)
_M53 = np.uint64((1 << 53) - 1)
_S24 = np.float32(2.0**-24)


def u24_from_words(w: np.ndarray) -> np.ndarray:
    """float32 uniforms in [0, 1) from 32-bit words (uint32 or uint64 arrays)."""
    if w.dtype != np.uint32:
        w = w.astype(np.uint32)
    k = w & _M24
    out = k.astype(np.float32)
    out *= _S24
    return out


def u53_from_u64(u: np.ndarray) -> np.ndarray:
    """float64 uniforms in [0, 1) from 64-bit draws."""
    k = (u & _M53).view(np.int64)  # below 2**53, so the signed view is exact and converts fast
    out = k.astype(np.float64)
    out *= 2.0**-53
    return out


def uniform_f32(engine: Engine, n: int, low: float, high: float) -> np.ndarray:
    """``n`` float32 samples of ``uniform_(low, high)`` (float16 callers cast the result)."""
    u = u24_from_words(engine.u32(n))
    lo, hi = np.float32(low), np.float32(high)
    with np.errstate(over="ignore"):
        span = hi - lo
    if lo == 0 and span == 1:
        return u
    if get_capability() == "avx2":
        return fma32(u, span, lo)
    with np.errstate(over="ignore"):
        return u * span + lo


def uniform_f64(engine: Engine, n: int, low: float, high: float) -> np.ndarray:
    """``n`` float64 samples of ``uniform_(low, high)``."""
    u = u53_from_u64(engine.u64(n))
    low, high = float(low), float(high)
    span = high - low
    if low == 0.0 and span == 1.0:
        return u
    if get_capability() == "avx2":
        return fma64(u, span, low)
    return u * span + low
