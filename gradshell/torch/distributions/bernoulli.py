"""torch.distributions.Bernoulli: a coin that lands 1 with probability `probs`."""

from __future__ import annotations

import math
import numbers
from typing import Any

from gradshell.core.grad_mode import no_grad
from gradshell.core.size import Size
from gradshell.core.tensor import Tensor
from gradshell.ops.creation import arange
from gradshell.ops.nn import binary_cross_entropy_with_logits
from gradshell.torch import random as _random
from gradshell.torch.distributions import constraints
from gradshell.torch.distributions.distribution import Distribution
from gradshell.torch.distributions.utils import (
    broadcast_all,
    lazy_property,
    logits_to_probs,
    probs_to_logits,
)


class Bernoulli(Distribution):
    """A Bernoulli distribution parameterised by `probs` or `logits` (log-odds)."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True

    def __init__(
        self, probs: Any = None, logits: Any = None, validate_args: bool | None = None
    ) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            is_scalar = isinstance(probs, numbers.Number)
            (self.probs,) = broadcast_all(probs)
        else:
            is_scalar = isinstance(logits, numbers.Number)
            (self.logits,) = broadcast_all(logits)
        self._param = self.probs if probs is not None else self.logits
        batch_shape = Size() if is_scalar else self._param.size()
        super().__init__(batch_shape, validate_args=validate_args)

    @lazy_property
    def logits(self) -> Tensor:
        """Log-odds, computed from probs on first use."""
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Tensor:
        """Probabilities, computed from logits (sigmoid) on first use."""
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self) -> Size:
        """The shape of probs / logits."""
        return self._param.size()

    @property
    def mean(self) -> Tensor:
        """probs."""
        return self.probs

    @property
    def mode(self) -> Tensor:
        """1 where p > ½, 0 where p < ½, NaN at a tie."""
        mode = (self.probs >= 0.5).to(self.probs)
        mode[self.probs == 0.5] = math.nan
        return mode

    @property
    def variance(self) -> Tensor:
        """p(1-p)."""
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape: Any = ()) -> Tensor:  # noqa: B008
        """0/1 draws by torch.bernoulli, of shape sample_shape + batch_shape."""
        shape = self._extended_shape(sample_shape)
        with no_grad():
            return _random.bernoulli(self.probs.expand(shape))

    def enumerate_support(self, expand: bool = True) -> Tensor:
        """0 and 1, shaped to broadcast against the batch."""
        values = arange(2, dtype=self._param.dtype)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values

    def log_prob(self, value: Tensor) -> Tensor:
        """log P(value) = -BCE(logits, value)."""
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self) -> Tensor:
        """-p log p - (1-p) log(1-p), as BCE(logits, probs)."""
        return binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")


__all__ = ["Bernoulli"]
