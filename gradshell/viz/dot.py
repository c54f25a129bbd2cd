"""`%graph out --dot FILE` / `--svg FILE`: the grad_fn graph as Graphviz DOT, and as SVG
when Graphviz's `dot` program is installed (a clear way to get it when it is not).

Edges point the way the forward pass went (input → op), as torchviz draws them, and
carry the index of the edge in the op's `next_functions`.
"""

from __future__ import annotations

from typing import Any

from gradshell.core.autograd import AccumulateGrad
from gradshell.core.tensor import Tensor
from gradshell.viz import host
from gradshell.viz.common import Namer, compact, display_name, shape_text
from gradshell.viz.graph import node_ids, saved_brief

#: What to tell a learner whose machine lacks Graphviz.
GRAPHVIZ_HELP = (
    "Graphviz's `dot` program was not found on PATH, so no SVG was made.\n"
    "Install Graphviz to render graphs:\n"
    "  Debian/Ubuntu: sudo apt install graphviz\n"
    "  Fedora:        sudo dnf install graphviz\n"
    "  macOS:         brew install graphviz\n"
    "  conda:         conda install -c conda-forge graphviz\n"
    "  Windows/other: https://graphviz.org/download/\n"
    "Or write DOT with `%graph OUT --dot FILE` and render it elsewhere "
    "(`dot -Tsvg FILE -o graph.svg`)."
)


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def to_dot(t: Tensor, namer: Namer, namespace: dict | None = None) -> str:
    """The graph behind `t` as a Graphviz DOT document."""
    name = namer.label(t)
    lines = [
        f"digraph {_quote('grad_fn graph of ' + name)} {{",
        "  rankdir=BT;",
        '  node [shape=box, style="rounded,filled", fillcolor="#f4f4f4", fontname="Helvetica"];',
        '  edge [fontname="Helvetica", fontsize=10];',
    ]
    root = t.grad_fn
    if root is None:
        label = f"{name}\n{shape_text(tuple(t.shape))} {t.dtype.name}"
        if t.requires_grad:
            label += "\n(a leaf: no grad_fn)"
        else:
            label += "\n(does not require grad: no graph)"
        lines.append(f"  n0 [label={_quote(label)}];")
        lines.append("}")
        return "\n".join(lines) + "\n"
    ids = node_ids(root)
    constants = 0
    for node, k in ids.items():
        if node.__class__ is AccumulateGrad:
            v = node.variable
            label = f"AccumulateGrad\n{namer.label(v)}\n{shape_text(tuple(v.shape))} {v.dtype.name}"
            if v.numel() <= 16:
                label += f"\nvalue {compact(v)}"
                g = v._grad
                label += f"\ngrad {'None' if g is None else compact(g)}"
            lines.append(f'  n{k} [label={_quote(label)}, fillcolor="#cfe8ff"];')
            continue
        label = display_name(node)
        out = namer.node_output(node)
        if out:
            label += f"\n→ {out}"
        saved = saved_brief(node, namer)
        if saved:
            label += f"\n{saved}"
        color = ', fillcolor="#d9f2d9"' if node is root else ""
        lines.append(f"  n{k} [label={_quote(label)}{color}];")
        for i, (nxt, _) in enumerate(node.next_functions):
            if nxt is None:
                constants += 1
                lines.append(
                    f'  c{constants} [label="constant / no grad", shape=plaintext, '
                    'style="", fontcolor="#999999"];'
                )
                lines.append(
                    f'  c{constants} -> n{k} [label="[{i}]", style=dashed, color="#999999"];'
                )
            else:
                lines.append(f'  n{ids[nxt]} -> n{k} [label="[{i}]"];')
    lines.append("}")
    return "\n".join(lines) + "\n"


def write_dot(text: str, path: str, files: Any, *, force: bool = False) -> str:
    """Write DOT text to `path` through the session's file service (`force`: over a file
    gradshell did not write); returns the line to show."""
    try:
        shown = files.write_text(path, text, force=force)
    except host.current.file_error as exc:
        host.usage(str(exc))
    return f"wrote the graph to {shown} (Graphviz DOT)"


def write_svg(text: str, path: str, files: Any, *, force: bool = False) -> str:
    """Render DOT text to an SVG file with Graphviz; returns the line to show."""
    try:
        shown = files.write_svg(path, text, force=force)
    except host.current.file_error as exc:
        if str(exc) == host.current.graphviz_missing:
            return GRAPHVIZ_HELP
        host.usage(str(exc))
    return f"wrote the graph to {shown} (SVG, rendered by Graphviz)"


__all__ = ["GRAPHVIZ_HELP", "to_dot", "write_dot", "write_svg"]
