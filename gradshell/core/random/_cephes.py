"""PyTorch's AVX2 float32 Box-Muller block, emulated exactly on NumPy.

For a contiguous float32 tensor of 16 or more elements, PyTorch's x86-64 kernel turns each
block of 16 uniforms into 16 normals 8 lanes at a time: lanes 0-7 give
``radius = sqrt(-2*log(1 - u))`` and lanes 8-15 give ``theta = 2*pi*u``; lane k receives
``radius*cos(theta)`` and lane k+8 ``radius*sin(theta)``.  ``log`` and ``sincos`` are the
single-precision Cephes polynomials of Pommier's ``avx_mathfun``, evaluated in float32 with
the multiply-adds that GCC fuses under ``-mfma``.

Every float32 operation here is a NumPy float32 operation (IEEE, so identical).  Every fused
multiply-add ``fma(a, b, c)`` of float32 values is emulated in float64, where ``a*b`` is
exact, in one of three ways:

* Horner steps of ``log``: the float64 sum ``a*b + c`` is itself exact (the operands are
  float32s on a 2^-23 grid whose magnitudes stay within a factor of eight), so casting it to
  float32 is the single rounding of the FMA;
* the first two Horner steps of the sin and cos polynomials: their results stay inside one
  binade, so adding ``c + M`` (``M = 1.5 * 2**(e+29)``) rounds the exact ``a*b + c`` once, to
  the float32 grid of that binade, and subtracting ``M`` recovers it exactly;
* the others (one in ``log``, one each in sin and cos, and the optional ``mean``/``std``
  step): the float64 sum may round before the float32 rounding, which can only matter when
  it lands exactly on a float32 midpoint; the kernel records whether that ever happens and
  recomputes such a chunk with an exact correction.

The three-part Cody-Waite reduction ``x = theta - j*pi/4`` is exact in float64 as a whole
(``DP1``/``DP2`` have 8 and 11 significant bits), so one cast gives PyTorch's three fused
steps.
"""

from __future__ import annotations

import threading

import numpy as np

from gradshell.core.fma import fix_f32_midpoints, fma32

from ._parallel import run_chunks

f32 = np.float32
f64 = np.float64
i32 = np.int32

# Cephes single-precision coefficients (public domain, S. L. Moshier), as in avx_mathfun.
_LOG_P = [
    float(f32(c))
    for c in (
        7.0376836292e-2,
        -1.1514610310e-1,
        1.1676998740e-1,
        -1.2420140846e-1,
        1.4249322787e-1,
        -1.6668057665e-1,
        2.0000714765e-1,
        -2.4999993993e-1,
        3.3333331174e-1,
    )
]
_LOG_Q1 = f32(-2.12194440e-4)
_LOG_Q2 = f32(0.693359375)
_SQRTHF_BITS = int(f32(0.707106781186547524).view(i32))
_FOPI = f32(1.27323954473516)  # 4/pi
_DP1 = f32(-0.78515625)
_DP2 = f32(-2.4187564849853515625e-4)
_DP3 = f32(-3.77489497744594108e-8)
# DP1 + DP2 + DP3 is exact in float64 (48 bits), and j * it (j <= 8) too.
_DP123 = float(_DP1) + float(_DP2) + float(_DP3)
_SIN = [float(f32(c)) for c in (-1.9515295891e-4, 8.3321608736e-3, -1.6666654611e-1)]
_COS = [
    float(f32(c)) for c in (2.443315711809948e-005, -1.388731625493765e-003, 4.166664568298827e-002)
]
# 2*pi as float, times 2^-24: theta = RN(k * _THETA) for the 24-bit integer k of a uniform
_THETA = float(f32(2.0 * np.pi)) * 2.0**-24


def _magic(binade: int) -> float:
    # 1.5 * 2**(binade + 29): its float64 ulp is the float32 ulp of that binade
    return 1.5 * 2.0 ** (binade + 29)


# (constant + M, M) for the Horner steps whose results stay in one binade:
# cos: [-1.39e-3, -1.37e-3] (2^-10) then [0.0408, 0.0417] (2^-5);
# sin: [8.21e-3, 8.33e-3] (2^-7) then [-0.16667, -0.1616] (2^-3).
_M_C1, _M_C2, _M_S1, _M_S2 = _magic(-10), _magic(-5), _magic(-7), _magic(-3)
_COS1 = (_COS[1] + _M_C1, _M_C1)
_COS2 = (_COS[2] + _M_C2, _M_C2)
_SIN1 = (_SIN[1] + _M_S1, _M_S1)
_SIN2 = (_SIN[2] + _M_S2, _M_S2)

_INT64_MIN = np.iinfo(np.int64).min
CHUNK = 16384  # lanes per pass: every temporary stays inside the L2 cache


class Kernel:
    """Scratch buffers for up to ``size`` lanes, and the log/sincos emulation over them."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.f32 = [np.empty(size, f32) for _ in range(8)]
        self.f64 = [np.empty(size, f64) for _ in range(6)]
        self.i32 = [np.empty(size, i32) for _ in range(4)]
        self.check = np.empty(size, np.int64)
        self.radius_out = np.empty(size, f32)
        self.sin_out = np.empty(size, f32)
        self.cos_out = np.empty(size, f32)
        self.suspect = False

    def _note(self, s: np.ndarray) -> None:
        # A float64 sum exactly on a float32 midpoint has low 29 bits 0x10000000.
        chk = self.check[: s.size].reshape(s.shape)
        np.left_shift(s.view(np.int64), 35, out=chk)
        if chk.min() == _INT64_MIN:
            self.suspect = True

    def _fma_checked(self, p: np.ndarray, c: np.ndarray, out32: np.ndarray) -> None:
        # out32 = RN32(p + c) for exact float64 addends p and c (p is overwritten)
        s = np.add(p, c, out=p)
        np.copyto(out32, s, casting="same_kind")
        self._note(s)

    def scale_shift(self, v: np.ndarray, std: np.float32, mean: np.float32) -> None:
        """In place ``v = fma(v, std, mean)`` in float32 (v holds Box-Muller normals)."""
        n = v.size
        p = self.f64[0][:n].reshape(v.shape)
        np.copyto(p, v)
        np.multiply(p, float(std), out=p)
        self.suspect = False
        np.add(p, float(mean), out=p)
        self._note(p)
        if not self.suspect and _no_subnormal_or_overflow(std, mean):
            np.copyto(v, p, casting="same_kind")
            return
        big = np.abs(p, out=self.f64[1][:n].reshape(v.shape))
        lo, hi = big.min(), big.max()
        if self.suspect or (lo < 2.0**-126 and (p != 0).any()) or not hi < 3.0e38:
            v[...] = fma32(v, std, mean)  # midpoints, subnormals, overflow: the exact path
        else:
            np.copyto(v, p, casting="same_kind")

    def radius(self, words: np.ndarray, out: np.ndarray, careful: bool = False) -> None:
        """``sqrt(-2*log(1 - U24(w)))`` in float32 for 32-bit words ``w`` (uint32)."""
        n, shape = words.size, words.shape
        a, b, x, z, y, e, t, eq = (v[:n].reshape(shape) for v in self.f32)
        x64, z64, y64, p64 = (v[:n].reshape(shape) for v in self.f64[:4])
        bits, mb, k = (v[:n].reshape(shape) for v in self.i32[:3])
        # u1 = 1 - U24 = K * 2^-24 with K = 2^24 - (w & 0xffffff) in [1, 2^24]: work with
        # float(K), whose mantissa is u1's and whose exponent is 24 higher.
        np.bitwise_and(words, 0xFFFFFF, out=k.view(np.uint32))
        np.subtract(0x1000000, k, out=k)
        np.copyto(a, k, casting="unsafe")
        a_bits = a.view(i32)
        np.bitwise_and(a_bits, 0x007FFFFF, out=mb)
        np.bitwise_or(mb, 0x3F000000, out=mb)
        # small = -1 where the mantissa m in [0.5, 1) is below sqrt(1/2), else 0; there use
        # 2m (exponent bit + 1) and e - 1
        np.subtract(mb, _SQRTHF_BITS, out=bits)
        np.right_shift(bits, 31, out=bits)
        np.bitwise_and(bits, 1 << 23, out=k)
        np.add(mb, k, out=mb)
        np.subtract(mb.view(f32), f32(1), out=x)
        np.right_shift(a_bits, 23, out=k)
        np.add(k, bits, out=k)
        np.subtract(k, 150, out=k)  # biased exponent - 127 - 24 + 1
        np.copyto(e, k, casting="unsafe")
        np.multiply(x, x, out=z)
        np.copyto(x64, x)
        # Horner: each float64 sum is exact, so the cast is the FMA's only rounding
        np.multiply(x64, _LOG_P[0], out=y64)
        np.add(y64, _LOG_P[1], out=y64)
        for c in _LOG_P[2:]:
            np.copyto(y, y64, casting="same_kind")
            np.copyto(y64, y)
            np.multiply(y64, x64, out=y64)
            np.add(y64, c, out=y64)
        np.copyto(y, y64, casting="same_kind")
        np.multiply(y, x, out=y)
        # y = fma(y, z, e*q1)
        np.multiply(e, _LOG_Q1, out=eq)
        np.copyto(y64, y)
        np.copyto(z64, z)
        np.multiply(y64, z64, out=y64)
        np.copyto(p64, eq)
        if careful:
            _fma_exact(y64, p64, y)
        else:
            self._fma_checked(y64, p64, y)
        np.multiply(z, f32(0.5), out=t)
        np.subtract(y, t, out=y)
        np.add(x, y, out=x)
        np.multiply(e, _LOG_Q2, out=t)
        np.add(x, t, out=x)
        np.multiply(x, f32(-2), out=x)
        np.sqrt(x, out=out)

    def sincos(
        self, words: np.ndarray, out_sin: np.ndarray, out_cos: np.ndarray, careful: bool = False
    ) -> None:
        """Cephes float32 ``sin``/``cos`` of ``theta = 2*pi*U24(w)`` for words ``w``."""
        n, shape = words.size, words.shape
        th, x, z, ys, yc, t = (v[:n].reshape(shape) for v in self.f32[:6])
        x64, z64, p64, q64, h64 = (v[:n].reshape(shape) for v in self.f64[:5])
        k, j, sw, sg = (v[:n].reshape(shape) for v in self.i32)
        np.bitwise_and(words, 0xFFFFFF, out=k.view(np.uint32))
        np.copyto(th, k, casting="unsafe")
        np.multiply(th, _THETA, out=th, casting="same_kind")  # RN(2pi_f * U24)
        np.multiply(th, _FOPI, out=t)
        np.copyto(j, t, casting="unsafe")  # truncation
        np.add(j, 1, out=j)
        np.bitwise_and(j, ~1, out=j)
        # x = theta - j*(DP1 + DP2 + DP3): exact in float64, one rounding to float32
        np.copyto(h64, j)
        np.copyto(x64, th)
        np.multiply(h64, _DP123, out=p64)
        np.add(x64, p64, out=x64)
        np.copyto(x, x64, casting="same_kind")
        np.multiply(x, x, out=z)
        np.copyto(z64, z)
        np.copyto(x64, x)
        # cos polynomial: two one-binade FMAs, a plain product, a checked FMA, + 1
        np.multiply(z64, _COS[0], out=p64)
        np.add(p64, _COS1[0], out=p64)
        np.subtract(p64, _COS1[1], out=p64)
        np.multiply(p64, z64, out=p64)
        np.add(p64, _COS2[0], out=p64)
        np.subtract(p64, _COS2[1], out=p64)
        np.multiply(p64, z64, out=p64)  # exact; the cast below is RN32(y*z)
        np.copyto(yc, p64, casting="same_kind")
        np.copyto(p64, yc)
        np.multiply(p64, z64, out=p64)
        np.multiply(z64, -0.5, out=q64)
        if careful:
            _fma_exact(p64, q64, yc)
        else:
            self._fma_checked(p64, q64, yc)
        np.add(yc, f32(1), out=yc)
        # sin polynomial: the same, ending in fma(y, x, x)
        np.multiply(z64, _SIN[0], out=p64)
        np.add(p64, _SIN1[0], out=p64)
        np.subtract(p64, _SIN1[1], out=p64)
        np.multiply(p64, z64, out=p64)
        np.add(p64, _SIN2[0], out=p64)
        np.subtract(p64, _SIN2[1], out=p64)
        np.multiply(p64, z64, out=p64)
        np.copyto(ys, p64, casting="same_kind")
        np.copyto(p64, ys)
        np.multiply(p64, x64, out=p64)
        if careful:
            _fma_exact(p64, x64, ys)
        else:
            self._fma_checked(p64, x64, ys)
        # j/2 mod 4 rotates (cos, sin): bit 1 of j swaps the polynomials, and sign masks
        # come from bits of j (sin: j & 4; cos: (j + 2) & 4).  ys is never -0 here, so the
        # select-by-addition of avx_mathfun equals a plain select.
        np.left_shift(j, 30, out=sw)
        np.right_shift(sw, 31, out=sw)  # 0 or -1: swap the polynomials
        ysb, ycb = ys.view(i32), yc.view(i32)
        np.bitwise_xor(ysb, ycb, out=k)
        np.bitwise_and(k, sw, out=k)
        np.bitwise_and(j, 4, out=sg)
        np.left_shift(sg, 29, out=sg)
        np.bitwise_xor(sg, k, out=sg)
        np.bitwise_xor(ysb, sg, out=out_sin.view(i32))
        np.add(j, 2, out=sg)
        np.bitwise_and(sg, 4, out=sg)
        np.left_shift(sg, 29, out=sg)
        np.bitwise_xor(sg, k, out=sg)
        np.bitwise_xor(ycb, sg, out=out_cos.view(i32))


def _fma_exact(p: np.ndarray, c: np.ndarray, out32: np.ndarray) -> None:
    # out32 = RN32(p + c) exactly, for exact float64 addends (the slow, careful path)
    s = p + c
    r = s.astype(f32)
    fix_f32_midpoints(p, c, s, r)
    out32[...] = r


def _no_subnormal_or_overflow(std: np.float32, mean: np.float32) -> bool:
    # A non-zero Box-Muller normal here is at least 2^-38 in magnitude (radius >= 2^-11.5,
    # and no float32 angle lies within 2^-26 of a multiple of pi/2) and below 6, so with
    # std >= 2^-10 every non-zero exact n*std + mean is a multiple of 2^-94 or of mean's
    # grid (>= 2^-123): never subnormal; the last bound keeps it far from overflow.
    s, m = abs(float(std)), abs(float(mean))
    return (s == 0 or s >= 2.0**-10) and (m == 0 or m >= 2.0**-100) and m + 8 * s < 1e38


_local = threading.local()


def kernel(size: int) -> Kernel:
    """A kernel with scratch space for ``size`` lanes, cached per thread."""
    cache = getattr(_local, "kernels", None)
    if cache is None:
        cache = _local.kernels = {}
    k = cache.get(size)
    if k is None:
        if len(cache) > 8:
            cache.clear()
        k = cache[size] = Kernel(size)
    return k


def box_muller_words(
    words: np.ndarray, mean: float, std: float, out: np.ndarray | None = None
) -> np.ndarray:
    """Normals from 32-bit words shaped (blocks, 16), as PyTorch's float32 fill kernel.

    ``mean``/``std`` are applied with one float32 FMA (they are float32 in the kernel).
    Writes into ``out`` (shape (blocks, 16), float32) when given.
    """
    words = words.reshape(-1, 16)
    blocks = words.shape[0]
    if out is None:
        out = np.empty((blocks, 16), dtype=f32)
    m32, s32 = f32(mean), f32(std)
    identity = m32 == 0 and s32 == 1 and not np.signbit(m32)
    rows = CHUNK // 8
    lanes = min(CHUNK, 8 * blocks)

    def task(i: int) -> None:
        ker = kernel(lanes)
        blk = words[i * rows : (i + 1) * rows]
        n = blk.shape[0] * 8
        wl, wt = blk[:, :8], blk[:, 8:]  # strided views: the first ufunc reads them directly
        r = ker.radius_out[:n].reshape(-1, 8)
        s = ker.sin_out[:n].reshape(-1, 8)
        c = ker.cos_out[:n].reshape(-1, 8)
        ker.suspect = False
        ker.radius(wl, r)
        ker.sincos(wt, s, c)
        if ker.suspect:
            ker.radius(wl, r, careful=True)
            ker.sincos(wt, s, c, careful=True)
        dst = out[i * rows : (i + 1) * rows]
        np.multiply(r, c, out=dst[:, :8])
        np.multiply(r, s, out=dst[:, 8:])
        if identity:
            np.add(dst, f32(0), out=dst)  # fma(n, 1, +0) = n + 0 turns -0 into +0
        else:
            ker.scale_shift(dst[:, :8], s32, m32)
            ker.scale_shift(dst[:, 8:], s32, m32)

    run_chunks(task, -(-blocks // rows))
    return out
