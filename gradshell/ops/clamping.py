"""Bounds: maximum and minimum of two tensors, clamp (with number or tensor bounds),
the one-sided clamps clamp_min / clamp_max (nodes ClampMinBackward0/1,
ClampMaxBackward0/1: 0 for a number bound, 1 for a tensor bound), and the in-place clamps
clamp_, clip_, clamp_min_ and clamp_max_. The one-sided clamps' values and gradients are
clamp's; only the node names differ, as they do in PyTorch."""

from __future__ import annotations

import numpy as np

from gradshell.core import dtypes
from gradshell.ops.arithmetic import _broadcast_fail_many, _require_tensor
from gradshell.ops.base import (
    BOOL,
    Node,
    Tensor,
    array_module,
    as_array,
    binary_operands,
    broadcast_fail,
    needs_grad,
    record,
    tensor_method,
    wrap,
)
from gradshell.ops.explanation import BACKWARD_OF_BACKWARD, Ctx, Formula, Local, needs, num
from gradshell.ops.fused import FusedBackward, fused
from gradshell.ops.inplace import apply_inplace
from gradshell.ops.scalar import div_scalar
from gradshell.ops.selection import where
from gradshell.ops.unary import zeros_like_grad


class MaximumBackward0(Node):
    """max(a, b) elementwise: the gradient goes to the larger input, split evenly on ties."""

    legacy_name_02 = "CmaxBackward"

    def backward(self, g):
        return _split(g, self.saved("self"), self.saved("other"), "<", self.needs)

    def explain(self, c: Ctx) -> Formula:
        return _extreme_formula(c, "maximum", ">")


class MinimumBackward0(Node):
    """min(a, b) elementwise: the gradient goes to the smaller input, split evenly on ties."""

    legacy_name_02 = "CminBackward"

    def backward(self, g):
        return _split(g, self.saved("self"), self.saved("other"), ">", self.needs)

    def explain(self, c: Ctx) -> Formula:
        return _extreme_formula(c, "minimum", "<")


def _split(g: Tensor, a: Tensor, b: Tensor, loses: str, needs):
    """PyTorch's formula for maximum (`loses` "<") and minimum (">"), op for op:
    where(a == b, grad / 2, grad).masked_fill_(a loses to b, 0) for a, and the mirror
    image for b (a tie shares the gradient; the zeros are +0.0; by a NaN both pass it)."""
    tie = (a == b).detach()
    a_loses = ((a < b) if loses == "<" else (a > b)).detach()
    b_loses = ((a > b) if loses == "<" else (a < b)).detach()
    ga = where(tie, div_scalar(g, 2), g).masked_fill(a_loses, 0) if needs[0] else None
    gb = where(tie, div_scalar(g, 2), g).masked_fill(b_loses, 0) if needs[1] else None
    return ga, gb


def _binary_extreme(fname: str, ufunc: str, node_cls, a, b):
    _require_tensor(fname, "input", 1, a)
    _require_tensor(fname, "other", 2, b)
    ad, bd, dt, xp = binary_operands(a, b)
    try:
        # operands swapped: on a tie (0 and -0) NumPy returns its second, PyTorch its first
        r = getattr(xp, ufunc)(bd, ad)
    except ValueError:
        raise broadcast_fail(a, b) from None
    res = wrap(as_array(r.astype(dt.np, copy=False)), dt)
    if needs_grad(a, b):
        node = node_cls()
        node.needs = (a._requires_grad, b._requires_grad)
        node.save("self", a)
        node.save("other", b)
        record(node, (a, b), res)
    return res


@tensor_method("maximum", torch=("maximum",))
def maximum(self, other) -> Tensor:
    """Elementwise maximum of two tensors (NaN wins)."""
    return _binary_extreme("maximum", "maximum", MaximumBackward0, self, other)


@tensor_method("minimum", torch=("minimum",))
def minimum(self, other) -> Tensor:
    """Elementwise minimum of two tensors (NaN wins)."""
    return _binary_extreme("minimum", "minimum", MinimumBackward0, self, other)


class ClampBackward1(Node):
    """clamp with number bounds: the gradient passes where min <= x <= max."""

    legacy_name_02 = "ClampBackward"

    def backward(self, g):
        x = self.saved("self")._data
        xp = array_module(x)
        keep = xp.ones(x.shape, dtype=bool)
        if self.min is not None:
            keep &= x >= self.min
        if self.max is not None:
            keep &= x <= self.max
        return (_pass_where(g, keep),)

    def explain(self, c: Ctx) -> Formula:
        return _clamp_number_formula(c, "clamp")


def _pass_where(g: Tensor, keep) -> Tensor:
    """g where `keep` (a boolean array), else +0.0 — PyTorch's where(keep, grad, 0), whose
    zeros are positive even where the incoming gradient is negative."""
    return where(wrap(keep, dtypes.bool_), g, 0.0)


class ClampBackward0(Node):
    """clamp with tensor bounds: to x inside [min, max], to min below it, to max above it
    (and to max wherever min > max, since the result is then max)."""

    def backward(self, g):
        x = self.saved("self")._data
        lo = self.saved("min")._data if self.has_min else None
        hi = self.saved("max")._data if self.has_max else None
        xp = array_module(x)
        if lo is not None and hi is not None:
            keep_x = (x >= lo) & (x <= hi)
            keep_lo = (x < lo) & (lo < hi)
            keep_hi = (x > hi) | (lo > hi)
        elif lo is not None:
            keep_x, keep_lo, keep_hi = x >= lo, x < lo, None
        else:
            keep_x, keep_lo, keep_hi = x <= hi, None, x > hi
        gx = _pass_where(g, xp.asarray(keep_x)) if self.needs[0] else None
        glo = _pass_where(g, xp.asarray(keep_lo)) if keep_lo is not None and self.needs[1] else None
        ghi = _pass_where(g, xp.asarray(keep_hi)) if keep_hi is not None and self.needs[2] else None
        return gx, glo, ghi

    def explain(self, c: Ctx) -> Formula:
        return _clamp_tensor_formula(c, (0, 1, 2))


_CLAMP_SIGNATURES = (
    " * (Tensor min = None, Tensor max = None)\n"
    "      didn't match because some of the arguments have invalid types: ({args})\n"
    " * (Number min = None, Number max = None)\n"
    "      didn't match because some of the arguments have invalid types: ({args})\n"
)


@tensor_method("clamp", "clip", torch=("clamp", "clip"))
def clamp(self, min=None, max=None) -> Tensor:  # noqa: A002 - PyTorch's names
    """Limit each element to [min, max] (numbers or tensors; either bound may be None)."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    kinds = {isinstance(v, Tensor) for v in (min, max) if v is not None}
    if len(kinds) > 1:
        got = ", ".join(
            type(v).__name__ if not isinstance(v, Tensor) else "Tensor" for v in (min, max)
        )
        marked = ", ".join(
            f"!{'Tensor' if isinstance(v, Tensor) else type(v).__name__}!" for v in (min, max)
        )
        raise TypeError(
            f"clamp() received an invalid combination of arguments - got ({got}), but expected "
            "one of:\n" + _CLAMP_SIGNATURES.format(args=marked)
        )
    if kinds == {True}:
        return _clamp_tensor(self, min, max)
    if self._dtype.category == BOOL and all(
        isinstance(v, bool) for v in (min, max) if v is not None
    ):
        raise RuntimeError("\"clamp_scalar_cpu\" not implemented for 'Bool'")
    operands = [v for v in (min, max) if v is not None]
    dt = dtypes.result_type(self, *operands)
    xp = array_module(self._data)
    r = self._data.astype(dt.np, copy=False)
    # the bound first: NumPy keeps its second operand on ties, and PyTorch keeps x (-0.0)
    if min is not None:
        r = xp.maximum(dt.np.type(min), r)
    if max is not None:
        r = xp.minimum(dt.np.type(max), r)
    res = wrap(as_array(xp.asarray(r).astype(dt.np, copy=False)), dt)
    if needs_grad(self):
        node = ClampBackward1()
        if max is None:  # 0.2 clamped one side with CmaxConstant / CminConstant
            node.legacy_name_02 = "CmaxConstantBackward"
        elif min is None:
            node.legacy_name_02 = "CminConstantBackward"
        node.save("self", self)
        node.min, node.max = min, max  # numbers: kept, not freed
        record(node, (self,), res)
    return res


def _clamp_tensor(self, lo, hi):
    operands = [v for v in (lo, hi) if v is not None]
    dt = dtypes.result_type(self, *operands)
    xp = array_module(self._data)
    r = self._data.astype(dt.np, copy=False)
    try:
        if lo is not None:  # the bound first, so that ties keep x (see clamp)
            r = xp.maximum(lo._data.astype(dt.np, copy=False), r)
        if hi is not None:
            r = xp.minimum(hi._data.astype(dt.np, copy=False), r)
    except ValueError:
        raise _broadcast_fail_many(self, *operands) from None
    res = wrap(as_array(xp.asarray(r).astype(dt.np, copy=False)), dt)
    if needs_grad(self, lo, hi):
        node = ClampBackward0()
        node.has_min, node.has_max = lo is not None, hi is not None
        node.needs = tuple(isinstance(v, Tensor) and v._requires_grad for v in (self, lo, hi))
        node.save("self", self)
        if lo is not None:
            node.save("min", lo)
        if hi is not None:
            node.save("max", hi)
        record(node, (self, lo, hi), res)
    return res


# -- explanation formulas shared by the bound nodes ----------------------------------------------
def _extreme_formula(c: Ctx, name: str, op: str) -> Formula:
    """maximum/minimum: the gradient goes to the winning input, half each on ties."""
    a, b = c.saved("self"), c.saved("other")
    share = np.where(a > b if op == ">" else a < b, 1.0, np.where(a == b, 0.5, 0.0))
    sa, sb = c.sym(0), c.sym(1)
    la = Local(f"1 where {sa} {op} {sb}, ½ where equal, else 0", share) if needs(c, 0) else None
    lb = Local(f"1 where {sb} {op} {sa}, ½ where equal, else 0", 1 - share) if needs(c, 1) else None
    return Formula(f"{name}({sa}, {sb})", [la, lb])


def _clamp_number_formula(c: Ctx, name: str) -> Formula:
    """clamp with number bounds: 1 inside the bounds, 0 outside."""
    x, lo, hi = c.saved("self"), c.attr("min"), c.attr("max")
    s = c.sym(0)
    keep = np.ones(x.shape, dtype=bool)
    if lo is not None:
        keep &= x >= lo
    if hi is not None:
        keep &= x <= hi
    if lo is not None and hi is not None:
        cond, args = f"{num(lo)} ≤ {s} ≤ {num(hi)}", f"{num(lo)}, {num(hi)}"
    elif lo is not None:
        cond, args = f"{s} ≥ {num(lo)}", f"min={num(lo)}"
    else:
        cond, args = f"{s} ≤ {num(hi)}", f"max={num(hi)}"
    if name != "clamp":
        args = num(lo if lo is not None else hi)
    return Formula(f"{name}({s}, {args})", [Local(f"1 where {cond}, else 0", keep * 1.0)])


def _clamp_tensor_formula(c: Ctx, edges: tuple) -> Formula:
    """clamp with tensor bounds: each element's gradient goes to whichever of x, min and
    max the result took (`edges`: which of the three this node has)."""
    node = c.node
    x = c.saved("self")
    lo = c.saved("min") if node.has_min else None
    hi = c.saved("max") if node.has_max else None
    s = c.sym(0)
    slo = c.sym(edges.index(1)) if 1 in edges else "min"
    shi = c.sym(edges.index(2)) if 2 in edges else "max"
    if lo is not None and hi is not None:
        masks = [(x >= lo) & (x <= hi), (x < lo) & (lo < hi), (x > hi) | (lo > hi)]
        rhs = [f"1 where {slo} ≤ {s} ≤ {shi}, else 0", f"1 where {s} < {slo}, else 0"]
        rhs.append(f"1 where {s} > {shi}, else 0")
    elif lo is not None:
        masks, rhs = (
            [x >= lo, x < lo, None],
            [f"1 where {s} ≥ {slo}, else 0", f"1 where {s} < {slo}, else 0", ""],
        )
    else:
        masks, rhs = (
            [x <= hi, None, x > hi],
            [f"1 where {s} ≤ {shi}, else 0", "", f"1 where {s} > {shi}, else 0"],
        )
    wanted = node.needs
    locals_ = []
    for k, e in enumerate(edges):
        ok = masks[e] is not None and (wanted[k] if len(wanted) == len(edges) else wanted[e])
        locals_.append(Local(rhs[e], masks[e] * 1.0) if ok else None)
    bounds = ", ".join(c.sym(k) for k, e in enumerate(edges) if e and masks[e] is not None)
    name = {(0, 1): "clamp_min", (0, 2): "clamp_max"}.get(tuple(edges), "clamp")
    return Formula(f"{name}({s}, {bounds})", locals_)


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


# hardtanh / relu6: a clamp whose gradient stops at both bounds -------------------------
class HardtanhBackward0(Node):
    """g where min_val < x < max_val, else 0."""

    def backward(self, g):
        return (hardtanh_backward(g, self.saved("self"), self.min_val, self.max_val),)

    def explain(self, c: Ctx) -> Formula:
        x, lo, hi = c.saved("self"), c.attr("min_val"), c.attr("max_val")
        s = c.sym(0)
        inside = (x > lo) & (x < hi)
        return Formula(
            f"hardtanh({s}, {num(lo)}, {num(hi)})",
            [Local(f"1 where {num(lo)} < {s} < {num(hi)}, else 0", inside * 1.0)],
        )


class HardtanhBackwardBackward0(FusedBackward):
    """hardtanh_backward(g, x) = g inside the bounds, 0 outside: differentiated, the same
    op again for g, and zeros (with no graph) for x, where it is flat."""

    inputs = ("grad_output", "self")

    def grads(self, gg, wanted, g, x):
        lo, hi = self.min_val, self.max_val
        return (
            hardtanh_backward(gg, x, lo, hi) if wanted[0] else None,
            zeros_like_grad(gg) if wanted[1] else None,  # PyTorch: zeros_like(grad)
        )

    no_explanation = BACKWARD_OF_BACKWARD


def hardtanh_backward(g: Tensor, x: Tensor, min_val, max_val) -> Tensor:
    """hardtanh's gradient, g where min_val < x < max_val, else 0: one op in PyTorch, so
    one node (HardtanhBackwardBackward0) when differentiated."""

    def compute(g, x):
        inside = (x._data > min_val) & (x._data < max_val)
        return wrap(as_array((g._data * inside).astype(g._data.dtype)), g._dtype)

    return fused(HardtanhBackwardBackward0, (g, x), compute, min_val=min_val, max_val=max_val)


def hardtanh(
    input: Tensor,  # noqa: A002 - PyTorch's name
    min_val: float = -1.0,
    max_val: float = 1.0,
    inplace: bool = False,
) -> Tensor:
    """min(max(x, min_val), max_val)."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if inplace:
        raise NotImplementedError(
            "gradshell does not support torch.nn.functional.hardtanh with inplace=True yet"
        )
    res = input.clamp(min_val, max_val).detach()
    if needs_grad(input):
        node = HardtanhBackward0()
        node.min_val = min_val
        node.max_val = max_val
        node.save("self", input)
        record(node, (input,), res)
    return res


def relu6(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    """min(max(x, 0), 6)."""
    if inplace:
        raise NotImplementedError(
            "gradshell does not support torch.nn.functional.relu6 with inplace=True yet"
        )
    return hardtanh(input, 0.0, 6.0)
