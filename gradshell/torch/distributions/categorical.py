"""torch.distributions.Categorical: one of K categories, drawn with given probabilities
(the policy of REINFORCE and actor-critic agents)."""

from __future__ import annotations

from typing import Any

import numpy as np

from gradshell.core import dtypes
from gradshell.core.size import Size
from gradshell.core.tensor import Tensor
from gradshell.ops.creation import arange, full
from gradshell.torch import random as _random
from gradshell.torch.distributions import constraints
from gradshell.torch.distributions.distribution import Distribution, _as_size
from gradshell.torch.distributions.utils import (
    _broadcast_tensors,
    lazy_property,
    logits_to_probs,
    probs_to_logits,
)


class Categorical(Distribution):
    """A categorical distribution over {0, ..., K-1}, parameterised by `probs` (normalised
    over the last dimension) or `logits` (unnormalised log-probabilities)."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True

    def __init__(
        self,
        probs: Tensor | None = None,
        logits: Tensor | None = None,
        validate_args: bool | None = None,
    ) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
        else:
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            # normalised so that logsumexp over the categories is 0
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
        self._param = self.probs if probs is not None else self.logits
        self._num_events = self._param.size()[-1]
        batch_shape = self._param.size()[:-1] if self._param.dim() > 1 else Size()
        super().__init__(batch_shape, validate_args=validate_args)

    @property
    def support(self) -> constraints.Constraint:
        """The categories 0 .. K-1."""
        return constraints.integer_interval(0, self._num_events - 1)

    @lazy_property
    def logits(self) -> Tensor:
        """Log-probabilities, computed from probs on first use."""
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self) -> Tensor:
        """Probabilities, computed from logits (softmax) on first use."""
        return logits_to_probs(self.logits)

    @property
    def param_shape(self) -> Size:
        """The shape of probs / logits."""
        return self._param.size()

    @property
    def mean(self) -> Tensor:
        """Undefined for categories: NaN."""
        return full(self._extended_shape(), np.nan, dtype=self.probs.dtype)

    @property
    def mode(self) -> Tensor:
        """The most probable category."""
        return self.probs.argmax(dim=-1)

    @property
    def variance(self) -> Tensor:
        """Undefined for categories: NaN."""
        return full(self._extended_shape(), np.nan, dtype=self.probs.dtype)

    def sample(self, sample_shape: Any = ()) -> Tensor:  # noqa: B008
        """Category indices of shape sample_shape + batch_shape, drawn (with replacement)
        through torch.multinomial so that a seeded run draws PyTorch's numbers."""
        sample_shape = _as_size(sample_shape)
        probs_2d = self.probs.reshape(-1, self._num_events)
        samples_2d = _random.multinomial(probs_2d, sample_shape.numel(), True).T
        return samples_2d.reshape(self._extended_shape(sample_shape))

    def log_prob(self, value: Tensor) -> Tensor:
        """log P(value): the normalised logit of each category."""
        if self._validate_args:
            self._validate_sample(value)
        value = value.long().unsqueeze(-1)
        value, log_pmf = _broadcast_tensors(value, self.logits)
        value = value[..., :1]
        return log_pmf.gather(-1, value).squeeze(-1)

    def entropy(self) -> Tensor:
        """-Σ p log p over the categories (a zero probability contributes 0, not NaN)."""
        min_real = float(np.finfo(self.logits.dtype.np).min)
        logits = self.logits.clamp(min=min_real)
        p_log_p = logits * self.probs
        return -p_log_p.sum(-1)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        """Every category, shaped to broadcast against the batch."""
        values = arange(self._num_events, dtype=dtypes.int64)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values


__all__ = ["Categorical"]
