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
    with pytest.raises(PredictError, match="does not depend on x"):
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


def test_parse_named_outputs_and_partial_signs():
    assert parse_predict("dq/dw = 12") == ("q", "w", 12)
    assert parse_predict("∂y/∂x = [2, 4]") == ("y", "x", [2, 4])
    assert parse_predict("d(y)/dx = 1") == ("y", "x", 1)
    assert parse_predict("dmodel.out/dx = 1") == ("model.out", "x", 1)


def test_predict_a_named_output_through_its_graph(vs):
    vs.run_cell("x = torch.tensor([1., 2., 3.], requires_grad=True)")
    vs.run_cell("y = (x**2).sum()")
    r = vs.run_cell("%predict d(y)/dx = [2, 4, 6]")
    assert "All 3 right." in r.visual, r.output + r.visual
    assert "does not" not in r.output + r.visual and "+ 2" not in r.output + r.visual
    assert "finite differences need the expression itself" in r.visual
    assert vs.namespace["x"].grad is None  # nothing the learner has is touched
    r = vs.run_cell("%predict dy/dx = [2, 4, 7]")
    assert "1 of 3 differ" in r.visual
    # the graph is still there for the learner's own backward()
    assert vs.run_cell("y.backward()").error is None
    r = vs.run_cell("%predict dy/dx = [2, 4, 6]")
    assert "freed by an earlier backward()" in r.output


def test_predict_without_brackets_and_a_singular_verdict(vs):
    vs.run_cell("w = torch.tensor(2., requires_grad=True)")
    vs.run_cell("q = w**3")
    r = vs.run_cell("%predict dq/dw = 12")
    assert "Right." in r.visual and "All 1 right" not in r.visual
    assert "usage" not in r.output
    r = vs.run_cell("%predict d(w**3)/dw = 12")
    assert "∂(w**3)/∂w" in r.visual and "Right." in r.visual


def test_an_output_that_does_not_depend_on_the_leaf_says_so_plainly(vs):
    vs.run_cell("x = torch.tensor([1., 2.], requires_grad=True)")
    vs.run_cell("v = torch.tensor([1., 2.], requires_grad=True)")
    vs.run_cell("y = (v * 2).sum()")
    r = vs.run_cell("%predict dy/dx = 0")
    assert "y does not depend on x" in r.output
    assert "mean()" not in r.output  # no program of ours with the learner's name in it
