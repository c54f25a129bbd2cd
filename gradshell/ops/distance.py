"""Distances and similarities between vectors: cosine_similarity and pairwise_distance
(composed as PyTorch composes them, so their graphs hold PyTorch's nodes) and cdist
(one node, CdistBackward0)."""

from __future__ import annotations

import math

import numpy as np

from gradshell.core import dtypes, grad_mode
from gradshell.ops import summation
from gradshell.ops.base import (
    FLOAT,
    Node,
    Tensor,
    array_module,
    as_array,
    broadcast_error,
    needs_grad,
    record,
    tensor_method,
    wrap,
    wrap_dim,
)
from gradshell.ops.explanation import Ctx, Formula
from gradshell.ops.reduction import LinalgVectorNormBackward0, vector_norm
from gradshell.ops.scalar import add_scalar
from gradshell.ops.shape import expand


def _common_shape(a: Tensor, b: Tensor) -> tuple:
    try:
        return tuple(np.broadcast_shapes(a._data.shape, b._data.shape))
    except ValueError:
        raise broadcast_error(tuple(a._data.shape), tuple(b._data.shape)) from None


@tensor_method(torch=("cosine_similarity",))
def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """Σ (x1/‖x1‖)·(x2/‖x2‖) along `dim`, each norm clamped to at least `eps`."""
    dt = dtypes.result_type(x1, x2)
    if dt.category != FLOAT:
        raise RuntimeError(
            f"expected common dtype to be floating point, yet common dtype is {dt.scalar_name}"
        )
    shape = _common_shape(x1, x2)
    if tuple(x1._data.shape) != tuple(x2._data.shape):
        x1, x2 = expand(x1, shape), expand(x2, shape)
    d = wrap_dim(dim, len(shape))
    n1 = vector_norm(x1, 2, d, True).clone()
    n2 = vector_norm(x2, 2, d, True).clone()
    with grad_mode.no_grad():
        # clamped out of the graph: the gradient flows through the norms unclamped
        n1.clamp_min_(eps)
        n2.clamp_min_(eps)
    return ((x1 / n1) * (x2 / n2)).sum(d)


class NormBackward1(LinalgVectorNormBackward0):
    """torch.norm(x, p, dim) as ATen's norm records it: the vector norm's derivative."""

    def explain(self, c: Ctx) -> Formula:
        return LinalgVectorNormBackward0.explain(self, c)


def _norm(x: Tensor, p: float, dim: int | None, keepdim: bool) -> Tensor:
    """ATen's norm.ScalarOpt_dim: the vector p-norm over `dim` (None: a 0-dim tensor's
    own value), recording NormBackward1."""
    dims = None if dim is None else (dim,)
    r = summation.torch_vector_norm(x._data, float(p), dims, keepdim, x._dtype.np)
    res = wrap(as_array(r), x._dtype)
    if needs_grad(x):
        node = NormBackward1()
        node.p, node.dims, node.keepdim = float(p), dims, keepdim or dims is None
        node.input_shape = x._data.shape
        node.save("self", x)
        node.save("result", res, is_output=True)
        record(node, (x,), res)
    return res


@tensor_method(torch=("pairwise_distance",))
def pairwise_distance(
    x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False
) -> Tensor:
    """‖x1 - x2 + eps‖_p along the last dimension (of the broadcast shape)."""
    _common_shape(x1, x2)
    nd = max(x1._data.ndim, x2._data.ndim)
    diff = add_scalar(x1 - x2, eps)  # ATen adds a Scalar: AddBackward1
    if nd == 0:
        return _norm(diff, p, None, False)  # PyTorch's NormBackward1, no view around it
    return _norm(diff, p, nd - 1, keepdim)


# -- cdist ---------------------------------------------------------------------------------------
def _pair_diff(xp, a, b):
    return a[..., :, None, :] - b[..., None, :, :]


def _p_norm_last(xp, diff, p: float):
    ad = xp.abs(diff)
    if p == 0:
        return (ad != 0).sum(-1).astype(diff.dtype)
    if p == 1:
        return ad.sum(-1)
    if p == 2:
        return xp.sqrt((ad * ad).sum(-1))
    if math.isinf(p):
        return ad.max(-1) if ad.shape[-1] else xp.zeros(ad.shape[:-1], diff.dtype)
    return (ad**p).sum(-1) ** (1.0 / p)


class CdistBackward0(Node):
    """∂‖x1ᵢ - x2ⱼ‖_p: x1ᵢ gets Σⱼ g·∂, x2ⱼ gets -Σᵢ g·∂ (∂ = diff·|diff|^(p-2)/d^(p-1))."""

    def backward(self, g):
        x1, x2 = self.saved("x1"), self.saved("x2")
        res = self.saved("result")
        xp = array_module(g._data)
        diff = _pair_diff(xp, x1._data, x2._data)
        d = res._data[..., None]
        p = self.p
        with np.errstate(all="ignore"):
            if p == 0:
                w = xp.zeros_like(diff)
            elif p == 1:
                w = xp.sign(diff)
            elif p == 2:
                w = xp.where(d == 0, 0, diff / xp.where(d == 0, 1, d))
            elif math.isinf(p):
                w = xp.sign(diff) * (xp.abs(diff) == d)
            else:
                w = xp.where(
                    d == 0,
                    0,
                    diff * xp.abs(diff) ** (p - 2) / xp.where(d == 0, 1, d) ** (p - 1),
                )
        gw = g._data[..., None] * w
        g1 = g2 = None
        if self.needs[0]:
            g1 = self._grad(_sum_to(gw.sum(-2), x1._data.shape), x1, (g, x1, x2, res))
        if self.needs[1]:
            g2 = self._grad(_sum_to(-gw.sum(-3), x2._data.shape), x2, (g, x1, x2, res))
        return g1, g2

    @staticmethod
    def _grad(data, like: Tensor, inputs: tuple) -> Tensor:
        out = wrap(as_array(data.astype(like._dtype.np)), like._dtype)
        if grad_mode.state.enabled and needs_grad(*inputs):  # create_graph=True
            record(CdistBackwardBackward0(), inputs, out)
        return out

    no_explanation = "its local derivative is a 4-d tensor of pair differences, not a formula"


class CdistBackwardBackward0(Node):
    """The backward of cdist's backward: PyTorch implements no derivative for it."""

    no_explanation = "PyTorch implements no derivative for cdist's backward"

    def backward(self, g):
        raise NotImplementedError("the derivative for '_cdist_backward' is not implemented.")


def _sum_to(data, shape: tuple):
    """`data` summed over its broadcast dimensions back to `shape`."""
    lead = data.ndim - len(shape)
    if lead:
        data = data.sum(axis=tuple(range(lead)))
    axes = tuple(i for i, s in enumerate(shape) if s == 1 and data.shape[i] != 1)
    return data.sum(axis=axes, keepdims=True) if axes else data


@tensor_method(torch=("cdist",))
def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode=None) -> Tensor:
    """The p-norm distance between each row of x1 (…, P, M) and each row of x2 (…, R, M)."""
    if x1._data.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1._data.ndim}D")
    if x2._data.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X2 got: {x2._data.ndim}D")
    if x1._data.shape[-1] != x2._data.shape[-1]:
        raise RuntimeError(
            "X1 and X2 must have the same number of columns. X1: "
            f"{x1._data.shape[-1]} X2: {x2._data.shape[-1]}"
        )
    if x1._dtype.category != FLOAT or x2._dtype.category != FLOAT:
        raise RuntimeError(
            f"cdist only supports floating-point dtypes, X1 got: {x1._dtype.scalar_name}"
        )
    if x1._dtype is not x2._dtype:
        raise RuntimeError(
            f"expected scalar type {x1._dtype.scalar_name} but found {x2._dtype.scalar_name}"
        )
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    xp = array_module(x1._data)
    batch = np.broadcast_shapes(x1._data.shape[:-2], x2._data.shape[:-2])
    a = xp.broadcast_to(x1._data, batch + x1._data.shape[-2:])
    b = xp.broadcast_to(x2._data, batch + x2._data.shape[-2:])
    out = _p_norm_last(xp, _pair_diff(xp, a, b), float(p))
    res = wrap(as_array(out.astype(x1._dtype.np)), x1._dtype)
    if needs_grad(x1, x2):
        node = CdistBackward0()
        node.p = float(p)
        node.needs = (x1._requires_grad, x2._requires_grad)
        node.save("x1", x1)
        node.save("x2", x2)
        node.save("result", res, is_output=True)
        record(node, (x1, x2), res)
    return res
