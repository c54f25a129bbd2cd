"""Connect the core to the printers: tensor and node reprs follow the print style, and
the style's era decides era-dependent autograd behaviour (0.2's backward-twice rules)."""

from __future__ import annotations

from gradshell.core.autograd import Node, settings
from gradshell.core.tensor import Tensor
from gradshell.printing import node_repr, tensor_format, tensor_repr
from gradshell.printing.options import add_style_listener

Tensor.__repr__ = tensor_repr
Tensor.__str__ = tensor_repr
Tensor.__format__ = tensor_format
Node.__repr__ = node_repr


def _follow_style(style: str) -> None:
    settings.legacy = style == "legacy"


add_style_listener(_follow_style)
