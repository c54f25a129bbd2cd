"""Sleef's float64 vector ``exp`` (the 1.0-ulp ``xexp``), step for step in NumPy.

PyTorch's ``Vectorized<double>::exp`` calls it, so float64 sigmoid and softplus use it
on their vector blocks.  Fused multiply-adds go through the exact float64 FMA of
:mod:`gradshell.core.fma`; the polynomial is Sleef's Estrin scheme (``POLY10``).
"""

from __future__ import annotations

import numpy as np

from gradshell.core.fma import fma64
from gradshell.core.kernels.fp32 import chunked

R_LN2 = 1.442695040888963407359924681001892137426645954152985934135449406931
L2U = 0.69314718055966295651160180568695068359375
L2L = 0.28235290563031577122588448175013436025525412068e-12

_EXP_POLY = (
    0.2081276378237164457e-8,
    0.2511210703042288022e-7,
    0.2755762628169491192e-6,
    0.2755723402025388239e-5,
    0.2480158687479686264e-4,
    0.1984126989855865850e-3,
    0.1388888888914497797e-2,
    0.8333333333314938210e-2,
    0.4166666666666602598e-1,
    0.1666666666666669072e0,
)


def _poly4(x, x2, c3, c2, c1, c0):
    return fma64(x2, fma64(x, c3, c2), fma64(x, c1, c0))


def _poly10(x, x2, x4, x8, c):
    """Sleef's POLY10 (Estrin): c[0] is the highest coefficient."""
    hi = fma64(x, c[0], c[1])  # POLY2(x, c9, c8)
    p8 = fma64(x4, _poly4(x, x2, *c[2:6]), _poly4(x, x2, *c[6:10]))
    return fma64(x8, hi, p8)


def _pow2i(q: np.ndarray) -> np.ndarray:
    return ((q.astype(np.int64) + 1023) << 52).view(np.float64)


def _ldexp2(d: np.ndarray, q: np.ndarray) -> np.ndarray:
    h = q >> 1
    return d * _pow2i(h) * _pow2i(q - h)


@chunked
def expd(d: np.ndarray) -> np.ndarray:
    """Sleef ``xexp`` (u10) of a float64 array."""
    d = np.asarray(d, np.float64)
    with np.errstate(all="ignore"):
        u = np.rint(d * R_LN2)
        finite = np.isfinite(u) & (np.abs(u) < 2.0**31)
        u = np.where(finite, u, 0.0)  # out-of-range lanes are replaced by the selects below
        q = u.astype(np.int32)
        s = fma64(u, -L2U, np.where(finite, d, 0.0))
        s = fma64(u, -L2L, s)
        s2 = s * s
        s4 = s2 * s2
        s8 = s4 * s4
        p = _poly10(s, s2, s4, s8, _EXP_POLY)
        p = fma64(p, s, 0.5)
        p = fma64(p, s, 1.0)
        p = fma64(p, s, 1.0)
        r = _ldexp2(p, q)
        r = np.where(d > 709.78271114955742909217217426, np.inf, r)
        r = np.where(d < -1000, 0.0, r)
        r = np.where(np.isnan(d), d, r)
    return r


def logd(d: np.ndarray) -> np.ndarray:
    """Sleef ``xlog_u1`` stand-in: NumPy's float64 log (not reproduced step for step yet)."""
    with np.errstate(all="ignore"):
        return np.log(np.asarray(d, np.float64))
