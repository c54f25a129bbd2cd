"""`%explain`, `%step` and `%graph` on a very deep graph (20,000 multiplications) answer
instead of failing on Python's recursion limit, and constants show as written."""

from __future__ import annotations

from gradshell.ops.explanation import number
from gradshell.shell.session import Session

DEEP = (
    "import torch\nx = torch.ones(2, requires_grad=True)\ny = x\n"
    "for i in range(20000):\n    y = y * 1.0001\nz = y.sum()\n"
)


def test_explain_a_twenty_thousand_node_graph():
    session = Session(viz=True)
    session.run_cell(DEEP)
    result = session.run_cell("%explain z")
    out = result.output + result.visual
    assert "failed" not in out and "recursion" not in out
    assert "AccumulateGrad" in out
    assert "local ∂(x·1.0001)/∂x = 1.0001" in out


def test_graph_of_a_deep_graph_is_cut_with_a_note():
    session = Session(viz=True)
    session.run_cell(DEEP)
    result = session.run_cell("%graph z")
    out = result.output + result.visual
    assert "more node(s) not drawn" in out


def test_numbers_keep_short_constants_as_written():
    assert number(1.0001) == "1.0001"
    assert number(0.25) == "0.25"
    assert number(6.0) == "6"
    assert number(7.38905609893065) == "7.389"
    assert number(float.fromhex("0x1.99999ap-4")) == "0.1"  # float32's 0.1
