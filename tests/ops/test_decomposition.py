"""det / linalg.det, slogdet / linalg.slogdet and logdet against PyTorch (values to
LAPACK's rounding, node names, gradients, errors) and by finite differences."""

from __future__ import annotations

import numpy as np
import pytest
from support.op_checks import check, check_error, gradcheck

from gradshell import torch as gtorch

torch = pytest.importorskip("torch")

R = np.random.default_rng(4)
SQ = R.standard_normal((3, 3)).astype(np.float32)
BATCH = R.standard_normal((2, 4, 4))
SPD = (SQ @ SQ.T + 3 * np.eye(3)).astype(np.float32)
TOL = {"rtol": 1e-5, "atol": 1e-6, "grad_rtol": 1e-4, "grad_atol": 1e-5}


@pytest.mark.parametrize(
    "form",
    [
        lambda t, a: t.det(a),
        lambda t, a: a.det(),
        lambda t, a: t.linalg.det(a),
        lambda t, a: t.slogdet(a),
        lambda t, a: a.slogdet().logabsdet,
        lambda t, a: t.linalg.slogdet(a),
        lambda t, a: t.logdet(a),
    ],
)
def test_forms(form):
    check(form, SQ, twice=False, **TOL)
    check(form, BATCH, twice=False, **TOL)
    check(form, SPD, twice=False, **TOL)


def test_singular_and_empty():
    check(lambda t, a: t.det(a), np.zeros((2, 2), np.float32), twice=False)
    check(lambda t, a: t.det(a), np.arange(1.0, 10.0).reshape(3, 3), twice=False)
    check(lambda t, a: t.slogdet(a), np.zeros((2, 2), np.float32), backward=False)
    check(lambda t, a: t.logdet(a), -np.eye(3, dtype=np.float32), backward=False)
    check(lambda t, a: t.logdet(a), np.zeros((2, 2), np.float32), backward=False)
    check(lambda t: t.det(t.zeros(2, 0, 0)), backward=False)


def test_errors():
    check_error(lambda t, a: t.det(a), SQ[:2])
    check_error(lambda t, a: t.det(a), SQ[0])
    check_error(lambda t: t.det(t.ones(3, 3, dtype=t.int64)))
    check_error(lambda t, a: t.linalg.slogdet(a), SQ[:2])


def test_result_types_and_second_derivative():
    a = gtorch.tensor(SQ, requires_grad=True)
    assert type(gtorch.slogdet(a)).__name__ == "slogdet"
    assert type(gtorch.linalg.slogdet(a)).__name__ == "linalg_slogdet"
    g = gtorch.autograd.grad(gtorch.det(a), a, retain_graph=True)[0]
    assert g.grad_fn is None
    with pytest.raises(NotImplementedError, match="gradshell does not support differentiating"):
        gtorch.autograd.grad(gtorch.det(a), a, create_graph=True)


def test_gradients_by_finite_differences():
    a = gtorch.tensor(R.standard_normal((2, 3, 3)), requires_grad=True)
    assert gradcheck(gtorch.det, a)
    assert gradcheck(lambda a: gtorch.slogdet(a).logabsdet, a)
    spd = gtorch.tensor(SPD.astype(np.float64), requires_grad=True)
    assert gradcheck(gtorch.logdet, spd)
