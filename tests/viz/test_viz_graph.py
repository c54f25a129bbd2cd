"""%graph in the terminal, DOT export, and SVG through Graphviz (or how to get it)."""

from __future__ import annotations

import os
import stat

from gradshell.viz import dot as dotmod
from gradshell.viz.common import Namer
from gradshell.viz.magics import state_of


def setup(vs):
    for line in (
        "x = torch.ones(2, 2, requires_grad=True)",
        "y = x + 2",
        "z = y * y * 3",
        "out = z.mean()",
        "xd = x.detach()",
    ):
        assert vs.run_cell(line).error is None


def test_terminal_graph_shows_names_indices_leaves_and_cut_offs(vs):
    setup(vs)
    text = vs.run_cell("%graph out").visual
    assert "#1 MeanBackward0 → out" in text
    assert "[0] #2 MulBackward0 → z  (saved other=3)" in text
    assert "[1] #4 AddBackward0 (see #4: this input is used again)" in text
    assert "AccumulateGrad → x  [2, 2] float32  value [[1., 1.], [1., 1.]]  grad None" in text
    assert "None ✂ no gradient flows here: the number 3" in text
    assert "xd shares data with x but is outside the graph" in text


def test_graph_after_backward_shows_freed_buffers_and_grads(vs):
    setup(vs)
    vs.run_cell("out.backward()")
    state_of(vs).width = 160  # room for the leaf's line
    text = " ".join(vs.run_cell("%graph out").visual.split())
    assert "MulBackward0 → z (saved values freed by backward())" in text
    assert "grad [[4.5000, 4.5000], [4.5000, 4.5000]]" in text


def test_legacy_graph_keeps_saved_numbers_after_backward(legacy):
    setup(legacy)
    legacy.run_cell("out.backward()")
    text = legacy.run_cell("%graph out").visual
    assert "MulConstantBackward → z  (saved other=3 (tensors freed by backward))" in text


def test_dot_export(vs, tmp_path):
    setup(vs)
    path = tmp_path / "g.dot"
    r = vs.run_cell(f"%graph out --dot {path}")
    assert r.output == f"wrote the graph to {path} (Graphviz DOT)\n"
    text = path.read_text()
    assert text.startswith('digraph "grad_fn graph of out" {')
    assert 'n1 [label="MeanBackward0\\n→ out"' in text
    assert 'n4 -> n3 [label="[0]"]' in text and 'n4 -> n3 [label="[1]"]' in text
    assert "AccumulateGrad\\nx\\n[2, 2] float32" in text
    assert text.rstrip().endswith("}")
    assert text.count("{") == text.count("}")


def test_svg_without_graphviz_says_how_to_get_it(vs, tmp_path, monkeypatch):
    setup(vs)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    r = vs.run_cell(f"%graph out --svg {tmp_path / 'g.svg'}")
    assert "Graphviz's `dot` program was not found on PATH" in r.output
    assert "sudo apt install graphviz" in r.output and "brew install graphviz" in r.output
    assert not (tmp_path / "g.svg").exists()


def test_svg_with_graphviz_runs_dot(vs, tmp_path, monkeypatch):
    setup(vs)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "dot"
    # a stand-in for Graphviz: records its arguments and input, prints an SVG (gradshell
    # writes the file itself, under its own rules)
    fake.write_text(
        f'#!/bin/sh\necho "$@" > {tmp_path}/args\ncat > {tmp_path}/input\necho "<svg/>"\n'
    )
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", str(bin_dir) + os.pathsep + os.environ.get("PATH", ""))
    out = tmp_path / "g.svg"
    r = vs.run_cell(f"%graph out --svg {out}")
    assert r.output == f"wrote the graph to {out} (SVG, rendered by Graphviz)\n"
    assert (tmp_path / "args").read_text().split() == ["-Tsvg"]
    assert (tmp_path / "input").read_text().startswith("digraph")
    assert out.read_text().strip() == "<svg/>"
    assert out.stat().st_mode & 0o111 == 0


def test_graph_of_leaves_and_constants(vs):
    vs.run_cell("x = torch.ones(2, requires_grad=True)")
    vs.run_cell("c = torch.ones(2)")
    assert "is a leaf that requires grad" in vs.run_cell("%graph x").visual
    assert "does not require grad, so it has no graph" in vs.run_cell("%graph c").visual
    assert "n0 [label=" in dotmod.to_dot(vs.namespace["c"], Namer({}))


def test_huge_graph_is_cut_short_in_the_terminal(vs):
    vs.run_cell("x = torch.ones(1, requires_grad=True)")
    vs.run_cell("y = x\nfor i in range(200): y = y * 1.01\n")
    text = vs.run_cell("%graph y").visual
    assert "more node(s) not drawn" in text
