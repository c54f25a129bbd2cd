"""torch.arange, torch.range and torch.linspace float values, bit for bit against PyTorch
(issue 27: `torch.arange(-8.0, 8.0, 0.1)` had values one float32 ulp off, so NumPy printed
the array differently): ATen's vector blocks with fused multiply-adds, its scalar tails,
and the split of long ranges among threads."""

from __future__ import annotations

import pytest

from gradshell import torch as gtorch

CASES = [
    (-8.0, 8.0, 0.1),
    (0, 1, 0.1),
    (-5, 5, 0.03),
    (0.5, 100.3, 0.37),
    (1, 2, 1 / 3),
    (3, 0, -0.07),
    (0, 5000, 0.01),
    (0, 70000, 0.7),  # more than one thread's share
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("start,end,step", CASES)
def test_arange_values_are_pytorchs(real_torch, dtype, start, end, step):
    want = real_torch.arange(start, end, step, dtype=getattr(real_torch, dtype)).tolist()
    got = gtorch.arange(start, end, step, dtype=getattr(gtorch, dtype)).tolist()
    assert got == want


@pytest.mark.parametrize("start,end,steps", [(-3, 3, 7), (0, 1, 11), (-5, 5, 100), (0.1, 7.3, 33)])
def test_linspace_and_range_values_are_pytorchs(real_torch, start, end, steps):
    for dtype in ("float32", "float64"):
        want = real_torch.linspace(start, end, steps, dtype=getattr(real_torch, dtype))
        got = gtorch.linspace(start, end, steps, dtype=getattr(gtorch, dtype))
        assert got.tolist() == want.tolist()
    with pytest.warns(UserWarning):
        got = gtorch.range(start, end, (end - start) / (steps - 1)).tolist()
    with pytest.warns(UserWarning):
        want = real_torch.range(start, end, (end - start) / (steps - 1)).tolist()
    assert got == want


def test_arange_prints_as_pytorchs_array(real_torch):
    # NumPy prints this array in scientific notation: one element is 4.44e-16, not 0
    want = str(real_torch.arange(-8.0, 8.0, 0.1).tolist())
    assert str(gtorch.arange(-8.0, 8.0, 0.1).tolist()) == want
    assert gtorch.arange(-8.0, 8.0, 0.1)[80].item() == 4.440892098500626e-16
