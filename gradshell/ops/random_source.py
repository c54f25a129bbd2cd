"""Random draws for the op library and torch.nn (dropout masks, nn.init fills), taken from
gradshell's PyTorch-exact generator (`gradshell.core.random.default_generator`, the one
`torch.manual_seed` seeds), so that a seeded gradshell session draws PyTorch's numbers.

Samples are drawn on the host in the tensor's dtype and moved to its device.
"""

from __future__ import annotations

from gradshell.core import dtypes
from gradshell.core.device import array_module
from gradshell.core.random import default_generator
from gradshell.core.tensor import Tensor, wrap


def _place(t: Tensor, values):
    """`values` (a host array) on `t`'s device."""
    xp = array_module(t._data)
    return values if xp.__name__ == "numpy" else xp.asarray(values)


def _contiguous(t: Tensor) -> bool:
    return bool(t._data.flags.c_contiguous) if hasattr(t._data, "flags") else True


def refuse_bfloat16(dt) -> None:
    """PyTorch draws bfloat16 samples its own way; gradshell refuses rather than differ."""
    if dt is dtypes.bfloat16:
        raise NotImplementedError("gradshell does not support random numbers in bfloat16 yet")


def _fill(t: Tensor, values) -> Tensor:
    t._data[...] = _place(t, values)
    t._bump_version()
    return t


def _core(generator):
    """The core generator behind `generator` (a torch.Generator or a core one; None is the
    default generator)."""
    if generator is None:
        return default_generator
    return getattr(generator, "_core", generator)


def uniform_(t: Tensor, a: float = 0.0, b: float = 1.0, generator=None) -> Tensor:
    """Fill `t` in place with uniform samples from [a, b) (Tensor.uniform_)."""
    refuse_bfloat16(t._dtype)
    return _fill(t, _core(generator).uniform(t._data.shape, a, b, t._dtype.np))


def normal_(t: Tensor, mean: float = 0.0, std: float = 1.0, generator=None) -> Tensor:
    """Fill `t` in place with normal samples (Tensor.normal_)."""
    refuse_bfloat16(t._dtype)
    values = _core(generator).normal(
        t._data.shape, mean, std, t._dtype.np, contiguous=_contiguous(t)
    )
    return _fill(t, values)


def bernoulli_mask(like: Tensor, keep: float) -> Tensor:
    """A 0/1 tensor shaped like `like` whose ones appear with probability `keep`
    (Tensor.bernoulli_(keep) on an empty tensor of like's dtype)."""
    refuse_bfloat16(like._dtype)
    values = default_generator.bernoulli_(like._data.shape, keep, like._dtype.np)
    return wrap(_place(like, values), like._dtype)


def dropout_mask(like: Tensor, p: float) -> Tensor:
    """The multiplier F.dropout applies in training: keep/(1-p) with keep ~ Bernoulli(1-p)."""
    refuse_bfloat16(like._dtype)
    values = default_generator.dropout_mask(like._data.shape, p, like._dtype.np)
    return wrap(_place(like, values), like._dtype)
