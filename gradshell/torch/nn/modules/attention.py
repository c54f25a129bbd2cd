"""MultiheadAttention: scaled dot-product attention over num_heads heads, with PyTorch's
parameters (in_proj_weight/in_proj_bias, or q/k/v_proj_weight when kdim or vdim differ
from embed_dim, and out_proj), initialised in PyTorch's order so that the same seed gives
the same weights."""

from __future__ import annotations

from gradshell.core.tensor import Tensor
from gradshell.ops import creation
from gradshell.torch.nn import init
from gradshell.torch.nn._mha import canonical_mask, multi_head_attention_forward
from gradshell.torch.nn.modules.linear import NonDynamicallyQuantizableLinear
from gradshell.torch.nn.modules.module import Module
from gradshell.torch.nn.parameter import Parameter

__all__ = ["MultiheadAttention"]


class MultiheadAttention(Module):
    """Attention of a query sequence over key/value sequences, split into num_heads heads
    of embed_dim/num_heads features each; returns (output, averaged or per-head weights)."""

    def __init__(
        self,
        embed_dim: int,
        num_heads: int,
        dropout: float = 0.0,
        bias: bool = True,
        add_bias_kv: bool = False,
        add_zero_attn: bool = False,
        kdim=None,
        vdim=None,
        batch_first: bool = False,
        device=None,
        dtype=None,
    ) -> None:
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(
                f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} "
                f"and num_heads={num_heads} instead"
            )
        if add_bias_kv or add_zero_attn:
            raise NotImplementedError(
                "gradshell does not support torch.nn.MultiheadAttention(add_bias_kv=True or "
                "add_zero_attn=True) yet"
            )
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")

        def empty(*shape):
            return Parameter(creation.empty(shape, device=device, dtype=dtype))

        if not self._qkv_same_embed_dim:
            self.q_proj_weight = empty(embed_dim, embed_dim)
            self.k_proj_weight = empty(embed_dim, self.kdim)
            self.v_proj_weight = empty(embed_dim, self.vdim)
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = empty(3 * embed_dim, embed_dim)
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = empty(3 * embed_dim)
        else:
            self.register_parameter("in_proj_bias", None)
        # (drawn here first, by Linear's own initialisation, as in PyTorch)
        self.out_proj = NonDynamicallyQuantizableLinear(
            embed_dim, embed_dim, bias=bias, device=device, dtype=dtype
        )
        self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)

    def forward(
        self,
        query: Tensor,
        key: Tensor,
        value: Tensor,
        key_padding_mask=None,
        need_weights: bool = True,
        attn_mask=None,
        average_attn_weights: bool = True,
        is_causal: bool = False,
    ) -> tuple:
        """(attention output, attention weights averaged over heads, per head, or None)."""
        is_batched = query.dim() == 3
        key_padding_mask = canonical_mask(
            key_padding_mask,
            "key_padding_mask",
            None if attn_mask is None else attn_mask.dtype,
            "attn_mask",
            query.dtype,
        )
        attn_mask = canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, False)
        if self.batch_first and is_batched:
            # one transpose for tensors that are the same object, as PyTorch keeps identity
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query, key = (x.transpose(1, 0) for x in (query, key))
                    value = key
            else:
                query, key, value = (x.transpose(1, 0) for x in (query, key, value))
        out, weights = multi_head_attention_forward(
            query,
            key,
            value,
            self.embed_dim,
            self.num_heads,
            self.in_proj_weight,
            self.in_proj_bias,
            self.bias_k,
            self.bias_v,
            self.add_zero_attn,
            self.dropout,
            self.out_proj.weight,
            self.out_proj.bias,
            training=self.training,
            key_padding_mask=key_padding_mask,
            need_weights=need_weights,
            attn_mask=attn_mask,
            use_separate_proj_weight=not self._qkv_same_embed_dim,
            q_proj_weight=self.q_proj_weight,
            k_proj_weight=self.k_proj_weight,
            v_proj_weight=self.v_proj_weight,
            average_attn_weights=average_attn_weights,
            is_causal=is_causal,
        )
        if self.batch_first and is_batched:
            return out.transpose(1, 0), weights
        return out, weights
