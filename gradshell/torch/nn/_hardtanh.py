"""torch.nn.functional.hardtanh and relu6: x clamped to [min_val, max_val], with PyTorch's
node HardtanhBackward0 (the gradient passes only strictly inside the interval: at the
bounds it is 0, as PyTorch's hardtanh_backward has it)."""

from __future__ import annotations

from gradshell.core.autograd import Node, needs_grad, record
from gradshell.core.tensor import Tensor, wrap
from gradshell.ops.base import as_array
from gradshell.torch._missing import not_supported


class HardtanhBackward0(Node):
    """g where min_val < x < max_val, else 0."""

    no_explanation = "a clamp whose gradient is cut at both bounds"

    def backward(self, g):
        if needs_grad(g):  # create_graph=True
            raise not_supported("double backward through torch.nn.functional.hardtanh")
        x = self.saved("self")._data
        inside = (x > self.min_val) & (x < self.max_val)
        return (wrap(as_array((g._data * inside).astype(g._data.dtype)), g._dtype),)


def hardtanh(
    input: Tensor,  # noqa: A002 - PyTorch's name
    min_val: float = -1.0,
    max_val: float = 1.0,
    inplace: bool = False,
) -> Tensor:
    """min(max(x, min_val), max_val)."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if inplace:
        raise not_supported("torch.nn.functional.hardtanh with inplace=True")
    res = input.clamp(min_val, max_val).detach()
    if needs_grad(input):
        node = HardtanhBackward0()
        node.min_val = min_val
        node.max_val = max_val
        node.save("self", input)
        record(node, (input,), res)
    return res


def relu6(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    """min(max(x, 0), 6)."""
    if inplace:
        raise not_supported("torch.nn.functional.relu6 with inplace=True")
    return hardtanh(input, 0.0, 6.0)
