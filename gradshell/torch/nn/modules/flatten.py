"""Flatten and Unflatten modules."""

from __future__ import annotations

from gradshell.core.tensor import Tensor
from gradshell.torch.nn.modules.module import Module


class Flatten(Module):
    """Merge dimensions start_dim..end_dim (by default all but the batch dimension)."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """input.flatten(start_dim, end_dim)."""
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Split dimension `dim` into `unflattened_size`."""

    def __init__(self, dim: int, unflattened_size) -> None:
        super().__init__()
        self.dim = dim
        self.unflattened_size = tuple(unflattened_size)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """input.unflatten(dim, unflattened_size)."""
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
