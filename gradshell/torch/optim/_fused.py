"""The fused multiply-adds of PyTorch's CPU optimizer kernels, on parameter arrays:
`add_(x, alpha=a)` is fma(x, a, self) and `addcmul_(t1, t2, value=v)` is
fma(v*t1, t2, self); emulated exactly for float32/float64 NumPy arrays, so updates agree
with PyTorch to the bit, and plain arithmetic elsewhere."""

from __future__ import annotations

import numpy as np

from gradshell.core.fma import fma32, fma64


def fmadd(a, b, c):
    """RN(a*b + c) in c's dtype (a single rounding for float32/float64 NumPy arrays)."""
    dt = getattr(c, "dtype", None)
    if isinstance(c, np.ndarray):
        if dt == np.float32:
            return fma32(a, b, c)
        if dt == np.float64:
            return fma64(a, b, c)
    return a * b + c


def add_alpha(self, other, alpha: float):
    """self.add(other, alpha=alpha)."""
    return fmadd(other, self.dtype.type(alpha), self)


def addcmul(self, t1, t2, value: float):
    """self.addcmul(t1, t2, value=value)."""
    return fmadd(t1 * self.dtype.type(value), t2, self)


def addcdiv(self, t1, t2, value: float):
    """self.addcdiv(t1, t2, value=value): self + value*t1/t2 (no fusion in PyTorch)."""
    return self + t1 * self.dtype.type(value) / t2


def lerp(self, end, weight: float):
    """self.lerp(end, weight) for a Python weight below 0.5: fma(weight, end - self, self)."""
    return fmadd(self.dtype.type(weight), end - self, self)


def lerp_any(self, end, weight: float):
    """self.lerp(end, weight) for any Python weight: from self below 0.5, and from the
    far end, end - (end - self)·(1 - weight), from 0.5 on, as PyTorch's lerp computes."""
    if abs(weight) < 0.5:
        return lerp(self, end, weight)
    return end - (end - self) * self.dtype.type(1 - weight)
