"""torch.distributions.transforms: invertible maps y = f(x) with log|det ∂y/∂x|, which
turn a base distribution into a TransformedDistribution (tanh-squashed SAC policies,
log-normals).

Only elementwise transforms are here; the others real PyTorch has raise "gradshell does
not support torch.distributions.transforms.X yet" (gradshell.torch._missing).
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from gradshell.core.tensor import Tensor
from gradshell.ops.creation import full_like
from gradshell.ops.unary import softplus
from gradshell.torch._missing import not_supported
from gradshell.torch.distributions import constraints


class Transform:
    """An invertible elementwise map. With cache_size=1 it remembers its last (x, y) pair,
    so that inverting a value it produced returns the very x it came from (no atanh of
    ±1 in a tanh-squashed policy)."""

    domain: constraints.Constraint = constraints.real
    codomain: constraints.Constraint = constraints.real
    bijective = True

    def __init__(self, cache_size: int = 0) -> None:
        if cache_size not in (0, 1):
            raise ValueError("cache_size must be 0 or 1")
        self._cache_size = cache_size
        self._cached_x_y: tuple[Any, Any] = (None, None)

    @property
    def event_dim(self) -> int:
        """How many rightmost dimensions the map acts on jointly (0: elementwise)."""
        return self.domain.event_dim

    @property
    def inv(self) -> _InverseTransform:
        """The inverse map."""
        return _InverseTransform(self)

    def __call__(self, x: Tensor) -> Tensor:
        """y = f(x)."""
        if self._cache_size == 0:
            return self._call(x)
        x_old, y_old = self._cached_x_y
        if x is x_old:
            return y_old
        y = self._call(x)
        self._cached_x_y = x, y
        return y

    def _inv_call(self, y: Tensor) -> Tensor:
        if self._cache_size == 0:
            return self._inverse(y)
        x_old, y_old = self._cached_x_y
        if y is y_old:
            return x_old
        x = self._inverse(y)
        self._cached_x_y = x, y
        return x

    def _call(self, x: Tensor) -> Tensor:
        raise NotImplementedError

    def _inverse(self, y: Tensor) -> Tensor:
        raise NotImplementedError

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        """log |dy/dx| at x (y = f(x))."""
        raise NotImplementedError

    def forward_shape(self, shape: Any) -> Any:
        """The shape of f(x) for x of `shape` (unchanged: the map is elementwise)."""
        return shape

    def inverse_shape(self, shape: Any) -> Any:
        """The shape of f⁻¹(y) for y of `shape`."""
        return shape

    def __repr__(self) -> str:
        return type(self).__name__ + "()"


class _InverseTransform(Transform):
    """f⁻¹ of a transform, sharing its cache."""

    def __init__(self, transform: Transform) -> None:
        super().__init__(cache_size=transform._cache_size)
        self._inv = transform

    @property
    def domain(self) -> constraints.Constraint:  # type: ignore[override]
        return self._inv.codomain

    @property
    def codomain(self) -> constraints.Constraint:  # type: ignore[override]
        return self._inv.domain

    @property
    def inv(self) -> Transform:  # type: ignore[override]
        return self._inv

    def __call__(self, x: Tensor) -> Tensor:
        return self._inv._inv_call(x)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return -self._inv.log_abs_det_jacobian(y, x)

    def __repr__(self) -> str:
        return f"_InverseTransform({self._inv!r})"


class ExpTransform(Transform):
    """y = exp(x)."""

    codomain = constraints.positive

    def _call(self, x: Tensor) -> Tensor:
        return x.exp()

    def _inverse(self, y: Tensor) -> Tensor:
        return y.log()

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return x  # d exp(x)/dx = exp(x), whose log is x itself


class TanhTransform(Transform):
    """y = tanh(x), onto (-1, 1)."""

    codomain = constraints.interval(-1.0, 1.0)

    def _call(self, x: Tensor) -> Tensor:
        return x.tanh()

    def _inverse(self, y: Tensor) -> Tensor:
        # PyTorch inverts with torch.atanh, which gradshell lacks; a composite would record
        # other graph nodes, so say so (values this transform produced come from its cache)
        raise not_supported("torch.distributions.transforms.TanhTransform.inv without its cache")

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        # log(1 - tanh²x) = 2(log 2 - x - softplus(-2x)), stable for large |x|
        return 2.0 * (math.log(2.0) - x - softplus(-2.0 * x))


class SigmoidTransform(Transform):
    """y = sigmoid(x), onto (0, 1)."""

    codomain = constraints.unit_interval

    def _call(self, x: Tensor) -> Tensor:
        finfo = np.finfo(x.dtype.np)
        # kept inside (0, 1) so that the inverse and the density stay finite
        return x.sigmoid().clamp(min=float(finfo.tiny), max=1.0 - float(finfo.eps))

    def _inverse(self, y: Tensor) -> Tensor:
        finfo = np.finfo(y.dtype.np)
        y = y.clamp(min=float(finfo.tiny), max=1.0 - float(finfo.eps))
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return -softplus(-x) - softplus(x)


class AffineTransform(Transform):
    """y = loc + scale·x (elementwise: event_dim 0)."""

    def __init__(self, loc: Any, scale: Any, event_dim: int = 0, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        if event_dim != 0:
            raise not_supported("torch.distributions.transforms.AffineTransform with event_dim")
        self.loc = loc
        self.scale = scale

    def _call(self, x: Tensor) -> Tensor:
        return self.loc + self.scale * x

    def _inverse(self, y: Tensor) -> Tensor:
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        if isinstance(self.scale, numbers.Real):
            return full_like(x, math.log(abs(self.scale)))
        return self.scale.abs().log().expand(x.shape)

    def forward_shape(self, shape: Any) -> Any:
        return tuple(np.broadcast_shapes(tuple(shape), _shape(self.loc), _shape(self.scale)))

    def inverse_shape(self, shape: Any) -> Any:
        return self.forward_shape(shape)


def _shape(value: Any) -> tuple[int, ...]:
    return tuple(value.shape) if isinstance(value, Tensor) else ()


__all__ = ["AffineTransform", "ExpTransform", "SigmoidTransform", "TanhTransform", "Transform"]
