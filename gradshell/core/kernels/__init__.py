"""Exact float kernels: the math PyTorch 2.13's CPU build does, rounded as it rounds it.

A learner's ``loss.item()`` prints 16 digits, so a 1-ulp difference from PyTorch shows,
and a training loop grows it.  This package reproduces, in NumPy:

* ``elementwise``: exp, log, tanh, sin, cos (MKL's in PyTorch: closest reproducible
  values), expm1, log1p, sigmoid, softplus, log_sigmoid, pow and the backward kernels of
  tanh, sigmoid and softplus (Sleef's vector algorithms on PyTorch's vector blocks, the
  C library on its scalar tails: bit for bit, float32 and float64);
* ``softmax``: softmax, log_softmax and their backward kernels along any dimension in
  ATen's vectorised order, bit for bit (torch.logsumexp composes exp, sum and log);
* ``conv``: the float32 order of a depthwise convolution (oneDNN's), bit for bit;
* ``gemm``: the accumulation order of MKL's sgemm/dgemm behind mm/matmul/addmm/linear,
  for the shapes where it was measured, NumPy's product elsewhere;
* ``batchnorm``: batch norm's statistics, output and backward sums in PyTorch's order.

Not reproduced (MKL's closed-source vector math): sqrt (17 % of float32 results differ
from the correctly rounded root NumPy gives, 1.4 % in float64), exp/log/tanh/sin/cos
(see ``elementwise``).

They cost more than NumPy's own ufuncs (``bench/bench_exact.py``); ``set_exact(False)``
(also ``gradshell.set_exact``) switches the ops back to NumPy's fast math for big work.
``lookup(name, data)`` / ``lookup_pair(name, a, b)`` hand an op its exact kernel.
"""

from __future__ import annotations

import numpy as np

from gradshell.core.kernels import conv, elementwise, gemm, softmax

_exact = True

# op name (as the unary ops call it) -> the exact kernel
_KERNELS = {
    "exp": elementwise.exp,
    "expm1": elementwise.expm1,
    "log": elementwise.log,
    "log1p": elementwise.log1p,
    "tanh": elementwise.tanh,
    "sin": elementwise.sin,
    "cos": elementwise.cos,
    "sigmoid": elementwise.sigmoid,
    "elu": elementwise.elu,
    "elu_backward": elementwise.elu_backward,
    "softplus": elementwise.softplus,
    "log_sigmoid": elementwise.log_sigmoid,
    "bce_with_logits": elementwise.bce_with_logits,
    "binary_cross_entropy": elementwise.binary_cross_entropy,
    "pow": elementwise.pow_scalar,
    "pow_tensor": elementwise.pow_tensor,
    "sigmoid_backward": elementwise.sigmoid_backward,
    "tanh_backward": elementwise.tanh_backward,
    "softplus_backward": elementwise.softplus_backward,
    # softmax(data, dim), log_softmax(data, dim) and their backward kernels (g, y, dim),
    # dim -1 unless given
    "softmax": softmax.softmax,
    "log_softmax": softmax.log_softmax,
    "softmax_backward": softmax.softmax_backward,
    "log_softmax_backward": softmax.log_softmax_backward,
}


def set_exact(flag: bool = True) -> None:
    """Compute exp, log, tanh, sigmoid, ... as PyTorch's CPU build does (True, the default),
    or with NumPy's faster ufuncs, which may differ in the last bit (False)."""
    global _exact
    _exact = bool(flag)


def is_exact() -> bool:
    """Whether the exact kernels are on (see ``set_exact``)."""
    return _exact


def lookup_pair(name: str, a, b):
    """The exact two-array kernel `name` (a backward) for same-shaped, same-dtype NumPy
    float arrays `a` and `b`, else None."""
    if not isinstance(b, np.ndarray) or getattr(a, "shape", None) != b.shape:
        return None
    if getattr(a, "dtype", None) != b.dtype:
        return None
    return lookup(name, a)


def applies(data) -> bool:
    """Whether an op on `data` should take an exact kernel: the kernels are on and `data`
    is a NumPy float32/float64 array."""
    if not _exact or not isinstance(data, np.ndarray):
        return False
    return data.dtype == np.float32 or data.dtype == np.float64


def lookup(name: str, data):
    """The exact kernel for op `name` on array `data`, or None to use NumPy's ufunc.

    Only NumPy float32/float64 arrays qualify; CuPy arrays and other dtypes keep the array
    module's own functions (matching PyTorch's CPU bits is not a goal on a GPU).
    """
    if not _exact or not isinstance(data, np.ndarray):
        return None
    if data.dtype != np.float32 and data.dtype != np.float64:
        return None
    return _KERNELS.get(name)


def matmul(xp, a, b, bias=None):
    """``bias + a @ b`` for 2-D arrays, in PyTorch's (MKL's) float32 order where it is known
    (see ``gemm``), else with the array module's own matmul.  `bias` may be None."""
    if _exact and xp is np:
        r = gemm.dgemm(bias, a, b) if a.dtype == np.float64 else gemm.addmm(bias, a, b)
        if r is not None:
            return r
    prod = xp.matmul(a, b)
    return prod if bias is None else prod + bias


__all__ = [
    "applies",
    "conv",
    "elementwise",
    "gemm",
    "softmax",
    "is_exact",
    "lookup",
    "lookup_pair",
    "matmul",
    "set_exact",
]
