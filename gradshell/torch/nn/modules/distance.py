"""CosineSimilarity and PairwiseDistance modules."""

from __future__ import annotations

from gradshell.core.tensor import Tensor
from gradshell.ops.distance import cosine_similarity, pairwise_distance
from gradshell.torch.nn.modules.module import Module


class PairwiseDistance(Module):
    """The p-norm distance between the rows of two inputs (F.pairwise_distance)."""

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> None:
        super().__init__()
        self.norm = p
        self.eps = eps
        self.keepdim = keepdim

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        """pairwise_distance(x1, x2, p, eps, keepdim)."""
        return pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class CosineSimilarity(Module):
    """The cosine of the angle between two inputs along `dim` (F.cosine_similarity)."""

    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.dim = dim
        self.eps = eps

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        """cosine_similarity(x1, x2, dim, eps)."""
        return cosine_similarity(x1, x2, self.dim, self.eps)
