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


# -- double-double steps (Sleef's dd.h, FMA variants) for logd ------------------------------
def _dd_add2_d_d(x, y):
    rx = x + y
    v = rx - x
    return rx, (x - (rx - v)) + (y - v)


def _dd_add_d2_d2(x, y):  # |x| >= |y| assumed
    rx = x[0] + y[0]
    return rx, (((x[0] - rx) + y[0]) + x[1]) + y[1]


def _dd_add_d2_d(x, y):  # |x| >= |y| assumed
    rx = x[0] + y
    return rx, ((x[0] - rx) + y) + x[1]


def _dd_mul_d2_d(x, y):
    rx = x[0] * y
    return rx, fma64(x[1], y, fma64(x[0], y, -rx))


def _dd_div(n, d):
    t = 1.0 / d[0]
    s = n[0] * t
    u = fma64(t, n[0], -s)
    v = fma64(-d[1], t, fma64(-d[0], t, 1.0))
    return s, fma64(s, v, fma64(n[1], t, u))


_LOG_POLY = (
    0.1532076988502701353e0,
    0.1525629051003428716e0,
    0.1818605932937785996e0,
    0.2222214519839380009e0,
    0.2857142932794299317e0,
    0.3999999999635251990e0,
    0.6666666666667333541e0,
)


def _getexp(x: np.ndarray) -> np.ndarray:
    """AVX-512 ``vgetexppd``: floor(log2|x|) (subnormals too), -inf at 0, inf, NaN."""
    _, e = np.frexp(np.abs(x))
    r = (e - 1).astype(np.float64)
    r[x == 0] = -np.inf
    r[np.isinf(x)] = np.inf
    r[np.isnan(x)] = np.nan
    return r


def _getmant(x: np.ndarray) -> np.ndarray:
    """AVX-512 ``vgetmantpd`` with the [0.75, 1.5) interval."""
    m, _ = np.frexp(np.abs(x))
    m = m * 2.0
    return np.where(m >= 1.5, m * 0.5, m)


def logd(d: np.ndarray) -> np.ndarray:
    """Sleef ``xlog_u1`` (u10) of a float64 array (the AVX-512 ``getexp``/``getmant`` form),
    with exact FMAs (it is applied to few elements: one per softmax row)."""
    d = np.asarray(d, np.float64)
    with np.errstate(all="ignore"):
        e = _getexp(d * (1.0 / 0.75))
        e[np.isposinf(e)] = 1024.0
        m = _getmant(d)
        x = _dd_div(_dd_add2_d_d(-1.0, m), _dd_add2_d_d(1.0, m))
        x2 = x[0] * x[0]
        x4 = x2 * x2
        x8 = x4 * x4
        c = _LOG_POLY  # POLY7 (Estrin) in x2
        hi = fma64(x4, c[0], fma64(x2, c[1], c[2]))
        lo = fma64(x4, fma64(x2, c[3], c[4]), fma64(x2, c[5], c[6]))
        t = fma64(x8, hi, lo)
        s = _dd_mul_d2_d((0.693147180559945286226764, 2.319046813846299558417771e-17), e)
        s = _dd_add_d2_d2(s, (x[0] * 2.0, x[1] * 2.0))
        s = _dd_add_d2_d(s, (x2 * x[0]) * t)
        r = s[0] + s[1]
        # vfixupimm: log(+inf) = inf, log(±0) = -inf, log(<0) = nan, nan stays nan
        r[np.isposinf(d)] = np.inf
        r[d == 0] = -np.inf
        r[(d < 0) | np.isnan(d)] = np.nan
    return r
