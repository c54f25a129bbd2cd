"""torch.sgn / Tensor.sgn (and sgn_): the sign of each element (for complex numbers z/|z|,
which gradshell does not have), its own node SgnBackward0 whose gradient is zeros with no
graph behind them — abs's backward goes through it, so a second derivative of abs meets
it. Values, node names and gradients against PyTorch, and finite differences."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from support.op_checks import Arg, check, gradcheck

from gradshell import torch as gtorch

torch = pytest.importorskip("torch")

FORMS = {
    "function": lambda t, x: t.sgn(x),
    "method": lambda t, x: x.sgn(),
}


@pytest.mark.parametrize("form", sorted(FORMS))
@settings(max_examples=12, deadline=None)
@given(
    x=hnp.arrays(
        np.float32,
        hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4),
        elements=st.floats(-20, 20, allow_nan=False, width=32),
    )
)
def test_matches_pytorch(form, x):
    check(FORMS[form], x)


def test_zeros_float64_and_integer_inputs():
    check(FORMS["function"], np.array([0.0, -0.0, 2.5, -3.0, np.inf, -np.inf]))
    check(FORMS["method"], Arg(np.array([0, 1, -2, 5]), False), backward=False)
    check(FORMS["method"], Arg(np.array([True, False]), False), backward=False)


def test_inplace_variant():
    check(lambda t, x: x.clone().sgn_(), np.linspace(-2.0, 2.0, 5))


def test_gradients_by_finite_differences():
    x = gtorch.tensor(
        [[0.5, -1.5, 2.0], [-0.25, 3.0, -2.0]], dtype=gtorch.float64, requires_grad=True
    )
    assert gradcheck(gtorch.sgn, x)


def test_node_name_and_a_gradient_without_graph():
    x = gtorch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    assert repr(gtorch.sgn(x).grad_fn).startswith("<SgnBackward0 object")
    v = gtorch.ones(3, requires_grad=True)
    (g,) = gtorch.autograd.grad(x.sgn(), x, v, create_graph=True)
    assert g.grad_fn is None and not g.requires_grad
    # (its explanation formula is checked with every other in test_explanations.py)
