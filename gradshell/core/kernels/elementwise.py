"""PyTorch 2.13's CPU float kernels for exp, log, tanh, sigmoid, softplus, ... on NumPy arrays.

Which code computes an element in PyTorch depends on the op, the dtype and the element's
position (see ``loops``), measured against PyTorch 2.13's x86-64 build with AVX-512:

* ``sigmoid``, ``softplus``: ``cpu_kernel_vec``: Sleef's vector ``exp`` (and ``log1p``) on
  blocks of two vectors, the C library's ``exp``/``log1p`` on each thread's tail.
  Bit for bit.
* ``expm1``, ``log1p``: ``vec::map`` over Sleef's vector kernels, tails included.
  Bit for bit in float32 and float64.
* ``binary_cross_entropy``: a scalar-only loop over the C library's ``logf``/``log1pf``.
  Bit for bit.
* ``exp``, ``log``, ``tanh``, ``sin``, ``cos``: PyTorch hands these to Intel MKL's vector
  math library (high-accuracy mode), whose code is not published and differs between
  CPUs.  Here they are the correctly rounded value (the float64 result rounded once to
  float32), which is what MKL returns for most inputs: on an AMD EPYC with AVX-512,
  98.9% of random float32 inputs for exp, 99.8% for tanh, 95% for sin/cos; float32 log
  follows MKL's range reduction (98-99%, see ``log``).

Every function takes and returns a NumPy float32/float64 array; other dtypes are the
caller's business (PyTorch computes half types in float32 and casts back).
"""

from __future__ import annotations

import functools

import numpy as np

from gradshell.core.fma import fma64
from gradshell.core.kernels import fp32, libm, sleef_f32, sleef_f64
from gradshell.core.kernels.fp32 import CHUNK
from gradshell.core.kernels.loops import vec_and_scalar, vec_and_scalar2

F32 = np.float32


def _flat(fn):
    """Run `fn` on a 1-D view and give the result x's shape (0-d arrays included)."""

    @functools.wraps(fn)
    def wrapper(x: np.ndarray, *args) -> np.ndarray:
        x = np.asarray(x)
        if x.ndim == 1:
            return fn(x, *args)
        order = "F" if (x.flags.f_contiguous and not x.flags.c_contiguous) else "C"
        r = fn(x.ravel(order=order), *args)
        return r.reshape(x.shape, order=order)

    return wrapper


def _is32(x: np.ndarray) -> bool:
    return x.dtype == np.float32


def _rounded(fn, x: np.ndarray) -> np.ndarray:
    """`fn` in float64 rounded once to x's dtype (the correctly rounded value, nearly).

    float32 goes through one float64 buffer of ``CHUNK`` elements, reused for every block
    (converted in, computed in place, rounded out): three passes, no large temporaries.
    """
    with np.errstate(all="ignore"):
        if not _is32(x):
            return fn(x)
        n = x.size
        out = np.empty(n, np.float32)
        buf = np.empty(min(n, CHUNK), np.float64)
        for i in range(0, n, CHUNK):
            b = buf[: min(CHUNK, n - i)]
            np.copyto(b, x[i : i + CHUNK])
            fn(b, out=b)
            np.copyto(out[i : i + CHUNK], b, casting="unsafe")
        return out


# -- MKL-backed ops: the correctly rounded value ----------------------------------------
@_flat
def exp(x: np.ndarray) -> np.ndarray:
    """torch.exp's value (MKL's vsExp/vdExp): correctly rounded."""
    return _rounded(np.exp, x)


_LN2 = 0.6931471805599453
_LN2_HI = np.float32(0.693145751953125)  # ln 2 to 16 bits: e * _LN2_HI is exact
_LN2_LO = np.float32(_LN2 - float(_LN2_HI))


@_flat
def log(x: np.ndarray) -> np.ndarray:
    """torch.log's value (MKL's vsLn/vdLn).

    float32 follows the shape of MKL's result measured on this machine: x = 2^e m with m
    in [sqrt(1/2), sqrt(2)), and ``e*ln2_hi + (e*ln2_lo + log(m))`` in float32 (ln2_hi
    short enough for an exact product) with log(m) correctly rounded: 98-99% of random
    inputs as MKL (against 92-96% for the correctly rounded log), and ``exp(1).log()``
    gives 1 as in PyTorch.  float64: correctly rounded.
    """
    if not _is32(x):
        return _rounded(np.log, x)
    return _log32(x)


_SQRT2_MANT = 0x3504F4  # significand bits of the first float32 in [1, 2) above sqrt(2)


@fp32.blockwise
def _log32(x: np.ndarray) -> np.ndarray:
    bits = x.view(np.int32)
    if not (bits.min() >= 0x00800000 and bits.max() < 0x7F800000):
        return _log32_any(x)  # zeros, subnormals, negatives, inf, nan
    # positive normal x = 2^e * m, m in [sqrt(1/2), sqrt(2)), from the bits
    mant = np.bitwise_and(bits, 0x007FFFFF)
    top = np.greater_equal(mant, _SQRT2_MANT).view(np.int8)  # m >= sqrt(2): halve it
    e = np.right_shift(bits, 23)
    e -= 127
    e += top
    ef = e.astype(F32)
    np.subtract(127, top, out=e, dtype=np.int32)
    np.left_shift(e, 23, out=e)
    e |= mant
    logm = e.view(F32).astype(np.float64)
    np.log(logm, out=logm)
    r = ef * _LN2_LO
    r += logm.astype(F32)
    ef *= _LN2_HI
    r += ef
    return r


def _log32_any(x: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        m, e = np.frexp(x.astype(np.float64))
        low = m * 2.0 < np.sqrt(2.0)
        m = np.where(low, m * 2.0, m)
        ef = np.where(low, e - 1, e).astype(F32)
        r = ef * _LN2_HI + (ef * _LN2_LO + np.log(m).astype(F32))
        r = np.where(x == 0, F32(-np.inf), r)
        r = np.where(np.isposinf(x), F32(np.inf), r)
        r = np.where((x < 0) | np.isnan(x), F32(np.nan), r)
    return r.astype(F32, copy=False)


@_flat
def tanh(x: np.ndarray) -> np.ndarray:
    """torch.tanh's value (MKL's vsTanh/vdTanh): correctly rounded."""
    return _rounded(np.tanh, x)


@_flat
def sin(x: np.ndarray) -> np.ndarray:
    """torch.sin's value (MKL's vsSin/vdSin): correctly rounded."""
    return _rounded(np.sin, x)


@_flat
def cos(x: np.ndarray) -> np.ndarray:
    """torch.cos's value (MKL's vsCos/vdCos): correctly rounded."""
    return _rounded(np.cos, x)


# -- Sleef vec::map ops ------------------------------------------------------------------
@_flat
def expm1(x: np.ndarray) -> np.ndarray:
    """torch.expm1: Sleef's expm1 over every element."""
    if _is32(x):
        return sleef_f32.expm1f(x)
    return sleef_f64.expm1d(x)


@_flat
def log1p(x: np.ndarray) -> np.ndarray:
    """torch.log1p: Sleef's log1p over every element."""
    if _is32(x):
        return sleef_f32.log1pf(x)
    return sleef_f64.log1pd(x)


# -- cpu_kernel_vec ops: vector body, scalar tail ------------------------------------------
def _sigmoid_vec(x: np.ndarray) -> np.ndarray:
    one = x.dtype.type(1)
    with np.errstate(all="ignore"):
        e = (sleef_f32.expf if _is32(x) else sleef_f64.expd)(x.dtype.type(0) - x)
        return one / (e + one)


def _sigmoid_scalar(x: np.ndarray) -> np.ndarray:
    one = x.dtype.type(1)
    with np.errstate(all="ignore"):
        return one / (one + libm.call("exp", -x))


@_flat
def sigmoid(x: np.ndarray) -> np.ndarray:
    """torch.sigmoid: 1/(1+exp(-x)) with Sleef's exp on vector blocks, libm's on tails."""
    return vec_and_scalar(x, _sigmoid_vec, _sigmoid_scalar)


@_flat
def softplus(x: np.ndarray, beta: float = 1.0, threshold: float = 20.0) -> np.ndarray:
    """torch.nn.functional.softplus: log1p(exp(beta*x))/beta, x where beta*x > threshold."""
    t = x.dtype.type
    b, th = t(beta), t(threshold)

    def vec(v):
        with np.errstate(all="ignore"):
            bv = v * b
            if _is32(v):
                soft = sleef_f32.log1pf(sleef_f32.expf(bv)) / b
            else:
                soft = sleef_f64.log1pd(sleef_f64.expd(bv)) / b
        return np.where(bv > th, v, soft)

    def scalar(v):
        with np.errstate(all="ignore"):
            bv = v * b
            soft = libm.call("log1p", libm.call("exp", bv)) / b
        return np.where(bv > th, v, soft)

    return vec_and_scalar(x, vec, scalar)


def _vexp(x: np.ndarray) -> np.ndarray:
    return (sleef_f32.expf if _is32(x) else sleef_f64.expd)(x)


def _vlog1p(x: np.ndarray) -> np.ndarray:
    if _is32(x):
        return sleef_f32.log1pf(x)
    return sleef_f64.log1pd(x)


@_flat
def log_sigmoid(x: np.ndarray) -> np.ndarray:
    """torch.nn.functional.logsigmoid: min(x, 0) - log1p(exp(-|x|)), every element on the
    vector path (its kernel loads the tail as a partial vector)."""
    with np.errstate(all="ignore"):
        return np.minimum(x, x.dtype.type(0)) - _vlog1p(_vexp(-np.abs(x)))


def bce_with_logits(x: np.ndarray, t: np.ndarray, pos_weight=None) -> np.ndarray:
    """The elementwise loss of binary_cross_entropy_with_logits as PyTorch composes it:
    (1 - t) * x - log_sigmoid(x), or with pos_weight p: (1 - t) * x - ((p - 1) * t + 1) *
    log_sigmoid(x)."""
    one = x.dtype.type(1)
    ls = log_sigmoid(x)
    if pos_weight is None:
        return (one - t) * x - ls
    return (one - t) * x - ((pos_weight - one) * t + one) * ls


def binary_cross_entropy(x: np.ndarray, t: np.ndarray) -> np.ndarray | None:
    """The elementwise loss of torch.nn.functional.binary_cross_entropy as PyTorch's CPU
    loop computes it: ``(t - 1) * max(log1p(-x), -100) - t * max(log(x), -100)``.

    That loop has no vector path: every element goes through the C library's ``logf`` and
    ``log1pf`` (``log``/``log1p`` in float64), in plain arithmetic with no fused
    multiply-add.  Both differ from the correctly rounded log on some inputs (glibc's
    float log1p on about 7% of them), so they are called through ctypes, element by
    element: None (use NumPy) beyond ``libm.MAX_CALL`` elements, where that takes seconds.
    """
    if x.size > libm.MAX_CALL:
        return None
    ty = x.dtype.type
    with np.errstate(all="ignore"):
        log_x = np.maximum(libm.call("log", x), ty(-100))
        log_1mx = np.maximum(libm.call("log1p", -x), ty(-100))
        return (t - ty(1)) * log_1mx - t * log_x


def elu(x: np.ndarray, alpha: float = 1.0, scale: float = 1.0, input_scale: float = 1.0):
    """torch's elu: ``x * scale`` where x > 0, else ``expm1(x * input_scale) * alpha*scale``.

    ``cpu_kernel_vec``: Sleef's expm1 on the vector blocks, the C library's ``expm1`` on
    the scalar tails (measured: they differ on some inputs)."""
    ty = x.dtype.type
    neg, pos, ipt = ty(alpha * scale), ty(scale), ty(input_scale)

    def vec(v):
        with np.errstate(all="ignore"):
            m = expm1(v * ipt) * neg
        return np.where(v > 0, v * pos, m)

    def scalar(v):
        with np.errstate(all="ignore"):
            m = libm.call("expm1", v * ipt) * neg
        return np.where(v > 0, v * pos, m)

    return vec_and_scalar(x, vec, scalar)


def elu_backward(
    g: np.ndarray, x: np.ndarray, alpha: float = 1.0, scale: float = 1.0, input_scale: float = 1.0
) -> np.ndarray:
    """torch's elu_backward from the input x: ``g * scale`` where x > 0, else
    ``((g * input_scale) * (alpha * scale)) * exp(x * input_scale)`` in that order, Sleef's
    exp on the vector blocks and the C library's on the tails."""
    ty = x.dtype.type
    neg, pos, ipt = ty(alpha * scale), ty(scale), ty(input_scale)

    def make(exp_fn):
        def fn(gv, xv):
            with np.errstate(all="ignore"):
                m = gv * ipt * neg * exp_fn(xv * ipt)
            return np.where(xv > 0, gv * pos, m)

        return fn

    vexp = sleef_f32.expf if _is32(x) else sleef_f64.expd
    return vec_and_scalar2(
        np.asarray(g, order="C"),
        np.asarray(x, order="C"),
        make(vexp),
        make(lambda v: libm.call("exp", v)),
    )


def pow_scalar(x: np.ndarray, exponent: float) -> np.ndarray:
    """torch.pow(x, exponent) for a float32 x and an exponent other than PyTorch's special
    cases (0.5, -0.5, -1, 2, 3, -2): Sleef's powf on vector blocks, and on the tails the C
    library's double pow of (x, exponent) rounded to float32."""
    e32 = np.float32(exponent)

    def vec(v):
        return sleef_f32.powf(v, e32)

    def scalar(v):
        return libm.pow64(v, float(exponent)).astype(np.float32)

    return vec_and_scalar(np.asarray(x, np.float32), vec, scalar)


def pow_tensor(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """torch.pow(x, y) for same-shaped float32 tensors: Sleef's powf on vector blocks, the
    C library's powf on the tails."""

    def vec(a, b):
        return sleef_f32.powf(a, b)

    def scalar(a, b):
        # std::pow(float, float) is the C library's powf (not pow in double, as the
        # tensor-scalar pow's tails are): measured against PyTorch's scalar path
        return libm.powf(a, b)

    return vec_and_scalar2(np.asarray(x, order="C"), np.asarray(y, order="C"), vec, scalar)


# -- backward kernels ----------------------------------------------------------------------
def sigmoid_backward(g: np.ndarray, y: np.ndarray) -> np.ndarray:
    """torch's sigmoid_backward: (g * (1 - y)) * y, in that order."""
    return (g * (y.dtype.type(1) - y)) * y


def tanh_backward(g: np.ndarray, y: np.ndarray) -> np.ndarray:
    """torch's tanh_backward: g * (1 - y*y), where GCC fuses 1 - y*y into one FMA (on the
    vector and the scalar path alike)."""
    one = y.dtype.type(1)
    # 1 - y*y is 0 only when y*y is exactly 1, else at least 2**-24 in magnitude (or
    # overflows): never subnormal, so the FMA's subnormal test is skipped (normal=True)
    fused = fp32.fma(-y, y, one, normal=True) if _is32(y) else fma64(-y, y, one)
    return g * fused


def softplus_backward(
    g: np.ndarray, x: np.ndarray, beta: float = 1.0, threshold: float = 20.0
) -> np.ndarray:
    """torch's softplus_backward: g*z/(z+1) with z = exp(beta*x), g where beta*x > threshold."""
    t = x.dtype.type
    b, th, one = t(beta), t(threshold), t(1)

    def vec(gv, xv):
        with np.errstate(all="ignore"):
            bx = xv * b
            z = (sleef_f32.expf if _is32(xv) else sleef_f64.expd)(bx)
            return np.where(bx > th, gv, gv * z / (z + one))

    def scalar(gv, xv):
        with np.errstate(all="ignore"):
            bx = xv * b
            z = libm.call("exp", bx)
            return np.where(bx > th, gv, gv * z / (z + one))

    return vec_and_scalar2(np.asarray(g, order="C"), np.asarray(x, order="C"), vec, scalar)
