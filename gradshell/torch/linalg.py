"""torch.linalg: vector norms (more in the op library)."""

from gradshell.ops.reduction import vector_norm

__all__ = ["vector_norm"]
