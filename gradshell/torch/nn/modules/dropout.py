"""Dropout: zero elements with probability p in training mode, identity in eval mode."""

from __future__ import annotations

from gradshell.core.tensor import Tensor
from gradshell.ops import nn as F
from gradshell.torch.nn.modules.module import Module


class Dropout(Module):
    """Randomly zero elements with probability p (scaling the rest by 1/(1-p)) while
    training; pass the input through unchanged after eval()."""

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """dropout(x, p, self.training)."""
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"
