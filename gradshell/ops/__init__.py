"""The op library: importing it installs every op as a Tensor method.

One module per family; in each, an op is its forward function, its backward node
class (named as PyTorch names it) and its 0.2-era name, side by side.
"""

import numpy as _np

from gradshell.core import gradients as _gradients
from gradshell.core import tensor as _tensor
from gradshell.ops import (  # noqa: F401 - imported for their side effect of installing methods
    arithmetic,
    clamping,
    comparison,
    conversion,
    creation,
    indexing,
    inplace,
    inverse,
    linalg,
    reduction,
    shape,
    unary,
)

# The one place the op library installs itself into the core: `torch.Tensor(...)` and the
# engine's broadcast-gradient sum (in PyTorch's order of additions).
_tensor.set_constructor(creation.legacy_tensor_constructor)
_gradients.set_exact_sum(lambda t, dims: t.sum(dims, keepdim=True))

# PyTorch never warns on 1/0 or log(0) (it returns inf/nan); neither do we.
_np.seterr(all="ignore")
