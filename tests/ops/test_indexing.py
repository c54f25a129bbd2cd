"""Indexing: masked_fill, gather, scatter, scatter_add, index_select, index_add, advanced
indexing with tensors, lists and boolean masks (repeated indices accumulate), and index
assignment with version counting — against PyTorch and finite differences."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from support.op_checks import Arg, check, check_error, gradcheck, gradgradcheck

from gradshell import torch as gtorch

torch = pytest.importorskip("torch")

VALUES = st.floats(-3, 3, allow_nan=False, width=32)
SHAPES = hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4)


def long(a):
    return Arg(np.asarray(a, dtype=np.int64), False)


def mask(a):
    return Arg(np.asarray(a, dtype=bool), False)


@settings(max_examples=30, deadline=None)
@given(a=hnp.arrays(np.float32, SHAPES, elements=VALUES), data=st.data())
def test_masked_fill(a, data):
    m = data.draw(hnp.arrays(np.bool_, hnp.broadcastable_shapes(a.shape, max_dims=a.ndim)))
    check(lambda t, x, k: x.masked_fill(k, -1.5), a, mask(m))
    check(lambda t, x, k, v: t.masked_fill(x, k, v * 2), a, mask(m), np.array(0.25, np.float32))
    check(lambda t, x, k: x.masked_fill(k, 2), Arg(a.astype(np.int64), False), mask(m))


@st.composite
def gather_case(draw):
    shape = draw(SHAPES)
    a = draw(hnp.arrays(np.float32, shape, elements=VALUES))
    d = draw(st.integers(0, len(shape) - 1))
    ishape = tuple(
        draw(st.integers(1, s)) if k != d else draw(st.integers(1, 5)) for k, s in enumerate(shape)
    )
    idx = draw(hnp.arrays(np.int64, ishape, elements=st.integers(0, shape[d] - 1)))
    return a, d, idx


@settings(max_examples=30, deadline=None)
@given(case=gather_case())
def test_gather(case):
    a, d, idx = case
    check(lambda t, x, i: x.gather(d, i), a, long(idx))
    check(lambda t, x, i: t.gather(x, d - a.ndim, i), a, long(idx))


@settings(max_examples=30, deadline=None)
@given(case=gather_case(), data=st.data())
def test_scatter_and_scatter_add(case, data):
    a, d, idx = case
    if idx.shape[d] > a.shape[d]:
        idx = idx[(slice(None),) * d + (slice(0, a.shape[d]),)]
    # scatter with duplicate indices is nondeterministic in PyTorch: make them unique
    uniq = np.argsort(
        data.draw(hnp.arrays(np.float64, a.shape, elements=st.floats(0, 1), unique=True)), axis=d
    )
    uniq = uniq[tuple(slice(0, s) for s in idx.shape)]
    src = data.draw(hnp.arrays(np.float32, idx.shape, elements=VALUES))
    check(lambda t, x, i, s: x.scatter(d, i, s), a, long(uniq), src)
    check(lambda t, x, i: x.scatter(d, i, 7.0), a, long(uniq))
    check(lambda t, x, i, s: t.scatter_add(x, d, i, s), a, long(idx), src)


@settings(max_examples=30, deadline=None)
@given(a=hnp.arrays(np.float32, SHAPES, elements=VALUES), data=st.data())
def test_index_select_and_index_add(a, data):
    d = data.draw(st.integers(0, a.ndim - 1))
    idx = data.draw(st.lists(st.integers(0, a.shape[d] - 1), min_size=0, max_size=5))
    check(lambda t, x, i: x.index_select(d, i), a, long(idx))
    src_shape = list(a.shape)
    src_shape[d] = len(idx)
    src = data.draw(hnp.arrays(np.float32, tuple(src_shape), elements=VALUES))
    check(lambda t, x, i, s: x.index_add(d, i, s), a, long(idx), src)
    check(lambda t, x, i, s: t.index_add(x, d, i, s, alpha=2), a, long(idx), src)


@settings(max_examples=30, deadline=None)
@given(
    a=hnp.arrays(
        np.float32,
        hnp.array_shapes(min_dims=2, max_dims=3, min_side=1, max_side=4),
        elements=VALUES,
    ),
    data=st.data(),
)
def test_advanced_indexing_accumulates_repeats(a, data):
    n = a.shape[0]
    rows = data.draw(st.lists(st.integers(-n, n - 1), min_size=0, max_size=6))
    check(lambda t, x, i: x[i], a, long(rows))
    check(lambda t, x: x[rows], a)
    check(lambda t, x, i: x[i, 0], a, long(rows))
    check(lambda t, x, i: x[:, [0, 0]].sum() + (x[i] ** 2).sum(), a, long(rows))
    m = data.draw(hnp.arrays(np.bool_, a.shape))
    check(lambda t, x, k: x[k], a, mask(m))
    check(lambda t, x, k: x[k[..., 0]], a, mask(m))


@settings(max_examples=25, deadline=None)
@given(
    a=hnp.arrays(
        np.float32,
        hnp.array_shapes(min_dims=2, max_dims=3, min_side=1, max_side=4),
        elements=VALUES,
    ),
    data=st.data(),
)
def test_index_assignment(a, data):
    m = data.draw(hnp.arrays(np.bool_, a.shape))

    def mask_zero(t, x, k):
        y = x * 1
        y[k] = 0
        return y

    def row_from_tensor(t, x, v):
        y = x * 2
        y[0, :] = v
        return y

    def rows_by_list(t, x, v):
        y = x + 0
        y[[0, -1]] = v.sum()
        return y

    check(mask_zero, a, mask(m))
    check(row_from_tensor, a, a[0] * 3)
    check(rows_by_list, a, a[0])


def test_index_assignment_counts_versions_and_breaks_saved_tensors():
    for lib in (gtorch, torch):
        x = lib.ones(3, requires_grad=True)
        y = x * 2
        z = y * y  # saves y
        v0 = y._version
        y[0] = 5.0
        assert y._version == v0 + 1
        with pytest.raises(RuntimeError) as info:
            z.sum().backward()
        if lib is torch:
            expected = str(info.value)
        else:
            ours = str(info.value)
    assert ours == expected


def test_leaf_assignment_is_refused():
    check_error(lambda t, x: x.__setitem__(0, 1.0), np.ones(3, np.float32))


@pytest.mark.parametrize(
    "bad",
    [
        lambda t, x: x.masked_fill(t.ones(2, 4, dtype=t.bool), 0),
        lambda t, x: x.masked_fill(x.long(), 0.0),
        lambda t, x: x.masked_fill(x > 0, t.ones(2)),
        lambda t, x: x.gather(1, t.tensor([1, 2])),
        lambda t, x: x.gather(1, t.zeros(3, 1)),
        lambda t, x: x.gather(1, t.tensor([[5]])),
        lambda t, x: x.gather(1, t.zeros(4, 1, dtype=t.long)),
        lambda t, x: x.gather(1, t.tensor([[-1]])),
        lambda t, x: x.scatter(1, t.tensor([1, 2]), 1.0),
        lambda t, x: x.scatter(1, t.zeros(3, 1), 1.0),
        lambda t, x: x.scatter(1, t.zeros(3, 1, dtype=t.long), x.long()),
        lambda t, x: x.scatter(1, t.tensor([[7]]), 1.0),
        lambda t, x: x.scatter_add(1, t.tensor([[7]]), x),
        lambda t, x: x.index_select(0, t.tensor([0.0])),
        lambda t, x: x.index_select(0, t.zeros(1, 1, dtype=t.long)),
        lambda t, x: x.index_select(0, t.tensor([5])),
        lambda t, x: x[t.tensor([0.0])],
        lambda t, x: x[0, 0, 0],
    ],
)
def test_errors(bad):
    check_error(bad, np.ones((3, 4), np.float32))


@pytest.mark.parametrize(
    "fn",
    [
        lambda x, y: x.masked_fill(x > 0, 0.5) * y,
        lambda x, y: x.masked_fill(y > 0, y.sum()),
        lambda x, y: x.gather(1, gtorch.tensor([[0, 0, 2], [1, 2, 2]])) * y,
        lambda x, y: x.scatter(1, gtorch.tensor([[2], [0]]), y[:, :1]) ** 2,
        lambda x, y: x.scatter_add(1, gtorch.tensor([[0, 0], [1, 1]]), y[:, :2]) ** 2,
        lambda x, y: x.index_select(1, gtorch.tensor([2, 2, 0])) * y,
        lambda x, y: x.index_add(1, gtorch.tensor([1, 1]), y[:, :2]) ** 2,
        lambda x, y: x[[0, 0, 1]] * y[[1, 1, 0]],
        lambda x, y: x[x > 0] ** 2,
    ],
)
def test_gradcheck(fn):
    rng = np.random.default_rng(13)
    x = gtorch.tensor(rng.standard_normal((2, 3)), requires_grad=True)
    y = gtorch.tensor(rng.standard_normal((2, 3)), requires_grad=True)
    assert gradcheck(fn, x, y)
    assert gradgradcheck(fn, x, y)


ZERO_D_INDEX = """
x = torch.arange(3., requires_grad=True)
y = x.gather(0, torch.tensor(2))
y.backward()
print(y, x.grad)
print(torch.zeros(3).scatter_(0, torch.tensor(1), value=1))
print(torch.zeros(3).scatter(0, torch.tensor(2), torch.tensor([5., 6.])))
print(torch.zeros(3).scatter_add(0, torch.tensor(1), torch.tensor([5., 7.])))
s = torch.tensor(3., requires_grad=True)
z = torch.zeros(3).scatter(0, torch.tensor(1), s)
z.sum().backward()
print(z, s.grad)
w = torch.ones(3, requires_grad=True)
v = w.scatter(0, torch.tensor(0), 5.)
(v * torch.arange(3.)).sum().backward()
print(v, w.grad)
print(torch.zeros(2, 3).scatter(0, torch.tensor(1), 7.))
"""


def test_a_0d_index_into_a_1d_tensor_addresses_one_element():
    # the official Datasets tutorial's one-hot: zeros(10).scatter_(0, torch.tensor(y), value=1)
    from support.tutorials import printed

    assert printed(ZERO_D_INDEX, gtorch) == printed(ZERO_D_INDEX, torch)
