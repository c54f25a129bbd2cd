"""mv and addmv check dimensions, then sizes, then dtypes, with PyTorch's messages (mv runs
as addmv: `addmv input tensors must have the same dtype, but got Float, Double, and
Float`); addmv's values and gradients agree with PyTorch."""

from __future__ import annotations

import pytest
from support.differential import compare

F32, F64, I64 = "torch.float32", "torch.float64", "torch.int64"


@pytest.mark.parametrize(
    "expr",
    [
        f"torch.mv(torch.ones(2, 3), torch.ones(3, dtype={F64}))",
        f"torch.mv(torch.ones(2, 3, dtype={F64}), torch.ones(3))",
        f"torch.ones(2, 3).mv(torch.ones(3, dtype={I64}))",
        f"torch.ones(2, 3) @ torch.ones(3, dtype={F64})",
        f"torch.ones(2, 2, 3) @ torch.ones(3, dtype={F64})",
        f"torch.mv(torch.ones(2, 3), torch.ones(4, dtype={F64}))",
        f"torch.mv(torch.ones(3), torch.ones(3, dtype={F64}))",
        "torch.ones(2, 3).mv(torch.ones(3, 1))",
        f"torch.addmv(torch.ones(2), torch.ones(2, 3, dtype={F64}), torch.ones(3))",
        f"torch.addmv(torch.ones(2, dtype={F64}), torch.ones(2, 3), torch.ones(3))",
        f"torch.addmv(torch.ones(3, dtype={F64}), torch.ones(2, 3), torch.ones(3))",
        "torch.addmv(torch.ones(2, 2), torch.ones(2, 3), torch.ones(3))",
        f"torch.ones(2, dtype={I64}).addmv(torch.ones(2, 3, dtype={I64}), torch.ones(3, dtype={I64}))",
    ],
)
def test_errors_and_results_agree(real_torch, expr):
    compare(f"r = {expr}", real_torch)


@pytest.mark.parametrize("bias", ["torch.tensor([0.5, 1.0])", "torch.tensor(3.0)", "torch.ones(1)"])
@pytest.mark.parametrize("scales", ["", ", beta=2, alpha=0.5", ", beta=0"])
def test_addmv_values_and_gradients(real_torch, bias, scales):
    compare(
        f"s = {bias}.requires_grad_()\n"
        "a = torch.arange(6.).reshape(2, 3).requires_grad_()\n"
        "v = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)\n"
        f"r = torch.addmv(s, a, v{scales})\n"
        "r.sum().backward()",
        real_torch,
    )


MIXED_LINEAR = """
nn, F = torch.nn, torch.nn.functional
one, two = torch.ones(2, 2), torch.ones(2, 2, dtype=torch.float64)
for f in [lambda: nn.Linear(2, 2)(two), lambda: nn.Linear(2, 2)(torch.ones(3, 2, 2).double()),
          lambda: nn.Linear(2, 2, bias=False)(two), lambda: F.linear(two, one, torch.ones(2)),
          lambda: F.linear(one, two, torch.ones(2)), lambda: F.linear(one, one, two[0]),
          lambda: torch.addmm(torch.ones(2), two, one), lambda: one @ two]:
    try:
        f()
    except RuntimeError as e:
        print(e)
"""


def test_mixed_dtypes_in_linear_and_addmm_name_what_pytorch_names():
    from support import oracle
    from support.tutorials import printed

    from gradshell import torch as gtorch

    assert printed(MIXED_LINEAR, gtorch) == printed(MIXED_LINEAR, oracle.torch())
