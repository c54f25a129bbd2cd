"""The graphs that differentiating a backward pass builds are PyTorch's, several levels
deep: for g = grad(f(x), x, create_graph=True) and g2 = grad(g · w, x) the node names, their
order and their edges (`next_functions`, with the output numbers and the missing edges)
agree with PyTorch's down to four levels under g and three under g2, and so do the
values. This pins the backward formulas to PyTorch's derivatives op for op: a number
multiplying inside a formula is mul.Scalar (MulBackward1), a reduced gradient is
unsqueezed back (UnsqueezeBackward0), abs goes through sgn, a loss's backward is one
node (NllLossBackwardBackward0, SmoothL1LossBackwardBackward0, ...).

Each case runs twice: with a constant incoming gradient (what `y.sum()` gives), and with
one that itself requires grad, which brings in the edges to the incoming gradient.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.differential import compare

# f(x) for a float64 leaf x = [0.2, 0.4, 0.7, 0.9]
EXPRS = {
    "sigmoid": "x.sigmoid()",
    "tanh": "x.tanh()",
    "exp": "x.exp()",
    "log": "x.log()",
    "sin": "x.sin()",
    "cos": "x.cos()",
    "sqrt": "x.sqrt()",
    "rsqrt": "x.rsqrt()",
    "pow2": "x ** 2",
    "pow3": "x.pow(3)",
    "pow_tensor": "x.pow(x)",
    "relu": "x.relu()",
    "softplus": "F.softplus(x)",
    "softplus_beta": "F.softplus(x, beta=3.0, threshold=2.0)",
    "gelu": "F.gelu(x)",
    "gelu_tanh": "F.gelu(x, approximate='tanh')",
    "elu": "F.elu(x - 0.5)",
    "leaky_relu": "F.leaky_relu(x - 0.5, 0.1)",
    "silu": "F.silu(x)",
    "softmax": "x.softmax(0)",
    "log_softmax": "x.log_softmax(0)",
    "abs": "(x - 0.5).abs()",
    "sgn": "x.sgn() * x",
    "sign": "x.sign() * x",
    "reciprocal": "x.reciprocal()",
    "rdiv": "1 / x",
    "mul": "x * x",
    "mean": "x.mean()",
    "sum": "x.sum()",
    "norm": "x.norm()",
    "norm_p1": "x.norm(p=1)",
    "norm_p3": "x.norm(p=3)",
    "norm_inf": "x.norm(p=float('inf'))",
    "prod": "x.prod()",
    "cumsum": "x.cumsum(0)",
    "logsumexp": "x.logsumexp(0)",
    "atan": "x.atan()",
    "asin": "(x / 10).asin()",
    "acos": "(x / 10).acos()",
    "tan": "x.tan()",
    "sinh": "x.sinh()",
    "cosh": "x.cosh()",
    "log1p": "x.log1p()",
    "expm1": "x.expm1()",
    "erf": "x.erf()",
    "clamp": "x.clamp(0.1, 0.5)",
    "max": "x.max()",
    "var": "x.var()",
    "std": "x.std()",
    "mse": "F.mse_loss(x, x.detach() * 2)",
    "mse_sum": "F.mse_loss(x, x.detach() * 2, reduction='sum')",
    "mse_none": "F.mse_loss(x, x.detach() * 2, reduction='none')",
    "bce": "F.binary_cross_entropy(x.sigmoid(), torch.ones(4, dtype=torch.float64))",
    "bce_weight": "F.binary_cross_entropy(x, torch.full((4,), 0.3, dtype=torch.float64),"
    " weight=torch.arange(4.0, dtype=torch.float64))",
    "bce_none": "F.binary_cross_entropy(x, torch.full((4,), 0.3, dtype=torch.float64),"
    " reduction='none')",
    "cross_entropy": "F.cross_entropy(x.reshape(2, 2), torch.tensor([0, 1]))",
    "nll": "F.nll_loss(x.reshape(2, 2).log_softmax(1), torch.tensor([0, 1]))",
    "nll_sum": "F.nll_loss(x.reshape(2, 2).log_softmax(1), torch.tensor([1, 1]), reduction='sum')",
    "nll_none": "F.nll_loss(x.reshape(2, 2).log_softmax(1), torch.tensor([1, 0]),"
    " reduction='none')",
    "hardtanh": "F.hardtanh(x, 0.3, 0.8)",
    "relu6": "F.relu6(x * 10)",
    "matmul": "x.reshape(2, 2) @ x.reshape(2, 2)",
    "dist": "x.dist(x.detach() * 3)",
    "dist_p3": "x.dist(x.detach() * 3, p=3)",
    "atan2": "torch.atan2(x, x.detach() + 1)",
    "log2": "x.log2()",
    "log10": "x.log10()",
    "square": "x.square()",
    "maximum": "torch.maximum(x, x.detach() * 0.5)",
    "where": "torch.where(x > 0.3, x * x, x)",
    "l1": "F.l1_loss(x, torch.zeros(4, dtype=torch.float64))",
    "smooth_l1": "F.smooth_l1_loss(x, torch.zeros(4, dtype=torch.float64))",
    "smooth_l1_beta": "F.smooth_l1_loss(x, x.detach() * 2, beta=0.5, reduction='sum')",
    "sum_dim": "x.reshape(2, 2).sum(1)",
    "mean_dim": "x.reshape(2, 2).mean(0)",
    "std_dim": "x.reshape(2, 2).std(1)",
    "var_dim": "x.reshape(2, 2).var(0)",
    "norm_dim": "x.reshape(2, 2).norm(dim=1)",
    "logsumexp_dim": "x.reshape(2, 2).logsumexp(1)",
    "prod_dim": "x.reshape(2, 2).prod(1)",
    "chain": "x.sigmoid().tanh().relu()",
    "floor": "x.floor() * x",
    "round": "x.round(decimals=1) * x",
    "relu_shifted": "(x - 0.5).relu() * x",
}

_WALK = """
def walk(fn, depth, level=0, nr=0, out=None):
    # one line per node, depth first: its level, name and output number; None for a
    # missing edge (a flat list, so the comparison sees every level)
    out = [] if out is None else out
    if fn is None:
        out.append(f"{level} None")
    elif level < depth:
        out.append(f"{level} {fn.name()}:{nr}")
        for n, k in fn.next_functions:
            walk(n, depth, level + 1, k, out)
    return out
"""


def _program(setup: str, expr: str, live_grad: bool) -> str:
    """g = ∂f/∂x with create_graph=True, g2 = ∂(g·w)/∂x; their graphs and values."""
    if live_grad:
        first = (
            "v = torch.linspace(0.5, 1.5, y.numel(), dtype=torch.float64)"
            ".reshape(y.shape).requires_grad_()\n"
            "g, = torch.autograd.grad(y, x, v, create_graph=True)"
        )
    else:
        first = "g, = torch.autograd.grad(y.sum(), x, create_graph=True)"
    return "\n".join(
        [
            "F = torch.nn.functional",
            _WALK,
            setup,
            f"y = {expr}",
            first,
            "graph_g = walk(g.grad_fn, 4)",
            "w = torch.linspace(-1.0, 2.0, g.numel(), dtype=torch.float64).reshape(g.shape)",
            "if g.requires_grad:",
            "    g2, = torch.autograd.grad((g * w).sum(), x, create_graph=True, allow_unused=True)",
            "    graph_g2 = walk(g2.grad_fn, 3) if g2 is not None else None",
            # PyTorch's zero gradients may be ZeroTensors: their values compared as a copy
            "    g2 = g2.detach().clone() if g2 is not None else None",
            "del F, walk",
        ]
    )


_LEAF = "x = torch.tensor([0.2, 0.4, 0.7, 0.9], dtype=torch.float64, requires_grad=True)"


@pytest.mark.parametrize("live_grad", [False, True], ids=["constant_grad", "live_grad"])
@pytest.mark.parametrize("name", sorted(EXPRS))
def test_double_backward_graph(real_torch, name, live_grad):
    compare(_program(_LEAF, EXPRS[name], live_grad), real_torch, rtol=1e-9, atol=1e-12)


# PyTorch's layer_norm double backward is one node whose own derivative gradshell writes
# with other intermediate ops: its node, edges and values are compared, and the values
# (not the inner nodes) of the second derivative
FIRST_LEVEL = {
    "layer_norm": "F.layer_norm(x.reshape(2, 2), (2,))",
    "layer_norm_affine": "F.layer_norm(x.reshape(2, 2), (2,),"
    " torch.tensor([1.5, -0.5], dtype=torch.float64, requires_grad=True),"
    " torch.tensor([0.1, 0.2], dtype=torch.float64, requires_grad=True))",
    "layer_norm_2d": "F.layer_norm(x.reshape(1, 2, 2), (2, 2))",
}


@pytest.mark.parametrize("live_grad", [False, True], ids=["constant_grad", "live_grad"])
@pytest.mark.parametrize("name", sorted(FIRST_LEVEL))
def test_double_backward_first_level(real_torch, name, live_grad):
    program = _program(_LEAF, FIRST_LEVEL[name], live_grad)
    program = program.replace(
        "    graph_g2 = walk(g2.grad_fn, 3) if g2 is not None else None\n", ""
    )
    assert "graph_g2" not in program
    compare(program, real_torch, rtol=1e-9, atol=1e-12)


# ops over a dimension, for the Hypothesis part: {d} is the dimension, {k} keepdim
DIM_EXPRS = [
    "x.sum({d}, keepdim={k})",
    "x.mean({d}, keepdim={k})",
    "x.var({d}, keepdim={k})",
    "x.std({d}, keepdim={k})",
    "x.logsumexp({d}, keepdim={k})",
    "x.norm(dim={d}, keepdim={k})",
    "torch.linalg.vector_norm(x, 3, dim={d}, keepdim={k})",
    "x.prod({d}, keepdim={k})",
    "x.softmax({d})",
    "x.log_softmax({d})",
    "x.sum(({d}, -1), keepdim={k})",
]
ELEMENTWISE = [
    "x.sigmoid()",
    "x.tanh()",
    "x.rsqrt()",
    "x.sqrt()",
    "x.erf()",
    "(x / 2).asin()",
    "x.tan()",
    "(x - 0.5).abs()",
    "F.softplus(x, beta=2.0)",
    "F.gelu(x - 0.5)",
    "F.gelu(x - 0.5, approximate='tanh')",
    "F.silu(x)",
    "x.pow(x)",
    "torch.atan2(x, x.detach() + 0.5)",
    "F.hardtanh(x, 0.3, 0.6)",
]
LOSSES = [
    "F.mse_loss(x, x.detach() * 1.5, reduction='{r}')",
    "F.binary_cross_entropy(x, x.detach() * 0.5, reduction='{r}')",
    "F.smooth_l1_loss(x, x.detach() * 3, beta=0.5, reduction='{r}')",
    "F.l1_loss(x, x.detach() * 3, reduction='{r}')",
]


@st.composite
def cases(draw):
    """A random shape (1-3 dims of 1-4), values in (0.1, 0.9) from a seed, and an op."""
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)))
    seed = draw(st.integers(0, 2**16))
    setup = (
        f"x = torch.tensor(np.random.RandomState({seed}).uniform(0.1, 0.9, {shape}),"
        " dtype=torch.float64, requires_grad=True)"
    )
    kind = draw(st.sampled_from(["dim", "elementwise", "loss"]))
    if kind == "dim":
        d = draw(st.integers(-len(shape), len(shape) - 1))
        expr = draw(st.sampled_from(DIM_EXPRS)).format(d=d, k=draw(st.booleans()))
        if f"({d}, -1)" in expr and d % len(shape) == len(shape) - 1:
            expr = expr.replace(f"({d}, -1)", f"({d},)")  # a dim may not repeat
    elif kind == "elementwise":
        expr = draw(st.sampled_from(ELEMENTWISE))
    else:
        r = draw(st.sampled_from(["mean", "sum", "none"]))
        expr = draw(st.sampled_from(LOSSES)).format(r=r)
    return setup, expr, draw(st.booleans())


@settings(
    max_examples=80,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(cases())
def test_double_backward_graph_fuzz(real_torch, case):
    setup, expr, live_grad = case
    compare(_program(setup, expr, live_grad), real_torch, rtol=1e-9, atol=1e-12)
