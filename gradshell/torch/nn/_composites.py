"""The functional ops PyTorch itself writes in Python out of other ops (so their graphs
hold the same nodes: `normalize` gives DivBackward0, as in PyTorch)."""

from __future__ import annotations

from gradshell.core.tensor import Tensor
from gradshell.torch._missing import not_supported


def normalize(
    input: Tensor,  # noqa: A002 - PyTorch's name
    p: float = 2.0,
    dim: int = 1,
    eps: float = 1e-12,
    out: Tensor | None = None,
) -> Tensor:
    """input / max(‖input‖_p along dim, eps): each slice scaled to unit p-norm."""
    if out is not None:
        raise not_supported("torch.nn.functional.normalize with out=")
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    return input / denom


def softsign(input: Tensor) -> Tensor:  # noqa: A002 - PyTorch's name
    """x / (1 + |x|)."""
    return input / (input.abs() + 1)
