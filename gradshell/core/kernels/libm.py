"""The C library's scalar math functions, the ones PyTorch's scalar loop tails call.

PyTorch runs the few elements after its last full vector block through the plain C++
lambda, whose ``std::exp(float)`` is the C library's ``expf``.  The standard library's
``ctypes`` reaches the same ``libm`` this process has loaded, so those tails come out bit
for bit.  Where no C math library can be found (an unusual platform), the float64 NumPy
function rounded to float32 stands in: it agrees except in rare double-rounding cases.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools

import numpy as np


@functools.cache
def _libm():
    name = ctypes.util.find_library("m")
    try:
        return ctypes.CDLL(name) if name else None
    except OSError:
        return None


@functools.cache
def _func(name: str, single: bool):
    lib = _libm()
    if lib is None:
        return None
    try:
        f = getattr(lib, name)
    except AttributeError:
        return None
    ct = ctypes.c_float if single else ctypes.c_double
    f.restype = ct
    f.argtypes = [ct]
    return f


_FALLBACK = {"exp": np.exp, "log": np.log, "log1p": np.log1p, "expm1": np.expm1, "tanh": np.tanh}
# elements beyond which ``call`` would take over a second (about 1 µs each through ctypes)
MAX_CALL = 1 << 20


def call(name: str, x: np.ndarray) -> np.ndarray:
    """``name`` from libm applied to each element of a float32/float64 array (few elements).

    float32 arrays use the ``f``-suffixed function (``expf``), float64 the plain one.
    """
    single = x.dtype == np.float32
    f = _func(name + ("f" if single else ""), single)
    if f is None:
        with np.errstate(all="ignore"):
            return _FALLBACK[name](x.astype(np.float64)).astype(x.dtype)
    flat = x.ravel()
    return np.array([f(float(v)) for v in flat.tolist()], dtype=x.dtype).reshape(x.shape)


@functools.cache
def _func2(name: str, ct=ctypes.c_double):
    lib = _libm()
    if lib is None:
        return None
    try:
        f = getattr(lib, name)
    except AttributeError:
        return None
    f.restype = ct
    f.argtypes = [ct, ct]
    return f


def powf(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The C library's float ``powf`` of each pair (few elements), as a float32 array: what
    ``std::pow(float, float)`` calls on PyTorch's scalar path of a float32 ``pow``."""
    f = _func2("powf", ctypes.c_float)
    xs, ys = np.broadcast_arrays(np.asarray(x, np.float32), np.asarray(y, np.float32))
    if f is None:
        with np.errstate(all="ignore"):
            return np.power(xs.astype(np.float64), ys).astype(np.float32)
    pairs = zip(xs.ravel().tolist(), ys.ravel().tolist(), strict=True)
    return np.array([f(a, b) for a, b in pairs], dtype=np.float32).reshape(xs.shape)


def pow64(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The C library's double ``pow`` of each pair (few elements), as a float64 array."""
    f = _func2("pow")
    xs, ys = np.broadcast_arrays(x.astype(np.float64), np.asarray(y, np.float64))
    if f is None:
        with np.errstate(all="ignore"):
            return np.power(xs, ys)
    pairs = zip(xs.ravel().tolist(), ys.ravel().tolist(), strict=True)
    return np.array([f(a, b) for a, b in pairs], dtype=np.float64).reshape(xs.shape)
