"""Sleef's float32 vector kernels (the 1.0-ulp ``_u10`` variants), step for step in NumPy.

PyTorch's ``Vectorized<float>`` calls these for ``exp``, ``expm1`` and ``log1p`` (and
sigmoid, softplus and others build on them).  Each line mirrors one vector instruction of
the FMA build (AVX2 and AVX-512 give the same bits: the algorithms branch only on
subnormal corner cases that cannot reach them here), so the results are bit for bit
those of the vector unit.  Sleef's algorithms are published by Naoki Shibata under the
Boost licence; the constants below are its minimax coefficients.
"""

from __future__ import annotations

import numpy as np

from gradshell.core.kernels.fp32 import (
    F32,
    chunked,
    chunked2,
    df_add2_f2_f,
    df_add2_f2_f2,
    df_add2_f_f,
    df_add_f2_f,
    df_add_f2_f2,
    df_add_f_f,
    df_add_f_f2,
    df_div,
    df_mul_f2_f,
    df_mul_f2_f2,
    df_scale,
    df_squ,
    fma,
    getexp,
    getmant,
    horner,
    ldexp2,
    ldexp3,
    rint_int,
)

R_LN2F = F32(1.442695040888963407359924681001892137426645954152985934135449406931)
L2UF = F32(0.693145751953125)
L2LF = F32(1.428606765330187045e-06)
_EXPF_POLY = tuple(
    F32(c)
    for c in (
        0.00139304355252534151077271,
        0.00833336077630519866943359,
        0.0416664853692054748535156,
        0.166666671633720397949219,
        0.5,
    )
)


@chunked
def expf(d: np.ndarray) -> np.ndarray:
    """Sleef ``xexpf`` (u10) of a float32 array."""
    d = np.asarray(d, F32)
    with np.errstate(all="ignore"):
        q = rint_int(d * R_LN2F)
        qf = q.astype(F32)
        # s = fma(q, -L2U, d): L2U has 16 significant bits and |q| <= 150 where the result
        # is kept, so q*L2U is exact in float32 and the float32 subtraction is the fma.
        s = qf * L2UF
        np.subtract(d, s, out=s)
        # s = fma(q, -L2L, s): where q != 0, |d| > 0.34 makes d and q*L2U multiples of
        # 2**-25 and q*L2L is a multiple of 2**-43 below 2**-12; their sum, under 1, needs
        # at most 43 bits, so the float64 sum is exact and its one rounding is the fma's.
        s64 = np.multiply(qf, -float(L2LF), dtype=np.float64)
        s64 += s
        s = s64.astype(F32)
        # Horner steps: every result lies near its constant term (>= 0.0013), so none is
        # subnormal (normal=True); only the float64 midpoint test remains.
        u = horner(s, (F32(0.000198527617612853646278381), *_EXPF_POLY))
        # s*s*u + s: where s is below 2**-126 the product s*s is 0 and the sum exact;
        # elsewhere it stays above 0.79*|s| and far from the subnormal range... except
        # in [2**-126, 1.3*2**-126), where s*s*u vanishes beside s and the result is s.
        u = fma(s * s, u, s, normal=True)
        u += F32(1)
        u = ldexp2(u, q)
        lo, hi = d.min(initial=0), d.max(initial=0)
        if not (lo >= F32(-104) and hi <= F32(100)):  # rare: out of range (or NaN)
            u[d < F32(-104)] = F32(0)
            u[F32(100) < d] = F32(np.inf)
    return u


def _expk2f(d0: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sleef ``expk2f`` of the pair (d0, 0): exp as a double-float."""
    u = d0 * R_LN2F
    q = rint_int(u)
    qf = q.astype(F32)
    s = df_add2_f2_f((d0, np.zeros_like(d0)), qf * -L2UF)
    s = df_add2_f2_f(s, qf * -L2LF)
    u = horner(s[0], (0.1980960224e-3, 0.1394256484e-2, 0.8333456703e-2, 0.4166637361e-1))
    t = df_add2_f2_f(df_mul_f2_f(s, u), F32(0.166666659414234244790680580464e0))
    t = df_add2_f2_f(df_mul_f2_f2(s, t), F32(0.5))
    t = df_add2_f2_f2(s, df_mul_f2_f2(df_squ(s), t))
    t = df_add_f_f2(F32(1), t)
    tx, ty = ldexp2(t[0], q), ldexp2(t[1], q)
    if not d0.min(initial=0) >= F32(-104):  # rare (NaN lands here too)
        low = d0 < F32(-104)
        tx[low] = F32(0)
        ty[low] = F32(0)
    return tx, ty


@chunked
def expm1f(a: np.ndarray) -> np.ndarray:
    """Sleef ``xexpm1f`` (u10) of a float32 array."""
    a = np.asarray(a, F32)
    with np.errstate(all="ignore"):
        d = df_add2_f2_f(_expk2f(a), F32(-1))
        x = d[0] + d[1]
        hi, lo = F32(88.72283172607421875), F32(-16.635532333438687426013570)
        if not (a.min(initial=0) >= lo and a.max(initial=0) <= hi):  # rare (and NaN)
            x[a > hi] = F32(np.inf)
            x[a < lo] = F32(-1)
        zero = a == 0
        if zero.any():
            x[zero & np.signbit(a)] = F32(-0.0)
    return x


_LN2_PAIR = (F32(0.69314718246459960938), F32(-1.904654323148236017e-09))
LOG1PF_BOUND = F32(1e38)  # above it Sleef's log1pf returns logf_u1(d)


@chunked
def logf_u1(d: np.ndarray) -> np.ndarray:
    """Sleef ``xlogf_u1`` (u10) of a float32 array (the AVX-512 ``getexp``/``getmant`` form)."""
    d = np.asarray(d, F32)
    with np.errstate(all="ignore"):
        e = getexp(d * F32(1.0 / 0.75))
        e = np.where(np.isposinf(e), F32(128), e)
        m = getmant(d)
        s = df_mul_f2_f(_LN2_PAIR, e)
        x = df_div(df_add2_f_f(F32(-1), m), df_add2_f_f(F32(1), m))
        x2 = x[0] * x[0]
        t = horner(x2, (0.3027294874, 0.3996108174, 0.6666694880))
        s = df_add_f2_f2(s, df_scale(x, F32(2)))
        s = df_add_f2_f(s, (x2 * x[0]) * t)
        r = s[0] + s[1]
        # vfixupimm: log(+inf) = inf, log(±0) = -inf, log(<0) = nan, nan stays nan
        r = np.where(np.isposinf(d), F32(np.inf), r)
        r = np.where(d == 0, F32(-np.inf), r)
        r = np.where((d < 0) | np.isnan(d), F32(np.nan), r)
    return r.astype(F32, copy=False)


@chunked
def log1pf(d: np.ndarray) -> np.ndarray:
    """Sleef ``xlog1pf`` (u10) of a float32 array (the AVX-512 ``getexp`` form)."""
    d = np.asarray(d, F32)
    with np.errstate(all="ignore"):
        dp1 = d + F32(1)
        e = getexp(dp1 * F32(1.0 / 0.75))
        inf = np.isposinf(e)
        if inf.any():
            e[inf] = F32(128)
        t = ldexp3(np.ones_like(d), -rint_int(e))
        # m = fma(d, t, t - 1): t is a power of two, so d*t is exact, and d*t and t - 1
        # share their scale (t*(d+1) lies in [0.75, 1.5)): the float64 sum needs under 53
        # bits and is exact, so the cast rounds once, as the FMA does
        m64 = d.astype(np.float64)
        m64 *= t
        m64 += t - F32(1)
        m = m64.astype(F32)
        s = df_mul_f2_f(_LN2_PAIR, e)
        x = df_div((m, np.zeros_like(m)), df_add_f_f(F32(2), m))
        x2 = x[0] * x[0]
        t = horner(x2, (0.3027294874, 0.3996108174, 0.6666694880))
        s = df_add_f2_f2(s, df_scale(x, F32(2)))
        s = df_add_f2_f(s, (x2 * x[0]) * t)
        r = s[0] + s[1]
        lo, hi = d.min(initial=0), d.max(initial=0)
        if not (lo > F32(-1) and hi <= LOG1PF_BOUND):  # rare: the selects (NaN lands here)
            big = d > LOG1PF_BOUND  # where d + 1 would overflow the core's scaling
            if big.any():
                r[big] = logf_u1(d[big])
            r[F32(-1) > d] = F32(np.nan)
            r[d == F32(-1)] = F32(-np.inf)
        zero = d == 0
        if zero.any():
            r[zero & np.signbit(d)] = F32(-0.0)
    return r.astype(F32, copy=False)


def _vldexp(x: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Sleef's careful ``vldexp_vf_vf_vi2`` (four scalings, no overflow in between)."""
    q = q.astype(np.int32)
    m = q >> 31
    m = (((m + q) >> 6) - m) << 4
    q = q - (m << 2)
    m = m + 127
    m = np.where(m > 0, m, 0)
    m = np.where(m > 255, 255, m)
    u = (m.astype(np.int32) << 23).view(F32)
    x = x * u * u * u * u
    u = ((q + 127).astype(np.int32) << 23).view(F32)
    return x * u


_LOGK_C = (F32(0.66666662693023681640625), F32(3.69183861259614332084311e-09))


def _logkf(d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sleef ``logkf``: log(d) as a double-float (AVX-512 ``getexp``/``getmant`` form)."""
    e = getexp(d * F32(1.0 / 0.75))
    e = np.where(np.isposinf(e), F32(128), e)
    m = getmant(d)
    x = df_div(df_add2_f_f(F32(-1), m), df_add2_f_f(F32(1), m))
    x2 = df_squ(x)
    t = horner(x2[0], (0.240320354700088500976562, 0.285112679004669189453125,
                       0.400007992982864379882812))  # fmt: skip
    s = df_mul_f2_f(_LN2_PAIR, e)
    s = df_add_f2_f2(s, df_scale(x, F32(2)))
    return df_add_f2_f2(
        s, df_mul_f2_f2(df_mul_f2_f2(x2, x), df_add2_f2_f2(df_mul_f2_f(x2, t), _LOGK_C))
    )


def _expkf(d: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """Sleef ``expkf``: exp of a double-float, rounded to float32."""
    u = (d[0] + d[1]) * R_LN2F
    q = rint_int(u)
    qf = q.astype(F32)
    s = df_add2_f2_f(d, qf * -L2UF)
    s = df_add2_f2_f(s, qf * -L2LF)
    sx = s[0] + s[1]
    s = (sx, (s[0] - sx) + s[1])  # dfnormalize
    u = horner(s[0], (0.00136324646882712841033936, 0.00836596917361021041870117,
                      0.0416710823774337768554688, 0.166665524244308471679688,
                      0.499999850988388061523438))  # fmt: skip
    t = df_add_f2_f2(s, df_mul_f2_f(df_squ(s), u))
    t = df_add_f_f2(F32(1), t)
    u = _vldexp(t[0] + t[1], q)
    return np.where(d[0] < F32(-104), F32(0), u)


def _pow_kernel(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    ax = np.abs(x)
    ty = np.trunc(y)
    big = np.abs(y) > F32(1 << 24)
    yisint = (ty == y) | big
    small_int = np.where(np.abs(ty) < 2.0**31, ty, 0).astype(np.int64)
    yisodd = ((small_int & 1) == 1) & yisint & ~big
    result = _expkf(df_mul_f2_f(_logkf(ax), y))
    result = np.where(np.isnan(result), F32(np.inf), result)
    sign = np.where(yisint, np.where(yisodd, F32(-1), F32(1)), F32(np.nan))
    result = result * np.where(x > 0, F32(1), sign)
    efx = (ax - F32(1)) * np.where(np.signbit(y), F32(-1), F32(1))  # vmulsign(|x| - 1, y)
    inf_y = np.where(efx < 0, F32(0), np.where(efx == 0, F32(1), F32(np.inf)))
    result = np.where(np.isinf(y), inf_y, result)
    zy = np.where(x == 0, -y, y)
    mag = np.where(zy < 0, F32(0), F32(np.inf))
    sgn = np.where(yisodd, np.where(np.signbit(x), F32(-1), F32(1)), F32(1))
    result = np.where(np.isinf(x) | (x == 0), sgn * mag, result)
    result = np.where(np.isnan(x) | np.isnan(y), F32(np.nan), result)
    return np.where((y == 0) | (x == 1), F32(1), result)


@chunked2
def powf(x: np.ndarray, y) -> np.ndarray:
    """Sleef ``xpowf`` (u10) of float32 arrays (broadcasting)."""
    x, y = np.broadcast_arrays(np.asarray(x, F32), np.asarray(y, F32))
    with np.errstate(all="ignore"):
        return _pow_kernel(np.asarray(x, order="C"), np.asarray(y, order="C")).astype(F32)
