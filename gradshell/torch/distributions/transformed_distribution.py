"""torch.distributions.TransformedDistribution: the distribution of f(X) for X drawn from
a base distribution, f a sequence of invertible elementwise transforms."""

from __future__ import annotations

from typing import Any

from gradshell.core.grad_mode import no_grad
from gradshell.core.size import Size
from gradshell.core.tensor import Tensor
from gradshell.torch.distributions import constraints
from gradshell.torch.distributions.distribution import Distribution
from gradshell.torch.distributions.independent import _sum_rightmost
from gradshell.torch.distributions.transforms import Transform


class TransformedDistribution(Distribution):
    """X ~ base_distribution, then Y = transforms[-1](...transforms[0](X))."""

    arg_constraints: dict[str, constraints.Constraint] = {}

    def __init__(
        self,
        base_distribution: Distribution,
        transforms: Transform | list[Transform],
        validate_args: bool | None = None,
    ) -> None:
        if isinstance(transforms, Transform):
            self.transforms = [transforms]
        elif isinstance(transforms, list):
            if not all(isinstance(t, Transform) for t in transforms):
                raise ValueError("transforms must be a Transform or a list of Transforms")
            self.transforms = transforms
        else:
            raise ValueError(f"transforms must be a Transform or list, but was {transforms}")
        self.base_dist = base_distribution
        # elementwise transforms keep the base's shapes (with broadcasting parameters)
        shape = tuple(base_distribution.batch_shape) + tuple(base_distribution.event_shape)
        for t in self.transforms:
            shape = t.forward_shape(shape)
        event_dim = len(base_distribution.event_shape)
        cut = len(shape) - event_dim
        super().__init__(shape[:cut], shape[cut:], validate_args=validate_args)

    @property
    def has_rsample(self) -> bool:  # type: ignore[override]
        """Whether the base distribution has reparameterised samples."""
        return self.base_dist.has_rsample

    @property
    def support(self) -> constraints.Constraint:  # type: ignore[override]
        """The last transform's codomain, over the whole event."""
        if not self.transforms:
            return self.base_dist.support
        support = self.transforms[-1].codomain
        if len(self.event_shape) > support.event_dim:
            support = constraints.independent(support, len(self.event_shape) - support.event_dim)
        return support

    def sample(self, sample_shape: Any = ()) -> Tensor:  # noqa: B008
        """A base sample pushed through the transforms, without gradient."""
        with no_grad():
            x = self.base_dist.sample(sample_shape)
            for transform in self.transforms:
                x = transform(x)
            return x

    def rsample(self, sample_shape: Any = ()) -> Tensor:  # noqa: B008
        """A reparameterised base sample pushed through the transforms."""
        x = self.base_dist.rsample(sample_shape)
        for transform in self.transforms:
            x = transform(x)
        return x

    def log_prob(self, value: Tensor) -> Tensor:
        """log p(y) = log p_base(f⁻¹(y)) - Σ log|det J| (change of variables)."""
        if self._validate_args:
            self._validate_sample(value)
        event_dim = len(self.event_shape)
        log_prob: Any = 0.0
        y = value
        for transform in reversed(self.transforms):
            x = transform.inv(y)
            event_dim += transform.domain.event_dim - transform.codomain.event_dim
            ladj = transform.log_abs_det_jacobian(x, y)
            log_prob = log_prob - _sum_rightmost(ladj, event_dim - transform.domain.event_dim)
            y = x
        base = self.base_dist.log_prob(y)
        return log_prob + _sum_rightmost(base, event_dim - len(self.base_dist.event_shape))

    def expand(self, batch_shape: Any, _instance: Any = None) -> TransformedDistribution:
        """The same transforms over a larger batch of base distributions."""
        batch_shape = Size(batch_shape)
        base_batch = tuple(self.base_dist.batch_shape)
        if base_batch != tuple(self.batch_shape):
            # a transform's parameters broadcast the base; PyTorch maps the shapes back
            raise self._unsupported("expand")
        new = type(self).__new__(type(self))
        new.__dict__.update(self.__dict__)
        new.base_dist = self.base_dist.expand(batch_shape)
        new._batch_shape = batch_shape
        return new

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


__all__ = ["TransformedDistribution"]
