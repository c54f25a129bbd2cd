"""Connect the core to the printers: tensor and node reprs follow the print style."""

from __future__ import annotations

from gradshell.core.autograd import Node
from gradshell.core.tensor import Tensor
from gradshell.printing import node_repr, tensor_format, tensor_repr

Tensor.__repr__ = tensor_repr
Tensor.__str__ = tensor_repr
Tensor.__format__ = tensor_format
Node.__repr__ = node_repr
