"""`%graph out`: the grad_fn graph drawn in the terminal, without any external program.

Each node shows its PyTorch name, the learner's variable it produced, and what it saved
for backward; each edge its index in `next_functions`. Leaves (`AccumulateGrad`) show
the learner's name, shape, dtype, and for small tensors the value and `.grad`. Edges
that are None — inputs cut off by `no_grad`, `detach()` or that never required grad —
are marked, and variables that share data with the graph but are outside it are listed.
"""

from __future__ import annotations

from typing import Any

from gradshell.core.autograd import AccumulateGrad, SavedTensor
from gradshell.core.tensor import Tensor
from gradshell.viz.common import Namer, compact, display_name, number, shape_text
from gradshell.viz.words import word

#: Nodes drawn in the terminal before the rest is summarised.
MAX_NODES = 80
#: Leaves with at most this many elements show their values.
SMALL = 16


def node_ids(root: Any) -> dict:
    """Node -> number (1, 2, ...) in the order the drawing first meets them."""
    ids: dict = {}
    stack = [root]
    while stack:
        node = stack.pop()
        if node is None or node in ids:
            continue
        ids[node] = len(ids) + 1
        for nxt, _ in reversed(node.next_functions):
            if nxt is not None and nxt not in ids:
                stack.append(nxt)
    return ids


def tensor_brief(t: Any, namer: Namer) -> str:
    """'y [2, 2] float32' (name when known; the value too for one element)."""
    name = namer.tensor(t)
    desc = f"{shape_text(tuple(t.shape))} {t.dtype.name}"
    if t.numel() == 1:
        desc += f" = {compact(t)}"
    return f"{name} {desc}" if name else desc


#: Which saved value holds the operand on edge 0 / 1 of a binary op (when it is saved).
_OPERANDS = ("self", "other")


def none_edge_text(node: Any, i: int, namer: Namer) -> str:
    """Why edge `i` of `node` is None, naming the operand when the node saved it."""
    what = word(None, "constant")
    saved = node.saved_values or node.kept_after_free
    key = _OPERANDS[i] if i < len(_OPERANDS) else None
    # Binary ops save operand i as _OPERANDS[i] when the other operand needs its value.
    v = saved.get(key) if key is not None and len(node.next_functions) == 2 else None
    if isinstance(v, bool | int | float):
        what = word(None, "the_number", n=number(v))
    elif type(v) is SavedTensor and v.tensor is not None:
        name = namer.tensor(v.tensor)
        if name is not None:
            what = word(None, "no_require", name=name)
    return f"[{i}] None ✂ " + word(None, "no_flow", what=what)


def saved_brief(node: Any, namer: Namer) -> str | None:
    """What the node saved for backward, or that backward freed it."""
    if node.freed:
        parts = []
        for k in node.kept_after_free:
            try:  # the era decides whether a saved number outlives backward (0.2: yes)
                parts.append(f"{k}={number(node.saved(k))}")
            except Exception:
                continue
        if parts:
            return word(None, "saved_freed", parts=", ".join(parts))
        return word(None, "freed")
    saved = node.saved_values
    if not saved:
        return None
    parts = []
    for name, v in saved.items():
        if type(v) is SavedTensor:
            if v.tensor is not None:
                parts.append(f"{name}={tensor_brief(v.tensor, namer)}")
            else:
                parts.append(f"{name}={word(None, 'own_result')}")
        elif isinstance(v, bool | int | float):
            parts.append(f"{name}={number(v)}")
        else:
            parts.append(f"{name}={type(v).__name__}")
    return word(None, "saved", parts=", ".join(parts))


def leaf_brief(t: Any, namer: Namer) -> str:
    """'x  [2, 2] float32  value [[1., 1.], [1., 1.]]  grad None'."""
    text = f"{namer.label(t)}  {shape_text(tuple(t.shape))} {t.dtype.name}"
    if t.numel() <= SMALL:
        text += f"  {word(None, 'value')} {compact(t)}"
        g = t._grad
        text += f"  {word(None, 'grad')} {'None' if g is None else compact(g)}"
    return text


def node_title(node: Any, namer: Namer, nr: int = 0) -> str:
    """'MulBackward0 → z' / 'AccumulateGrad → x ...'."""
    if node.__class__ is AccumulateGrad:
        return f"AccumulateGrad → {leaf_brief(node.variable, namer)}"
    name = namer.node_output(node, nr)
    return f"{display_name(node)} → {name}" if name else display_name(node)


def cut_off(root: Any, namer: Namer, namespace: dict) -> list[str]:
    """Variables that share data with a tensor of the graph but are outside it."""
    graph_arrays = []
    for node in node_ids(root):
        if node.__class__ is AccumulateGrad:
            graph_arrays.append((node.variable, node.variable._data))
        for v in node.saved_values.values():
            if type(v) is SavedTensor and v.tensor is not None:
                graph_arrays.append((v.tensor, v.tensor._data))
    out = []
    seen: set[int] = set()
    for name, value in namespace.items():
        if name.startswith("_") or not isinstance(value, Tensor) or value.requires_grad:
            continue
        for owner, arr in graph_arrays:
            if owner is value or id(value) in seen:
                continue
            if not owner.requires_grad:
                # a constant the graph saved (matmul's unsqueezed view of a vector, say):
                # sharing its data is the graph's own doing, not the learner's
                continue
            if _shares(value._data, arr):
                seen.add(id(value))
                who = namer.label(owner)
                out.append(word(None, "shares", name=name, who=who))
    return out


def _shares(a: Any, b: Any) -> bool:
    import numpy as np

    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        return bool(np.may_share_memory(a, b))
    return False


def graph_view(t: Tensor, namer: Namer, namespace: dict | None = None) -> Any:
    """The graph behind tensor `t` as a rich Tree (or a sentence when it has none)."""
    from rich.console import Group
    from rich.text import Text
    from rich.tree import Tree

    label = namer.label(t)
    if t.grad_fn is None:
        if t.requires_grad:
            return Text(
                word(None, "leaf_graph", label=label) + f"\nAccumulateGrad → {leaf_brief(t, namer)}"
            )
        return Text(word(None, "no_graph", label=label))
    root = t.grad_fn
    ids = node_ids(root)
    tree = Tree(_title(root, namer, ids, t.output_nr), guide_style="dim")
    drawn: set = set()
    count = [0]
    _grow(tree, root, namer, ids, drawn, count)
    hidden = [len(ids) - 1 - count[0]]
    parts: list[Any] = [Text(word(None, "graph_header", label=label))]
    parts.append(tree)
    if hidden[0]:
        parts.append(Text(word(None, "more_nodes", n=hidden[0], label=label)))
    for line in cut_off(root, namer, namespace or {}):
        parts.append(Text("✂ " + line, style="yellow"))
    return Group(*parts)


def _title(node: Any, namer: Namer, ids: dict, nr: int = 0) -> Any:
    from rich.text import Text

    text = Text()
    text.append(f"#{ids[node]} ", style="dim")
    if node.__class__ is AccumulateGrad:
        text.append("AccumulateGrad", style="bold blue")
        text.append(" → " + leaf_brief(node.variable, namer))
        return text
    text.append(display_name(node), style="bold")
    name = namer.node_output(node, nr)
    if name:
        text.append(f" → {name}", style="cyan")
    saved = saved_brief(node, namer)
    if saved:
        text.append(f"  ({saved})", style="dim")
    return text


def _grow(tree: Any, node: Any, namer: Namer, ids: dict, drawn: set, count: list) -> None:
    from rich.text import Text

    drawn.add(node)
    stack = [(tree, node)]
    while stack:
        branch, n = stack.pop()
        children = []
        for i, (nxt, nr) in enumerate(n.next_functions):
            if nxt is None:
                branch.add(Text(none_edge_text(n, i, namer), style="yellow"))
                continue
            if nxt in drawn:
                line = Text(f"[{i}] ")
                line.append(f"#{ids[nxt]} {display_name(nxt)}", style="bold")
                line.append(f" ({word(None, 'used_again', n=ids[nxt])})", style="dim")
                branch.add(line)
                continue
            if count[0] >= MAX_NODES:
                drawn.add(nxt)
                continue
            count[0] += 1
            drawn.add(nxt)
            line = Text(f"[{i}] ")
            line.append_text(_title(nxt, namer, ids, nr))
            children.append((branch.add(line), nxt))
        stack.extend(reversed(children))


__all__ = ["graph_view", "node_ids", "node_title", "saved_brief", "tensor_brief"]
