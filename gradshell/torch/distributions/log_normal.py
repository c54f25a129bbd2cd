"""torch.distributions.LogNormal: exp(X) for X ~ Normal(loc, scale)."""

from __future__ import annotations

from typing import Any

from gradshell.core.tensor import Tensor
from gradshell.torch.distributions import constraints
from gradshell.torch.distributions.normal import Normal
from gradshell.torch.distributions.transformed_distribution import TransformedDistribution
from gradshell.torch.distributions.transforms import ExpTransform


class LogNormal(TransformedDistribution):
    """A log-normal distribution: its logarithm is Normal(loc, scale)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        base = Normal(loc, scale, validate_args=validate_args)
        super().__init__(base, ExpTransform(), validate_args=validate_args)

    @property
    def loc(self) -> Tensor:
        """The mean of log X."""
        return self.base_dist.loc

    @property
    def scale(self) -> Tensor:
        """The standard deviation of log X."""
        return self.base_dist.scale

    @property
    def mean(self) -> Tensor:
        """exp(μ + σ²/2)."""
        return (self.loc + self.scale.pow(2) / 2).exp()

    @property
    def mode(self) -> Tensor:
        """exp(μ - σ²)."""
        return (self.loc - self.scale.square()).exp()

    @property
    def variance(self) -> Tensor:
        """(exp(σ²) - 1)·exp(2μ + σ²)."""
        scale2 = self.scale.pow(2)
        return scale2.expm1() * (2 * self.loc + scale2).exp()

    def entropy(self) -> Tensor:
        """The Normal's entropy + μ."""
        return self.base_dist.entropy() + self.loc


__all__ = ["LogNormal"]
