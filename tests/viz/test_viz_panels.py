"""Panels after statements that change a `.grad`, %viz modes, the cost of being off,
NO_COLOR, and the visual channel staying apart from the torch output."""

from __future__ import annotations

from gradshell.core import events
from gradshell.shell.session import Session
from gradshell.viz import common, recorder
from gradshell.viz.magics import state_of


def cells(s, *sources):
    return [s.run_cell(src) for src in sources]


def test_second_backward_shows_old_plus_new(legacy):
    *_, first, second = cells(
        legacy,
        "x = torch.tensor([2., 2., 2.], requires_grad=True)",
        "y = x * 2",
        "y.backward(torch.tensor([0.1, 1, 10]))",
        "y.backward(torch.tensor([0.1, 1, 10]))",
    )
    assert "None → [0.2000, 2.0000, 20.0000]" in first.visual
    assert (
        "[0.2000, 2.0000, 20.0000] + [0.2000, 2.0000, 20.0000] = [0.4000, 4.0000, 40.0000]"
        in second.visual
    )
    # the torch channel is exactly what PyTorch prints: nothing
    assert second.output == ""


def test_zero_and_none_panels(vs):
    *_, zero, none = cells(
        vs,
        "x = torch.tensor([1., 2.], requires_grad=True)",
        "(x * x).sum().backward()",
        "x.grad.zero_()",
        "x.grad = None",
    )
    assert "[2., 4.] → zeros" in zero.visual
    assert "zeroed: x.grad.zero_()" in zero.visual
    assert "[0., 0.] → None" in none.visual
    assert zero.output.startswith("tensor([0., 0.])")  # torch output unchanged


def test_grad_data_zero_is_attributed_to_the_leaf(vs):
    *_, r = cells(
        vs,
        "x = torch.tensor([1., 2.], requires_grad=True)",
        "(x * 3).sum().backward()",
        "g = x.grad.data",
        "g.zero_()",
    )
    assert "x.grad" in r.visual and "→ zeros" in r.visual


def test_zeroing_an_unrelated_tensor_shows_nothing(vs):
    *_, r = cells(vs, "t = torch.ones(3)", "t.zero_()")
    assert r.visual == ""


def test_statements_that_change_no_grad_show_nothing(vs):
    for r in cells(vs, "x = torch.ones(2, requires_grad=True)", "y = x + 2", "y"):
        assert r.visual == ""


def test_compact_mode_is_one_line(vs):
    *_, r = cells(
        vs,
        "%viz compact",
        "x = torch.tensor([1.], requires_grad=True)",
        "(x * 2).backward(retain_graph=True)",
    )
    assert r.visual == "x.grad  None → [2.]  (first gradient)\n"


def test_many_changes_in_one_statement_are_elided(vs):
    *_, r = cells(
        vs,
        "x = torch.tensor([1.], requires_grad=True)",
        "for i in range(10): (x * 2).backward()",
    )
    assert "more change(s)" in r.visual
    assert "[18.] + [2.] = [20.]" in r.visual  # the last one is always shown


def test_viz_off_unsubscribes_and_shows_nothing(new_session):
    s = new_session(unsafe=True)  # unsafe: the probe below is a plain Python function
    listening = []
    s.namespace["probe"] = lambda: listening.append(len(events.active))
    s.run_cell("x = torch.tensor([1.], requires_grad=True)")
    r = s.run_cell("probe(); (x * 2).backward()")
    assert listening == [1] and "None → [2.]" in r.visual
    s.run_cell("%viz off")
    r = s.run_cell("probe(); (x * 2).backward()")
    assert listening == [1, 0]  # nothing listens to the core while visualisation is off
    assert r.visual == ""
    on = s.run_cell("%viz on")
    assert "changed while recording was off" in on.visual  # the gap is not hidden
    r = s.run_cell("probe(); (x * 2).backward()")
    assert listening == [1, 0, 1]
    assert "[4.] + [2.] = [6.]" in r.visual
    book = state_of(s).recorder.ledger.find(s.namespace["x"])
    assert [e.kind for e in book.entries] == ["backward", "unseen", "backward"]


def test_subscribed_only_while_learner_code_runs(vs):
    vs.run_cell("x = torch.ones(1, requires_grad=True)")
    assert events.active == []  # not between cells


def test_no_viz_session_has_no_hooks_and_costs_nothing():
    s = Session(viz=False)
    keeper = s._gs_settings  # the session's own settings (print options, RNG...) only

    assert s.before_cell == [keeper.before] and s.after_cell == [keeper.after]
    s.run_cell("import torch")
    r = s.run_cell("x = torch.ones(2, requires_grad=True); (x * 2).sum().backward()")
    assert r.visual == ""
    r = s.run_cell("%ledger x")
    assert "visualisation is off" in r.output


def test_no_color_is_honoured(monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    assert common.color_wanted() is False
    from rich.text import Text

    assert "\x1b[" not in common.render(Text("x", style="bold red"))


def test_colour_when_asked():
    from rich.text import Text

    assert "\x1b[" in common.render(Text("x", style="bold red"), width=40, color=True)


def test_visual_goes_to_the_visual_channel_only(vs):
    *_, r = cells(vs, "x = torch.ones(2, requires_grad=True)", "x.sum().backward()", "%ledger x")
    assert r.output == ""
    assert "x.grad — every change" in r.visual


def test_ledger_notes_changes_made_while_off(vs):
    cells(
        vs,
        "x = torch.tensor([1.], requires_grad=True)",
        "(x * 2).backward()",
        "%viz off",
        "(x * 2).backward()",
    )
    r = vs.run_cell("%viz on")
    assert "changed while recording was off" in r.visual
    assert state_of(vs).recorder.ledger.total(vs.namespace["x"]).tolist() == [4.0]


def test_large_tensors_are_summarised_like_pytorch(vs):
    *_, r = cells(vs, "w = torch.ones(2000, requires_grad=True)", "(w * 2).sum().backward()")
    assert "[2., 2., 2., ..., 2., 2., 2.]" in r.visual


def test_reassigned_name_keeps_the_old_tensors_history_apart(vs):
    cells(
        vs,
        "x = torch.ones(1, requires_grad=True)",
        "x.sum().backward()",
        "x = torch.ones(1, requires_grad=True)",
    )
    r = vs.run_cell("%ledger x")
    assert "no recorded changes" in r.visual


def test_a_failing_listener_never_breaks_backward(vs, monkeypatch):
    def boom(self, ev):
        raise ValueError("boom")

    monkeypatch.setitem(recorder._HANDLERS, events.GradAccumulated, boom)
    vs.run_cell("x = torch.ones(2, requires_grad=True)")
    r = vs.run_cell("(x * 2).sum().backward()")
    assert r.error is None
    assert vs.run_cell("x.grad").output == "tensor([2., 2.])\n"
    assert (
        "recording stopped after an internal error: ValueError: boom" in vs.run_cell("%viz").output
    )
    assert events.active == []


def test_configure_for_lessons(vs):
    from gradshell.viz import configure

    configure(vs, xmode="explain", lang="zh", mode="compact")
    vs.run_cell("x = torch.ones(3, requires_grad=True)")
    r = vs.run_cell("(x * 2).backward()")
    assert "发生了什么" in r.visual
    try:
        configure(vs, lang="fr")
    except ValueError as exc:
        assert "lang" in str(exc)
    else:
        raise AssertionError("an unknown language must be refused")


def test_model_like_zero_grad_is_recorded(vs):
    vs.run_cell(
        "class M:\n"
        "    def __init__(self):\n"
        "        self.w = torch.ones(2, requires_grad=True)\n"
        "    def zero_grad(self, set_to_none=True):\n"
        "        if set_to_none:\n"
        "            self.w.grad = None\n"
        "        else:\n"
        "            self.w.grad.zero_()\n"
    )
    vs.run_cell("m = M()")
    vs.run_cell("(m.w * 3).sum().backward()")
    r = vs.run_cell("m.zero_grad(set_to_none=False)")
    assert "m.w.grad" in r.visual and "[3., 3.] → zeros" in r.visual
    assert "zeroed: m.zero_grad(set_to_none=False) → self.w.grad.zero_()" in r.visual
    vs.run_cell("(m.w * 3).sum().backward()")
    r = vs.run_cell("m.zero_grad()")
    assert "[3., 3.] → None" in r.visual


def test_large_snapshots_shrink_to_what_a_summarised_print_shows(monkeypatch):
    import numpy as np

    from gradshell.printing.options import printoptions
    from gradshell.viz import ledger

    monkeypatch.setattr(ledger, "LARGE_BUDGET", 1)  # every large snapshot shrinks at once
    rng = np.random.default_rng(0)
    for shape in [(5000,), (70, 80), (3, 40, 50)]:
        values = rng.standard_normal(shape).astype(np.float32)
        expected = common.compact(values)
        kept = ledger.Snap(values)
        ledger.Snap(values * 2)  # pushes the first one out of the budget
        assert kept.array is None and kept.edges is not None
        with printoptions(threshold=10**9, edgeitems=5):  # options changed later
            assert kept.render() == expected
        assert kept.edges is None  # rendered once, then only the text is kept


def test_settings_made_before_the_plugins_load_are_kept():
    s = Session()
    state = state_of(s)
    state.width, state.color, state.xmode = 33, False, "explain"
    s.run_cell("import torch")  # the first input loads the plugins and installs the hooks
    s.run_cell("import torch")
    assert state_of(s) is state and state.xmode == "explain"
    assert s.before_cell.count(state.before_cell) == 1
    s.run_cell("x = torch.ones(1, requires_grad=True)")
    r = s.run_cell("(x * 2).sum().backward()")
    assert max(len(line) for line in r.visual.splitlines()) <= 33


def test_a_failed_backward_is_not_counted(vs):
    for cell in ("x = torch.ones(2, requires_grad=True)", "z = (x * 3).sum()"):
        vs.run_cell(cell)
    assert "backward #1" in vs.run_cell("z.backward()").visual
    assert vs.run_cell("z.backward()").error is not None  # the graph was freed
    assert vs.run_cell("(x * 2).backward()").error is not None  # not a scalar
    assert "backward #2: x.sum().backward()" in vs.run_cell("x.sum().backward()").visual


def test_viz_on_shows_what_changed_while_off_at_once(vs):
    for cell in ("x = torch.ones(2, requires_grad=True)", "x.sum().backward()", "%viz off"):
        vs.run_cell(cell)
    vs.run_cell("x.sum().backward()")
    on = vs.run_cell("%viz on")
    assert "[1., 1.] → [2., 2.]  (changed while recording was off)" in on.visual
    assert vs.run_cell("a = 1").visual == ""  # an unrelated statement shows nothing


def test_two_paths_through_nodes_that_read_the_same_are_told_apart():
    """`(x + 2) * (x + 2)`: two unnamed AddBackward0 nodes each add to x.grad; the panel
    numbers them instead of showing two identical lines."""
    from gradshell.shell.session import Session

    session = Session(viz=True)
    session.run_cell("import torch\nx = torch.ones(2, 2, requires_grad=True)")
    session.run_cell("out = ((x + 2) * (x + 2) * 3).mean()")
    shown = session.run_cell("out.backward()").visual
    assert "from AddBackward0 #1, input 0" in shown
    assert "from AddBackward0 #2, input 0" in shown
    named = Session(viz=True)
    named.run_cell("import torch\nx = torch.ones(2, requires_grad=True)")
    named.run_cell("a = x * 2\nb = x * 3")
    shown = named.run_cell("(a + b).sum().backward()").visual
    assert "Backward0 #1" not in shown  # nodes that read differently keep their labels
