"""Shape ops: cat, stack, split, chunk, unbind, flip, roll, tril/triu, repeat, diagonal (and
the older views: squeeze/unsqueeze, flatten/unflatten, permute, expand, narrow) — values,
gradients, multi-output nodes, node names, errors."""

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


@st.composite
def same_but_dim(draw, n=3):
    """n arrays with equal shapes except along one dimension, and that dimension."""
    shape = list(draw(SHAPES))
    d = draw(st.integers(0, len(shape) - 1))
    arrays = []
    for _ in range(n):
        s = list(shape)
        s[d] = draw(st.integers(0, 3))
        arrays.append(draw(hnp.arrays(np.float32, tuple(s), elements=VALUES)))
    return arrays, d


@settings(max_examples=25, deadline=None)
@given(ad=same_but_dim())
def test_cat(ad):
    arrays, d = ad
    check(lambda t, *xs: t.cat(list(xs), d), *arrays)
    check(lambda t, *xs: t.cat(xs, dim=d - len(arrays[0].shape)), *arrays)


@settings(max_examples=25, deadline=None)
@given(a=hnp.arrays(np.float32, SHAPES, elements=VALUES), data=st.data())
def test_stack_split_chunk_unbind(a, data):
    nd = a.ndim
    d = data.draw(st.integers(-nd, nd - 1))
    check(lambda t, x, y: t.stack([x, y], d), a, a * 2)
    check(lambda t, x: t.stack([x, x * 2], dim=nd), a)
    size = a.shape[d]
    s = data.draw(st.integers(1, size + 1))
    check(lambda t, x: x.split(s, d), a)
    cut = data.draw(st.integers(0, size))
    check(lambda t, x: t.split(x, [cut, size - cut], dim=d), a)
    k = data.draw(st.integers(1, 4))
    check(lambda t, x: x.chunk(k, d), a)
    check(lambda t, x: x.unbind(d), a)
    check(lambda t, x: t.unbind(x), a)


def test_only_some_pieces_used():
    a = np.arange(12, dtype=np.float32).reshape(4, 3)
    check(lambda t, x: x.split(3)[1] * 2, a)
    check(lambda t, x: x.chunk(2, 1)[0].sum() + x.chunk(2, 1)[0].sum(), a)
    check(lambda t, x: x.unbind(1)[2] ** 2, a)
    check(lambda t, x: t.cat([x.split(2)[1], x.split(2)[0]]), a)


@settings(max_examples=25, deadline=None)
@given(a=hnp.arrays(np.float32, SHAPES, elements=VALUES), data=st.data())
def test_flip_roll_repeat(a, data):
    nd = a.ndim
    dims = data.draw(st.lists(st.integers(0, nd - 1), min_size=1, max_size=nd, unique=True))
    check(lambda t, x: x.flip(dims), a)
    check(lambda t, x: t.flip(x, dims=tuple(dims)), a)
    shifts = data.draw(st.lists(st.integers(-5, 5), min_size=len(dims), max_size=len(dims)))
    check(lambda t, x: x.roll(shifts, dims), a)
    check(lambda t, x: t.roll(x, shifts[0]), a)
    check(lambda t, x: x.roll(shifts[0], dims[0]), a)
    reps = data.draw(st.lists(st.integers(0, 3), min_size=nd, max_size=nd + 2))
    check(lambda t, x: x.repeat(*reps), a)
    check(lambda t, x: x.repeat(reps), a)


@settings(max_examples=25, deadline=None)
@given(
    a=hnp.arrays(np.float32, hnp.array_shapes(min_dims=2, max_dims=4, max_side=4), elements=VALUES),
    k=st.integers(-4, 4),
)
def test_tril_triu_diagonal(a, k):
    check(lambda t, x: x.tril(), a)
    check(lambda t, x: x.triu(k), a)
    check(lambda t, x: t.tril(x, diagonal=k), a)
    check(lambda t, x: x.diagonal(), a)
    check(lambda t, x: x.diagonal(k, -1, -2), a)
    check(lambda t, x: t.diagonal(x, offset=k, dim1=0, dim2=-1) * 2, a)


@settings(max_examples=20, deadline=None)
@given(
    a=hnp.arrays(np.float32, hnp.array_shapes(min_dims=1, max_dims=4, max_side=3), elements=VALUES),
    data=st.data(),
)
def test_older_views(a, data):
    nd = a.ndim
    d = data.draw(st.integers(-nd, nd - 1))
    check(lambda t, x: x.unsqueeze(d), a)
    check(lambda t, x: x.unsqueeze(-1).squeeze(-1), a)
    check(lambda t, x: x.squeeze(), a)
    check(lambda t, x: x.squeeze(d), a)
    check(lambda t, x: x.flatten(), a)
    check(lambda t, x: t.flatten(x, 0, d), a)
    perm = data.draw(st.permutations(range(nd)))
    check(lambda t, x: x.permute(*perm), a)
    check(lambda t, x: x.expand(2, *a.shape), a)
    size = a.shape[d]
    start = data.draw(st.integers(0, size))
    check(lambda t, x: x.narrow(d, start, size - start), a)
    check(lambda t, x: x.unflatten(d, (1, size)), a)


def test_cat_promotes_and_skips_legacy_empty():
    check(
        lambda t, x, y: t.cat([x, y]),
        np.ones((2, 3), np.float32),
        Arg(np.arange(6).reshape(2, 3), False),
    )
    check(
        lambda t, x, y: t.cat([x, y], 1),
        np.ones((2, 3), np.float32),
        np.zeros((0,), np.float32),
    )
    check(
        lambda t, x, y: t.stack([x, y]),
        np.ones(3, np.float64),
        Arg(np.array([1, 0, 1]), False),
    )


@pytest.mark.parametrize(
    "bad",
    [
        lambda t, x: t.cat([x, x[:2]], 1),
        lambda t, x: t.cat([x, x[0]]),
        lambda t, x: t.cat([]),
        lambda t, x: t.cat(x),
        lambda t, x: t.cat([x, x], 2),
        lambda t, x: t.cat([x.sum(), x.sum()]),
        lambda t, x: t.stack([x, x[:2]]),
        lambda t, x: t.stack([]),
        lambda t, x: t.stack([x, x], 4),
        lambda t, x: x.split(0),
        lambda t, x: x.split([1, 1]),
        lambda t, x: x.split(-1),
        lambda t, x: x.chunk(0),
        lambda t, x: x.flip(0, 0),
        lambda t, x: x.roll((1, 2), (0,)),
        lambda t, x: x.roll((1, 2)),
        lambda t, x: x[0].tril(),
        lambda t, x: x.repeat(2),
        lambda t, x: x.repeat(-1, 1),
        lambda t, x: x.unsqueeze(3),
        lambda t, x: x.permute(0),
        lambda t, x: x.expand(2, 3),
        lambda t, x: x.narrow(0, 2, 5),
        lambda t, x: x.flatten(1, 0),
    ],
)
def test_errors(bad):
    check_error(bad, np.ones((3, 4), np.float32))


@pytest.mark.parametrize(
    "fn",
    [
        lambda x, y: gtorch.cat([x, y * 2], 1),
        lambda x, y: gtorch.stack([x, y], 1),
        lambda x, y: x.split(1)[1] * y[0],
        lambda x, y: x.chunk(2, 1)[0].exp(),
        lambda x, y: x.unbind(1)[2] * y.unbind(1)[0],
        lambda x, y: x.flip(0) * y,
        lambda x, y: x.roll(1, 1) * y,
        lambda x, y: x.tril() * y.triu(1),
        lambda x, y: x.repeat(2, 1, 2) * x.repeat(2, 1, 2),
        lambda x, y: x.diagonal() * y.diagonal(1),
    ],
)
def test_gradcheck(fn):
    rng = np.random.default_rng(11)
    x = gtorch.tensor(rng.standard_normal((2, 3)), requires_grad=True)
    y = gtorch.tensor(rng.standard_normal((2, 3)), requires_grad=True)
    assert gradcheck(fn, x, y)
    assert gradgradcheck(fn, x, y)


def test_split_outputs_are_views_of_one_node():
    x = gtorch.arange(6.0).requires_grad_()
    a, b, c = x.split(2)
    assert a.grad_fn is b.grad_fn is c.grad_fn
    assert [p.output_nr for p in (a, b, c)] == [0, 1, 2]
    assert a._base is x
    assert a.grad_fn.name() == "SplitBackward0"


@pytest.mark.parametrize("sizes", [(3, 2), (-1, 3), (), (2, 2), (-1, 2), (4, 1)])
def test_unflatten_sizes(sizes):
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    try:
        torch.ones(3, 4).unflatten(1, sizes)
    except RuntimeError:
        check_error(lambda t, a: a.unflatten(1, sizes), x)
    else:
        check(lambda t, a: a.unflatten(1, sizes), x)
