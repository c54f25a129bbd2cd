"""torch.asinh / Tensor.asinh (and arcsinh, asinh_, arcsinh_): the op CONTRIBUTING.md adds
as its example — values, node names and gradients against PyTorch, float64 finite
differences (first and second order), and its node names."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from support.op_checks import Arg, check, gradcheck, gradgradcheck

from gradshell import torch as gtorch

torch = pytest.importorskip("torch")

FORMS = {
    "function": lambda t, x: t.asinh(x),
    "alias": lambda t, x: t.arcsinh(x),
    "method": lambda t, x: x.asinh(),
    "method_alias": lambda t, x: x.arcsinh(),
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


def test_float64_and_integer_inputs():
    check(FORMS["function"], np.linspace(-3.0, 3.0, 7))
    check(FORMS["function"], Arg(np.array([0, 1, -2, 5]), False), backward=False)


@pytest.mark.parametrize("name", ["asinh_", "arcsinh_"])
def test_inplace_variants(name):
    check(lambda t, x: getattr(x.clone(), name)(), np.linspace(-2.0, 2.0, 5))


def test_gradients_by_finite_differences():
    rng = np.random.default_rng(3)
    x = gtorch.tensor(rng.uniform(-3, 3, (2, 3)), requires_grad=True)
    assert gradcheck(gtorch.asinh, x)
    assert gradgradcheck(gtorch.asinh, x)


def test_node_names():
    x = gtorch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    assert repr(gtorch.asinh(x).grad_fn).startswith("<AsinhBackward0 object")
    assert repr(x.clone().asinh_().grad_fn).startswith("<AsinhBackward1 object")
    # (its explanation formula is checked with every other in test_explanations.py)
