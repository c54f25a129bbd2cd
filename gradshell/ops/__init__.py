"""The op library: importing it installs every op as a Tensor method.

One module per family (arithmetic, unary, comparison, selection, reduction, shape and
views, indexing, linear algebra, nn, convolution, pooling, creation...), imported in an
order with no cycles; in each, an op is its forward function declared in the registry
(`gradshell.ops.registry`: its Tensor methods and torch names), and its backward node class
(named as PyTorch names it, with its 0.2-era name and its `explain` formula), side by side.
"""

import numpy as _np

from gradshell.core import gradients as _gradients
from gradshell.core import tensor as _tensor
from gradshell.ops import (  # noqa: F401 - imported for the ops they declare
    activation,
    adaptive_max_pool,
    arithmetic,
    arrangement,
    attention,
    baddbmm,
    batchnorm,
    clamping,
    comparison,
    conv,
    conv_transpose,
    conversion,
    counting,
    creation,
    decomposition,
    diagonals,
    distance,
    embedding,
    indexing,
    inplace,
    inplace_shape,
    inverse,
    layer_norm,
    linalg,
    loss,
    nn,
    numeric,
    order_statistics,
    padding,
    pixel_shuffle,
    placement,
    pooling,
    pooling1d,
    products,
    reduction,
    registry,
    repeat_interleave,
    resize,
    scalar,
    selection,
    shape,
    sorting,
    unary,
    unpool,
    viewgrad,
)

# The one place the op library installs itself into the core: every declared Tensor
# method, `torch.Tensor(...)`, the engine's broadcast-gradient sum (in PyTorch's order
# of additions) and the new history of views after a write into their storage.
registry.install(_tensor.Tensor)
_tensor.set_constructor(creation.legacy_tensor_constructor)
_tensor.set_view_hook(viewgrad.regenerate_views)
_gradients.set_exact_sum(lambda t, dims: t.sum(dims, keepdim=True))

# PyTorch never warns on 1/0 or log(0) (it returns inf/nan); neither do we.
_np.seterr(all="ignore")
