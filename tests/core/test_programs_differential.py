"""Hypothesis writes small autograd programs; gradshell and PyTorch must agree on every
value, gradient, dtype, node name, is_leaf, and on the error type and text."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.differential import compare

DTYPES = ["torch.float32", "torch.float64", "torch.int64", "torch.int32", "torch.bool"]
UNARY = ["exp", "log", "sqrt", "abs", "sin", "cos", "tanh", "sigmoid", "relu", "neg"]
REDUCE = ["sum()", "mean()", "sum(0)", "mean(-1)", "sum(0, keepdim=True)", "norm()"]
BINOPS = ["+", "-", "*", "/", "**"]
SCALARS = ["2", "0.5", "-1.5", "3", "True"]
METHODS = [
    "t()",
    "reshape(-1)",
    "clone()",
    "unsqueeze(0)",
    "detach()",
    "float()",
    "double()",
    "view(-1)",
    "flatten()",
    "squeeze()",
    "transpose(0, -1)",
    "contiguous()",
    "sum(-1)",
    "mean(0, keepdim=True)",
    "exp().log()",
    "pow(2)",
    "expand(2, *{x}.shape)",
    "__getitem__(0)",
    "__getitem__((Ellipsis, slice(None, None, 2)))",
    "__getitem__([0, 0])",
    "norm(dim=-1)",
    "abs().sqrt()",
    "long()",
    "t() @ {x}",
    "matmul({x})",
    "mul_(2)",
    "add_(1)",
    "zero_()",
]


@st.composite
def shapes(draw):
    """A base shape and a shape broadcastable against it (or, sometimes, not)."""
    base = draw(st.lists(st.integers(1, 3), min_size=0, max_size=3))
    other = list(base)
    if other and draw(st.booleans()):
        i = draw(st.integers(0, len(other) - 1))
        other[i] = draw(st.sampled_from([1, other[i], other[i] + 1]))
    if draw(st.booleans()):
        other = other[draw(st.integers(0, len(other))) :]
    return tuple(base), tuple(other)


@st.composite
def programs(draw):
    """Python source: make leaves, apply random ops, reduce, backward, read grads."""
    a_shape, b_shape = draw(shapes())
    lines = []
    for name, shape in (("a", a_shape), ("b", b_shape)):
        dtype = draw(st.sampled_from(DTYPES[:2] if draw(st.booleans()) else DTYPES))
        rg = dtype in ("torch.float32", "torch.float64") and draw(st.booleans())
        lo = draw(st.sampled_from(["0.5", "-2.0"]))
        lines.append(
            f"{name} = torch.linspace({lo}, 2.5, {max(1, _numel(shape))}, dtype=torch.float64)"
            f".reshape({shape}).to({dtype})"
        )
        if rg:
            lines.append(f"{name}.requires_grad_()")
    exprs = ["a", "b"]
    for i in range(draw(st.integers(1, 5))):
        kind = draw(st.sampled_from(["unary", "binary", "scalar", "rscalar", "method"]))
        x = draw(st.sampled_from(exprs))
        if kind == "unary":
            e = f"{x}.{draw(st.sampled_from(UNARY))}()"
        elif kind == "binary":
            y = draw(st.sampled_from(exprs))
            e = f"{x} {draw(st.sampled_from(BINOPS))} {y}"
        elif kind == "scalar":
            e = f"{x} {draw(st.sampled_from(BINOPS))} {draw(st.sampled_from(SCALARS))}"
        elif kind == "rscalar":
            e = f"{draw(st.sampled_from(SCALARS))} {draw(st.sampled_from(BINOPS))} {x}"
        else:
            e = f"{x}." + draw(st.sampled_from(METHODS)).replace("{x}", x)
        name = f"v{i}"
        lines.append(f"{name} = {e}")
        exprs.append(name)
    last = exprs[-1]
    lines.append(f"out = {last}.{draw(st.sampled_from(REDUCE))}")
    how = draw(st.sampled_from(["plain", "retain_twice", "grad", "nonscalar"]))
    if how == "plain":
        lines.append("out.backward()")
    elif how == "retain_twice":
        lines.append("out.backward(retain_graph=True); out.backward()")
    elif how == "grad":
        lines.append(
            "gs = torch.autograd.grad(out, [t for t in (a, b) if t.requires_grad], allow_unused=True)"
        )
    else:
        lines.append(f"{last}.backward(torch.ones_like({last}))")
    lines.append(
        "names = [t.grad_fn.name() if t.grad_fn is not None else None for t in ("
        + ", ".join(exprs)
        + ", out)]"
    )
    return "\n".join(lines)


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


@pytest.mark.usefixtures("real_torch")
@settings(
    max_examples=600,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    derandomize=True,
)
@given(programs())
def test_generated_programs_agree(program):
    torch = pytest.importorskip("torch")
    compare(program, torch, rtol=2e-4, atol=1e-5)
