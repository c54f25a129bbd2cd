"""The ledger's totals equal the real `.grad` on generated programs: shared
subexpressions, repeated backward with retain_graph, zero_ (also through .data),
`.grad = None`, several statements per cell."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gradshell.viz.magics import state_of

LEAVES = ("a", "b")
BINARY = ("+", "-", "*")
UNARY = ("({}).sin()", "({}).tanh()", "({}) * 2", "({}) ** 2", "({}).exp() * 0.1")

ops = st.lists(
    st.tuples(st.sampled_from(BINARY + UNARY), st.integers(0, 50), st.integers(0, 50)),
    min_size=1,
    max_size=7,
)
actions = st.lists(
    st.tuples(
        st.sampled_from(("backward", "backward2", "zero", "data_zero", "none", "mul")),
        st.sampled_from(LEAVES),
    ),
    min_size=1,
    max_size=8,
)


def program(op_list) -> tuple[list[str], int]:
    """Lines building t2, t3, ... from a, b (operands picked again and again)."""
    pool = list(LEAVES)
    lines = [
        "a = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)",
        "b = torch.tensor([1.5, 0.25, -0.75], requires_grad=True)",
    ]
    for k, (op, i, j) in enumerate(op_list):
        x, y = pool[i % len(pool)], pool[j % len(pool)]
        name = f"t{k + 2}"
        expr = f"{x} {op} {y}" if op in BINARY else op.format(x)
        lines.append(f"{name} = {expr}")
        pool.append(name)
    # Two roots that both use every leaf, so each backward reaches a and b.
    last = pool[-1]
    lines.append(f"out = ({last} + a * b).sum()")
    lines.append(f"out2 = ({last} * a + b).mean()")
    return lines, len(pool)


def action_code(kind: str, leaf: str) -> str:
    if kind == "backward":
        return "out.backward(retain_graph=True)"
    if kind == "backward2":
        return "out2.backward(retain_graph=True)"
    if kind == "zero":
        return f"if {leaf}.grad is not None: {leaf}.grad.zero_()"
    if kind == "data_zero":
        return f"if {leaf}.grad is not None: {leaf}.grad.data.zero_()"
    if kind == "mul":  # an in-place change no event announces
        return f"if {leaf}.grad is not None: {leaf}.grad.mul_(3)"
    return f"{leaf}.grad = None"


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(ops, actions, st.booleans())
def test_ledger_totals_equal_the_real_grad(new_session, op_list, acts, one_cell):
    s = new_session()
    lines, _ = program(op_list)
    for line in lines:
        r = s.run_cell(line)
        assert r.error is None, r.output
    codes = [action_code(kind, leaf) for kind, leaf in acts]
    cells = ["\n".join(codes) + "\n"] if one_cell else codes
    for cell in cells:
        r = s.run_cell(cell)
        assert r.error is None, r.output
    ledger = state_of(s).recorder.ledger
    for name in LEAVES:
        leaf = s.namespace[name]
        live = leaf._grad
        book = ledger.find(leaf)
        if book is None:
            assert live is None
            continue
        total = ledger.total(leaf)
        if live is None:
            assert total is None
        else:
            np.testing.assert_array_equal(total, live.numpy())
        for e in book.entries:
            if e.kind == "backward":
                before = 0 if e.before is None else e.before.array
                np.testing.assert_allclose(before + e.added.array, e.after.array, rtol=1e-6)
                if e.shares:
                    shares = sum(sh.value.array for sh in e.shares)
                    np.testing.assert_allclose(shares, e.added.array, rtol=1e-5, atol=1e-6)
            if e.kind in ("zero",):
                assert not np.any(e.after.array)


def test_shared_subexpression_shares_are_per_path(vs):
    s = vs
    for line in (
        "a = torch.tensor([1., 2.], requires_grad=True)",
        "b = a * a",
        "c = b + b",
        "c.sum().backward()",
    ):
        assert s.run_cell(line).error is None
    book = state_of(s).recorder.ledger.find(s.namespace["a"])
    (entry,) = book.entries
    # a * a sends two gradients into a's AccumulateGrad, one per operand
    assert len(entry.shares) == 2
    assert [sh.label for sh in entry.shares] == [
        "from b (MulBackward0, input 0)",
        "from b (MulBackward0, input 1)",
    ]
    np.testing.assert_allclose(entry.after.array, [4.0, 8.0])


def test_retain_grad_tensors_are_recorded(vs):
    s = vs
    for line in (
        "x = torch.tensor([1., 2.], requires_grad=True)",
        "h = x * 3",
        "h.retain_grad()",
        "h.sum().backward(retain_graph=True)",
        "h.sum().backward()",
    ):
        assert s.run_cell(line).error is None
    h = s.namespace["h"]
    book = state_of(s).recorder.ledger.find(h)
    assert [e.kind for e in book.entries] == ["retain", "retain"]
    np.testing.assert_array_equal(state_of(s).recorder.ledger.total(h), h.grad.numpy())
