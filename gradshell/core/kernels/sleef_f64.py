"""Sleef's float64 vector ``exp``, ``expm1``, ``log1p`` and ``log`` (the 1.0-ulp ``u10``
variants), step for step in NumPy.

PyTorch's ``Vectorized<double>`` calls them: exp in float64 sigmoid and softplus on their
vector blocks, expm1 and log1p over whole tensors, log in log_softmax.  Fused
multiply-adds go through the exact float64 FMA of :mod:`gradshell.core.fma`; polynomials
follow Sleef's Estrin schemes (``POLY7``, ``POLY10``) where the FMA build uses them.
"""

from __future__ import annotations

import numpy as np

from gradshell.core.fma import fma64, fma64_unchecked
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


def _poly4(x, x2, c3, c2, c1, c0, fma=fma64):
    return fma(x2, fma(x, c3, c2), fma(x, c1, c0))


def _poly10(x, x2, x4, x8, c, fma=fma64):
    """Sleef's POLY10 (Estrin): c[0] is the highest coefficient."""
    hi = fma(x, c[0], c[1])  # POLY2(x, c9, c8)
    p8 = fma(x4, _poly4(x, x2, *c[2:6], fma=fma), _poly4(x, x2, *c[6:10], fma=fma))
    return fma(x8, hi, p8)


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
        # Every FMA here meets fma64_unchecked's terms: finite operands (the lanes out of
        # range were zeroed above), |s| <= 0.35, and constant terms of 1e-9 and more,
        # beside which a product small enough to underflow is negligible.
        f = fma64_unchecked
        s = f(u, -L2U, np.where(finite, d, 0.0))
        s = f(u, -L2L, s)
        s2 = s * s
        s4 = s2 * s2
        s8 = s4 * s4
        p = _poly10(s, s2, s4, s8, _EXP_POLY, fma=f)
        p = f(p, s, 0.5)
        p = f(p, s, 1.0)
        p = f(p, s, 1.0)
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


def _dd_add_d_d(x, y):  # |x| >= |y| assumed
    rx = x + y
    return rx, (x - rx) + y


def _dd_add_d2_d2(x, y):  # |x| >= |y| assumed
    rx = x[0] + y[0]
    return rx, (((x[0] - rx) + y[0]) + x[1]) + y[1]


def _dd_add_d2_d(x, y):  # |x| >= |y| assumed
    rx = x[0] + y
    return rx, ((x[0] - rx) + y) + x[1]


_SAFE = 2.0**450  # Veltkamp splits and Dekker's partial products stay finite below it
_TINY = 2.0**-450  # products above it leave Dekker's error terms clear of underflow


def _split(a):
    t = a * 134217729.0  # 2**27 + 1
    hi = t - (t - a)
    return hi, a - hi


def _prod_err(x, y, rx):
    """``fma64(x, y, -rx)`` for ``rx`` the float64 product ``x*y``: Dekker's exact product
    error, which needs no rounding (elements near the range limits take the exact FMA)."""
    x = np.asarray(x, np.float64)
    with np.errstate(all="ignore"):
        xh, xl = _split(x)
        yh, yl = _split(np.asarray(y, np.float64)) if np.ndim(y) else _split(float(y))
        e = xh * yh - rx
        e += xh * yl
        e += xl * yh
        e += xl * yl
        e = np.asarray(e)
        ar = np.abs(rx)
        ok = (ar > _TINY) & (ar < _SAFE) & (np.abs(x) < _SAFE) & (np.abs(y) < _SAFE)
    if not ok.all():
        bad = ~np.broadcast_to(ok, e.shape)
        e = np.array(e)
        e[bad] = fma64(np.broadcast_to(x, e.shape)[bad], np.broadcast_to(y, e.shape)[bad],
                       -np.broadcast_to(rx, e.shape)[bad])  # fmt: skip
    return e


def _recip_err(d, t):
    """``fma64(-d, t, 1)`` for ``t`` the float64 quotient ``1/d``: d*t = p + e exactly
    (Dekker), 1 - p is exact (p lies in [1/2, 2]), so ``(1 - p) - e`` rounds once."""
    with np.errstate(all="ignore"):
        p = d * t
        e = _prod_err(d, t, p)
        r = 1.0 - p
        r -= e
        ok = (p >= 0.5) & (p <= 2.0)
    if not ok.all():
        r[~ok] = fma64(-d[~ok], t[~ok], 1.0)
    return r


def _dd_mul_d2_d(x, y):
    rx = x[0] * y
    return rx, fma64(x[1], y, _prod_err(x[0], y, rx))


def _dd_div(n, d):
    t = 1.0 / d[0]
    s = n[0] * t
    u = _prod_err(t, n[0], s)
    v = fma64(-d[1], t, _recip_err(d[0], t))
    return s, fma64(s, v, fma64(n[1], t, u))


def _dd_add2_d2_d(x, y):
    rx = x[0] + y
    v = rx - x[0]
    return rx, ((x[0] - (rx - v)) + (y - v)) + x[1]


def _dd_add2_d2_d2(x, y):
    rx = x[0] + y[0]
    v = rx - x[0]
    return rx, ((x[0] - (rx - v)) + (y[0] - v)) + (x[1] + y[1])


def _dd_add_d_d2(x, y):
    rx = x + y[0]
    return rx, ((x - rx) + y[0]) + y[1]


def _dd_mul_d2_d2(x, y):
    rx = x[0] * y[0]
    return rx, fma64(x[0], y[1], fma64(x[1], y[0], _prod_err(x[0], y[0], rx)))


def _dd_squ(x):
    rx = x[0] * x[0]
    return rx, fma64(x[0] + x[0], x[1], _prod_err(x[0], x[0], rx))


_EXPK2_POLY = (
    0.2092255183563157007e-8,
    0.2505230023782644465e-7,
    0.2755724800902135303e-6,
    0.2755731892386044373e-5,
    0.2480158735605815065e-4,
    0.1984126984148071858e-3,
    0.1388888888886763255e-2,
    0.8333333333333347095e-2,
    0.4166666666666669905e-1,
)


def _expk2(d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sleef ``expk2`` of the pair (d, 0): exp as a double-double (d finite, |d| < 2**31)."""
    dq = np.rint(d * R_LN2)
    q = dq.astype(np.int64)
    s = _dd_add2_d2_d((d, np.zeros_like(d)), dq * -L2U)
    s = _dd_add2_d2_d(s, dq * -L2L)
    s2 = _dd_squ(s)
    s4 = _dd_squ(s2)
    # |s| <= 0.35 and constant terms of 2e-9 and more: fma64_unchecked's terms (see expd)
    coeffs = (0.1602472219709932072e-9, *_EXPK2_POLY)
    u = _poly10(s[0], s2[0], s4[0], s4[0] * s4[0], coeffs, fma=fma64_unchecked)
    t = _dd_add2_d2_d(_dd_mul_d2_d(s, u), 0.1666666666666666574e0)
    t = _dd_add2_d2_d(_dd_mul_d2_d2(s, t), 0.5)
    t = _dd_add2_d2_d2(s, _dd_mul_d2_d2(_dd_squ(s), t))
    t = _dd_add_d_d2(1.0, t)
    tx, ty = _ldexp2(t[0], q), _ldexp2(t[1], q)
    low = d < -1000
    tx[low] = 0.0
    ty[low] = 0.0
    return tx, ty


@chunked
def expm1d(a: np.ndarray) -> np.ndarray:
    """Sleef ``xexpm1`` (u10) of a float64 array, with exact FMAs."""
    a = np.asarray(a, np.float64)
    with np.errstate(all="ignore"):
        inside = np.abs(a) < 1000  # the selects below decide the rest (and NaN)
        d = _dd_add2_d2_d(_expk2(np.where(inside, a, 0.0)), -1.0)
        x = d[0] + d[1]
        x[~inside] = np.nan
        x[a > 709.782712893383996732223] = np.inf
        x[a < -36.736800569677101399113302437] = -1.0
        x[(a == 0) & np.signbit(a)] = -0.0
    return x


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


def _log_core(e: np.ndarray, x: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """Sleef's shared tail of log and log1p: e*ln2 + 2x + x^3 * POLY7(x^2), as a sum of a
    double-double, for the exponent `e` and the double-double x = (m-1)/(m+1)."""
    x2 = x[0] * x[0]
    x4 = x2 * x2
    x8 = x4 * x4
    c = _LOG_POLY  # POLY7 (Estrin) in x2
    # x2 <= 0.04 and constant terms of 0.15 and more: fma64_unchecked's terms (lanes with
    # infinities or NaNs give NaN here and are replaced by the caller's selects)
    f = fma64_unchecked
    hi = f(x4, c[0], f(x2, c[1], c[2]))
    lo = f(x4, f(x2, c[3], c[4]), f(x2, c[5], c[6]))
    t = f(x8, hi, lo)
    s = _dd_mul_d2_d((0.693147180559945286226764, 2.319046813846299558417771e-17), e)
    s = _dd_add_d2_d2(s, (x[0] * 2.0, x[1] * 2.0))
    s = _dd_add_d2_d(s, (x2 * x[0]) * t)
    return s[0] + s[1]


LOG1P_BOUND = 1e307  # above it Sleef's log1p returns log(d)


@chunked
def log1pd(d: np.ndarray) -> np.ndarray:
    """Sleef ``xlog1p`` (u10) of a float64 array (the AVX-512 ``getexp`` form)."""
    d = np.asarray(d, np.float64)
    with np.errstate(all="ignore"):
        dp1 = d + 1.0
        e = _getexp(dp1 * (1.0 / 0.75))
        e[np.isposinf(e)] = 1024.0
        q = np.where(np.isfinite(e), -e, 0.0).astype(np.int64)
        t = ((q + 1023) << 52).view(np.float64)  # ldexp3(1, -e): the exponent field
        m = fma64(d, t, t - 1.0)
        x = _dd_div((m, np.zeros_like(m)), _dd_add_d_d(2.0, m))
        r = _log_core(e, x)
        big = d > LOG1P_BOUND
        if big.any():
            r[big] = logd(d[big])
        r[(d < -1) | np.isnan(d)] = np.nan
        r[d == -1] = -np.inf
        r[(d == 0) & np.signbit(d)] = -0.0
    return r


def logd(d: np.ndarray) -> np.ndarray:
    """Sleef ``xlog_u1`` (u10) of a float64 array (the AVX-512 ``getexp``/``getmant`` form),
    with exact FMAs (it is applied to few elements: one per softmax row)."""
    d = np.asarray(d, np.float64)
    with np.errstate(all="ignore"):
        e = _getexp(d * (1.0 / 0.75))
        e[np.isposinf(e)] = 1024.0
        m = _getmant(d)
        x = _dd_div(_dd_add2_d_d(-1.0, m), _dd_add2_d_d(1.0, m))
        r = _log_core(e, x)
        # vfixupimm: log(+inf) = inf, log(±0) = -inf, log(<0) = nan, nan stays nan
        r[np.isposinf(d)] = np.inf
        r[d == 0] = -np.inf
        r[(d < 0) | np.isnan(d)] = np.nan
    return r
