"""TransformerEncoderLayer: self-attention then a feed-forward block, each with dropout,
a residual connection and LayerNorm (after each block, or before with norm_first), built
from PyTorch's submodules in PyTorch's order so that the same seed gives the same weights.
gradshell always runs the step-by-step form (PyTorch's fused inference kernel computes
the same function)."""

from __future__ import annotations

from gradshell.core.tensor import Tensor
from gradshell.ops.nn import gelu, relu
from gradshell.torch.nn._mha import canonical_mask
from gradshell.torch.nn.modules.activation import GELU, ReLU
from gradshell.torch.nn.modules.attention import MultiheadAttention
from gradshell.torch.nn.modules.dropout import Dropout
from gradshell.torch.nn.modules.linear import Linear
from gradshell.torch.nn.modules.module import Module
from gradshell.torch.nn.modules.normalization import LayerNorm

__all__ = ["TransformerEncoderLayer"]


def _activation(name):
    """An activation named 'relu' or 'gelu' as its function; a callable as it is."""
    if name == "relu":
        return relu
    if name == "gelu":
        return gelu
    if isinstance(name, str):
        raise RuntimeError(f"activation should be relu/gelu, not {name}")
    return name


class TransformerEncoderLayer(Module):
    """x ← norm1(x + dropout1(self_attn(x))); x ← norm2(x + dropout2(ff(x))), with
    ff = linear2(dropout(activation(linear1(x)))) (norm_first: the norms go inside)."""

    def __init__(
        self,
        d_model: int,
        nhead: int,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation=relu,
        layer_norm_eps: float = 1e-5,
        batch_first: bool = False,
        norm_first: bool = False,
        bias: bool = True,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        self.self_attn = MultiheadAttention(
            d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first, **kw
        )
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **kw)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **kw)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        activation = _activation(activation)
        if activation is relu or isinstance(activation, ReLU):
            self.activation_relu_or_gelu = 1
        elif activation is gelu or isinstance(activation, GELU):
            self.activation_relu_or_gelu = 2
        else:
            self.activation_relu_or_gelu = 0
        self.activation = activation

    def forward(
        self,
        src: Tensor,
        src_mask=None,
        src_key_padding_mask=None,
        is_causal: bool = False,
    ) -> Tensor:
        """The layer applied to src (seq, batch, d_model), or (batch, seq, d_model) with
        batch_first."""
        src_key_padding_mask = canonical_mask(
            src_key_padding_mask,
            "src_key_padding_mask",
            None if src_mask is None else src_mask.dtype,
            "src_mask",
            src.dtype,
        )
        src_mask = canonical_mask(src_mask, "src_mask", None, "", src.dtype, False)
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
            x = self.norm2(x + self._ff_block(x))
        return x

    def _sa_block(self, x: Tensor, attn_mask, key_padding_mask, is_causal: bool) -> Tensor:
        x = self.self_attn(
            x,
            x,
            x,
            attn_mask=attn_mask,
            key_padding_mask=key_padding_mask,
            need_weights=False,
            is_causal=is_causal,
        )[0]
        return self.dropout1(x)

    def _ff_block(self, x: Tensor) -> Tensor:
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout2(x)
