"""Matrix products: mm, bmm, mv, dot, outer, matmul (with broadcast batch dimensions),
addmm and einsum for the usual patterns — values, gradients, node names and errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from support.op_checks import check, check_error, gradcheck, gradgradcheck

from gradshell import torch as gtorch

torch = pytest.importorskip("torch")

VALUES = st.floats(-2, 2, allow_nan=False, width=32)
DIM = st.integers(1, 4)


def arr(draw, shape):
    return draw(hnp.arrays(np.float32, tuple(shape), elements=VALUES))


@settings(max_examples=25, deadline=None)
@given(data=st.data(), n=DIM, k=DIM, m=DIM, b=DIM)
def test_products(data, n, k, m, b):
    A, B, v, w = (
        arr(data.draw, (n, k)),
        arr(data.draw, (k, m)),
        arr(data.draw, (k,)),
        arr(data.draw, (k,)),
    )
    check(lambda t, x, y: x.mm(y), A, B)
    check(lambda t, x, y: t.mv(x, y), A, v)
    check(lambda t, x, y: t.dot(x, y), v, w)
    check(lambda t, x, y: t.outer(x, y), v, w)
    check(lambda t, x, y: x @ y, A, B)
    X, Y = arr(data.draw, (b, n, k)), arr(data.draw, (b, k, m))
    check(lambda t, x, y: t.bmm(x, y), X, Y)
    bias = arr(data.draw, (m,))
    check(lambda t, c, x, y: t.addmm(c, x, y), bias, A, B)
    check(lambda t, c, x, y: t.addmm(c, x, y, beta=0.5, alpha=2), bias, A, B)


@st.composite
def matmul_pair(draw):
    """Operands of every rank combination matmul accepts, with broadcast batch dims."""
    k = draw(DIM)
    rank_a, rank_b = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    batch = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=2, max_side=3))
    ba, bb = batch.input_shapes
    sa = (ba + (draw(DIM), k))[-rank_a:] if rank_a > 1 else (k,)
    sb = (bb + (k, draw(DIM)))[-rank_b:] if rank_b > 1 else (k,)
    if rank_a > 2:
        sa = tuple(ba[-(rank_a - 2) :]) + sa[-2:] if rank_a - 2 <= len(ba) else sa
    if rank_b > 2:
        sb = tuple(bb[-(rank_b - 2) :]) + sb[-2:] if rank_b - 2 <= len(bb) else sb
    return arr(draw, sa), arr(draw, sb)


@settings(max_examples=40, deadline=None)
@given(ab=matmul_pair())
def test_matmul_all_ranks(ab):
    a, b = ab
    try:
        np.matmul(a, b)
    except ValueError:
        check_error(lambda t, x, y: t.matmul(x, y), a, b)
        return
    # values, gradients and backward-twice behaviour for every rank combination; node
    # names only below (PyTorch folds size-1 batch dims in ways gradshell does not copy)
    check(lambda t, x, y: t.matmul(x, y), a, b, graph=False)


@pytest.mark.parametrize(
    "sa,sb",
    [
        ((3,), (3,)),
        ((2, 3), (3,)),
        ((3,), (3, 4)),
        ((2, 3), (3, 4)),
        ((5, 2, 3), (3, 4)),
        ((5, 2, 3), (3,)),
        ((2, 3), (5, 3, 4)),
        ((3,), (5, 3, 4)),
        ((5, 2, 3), (5, 3, 4)),
        ((2, 5, 2, 3), (2, 5, 3, 4)),
    ],
)
def test_matmul_nodes(sa, sb):
    rng = np.random.default_rng(0)
    check(
        lambda t, x, y: x @ y,
        rng.standard_normal(sa).astype(np.float32),
        rng.standard_normal(sb).astype(np.float32),
    )


EINSUM = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("ij,jk", [(3, 4), (4, 5)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("ii->", [(3, 3)]),
    ("ii", [(3, 3)]),
    ("ii->i", [(3, 3)]),
    ("i,j->ij", [(4,), (3,)]),
    ("i,i->", [(4,), (4,)]),
    ("ij->ji", [(3, 4)]),
    ("ij->", [(3, 4)]),
    ("ij->j", [(3, 4)]),
    ("ij,j->i", [(3, 4), (4,)]),
    ("...ij,...jk->...ik", [(2, 3, 4), (2, 4, 5)]),
    ("ij,ij->ij", [(3, 4), (3, 4)]),
    ("ij,ij->", [(3, 4), (3, 4)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("bij,jk->bik", [(2, 3, 4), (4, 5)]),
    ("Ba,bA", [(3, 4), (4, 3)]),
    ("bi,bi->b", [(5, 3), (5, 3)]),
    ("iij->j", [(3, 3, 2)]),
    ("b i j , b j k -> b i k", [(1, 3, 4), (2, 4, 5)]),
]


@pytest.mark.parametrize("eq,shapes", EINSUM, ids=[e for e, _ in EINSUM])
def test_einsum_patterns(eq, shapes):
    rng = np.random.default_rng(len(eq))
    ops = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    check(lambda t, *xs: t.einsum(eq, *xs), *ops)
    check(lambda t, *xs: t.einsum(eq, list(xs)), *ops, graph=False)


@pytest.mark.parametrize(
    "bad",
    [
        lambda t, a: t.einsum("ij,jk->ik", a),
        lambda t, a: t.einsum("ij", a, a),
        lambda t, a: t.einsum("ij->ik", a),
        lambda t, a: t.einsum("ij->ii", a),
        lambda t, a: t.einsum("i1->i", a),
        lambda t, a: t.einsum("ijk->i", a),
        lambda t, a: t.einsum("ij,jk->ik", a, a),
        lambda t, a: t.einsum("ij,jk->ik", a, a.t().long()),
        lambda t, a: a.mm(a),
        lambda t, a: t.mv(a, a[:, 0]),
        lambda t, a: t.dot(a[0], a[1, :3]),
        lambda t, a: t.bmm(a, a),
        lambda t, a: t.matmul(a, a),
        lambda t, a: t.addmm(t.ones(2), a, a.t()),
        lambda t, a: t.mm(a, a.t().double()),
    ],
)
def test_errors(bad):
    check_error(bad, np.ones((3, 4), np.float32))


@pytest.mark.parametrize(
    "fn",
    [
        lambda a, b: gtorch.einsum("ij,kj->ik", a, b),
        lambda a, b: gtorch.einsum("ij,ij->", a, b),
        lambda a, b: gtorch.einsum("i,j->ij", a[0], b[1]),
        lambda a, b: gtorch.einsum("ii->", a[:, :2] @ b[:, :2].t()),
        lambda a, b: gtorch.addmm(a[0, :2], a, b.t()),
        lambda a, b: (a.unsqueeze(0).expand(2, 2, 3) @ b.t()).sum(0),
    ],
)
def test_gradcheck(fn):
    rng = np.random.default_rng(23)
    a = gtorch.tensor(rng.standard_normal((2, 3)), requires_grad=True)
    b = gtorch.tensor(rng.standard_normal((2, 3)), requires_grad=True)
    assert gradcheck(fn, a, b)
    assert gradgradcheck(fn, a, b)
