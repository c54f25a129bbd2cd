"""torch.distributions.Distribution: what every distribution shares — its batch and event
shapes, argument validation with PyTorch's messages, and its repr."""

from __future__ import annotations

from typing import Any

from gradshell.core.grad_mode import no_grad
from gradshell.core.size import Size
from gradshell.core.tensor import Tensor
from gradshell.torch._missing import not_supported
from gradshell.torch.distributions import constraints
from gradshell.torch.distributions.utils import lazy_property

# PyTorch validates arguments by default unless Python runs with -O.
_validate_default = __debug__


def _as_size(sample_shape: Any) -> Size:
    """sample_shape as a Size; like PyTorch, a bare int is refused by Size itself."""
    return sample_shape if isinstance(sample_shape, Size) else Size(sample_shape)


class Distribution:
    """The base class of probability distributions."""

    has_rsample = False
    has_enumerate_support = False
    arg_constraints: dict[str, constraints.Constraint] = {}
    support: Any = None

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        """Turn argument validation on or off for distributions created afterwards."""
        if value not in [True, False]:
            raise ValueError
        global _validate_default
        _validate_default = value

    def __init__(
        self,
        batch_shape: Size = Size(),  # noqa: B008 - an immutable tuple
        event_shape: Size = Size(),  # noqa: B008
        validate_args: bool | None = None,
    ) -> None:
        self._batch_shape = Size(batch_shape)
        self._event_shape = Size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            self._validate_parameters()

    _validate_args = property(lambda self: self.__dict__.get("_validate", _validate_default))

    @_validate_args.setter
    def _validate_args(self, value: bool) -> None:
        self.__dict__["_validate"] = value

    def _validate_parameters(self) -> None:
        for param, constraint in self.arg_constraints.items():
            if param not in self.__dict__ and isinstance(
                getattr(type(self), param, None), lazy_property
            ):
                continue  # a parameter computed lazily from another one is not checked
            value = getattr(self, param)
            valid = constraint.check(value)
            if not bool(valid.all()):
                raise ValueError(
                    f"Expected parameter {param} ({type(value).__name__} of shape "
                    f"{tuple(value.shape)}) of distribution {self!r} to satisfy the "
                    f"constraint {constraint!r}, but found invalid values:\n{value}"
                )

    @property
    def batch_shape(self) -> Size:
        """The shape over which parameters are batched."""
        return self._batch_shape

    @property
    def event_shape(self) -> Size:
        """The shape of a single sample (without batching)."""
        return self._event_shape

    def _extended_shape(self, sample_shape: Any = ()) -> Size:
        return Size(
            tuple(_as_size(sample_shape)) + tuple(self._batch_shape) + tuple(self._event_shape)
        )

    def _validate_sample(self, value: Any) -> None:
        """PyTorch's checks on a value given to log_prob/cdf: a tensor, of a shape that
        broadcasts with batch_shape + event_shape, inside the support."""
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_dim_start = len(value.size()) - len(self._event_shape)
        if tuple(value.size()[event_dim_start:]) != tuple(self._event_shape):
            raise ValueError(
                f"The right-most size of value must match event_shape: {value.size()} vs "
                f"{self._event_shape}."
            )
        actual_shape = value.size()
        expected_shape = Size(tuple(self._batch_shape) + tuple(self._event_shape))
        for i, j in zip(reversed(actual_shape), reversed(expected_shape), strict=False):
            if i != 1 and j != 1 and i != j:
                raise ValueError(
                    f"Value is not broadcastable with batch_shape+event_shape: {actual_shape} "
                    f"vs {expected_shape}."
                )
        support = self.support
        valid = support.check(value)
        if not bool(valid.all()):
            raise ValueError(
                f"Expected value argument ({type(value).__name__} of shape "
                f"{tuple(value.shape)}) to be within the support ({support!r}) of the "
                f"distribution {self!r}, but found invalid values:\n{value}"
            )

    # what a distribution has no formula for raises PyTorch's bare NotImplementedError
    @property
    def mean(self) -> Tensor:
        """The mean."""
        raise NotImplementedError

    @property
    def variance(self) -> Tensor:
        """The variance."""
        raise NotImplementedError

    @property
    def stddev(self) -> Tensor:
        """The standard deviation."""
        return self.variance.sqrt()

    def log_prob(self, value: Tensor) -> Tensor:
        """log p(value)."""
        raise NotImplementedError

    def cdf(self, value: Tensor) -> Tensor:
        """P(X ≤ value)."""
        raise NotImplementedError

    def icdf(self, value: Tensor) -> Tensor:
        """The inverse of cdf."""
        raise NotImplementedError

    def entropy(self) -> Tensor:
        """The entropy."""
        raise NotImplementedError

    def enumerate_support(self, expand: bool = True) -> Tensor:
        """Every value of a discrete support."""
        raise NotImplementedError

    def perplexity(self) -> Tensor:
        """exp(entropy)."""
        return self.entropy().exp()

    def sample(self, sample_shape: Any = ()) -> Tensor:  # noqa: B008
        """A sample (no gradient flows through it); sample_shape samples are drawn at once."""
        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        """A reparameterised sample, through which gradients flow."""
        raise NotImplementedError

    def _unsupported(self, what: str) -> NotImplementedError:
        return not_supported(f"torch.distributions.{type(self).__name__}.{what}")

    def expand(self, batch_shape: Any, _instance: Any = None) -> Distribution:
        """The same distribution repeated over a larger batch_shape: each parameter is
        expanded (a view, so gradients still reach the original); its values are not
        validated again."""
        batch_shape = Size(batch_shape)
        new = type(self).__new__(type(self))
        expanded: dict[int, Tensor] = {}
        for name, value in self.__dict__.items():
            if isinstance(value, Tensor):
                if id(value) not in expanded:  # `_param` is the same tensor as probs/logits
                    extra = tuple(value.shape[len(self._batch_shape) :])
                    expanded[id(value)] = value.expand(tuple(batch_shape) + extra)
                new.__dict__[name] = expanded[id(value)]
            else:
                new.__dict__[name] = value
        new._batch_shape = batch_shape
        return new

    def __repr__(self) -> str:
        # a parameter shows its value when it has one element, else its size; a lazy
        # parameter shows only once it has been computed
        parts = []
        for p in self.arg_constraints:
            if p in self.__dict__:
                v = self.__dict__[p]
                parts.append(f"{p}: {v if v.numel() == 1 else v.size()}")
        return f"{type(self).__name__}({', '.join(parts)})"


__all__ = ["Distribution"]
