"""`F.scaled_dot_product_attention`: softmax(q·kᵀ·scale + mask)·v over the last two
dimensions, as PyTorch's CPU picks it.

For 4-D inputs of matching sizes, without dropout and without a mask that needs a
gradient, PyTorch runs its fused CPU kernel, one node `ScaledDotProductFlashAttentionForCpuBackward0` with edges to q, k and v,
whose output is laid out like the query. Otherwise it composes the math form, whose
graph shows each step: q and kᵀ each scaled by √scale (`MulBackward1`), a matmul, the
mask added, `SafeSoftmaxBackward0` (a softmax whose fully masked rows are 0), dropout,
and a matmul with v.
"""

from __future__ import annotations

import math

import numpy as np

from gradshell.core import dtypes, grad_mode
from gradshell.ops import arithmetic, linalg
from gradshell.ops.base import (
    BOOL,
    FLOAT,
    Node,
    Tensor,
    array_module,
    as_array,
    needs_grad,
    record,
    wrap,
)
from gradshell.ops.nn import dropout, softmax_backward_data
from gradshell.ops.scalar import mul_scalar

__all__ = ["scaled_dot_product_attention"]


def _float_mask(mask: Tensor, dtype) -> Tensor:
    """A boolean mask (True: attend) as the additive float mask 0 / -inf."""
    xp = array_module(mask._data)
    add = xp.where(mask._data, dtype.np.type(0), dtype.np.type(-np.inf)).astype(dtype.np)
    return wrap(as_array(add), dtype)


def _causal(xp, length: int, source: int):
    return xp.tril(xp.ones((length, source), dtype=bool))


def _softmax_rows(xp, s):
    """softmax along the last axis; a row with no finite score gives 0 (not NaN)."""
    top = xp.max(s, axis=-1, keepdims=True)
    top = xp.where(xp.isfinite(top), top, 0)
    e = xp.exp(s - top)
    total = xp.sum(e, axis=-1, keepdims=True)
    return xp.where(total > 0, e / xp.where(total > 0, total, 1), 0).astype(s.dtype)


class ScaledDotProductFlashAttentionForCpuBackward0(Node):
    """d attention: with P = softmax(S), S = q·kᵀ·scale + mask, out = P·v: ∂v = Pᵀ·g,
    ∂P = g·vᵀ, ∂S = P ⊙ (∂P - Σ ∂P ⊙ P), ∂q = ∂S·k·scale, ∂k = ∂Sᵀ·q·scale."""

    def backward(self, g):
        q, k, v = self.saved("query"), self.saved("key"), self.saved("value")
        p = self.saved("probs")._data
        xp = array_module(g._data)
        gd = g._data
        t = gd.dtype.type
        scale = t(self.scale)
        gv = xp.matmul(xp.swapaxes(p, -1, -2), gd)
        dp = xp.matmul(gd, xp.swapaxes(v._data, -1, -2))
        ds = p * (dp - xp.sum(dp * p, axis=-1, keepdims=True))
        gq = xp.matmul(ds, k._data) * scale
        gk = xp.matmul(xp.swapaxes(ds, -1, -2), q._data) * scale
        out = []
        for grad, src in ((gq, q), (gk, k), (gv, v)):
            # a broadcast batch dimension gets the sum of its gradients
            lead = grad.ndim - src._data.ndim
            if lead:
                grad = grad.sum(axis=tuple(range(lead)))
            dims = tuple(i for i, s in enumerate(src._data.shape) if s == 1 and grad.shape[i] != 1)
            if dims:
                grad = grad.sum(axis=dims, keepdims=True)
            out.append(wrap(as_array(grad.astype(src._data.dtype, copy=False)), src._dtype))
        if grad_mode.state.enabled and needs_grad(g, q, k, v):
            node = ScaledDotProductFlashAttentionForCpuBackwardBackward0()
            record(node, (g, q, k, v), out[0], 0)  # (output 0 links the edges)
            for nr in (1, 2):
                record(node, (g, q, k, v), out[nr], nr)
        return tuple(out)

    no_explanation = (
        "its local derivatives go through the softmax of every score row: no one-line formula"
    )


class ScaledDotProductFlashAttentionForCpuBackwardBackward0(Node):
    """PyTorch has no second derivative for its fused CPU attention."""

    num_outputs = 3

    def backward(self, *grads):
        raise RuntimeError(
            "derivative for aten::_scaled_dot_product_flash_attention_for_cpu_backward is not "
            "implemented"
        )

    no_explanation = "PyTorch implements no second derivative for its fused CPU attention"


class SafeSoftmaxBackward0(Node):
    """d softmax as for softmax: y·(g - Σ g·y) (a fully masked row has y = 0, so 0)."""

    def backward(self, g):
        return (softmax_backward_data(g, self.saved("result"), self.dim),)

    no_explanation = "the softmax inside attention: %explain explains softmax itself"


def _safe_softmax(x: Tensor) -> Tensor:
    xp = array_module(x._data)
    res = wrap(as_array(_softmax_rows(xp, x._data)), x._dtype)
    if needs_grad(x):
        node = SafeSoftmaxBackward0()
        node.dim = x._data.ndim - 1
        node.save("result", res, is_output=True)
        record(node, (x,), res)
    return res


def _shape_text(shape) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _check(q, k, v, mask, dropout_p: float) -> None:
    for name, t in (("query", q), ("key", k), ("value", v)):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"scaled_dot_product_attention(): argument '{name}' (position "
                f"{('query', 'key', 'value').index(name) + 1}) must be Tensor, not "
                f"{type(t).__name__}"
            )
    if not (q._dtype is k._dtype is v._dtype):
        raise RuntimeError(
            "Expected query, key, and value to have the same dtype, but got query.dtype: "
            f"{q._dtype.cpp_name} key.dtype: {k._dtype.cpp_name} and value.dtype: "
            f"{v._dtype.cpp_name} instead."
        )
    if q._dtype.category != FLOAT:
        raise NotImplementedError(
            f"gradshell does not support torch.nn.functional.scaled_dot_product_attention "
            f"on {q._dtype} tensors yet"
        )
    if mask is not None and mask._dtype.category not in (FLOAT, BOOL):
        raise RuntimeError(
            "Expected attn_mask dtype to be bool or float or to match query dtype, but got "
            f"attn_mask.dtype: {mask._dtype} and  query.dtype: {q._dtype} instead."
        )
    if not 0.0 <= dropout_p <= 1.0:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {dropout_p}")


def _flash(q: Tensor, k: Tensor, v: Tensor, mask, is_causal: bool, scale: float) -> Tensor:
    xp = array_module(q._data)
    t = q._data.dtype.type
    s = xp.matmul(q._data, xp.swapaxes(k._data, -1, -2)) * t(scale)
    if is_causal:
        s = xp.where(_causal(xp, s.shape[-2], s.shape[-1]), s, t(-np.inf))
    if mask is not None:
        s = s + mask._data
    p = _softmax_rows(xp, s)
    r = xp.matmul(p, v._data)
    if r.shape == q._data.shape:
        out = xp.empty_like(q._data)  # laid out as the query is, as PyTorch's kernel does
        out[...] = r
    else:
        out = xp.ascontiguousarray(r)
    res = wrap(as_array(out), q._dtype)
    if needs_grad(q, k, v):
        node = ScaledDotProductFlashAttentionForCpuBackward0()
        node.scale = scale
        node.save("query", q)
        node.save("key", k)
        node.save("value", v)
        node.save("probs", wrap(as_array(p), q._dtype))
        record(node, (q, k, v), res)
    return res


def _math(q: Tensor, k: Tensor, v: Tensor, mask, dropout_p: float, is_causal, scale) -> Tensor:
    root = math.sqrt(scale)
    qs = mul_scalar(q, root)
    ks = mul_scalar(k.transpose(-2, -1), root)
    s = linalg.matmul(qs, ks)
    if is_causal:
        xp = array_module(q._data)
        causal = wrap(as_array(_causal(xp, s.shape[-2], s.shape[-1])), dtypes.bool_)
        mask = _float_mask(causal, q._dtype)
    if mask is not None:
        s = arithmetic.add(s, mask)
    p = _safe_softmax(s)
    if dropout_p > 0.0:
        p = dropout(p, dropout_p, True)
    return linalg.matmul(p, v)


def scaled_dot_product_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask: Tensor | None = None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    scale: float | None = None,
    enable_gqa: bool = False,
) -> Tensor:
    """softmax(query·keyᵀ·scale + attn_mask)·value over the last two dimensions (scale
    defaults to 1/√E; a boolean mask marks the positions that may be attended; is_causal
    masks out the future)."""
    q, k, v = query, key, value
    _check(q, k, v, attn_mask, dropout_p)
    if enable_gqa:
        raise NotImplementedError(
            "gradshell does not support torch.nn.functional.scaled_dot_product_attention"
            "(enable_gqa=True) yet"
        )
    if is_causal and attn_mask is not None:
        raise RuntimeError(
            "_scaled_dot_product_attention: Explicit attn_mask should not be set when "
            "is_causal=True"
        )
    scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else float(scale)
    if attn_mask is not None and attn_mask._dtype.category == BOOL:
        attn_mask = _float_mask(attn_mask, q._dtype)
    if _fused_kernel_applies(q, k, v, attn_mask, dropout_p):
        return _flash(q, k, v, attn_mask, is_causal, scale)
    return _math(q, k, v, attn_mask, dropout_p, is_causal, scale)


def _fused_kernel_applies(q: Tensor, k: Tensor, v: Tensor, mask, dropout_p: float) -> bool:
    """PyTorch's CPU choice: its fused kernel takes non-empty 4-D q, k, v with the same
    batch and head sizes and head dimension, no dropout, and no mask needing a gradient."""
    qs, ks, vs = q._data.shape, k._data.shape, v._data.shape
    return (
        dropout_p == 0.0
        and not (mask is not None and mask.requires_grad)
        and len(qs) == len(ks) == len(vs) == 4
        and qs[:2] == ks[:2] == vs[:2]
        and qs[-1] == ks[-1] == vs[-1]
        and ks[-2] == vs[-2]
        and q._data.size > 0
        and k._data.size > 0
    )
