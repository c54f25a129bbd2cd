"""torch.distributions.Laplace: the double exponential, density e^{-|x-μ|/b} / 2b."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from gradshell.core.size import Size
from gradshell.core.tensor import Tensor
from gradshell.ops.creation import empty
from gradshell.torch.distributions import constraints
from gradshell.torch.distributions.distribution import Distribution
from gradshell.torch.distributions.utils import broadcast_all


class Laplace(Distribution):
    """A Laplace distribution with location `loc` and scale `scale`."""

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
    def variance(self) -> Tensor:
        """2b²."""
        return 2 * self.scale.pow(2)

    @property
    def stddev(self) -> Tensor:
        """√2·b."""
        return (2**0.5) * self.scale

    def rsample(self, sample_shape: Any = ()) -> Tensor:  # noqa: B008
        """Inverse-CDF sampling from u ~ U(eps - 1, 1), which keeps log1p(-|u|) finite."""
        shape = self._extended_shape(sample_shape)
        eps = float(np.finfo(self.loc.dtype.np).eps)
        u = empty(shape, dtype=self.loc.dtype).uniform_(eps - 1, 1)
        return self.loc - self.scale * u.sign() * (-u.abs()).log1p()

    def log_prob(self, value: Tensor) -> Tensor:
        """-log(2b) - |x - μ|/b."""
        if self._validate_args:
            self._validate_sample(value)
        return -(2 * self.scale).log() - (value - self.loc).abs() / self.scale

    def cdf(self, value: Tensor) -> Tensor:
        """½ - ½·sign(x-μ)·(e^{-|x-μ|/b} - 1)."""
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        return 0.5 - 0.5 * diff.sign() * (-diff.abs() / self.scale).expm1()

    def icdf(self, value: Tensor) -> Tensor:
        """μ - b·sign(p-½)·log(1 - 2|p-½|)."""
        term = value - 0.5
        return self.loc - self.scale * term.sign() * (-2 * term.abs()).log1p()

    def entropy(self) -> Tensor:
        """1 + log(2b)."""
        return 1 + (2 * self.scale).log()


__all__ = ["Laplace"]
