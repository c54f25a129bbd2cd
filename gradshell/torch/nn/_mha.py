"""`F.multi_head_attention_forward`, the computation behind nn.MultiheadAttention, step
by step as PyTorch composes it (so the graph shows PyTorch's nodes in its order): the
packed or separate input projections, the heads split by view/transpose, then either the
explicit form that returns the attention weights (bmm or baddbmm, softmax, dropout, bmm)
or scaled_dot_product_attention, and the output projection."""

from __future__ import annotations

import math
import warnings

from gradshell.core import dtypes
from gradshell.core.tensor import Tensor
from gradshell.ops.attention import scaled_dot_product_attention
from gradshell.ops.baddbmm import baddbmm
from gradshell.ops.linalg import bmm
from gradshell.ops.nn import dropout, linear, softmax

__all__ = ["canonical_mask", "multi_head_attention_forward"]


def canonical_mask(
    mask, mask_name: str, other_type, other_name: str, target_type, check_other=True
):
    """A boolean mask as the additive float mask (True → -inf); a float mask unchanged."""
    if mask is None:
        return None
    is_float = mask.is_floating_point()
    if mask.dtype is not dtypes.bool_ and not is_float:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype is not other_type:
        warnings.warn(
            f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same type "
            "for both instead.",
            UserWarning,
            stacklevel=4,
        )
    if not is_float:
        zeros = mask.new_zeros(tuple(mask.shape), dtype=target_type)
        mask = zeros.masked_fill_(mask, float("-inf"))
    return mask


def _batched(query, key, value, key_padding_mask, attn_mask, num_heads: int) -> bool:
    """True for batched (3-D) inputs, False for unbatched (2-D); PyTorch's shape checks."""
    if query.dim() == 3:
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError(
                "For batched (3-D) `query`, expected `key` and `value` to be 3-D but found "
                f"{key.dim()}-D and {value.dim()}-D tensors respectively"
            )
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError(
                "For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but "
                f"found {key_padding_mask.dim()}-D tensor instead"
            )
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError(
                "For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but "
                f"found {attn_mask.dim()}-D tensor instead"
            )
        return True
    if query.dim() == 2:
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError(
                "For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found "
                f"{key.dim()}-D and {value.dim()}-D tensors respectively"
            )
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError(
                "For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D "
                f"but found {key_padding_mask.dim()}-D tensor instead"
            )
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError(
                    "For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D "
                    f"but found {attn_mask.dim()}-D tensor instead"
                )
            if attn_mask.dim() == 3:
                expected = (num_heads, query.shape[0], key.shape[0])
                if tuple(attn_mask.shape) != expected:
                    raise AssertionError(
                        f"Expected `attn_mask` shape to be {expected} but got {attn_mask.shape}"
                    )
        return False
    raise AssertionError(
        "query should be unbatched 2D or batched 3D tensor but received "
        f"{query.dim()}-D query tensor"
    )


def _split_packed(proj: Tensor, parts: int, e: int) -> Tensor:
    """(…, parts·E) → (parts, …, E), contiguous, as PyTorch separates packed projections."""
    return proj.unflatten(-1, (parts, e)).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()


def _in_projection_packed(q, k, v, w: Tensor, b) -> tuple:
    """q, k and v projected with one packed weight (3E, E): one linear for self-attention,
    two when key is value, three otherwise."""
    e = q.size(-1)
    if k is v:
        if q is k:
            proj = _split_packed(linear(q, w, b), 3, e)
            return proj[0], proj[1], proj[2]
        w_q, w_kv = w.split([e, e * 2])
        b_q, b_kv = (None, None) if b is None else b.split([e, e * 2])
        kv = _split_packed(linear(k, w_kv, b_kv), 2, e)
        return linear(q, w_q, b_q), kv[0], kv[1]
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def _in_projection(q, k, v, w_q, w_k, w_v, b) -> tuple:
    """q, k and v projected with their own weights (kdim/vdim differ from embed_dim)."""
    eq, ek, ev = q.size(-1), k.size(-1), v.size(-1)
    for what, w, shape in (
        ("query", w_q, (eq, eq)),
        ("key", w_k, (eq, ek)),
        ("value", w_v, (eq, ev)),
    ):
        if tuple(w.shape) != shape:
            raise AssertionError(f"expecting {what} weights shape of {shape}, but got {w.shape}")
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def _checked_attn_mask(attn_mask, tgt_len: int, src_len: int, bsz: int, num_heads: int):
    """attn_mask as (1 or bsz·heads, tgt_len, src_len), with PyTorch's shape errors."""
    if attn_mask.dim() == 2:
        if tuple(attn_mask.shape) != (tgt_len, src_len):
            raise RuntimeError(
                f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                f"{(tgt_len, src_len)}."
            )
        return attn_mask.unsqueeze(0)
    if attn_mask.dim() == 3:
        if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
            raise RuntimeError(
                f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                f"{(bsz * num_heads, tgt_len, src_len)}."
            )
        return attn_mask
    raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")


def _heads(t: Tensor, bsz: int, num_heads: int, head_dim: int) -> Tensor:
    """(L, N, E) → (N·heads, L, head_dim)."""
    return t.view(t.shape[0], bsz * num_heads, head_dim).transpose(0, 1)


def multi_head_attention_forward(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    embed_dim_to_check: int,
    num_heads: int,
    in_proj_weight,
    in_proj_bias,
    bias_k,
    bias_v,
    add_zero_attn: bool,
    dropout_p: float,
    out_proj_weight: Tensor,
    out_proj_bias,
    training: bool = True,
    key_padding_mask=None,
    need_weights: bool = True,
    attn_mask=None,
    use_separate_proj_weight: bool = False,
    q_proj_weight=None,
    k_proj_weight=None,
    v_proj_weight=None,
    static_k=None,
    static_v=None,
    average_attn_weights: bool = True,
    is_causal: bool = False,
) -> tuple:
    """Multi-head attention of (L, N, E) query and (S, N, E) key/value (or unbatched 2-D):
    (output (L, N, E), attention weights or None)."""
    if bias_k is not None or bias_v is not None or add_zero_attn:
        raise NotImplementedError(
            "gradshell does not support torch.nn.MultiheadAttention(add_bias_kv=True or "
            "add_zero_attn=True) yet"
        )
    if static_k is not None or static_v is not None:
        raise NotImplementedError(
            "gradshell does not support multi_head_attention_forward(static_k, static_v) yet"
        )
    is_batched = _batched(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    other = None if attn_mask is None else attn_mask.dtype
    key_padding_mask = canonical_mask(
        key_padding_mask, "key_padding_mask", other, "attn_mask", query.dtype
    )
    if is_causal and attn_mask is None:
        raise RuntimeError(
            "Need attn_mask if specifying the is_causal hint. You may use the Transformer "
            "module method `generate_square_subsequent_mask` to create this mask."
        )
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # scaled_dot_product_attention masks the future itself
    else:
        attn_mask = canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, False)
        if key_padding_mask is not None:
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise AssertionError(
            f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}"
        )
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if key.shape[:2] != value.shape[:2]:
            raise AssertionError(
                f"key's sequence and batch dims {key.shape[:2]} do not match value's "
                f"{value.shape[:2]}"
            )
        q, k, v = _in_projection(
            query, key, value, q_proj_weight, k_proj_weight, v_proj_weight, in_proj_bias
        )
    else:
        if key.shape != value.shape:
            raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    if attn_mask is not None:
        attn_mask = _checked_attn_mask(attn_mask, tgt_len, src_len, bsz, num_heads)
    q = _heads(q, bsz, num_heads, head_dim)
    k = _heads(k, bsz, num_heads, head_dim)
    v = _heads(v, bsz, num_heads, head_dim)
    src_len = k.size(1)
    if key_padding_mask is not None:
        if tuple(key_padding_mask.shape) != (bsz, src_len):
            raise AssertionError(
                f"expecting key_padding_mask shape of {(bsz, src_len)}, but got "
                f"{key_padding_mask.shape}"
            )
        key_padding_mask = (
            key_padding_mask.view(bsz, 1, 1, src_len)
            .expand(-1, num_heads, -1, -1)
            .reshape(bsz * num_heads, 1, src_len)
        )
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask
    if not training:
        dropout_p = 0.0
    if need_weights:
        q_scaled = q * math.sqrt(1.0 / float(q.shape[-1]))
        if attn_mask is not None:
            weights = baddbmm(attn_mask, q_scaled, k.transpose(-2, -1))
        else:
            weights = bmm(q_scaled, k.transpose(-2, -1))
        weights = softmax(weights, dim=-1)
        if dropout_p > 0.0:
            weights = dropout(weights, p=dropout_p)
        out = bmm(weights, v)
        out = out.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = linear(out, out_proj_weight, out_proj_bias)
        out = out.view(tgt_len, bsz, out.size(1))
        weights = weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not is_batched:
            out, weights = out.squeeze(1), weights.squeeze(0)
        return out, weights
    if attn_mask is not None:
        if attn_mask.size(0) == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
    q = q.view(bsz, num_heads, tgt_len, head_dim)
    k = k.view(bsz, num_heads, src_len, head_dim)
    v = v.view(bsz, num_heads, src_len, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias)
    out = out.view(tgt_len, bsz, out.size(1))
    if not is_batched:
        out = out.squeeze(1)
    return out, None
