"""torch.distributions.Normal: the Gaussian N(loc, scale²), with reparameterised samples
(loc + ε·scale) for VAEs and Gaussian policies."""

from __future__ import annotations

import math
import numbers
from typing import Any

from gradshell.core.grad_mode import no_grad
from gradshell.core.size import Size
from gradshell.core.tensor import Tensor
from gradshell.ops.creation import empty
from gradshell.torch import random as _random
from gradshell.torch.distributions import constraints
from gradshell.torch.distributions.distribution import Distribution
from gradshell.torch.distributions.utils import broadcast_all


class Normal(Distribution):
    """A normal distribution with mean `loc` and standard deviation `scale`."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        if isinstance(loc, numbers.Number) and isinstance(scale, numbers.Number):
            batch_shape = Size()
        else:
            batch_shape = self.loc.size()
        super().__init__(batch_shape, validate_args=validate_args)

    @property
    def mean(self) -> Tensor:
        """loc."""
        return self.loc

    @property
    def mode(self) -> Tensor:
        """loc."""
        return self.loc

    @property
    def stddev(self) -> Tensor:
        """scale."""
        return self.scale

    @property
    def variance(self) -> Tensor:
        """scale²."""
        return self.stddev.pow(2)

    def sample(self, sample_shape: Any = ()) -> Tensor:  # noqa: B008
        """A sample drawn by torch.normal (no gradient flows through it)."""
        shape = self._extended_shape(sample_shape)
        with no_grad():
            return _random.normal(self.loc.expand(shape), self.scale.expand(shape))

    def rsample(self, sample_shape: Any = ()) -> Tensor:  # noqa: B008
        """loc + ε·scale with ε ~ N(0, 1): gradients reach loc and scale."""
        shape = self._extended_shape(sample_shape)
        eps = empty(shape, dtype=self.loc.dtype).normal_()
        return self.loc + eps * self.scale

    def log_prob(self, value: Tensor) -> Tensor:
        """log of the density: -(x-μ)²/(2σ²) - log σ - log √(2π)."""
        if self._validate_args:
            self._validate_sample(value)
        var = self.scale**2
        log_scale = self.scale.log()
        return -((value - self.loc) ** 2) / (2 * var) - log_scale - math.log(math.sqrt(2 * math.pi))

    def cdf(self, value: Tensor) -> Tensor:
        """P(X ≤ value) = ½(1 + erf((x-μ)/(σ√2)))."""
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 * (1 + ((value - self.loc) * self.scale.reciprocal() / math.sqrt(2)).erf())

    def icdf(self, value: Tensor) -> Tensor:
        """Not yet: it needs erfinv, which gradshell lacks."""
        raise self._unsupported("icdf")

    def entropy(self) -> Tensor:
        """½ + ½ log(2π) + log σ."""
        return 0.5 + 0.5 * math.log(2 * math.pi) + self.scale.log()


__all__ = ["Normal"]
