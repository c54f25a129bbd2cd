"""torch.distributions.Exponential: waiting times with rate λ (density λe^{-λx}, x ≥ 0)."""

from __future__ import annotations

import numbers
from typing import Any

from gradshell.core.size import Size
from gradshell.core.tensor import Tensor
from gradshell.ops.creation import empty, zeros_like
from gradshell.torch.distributions import constraints
from gradshell.torch.distributions.distribution import Distribution
from gradshell.torch.distributions.utils import broadcast_all


class Exponential(Distribution):
    """An exponential distribution with the given `rate`."""

    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, rate: Any, validate_args: bool | None = None) -> None:
        (self.rate,) = broadcast_all(rate)
        batch_shape = Size() if isinstance(rate, numbers.Number) else self.rate.size()
        super().__init__(batch_shape, validate_args=validate_args)

    @property
    def mean(self) -> Tensor:
        """1/λ."""
        return self.rate.reciprocal()

    @property
    def mode(self) -> Tensor:
        """0."""
        return zeros_like(self.rate)

    @property
    def stddev(self) -> Tensor:
        """1/λ."""
        return self.rate.reciprocal()

    @property
    def variance(self) -> Tensor:
        """1/λ²."""
        return self.rate.pow(-2)

    def rsample(self, sample_shape: Any = ()) -> Tensor:  # noqa: B008
        """Exp(1) draws divided by λ: gradients reach rate."""
        shape = self._extended_shape(sample_shape)
        return empty(shape, dtype=self.rate.dtype).exponential_() / self.rate

    def log_prob(self, value: Tensor) -> Tensor:
        """log λ - λx."""
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value: Tensor) -> Tensor:
        """1 - e^{-λx}."""
        if self._validate_args:
            self._validate_sample(value)
        return 1 - (-self.rate * value).exp()

    def icdf(self, value: Tensor) -> Tensor:
        """-log(1 - p)/λ."""
        return -(-value).log1p() / self.rate

    def entropy(self) -> Tensor:
        """1 - log λ."""
        return 1.0 - self.rate.log()


__all__ = ["Exponential"]
