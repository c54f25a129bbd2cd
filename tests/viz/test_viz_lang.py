"""`%lang zh` reaches every view of the visual channel (panels, %ledger, %graph,
%explain), and a panel that fails says so instead of leaving a silent gap."""

from __future__ import annotations

import re

import pytest

from gradshell.viz import panels

ENGLISH_CHROME = re.compile(
    r"first gradient|backward #|zeroed|every change|grad_fn graph|what out|why |each of|"
    r"\bfrom \w|\(leaf\)|\bvalue \[|set to None|gradients recorded|shares data|is a leaf|"
    r"used again|saved |does not require"
)


@pytest.fixture
def zh(vs):
    vs.run_cell("%lang zh")
    return vs


def test_panels_ledger_graph_and_explain_in_chinese(zh):
    out = []
    for cell in (
        "x = torch.ones(2, 2, requires_grad=True)",
        "out = ((x + 2) * (x + 2) * 3).mean()",
        "out.backward()",
        "(x * 2).sum().backward()",
        "x.grad.zero_()",
        "%ledger x",
        "%ledger",
        "%graph out",
        "%explain out",
        "d = x.detach()",
        "%graph (x * x).sum()",
        "%graph x",
        "%graph d",
    ):
        r = zh.run_cell(cell)
        assert r.error is None, r.output
        out.append(r.visual)
    text = "\n".join(out)
    assert "第一次得到梯度" in text and "第 1 次反向传播" in text and "全零" in text
    assert "清零" in text and "grad_fn 计算图" in text and "为什么 ∂out/∂x 是 4.5" in text
    found = ENGLISH_CHROME.findall(text)
    assert found == [], found


def test_explain_with_a_gradient_argument_and_a_reused_input_in_chinese(zh):
    for cell in (
        "x = torch.tensor([2., 2., 2.], requires_grad=True)",
        "y = x * x",
        "y.backward(torch.tensor([0.1, 1.0, 10.0]))",
    ):
        assert zh.run_cell(cell).error is None
    text = zh.run_cell("%explain y").visual
    assert "传给 backward 的梯度" in text and "用了两次 x" in text
    assert "the gradient given" not in text and "twice" not in text


def test_english_stays_english(vs):
    vs.run_cell("x = torch.ones(2, requires_grad=True)")
    r = vs.run_cell("x.sum().backward()")
    assert "(first gradient)" in r.visual and "backward #1" in r.visual


def test_a_failing_panel_says_so(vs, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(panels, "changes_view", broken)
    vs.run_cell("x = torch.ones(2, requires_grad=True)")
    r = vs.run_cell("x.sum().backward()")
    assert r.error is None and r.output == ""
    assert "panel failed: RuntimeError: boom" in r.visual
    monkeypatch.undo()
    r = vs.run_cell("x.sum().backward()")  # the next statement draws panels again
    assert "backward #2" in r.visual
