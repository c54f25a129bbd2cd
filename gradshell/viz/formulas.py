"""Local derivatives of graph nodes, as formulas with their numbers, for `%explain`.

For a node class this table knows, `formula(node, ctx)` gives the forward expression
(`y·y`) and, for each input edge, the local derivative: a symbolic right-hand side
(`2y`), its value from the node's saved tensors, and how the incoming gradient becomes
the outgoing one. `%explain` checks every formula against the gradient the node really
produced and drops any that disagrees, so a formula shown is never a wrong one; nodes
not in this table are shown without a formula.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from gradshell.viz.common import number


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
        from gradshell.core.tensor import Tensor
        from gradshell.viz.common import as_array

        if isinstance(v, Tensor):
            return as_array(v).astype(np.float64)
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


def _num(v: Any) -> str:
    return number(v)


# --- the table ------------------------------------------------------------------------------

_TABLE: dict[str, Callable[[Ctx], Formula]] = {}


def _register(*names: str):
    def deco(fn: Callable[[Ctx], Formula]) -> Callable[[Ctx], Formula]:
        for n in names:
            _TABLE[n] = fn
        return fn

    return deco


def has_formula(node: Any) -> bool:
    """True if the table has a formula for this node's class."""
    return type(node).__name__ in _TABLE


def formula(node: Any, ctx: Ctx) -> Formula | None:
    """The node's formula, or None (unknown class, or a value it needs is unavailable)."""
    fn = _TABLE.get(type(node).__name__)
    if fn is None:
        return None
    try:
        return fn(ctx)
    except Unavailable:
        return None


def _const(v: float) -> Local:
    return Local(_num(v), float(v), exact=True)


@_register("AddBackward0")
def _add(c: Ctx) -> Formula:
    a, b = wrap_sym(c.sym(0)), wrap_sym(c.sym(1))
    alpha = c.attr("alpha")
    expr = f"{a} + {b}" if alpha == 1 else f"{a} + {_num(alpha)}·{b}"
    one, other = _const(1), _const(alpha)
    if c.same_input:
        one.merged = other.merged = _num(1 + alpha)
    return Formula(expr, [one, other])


@_register("SubBackward0")
def _sub(c: Ctx) -> Formula:
    a, b = wrap_sym(c.sym(0)), wrap_sym(c.sym(1))
    alpha = c.attr("alpha")
    expr = f"{a} − {b}" if alpha == 1 else f"{a} − {_num(alpha)}·{b}"
    first, second = _const(1), _const(-alpha)
    if c.same_input:
        first.merged = second.merged = _num(1 - alpha)
    return Formula(expr, [first, second])


@_register("RsubBackward1")
def _rsub1(c: Ctx) -> Formula:
    x = wrap_sym(c.sym(0))
    alpha = c.attr("alpha")
    other = getattr(c.node, "other", None)  # the Python number the tensor was subtracted from
    s = _num(other) if isinstance(other, (int, float)) and not isinstance(other, bool) else "c"
    expr = f"{s} − {x}" if alpha == 1 else f"{s} − {_num(alpha)}·{x}"
    return Formula(expr, [_const(-alpha)])


@_register("RsubBackward0")
def _rsub0(c: Ctx) -> Formula:
    a, b = wrap_sym(c.sym(0)), wrap_sym(c.sym(1))
    alpha = c.attr("alpha")
    expr = f"{b} − {a}" if alpha == 1 else f"{b} − {_num(alpha)}·{a}"
    return Formula(expr, [_const(-alpha), _const(1)])


def _operand(c: Ctx, saved_name: str, i: int) -> tuple[str, Any, bool]:
    """(symbol, value, is_number) of operand `i`, whose value was saved as `saved_name`."""
    v = c.saved(saved_name)
    if isinstance(v, np.ndarray):
        return c.sym(i), v, False
    return _num(v), float(v), True


@_register("MulBackward0")
def _mul(c: Ctx) -> Formula:
    needs_a = getattr(c.node, "needs_a", True)
    needs_b = getattr(c.node, "needs_b", True)
    la = lb = None
    sa, sb = c.sym(0), c.sym(1)
    if needs_a:
        sb, vb, exact_b = _operand(c, "other", 1)
        la = Local(sb, vb, exact=exact_b)
    if needs_b:
        sa, va, _ = _operand(c, "self", 0)
        lb = Local(sa, va)
    if c.same_input and la is not None and lb is not None:
        sym = c.sym(0)
        expr = f"{wrap_sym(sym)}·{wrap_sym(sym)}"
        la.merged = lb.merged = f"2{wrap_sym(sym)}"
        return Formula(expr, [la, lb])
    return Formula(f"{wrap_sym(sa)}·{wrap_sym(sb)}", [la, lb])


@_register("DivBackward0")
def _div(c: Ctx) -> Formula:
    sb, vb, exact_b = _operand(c, "other", 1)
    a = wrap_sym(c.sym(0))
    b = wrap_sym(sb)
    la = lb = None
    if getattr(c.node, "needs_a", True):
        la = Local(f"1/{b}", 1.0 / vb if exact_b else 1.0 / vb, exact=False)
    if getattr(c.node, "needs_b", False):
        va = c.saved("self")
        lb = Local(f"−{a}/{b}²", -va / (vb * vb))
    return Formula(f"{a}/{b}", [la, lb])


@_register("PowBackward0")
def _pow0(c: Ctx) -> Formula:
    x = wrap_sym(c.sym(0))
    n = c.saved("exponent")
    xv = c.saved("self")
    if isinstance(n, np.ndarray):
        raise Unavailable("tensor exponent")
    if n == 0:
        return Formula(f"{x}^0", [_const(0)])
    if n == 1:
        rhs = "1"
    elif n == 2:
        rhs = f"2{x}"
    else:
        rhs = f"{_num(n)}·{x}^{_num(n - 1)}"
    return Formula(f"{x}^{_num(n)}", [Local(rhs, n * xv ** (n - 1))])


@_register("PowBackward1")
def _pow1(c: Ctx) -> Formula:
    a, b = wrap_sym(c.sym(0)), wrap_sym(c.sym(1))
    av = c.saved("self")
    bv = c.saved("exponent")
    la = lb = None
    if getattr(c.node, "needs_a", True):
        with np.errstate(all="ignore"):
            val = np.where(bv == 0, 0.0, bv * av ** (bv - 1))
        la = Local(f"{b}·{a}^({b}−1)", val)
    if getattr(c.node, "needs_b", False):
        with np.errstate(all="ignore"):
            val = np.where((av == 0) & (bv >= 0), 0.0, av**bv * np.log(av))
        lb = Local(f"{a}^{b}·ln {a}", val)
    return Formula(f"{a}^{b}", [la, lb])


@_register("PowBackward2")
def _pow2(c: Ctx) -> Formula:
    x = wrap_sym(c.sym(0))
    base = c.saved("self")
    r = c.saved("result")
    if isinstance(base, np.ndarray) or base <= 0:
        raise Unavailable("base ≤ 0")
    return Formula(
        f"{_num(base)}^{x}", [Local(f"{_num(base)}^{x}·ln {_num(base)}", r * math.log(base))]
    )


@_register("NegBackward0")
def _neg(c: Ctx) -> Formula:
    return Formula(f"−{wrap_sym(c.sym(0))}", [_const(-1)])


def _unary(fn_name: str, rhs: str, value: Callable[[Ctx], Any]) -> Callable[[Ctx], Formula]:
    def make(c: Ctx) -> Formula:
        x = c.sym(0)
        return Formula(f"{fn_name}({x})", [Local(rhs.format(x=x), value(c))])

    return make


def _reg_unary(name: str, fn_name: str, rhs: str, value: Callable[[Ctx], Any]) -> None:
    _TABLE[name] = _unary(fn_name, rhs, value)


_reg_unary("ExpBackward0", "exp", "exp({x})", lambda c: c.saved("result"))
_reg_unary("Expm1Backward0", "expm1", "exp({x})", lambda c: c.saved("result") + 1)
_reg_unary("LogBackward0", "log", "1/{x}", lambda c: 1 / c.saved("self"))
_reg_unary("Log2Backward0", "log2", "1/({x}·ln 2)", lambda c: 1 / (c.saved("self") * math.log(2)))
_reg_unary(
    "Log10Backward0", "log10", "1/({x}·ln 10)", lambda c: 1 / (c.saved("self") * math.log(10))
)
_reg_unary("Log1PBackward0", "log1p", "1/(1 + {x})", lambda c: 1 / (c.saved("self") + 1))
_reg_unary("SqrtBackward0", "sqrt", "1/(2·sqrt({x}))", lambda c: 1 / (2 * c.saved("result")))
_reg_unary("RsqrtBackward0", "rsqrt", "−½·{x}^(−3/2)", lambda c: -0.5 * c.saved("result") ** 3)
_reg_unary("ReciprocalBackward0", "1/", "−1/{x}²", lambda c: -(c.saved("result") ** 2))
_reg_unary("AbsBackward0", "abs", "sign({x})", lambda c: np.sign(c.saved("self")))
_reg_unary("SinBackward0", "sin", "cos({x})", lambda c: np.cos(c.saved("self")))
_reg_unary("CosBackward0", "cos", "−sin({x})", lambda c: -np.sin(c.saved("self")))
_reg_unary("TanBackward0", "tan", "1 + tan²({x})", lambda c: 1 + c.saved("result") ** 2)
_reg_unary("TanhBackward0", "tanh", "1 − tanh²({x})", lambda c: 1 - c.saved("result") ** 2)
_reg_unary(
    "SigmoidBackward0",
    "sigmoid",
    "σ({x})·(1 − σ({x}))",
    lambda c: c.saved("result") * (1 - c.saved("result")),
)
_reg_unary(
    "ReluBackward0", "relu", "1 where {x} > 0, else 0", lambda c: (c.saved("result") > 0) * 1.0
)
_reg_unary(
    "ErfBackward0",
    "erf",
    "2/√π·exp(−{x}²)",
    lambda c: 2 / math.sqrt(math.pi) * np.exp(-(c.saved("self") ** 2)),
)
_reg_unary("SinhBackward0", "sinh", "cosh({x})", lambda c: np.cosh(c.saved("self")))
_reg_unary("CoshBackward0", "cosh", "sinh({x})", lambda c: np.sinh(c.saved("self")))
_reg_unary(
    "AsinBackward0", "asin", "1/√(1 − {x}²)", lambda c: 1 / np.sqrt(1 - c.saved("self") ** 2)
)
_reg_unary(
    "AcosBackward0", "acos", "−1/√(1 − {x}²)", lambda c: -1 / np.sqrt(1 - c.saved("self") ** 2)
)
for _name, _fn in (
    ("SignBackward0", "sign"),
    ("FloorBackward0", "floor"),
    ("CeilBackward0", "ceil"),
    ("RoundBackward0", "round"),
    ("TruncBackward0", "trunc"),
):
    _TABLE[_name] = (
        lambda fn: lambda c: Formula(f"{fn}({c.sym(0)})", [Local("0", 0.0, exact=True)])
    )(_fn)


# --- reductions ------------------------------------------------------------------------------


def _spread(in_shape: tuple, dims: Any, keepdim: bool) -> Callable[[np.ndarray], np.ndarray]:
    def apply(g: np.ndarray) -> np.ndarray:
        if dims is not None and not keepdim:
            shape = list(in_shape)
            for d in dims:
                shape[d] = 1
            g = g.reshape(shape)
        return np.broadcast_to(g, in_shape)

    return apply


def _reduction(fn_name: str, mean: bool) -> Callable[[Ctx], Formula]:
    def make(c: Ctx) -> Formula:
        x = c.sym(0)
        in_shape = tuple(c.attr("input_shape"))
        dims = getattr(c.node, "dims", None)
        keepdim = getattr(c.node, "keepdim", False)
        spread = _spread(in_shape, dims, keepdim)
        where = "" if dims is None else f", dim={dims[0] if len(dims) == 1 else tuple(dims)}"
        if mean:
            n = int(c.attr("count"))
            factor = 1.0 / n if n else math.nan
            local = Local(f"1/{n}", factor, kind="reduce", exact=True)
            local.apply = lambda g: spread(g) * factor
        else:
            local = Local("1", 1.0, kind="reduce", exact=True)
            local.apply = lambda g: np.array(spread(g))
        return Formula(f"{fn_name}({x}{where})", [local])

    return make


_TABLE["MeanBackward0"] = _TABLE["MeanBackward1"] = _reduction("mean", True)
_TABLE["SumBackward0"] = _TABLE["SumBackward1"] = _reduction("sum", False)


# --- products of matrices and vectors ---------------------------------------------------------


@_register("MmBackward0")
def _mm(c: Ctx) -> Formula:
    A, B = wrap_sym(c.sym(0)), wrap_sym(c.sym(1))
    la = lb = None
    if getattr(c.node, "needs_a", True):
        bv = c.saved("mat2")
        la = Local(f"grad @ {transposed(B)}", kind="map", apply=lambda g: g @ bv.T)
    if getattr(c.node, "needs_b", True):
        av = c.saved("self")
        lb = Local(f"{transposed(A)} @ grad", kind="map", apply=lambda g: av.T @ g)
    return Formula(f"{A} @ {B}", [la, lb])


@_register("MvBackward0")
def _mv(c: Ctx) -> Formula:
    A, v = wrap_sym(c.sym(0)), wrap_sym(c.sym(1))
    la = lb = None
    if getattr(c.node, "needs_a", True):
        vv = c.saved("mat2")
        la = Local(f"outer(grad, {v})", kind="map", apply=lambda g: np.outer(g, vv))
    if getattr(c.node, "needs_b", True):
        av = c.saved("self")
        lb = Local(f"{transposed(A)} @ grad", kind="map", apply=lambda g: av.T @ g)
    return Formula(f"{A} @ {v}", [la, lb])


@_register("DotBackward0")
def _dot(c: Ctx) -> Formula:
    a, b = wrap_sym(c.sym(0)), wrap_sym(c.sym(1))
    la = lb = None
    if getattr(c.node, "needs_a", True):
        la = Local(b, c.saved("mat2"), kind="reduce")
    if getattr(c.node, "needs_b", True):
        lb = Local(a, c.saved("self"), kind="reduce")
    return Formula(f"dot({a}, {b})", [la, lb])


# --- shape and copy nodes: the gradient is only rearranged ----------------------------------


@_register("ViewBackward0", "UnsafeViewBackward0", "SqueezeBackward0", "SqueezeBackward1")
def _view(c: Ctx) -> Formula:
    shape = tuple(c.attr("input_shape"))
    text = "[" + ", ".join(str(s) for s in shape) + "]"
    return Formula(
        f"{c.sym(0)} reshaped",
        [Local(f"grad reshaped back to {text}", kind="map", apply=lambda g: g.reshape(shape))],
    )


_TABLE["SqueezeBackward2"] = _view


@_register("UnsqueezeBackward0")
def _unsqueeze(c: Ctx) -> Formula:
    dim = c.attr("dim")
    return Formula(
        f"{c.sym(0)}.unsqueeze({dim})",
        [Local(f"grad.squeeze({dim})", kind="map", apply=lambda g: np.squeeze(g, axis=dim))],
    )


@_register("TBackward0")
def _t(c: Ctx) -> Formula:
    return Formula(transposed(c.sym(0)), [Local("gradᵀ", kind="map", apply=lambda g: g.T)])


@_register("TransposeBackward0")
def _transpose(c: Ctx) -> Formula:
    d0, d1 = c.attr("dim0"), c.attr("dim1")
    return Formula(
        f"{c.sym(0)}.transpose({d0}, {d1})",
        [
            Local(
                f"grad.transpose({d0}, {d1})",
                kind="map",
                apply=lambda g: np.swapaxes(g, d0, d1),
            )
        ],
    )


@_register("PermuteBackward0")
def _permute(c: Ctx) -> Formula:
    dims = tuple(c.attr("dims"))
    inv = [0] * len(dims)
    for i, d in enumerate(dims):
        inv[d] = i
    return Formula(
        f"{c.sym(0)}.permute{dims}",
        [Local(f"grad.permute{tuple(inv)}", kind="map", apply=lambda g: np.transpose(g, inv))],
    )


@_register("ExpandBackward0")
def _expand(c: Ctx) -> Formula:
    shape = tuple(c.attr("input_shape"))
    text = "[" + ", ".join(str(s) for s in shape) + "]"
    return Formula(
        f"{c.sym(0)}.expand(...)",
        [
            Local(
                f"grad summed over the copies back to {text}",
                kind="map",
                apply=lambda g: g,  # summing to the input's shape follows for every edge
            )
        ],
    )


@_register("CloneBackward0", "AliasBackward0")
def _clone(c: Ctx) -> Formula:
    return Formula(f"copy of {c.sym(0)}", [_const(1)])


# the nodes of neural-network tutorials (losses, nn.Linear, softmax...) register here too
from gradshell.viz import formulas_nn  # noqa: E402, F401
