"""torch.autograd.functional: jacobian, hessian, vjp, jvp, hvp and vhp of small functions
(the teaching use of higher-order gradients), computed with the backward engine one output
element at a time, as PyTorch's non-vectorized path does."""

from __future__ import annotations

from gradshell.core import engine
from gradshell.core.grad_mode import enable_grad
from gradshell.core.tensor import Tensor
from gradshell.ops.creation import zeros_like
from gradshell.ops.shape import stack

__all__ = ["jacobian", "hessian", "vjp", "jvp", "hvp", "vhp"]


def _as_tuple(x, arg_name: str, fn_name: str):
    """(tuple of tensors, whether x was a tuple), with PyTorch's type errors."""
    is_tuple = isinstance(x, tuple)
    items = x if is_tuple else (x,)
    for i, t in enumerate(items):
        if not isinstance(t, Tensor):
            if is_tuple:
                raise TypeError(
                    f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of "
                    f"Tensors but the value at index {i} has type {type(t)}."
                )
            raise TypeError(
                f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of "
                f"Tensors but the given {arg_name} has type {type(t)}."
            )
    return tuple(items), is_tuple


def _prepare(inputs: tuple, create_graph: bool) -> tuple:
    # Fresh leaves (or views that keep the graph, for create_graph) that require grad.
    out = []
    for t in inputs:
        if create_graph and t.requires_grad:
            out.append(t.view_as(t))
        else:
            out.append(t.detach().requires_grad_(True))
    return tuple(out)


def _finish(t: Tensor, create_graph: bool) -> Tensor:
    return t if create_graph else t.detach()


def _grad(outputs, inputs, grad_outputs, create_graph: bool, retain_graph: bool = True):
    outs = [o for o in outputs if o.requires_grad]
    gos = [g for o, g in zip(outputs, grad_outputs, strict=True) if o.requires_grad]
    if not outs:
        return (None,) * len(inputs)
    return engine.grad(
        outs,
        inputs,
        gos,
        retain_graph=retain_graph,
        create_graph=create_graph,
        allow_unused=True,
    )


def _strict_check(strict: bool, out_index: int, in_index: int, fn: str) -> None:
    if strict:
        raise RuntimeError(
            f"Output {out_index} of the user-provided function is independent of input "
            f"{in_index}. This is not allowed in strict mode."
        )


def jacobian(
    func,
    inputs,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    strategy: str = "reverse-mode",
) -> Tensor | tuple:
    """The Jacobian of `func` at `inputs`: for output i and input j a tensor of shape
    outputs[i].shape + inputs[j].shape (tuples nest as func's outputs and inputs do)."""
    if strategy not in ("reverse-mode", "forward-mode"):
        raise ValueError(
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
            'function has a single output, you probably want "reverse-mode".'
        )
    with enable_grad():
        ins, in_tuple = _as_tuple(inputs, "inputs", "jacobian")
        ins = _prepare(ins, create_graph)
        outputs = func(*ins)
        outs, out_tuple = _as_tuple(outputs, "outputs of the user-provided function", "jacobian")
        table = []  # table[i][j]: d outs[i] / d ins[j]
        for i, out in enumerate(outs):
            if strict and not out.requires_grad:
                raise RuntimeError(
                    f"Output {i} of the user-provided function does not require gradients. The "
                    "outputs must be computed in a differentiable manner from the input when "
                    "running in strict mode."
                )
            rows = [[] for _ in ins]
            flat = out.reshape(-1)
            for k in range(flat.numel()):
                if out.requires_grad:
                    grads = engine.grad(
                        flat[k],
                        ins,
                        retain_graph=True,
                        create_graph=create_graph,
                        allow_unused=True,
                    )
                else:
                    grads = (None,) * len(ins)
                for j, (g, x) in enumerate(zip(grads, ins, strict=True)):
                    if g is None:
                        _strict_check(strict, i, j, "jacobian")
                        g = zeros_like(x)
                    rows[j].append(g)
            row = []
            for j, x in enumerate(ins):
                if rows[j]:
                    jac = stack(rows[j]).view(tuple(out.shape) + tuple(x.shape))
                else:  # an empty output
                    jac = zeros_like(x).new_zeros(tuple(out.shape) + tuple(x.shape))
                row.append(_finish(jac, create_graph))
            table.append(tuple(row))
    if out_tuple:
        return tuple(r if in_tuple else r[0] for r in table)
    return table[0] if in_tuple else table[0][0]


def hessian(
    func,
    inputs,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    outer_jacobian_strategy: str = "reverse-mode",
) -> Tensor | tuple:
    """The Hessian of a scalar function: the Jacobian of its gradient, of shape
    inputs[i].shape + inputs[j].shape for each pair of inputs."""
    ins, in_tuple = _as_tuple(inputs, "inputs", "hessian")

    def gradient(*xs) -> tuple:
        """The gradient of func at xs, built with create_graph so it can be differentiated."""
        out = func(*xs)
        outs, is_tuple = _as_tuple(out, "outputs of the user-provided function", "hessian")
        if is_tuple or len(outs) != 1:
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if outs[0].numel() != 1:
            raise RuntimeError(
                "The Tensor returned by the function given to hessian should contain a single "
                "element"
            )
        if outs[0].requires_grad:
            grads = engine.grad(outs[0].reshape(()), xs, create_graph=True, allow_unused=True)
        else:
            grads = (None,) * len(xs)
        res = []
        for j, (g, x) in enumerate(zip(grads, xs, strict=True)):
            if g is None:
                _strict_check(strict, 0, j, "hessian")
                g = zeros_like(x)
            res.append(g)
        return tuple(res)

    result = jacobian(gradient, ins, create_graph=create_graph, strict=strict)
    # jacobian of a tuple-valued function: result[i][j] = d grad_i / d x_j
    if in_tuple:
        return result
    return result[0][0]


def vjp(func, inputs, v=None, create_graph: bool = False, strict: bool = False) -> Tensor | tuple:
    """(func(inputs), vᵀ J): a vector-Jacobian product."""
    with enable_grad():
        ins, in_tuple = _as_tuple(inputs, "inputs", "vjp")
        ins = _prepare(ins, create_graph)
        outputs = func(*ins)
        outs, out_tuple = _as_tuple(outputs, "outputs of the user-provided function", "vjp")
        if v is None:
            if len(outs) != 1 or outs[0].numel() != 1:
                raise RuntimeError(
                    "The vector v can only be None if the user-provided function returns a "
                    "single Tensor with a single element."
                )
            vs = (None,)
        else:
            vs, _ = _as_tuple(v, "v", "vjp")
        grads = _grad(outs, ins, vs, create_graph)
    res = tuple(
        _finish(zeros_like(x) if g is None else g, create_graph)
        for x, g in zip(ins, grads, strict=True)
    )
    out_vals = tuple(_finish(o, create_graph) for o in outs)
    return (out_vals if out_tuple else out_vals[0]), (res if in_tuple else res[0])


def jvp(func, inputs, v=None, create_graph: bool = False, strict: bool = False) -> Tensor | tuple:
    """(func(inputs), J v): a Jacobian-vector product (by the double-vjp trick)."""
    with enable_grad():
        ins, in_tuple = _as_tuple(inputs, "inputs", "jvp")
        ins = _prepare(ins, create_graph)
        if v is None:
            if len(ins) != 1 or ins[0].numel() != 1:
                raise RuntimeError(
                    "The vector v can only be None if the input to the user-provided function "
                    "is a single Tensor with a single element."
                )
            vs = (None,)
        else:
            vs, _ = _as_tuple(v, "v", "jvp")
        outputs = func(*ins)
        outs, out_tuple = _as_tuple(outputs, "outputs of the user-provided function", "jvp")
        dummies = tuple(zeros_like(o).requires_grad_(True) for o in outs)
        # J v as the derivative of (Jᵀu)·v with respect to u (the double-vjp trick)
        g = _grad(outs, ins, dummies, create_graph=True)
        pairs = [
            (gi, zeros_like(x) + 1 if vi is None else vi)
            for gi, vi, x in zip(g, vs, ins, strict=True)
            if gi is not None and gi.requires_grad
        ]
        if pairs:
            res = engine.grad(
                [gi for gi, _ in pairs],
                dummies,
                [vi for _, vi in pairs],
                create_graph=create_graph,
                allow_unused=True,
            )
        else:
            res = (None,) * len(dummies)
    res = tuple(
        _finish(zeros_like(o) if r is None else r, create_graph)
        for o, r in zip(outs, res, strict=True)
    )
    out_vals = tuple(_finish(o, create_graph) for o in outs)
    return (out_vals if out_tuple else out_vals[0]), (res if out_tuple else res[0])


def vhp(func, inputs, v=None, create_graph: bool = False, strict: bool = False) -> Tensor | tuple:
    """(func(inputs), vᵀ H) for a scalar function."""
    with enable_grad():
        ins, in_tuple = _as_tuple(inputs, "inputs", "vhp")
        ins = _prepare(ins, create_graph)
        out = func(*ins)
        if not isinstance(out, Tensor) or out.numel() != 1:
            raise RuntimeError(
                "The Tensor returned by the function given to vhp should contain a single element"
            )
        vs = (None,) * len(ins) if v is None else _as_tuple(v, "v", "vhp")[0]
        jac = _grad((out,), ins, (None,), create_graph=True)
        used = [(j, vi) for j, vi in zip(jac, vs, strict=True) if j is not None and j.requires_grad]
        if used:
            res = engine.grad(
                [j for j, _ in used],
                ins,
                [vi for _, vi in used],
                create_graph=create_graph,
                allow_unused=True,
            )
        else:
            res = (None,) * len(ins)
    res = tuple(
        _finish(zeros_like(x) if r is None else r, create_graph)
        for x, r in zip(ins, res, strict=True)
    )
    return _finish(out, create_graph), (res if in_tuple else res[0])


def hvp(func, inputs, v=None, create_graph: bool = False, strict: bool = False) -> Tensor | tuple:
    """(func(inputs), H v) for a scalar function (H is symmetric, so this is vhp)."""
    return vhp(func, inputs, v, create_graph, strict)
