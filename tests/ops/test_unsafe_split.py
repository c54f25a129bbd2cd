"""unsafe_chunk / unsafe_split / unsafe_split_with_sizes (UnsafeSplitBackward0,
UnsafeSplitWithSizesBackward0: pieces that share the input's memory but are not views)
and transpose_ / swapaxes_ / swapdims_ (TransposeBackward1), which PyTorch's recurrent
layers use, against PyTorch; float64 finite differences."""

from __future__ import annotations

import numpy as np
import pytest
from support.op_checks import check, gradcheck, gradgradcheck
from support.tutorials import printed

from gradshell import torch as gtorch


def _leaf(rng, *shape):
    return gtorch.tensor(rng.standard_normal(shape), requires_grad=True)


UNSAFE = {
    "unsafe_chunk": lambda t, x: (x * 1).unsafe_chunk(3, 1),
    "torch.unsafe_chunk": lambda t, x: t.unsafe_chunk(x * 1, 2, 0),
    "unsafe_split": lambda t, x: (x * 1).unsafe_split(4, 1),
    "unsafe_split_with_sizes": lambda t, x: t.unsafe_split_with_sizes(x * 1, [1, 5], 1),
    "in_place_on_a_piece": lambda t, x: [p.sigmoid_() for p in (x * 1).unsafe_chunk(2, 1)],
    "transpose_": lambda t, x: (x * 2).transpose_(0, 1),
    "swapaxes_": lambda t, x: (x * 2).swapaxes_(1, 0) * 3,
    "swapdims_": lambda t, x: (x + 1).swapdims_(-1, 0),
}


@pytest.mark.parametrize("name", sorted(UNSAFE))
def test_unsafe_split_and_transpose_in_place(name):
    x = np.random.default_rng(4).standard_normal((4, 6)).astype(np.float32)
    check(UNSAFE[name], x)
    check(UNSAFE[name], x.astype(np.float64))


def test_unsafe_pieces_share_memory_but_not_versions(real_torch):
    src = """
y = torch.arange(12.).view(2, 6) * 1
a, b = y.unsafe_chunk(2, 1)
a.add_(100)
print(y, a._version, b._version, y._version, a._base is None)
x = torch.ones(2, 3, requires_grad=True)
try:
    x.transpose_(0, 1)
except RuntimeError as e:
    print(e)
z = x * 1
z.transpose_(0, 1)
print(z.shape, z.is_contiguous(), z._version, z.grad_fn)
for bad in (lambda: y.unsafe_chunk(0), lambda: y.unsafe_split_with_sizes([2, 3], 1),
            lambda: y.unsafe_split(-1), lambda: z.transpose_(0, 2)):
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
"""
    assert printed(src, gtorch) == printed(src, real_torch)


def test_unsafe_split_gradients_float64():
    rng = np.random.default_rng(5)
    x = _leaf(rng, 3, 4)
    assert gradcheck(lambda x: (x * 1).unsafe_chunk(2, 1), x)
    assert gradgradcheck(lambda x: [p * p for p in (x * 1).unsafe_split(3, 1)], x)
    assert gradcheck(lambda x: (x * 1).transpose_(0, 1) * x.t(), x)
