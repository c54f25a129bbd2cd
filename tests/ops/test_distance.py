"""cosine_similarity, pairwise_distance (functions and nn modules) and cdist against
PyTorch: values, node chains, gradients, errors; gradients by finite differences."""

from __future__ import annotations

import numpy as np
import pytest
from support.op_checks import check, check_error, gradcheck, gradgradcheck

from gradshell import torch as gtorch

torch = pytest.importorskip("torch")

R = np.random.default_rng(3)
A = R.standard_normal((4, 3)).astype(np.float32)
B = R.standard_normal((4, 3)).astype(np.float32)
ROW = R.standard_normal((1, 3)).astype(np.float32)
C = R.standard_normal((5, 3)).astype(np.float32)


def test_cosine_similarity():
    check(lambda t, x, y: t.nn.functional.cosine_similarity(x, y), A, B)
    check(lambda t, x, y: t.cosine_similarity(x, y, dim=0), A, B)
    check(lambda t, x, y: t.nn.functional.cosine_similarity(x, y, -1, 1e-3), A, ROW)
    check(lambda t, x, y: t.cosine_similarity(x, y.double()), A, B)
    check(lambda t, x, y: t.cosine_similarity(x, y), np.zeros((2, 3)), B[:2])
    check(lambda t, x, y: t.nn.CosineSimilarity(dim=0)(x, y), A[0], B[0])
    check_error(lambda t, x, y: t.cosine_similarity(x, y), A, B[:2])
    check_error(lambda t: t.cosine_similarity(t.ones(2, 3).long(), t.ones(2, 3).long()))


def test_pairwise_distance():
    check(lambda t, x, y: t.nn.functional.pairwise_distance(x, y), A, B)
    check(lambda t, x, y: t.pairwise_distance(x, y, p=1, keepdim=True), A, ROW)
    check(lambda t, x, y: t.pairwise_distance(x, y, 3.0, 0.0), A, B)
    check(lambda t, x, y: t.pairwise_distance(x, y), A[0], B[0])
    check(lambda t, x, y: t.nn.PairwiseDistance(p=1.0, keepdim=True)(x, y), A, B)
    check(lambda t: t.pairwise_distance(t.ones(2, 3).long(), t.zeros(2, 3).long()))
    check_error(lambda t, x, y: t.pairwise_distance(x, y), A, B[:2])


def test_module_reprs():
    for cls, kwargs in [("CosineSimilarity", {"dim": 0}), ("PairwiseDistance", {"p": 1.0})]:
        m = getattr(gtorch.nn, cls)(**kwargs)
        assert repr(m) == f"{cls}()"
    assert gtorch.nn.PairwiseDistance().norm == 2.0
    assert gtorch.nn.CosineSimilarity().eps == 1e-8


@pytest.mark.parametrize("p", [0.0, 1.0, 2.0, 3.0, float("inf")])
def test_cdist(p):
    check(lambda t, x, y: t.cdist(x, y, p=p), A, C, rtol=1e-5, atol=1e-6)
    batch = R.standard_normal((2, 1, 4, 3)).astype(np.float32)
    other = R.standard_normal((3, 5, 3)).astype(np.float32)
    check(lambda t, x, y: t.cdist(x, y, p), batch, other, rtol=1e-5, atol=1e-5)


def test_cdist_errors():
    check_error(lambda t, x, y: t.cdist(x, y), A[0], C)
    check_error(lambda t, x, y: t.cdist(x, y), A, C[0])
    check_error(lambda t, x, y: t.cdist(x, y[:, :2]), A, C)
    check_error(lambda t, x, y: t.cdist(x, y.double()), A, C)
    check_error(lambda t, x, y: t.cdist(x, y, p=-1.0), A, C)
    check_error(lambda t: t.cdist(t.ones(2, 3).long(), t.ones(2, 3).long()))


def test_cdist_has_no_second_derivative():
    def grad_of_grad(t, x, y):
        g = t.autograd.grad(t.cdist(x, y).sum(), x, create_graph=True)[0]
        return g.sum().backward()

    check_error(grad_of_grad, A, C)
    x = gtorch.tensor(A, requires_grad=True)
    g = gtorch.autograd.grad(gtorch.cdist(x, gtorch.tensor(C)).sum(), x, create_graph=True)[0]
    assert type(g.grad_fn).__name__ == "CdistBackwardBackward0"


def test_gradients_by_finite_differences():
    x = gtorch.tensor(R.standard_normal((4, 3)), requires_grad=True)
    y = gtorch.tensor(R.standard_normal((4, 3)), requires_grad=True)
    for fn in (
        lambda x, y: gtorch.cosine_similarity(x, y),
        lambda x, y: gtorch.pairwise_distance(x, y),
        lambda x, y: gtorch.pairwise_distance(x, y, p=3.0),
    ):
        assert gradcheck(fn, x, y)
        assert gradgradcheck(fn, x, y)
    z = gtorch.tensor(R.standard_normal((2, 5, 3)), requires_grad=True)
    for p in (1.0, 2.0, 3.0, float("inf")):
        assert gradcheck(lambda x, z, p=p: gtorch.cdist(x, z, p), x, z)
