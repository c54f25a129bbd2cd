"""torch.linalg: vector norms, the cross product, determinants and the matrix inverse
(more in the op library)."""

from gradshell.ops.decomposition import linalg_det as det
from gradshell.ops.decomposition import linalg_slogdet as slogdet
from gradshell.ops.inverse import LinAlgError, inv, inv_ex
from gradshell.ops.products import linalg_cross as cross
from gradshell.ops.products import linalg_matrix_power as matrix_power
from gradshell.ops.reduction import vector_norm

__all__ = [
    "LinAlgError",
    "cross",
    "det",
    "inv",
    "inv_ex",
    "matrix_power",
    "slogdet",
    "vector_norm",
]
