"""Uniform floats: the 24- and 53-bit conversions and ``uniform_(from, to)``.

A float32 (or float16) element takes one 32-bit word, ``U24 = (w & 0xFFFFFF) * 2**-24``; a
float64 element takes one ``random64()``, ``U53 = (u & (2**53 - 1)) * 2**-53``.  The range is
applied as ``fma(U, to - from, from)`` with ``from``/``to`` first converted to the compute
type (float for float32/float16, double for float64); GCC fuses that multiply-add in the AVX2
kernels, while the portable kernels round twice.  float16 results are computed in float and
then rounded to half.
"""

from __future__ import annotations

import math

import numpy as np

from gradshell.core.fma import fix_f32_midpoints, fma32, fma64_scalars, midpoint_mask

from ._config import get_capability
from ._engine import Engine

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
    """``n`` float32 samples of ``uniform_(low, high)`` (float16 callers cast the result).

    ``high - low`` must fit in float32 (the caller checks PyTorch's bounds first).
    """
    lo = np.float32(low)
    span = np.float32(float(np.float32(high)) - float(lo))  # RN32 of the exact difference
    w = engine.u32(n)
    if lo == 0 and span == 1:
        return u24_from_words(w)
    if get_capability() != "avx2":
        return u24_from_words(w) * span + lo
    if not (span == 0 or abs(float(span)) > 2.0**-60):
        return fma32(u24_from_words(w), span, lo)  # results may be subnormal: exact path
    # fma(U24, span, lo) = RN32(k * (span * 2^-24) + lo): the product is exact in float64
    scale = float(span) * 2.0**-24
    k = (w & _M24).astype(np.float64)
    s = k * scale
    s += float(lo)
    r = s.astype(np.float32)
    if midpoint_mask(s).any():
        fix_f32_midpoints(k * scale, np.float64(lo), s, r)
    return r


def uniform_f64(engine: Engine, n: int, low: float, high: float) -> np.ndarray:
    """``n`` float64 samples of ``uniform_(low, high)``."""
    draws = engine.u64(n)
    low, high = float(low), float(high)
    span = high - low
    if low == 0.0 and span == 1.0:
        return u53_from_u64(draws)
    if get_capability() != "avx2":
        return u53_from_u64(draws) * span + low
    if n < 100:
        return _fma_u53_exact((draws & _M53).tolist(), span, low)
    return fma64_scalars(u53_from_u64(draws), span, low)


def _fma_u53_exact(ks: list[int], b: float, c: float) -> np.ndarray:
    # fma(k * 2^-53, b, c) in exact integer arithmetic: for a handful of elements this is
    # quicker than the vectorised error-free transforms.  Python's int / int is correctly
    # rounded, subnormals and overflow included.
    if not (math.isfinite(b) and math.isfinite(c)):
        return fma64_scalars(np.array(ks, dtype=np.float64) * 2.0**-53, b, c)
    mb, eb = math.frexp(b)
    mc, ec = math.frexp(c)
    bi, eb = int(mb * 2.0**53), eb - 106  # b * 2^-53 = bi * 2^eb
    ci, ec = int(mc * 2.0**53), ec - 53
    e = min(eb, ec)
    bi <<= eb - e
    ci <<= ec - e
    den = 1 << -e if e < 0 else 0
    out = []
    for k in ks:
        num = k * bi + ci
        if num == 0:
            out.append(0.0 * b + c if k == 0 else 0.0)  # IEEE signed zeros
        elif den:
            try:
                out.append(num / den)
            except OverflowError:
                out.append(math.inf if num > 0 else -math.inf)
        else:
            try:
                out.append(float(num << e))
            except OverflowError:
                out.append(math.inf if num > 0 else -math.inf)
    return np.array(out, dtype=np.float64)
