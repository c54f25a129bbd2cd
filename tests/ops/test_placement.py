"""masked_select, masked_scatter, take, index_fill, index_copy, index_put (and their
in-place forms) against PyTorch, and their gradients by finite differences."""

from __future__ import annotations

import numpy as np
import pytest
from support.op_checks import Arg, check, check_error, gradcheck, gradgradcheck

from gradshell import torch as gtorch

torch = pytest.importorskip("torch")

R = np.random.default_rng(11)
M = R.standard_normal((3, 4)).astype(np.float32)
MASK = Arg(R.standard_normal((3, 4)) > 0)
ROWMASK = Arg(np.array([True, False, True, True]))
SRC = R.standard_normal(12).astype(np.float32)
IDX = Arg(np.array([0, 2]))
LONG = Arg(np.array([[0, 11], [5, 5]]))


def test_masked_select():
    check(lambda t, x, m: t.masked_select(x, m), M, MASK)
    check(lambda t, x, m: x.masked_select(m), M, ROWMASK)
    check(lambda t, x, m: t.masked_select(x, m), M[:1], MASK)
    check(lambda t, x, m: t.masked_select(x, m), np.arange(4.0), Arg(np.array([True] * 4)))
    check_error(lambda t, x, m: x.masked_select(m), M, Arg(M))
    check_error(lambda t, x, m: x.masked_select(m), M, Arg(np.ones(3, bool)))


def test_masked_scatter():
    check(lambda t, x, m, s: x.masked_scatter(m, s), M, MASK, SRC)
    check(lambda t, x, m, s: t.masked_scatter(x, m, s.reshape(3, 4)), M, ROWMASK, SRC)
    check(lambda t, x, m, s: (x * 1).masked_scatter_(m, s), M, MASK, SRC)
    check_error(lambda t, x, m, s: x.masked_scatter(m, s[:1]), M, Arg(np.ones((3, 4), bool)), SRC)


def test_take():
    check(lambda t, x, i: t.take(x, i), M, LONG)
    check(lambda t, x, i: x.take(i), M, Arg(np.array([-1, 0, 3])))
    check(lambda t, x, i: x.take(i), np.arange(6), Arg(np.array([5, 1])), backward=False)
    check_error(lambda t, x, i: x.take(i), M, Arg(np.array([12])))
    check_error(lambda t, x, i: x.take(i.float()), M, IDX)


@pytest.mark.parametrize("tensor_value", [False, True])
def test_index_fill(tensor_value):
    def fill(t, x, i, v):
        return x.index_fill(1, i, v if tensor_value else 2.5)

    check(fill, M, IDX, np.array(1.5, np.float32))
    check(lambda t, x, i, v: t.index_fill(x, 0, i, v), M, IDX, np.array(1.5, np.float32))
    check(lambda t, x, i: (x * 1).index_fill_(-1, i, -1.0), M, IDX)
    check_error(lambda t, x: x.index_fill(1, t.tensor([4]), 1.0), M)
    check_error(lambda t, x, v: x.index_fill(1, t.tensor([0]), v), M, SRC[:2])


def test_index_copy():
    check(lambda t, x, i, s: x.index_copy(1, i, s.reshape(3, 4)[:, :2]), M, IDX, SRC)
    check(lambda t, x, i, s: t.index_copy(x, 0, i, s.reshape(3, 4)[:2]), M, IDX, SRC)
    check(lambda t, x, i, s: (x * 1).index_copy_(1, i, s.reshape(3, 4)[:, :2]), M, IDX, SRC)
    check_error(lambda t, x, s: x.index_copy(1, t.tensor([0]), s.reshape(3, 4)[:2, :2]), M, SRC)
    check_error(lambda t, x, s: x.index_copy(1, t.tensor([0, 1]), s.reshape(3, 4)[:, :1]), M, SRC)
    check_error(lambda t, x, s: x.index_copy(1, t.tensor([0, 1]), s[:3]), M, SRC)
    check_error(lambda t, x, s: x.index_copy(1, t.tensor([0, 1]), s[:4].reshape(2, 2)), M, SRC)


@pytest.mark.parametrize("accumulate", [False, True])
def test_index_put(accumulate):
    rows, cols = Arg(np.array([0, 2, 0])), Arg(np.array([1, 3, 1]))
    if not accumulate:
        rows, cols = Arg(np.array([0, 2])), Arg(np.array([1, 3]))
    n = 3 if accumulate else 2
    check(lambda t, x, r, c, v: x.index_put((r, c), v[:n], accumulate), M, rows, cols, SRC)
    check(lambda t, x, r, v: t.index_put(x, (r,), v[:4], accumulate=accumulate), M, rows, SRC)
    check(lambda t, x, r, c, v: (x * 1).index_put_((r, c), v[0], accumulate), M, rows, cols, SRC)
    check_error(lambda t, x, v: x.index_put((t.tensor([5]),), v[0]), M, SRC)


def test_inplace_forms_keep_the_tensor():
    x = gtorch.tensor(M)
    assert x.index_fill_(0, gtorch.tensor([1]), 0.0) is x
    assert x.masked_scatter_(x > 0, gtorch.tensor(SRC)) is x
    assert x._version == 2


def test_gradients_by_finite_differences():
    x = gtorch.tensor(R.standard_normal((3, 4)), requires_grad=True)
    s = gtorch.tensor(R.standard_normal(12), requires_grad=True)
    v = gtorch.tensor(1.5, dtype=gtorch.float64, requires_grad=True)
    mask = gtorch.tensor(R.standard_normal((3, 4)) > 0)
    i = gtorch.tensor([2, 0])
    for fn, args in [
        (lambda x: gtorch.masked_select(x, mask) ** 2, (x,)),
        (lambda x, s: x.masked_scatter(mask, s) ** 2, (x, s)),
        (lambda x: x.take(gtorch.tensor([[0, 11], [5, 5]])) ** 2, (x,)),
        (lambda x, v: x.index_fill(1, i, v) ** 2, (x, v)),
        (lambda x, s: x.index_copy(1, i, s.reshape(3, 4)[:, :2]) ** 2, (x, s)),
        (lambda x, s: x.index_put((i, i), s[:2], True) ** 2, (x, s)),
        (lambda x, s: x.index_put((i, i), s[:2]) ** 2, (x, s)),
    ]:
        assert gradcheck(fn, *args)
        assert gradgradcheck(fn, *args)
