"""torch.linalg: vector norms, the cross product and the matrix inverse (more in the op
library)."""

from gradshell.ops.inverse import LinAlgError, inv, inv_ex
from gradshell.ops.products import linalg_cross as cross
from gradshell.ops.reduction import vector_norm

__all__ = ["LinAlgError", "cross", "inv", "inv_ex", "vector_norm"]
