"""torch.distributions.OneHotCategorical: a Categorical whose samples are one-hot vectors
instead of category indices."""

from __future__ import annotations

from typing import Any

from gradshell.core.size import Size
from gradshell.core.tensor import Tensor
from gradshell.ops.creation import eye
from gradshell.ops.nn import one_hot
from gradshell.torch.distributions import constraints
from gradshell.torch.distributions.categorical import Categorical
from gradshell.torch.distributions.distribution import Distribution


class OneHotCategorical(Distribution):
    """One-hot vectors of length K, the 1 placed as a Categorical(probs / logits) draws."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(
        self,
        probs: Tensor | None = None,
        logits: Tensor | None = None,
        validate_args: bool | None = None,
    ) -> None:
        # the parameters live in the inner Categorical, which is why the repr shows none
        self._categorical = Categorical(probs, logits)
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def _validate_parameters(self) -> None:
        pass  # the inner Categorical validated them

    @property
    def _param(self) -> Tensor:
        return self._categorical._param

    @property
    def probs(self) -> Tensor:
        """Probabilities of the categories."""
        return self._categorical.probs

    @property
    def logits(self) -> Tensor:
        """Normalised log-probabilities of the categories."""
        return self._categorical.logits

    @property
    def param_shape(self) -> Size:
        """The shape of probs / logits."""
        return self._categorical.param_shape

    @property
    def mean(self) -> Tensor:
        """probs."""
        return self._categorical.probs

    @property
    def mode(self) -> Tensor:
        """The most probable category, one-hot."""
        probs = self._categorical.probs
        return one_hot(probs.argmax(-1), num_classes=probs.shape[-1]).to(probs)

    @property
    def variance(self) -> Tensor:
        """p(1-p) per category."""
        return self._categorical.probs * (1 - self._categorical.probs)

    def sample(self, sample_shape: Any = ()) -> Tensor:  # noqa: B008
        """One-hot vectors of the Categorical's draws (the same random numbers)."""
        probs = self._categorical.probs
        num_events = self._categorical._num_events
        indices = self._categorical.sample(sample_shape)
        return one_hot(indices, num_events).to(probs)

    def log_prob(self, value: Tensor) -> Tensor:
        """log P of the category where value holds its 1."""
        if self._validate_args:
            self._validate_sample(value)
        indices = value.max(-1)[1]
        return self._categorical.log_prob(indices)

    def entropy(self) -> Tensor:
        """The Categorical's entropy."""
        return self._categorical.entropy()

    def enumerate_support(self, expand: bool = True) -> Tensor:
        """The K one-hot vectors, shaped to broadcast against the batch."""
        n = self.event_shape[0]
        values = eye(n, dtype=self._param.dtype)
        values = values.view((n,) + (1,) * len(self.batch_shape) + (n,))
        if expand:
            values = values.expand((n,) + tuple(self.batch_shape) + (n,))
        return values

    def expand(self, batch_shape: Any, _instance: Any = None) -> OneHotCategorical:
        """The same distribution over a larger batch."""
        batch_shape = Size(batch_shape)
        new = type(self).__new__(type(self))
        new.__dict__.update(self.__dict__)
        new._categorical = self._categorical.expand(batch_shape)
        new._batch_shape = batch_shape
        return new


__all__ = ["OneHotCategorical"]
