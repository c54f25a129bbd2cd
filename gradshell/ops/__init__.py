"""The op library: importing it installs every op as a Tensor method.

One module per family; in each, an op is its forward function, its backward node
class (named as PyTorch names it) and its 0.2-era name, side by side.
"""

import numpy as _np

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

# PyTorch never warns on 1/0 or log(0) (it returns inf/nan); neither do we.
_np.seterr(all="ignore")
