"""Predict, then reveal: right and wrong predictions, the finite-difference witness,
and the mistakes it catches in how a prediction is asked."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gradshell import torch as gt
from gradshell.viz.predict import PredictError, parse_predict, reveal


def test_right_and_wrong_elements():
    x = gt.tensor([1.0, 2.0, 3.0], requires_grad=True)
    result = reveal(lambda t: (t * t).sum(), x, [2.0, 4.0, 7.0], expr="(x*x).sum()")
    assert [r.right for r in result.rows] == [True, True, False]
    assert [r.actual for r in result.rows] == [2.0, 4.0, 6.0]
    for r in result.rows:  # float64 central differences agree with autograd
        assert math.isclose(r.fd, r.actual, rel_tol=1e-6)
    assert not result.all_right
    assert x.grad is None  # nothing the learner has is touched


def test_a_scalar_prediction_applies_to_every_element():
    x = gt.ones(2, 2, requires_grad=True)
    result = reveal(lambda t: (((t + 2) * (t + 2)) * 3).mean(), x, 4.5)
    assert result.all_right and len(result.rows) == 4


def test_finite_differences_are_a_real_witness():
    # sin's derivative is cos: the finite difference finds it independently of autograd
    x = gt.tensor([0.3, 1.2], dtype=gt.float64, requires_grad=True)
    result = reveal(lambda t: t.sin().sum(), x, np.cos([0.3, 1.2]).tolist())
    assert result.all_right
    np.testing.assert_allclose([r.fd for r in result.rows], np.cos([0.3, 1.2]), rtol=1e-7)


def test_mistakes_in_the_question():
    x = gt.ones(3, requires_grad=True)
    with pytest.raises(PredictError, match="3 elements"):
        reveal(lambda t: t * 2, x, 2)
    with pytest.raises(PredictError, match="shape"):
        reveal(lambda t: t.sum(), x, [1, 1])
    z = (x * 2).sum()
    with pytest.raises(PredictError, match="does not change when x changes"):
        reveal(lambda t: z, x, 2)


def test_parse():
    assert parse_predict("d((x*x).sum())/dx = [2, 4]") == ("(x*x).sum()", "x", [2, 4])
    assert parse_predict(" d( y.mean() ) / d y = 0.5") == ("y.mean()", "y", 0.5)
    with pytest.raises(PredictError, match="usage"):
        parse_predict("x = 2")
    with pytest.raises(PredictError, match="cannot read"):
        parse_predict("d(x.sum())/dx = two")


def test_predict_magic_in_the_shell(vs):
    vs.run_cell("x = torch.tensor([1., 2.], requires_grad=True)")
    r = vs.run_cell("%predict d((x ** 3).sum())/dx = [3, 12]")
    assert "All 2 right." in r.visual and r.output == ""
    assert vs.namespace["x"].grad is None
    r = vs.run_cell("%predict d((x ** 3).sum())/dx = [3, 11]")
    assert "1 of 2 differ" in r.visual
    r = vs.run_cell("%predict d(open('f').read())/dx = 1")
    assert "gradshell:" in r.output  # the expression passes the same checks as learner code
