"""float16 rounds as PyTorch's CPU kernels do: elementwise functions (sigmoid, log1p, exp,
tanh, softplus, silu, elu, leaky_relu ...) compute in float32 and round once, fused
backward kernels (tanh_backward, softplus_backward, ...) likewise, multiplication and
division by a number take the number in float32, while add/sub and sigmoid_backward round
after each op. Values and gradients are compared bit for bit with real PyTorch."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gradshell import torch as gtorch

VALUES = np.linspace(-6, 6, 97).tolist() + [0.1, 0.2, 0.3, 1e-3, 1e-5, 60000.0, -60000.0]

EXPRS = [
    "x.sigmoid()",
    "torch.sigmoid(x)",
    "x.log1p()",
    "x.exp()",
    "x.log()",
    "x.tanh()",
    "x.sin()",
    "x.cos()",
    "x.sqrt()",
    "x.expm1()",
    "x.relu()",
    "F.silu(x)",
    "F.softplus(x)",
    "F.elu(x)",
    "F.leaky_relu(x)",
    "F.leaky_relu(x, 0.2)",
    "x.atan()",
    "x.reciprocal()",
    "x * 3",
    "x * 0.1",
    "0.1 * x",
    "x / 3",
    "x / 0.7",
    "3 / x",
    "x + 0.1",
    "x - 0.3",
    "0.7 - x",
    "x * torch.tensor(0.1)",
    "x ** 2",
    "x ** 0.5",
    "x.abs()",
    "x.sinh()",
    "x.cosh()",
    "x.tan()",
    "x.log2()",
    "x.log10()",
    "x.asin()",
    "x.acos()",
    "x.sum()",
    "x.mean()",
    "x.softmax(0)",
    "x.log_softmax(0)",
    "x.cumsum(0)",
    "x * x.sigmoid()",
    "x.sigmoid() * x.tanh()",
    "x.sign()",
    "x.round()",
]


def _bits(t):
    if t is None:
        return None
    a = np.array(t.detach().numpy(), copy=True)
    out = a.view(np.uint16).copy()
    out[np.isnan(a)] = 0x7E00  # one NaN: the payload is not what is compared
    return out


def _outcome(torch, expr: str):
    x = torch.tensor(VALUES, dtype=torch.float16, requires_grad=True)
    env = {"torch": torch, "F": torch.nn.functional, "x": x}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = eval(expr, env)  # noqa: S307 - the test's own expressions
        if y.dtype != torch.float16:
            return y.dtype, None, None
        y.backward(torch.ones_like(y))
    return y.dtype, _bits(y), _bits(x.grad)


@pytest.mark.parametrize("expr", EXPRS)
def test_float16_bits_agree(real_torch, expr):
    ours = _outcome(gtorch, expr)
    theirs = _outcome(real_torch, expr)
    assert str(ours[0]) == str(theirs[0])
    np.testing.assert_array_equal(ours[1], theirs[1], err_msg=f"{expr}: value")
    np.testing.assert_array_equal(ours[2], theirs[2], err_msg=f"{expr}: gradient")


STEPS = [
    "({}).sigmoid()",
    "({}).tanh()",
    "({}) * 0.3",
    "({}) / 1.7",
    "({}) + 0.1",
    "F.softplus({})",
    "F.silu({})",
    "F.leaky_relu({}, 0.1)",
    "F.elu({})",
    "({}).exp()",
    "({}) * ({})",
    "({}).relu()",
]


@st.composite
def chains(draw):
    e = "x"
    for _ in range(draw(st.integers(1, 3))):
        e = draw(st.sampled_from(STEPS)).replace("{}", e)
    return e


@settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(chains())
def test_float16_chains_agree(real_torch, expr):
    ours = _outcome(gtorch, expr)
    theirs = _outcome(real_torch, expr)
    np.testing.assert_array_equal(ours[1], theirs[1], err_msg=f"{expr}: value")
    np.testing.assert_array_equal(ours[2], theirs[2], err_msg=f"{expr}: gradient")
