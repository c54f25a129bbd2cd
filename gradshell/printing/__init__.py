"""gradshell.printing: print tensors and autograd objects exactly as PyTorch does.

Two styles, switchable at any time with `set_print_style`: 'modern' (PyTorch 2.13,
`tensor([[3., 3.]], grad_fn=<AddBackward0>)`) and 'legacy' (PyTorch 0.2/0.3,
`Variable containing:` … `[torch.FloatTensor of size 2x2]`). The core wires
`Tensor.__repr__`/`__str__` to `tensor_repr`, `Tensor.__format__` to `tensor_format` and
node `__repr__` to `node_repr`. This package imports nothing from the shell or the UI.
"""

from gradshell.printing.legacy import legacy_repr, legacy_tensor_str
from gradshell.printing.modern import modern_repr
from gradshell.printing.options import (
    add_style_listener,
    get_print_style,
    get_printoptions,
    print_style,
    printoptions,
    reset_printoptions,
    set_print_style,
    set_printoptions,
)
from gradshell.printing.reprs import (
    node_repr,
    object_repr,
    return_types_repr,
    size_repr,
    tensor_format,
    tensor_repr,
)

__all__ = [
    "add_style_listener",
    "get_print_style",
    "get_printoptions",
    "legacy_repr",
    "legacy_tensor_str",
    "modern_repr",
    "node_repr",
    "object_repr",
    "print_style",
    "printoptions",
    "reset_printoptions",
    "return_types_repr",
    "set_print_style",
    "set_printoptions",
    "size_repr",
    "tensor_format",
    "tensor_repr",
]
