"""The vocabulary of explanation formulas: what a node class's `explain(c)` returns for
`%explain`, written once beside the class's `backward`.

A formula gives the forward expression (`y·y`) and, for each input edge, the local
derivative: a symbolic right-hand side (`2y`), its value from the node's saved tensors,
and how the incoming gradient becomes the outgoing one. `%explain` checks every formula
against the gradient the node really produced and drops any that disagrees, so a formula
shown is never a wrong one. A node class with no formula says why in `no_explanation`.

Shared formulas (the unary functions, reductions, reshapes, copies) are built here and
named by the classes that use them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from gradshell.core.device import to_numpy
from gradshell.core.tensor import Tensor

#: why a node of a second derivative (a backward differentiated) has no formula
BACKWARD_OF_BACKWARD = (
    "the backward of a backward (create_graph=True): %explain explains first-order nodes"
)


def number(v: Any) -> str:
    """A short decimal for one number: 4.5, 0.25, 6, 1e-05, nan."""
    if isinstance(v, bool | np.bool_):
        return str(bool(v))
    if isinstance(v, int | np.integer):
        return str(int(v))
    v = float(v)
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    if v == 0:
        return "0"
    text = f"{v:.4g}"
    if float(text) != v and len(repr(v)) <= 7:
        text = repr(v)  # a short constant as written (1.0001), not rounded to look like 1
    if "e" in text:
        mantissa, exp = text.split("e")
        return f"{mantissa}e{int(exp)}"
    return text


class Unavailable(Exception):
    """A value a formula needs is not available (freed, modified, not saved)."""


@dataclass
class Local:
    """The local derivative of a node's output with respect to one input edge."""

    rhs: str
    """Symbolic right-hand side, e.g. '2y', '1/4', 'exp(x)', 'grad @ Bᵀ'."""
    value: Any = None
    """Per-element factor (broadcasts against the input), or None for 'map' kinds."""
    kind: str = "elementwise"
    """'elementwise' (factor per element), 'reduce' (the output's gradient spread over
    the input, times the factor) or 'map' (a rearrangement: `apply` says how)."""
    apply: Callable[[np.ndarray], np.ndarray] | None = None
    """grad_in -> this edge's gradient before it is summed to the input's shape."""
    exact: bool = False
    """The rhs is itself the number (e.g. '3', '1/4'); no '= value' needed."""
    merged: str | None = None
    """For an edge into the same node as another edge: the combined rhs ('2y')."""

    def predict(self, grad_in: np.ndarray) -> np.ndarray:
        """The outgoing gradient this formula gives for `grad_in` (not yet summed)."""
        if self.apply is not None:
            return self.apply(grad_in)
        return grad_in * self.value


def sum_to(a: np.ndarray, shape: tuple) -> np.ndarray:
    """A predicted edge gradient with its broadcast dimensions summed away to the input's
    `shape` (what the engine does to the real one)."""
    if a.shape == tuple(shape):
        return a
    lead = a.ndim - len(shape)
    if lead > 0:
        a = a.sum(axis=tuple(range(lead)))
    axes = tuple(i for i, s in enumerate(shape) if s == 1 and a.shape[i] != 1)
    if axes:
        a = a.sum(axis=axes, keepdims=True)
    return a.reshape(shape)


@dataclass
class Formula:
    """A node's forward expression and one Local per input edge (None: no gradient)."""

    expr: str
    locals: list[Local | None]


class Ctx:
    """What a formula may read: saved values, input symbols, shapes."""

    def __init__(
        self,
        node: Any,
        saved: Callable[[str], Any],
        syms: list[str],
        in_shapes: list[tuple | None],
        out_shape: tuple,
        same_input: bool,
    ) -> None:
        self.node = node
        self._saved = saved
        self.syms = syms
        self.in_shapes = in_shapes
        self.out_shape = out_shape
        self.same_input = same_input  # edges 0 and 1 lead to the same tensor (y*y)

    def saved(self, name: str) -> Any:
        """A saved value as a float64 array (tensors) or a Python number."""
        try:
            v = self._saved(name)
        except Exception as exc:  # freed, modified in place, or never saved
            raise Unavailable(str(exc)) from None
        if isinstance(v, Tensor):
            return to_numpy(v._data).astype(np.float64)
        if isinstance(v, bool | int | float):
            return v
        raise Unavailable(f"saved {name} is a {type(v).__name__}")

    def sym(self, i: int) -> str:
        """The symbol of input `i` ('x', 'y·y', 'c')."""
        return self.syms[i] if i < len(self.syms) else "?"

    def attr(self, name: str) -> Any:
        """A node attribute (alpha, dims, input_shape...)."""
        if not hasattr(self.node, name):
            raise Unavailable(f"no attribute {name}")
        return getattr(self.node, name)


_PLAIN_NUMBER = re.compile(r"^-?[0-9.]+(e-?[0-9]+)?(/[0-9.]+)?$")


def wrap_sym(s: str) -> str:
    """Parenthesise a compound symbol used as an operand (not numbers such as 1/4)."""
    if _PLAIN_NUMBER.match(s):
        return s
    if any(ch in s for ch in " +-−·/@^") and not (s.startswith("(") and s.endswith(")")):
        return f"({s})"
    return s


def transposed(s: str) -> str:
    """`s` with a transpose mark: xᵀ, (mᵀ)ᵀ, (a + b)ᵀ."""
    s = wrap_sym(s)
    return f"({s})ᵀ" if s.endswith("ᵀ") else f"{s}ᵀ"


num = number  # the short name formulas use


def const(v: float) -> Local:
    """A local derivative that is one constant number (1, alpha, −1)."""
    return Local(num(v), float(v), exact=True)


def operand(c: Ctx, saved_name: str, i: int) -> tuple[str, Any, bool]:
    """(symbol, value, is_number) of operand `i`, whose value was saved as `saved_name`."""
    v = c.saved(saved_name)
    if isinstance(v, np.ndarray):
        return c.sym(i), v, False
    return num(v), float(v), True


def needs(c: Ctx, i: int) -> bool:
    """Whether input `i` of the node wants a gradient (nodes with a `needs` tuple)."""
    wanted = getattr(c.node, "needs", None)
    return True if wanted is None else bool(wanted[i])


def mean_over(c: Ctx, x: np.ndarray) -> tuple[str, float]:
    """('/n', 1/n) for a loss with reduction='mean', ('', 1) for 'sum' and 'none'."""
    reduction = c.attr("reduction")
    if reduction == "mean":
        return f"/{x.size}", 1.0 / max(x.size, 1)
    return "", 1.0


def logistic(x: np.ndarray) -> np.ndarray:
    """The logistic function, in float64."""
    return 1 / (1 + np.exp(-x))


def unary_formula(
    fn_name: str, rhs: str, value: Callable[[Ctx], Any]
) -> Callable[[Any, Ctx], Formula]:
    """The `explain` method of an elementwise function of one input: `fn_name(x)` with
    the local derivative `rhs` (`{x}` is the input's symbol) of value `value(c)`."""

    def explain(self, c: Ctx) -> Formula:
        x = c.sym(0)
        return Formula(f"{fn_name}({x})", [Local(rhs.format(x=x), value(c))])

    return explain


def zero_formula(fn_name: str) -> Callable[[Any, Ctx], Formula]:
    """The `explain` method of a step function (sign, floor...): derivative 0."""

    def explain(self, c: Ctx) -> Formula:
        return Formula(f"{fn_name}({c.sym(0)})", [Local("0", 0.0, exact=True)])

    return explain


def spread(in_shape: tuple, dims: Any, keepdim: bool) -> Callable[[np.ndarray], np.ndarray]:
    """grad of a reduction over `dims`, broadcast back to the input's shape."""

    def apply(g: np.ndarray) -> np.ndarray:
        if dims is not None and not keepdim:
            shape = list(in_shape)
            for d in dims:
                shape[d] = 1
            g = g.reshape(shape)
        return np.broadcast_to(g, in_shape)

    return apply


def reduction_formula(fn_name: str, mean: bool) -> Callable[[Any, Ctx], Formula]:
    """The `explain` method of sum (each input element counts once) or mean (1/n)."""

    def explain(self, c: Ctx) -> Formula:
        x = c.sym(0)
        in_shape = tuple(c.attr("input_shape"))
        dims = getattr(c.node, "dims", None)
        keepdim = getattr(c.node, "keepdim", False)
        spread_back = spread(in_shape, dims, keepdim)
        where = "" if dims is None else f", dim={dims[0] if len(dims) == 1 else tuple(dims)}"
        if mean:
            n = int(c.attr("count"))
            factor = 1.0 / n if n else math.nan
            local = Local(f"1/{n}", factor, kind="reduce", exact=True)
            local.apply = lambda g: spread_back(g) * factor
        else:
            local = Local("1", 1.0, kind="reduce", exact=True)
            local.apply = lambda g: np.array(spread_back(g))
        return Formula(f"{fn_name}({x}{where})", [local])

    return explain


def reshape_formula(self: Any, c: Ctx) -> Formula:
    """The `explain` method of a reshape (view, squeeze...): grad reshaped back."""
    shape = tuple(c.attr("input_shape"))
    text = "[" + ", ".join(str(s) for s in shape) + "]"
    return Formula(
        f"{c.sym(0)} reshaped",
        [Local(f"grad reshaped back to {text}", kind="map", apply=lambda g: g.reshape(shape))],
    )


def copy_formula(self: Any, c: Ctx) -> Formula:
    """The `explain` method of a copy (clone, alias): derivative 1."""
    return Formula(f"copy of {c.sym(0)}", [const(1)])


def _embed(c: Ctx) -> Callable[[np.ndarray], np.ndarray]:
    shape, key = tuple(c.attr("input_shape")), c.attr("key")

    def apply(g: np.ndarray) -> np.ndarray:
        out = np.zeros(shape, dtype=np.float64)
        out[key] = g
        return out

    return apply


def part_formula(self: Any, c: Ctx) -> Formula:
    """The `explain` method of taking a part (select, slice): grad placed in zeros."""
    text = "[" + ", ".join(str(s) for s in c.attr("input_shape")) + "]"
    return Formula(
        f"part of {c.sym(0)}",
        [Local(f"grad placed in zeros of shape {text}", kind="map", apply=_embed(c))],
    )


def kept(a: np.ndarray, in_shape: tuple, dims: Any, keepdim: bool) -> np.ndarray:
    """A reduction's output (or its gradient) with the reduced dims put back as size 1,
    broadcast to the input's shape `in_shape`."""
    a = np.asarray(a, dtype=np.float64)
    if dims is not None and not keepdim and in_shape:
        shape = list(in_shape)
        for d in dims:
            shape[d] = 1
        a = a.reshape(shape)
    return np.broadcast_to(a, in_shape)


def others_product(x: np.ndarray, axis: int) -> np.ndarray:
    """For each element, the product of the other elements along `axis` (zeros included:
    no division by the element itself)."""
    xm = np.moveaxis(x, axis, -1)
    ones = np.ones(xm.shape[:-1] + (1,))
    left = np.cumprod(np.concatenate([ones, xm[..., :-1]], axis=-1), axis=-1)
    rev = np.flip(xm, -1)
    right = np.flip(np.cumprod(np.concatenate([ones, rev[..., :-1]], axis=-1), axis=-1), -1)
    return np.moveaxis(left * right, -1, axis)
