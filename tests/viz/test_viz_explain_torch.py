"""%explain's numbers equal the gradients PyTorch computes (differential, real torch).

Three checks: every formula's local derivative equals PyTorch's derivative of that op;
on generated programs the incoming gradient `%explain` shows at each node equals the
gradient PyTorch gives that node's tensor (retain_grad); and redoing the whole pass
from nothing but the shown local derivatives reproduces PyTorch's leaf gradients (and
the chain summary equals them too)."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gradshell import torch as gt
from gradshell.ops.explanation import sum_to
from gradshell.viz.common import Namer
from gradshell.viz.explain import AccStep, Step, build

torch = pytest.importorskip("torch")

# op name -> (expression in x, values of x inside the op's domain)
UNARY = {
    "exp": ("x.exp()", [-1.0, 0.5, 2.0]),
    "expm1": ("x.expm1()", [-1.0, 0.5, 2.0]),
    "log": ("x.log()", [0.5, 1.5, 3.0]),
    "log2": ("x.log2()", [0.5, 1.5, 3.0]),
    "log10": ("x.log10()", [0.5, 1.5, 3.0]),
    "log1p": ("x.log1p()", [0.5, 1.5, 3.0]),
    "sqrt": ("x.sqrt()", [0.5, 1.5, 3.0]),
    "rsqrt": ("x.rsqrt()", [0.5, 1.5, 3.0]),
    "reciprocal": ("x.reciprocal()", [0.5, -1.5, 3.0]),
    "abs": ("x.abs()", [-0.5, 1.5, -3.0]),
    "sin": ("x.sin()", [-1.0, 0.5, 2.0]),
    "cos": ("x.cos()", [-1.0, 0.5, 2.0]),
    "tan": ("x.tan()", [-1.0, 0.5, 1.2]),
    "tanh": ("x.tanh()", [-1.0, 0.5, 2.0]),
    "sigmoid": ("x.sigmoid()", [-1.0, 0.5, 2.0]),
    "relu": ("x.relu()", [-1.0, 0.5, 2.0]),
    "erf": ("x.erf()", [-1.0, 0.5, 2.0]),
    "sinh": ("x.sinh()", [-1.0, 0.5, 2.0]),
    "cosh": ("x.cosh()", [-1.0, 0.5, 2.0]),
    "asin": ("x.asin()", [-0.5, 0.25, 0.75]),
    "acos": ("x.acos()", [-0.5, 0.25, 0.75]),
    "neg": ("-x", [-1.0, 0.5, 2.0]),
    "pow": ("x ** 3", [-1.0, 0.5, 2.0]),
    "square": ("x ** 2", [-1.0, 0.5, 2.0]),
    "rpow": ("2 ** x", [-1.0, 0.5, 2.0]),
    "mul_const": ("x * 3", [-1.0, 0.5, 2.0]),
    "div_const": ("x / 4", [-1.0, 0.5, 2.0]),
    "add_const": ("x + 2", [-1.0, 0.5, 2.0]),
    "sub_const": ("x - 2", [-1.0, 0.5, 2.0]),
    "rsub": ("2 - x", [-1.0, 0.5, 2.0]),
    "self_mul": ("x * x", [-1.0, 0.5, 2.0]),
    "self_add": ("x + x", [-1.0, 0.5, 2.0]),
    "floor": ("x.floor()", [-1.2, 0.5, 2.7]),
    "sign": ("x.sign()", [-1.2, 0.5, 2.7]),
    "clone": ("x.clone()", [-1.2, 0.5, 2.7]),
}


def _run(lib, expr: str, values: list[float]):
    x = lib.tensor(values, requires_grad=True)
    y = eval(expr, {"x": x})  # noqa: S307 - fixed test expressions
    return x, y


@pytest.mark.parametrize("name", sorted(UNARY))
def test_each_formula_equals_pytorchs_derivative(name):
    expr, values = UNARY[name]
    x, y = _run(gt, expr, values)
    ex = build(y.sum(), Namer({"x": x, "y": y}), grad=gt.tensor(1.0))
    (step,) = [s for s in ex.steps if isinstance(s, Step) and s.node is y.grad_fn]
    edges = [e for e in step.edges if e.target is not None]
    assert edges and all(e.local is not None for e in edges), f"{name}: formula not shown"
    # the local derivative with respect to x: all edges into x together
    local = sum(np.broadcast_to(np.asarray(e.local.value, np.float64), (3,)) for e in edges)
    tx, ty = _run(torch, expr, values)
    (expected,) = torch.autograd.grad(ty.sum(), tx)
    np.testing.assert_allclose(local, expected.numpy(), rtol=1e-5, atol=1e-6)
    assert x.grad is None  # %explain changed nothing


# --- generated programs ---------------------------------------------------------------------

BINARY = ("{} + {}", "{} - {}", "{} * {}", "{} / ({} ** 2 + 1)")
UNARY_OPS = (
    "({}).sin()",
    "({}).tanh()",
    "({}) * 0.5",
    "({}) ** 2",
    "({}).sigmoid()",
    "(({}) ** 2 + 1).log()",
    "(({}) ** 2 + 1).sqrt()",
    "-({})",
    "({}).exp() * 0.1",
    "({}).relu()",
    "({}).mean(0, keepdim=True)",
    "({}).sum(1, keepdim=True)",
)
programs = st.lists(
    st.tuples(st.sampled_from(BINARY + UNARY_OPS), st.integers(0, 40), st.integers(0, 40)),
    min_size=1,
    max_size=7,
)


def build_program(op_list) -> list[str]:
    pool = ["a", "b"]
    lines = []
    for k, (op, i, j) in enumerate(op_list):
        x, y = pool[i % len(pool)], pool[j % len(pool)]
        lines.append(f"t{k} = " + (op.format(x, y) if op in BINARY else op.format(x)))
        pool.append(f"t{k}")
    lines.append(f"out = ({pool[-1]} * a).mean() + (b * {pool[-2]}).sum()")
    return lines


def run_in(lib, lines: list[str], retain: bool) -> dict:
    ns = {
        "a": lib.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], requires_grad=True),
        "b": lib.tensor([[1.0, 0.3, -0.2], [0.7, -1.1, 0.4]], requires_grad=True),
    }
    for line in lines:
        exec(line, {}, ns)  # noqa: S102 - generated from a fixed grammar
        name = line.split(" = ")[0]
        if retain and ns[name].requires_grad:
            ns[name].retain_grad()
    return ns


@settings(max_examples=60, deadline=None)
@given(programs)
def test_explain_matches_pytorch_on_generated_programs(op_list):
    lines = build_program(op_list)
    gs = run_in(gt, lines, retain=False)
    th = run_in(torch, lines, retain=True)
    th["out"].backward()
    out = gs["out"]
    ex = build(out, Namer(gs), grad=gt.tensor(1.0))
    by_node = {}
    for name, t in gs.items():
        if isinstance(t, gt.Tensor) and t.grad_fn is not None:
            by_node.setdefault(t.grad_fn, name)
    # 1. the incoming gradient shown at each node is PyTorch's gradient of its tensor
    for step in ex.steps:
        if isinstance(step, Step) and step.node in by_node:
            expected = th[by_node[step.node]].grad.numpy()
            np.testing.assert_allclose(step.grad_in, expected, rtol=1e-4, atol=1e-5)
    # 2. the leaves get PyTorch's gradients
    added = defaultdict(lambda: 0)
    for step in ex.steps:
        if isinstance(step, AccStep):
            added[id(step.tensor)] = added[id(step.tensor)] + step.added
    for name in ("a", "b"):
        np.testing.assert_allclose(added[id(gs[name])], th[name].grad.numpy(), rtol=1e-4, atol=1e-5)
    # 3. redo the pass from the shown local derivatives alone
    incoming = defaultdict(lambda: None)
    incoming[(out.grad_fn, 0)] = np.ones(())
    complete = True
    for step in ex.steps:
        if not isinstance(step, Step):
            continue
        g = incoming[(step.node, 0)]
        if g is None or not complete:
            complete = False
            break
        np.testing.assert_allclose(
            np.broadcast_to(g, step.grad_in.shape), step.grad_in, rtol=1e-4, atol=1e-5
        )
        for e in step.edges:
            if e.target is None or e.grad is None:
                continue
            if e.local is None:
                complete = False
                continue
            pred = sum_to(
                np.asarray(e.local.predict(np.asarray(g, np.float64)), np.float64), e.grad.shape
            )
            key = (e.target, e.target_nr)
            incoming[key] = pred if incoming[key] is None else incoming[key] + pred
    assert complete, "every op of these programs has a formula"
    for name in ("a", "b"):
        acc = gs[name]._accumulator()
        np.testing.assert_allclose(incoming[(acc, 0)], th[name].grad.numpy(), rtol=1e-4, atol=1e-5)
    # 4. a chain summary, when one is written, is PyTorch's gradient too
    for chain in ex.chains:
        np.testing.assert_allclose(
            chain.value, th[chain.leaf_label].grad.numpy(), rtol=1e-4, atol=1e-5
        )


def test_seed_000_chain_is_4_5_as_in_pytorch():
    lines = ["y = x + 2", "z = y * y * 3", "out = z.mean()"]
    gs = {"x": gt.ones(2, 2, requires_grad=True)}
    th = {"x": torch.ones(2, 2, requires_grad=True)}
    for line in lines:
        exec(line, {}, gs)  # noqa: S102
        exec(line, {}, th)  # noqa: S102
    th["out"].backward()
    ex = build(gs["out"], Namer(gs), grad=gt.tensor(1.0))
    (chain,) = ex.chains
    assert chain.symbolic == "1/4 · 3 · 2y"
    assert chain.numeric == "1/4 · 3 · 6"
    np.testing.assert_allclose(chain.value, th["x"].grad.numpy())


# (expression in a and b, values of a, values of b): every input edge gets its formula
BINARY_CASES = {
    "mul": ("a * b", [1.0, -2.0, 0.5], [3.0, 0.25, -1.0]),
    "div": ("a / b", [1.0, -2.0, 0.5], [3.0, 0.25, -1.0]),
    "add_alpha": ("torch.add(a, b, alpha=2)", [1.0, -2.0, 0.5], [3.0, 0.25, -1.0]),
    "sub_alpha": ("torch.sub(a, b, alpha=3)", [1.0, -2.0, 0.5], [3.0, 0.25, -1.0]),
    "pow": ("a ** b", [1.5, 2.0, 0.5], [3.0, 0.25, -1.0]),
    "dot": ("torch.dot(a, b)", [1.0, -2.0, 0.5], [3.0, 0.25, -1.0]),
    "mm": ("a.view(1, 3) @ b.view(3, 1)", [1.0, -2.0, 0.5], [3.0, 0.25, -1.0]),
    "mv": ("a.view(1, 3).expand(2, 3) @ b", [1.0, -2.0, 0.5], [3.0, 0.25, -1.0]),
    "view_t": ("(a.view(3, 1).t() * b).sum()", [1.0, -2.0, 0.5], [3.0, 0.25, -1.0]),
}


@pytest.mark.parametrize("name", sorted(BINARY_CASES))
def test_binary_formulas_reproduce_pytorchs_gradients(name):
    expr, av, bv = BINARY_CASES[name]
    ns = {"a": gt.tensor(av, requires_grad=True), "b": gt.tensor(bv, requires_grad=True)}
    out = eval(expr, {"torch": gt}, ns).sum()  # noqa: S307 - fixed test expressions
    ex = build(out, Namer(ns), grad=gt.tensor(1.0))
    incoming = defaultdict(lambda: None)
    incoming[(out.grad_fn, 0)] = np.ones(())
    for step in ex.steps:
        if not isinstance(step, Step):
            continue
        g = incoming[(step.node, 0)]
        for e in step.edges:
            if e.target is None or e.grad is None:
                continue
            assert e.local is not None, f"{name}: no formula for {step.node.name()} input {e.index}"
            pred = sum_to(np.asarray(e.local.predict(np.asarray(g, np.float64))), e.grad.shape)
            key = (e.target, e.target_nr)
            incoming[key] = pred if incoming[key] is None else incoming[key] + pred
    tns = {"a": torch.tensor(av, requires_grad=True), "b": torch.tensor(bv, requires_grad=True)}
    eval(expr, {"torch": torch}, tns).sum().backward()  # noqa: S307
    for leaf in ("a", "b"):
        got = incoming[(ns[leaf]._accumulator(), 0)]
        np.testing.assert_allclose(got, tns[leaf].grad.numpy(), rtol=1e-5, atol=1e-6)
