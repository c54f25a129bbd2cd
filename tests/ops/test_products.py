"""cross / linalg.cross, tensordot and kron against PyTorch (values, node chains,
gradients, errors, the cross-without-dim warning) and by finite differences."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from support import oracle
from support.op_checks import check, check_error, gradcheck, gradgradcheck

from gradshell import torch as gtorch
from gradshell.core import warn_once

torch = pytest.importorskip("torch")

R = np.random.default_rng(9)


def _a(*shape):
    return R.standard_normal(shape).astype(np.float32)


def test_linalg_cross():
    check(lambda t, x, y: t.linalg.cross(x, y), _a(4, 3), _a(4, 3))
    check(lambda t, x, y: t.linalg.cross(x, y), _a(4, 3), _a(1, 3))
    check(lambda t, x, y: t.linalg.cross(x, y, dim=0), _a(3, 2), _a(3, 2))
    check(lambda t, x, y: t.cross(x, y, dim=1), _a(4, 3), _a(4, 3))
    check(lambda t, x, y: x.cross(y, dim=-1), _a(2, 3), _a(2, 3))
    check(lambda t: t.linalg.cross(t.tensor([1, 2, 3]), t.tensor([4, 5, 6])))


def test_cross_errors():
    check_error(lambda t, x, y: t.linalg.cross(x, y), _a(4, 2), _a(4, 2))
    check_error(lambda t, x, y: t.linalg.cross(x, y), _a(4, 3), _a(4, 3, 1))
    check_error(lambda t, x, y: t.cross(x, y, dim=1), _a(4, 2), _a(4, 2))
    check_error(lambda t, x, y: t.cross(x, y, dim=1), _a(4, 3), _a(5, 3))
    check_error(lambda t, x, y: t.linalg.cross(x, y.double()), _a(4, 3), _a(4, 3))


def _cross_without_dim(T) -> list:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        a = T.tensor(np.arange(12.0).reshape(3, 4))
        out = T.cross(a, a.flip(0))
        T.cross(a, a)
    return [out.tolist(), [str(w.message) for w in caught]]


def test_cross_without_dim_takes_the_first_size_3_dimension_and_warns_once():
    saved = warn_once.given()
    warn_once.restore(frozenset())
    try:
        ours = _cross_without_dim(gtorch)
    finally:
        warn_once.restore(saved)
    theirs = oracle.computed("cross without dim", _cross_without_dim, torch)
    assert ours[0] == theirs[0]
    assert ours[1] == [warn_once_text()]
    assert theirs[1] in ([], ours[1])  # PyTorch warns once per process
    check_error(lambda t, x, y: t.cross(x, y), _a(4, 2), _a(4, 2))


def warn_once_text() -> str:
    from gradshell.ops.products import CROSS_WITHOUT_DIM

    return CROSS_WITHOUT_DIM


CASES = [
    ((4, 3), (3,), 1),
    ((3,), (3, 5), 1),
    ((4, 3), (3, 5), 1),
    ((2, 3, 4), (3, 4, 5), 2),
    ((2, 3), (4, 5), 0),
    ((3,), (3,), 1),
    ((1, 3), (3, 1), 1),
    ((2, 3, 4), (4, 3), ([1, 2], [1, 0])),
    ((4, 3), (3, 4), ([0], [1])),
]


@pytest.mark.parametrize("sa,sb,dims", CASES)
def test_tensordot(sa, sb, dims):
    check(lambda t, x, y: t.tensordot(x, y, dims=dims), _a(*sa), _a(*sb), grad_rtol=1e-5)


def test_tensordot_dims_forms_and_errors():
    check(lambda t, x, y: t.tensordot(x, y, dims=t.tensor(1)), _a(2, 3), _a(3, 2))
    check(lambda t, x, y: t.tensordot(x, y, [[1], [0]]), _a(2, 3), _a(3, 2))
    check(lambda t: t.tensordot(t.ones(2, 3).long(), t.ones(3, 2).long(), dims=1))
    for dims in (-1, 3, 2, ([0], [0, 1])):
        check_error(lambda t, x, y, dims=dims: t.tensordot(x, y, dims=dims), _a(4, 3), _a(3, 4))
    check_error(lambda t, x, y: t.tensordot(x, y.double(), dims=1), _a(2, 3), _a(3, 2))


@pytest.mark.parametrize("sa,sb", [((3,), (2,)), ((3,), (2, 2)), ((2, 3), (2,)), ((), (2,))])
def test_kron(sa, sb):
    check(lambda t, x, y: t.kron(x, y), _a(*sa), _a(*sb))
    check(lambda t, x, y: x.kron(y), _a(*sa), _a(*sb))


def test_gradients_by_finite_differences():
    def f64(*shape):
        return gtorch.tensor(R.standard_normal(shape), requires_grad=True)

    a, b = f64(4, 3), f64(1, 3)
    assert gradcheck(lambda a, b: gtorch.linalg.cross(a, b), a, b)
    assert gradgradcheck(lambda a, b: gtorch.linalg.cross(a, b), a, b)
    x, y = f64(2, 3, 4), f64(4, 3)
    assert gradcheck(lambda x, y: gtorch.tensordot(x, y, ([1, 2], [1, 0])), x, y)
    assert gradgradcheck(lambda x, y: gtorch.tensordot(x, y, ([1, 2], [1, 0])), x, y)
    p, q = f64(2, 3), f64(2)
    assert gradcheck(gtorch.kron, p, q)
    assert gradgradcheck(gtorch.kron, p, q)


@pytest.mark.parametrize("n", [-3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7])
def test_matrix_power(n):
    a = _a(3, 3) + 3 * np.eye(3, dtype=np.float32)
    check(lambda t, x: t.linalg.matrix_power(x, n), a, rtol=1e-5, atol=1e-5, grad_rtol=1e-4)
    check(lambda t, x: x.matrix_power(n), np.stack([a, a.T]), rtol=1e-5, atol=1e-5, grad_rtol=1e-4)


def test_matrix_power_integers_and_errors():
    check(lambda t: t.matrix_power(t.tensor([[1, 2], [3, 4]]), 3))
    check(lambda t: t.tensor([[1, 2], [3, 4]]).matrix_power(0))
    check_error(lambda t, x: t.linalg.matrix_power(x, 2), _a(2, 3))
    check_error(lambda t, x: t.linalg.matrix_power(x, 2), _a(3))
    check_error(lambda t: t.linalg.matrix_power(t.tensor([[1, 2], [3, 4]]), -1))


def test_matrix_power_gradients_by_finite_differences():
    a = gtorch.tensor(R.standard_normal((3, 3)) + 3 * np.eye(3), requires_grad=True)
    for n in (-2, 0, 3, 5):
        assert gradcheck(lambda a, n=n: gtorch.linalg.matrix_power(a, n), a)
        assert gradgradcheck(lambda a, n=n: gtorch.linalg.matrix_power(a, n), a)
