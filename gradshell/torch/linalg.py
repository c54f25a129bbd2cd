"""torch.linalg: vector norms and the matrix inverse (more in the op library)."""

from gradshell.ops.inverse import LinAlgError, inv, inv_ex
from gradshell.ops.reduction import vector_norm

__all__ = ["LinAlgError", "inv", "inv_ex", "vector_norm"]
