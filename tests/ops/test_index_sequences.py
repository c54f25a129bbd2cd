"""Indexing with Python `range`s, tuples inside a tuple, and lists mixed with tensors reads
as PyTorch 2.13 reads it (a short list holding a tensor, list, slice, None or Ellipsis is a
tuple, with PyTorch's deprecation warning); values, gradients and errors agree."""

from __future__ import annotations

import warnings

import pytest
from support.differential import compare

from gradshell import torch as gtorch

KEYS = [
    "range(2, 5)",
    "range(0, 3, 2)",
    "range(2, 0, -1)",
    "range(0)",
    "(range(2), range(2))",
    "(slice(1, None), range(2))",
    "((0, 2), slice(None))",
    "[0, torch.tensor(2)]",
    "[torch.tensor(0), torch.tensor(2)]",
    "[[torch.tensor(0), torch.tensor(2)], 1]",
    "(torch.tensor([0, 2]), [1, 3])",
    "([0, 1], torch.tensor([1, 3]))",
    "([[0], [2]], [1, 3])",
    "[True, False, True]",
    "[torch.tensor(1)]",
    "[0, 2.0]",
    "[1, -1]",
    "[slice(None), 1]",
    "[None, 0]",
    "[Ellipsis, 1]",
    "(torch.tensor(1), torch.tensor(2))",
]


@pytest.mark.parametrize("key", KEYS)
@pytest.mark.parametrize("dtype", ["torch.float32", "torch.float64", "torch.int64"])
def test_getitem_agrees(real_torch, key, dtype):
    grad = dtype != "torch.int64"
    src = f"x = torch.arange(12.).reshape(3, 4).to({dtype})"
    if grad:
        src += ".requires_grad_()"
    src += f"\ny = x[{key}]"
    if grad:
        src += "\n(y * y).sum().backward()"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compare(src, real_torch)


@pytest.mark.parametrize("key", KEYS)
@pytest.mark.parametrize("update", ["= 5", "+= 1", "*= 2"])
def test_setitem_agrees(real_torch, key, update):
    for dtype in ("torch.float32", "torch.int64"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compare(
                f"x = torch.arange(12).reshape(3, 4).to({dtype})\nx[{key}] {update}",
                real_torch,
            )


def test_sequence_as_tuple_warns_like_pytorch(real_torch):
    caught = []
    for torch in (gtorch, real_torch):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            torch.arange(12.0).reshape(3, 4)[[0, torch.tensor(2)]]
        caught.append([(x.category, str(x.message), x.filename) for x in w])
    assert caught[0] == caught[1]


@pytest.mark.parametrize(
    "key", ["[torch.tensor(1), 3]", "(0, 1)", "[0, None, 1]", "(Ellipsis, 0, 1)"]
)
def test_setitem_errors_agree(real_torch, key):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compare(f"x = torch.zeros(4)\nx[{key}] = 5.", real_torch)
