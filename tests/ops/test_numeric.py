"""frac, fmod, deg2rad, rad2deg, nan_to_num, signbit, heaviside and the adjoint views
(H, mH, adjoint) against PyTorch, and their gradients by finite differences."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from support import oracle
from support.op_checks import check, check_error, gradcheck, gradgradcheck

from gradshell import torch as gtorch
from gradshell.core import warn_once

torch = pytest.importorskip("torch")

R = np.random.default_rng(21)
X = R.uniform(-400, 400, (3, 4)).astype(np.float32)
Y = R.uniform(-5, 5, 4).astype(np.float32)
SPECIAL = np.array([np.nan, np.inf, -np.inf, 1.5, -0.0], np.float32)


@pytest.mark.parametrize("name", ["frac", "deg2rad", "rad2deg", "nan_to_num"])
def test_unary_forms(name):
    check(lambda t, x: getattr(t, name)(x), X)
    check(lambda t, x: getattr(x, name)(), X.astype(np.float64))
    check(lambda t, x: getattr(x * 1, name + "_")(), X)


def test_integer_inputs():
    check(lambda t: t.deg2rad(t.tensor([180, 90])))
    check(lambda t: t.nan_to_num(t.tensor([1, 2])))
    check_error(lambda t: t.frac(t.tensor([1, 2])))


def test_nan_to_num_replacements():
    check(lambda t, x: t.nan_to_num(x), SPECIAL)
    check(lambda t, x: t.nan_to_num(x, 2.0, posinf=5.0, neginf=-7.0), SPECIAL)
    check(lambda t, x: x.nan_to_num(), SPECIAL.astype(np.float64))
    check(lambda t, x: x.half().nan_to_num(), SPECIAL, backward=False)


def test_fmod():
    check(lambda t, x, y: t.fmod(x, y), X, Y)
    check(lambda t, x: x.fmod(2.5), X)
    check(lambda t, x, y: (x * 1).fmod_(y), X, Y)
    check(lambda t: t.fmod(t.tensor([5, -5]), 3))
    check(lambda t: t.fmod(t.tensor([5, -5]), 2.5))
    check(lambda t: t.fmod(t.tensor([5.0, -5.0]), 0))
    check_error(lambda t: t.fmod(t.tensor([5, -5]), 0))
    check_error(lambda t: t.fmod(t.tensor([5, -5]), t.tensor([2, 0])))
    check_error(lambda t, x, y: t.fmod(x, y), X, Y[:3])


def test_signbit_and_heaviside():
    check(lambda t, x: t.signbit(x), SPECIAL)
    check(lambda t: t.signbit(t.tensor([-1, 1])))
    check(lambda t, x: t.heaviside(x, t.tensor(0.5)), np.array([1.0, 0, -1], np.float32))
    check(lambda t, x: x.heaviside(t.tensor([0.5])), np.array([1.0, 0, -1], np.float32))
    check_error(lambda t: t.heaviside(t.tensor([1.0, 0]), t.tensor([2])))


@pytest.mark.parametrize("name", ["H", "mH"])
def test_adjoint_views(name):
    check(lambda t, x: getattr(x, name), X)
    check_error(lambda t: getattr(t.tensor([1.0, 2.0]), name))
    if name == "mH":
        check(lambda t, x: x.mH, R.standard_normal((2, 3, 4)).astype(np.float32))
    else:
        check_error(lambda t: t.zeros(2, 3, 4).H)
    check(lambda t, x: t.adjoint(x), X)
    check_error(lambda t: t.tensor([1.0, 2.0]).adjoint())


def _scalar_adjoints(T) -> list:
    x = T.tensor(2.0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        same = [x.H is x, x.H is x, x.adjoint() is x]
    return [same, [str(w.message) for w in caught]]


def test_scalar_adjoints_warn_once_and_return_the_tensor():
    saved = warn_once.given()
    warn_once.restore(frozenset())
    try:
        ours = _scalar_adjoints(gtorch)
    finally:
        warn_once.restore(saved)
    theirs = oracle.computed("0-d adjoints", _scalar_adjoints, torch)
    assert ours[0] == theirs[0]
    assert len(ours[1]) == 2
    assert theirs[1] in ([], ours[1])  # PyTorch warns once per process


def test_heaviside_has_no_derivative():
    def backward(t, x):
        return t.heaviside(x, t.tensor(0.5)).sum().backward()

    check_error(backward, np.array([1.0, -1.0], np.float32))


def test_gradients_by_finite_differences():
    x = gtorch.tensor(R.uniform(-3, 3, (3, 4)), requires_grad=True)
    y = gtorch.tensor(R.uniform(0.5, 2, 4), requires_grad=True)
    for fn in (gtorch.frac, gtorch.deg2rad, gtorch.rad2deg, gtorch.nan_to_num):
        assert gradcheck(fn, x)
        assert gradgradcheck(fn, x)
    assert gradcheck(gtorch.fmod, x, y)
    assert gradgradcheck(gtorch.fmod, x, y)
