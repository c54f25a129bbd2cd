"""torch.distributions.Uniform: every value in [low, high) equally likely."""

from __future__ import annotations

import math
import numbers
from typing import Any

from gradshell.core.size import Size
from gradshell.core.tensor import Tensor
from gradshell.torch import random as _random
from gradshell.torch.distributions import constraints
from gradshell.torch.distributions.distribution import Distribution
from gradshell.torch.distributions.utils import broadcast_all


class Uniform(Distribution):
    """A uniform distribution on the half-open interval [low, high)."""

    has_rsample = True

    def __init__(self, low: Any, high: Any, validate_args: bool | None = None) -> None:
        self.low, self.high = broadcast_all(low, high)
        if isinstance(low, numbers.Number) and isinstance(high, numbers.Number):
            batch_shape = Size()
        else:
            batch_shape = self.low.size()
        super().__init__(batch_shape, validate_args=validate_args)

    @property
    def arg_constraints(self) -> dict[str, constraints.Constraint]:  # type: ignore[override]
        """low below high, high above low."""
        return {"low": constraints.less_than(self.high), "high": constraints.greater_than(self.low)}

    @property
    def support(self) -> constraints.Constraint:
        """[low, high]."""
        return constraints.interval(self.low, self.high)

    @property
    def mean(self) -> Tensor:
        """(high + low) / 2."""
        return (self.high + self.low) / 2

    @property
    def mode(self) -> Tensor:
        """Every point is a mode: NaN."""
        return math.nan * self.high

    @property
    def stddev(self) -> Tensor:
        """(high - low) / √12."""
        return (self.high - self.low) / 12**0.5

    @property
    def variance(self) -> Tensor:
        """(high - low)² / 12."""
        return (self.high - self.low).pow(2) / 12

    def rsample(self, sample_shape: Any = ()) -> Tensor:  # noqa: B008
        """low + u·(high - low) with u ~ U[0, 1): gradients reach low and high."""
        shape = self._extended_shape(sample_shape)
        rand = _random.rand(shape, dtype=self.low.dtype)
        return self.low + rand * (self.high - self.low)

    def log_prob(self, value: Tensor) -> Tensor:
        """-log(high - low) inside the interval, -inf outside."""
        if self._validate_args:
            self._validate_sample(value)
        lb = self.low.le(value).type_as(self.low)
        ub = self.high.gt(value).type_as(self.low)
        return lb.mul(ub).log() - (self.high - self.low).log()

    def cdf(self, value: Tensor) -> Tensor:
        """(value - low) / (high - low), clamped to [0, 1]."""
        if self._validate_args:
            self._validate_sample(value)
        result = (value - self.low) / (self.high - self.low)
        return result.clamp(min=0, max=1)

    def icdf(self, value: Tensor) -> Tensor:
        """low + value·(high - low)."""
        return value * (self.high - self.low) + self.low

    def entropy(self) -> Tensor:
        """log(high - low)."""
        return (self.high - self.low).log()


__all__ = ["Uniform"]
