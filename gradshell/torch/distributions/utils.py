"""torch.distributions.utils: the helpers the distributions share — turning parameters
into broadcast tensors, converting between probabilities and logits, and caching a
parameter computed from the other one."""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any

import numpy as np

from gradshell.core.dtypes import get_default_dtype
from gradshell.core.size import Size
from gradshell.core.tensor import Tensor
from gradshell.ops.creation import tensor as _tensor


def _broadcast_tensors(*values: Tensor) -> tuple[Tensor, ...]:
    """The tensors expanded to their common shape; one already of that shape is itself."""
    shape = Size(np.broadcast_shapes(*(tuple(v.shape) for v in values)))
    return tuple(v if v.shape == shape else v.expand(shape) for v in values)


def broadcast_all(*values: Any) -> tuple[Tensor, ...]:
    """Numbers and tensors as tensors of one shape. Numbers take the dtype of the first
    tensor among the values, or the default dtype when all are numbers."""
    if not all(isinstance(v, (Tensor, numbers.Number)) for v in values):
        raise ValueError(
            "Input arguments must all be instances of Number, torch.Tensor or objects "
            "implementing __torch_function__."
        )
    tensors = [v for v in values if isinstance(v, Tensor)]
    if not tensors:
        dtype = get_default_dtype()
        return tuple(_tensor(float(v), dtype=dtype) for v in values)
    dtype = tensors[0].dtype
    converted = [v if isinstance(v, Tensor) else _tensor(v, dtype=dtype) for v in values]
    return _broadcast_tensors(*converted)


def clamp_probs(probs: Tensor) -> Tensor:
    """Probabilities kept inside [eps, 1 - eps] so that their logarithms stay finite."""
    eps = float(np.finfo(probs.dtype.np).eps)
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs: Tensor, is_binary: bool = False) -> Tensor:
    """Log-probabilities (categorical) or log-odds (binary) of `probs`."""
    ps_clamped = clamp_probs(probs)
    if is_binary:
        return ps_clamped.log() - (-ps_clamped).log1p()
    return ps_clamped.log()


def logits_to_probs(logits: Tensor, is_binary: bool = False) -> Tensor:
    """Probabilities from log-odds (binary: sigmoid) or unnormalised log-probabilities
    (categorical: softmax over the last dimension)."""
    if is_binary:
        return logits.sigmoid()
    return logits.softmax(-1)


class lazy_property:  # noqa: N801 - PyTorch's name
    """A property computed on first use and then kept in the instance's __dict__, where a
    distribution's repr finds it (`Categorical(probs: ..., logits: ...)` once both exist)."""

    def __init__(self, wrapped: Callable[[Any], Any]) -> None:
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__
        self.__name__ = wrapped.__name__

    def __get__(self, instance: Any, obj_type: Any = None) -> Any:
        if instance is None:
            return self
        value = self.wrapped(instance)
        instance.__dict__[self.wrapped.__name__] = value
        return value


__all__ = ["broadcast_all", "clamp_probs", "lazy_property", "logits_to_probs", "probs_to_logits"]
