"""Differentiating a backward pass (`create_graph=True`) builds the graph PyTorch builds:
a gradient whose PyTorch formula is a single op (sigmoid_backward, threshold_backward,
_softmax_backward_data, mse_loss_backward, ...) carries that op's node
(`SigmoidBackwardBackward0`, ...), with the same edges; the second and third derivatives
agree in value."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.differential import compare

# f(x) for a float leaf x with values in (0, 1)
EXPRS = [
    "x.exp()",
    "x.log()",
    "x.sin()",
    "x.cos()",
    "x.tanh()",
    "x.sigmoid()",
    "x.relu()",
    "(x - 0.5).relu()",
    "x.neg()",
    "x.sinh()",
    "x.cosh()",
    "x.asin()",
    "x.acos()",
    "x * x",
    "x * 2",
    "x / 3",
    "x + x",
    "x - 1",
    "F.softplus(x)",
    "F.softplus(x, beta=30.0)",
    "F.elu(x - 0.5)",
    "F.elu(x - 0.5, alpha=0.5)",
    "F.leaky_relu(x - 0.5)",
    "F.leaky_relu(x - 0.5, 0.2)",
    "F.gelu(x - 0.5)",
    "F.gelu(x - 0.5, approximate='tanh')",
    "F.relu(x - 0.5)",
    "torch.clamp(x, 0.2, 0.6)",
    "x.clamp(min=0.3)",
    "F.softmax(x, 0)",
    "F.softmax(x.view(2, 2), 1)",
    "F.log_softmax(x, 0)",
    "F.log_softmax(x.view(2, 2), 0)",
    "torch.softmax(x * 3, dim=0)",
    "x.sum()",
    "x.mean()",
    "x.max()",
    "x.logsumexp(0)",
    "x.cumsum(0)",
    "x.exp().sum()",
    "torch.maximum(x, 1 - x)",
    "x.floor()",
    "F.mse_loss(x, torch.zeros(4))",
    "F.mse_loss(x, torch.full((4,), 0.3), reduction='sum')",
    "F.mse_loss(x, torch.full((4,), 0.3), reduction='none')",
    "F.binary_cross_entropy(x, torch.ones(4) * 0.5)",
    "F.binary_cross_entropy(x, torch.tensor([0., 1., 0.25, 1.]), reduction='sum')",
    "F.binary_cross_entropy(x, torch.ones(4) * 0.5, weight=torch.arange(4.))",
    "torch.where(x > 0.5, x * x, x)",
    "x.view(4, 1) @ x.view(1, 4)",
    "x.dot(x)",
    "x.outer(x)",
    "x.tan()",
    "x.sqrt()",
    "x.rsqrt()",
    "x.pow(2)",
    "x.pow(3.5)",
    "x ** 2",
    "2 ** x",
    "x.reciprocal()",
    "3 / x",
    "x.log1p()",
    "x.expm1()",
    "x.log2()",
    "x.log10()",
    "x.erf()",
    "x.atan()",
    "x.prod()",
    "x.norm()",
    "x.var()",
    "x.std()",
    "x.sigmoid().tanh().relu()",
    "F.gelu(x.tanh()) * x.sigmoid()",
    "F.silu(x)",
    "x.sign() * x",
    "x.atan2(x + 1)",
]
# (abs is left out: PyTorch's third derivative of it is a ZeroTensor, which cannot be
# compared; tests/core/test_double_backward_graphs.py covers its first two)


def _program(expr: str) -> str:
    lines = [
        "F = torch.nn.functional",
        "x = torch.tensor([0.25, 0.5, 0.75, 0.625], dtype=torch.float64, requires_grad=True)",
        "w = torch.tensor([1.0, -2.0, 0.5, 3.0], dtype=torch.float64)",
        f"y = {expr}",
        "g, = torch.autograd.grad((y * w[: y.numel()].view_as(y) if y.dim() else y).sum(), x,"
        " create_graph=True)",
        "top = g.grad_fn.name() if g.grad_fn is not None else None",
        "edges = [n.name() if n is not None else None for n, _ in g.grad_fn.next_functions]"
        " if g.grad_fn is not None else None",
    ]
    lines += [
        "if g.requires_grad:",
        "    h, = torch.autograd.grad((g * w).sum(), x, create_graph=True, allow_unused=True)",
        "    if h is not None and h.requires_grad:",
        "        k, = torch.autograd.grad((h * h).sum(), x, allow_unused=True)",
        "    h = h.detach() if h is not None else None  # compared by value only",
        "del F",
    ]
    return "\n".join(lines)


@pytest.mark.parametrize("expr", EXPRS)
def test_double_backward_nodes_and_values(real_torch, expr):
    compare(_program(expr), real_torch, rtol=1e-9, atol=1e-12)


def test_a_freed_fused_node_raises_backward_twice(real_torch):
    compare(
        "x = torch.tensor([0.5, -1.0], requires_grad=True)\n"
        "g, = torch.autograd.grad(x.sigmoid().sum(), x, create_graph=True)\n"
        "g.sum().backward()\n"
        "g.sum().backward()",
        real_torch,
    )


@st.composite
def chains(draw):
    """A chain of 1-3 activations applied to a leaf (the double-backward fuzzer)."""
    acts = [
        "torch.sigmoid({})",
        "torch.tanh({})",
        "torch.relu({})",
        "F.softplus({})",
        "F.elu({})",
        "F.leaky_relu({}, 0.1)",
        "F.gelu({})",
        "F.softmax({}, 0)",
        "F.log_softmax({}, 0)",
        "({}).exp()",
        "({}) * ({})",
    ]
    e = "(x - 0.5)"
    for _ in range(draw(st.integers(1, 3))):
        e = draw(st.sampled_from(acts)).replace("{}", e)
    return e


@settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(chains())
def test_double_backward_fuzz(real_torch, expr):
    compare(_program(expr), real_torch, rtol=1e-9, atol=1e-12)
