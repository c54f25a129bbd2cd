"""Local derivatives of the nodes a neural-network tutorial makes (nn.Linear's addmm,
losses, softmax, matmul's internal squeeze, indexing, number operands), registered in
`gradshell.viz.formulas`' table. As there, `%explain` checks each against the gradient
the node really produced, so a formula shown is never a wrong one.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gradshell.viz.formulas import (
    _TABLE,
    Ctx,
    Formula,
    Local,
    Unavailable,
    _const,
    _num,
    _register,
    _view,
    transposed,
    wrap_sym,
)

_TABLE["ReshapeAliasBackward0"] = _view


def _needs(c: Ctx, i: int) -> bool:
    needs = getattr(c.node, "needs", None)
    return True if needs is None else bool(needs[i])


@_register("SqueezeBackward4")
def _matmul_squeeze(c: Ctx) -> Formula:
    """matmul's own squeeze of the dimension it added for a vector: the learner wrote
    `matmul(x, w)`, so the expression stays theirs."""
    dim = c.attr("dim")
    return Formula(
        c.sym(0),
        [Local(f"grad.unsqueeze({dim})", kind="map", apply=lambda g: np.expand_dims(g, dim))],
    )


@_register("AddmmBackward0")
def _addmm(c: Ctx) -> Formula:
    bias, a, b = c.sym(0), wrap_sym(c.sym(1)), wrap_sym(c.sym(2))
    beta, alpha = c.attr("beta"), c.attr("alpha")
    scale = "" if alpha == 1 else f"{_num(alpha)}·"
    lbias = la = lb = None
    if _needs(c, 0):
        lbias = _const(beta)
    if _needs(c, 1):
        bv = c.saved("mat2")
        la = Local(f"{scale}grad @ {transposed(b)}", kind="map", apply=lambda g: alpha * (g @ bv.T))
    if _needs(c, 2):
        av = c.saved("mat1")
        lb = Local(f"{scale}{transposed(a)} @ grad", kind="map", apply=lambda g: alpha * (av.T @ g))
    head = "" if beta == 1 else f"{_num(beta)}·"
    return Formula(f"{head}{wrap_sym(bias)} + {scale}{a} @ {b}", [lbias, la, lb])


def _mean_over(c: Ctx, x: np.ndarray) -> tuple[str, float]:
    """('/n', 1/n) for reduction='mean', ('', 1) for 'sum' and 'none'."""
    reduction = c.attr("reduction")
    if reduction == "mean":
        return f"/{x.size}", 1.0 / max(x.size, 1)
    return "", 1.0


@_register("MseLossBackward0")
def _mse(c: Ctx) -> Formula:
    x, t = c.saved("self"), c.saved("target")
    xs, ts = c.sym(0), c.sym(1)
    over, k = _mean_over(c, x)
    kind = "elementwise" if c.attr("reduction") == "none" else "reduce"
    lx = Local(f"2({xs} − {ts}){over}", 2 * (x - t) * k, kind=kind) if _needs(c, 0) else None
    lt = Local(f"−2({xs} − {ts}){over}", -2 * (x - t) * k, kind=kind) if _needs(c, 1) else None
    name = "mse_loss" if not over else "mean"
    expr = f"mean(({xs} − {ts})²)" if over else f"{name}({xs}, {ts})"
    return Formula(expr, [lx, lt])


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-x))


@_register("BinaryCrossEntropyWithLogitsBackward0")
def _bce_logits(c: Ctx) -> Formula:
    if c.attr("has_weight") or c.attr("has_pos_weight"):
        raise Unavailable("weights")
    x, t = c.saved("self"), c.saved("target")
    xs, ts = c.sym(0), c.sym(1)
    over, k = _mean_over(c, x)
    kind = "elementwise" if c.attr("reduction") == "none" else "reduce"
    lx = lt = None
    if _needs(c, 0):
        lx = Local(f"(σ({xs}) − {ts}){over}", (_sigmoid(x) - t) * k, kind=kind)
    if _needs(c, 1):
        lt = Local(f"−{wrap_sym(xs)}{over}", -x * k, kind=kind)
    return Formula(f"bce_with_logits({xs}, {ts})", [lx, lt])


@_register("BinaryCrossEntropyBackward0")
def _bce(c: Ctx) -> Formula:
    if c.attr("has_weight"):
        raise Unavailable("weights")
    x, t = c.saved("self"), c.saved("target")
    xs, ts = c.sym(0), c.sym(1)
    over, k = _mean_over(c, x)
    kind = "elementwise" if c.attr("reduction") == "none" else "reduce"
    lx = lt = None
    if _needs(c, 0):
        value = (x - t) / np.maximum(x * (1 - x), 1e-12) * k
        lx = Local(f"({xs} − {ts}) / ({xs}(1 − {xs})){over}", value, kind=kind)
    if _needs(c, 1):
        value = (np.maximum(np.log1p(-x), -100) - np.maximum(np.log(x), -100)) * k
        lt = Local(f"(log(1 − {xs}) − log({xs})){over}", value, kind=kind)
    return Formula(f"bce({xs}, {ts})", [lx, lt])


@_register("SoftmaxBackward0")
def _softmax(c: Ctx) -> Formula:
    y, dim = c.saved("result"), c.attr("dim")

    def apply(g: np.ndarray) -> np.ndarray:
        return y * (g - (g * y).sum(axis=dim, keepdims=True))

    s = f"softmax({c.sym(0)}, dim={dim})"
    return Formula(s, [Local("s·(grad − sum(grad·s))", kind="map", apply=apply)])


@_register("LogSoftmaxBackward0")
def _log_softmax(c: Ctx) -> Formula:
    y, dim = c.saved("result"), c.attr("dim")

    def apply(g: np.ndarray) -> np.ndarray:
        return g - np.exp(y) * g.sum(axis=dim, keepdims=True)

    s = f"log_softmax({c.sym(0)}, dim={dim})"
    return Formula(s, [Local("grad − softmax·sum(grad)", kind="map", apply=apply)])


@_register("NllLossBackward0")
def _nll(c: Ctx) -> Formula:
    from gradshell.viz.common import as_array

    pattern = as_array(c.attr("pattern")).astype(np.float64)
    unsqueeze = c.attr("reduction") == "none" and c.attr("input_ndim") > 1

    def apply(g: np.ndarray) -> np.ndarray:
        return pattern * (np.expand_dims(g, 1) if unsqueeze else g)

    rhs = "−1 at each sample's target class, 0 elsewhere"
    if c.attr("reduction") == "mean":
        rhs += " (divided by the number of samples)"
    return Formula(f"nll_loss({c.sym(0)})", [Local(rhs, kind="map", apply=apply)])


@_register("MulBackward1")
def _mul_number(c: Ctx) -> Formula:
    k = c.attr("other")
    return Formula(f"{wrap_sym(c.sym(0))}·{_num(k)}", [_const(k)])


@_register("DivBackward1")
def _div_number(c: Ctx) -> Formula:
    k = c.attr("other")
    return Formula(f"{wrap_sym(c.sym(0))}/{_num(k)}", [Local(f"1/{_num(k)}", 1 / k, exact=True)])


@_register("AddBackward1")
def _add_number(c: Ctx) -> Formula:
    return Formula(f"{c.sym(0)} + c", [_const(1)])


@_register("ToCopyBackward0")
def _to_copy(c: Ctx) -> Formula:
    return Formula(f"{c.sym(0)} converted", [_const(1)])


def _embed(c: Ctx) -> Any:
    shape, key = tuple(c.attr("input_shape")), c.attr("key")

    def apply(g: np.ndarray) -> np.ndarray:
        out = np.zeros(shape, dtype=np.float64)
        out[key] = g
        return out

    return apply


@_register("SelectBackward0", "SliceBackward0")
def _select(c: Ctx) -> Formula:
    text = "[" + ", ".join(str(s) for s in c.attr("input_shape")) + "]"
    return Formula(
        f"part of {c.sym(0)}",
        [Local(f"grad placed in zeros of shape {text}", kind="map", apply=_embed(c))],
    )


@_register("CatBackward0")
def _cat(c: Ctx) -> Formula:
    dim, sizes = c.attr("dim"), list(c.attr("sizes"))
    locals_: list[Local | None] = []
    start = 0
    for size in sizes:
        if size is None:
            locals_.append(None)
            continue

        def apply(g: np.ndarray, lo: int = start, n: int = size) -> np.ndarray:
            index = [slice(None)] * g.ndim
            index[dim % g.ndim] = slice(lo, lo + n)
            return g[tuple(index)]

        rhs = f"grad[{start}:{start + size}] along dim {dim}"
        locals_.append(Local(rhs, kind="map", apply=apply))
        start += size
    names = ", ".join(c.sym(i) for i in range(len(sizes)))
    return Formula(f"cat([{names}], dim={dim})", locals_)


@_register("StackBackward0")
def _stack(c: Ctx) -> Formula:
    dim = c.attr("dim")
    count = len(c.attr("needs"))

    def pick(i: int) -> Any:
        return lambda g: np.take(g, i, axis=dim % g.ndim)

    locals_ = [Local(f"grad[{i}] along dim {dim}", kind="map", apply=pick(i)) for i in range(count)]
    names = ", ".join(c.sym(i) for i in range(count))
    return Formula(f"stack([{names}], dim={dim})", locals_)


@_register("MaxPool2DWithIndicesBackward0")
def _max_pool(c: Ctx) -> Formula:
    x = c.saved("self")
    where = c.saved("result1").astype(np.int64)
    shape = x.shape

    def apply(g: np.ndarray) -> np.ndarray:
        planes = int(np.prod(shape[:-2]))
        out = np.zeros((planes, shape[-2] * shape[-1]), dtype=np.float64)
        rows = np.repeat(np.arange(planes), where[..., :, :].size // max(planes, 1))
        np.add.at(out, (rows, where.reshape(-1)), g.reshape(-1))
        return out.reshape(shape)

    rhs = "grad sent to the element each window took (0 elsewhere)"
    return Formula(f"max_pool2d({c.sym(0)})", [Local(rhs, kind="map", apply=apply)])


__all__: list[str] = []
