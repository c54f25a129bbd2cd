"""One-sided clamps and the in-place clamps: clamp_min / clamp_max (nodes
ClampMinBackward0/1, ClampMaxBackward0/1: 0 for a number bound, 1 for a tensor bound),
clamp_, clip_, clamp_min_ and clamp_max_. The values and gradients are clamp's; only
the node names differ, as they do in PyTorch."""

from __future__ import annotations

from gradshell.ops.arithmetic import (
    ClampBackward0,
    ClampBackward1,
    _clamp_number_formula,
    _clamp_tensor_formula,
    clamp,
)
from gradshell.ops.base import Tensor, tensor_method
from gradshell.ops.explanation import (
    Ctx,
    Formula,
)
from gradshell.ops.inplace import apply_inplace

__all__ = ["clamp_min", "clamp_max", "clamp_", "clamp_min_", "clamp_max_"]


class ClampMinBackward0(ClampBackward1):
    """clamp_min with a number: the gradient passes where x >= min."""

    legacy_name_02 = "CmaxConstantBackward"

    def explain(self, c: Ctx) -> Formula:
        return _clamp_number_formula(c, "clamp_min")


class _OneBound(ClampBackward0):
    """clamp with one tensor bound: clamp's gradients for self and that bound only."""

    keep = (0, 1)

    def backward(self, g):
        grads = super().backward(g)
        return tuple(grads[i] for i in self.keep)

    no_explanation = "a base class: clamp_min and clamp_max name their own formulas"


class ClampMinBackward1(_OneBound):
    """clamp_min with a tensor: to x where x >= min, to min elsewhere."""

    def explain(self, c: Ctx) -> Formula:
        return _clamp_tensor_formula(c, self.keep)


class ClampMaxBackward0(ClampBackward1):
    """clamp_max with a number: the gradient passes where x <= max."""

    legacy_name_02 = "CminConstantBackward"

    def explain(self, c: Ctx) -> Formula:
        return _clamp_number_formula(c, "clamp_max")


class ClampMaxBackward1(_OneBound):
    """clamp_max with a tensor: to x where x <= max, to max elsewhere."""

    def explain(self, c: Ctx) -> Formula:
        return _clamp_tensor_formula(c, self.keep)


_SIGNATURES = (
    "{name}() received an invalid combination of arguments - got ({got}), but expected one "
    "of:\n"
    " * (Tensor input, Tensor {bound}, *, Tensor out = None)\n"
    " * (Tensor input, Number {bound}, *, Tensor out = None)\n"
)


def _one_sided(name: str, bound: str, self, value, scalar_node, tensor_node) -> Tensor:
    if value is None:
        raise TypeError(_SIGNATURES.format(name=name, got="Tensor", bound=bound))
    res = clamp(self, **{bound: value})
    fn = res._grad_fn
    if fn is not None:
        fn.__class__ = tensor_node if isinstance(value, Tensor) else scalar_node
        if isinstance(value, Tensor):  # one bound: edges to self and that bound only
            keep = (0, 1) if bound == "min" else (0, 2)
            fn.next_functions = tuple(fn.next_functions[i] for i in keep)
            fn._meta = tuple(fn._meta[i] for i in keep)
            fn.keep = keep
    return res


@tensor_method("clamp_min", torch=("clamp_min",))
def clamp_min(self, min=None) -> Tensor:  # noqa: A002 - PyTorch's name
    """max(self, min), elementwise."""
    return _one_sided("clamp_min", "min", self, min, ClampMinBackward0, ClampMinBackward1)


@tensor_method("clamp_max", torch=("clamp_max",))
def clamp_max(self, max=None) -> Tensor:  # noqa: A002 - PyTorch's name
    """min(self, max), elementwise."""
    return _one_sided("clamp_max", "max", self, max, ClampMaxBackward0, ClampMaxBackward1)


@tensor_method("clamp_", "clip_", torch=("clamp_",))
def clamp_(self, min=None, max=None) -> Tensor:  # noqa: A002 - PyTorch's names
    """clamp in place."""
    return apply_inplace(self, _clamp_both, (min, max), {}, "clamp_")


def _clamp_both(self, lo, hi):
    return clamp(self, lo, hi)


@tensor_method("clamp_min_", torch=("clamp_min_",))
def clamp_min_(self, min=None) -> Tensor:  # noqa: A002 - PyTorch's name
    """clamp_min in place."""
    return apply_inplace(self, clamp_min, (min,), {}, "clamp_min_")


@tensor_method("clamp_max_", torch=("clamp_max_",))
def clamp_max_(self, max=None) -> Tensor:  # noqa: A002 - PyTorch's name
    """clamp_max in place."""
    return apply_inplace(self, clamp_max, (max,), {}, "clamp_max_")
