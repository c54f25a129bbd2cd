"""Indexing edge cases against PyTorch: several ellipses, None and bool scalars among
other indices, slice steps, out-of-range and overflowing indices, masks of the wrong
shape, and what `x[key] = v` records and raises."""

import numpy as np
import pytest
from support.differential import compare
from support.op_checks import check

T = "t = torch.arange(24.).reshape(2, 3, 4)\n"

GETS = [
    # several ellipses: each skips the dims no other index uses
    "r = t[..., 0, ...]",
    "r = t[..., ...]",
    "r = t[0, ..., ...]",
    "r = t[..., 1:, ...]",
    "r = t[..., [0, 1], ...]",
    "r = t[..., ..., ..., ...]",
    "r = t[0, ..., 0, ..., 0]",
    "r = t[0, ..., 1:, ...]",
    "r = t[..., None, ...]",
    "r = torch.arange(6.).reshape(2, 3)[..., 1, ...]",
    "r = torch.arange(5.)[..., ..., 1]",
    "r = t[..., 0, ..., 1]",
    "r = t[..., ..., 0]",
    "r = t[..., 0, ..., 0, ...]",
    "r = t[..., 1:, ..., 0]",
    "r = t[..., 1:, ..., 1:]",
    "r = t[..., ..., 1:]",
    "r = t[..., [0], ..., 0]",
    "r = t[..., ..., [0]]",
    "r = t[None, ..., None, ..., 0]",
    "r = t[0, ..., 0, ..., 0, 0]",
    # None and Ellipsis together
    "r = t[None, ..., 0]",
    "r = t[..., None]",
    "r = t[0, ..., None, 1]",
    "r = t[None, None, ...]",
    "r = t[..., 1, None]",
    # bool scalars
    "r = t[True]",
    "r = t[False]",
    "r = t[True, 0]",
    "r = t[0, False]",
    "r = t[..., True]",
    "r = t[None, True, ..., False]",
    "r = t[torch.tensor(True)]",
    "r = t[torch.tensor(False)]",
    "r = torch.tensor(3.)[True]",
    "r = torch.tensor(3.)[False]",
    # steps
    "r = t[::-1]",
    "r = t[:, ::-1]",
    "r = t[::0]",
    "r = t[::torch.tensor(2)]",
    "r = t[::torch.tensor(-1)]",
    # out of range, by position in the key
    "r = t[5]",
    "r = t[-3]",
    "r = t[0, 3]",
    "r = t[:, :, 4]",
    "r = t[0, -4]",
    "r = t[..., 5]",
    "r = t[0, ..., 7]",
    "r = t[None, 5]",
    "r = t[None, 0, 5]",
    "r = t[True, 0, 5]",
    "r = t[[0], 5]",
    "r = t[torch.tensor(5)]",
    "r = t[0, 0, 0, 0]",
    "r = t[0, ..., 0, 0, 0]",
    "r = t[5:10]",
    "r = t[:2**70]",
    # advanced indices out of range: counted among the indexed dims
    "r = t[[0, 5]]",
    "r = t[torch.tensor([0, 5])]",
    "r = t[torch.tensor([-3])]",
    "r = t[:, torch.tensor([3])]",
    "r = t[:, :, torch.tensor([9])]",
    "r = t[torch.tensor([0]), torch.tensor([5])]",
    "r = t[[0], :, [9]]",
    "r = t[:, [-4]]",
    # masks of the wrong shape
    "r = t[torch.tensor([True, False, True])]",
    "r = t[torch.ones(2, 2, dtype=torch.bool)]",
    "r = t[:, torch.ones(2, dtype=torch.bool)]",
    "r = t[:, torch.tensor([True, False, True])]",
    "r = t[torch.ones(3, dtype=torch.uint8)]",
    "r = t[torch.tensor([1, 0], dtype=torch.uint8)]",
    # overflow and wrong types
    "r = t[2**63]",
    "r = t[-(2**63) - 1]",
    "r = t[0, 2**64]",
    "r = t[1.5]",
    "r = t[0, 1.5]",
    "r = t['a']",
    "r = t[torch.tensor([0.])]",
    "r = torch.tensor(3.)[0]",
    "r = torch.tensor(3.)[0:1]",
    "r = torch.tensor(3.)[...]",
    "r = torch.tensor(3.)[None]",
]

SETS = [
    "t[..., 0, ...] = 1.",
    "t[..., ..., 1:] = 1.",
    "t[::-1] = 1.",
    "t[::0] = 1.",
    "t[5] = 1.",
    "t[0, 3] = 1.",
    "t[0, 0, 0, 0] = 1.",
    "t[True] = 1.",
    "t[False] = 1.",
    "t[0, False] = 1.",
    "t[[0, 5]] = 1.",
    "t[2**63] = 1.",
    "t['a'] = 1.",
    "t[torch.tensor([True, False, True])] = 1.",
    "t[torch.tensor([True, False])] = torch.ones(3, 4)",
    "t[0] = torch.ones(4, 3)",
    "t[0, 0] = torch.ones(3)",
    "t[0] = torch.ones(2, 3, 4)",
    "t[0] = torch.ones(1, 3, 4)",
    "t[0] = torch.ones(1, 1, 4)",
    "t[0] = torch.ones(5)",
    "t[0] = torch.ones(2, 1, 4)",
    "t[[0, 1]] = torch.ones(3, 3)",
    "t[0] = torch.tensor(7.)",
    "t[0] = torch.tensor([1, 2, 3, 4])",
    "t[0] = 'a'",
    "t[0] = [1., 2., 3., 4.]",
    "t[None, 0] = torch.ones(4)",
    "t[:, [1, 2]] = 0.",
    "t[0][1] = 3.",
    "s = torch.tensor(3.)\ns[0] = 1.",
    "s = torch.tensor(3.)\ns[0:1] = 1.",
    "s = torch.tensor(3.)\ns[...] = 2.\ns[()] = 4.\ns[None] = 5.\ns[True] = 6.",
    "u = torch.zeros(3)\nu[torch.tensor(1)] = 2.\nu[torch.tensor(True)] = 3.\nu[-1] = 4.\n"
    "u[0:2] = torch.tensor([7., 8.])\nu[u > 7] = torch.tensor([9.])",
]


@pytest.mark.parametrize("program", GETS)
def test_getitem_matches_pytorch(real_torch, program):
    compare(T + program, real_torch)


@pytest.mark.parametrize("program", SETS)
def test_setitem_matches_pytorch(real_torch, program):
    compare(T + program, real_torch)


A = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
V = np.array([0.5, -1.5, 2.0, 0.25], dtype=np.float32)

WRITES = {
    "full slice": lambda b, v: b.__setitem__(slice(None), v),
    "ellipsis": lambda b, v: b.__setitem__(Ellipsis, v),
    "row": lambda b, v: b.__setitem__(0, v),
    "row with a leading 1": lambda b, v: b.__setitem__(0, v.reshape(1, 4)),
    "select then list": lambda b, v: b.__setitem__((0, [1, 2]), v[:2]),
    "list": lambda b, v: b.__setitem__([0, 1], v),
    "mask": lambda b, v: b.__setitem__(b > 0, 0.0),
    "column list": lambda b, v: b.__setitem__((slice(None), [1, 2]), 0.0),
    "None then row": lambda b, v: b.__setitem__((None, 0), v),
    "number": lambda b, v: b.__setitem__(0, 3.0),
    "True": lambda b, v: b.__setitem__(True, 3.0),
    "element": lambda b, v: b.__setitem__((0, 1), v[0]),
    "two ellipses": lambda b, v: b.__setitem__((..., 0, ...), v[:3]),
    "float64 value": lambda b, v: b.__setitem__(0, v.double()),
}


@pytest.mark.parametrize("name", sorted(WRITES))
def test_setitem_graph_and_gradients(name):
    write = WRITES[name]

    def fn(torch, x, v):
        b = x * 1
        write(b, v)
        return b, b * b

    check(fn, A, V)


def test_getitem_with_two_ellipses_differentiates():
    check(lambda torch, x: x[..., 1, ...] * 2, A)
