"""torch.distributions.MixtureSameFamily: a mixture of K components of one family, the
component picked by a Categorical (the output of a mixture density network)."""

from __future__ import annotations

from typing import Any

from gradshell.core.grad_mode import no_grad
from gradshell.core.size import Size
from gradshell.core.tensor import Tensor
from gradshell.torch.distributions import constraints
from gradshell.torch.distributions.categorical import Categorical
from gradshell.torch.distributions.distribution import Distribution, _as_size


class MixtureSameFamily(Distribution):
    """Σ_k π_k p_k(x): `mixture_distribution` (a Categorical over K) weighs the K
    components batched in the rightmost batch dimension of `component_distribution`."""

    arg_constraints: dict[str, constraints.Constraint] = {}
    has_rsample = False

    def __init__(
        self,
        mixture_distribution: Categorical,
        component_distribution: Distribution,
        validate_args: bool | None = None,
    ) -> None:
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError(
                " The Mixture distribution needs to be an  instance of torch.distributions.Categorical"
            )
        if not isinstance(component_distribution, Distribution):
            raise ValueError(
                "The Component distribution needs to be an instance of "
                "torch.distributions.Distribution"
            )
        mdbs = mixture_distribution.batch_shape
        cdbs = component_distribution.batch_shape[:-1]
        for size1, size2 in zip(reversed(mdbs), reversed(cdbs), strict=False):
            if size1 != 1 and size2 != 1 and size1 != size2:
                raise ValueError(
                    f"`mixture_distribution.batch_shape` ({mdbs}) is not compatible with "
                    f"`component_distribution.batch_shape`({cdbs})"
                )
        km = mixture_distribution.logits.shape[-1]
        kc = component_distribution.batch_shape[-1]
        if km != kc:
            raise ValueError(
                f"`mixture_distribution component` ({km}) does not equal "
                f"`component_distribution.batch_shape[-1]` ({kc})"
            )
        self._num_component = km
        event_shape = component_distribution.event_shape
        self._event_ndims = len(event_shape)
        super().__init__(Size(cdbs), event_shape, validate_args=validate_args)

    @property
    def mixture_distribution(self) -> Categorical:
        """The Categorical that picks a component."""
        return self._mixture_distribution

    @property
    def component_distribution(self) -> Distribution:
        """The K components, batched in the rightmost batch dimension."""
        return self._component_distribution

    @property
    def support(self) -> constraints.Constraint:  # type: ignore[override]
        """The components' support."""
        return constraints._MixtureSameFamilyConstraint(self._component_distribution.support)

    def _pad(self, x: Tensor) -> Tensor:
        # a component dimension, so that x broadcasts against every component
        return x.unsqueeze(-1 - self._event_ndims)

    def _pad_mixture_dimensions(self, x: Tensor) -> Tensor:
        # mixture weights shaped (batch..., K, 1 per event dim) to weigh component values
        dist_batch_ndims = len(self.batch_shape)
        cat_batch_ndims = len(self._mixture_distribution.batch_shape)
        pad_ndims = 0 if cat_batch_ndims == 1 else dist_batch_ndims - cat_batch_ndims
        xs = tuple(x.shape)
        return x.reshape(xs[:-1] + (1,) * pad_ndims + xs[-1:] + (1,) * self._event_ndims)

    @property
    def mean(self) -> Tensor:
        """Σ_k π_k μ_k."""
        probs = self._pad_mixture_dimensions(self._mixture_distribution.probs)
        return (probs * self._component_distribution.mean).sum(-1 - self._event_ndims)

    @property
    def variance(self) -> Tensor:
        """The law of total variance: E[Var | k] + Var[E | k]."""
        probs = self._pad_mixture_dimensions(self._mixture_distribution.probs)
        dim = -1 - self._event_ndims
        mean_cond_var = (probs * self._component_distribution.variance).sum(dim)
        deviation = self._component_distribution.mean - self._pad(self.mean)
        var_cond_mean = (probs * deviation.pow(2.0)).sum(dim)
        return mean_cond_var + var_cond_mean

    def cdf(self, x: Tensor) -> Tensor:
        """Σ_k π_k F_k(x)."""
        x = self._pad(x)
        cdf_x = self._component_distribution.cdf(x)
        return (cdf_x * self._mixture_distribution.probs).sum(-1)

    def log_prob(self, x: Tensor) -> Tensor:
        """log Σ_k π_k p_k(x), computed as a logsumexp."""
        if self._validate_args:
            self._validate_sample(x)
        x = self._pad(x)
        log_prob_x = self._component_distribution.log_prob(x)
        log_mix_prob = self._mixture_distribution.logits.log_softmax(-1)
        return (log_prob_x + log_mix_prob).logsumexp(-1)

    def sample(self, sample_shape: Any = ()) -> Tensor:  # noqa: B008
        """Draw the component indices first, then every component, and keep the drawn one."""
        sample_shape = _as_size(sample_shape)
        with no_grad():
            gather_dim = len(sample_shape) + len(self.batch_shape)
            es = tuple(self.event_shape)
            mix_sample = self._mixture_distribution.sample(sample_shape)
            mix_shape = tuple(mix_sample.shape)
            comp_samples = self._component_distribution.sample(sample_shape)
            index = mix_sample.reshape(mix_shape + (1,) * (len(es) + 1))
            index = index.repeat((1,) * len(mix_shape) + (1,) + es)
            return comp_samples.gather(gather_dim, index).squeeze(gather_dim)

    def expand(self, batch_shape: Any, _instance: Any = None) -> MixtureSameFamily:
        """The same mixture repeated over a larger batch."""
        batch_shape = Size(batch_shape)
        new = type(self).__new__(type(self))
        new.__dict__.update(self.__dict__)
        new._mixture_distribution = self._mixture_distribution.expand(batch_shape)
        new._component_distribution = self._component_distribution.expand(
            tuple(batch_shape) + (self._num_component,)
        )
        new._batch_shape = batch_shape
        return new

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(\n  {self._mixture_distribution},\n"
            f"  {self._component_distribution})"
        )


__all__ = ["MixtureSameFamily"]
