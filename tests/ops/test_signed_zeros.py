"""Signed zeros follow PyTorch: relu(-0.0) and clamp keep -0.0, maximum/minimum keep their
first operand on a tie, sums start from +0.0, pow(-0.0, -0.5) is -inf, prod's gradient
with two zeros is +0.0 ... Compared with real PyTorch on values and gradients: wherever
PyTorch's answer is a zero, gradshell's has the same sign."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gradshell import torch as gtorch

EXPRS = [
    "x.relu()",
    "F.relu(x)",
    "x * 0",
    "x * -0.0",
    "0 * x",
    "x * x",
    "-x",
    "x - x",
    "x + 0",
    "x + (-0.0)",
    "x.abs()",
    "x.sum()",
    "x.mean()",
    "x.sqrt()",
    "x.sin()",
    "x.tanh()",
    "torch.zeros(3, dtype=x.dtype) - x",
    "x / 2",
    "x.clamp(min=0)",
    "x.clamp(max=0)",
    "x.clamp(-0.0, 0.0)",
    "x.clamp(torch.zeros(3, dtype=x.dtype), torch.zeros(3, dtype=x.dtype))",
    "x.expm1()",
    "x.log1p()",
    "x.sign()",
    "x.floor()",
    "x.ceil()",
    "x.round()",
    "x.trunc()",
    "torch.where(x > 0, x, 0.)",
    "x.max()",
    "x.min()",
    "x.prod()",
    "x.cumsum(0)",
    "x.cumprod(0)",
    "x.pow(2)",
    "x.pow(3)",
    "x ** 0.5",
    "x ** -0.5",
    "x ** -2",
    "F.leaky_relu(x)",
    "F.elu(x)",
    "F.gelu(x)",
    "F.silu(x)",
    "x.atan()",
    "x.asin()",
    "torch.maximum(x, -x)",
    "torch.minimum(x, -x)",
    "torch.maximum(-x, x)",
    "x @ x",
    "x.dot(torch.zeros(3, dtype=x.dtype))",
    "x.mul(-1)",
    "0.0 - x",
    "x.masked_fill(x == 0, 0.)",
    "F.mse_loss(x, torch.zeros(3, dtype=x.dtype))",
    "x.square()",
    "x.reciprocal()",
    "x.erf()",
    "x.sinh()",
    "x.flip(0)",
    "x.amax()",
    "x.exp() - 1",
]
INPUTS = ["[0., -0., 1.]", "[-0., -0., -0.]", "[0., 0., 0.]", "[-1., -0., 2.]"]


def _outcome(torch, expr: str, values: str, dtype: str):
    x = torch.tensor(eval(values), dtype=getattr(torch, dtype), requires_grad=True)  # noqa: S307
    env = {"torch": torch, "F": torch.nn.functional, "x": x}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = eval(expr, env)  # noqa: S307 - the test's own expressions
        grad = None
        if y.requires_grad:
            y.backward(torch.ones_like(y))
            grad = x.grad
    as_np = [np.array(t.detach().numpy(), copy=True) if t is not None else None for t in (y, grad)]
    return as_np


def _same_zeros(ours, theirs, what: str) -> None:
    if theirs is None:
        assert ours is None, what
        return
    assert ours.shape == theirs.shape, what
    assert np.allclose(ours, theirs, rtol=1e-5, atol=1e-6, equal_nan=True), (what, ours, theirs)
    zero = theirs == 0
    assert (np.signbit(ours[zero]) == np.signbit(theirs[zero])).all(), (what, ours, theirs)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("values", INPUTS)
@pytest.mark.parametrize("expr", EXPRS)
def test_signed_zeros_agree(real_torch, expr, values, dtype):
    ours = _outcome(gtorch, expr, values, dtype)
    theirs = _outcome(real_torch, expr, values, dtype)
    _same_zeros(ours[0], theirs[0], f"{expr} on {values}: value")
    _same_zeros(ours[1], theirs[1], f"{expr} on {values}: gradient")


STEPS = [
    "{}.relu()",
    "-{}",
    "{} * 0",
    "{} * -1",
    "{} - {}",
    "{}.clamp(min=0)",
    "{}.clamp(max=-0.0)",
    "torch.maximum({}, -{})",
    "torch.minimum({}, 0 * {})",
    "{}.cumsum(0)",
    "{}.abs()",
    "F.leaky_relu({})",
    "{} + 0",
    "{}.flip(0)",
    "{}.tanh()",
]


@st.composite
def programs(draw):
    """A chain of sign-sensitive steps on a vector of signed zeros and small numbers."""
    values = draw(
        st.lists(st.sampled_from(["0.", "-0.", "1.", "-1.", "0.5"]), min_size=3, max_size=3)
    )
    e = "x"
    for _ in range(draw(st.integers(1, 4))):
        e = draw(st.sampled_from(STEPS)).replace("{}", f"({e})")
    return e, "[" + ", ".join(values) + "]", draw(st.sampled_from(["float32", "float64"]))


@settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(programs())
def test_signed_zero_fuzz(real_torch, program):
    expr, values, dtype = program
    ours = _outcome(gtorch, expr, values, dtype)
    theirs = _outcome(real_torch, expr, values, dtype)
    _same_zeros(ours[0], theirs[0], f"{expr} on {values}: value")
    _same_zeros(ours[1], theirs[1], f"{expr} on {values}: gradient")
