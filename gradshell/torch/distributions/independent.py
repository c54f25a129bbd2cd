"""torch.distributions.Independent: a distribution whose rightmost batch dimensions are
read as one event, so log_prob sums over them (a diagonal Gaussian over a vector)."""

from __future__ import annotations

from typing import Any

from gradshell.core.size import Size
from gradshell.core.tensor import Tensor
from gradshell.torch.distributions import constraints
from gradshell.torch.distributions.distribution import Distribution


def _sum_rightmost(value: Tensor, dim: int) -> Tensor:
    """value summed over its `dim` rightmost dimensions."""
    if dim == 0:
        return value
    return value.reshape(tuple(value.shape[:-dim]) + (-1,)).sum(-1)


class Independent(Distribution):
    """`base_distribution` with its `reinterpreted_batch_ndims` rightmost batch dimensions
    moved into the event shape."""

    arg_constraints: dict[str, constraints.Constraint] = {}

    def __init__(
        self,
        base_distribution: Distribution,
        reinterpreted_batch_ndims: int,
        validate_args: bool | None = None,
    ) -> None:
        base_batch = tuple(base_distribution.batch_shape)
        if reinterpreted_batch_ndims > len(base_batch):
            raise ValueError(
                "Expected reinterpreted_batch_ndims <= len(base_distribution.batch_shape), "
                f"actual {reinterpreted_batch_ndims} vs {len(base_batch)}"
            )
        split = len(base_batch) - reinterpreted_batch_ndims
        self.base_dist = base_distribution
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        event_shape = base_batch[split:] + tuple(base_distribution.event_shape)
        super().__init__(Size(base_batch[:split]), Size(event_shape), validate_args=validate_args)

    @property
    def has_rsample(self) -> bool:  # type: ignore[override]
        """Whether the base distribution has reparameterised samples."""
        return self.base_dist.has_rsample

    @property
    def support(self) -> constraints.Constraint:  # type: ignore[override]
        """The base support, holding over the whole event."""
        if self.reinterpreted_batch_ndims == 0:
            return self.base_dist.support
        return constraints.independent(self.base_dist.support, self.reinterpreted_batch_ndims)

    @property
    def mean(self) -> Tensor:
        """The base distribution's mean."""
        return self.base_dist.mean

    @property
    def mode(self) -> Tensor:
        """The base distribution's mode."""
        return self.base_dist.mode

    @property
    def variance(self) -> Tensor:
        """The base distribution's variance."""
        return self.base_dist.variance

    @property
    def stddev(self) -> Tensor:
        """The base distribution's standard deviation."""
        return self.base_dist.stddev

    def sample(self, sample_shape: Any = ()) -> Tensor:  # noqa: B008
        """A sample of the base distribution."""
        return self.base_dist.sample(sample_shape)

    def rsample(self, sample_shape: Any = ()) -> Tensor:  # noqa: B008
        """A reparameterised sample of the base distribution."""
        return self.base_dist.rsample(sample_shape)

    def log_prob(self, value: Tensor) -> Tensor:
        """The base log-probabilities summed over each event (the base validates value)."""
        return _sum_rightmost(self.base_dist.log_prob(value), self.reinterpreted_batch_ndims)

    def entropy(self) -> Tensor:
        """The base entropies summed over each event."""
        return _sum_rightmost(self.base_dist.entropy(), self.reinterpreted_batch_ndims)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Independent:
        """The same event structure over a larger batch."""
        batch_shape = Size(batch_shape)
        reinterpreted = tuple(self.event_shape[: self.reinterpreted_batch_ndims])
        base = self.base_dist.expand(tuple(batch_shape) + reinterpreted)
        return Independent(base, self.reinterpreted_batch_ndims, validate_args=False)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.base_dist}, {self.reinterpreted_batch_ndims})"


__all__ = ["Independent"]
