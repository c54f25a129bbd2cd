"""%explain / %step: the engine's order, previews that change nothing, recorded passes,
nodes without a formula, formulas that would be wrong, usage messages."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from gradshell import torch as gt
from gradshell.core import events
from gradshell.viz import formulas
from gradshell.viz.common import Namer
from gradshell.viz.explain import Step, build, preview

OPS = ("{} + {}", "{} * {}", "({}).sin()", "({}) * 2", "({})[0:2]", "({}).cumsum(0)", "{} - {}")


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(OPS), st.integers(0, 30), st.integers(0, 30)),
        min_size=1,
        max_size=8,
    )
)
def test_preview_runs_nodes_in_the_engines_order(op_list):
    a = gt.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    b = gt.tensor([0.5, -1.0, 2.0, 0.25], requires_grad=True)
    pool = [a, b]
    for op, i, j in op_list:
        x, y = pool[i % len(pool)], pool[j % len(pool)]
        if x.shape != y.shape:
            y = x
        pool.append(eval(op.format("x", "y"), {"x": x, "y": y}))  # noqa: S307
    out = pool[-1].sum() + pool[-2].sum()
    runs, _ = preview(out, gt.tensor(1.0))
    previewed = [r[0] if isinstance(r, tuple) else ("acc", id(r.tensor)) for r in runs]
    seen = []

    def listen(ev):
        if isinstance(ev, events.NodeRun):
            seen.append(ev.node)
        elif isinstance(ev, events.GradAccumulated):
            seen.append(("acc", id(ev.tensor)))

    stop = events.subscribe(listen)
    try:
        out.backward()
    finally:
        stop()
    assert previewed == seen


def test_preview_changes_nothing():
    x = gt.tensor([1.0, 2.0], requires_grad=True)
    h = x * 3
    h.retain_grad()
    calls = []
    x.register_hook(lambda g: calls.append(g))
    out = (h * h).sum()
    ex = build(out, Namer({"x": x, "h": h, "out": out}), grad=gt.tensor(1.0))
    assert x.grad is None and h.grad is None and calls == []
    assert any("hooks" in n for n in ex.notes)
    # the graph is intact: a real backward still works afterwards
    out.backward()
    np.testing.assert_allclose(x.grad.numpy(), [18.0, 36.0])


def test_recorded_pass_is_explained_after_backward(vs):
    for line in (
        "x = torch.ones(2, 2, requires_grad=True)",
        "out = ((x + 2) * (x + 2) * 3).mean()",
        "out.backward()",
    ):
        vs.run_cell(line)
    r = vs.run_cell("%explain out")
    assert "what out.backward() did (backward #1 — out.backward())" in r.visual
    assert "x.grad += 4.5" in r.visual
    # a preview of the same graph now fails clearly: its saved values were freed
    r = vs.run_cell("%explain out --preview")
    assert "saved values were freed" in r.output


def test_node_without_formula_is_shown_plainly(vs):
    vs.run_cell("x = torch.tensor([1., 2., 3.], requires_grad=True)")
    r = vs.run_cell("%explain x[[2, 0, 0]].sum()")  # IndexBackward0: no formula, on purpose
    assert "IndexBackward0" in r.visual
    assert "no formula available for IndexBackward0" in r.visual
    assert "[2., 0., 1.]" in r.visual


def test_a_wrong_formula_is_never_shown(monkeypatch):
    def wrong(c):
        return formulas.Formula(
            f"sin({c.sym(0)})", [formulas.Local("sin(x)", np.sin(c.saved("self")))]
        )

    monkeypatch.setitem(formulas._TABLE, "SinBackward0", wrong)
    x = gt.tensor([0.5, 1.0], requires_grad=True)
    out = x.sin().sum()
    ex = build(out, Namer({"x": x}), grad=gt.tensor(1.0))
    (step,) = [s for s in ex.steps if isinstance(s, Step) and s.node.name() == "SinBackward0"]
    assert step.edges[0].local is None
    assert "does not match" in step.edges[0].note
    assert ex.chains == []  # no summary built on it either


def test_explain_usage_messages(vs):
    vs.run_cell("x = torch.ones(3, requires_grad=True)")
    vs.run_cell("y = x * 2")
    assert "not a scalar" in vs.run_cell("%explain y").output
    assert "does not require grad" in vs.run_cell("%explain torch.ones(2)").output
    assert "NameError" in vs.run_cell("%explain nothing_here").output
    r = vs.run_cell("%explain y torch.ones(3)")
    assert "x.grad would += 2" in r.visual


def test_step_without_a_terminal_shows_every_step(vs):
    vs.run_cell("x = torch.ones(2, 2, requires_grad=True)")
    vs.run_cell("out = (x * 3).mean()")
    r = vs.run_cell("%step out")
    assert "1. MeanBackward0" in r.visual and "3. AccumulateGrad" in r.visual


def test_acc_steps_report_first_and_later_gradients(vs):
    vs.run_cell("x = torch.tensor([1.], requires_grad=True)")
    vs.run_cell("y = x * 2")
    vs.run_cell("y.backward(retain_graph=True)")
    r = vs.run_cell("%explain y --preview")
    assert "x.grad would += 2   (2 → 4)" in r.visual


def test_a_failed_second_pass_does_not_hide_the_one_that_worked(vs):
    vs.run_cell("x = torch.ones(2, requires_grad=True)")
    vs.run_cell("y = (x * x).sum()")
    vs.run_cell("y.backward()")
    assert vs.run_cell("y.backward()").error is not None  # buffers freed
    r = vs.run_cell("%explain y")
    assert "backward #1" in r.visual and "x.grad += 2" in r.visual


def test_a_broadcast_input_shows_the_summing_step(vs):
    for cell in (
        "v = torch.tensor([1., 2., 3.], requires_grad=True)",
        "s = torch.tensor(0.5, requires_grad=True)",
        "loss = (v * s).mean()",
        "loss.backward()",
    ):
        vs.run_cell(cell)
    text = vs.run_cell("%explain loss").visual
    assert "→ s: ∂loss/∂s = sum(0.3333 · [1., 2., 3.]) = 2" in text
    assert "s was broadcast to 3 elements" in text
    assert "0.3333 · [1., 2., 3.] = 2" not in text.replace("sum(0.3333 · [1., 2., 3.]) = 2", "")


def test_the_learners_vector_keeps_its_name_through_matmul(vs):
    for cell in (
        "x = torch.ones(3)",
        "w = torch.ones(3, 2, requires_grad=True)",
        "b = torch.zeros(2, requires_grad=True)",
        "out = (torch.matmul(x, w) + b).sum()",
    ):
        vs.run_cell(cell)
    graph = vs.run_cell("%graph out").visual
    assert "shares data" not in graph  # matmul's own view of x is not the learner's doing
    vs.run_cell("out.backward()")
    text = vs.run_cell("%explain out").visual
    assert "x @ w" in text and "c @ w" not in text and "— squeeze(" not in text
    assert "→ w: xᵀ @ grad" in text
    assert "no formula available" not in text


def test_a_detached_copy_is_still_pointed_out(vs):
    for cell in (
        "x = torch.ones(3, requires_grad=True)",
        "d = x.detach()",
        "out = (x * 2).sum()",
    ):
        vs.run_cell(cell)
    assert "d shares data with x" in vs.run_cell("%graph out").visual


def test_step_never_swallows_an_input_typed_at_its_prompt(vs):
    """At `%step`'s prompt, a command instead of Enter stops the stepping and says that
    the command did not run (it used to be taken as 'next step' without a word)."""
    vs.run_cell("x = torch.ones(2, 2, requires_grad=True)")
    vs.run_cell("out = (x * 3).mean()")
    typed = iter(["", "%graph out"])
    vs.interactive = True
    vs.read_input = lambda prompt="": next(typed)
    try:
        r = vs.run_cell("%step out")
    finally:
        vs.interactive = False
        del vs.read_input
    shown = r.output + r.visual
    assert "step 2/3" in shown and "step 3/3" not in shown
    assert "`%graph out` did not run: type it again at the prompt" in shown
