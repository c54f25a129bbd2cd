"""reshape/flatten/view name their node as PyTorch does: a reshape that can be a view of
the input (contiguous, or a view of a view) is ViewBackward0, a reshape that must copy is
UnsafeViewBackward0/CloneBackward0 as PyTorch chooses."""

from __future__ import annotations

import pytest
from support.differential import compare

EXPRS = [
    "x.view(6).reshape(2, 3)",
    "x.reshape(3, 2)",
    "x.t().reshape(6)",
    "x[0].reshape(3, 1)",
    "x[:, 0].reshape(2, 1)",
    "x.transpose(0, 1).reshape(3, 2)",
    "x.reshape(2, 3)",
    "x.flatten()",
    "x.t().flatten()",
    "x.expand(2, 2, 3).reshape(4, 3)",
    "x.view(3, 2).t().reshape(6)",
    "x.unsqueeze(0).reshape(6)",
    "x[:, ::2].reshape(-1)",
    "x.view(-1)[1:5].reshape(2, 2)",
]


@pytest.mark.parametrize("expr", EXPRS)
def test_reshape_node_names(real_torch, expr):
    compare(
        "x = torch.arange(6.).reshape(2, 3).requires_grad_()\n"
        f"y = {expr}\n"
        "name = y.grad_fn.name()\n"
        "y.sum().backward()",
        real_torch,
    )
