"""nn.PairwiseDistance: the p-distance between the rows of two inputs."""

from __future__ import annotations

from gradshell.core.tensor import Tensor
from gradshell.ops import loss as L
from gradshell.torch.nn.modules.module import Module


class PairwiseDistance(Module):
    """‖x1 − x2 + eps‖_p over the last dimension."""

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> None:
        super().__init__()
        self.norm = p
        self.eps = eps
        self.keepdim = keepdim

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        """pairwise_distance(x1, x2)."""
        return L.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)
