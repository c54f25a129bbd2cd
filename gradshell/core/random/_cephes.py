"""PyTorch's AVX2 float32 Box-Muller block, emulated exactly on NumPy.

For a contiguous float32 tensor of 16 or more elements, PyTorch's x86-64 kernel turns each
block of 16 uniforms into 16 normals 8 lanes at a time: lanes 0-7 give
``radius = sqrt(-2*log(1 - u))`` and lanes 8-15 give ``theta = 2*pi*u``; lane k receives
``radius*cos(theta)`` and lane k+8 ``radius*sin(theta)``.  ``log`` and ``sincos`` are the
single-precision Cephes polynomials of Pommier's ``avx_mathfun``, evaluated in float32 with
the multiply-adds that GCC fuses under ``-mfma``.  This module reproduces that arithmetic:
every float32 operation is a NumPy float32 operation (IEEE, so identical), and every fused
multiply-add is an exact float64 product plus one float64 addition, rounded to float32.

That float64 addition rounds once more before the float32 rounding.  For the Horner steps
of ``log`` the sum is provably exact in float64 (the operands are float32s on a 2^-23 grid
whose magnitudes stay within a factor of eight), and the Cody-Waite reduction of ``theta``
is exact as a whole; the remaining fused steps are checked: a double rounding can only
matter when the float64 sum lies exactly on a float32 midpoint, and any chunk where that
happens is recomputed with an exact correction.
"""

from __future__ import annotations

import numpy as np

from ._fma import fix_f32_midpoints, fma32, midpoint_mask

f32 = np.float32
f64 = np.float64

# Cephes single-precision coefficients (public domain, S. L. Moshier), as in avx_mathfun.
_LOG_P = [
    7.0376836292e-2,
    -1.1514610310e-1,
    1.1676998740e-1,
    -1.2420140846e-1,
    1.4249322787e-1,
    -1.6668057665e-1,
    2.0000714765e-1,
    -2.4999993993e-1,
    3.3333331174e-1,
]
_LOG_P64 = [float(f32(c)) for c in _LOG_P]
_LOG_Q1 = f32(-2.12194440e-4)
_LOG_Q2 = f32(0.693359375)
_SQRTHF_BITS = int(f32(0.707106781186547524).view(np.int32))

_FOPI = f32(1.27323954473516)  # 4/pi
_DP1 = f32(-0.78515625)
_DP2 = f32(-2.4187564849853515625e-4)
_DP3 = f32(-3.77489497744594108e-8)
# DP1 and DP2 have 8 and 11 significant bits: j*(DP1+DP2) and theta + j*(DP1+DP2) are exact
# in float64 and in float32 alike, so the three fused steps collapse into one rounding.
_DP12 = float(_DP1) + float(_DP2)
_SIN = [float(f32(c)) for c in (-1.9515295891e-4, 8.3321608736e-3, -1.6666654611e-1)]
_COS = [
    float(f32(c)) for c in (2.443315711809948e-005, -1.388731625493765e-003, 4.166664568298827e-002)
]
_TWO_PI = f32(2.0 * np.pi)
_SIGN = np.int32(-(1 << 31))

CHUNK = 8192  # lane pairs per pass: keeps every temporary inside the L2 cache


class _Fma:
    """Fused multiply-add in float32 via float64; fast mode only records double roundings."""

    __slots__ = ("careful", "suspect")

    def __init__(self, careful: bool) -> None:
        self.careful = careful
        self.suspect = False

    def __call__(self, a64: np.ndarray, b64, c64) -> np.ndarray:
        p = a64 * b64
        s = p + c64
        r = s.astype(f32)
        if self.careful:
            fix_f32_midpoints(p, np.asarray(c64, dtype=f64), s, r)
        elif not self.suspect and midpoint_mask(s).any():
            self.suspect = True
        return r


def _log(u1: np.ndarray, fma: _Fma) -> np.ndarray:
    """Cephes float32 log of ``u1`` (positive normal float32s), with avx_mathfun's FMAs."""
    bits = u1.view(np.int32)
    mbits = (bits & 0x007FFFFF) | 0x3F000000
    small = mbits < _SQRTHF_BITS  # mantissa below sqrt(1/2): use 2m - 1 and e - 1
    m = mbits.view(f32)
    x = m - f32(1)
    x += np.where(small, m, f32(0))
    e = ((bits >> 23) - 126 - small).astype(f32)
    z = x * x
    x64 = x.astype(f64)
    # Every Horner sum below is exact in float64, so one float32 rounding is the FMA.
    y = (_LOG_P64[0] * x64 + _LOG_P64[1]).astype(f32)
    for c in _LOG_P64[2:]:
        y = (y.astype(f64) * x64 + c).astype(f32)
    y = y * x
    y = fma(y.astype(f64), z.astype(f64), (e * _LOG_Q1).astype(f64))
    y = y - z * f32(0.5)
    x = x + y
    return x + e * _LOG_Q2


def _sincos(theta: np.ndarray, fma: _Fma) -> tuple[np.ndarray, np.ndarray]:
    """Cephes float32 sin and cos of ``theta`` (finite float32s >= 0), as avx_mathfun."""
    j = (theta * _FOPI).astype(np.int32)
    j = (j + 1) & ~np.int32(1)
    jf = j.astype(f64)
    x = ((theta.astype(f64) + jf * _DP12) + jf * float(_DP3)).astype(f32)
    z = x * x
    z64 = z.astype(f64)
    x64 = x.astype(f64)
    yc = fma(np.full_like(z64, _COS[0]), z64, _COS[1])
    yc = fma(yc.astype(f64), z64, _COS[2])
    yc = yc * z
    yc = fma(yc.astype(f64), z64, -(z * f32(0.5)).astype(f64))
    yc = yc + f32(1)
    ys = fma(np.full_like(z64, _SIN[0]), z64, _SIN[1])
    ys = fma(ys.astype(f64), z64, _SIN[2])
    ys = ys * z
    ys = fma(ys.astype(f64), x64, x64)
    # Bit 1 of j swaps the polynomials; the selection in avx_mathfun is an add with +0,
    # which turns a -0 into +0, hence the "+ 0".
    swap = (j & 2) != 0
    s = np.where(swap, yc, ys) + f32(0)
    c = np.where(swap, ys, yc) + f32(0)
    sin_sign = (j & 4) << 29
    cos_sign = (~(j - 2) & 4) << 29
    s = (s.view(np.int32) ^ sin_sign).view(f32)
    c = (c.view(np.int32) ^ cos_sign).view(f32)
    return s, c


def _pairs(u_log: np.ndarray, u_trig: np.ndarray, careful: bool):
    fma = _Fma(careful)
    radius = np.sqrt(f32(-2) * _log(f32(1) - u_log, fma))
    s, c = _sincos(_TWO_PI * u_trig, fma)
    return radius * c, radius * s, fma.suspect


def box_muller_blocks(u: np.ndarray, mean: float, std: float) -> np.ndarray:
    """Transform float32 uniforms shaped (blocks, 16) into normals of the same shape.

    ``mean`` and ``std`` are applied as PyTorch does, with one fused multiply-add in
    float32 (``mean``/``std`` already rounded to float32 by the caller's conversion).
    """
    u = np.ascontiguousarray(u, dtype=f32).reshape(-1, 16)
    out = np.empty_like(u)
    m32, s32 = f32(mean), f32(std)
    identity = m32 == 0 and s32 == 1 and not np.signbit(m32)
    rows = max(1, CHUNK // 8)
    for start in range(0, u.shape[0], rows):
        blk = u[start : start + rows]
        lanes = (blk[:, :8].reshape(-1), blk[:, 8:].reshape(-1))
        n1, n2, suspect = _pairs(*lanes, careful=False)
        if suspect:
            n1, n2, _ = _pairs(*lanes, careful=True)
        if identity:
            # fma(n, 1, +0) is n + 0: identical except that it turns -0 into +0
            n1 = n1 + f32(0)
            n2 = n2 + f32(0)
        else:
            n1 = fma32(n1, s32, m32)
            n2 = fma32(n2, s32, m32)
        dst = out[start : start + rows]
        dst[:, :8] = n1.reshape(-1, 8)
        dst[:, 8:] = n2.reshape(-1, 8)
    return out
