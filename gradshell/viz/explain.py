"""`%explain out` / `%step out`: the backward pass node by node, in the engine's order.

Each step shows the node's PyTorch name, the incoming gradient, the local derivative as
a formula with its numbers (`∂(y·y)/∂y = 2y = 6`), the outgoing gradients, and every
`+=` into a `.grad`; at the end, for each leaf, the chain of local derivatives that
makes its gradient (`1/4 · 3 · 2y = 1/4 · 3 · 6 = 4.5`).

A pass that already ran (recorded while visualisation was on) is shown as it ran. A
pass that has not run is previewed: the nodes' backward functions are called in the
engine's order on the live graph, with grad mode off and no `.grad`, hook or saved
value touched.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gradshell.core import engine
from gradshell.core.autograd import (
    AccumulateGrad,
    SavedTensor,
    accumulator_of,
    existing_accumulator,
)
from gradshell.core.tensor import Tensor
from gradshell.ops.explanation import sum_to
from gradshell.viz.common import Namer, compact, display_name, host_array, number, short, uniform
from gradshell.viz.formulas import Ctx, Local, formula, has_formula, wrap_sym
from gradshell.viz.recorder import AccRun, Trace

_CONSTANT = re.compile(r"(?<![\w.])c(?![\w(])")

#: Paths from the output to one leaf beyond which no chain summary is written.
MAX_PATHS = 6
#: a chain-rule product longer than this is not written out (nor could it be read)
MAX_CHAIN_FACTORS = 40


class ExplainError(Exception):
    """The pass cannot be explained (no graph, freed buffers...); the message says why."""


# --- running the pass without changing anything --------------------------------------------


def root_node(t: Tensor) -> Any:
    """The node a backward pass from `t` starts at."""
    fn = t.grad_fn
    return fn if fn is not None else accumulator_of(t)


def _hook_note(rec: engine.HooksSkipped) -> str:
    if rec.where == "leaf":
        return "hooks registered on a leaf are not run"
    if rec.where == "output":
        return f"hooks registered on {display_name(rec.node)}'s output are not run"
    return f"hooks registered on {display_name(rec.node)} are not run"


def preview(root: Tensor, grad: Tensor) -> tuple[list, list[str]]:
    """Run the backward pass from `root` as the engine would, changing nothing (the
    engine's dry run).

    Returns the runs — (node, grads in, grads out) and AccRun for each `.grad` it would
    add to — and notes on what a preview leaves out (hooks).
    """
    runs: list = []
    notes: set[str] = set()

    def report(rec: Any) -> None:
        if isinstance(rec, engine.NodeRan):
            runs.append((rec.node, rec.grads_in, rec.grads_out))
        elif isinstance(rec, engine.WouldAccumulate):
            runs.append(AccRun(rec.tensor, rec.before, rec.added, rec.after, retain=rec.retain))
        else:
            notes.add(_hook_note(rec))

    engine.observe(root, grad, report)
    return runs, sorted(notes)


# --- what is shown ---------------------------------------------------------------------------


@dataclass
class Edge:
    """One outgoing edge of a step."""

    index: int
    target: Any
    target_nr: int
    label: str
    grad: np.ndarray | None
    local: Local | None = None
    note: str = ""


@dataclass
class Step:
    """A node that ran: what came in, its formula, what went out."""

    index: int
    node: Any
    out_label: str
    expr: str | None
    grad_in: np.ndarray | None
    edges: list[Edge]
    incoming_parts: int = 1
    formula_known: bool = False


@dataclass
class AccStep:
    """A `+=` into a `.grad`."""

    index: int
    tensor: Any
    label: str
    before: np.ndarray | None
    added: np.ndarray
    after: np.ndarray | None
    retain: bool = False
    incoming_parts: int = 1


def _sink(t: Tensor) -> tuple | None:
    """The (node, input) that gradients for `t` arrive at."""
    if t.grad_fn is not None:
        return (t.grad_fn, t.output_nr)
    acc = existing_accumulator(t)
    return None if acc is None else (acc, 0)


@dataclass
class Chain:
    """Why a leaf's gradient is what it is: the product of local derivatives per path."""

    leaf_label: str
    symbolic: str
    numeric: str
    value: np.ndarray


@dataclass
class Explanation:
    """A whole backward pass, explained."""

    root_label: str
    ran: bool
    call: int | None
    cause: str
    grad_root: np.ndarray
    steps: list = field(default_factory=list)
    chains: list[Chain] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    error: str | None = None
    partial: bool = False  # the pass was asked for some inputs only (autograd.grad, inputs=)


def _close(pred: np.ndarray, actual: np.ndarray, dtype_kind: str, itemsize: int) -> bool:
    if pred.shape != actual.shape:
        return False
    rtol = {2: 1e-2, 4: 1e-4}.get(itemsize, 1e-9)
    scale = float(np.nanmax(np.abs(actual))) if actual.size and np.isfinite(actual).any() else 1
    with np.errstate(all="ignore"):
        return bool(
            np.allclose(pred, actual, rtol=rtol, atol=rtol * max(scale, 1e-30), equal_nan=True)
        )


class _Saved:
    """Reads saved values: from the live node (preview) or from a recorded trace."""

    def __init__(self, trace: Trace | None) -> None:
        self.trace = trace

    def getter(self, node: Any) -> Any:
        """A `saved(name)` function for `node`."""
        if self.trace is None or node not in self.trace.saved:
            return node.saved
        saved, kept = self.trace.saved[node]

        def get(name: str) -> Any:
            if saved is not None and name in saved:
                v = saved[name]
                return v.unpack() if type(v) is SavedTensor else v
            if kept is not None and name in kept:
                return kept[name]
            raise KeyError(name)

        return get


class _Labels:
    """Symbols for node outputs: the learner's names, else expressions like `y·y`."""

    def __init__(self, namer: Namer, saved: _Saved) -> None:
        self.namer = namer
        self.saved = saved
        self.memo: dict = {}

    def of(self, node: Any, nr: int = 0, depth: int = 0) -> str:
        """The symbol of output `nr` of `node`."""
        if node is None:
            return "c"
        key = (node, nr)
        if key in self.memo:
            return self.memo[key]
        if node.__class__ is AccumulateGrad:
            label = self.namer.label(node.variable)
        else:
            label = self.namer.node_output(node, nr)
            if label is None:
                label = self._expr(node, depth) or self._call(node, depth)
        self.memo[key] = label
        return label

    def _call(self, node: Any, depth: int) -> str:
        """'cumsum(x)': the op's name applied to its inputs (for nodes without a formula)."""
        op = re.sub(r"Backwards?\d*$", "", display_name(node).split("::")[-1]).lower() or "op"
        if depth >= 3:
            return f"{op}(…)"
        args = [self.of(nxt, nr, depth + 1) for nxt, nr in node.next_functions]
        text = f"{op}({', '.join(args)})"
        return text if len(text) <= 40 else f"{op}(…)"

    def _expr(self, node: Any, depth: int) -> str | None:
        if depth >= 3 or node.num_outputs != 1:
            return None
        f = formula(node, self.ctx(node, depth + 1))
        if f is None or len(f.expr) > 40:
            return None
        return f.expr

    def ctx(self, node: Any, depth: int = 0, out_shape: tuple = ()) -> Ctx:
        """What `node`'s formula may read."""
        nexts = node.next_functions
        syms = [self._input_sym(node, i, nxt, nr, depth) for i, (nxt, nr) in enumerate(nexts)]
        meta = node.input_metadata
        shapes = [m[0] if m is not None else None for m in meta]
        same = len(nexts) >= 2 and nexts[0][0] is not None and nexts[0] == nexts[1]
        return Ctx(node, self.saved.getter(node), syms, shapes, out_shape, same)

    def _input_sym(self, node: Any, i: int, nxt: Any, nr: int, depth: int) -> str:
        if nxt is not None:
            return self.of(nxt, nr, depth)
        # An input that needs no gradient: name it if it is a saved tensor we know.
        names = _SAVED_INPUTS.get(type(node).__name__, ("self", "other"))
        for name in names[i : i + 1]:
            try:
                v = self.saved.getter(node)(name)
            except Exception:
                continue
            if isinstance(v, Tensor):
                known = self.namer.tensor(v) or self._view_of_named(v)
                if known:
                    return known
            elif _is_number(v):
                return number(v)
        other = getattr(node, "other", None)  # add/sub/rsub keep their Python-number operand
        if _is_number(other):
            return number(other)
        return "c"

    def _view_of_named(self, v: Tensor) -> str | None:
        """The learner's name for the tensor `v` is a reshaped view of (matmul unsqueezes a
        vector before it saves it): the learner wrote that tensor, not `c`."""
        base = getattr(v, "_base", None)
        if isinstance(base, Tensor) and base.numel() == v.numel():
            return self.namer.tensor(base)
        return None


#: The saved value that is each input of a node, where it is not ("self", "other").
_SAVED_INPUTS = {
    "AddmmBackward0": ("self", "mat1", "mat2"),
    "MmBackward0": ("self", "mat2"),
    "MvBackward0": ("self", "mat2"),
    "DotBackward0": ("self", "mat2"),
    "MseLossBackward0": ("self", "target"),
    "BinaryCrossEntropyBackward0": ("self", "target"),
    "BinaryCrossEntropyWithLogitsBackward0": ("self", "target"),
}


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _np(t: Any) -> np.ndarray | None:
    return None if t is None else host_array(t)


def build(
    root: Tensor,
    namer: Namer,
    *,
    trace: Trace | None = None,
    grad: Tensor | None = None,
) -> Explanation:
    """Explain the backward pass from `root`: the recorded `trace`, or a preview."""
    root_label = namer.label(root)
    if trace is not None:
        runs = trace.runs
        grad_root = trace.grad_roots[0] if trace.grad_roots else None
        notes: list[str] = []
    else:
        if grad is None:
            raise ExplainError(f"{root_label} is not a scalar: give the gradient to start with")
        try:
            runs, notes = preview(root, grad)
        except RuntimeError as exc:
            raise ExplainError(str(exc)) from None
        grad_root = grad
    ex = Explanation(
        root_label,
        ran=trace is not None,
        call=trace.call if trace is not None else None,
        cause=trace.cause if trace is not None else "",
        grad_root=_np(grad_root),
        notes=notes,
        partial=trace is not None and trace.inputs is not None,
    )
    if trace is not None and trace.error is not None:
        ex.error = f"{type(trace.error).__name__}: {trace.error}"
    saved = _Saved(trace)
    labels = _Labels(namer, saved)
    incoming_parts: dict = {}
    for k, run in enumerate(runs, start=1):
        if isinstance(run, AccRun):
            acc = AccStep(
                k,
                run.tensor,
                namer.label(run.tensor),
                _np(run.before),
                _np(run.added),
                _np(run.after),
                run.retain,
            )
            sink = _sink(run.tensor)
            if sink is not None:
                acc.incoming_parts = incoming_parts.get(sink, 1)
            ex.steps.append(acc)
            continue
        node, grads_in, outs = run
        ex.steps.append(_step(k, node, grads_in, outs, labels, incoming_parts))
    ex.chains = _chains(ex, root)
    return ex


def _step(k: int, node: Any, grads_in: tuple, outs: tuple, labels: _Labels, parts: dict) -> Step:
    g_in = _np(grads_in[0]) if grads_in else None
    out_shape = g_in.shape if g_in is not None else ()
    ctx = labels.ctx(node, out_shape=out_shape)
    f = formula(node, ctx) if node.num_outputs == 1 else None
    meta = node.input_metadata
    edges = []
    for i, (nxt, nr) in enumerate(node.next_functions):
        raw = outs[i] if i < len(outs) else None
        g = _np(raw)
        m = meta[i] if i < len(meta) else None
        if g is not None and m is not None and g.shape != tuple(m[0]):
            g = sum_to(g, tuple(m[0]))
        edge = Edge(i, nxt, nr, ctx.sym(i) if nxt is not None else "c", g)
        if nxt is not None and g is not None:
            parts[(nxt, nr)] = parts.get((nxt, nr), 0) + 1
            local = f.locals[i] if f is not None and i < len(f.locals) else None
            if local is not None and g_in is not None:
                try:
                    with np.errstate(all="ignore"):
                        pred = np.asarray(local.predict(g_in.astype(np.float64)), np.float64)
                        pred = sum_to(np.broadcast_to(pred, pred.shape), g.shape)
                    dtype = raw.dtype
                    ok = _close(pred, g.astype(np.float64), "f", dtype.itemsize)
                except Exception:
                    ok = False
                if ok:
                    edge.local = local
                else:
                    edge.note = "the table's formula does not match what this node computed"
        edges.append(edge)
    n_parts = parts.get((node, 0), 1)
    return Step(
        k,
        node,
        labels.of(node),
        f.expr if f is not None else None,
        g_in,
        edges,
        incoming_parts=n_parts,
        formula_known=has_formula(node),
    )


# --- the chain summary ---------------------------------------------------------------------


@dataclass
class _Factor:
    rhs: str
    value: np.ndarray
    exact: bool


def _chains(ex: Explanation, root: Tensor) -> list[Chain]:
    steps = {s.node: s for s in ex.steps if isinstance(s, Step)}
    out = []
    for acc in ex.steps:
        if not isinstance(acc, AccStep) or acc.retain:
            continue
        chain = _chain_for(ex, steps, root, acc)
        if chain is not None:
            out.append(chain)
    return out


def _factor_ok(step: Step, edge: Edge, local: Local) -> bool:
    if local.kind == "elementwise":
        return (
            edge.grad is not None
            and step.grad_in is not None
            and (edge.grad.shape == step.grad_in.shape or step.grad_in.size == 1)
        )
    if local.kind == "reduce":
        return step.grad_in is not None and step.grad_in.size == 1
    return False


def _chain_for(ex: Explanation, steps: dict, root: Tensor, acc: AccStep) -> Chain | None:
    leaf = acc.tensor
    sink = existing_accumulator(leaf)
    start = root.grad_fn
    if sink is None or start is None or start not in steps:
        return None
    shape = acc.added.shape
    paths: list[list[_Factor]] = []

    def walk(node: Any, factors: list[_Factor]) -> bool:
        if len(factors) > MAX_CHAIN_FACTORS:
            return False
        if node is sink:
            paths.append(factors)
            return len(paths) <= MAX_PATHS
        step = steps.get(node)
        if step is None:
            return True  # a branch that carried no gradient
        groups: dict = {}
        for edge in step.edges:
            if edge.target is None or edge.grad is None:
                continue
            groups.setdefault((edge.target, edge.target_nr), []).append(edge)
        for (target, _), edges in groups.items():
            locals_ = [e.local for e in edges]
            if any(
                lc is None or not _factor_ok(step, e, lc)
                for e, lc in zip(edges, locals_, strict=True)
            ):
                if _reaches(target, sink):
                    return False
                continue
            value = sum(
                np.broadcast_to(np.asarray(lc.value, np.float64), e.grad.shape)
                for e, lc in zip(edges, locals_, strict=True)
            )
            if len(locals_) == 1:
                rhs, exact = locals_[0].rhs, locals_[0].exact
            elif locals_[0].merged is not None:
                rhs, exact = locals_[0].merged, all(lc.exact for lc in locals_)
            else:
                rhs = " + ".join(lc.rhs for lc in locals_)
                exact = all(lc.exact for lc in locals_)
            if not walk(target, [*factors, _Factor(rhs, np.asarray(value), exact)]):
                return False
        return True

    if not walk(start, []) or not paths:
        return None
    total = np.zeros(shape, np.float64)
    grad_root = ex.grad_root.astype(np.float64)
    seeded = uniform(grad_root) != 1
    try:
        for factors in paths:
            prod = (
                np.broadcast_to(grad_root, shape)
                if grad_root.size > 1
                else np.full(shape, float(grad_root.reshape(-1)[0]))
            )
            for f in factors:
                prod = (
                    prod * np.broadcast_to(f.value, shape)
                    if f.value.size > 1
                    else prod * float(f.value.reshape(-1)[0])
                )
            total = total + prod
    except ValueError:
        return None
    if not _close(total, acc.added.astype(np.float64), "f", acc.added.dtype.itemsize):
        return None
    sym_terms, num_terms = [], []
    for factors in paths:
        shown = [f for f in factors if not (f.exact and f.rhs == "1")]
        sym = [wrap_sym(f.rhs) for f in shown]
        num = [wrap_sym(f.rhs) if f.exact else _value_text(f.value) for f in shown]
        if seeded:
            sym.insert(0, "v")
            num.insert(0, _value_text(grad_root))
        sym_terms.append(" · ".join(sym) or "1")
        num_terms.append(" · ".join(num) or "1")
    wrap_terms = len(paths) > 1
    symbolic = " + ".join(f"({t})" if wrap_terms and " · " in t else t for t in sym_terms)
    numeric = " + ".join(f"({t})" if wrap_terms and " · " in t else t for t in num_terms)
    return Chain(acc.label, symbolic, numeric, total)


def _value_text(v: np.ndarray) -> str:
    u = uniform(v)
    return number(u) if u is not None else compact(v)


def _reaches(node: Any, sink: Any) -> bool:
    stack, seen = [node], set()
    while stack:
        n = stack.pop()
        if n is sink:
            return True
        if n is None or n in seen:
            continue
        seen.add(n)
        stack.extend(nxt for nxt, _ in n.next_functions)
    return False


# --- rendering -------------------------------------------------------------------------------


def _every(v: np.ndarray | None) -> str:
    if v is None:
        return "None"
    text = short(v)
    if v.size > 1 and uniform(v) is not None:
        text += f" ({_w('each_of', n=v.size)})"
    return text


def header_text(ex: Explanation) -> str:
    """The first line: what pass this is."""
    from gradshell.viz.words import current, word

    zh = current.get() == "zh"
    if ex.partial:
        if zh:
            call = f"从 {ex.root_label} 开始的反向传播"
        else:
            call = f"the pass from {ex.root_label}"
    else:
        call = f"{ex.root_label}.backward()"
    if ex.ran:
        where = f" — {ex.cause}" if ex.cause else ""
        cause = word(None, "cause_backward", n=ex.call) + where
        return f"{call} 做了什么（{cause}）" if zh else f"what {call} did ({cause})"
    if zh:
        return f"{call} 将会做什么——只是预览：不改变任何 .grad"
    return f"what {call} would do — a preview: no .grad changes"


def step_lines(ex: Explanation, step: Any) -> list[Any]:
    """The lines of one step, as rich Text."""
    from rich.text import Text

    R = ex.root_label
    lines: list[Any] = []
    if isinstance(step, AccStep):
        title = Text(f"{step.index}. ")
        title.append("AccumulateGrad" if not step.retain else "retain_grad", style="bold")
        title.append(f" — {step.label}{'' if step.retain else ' (' + _w('leaf') + ')'}")
        lines.append(title)
        verb = "+=" if ex.ran else "would +="
        line = Text(f"   {step.label}.grad {verb} ")
        line.append(short(step.added), style="green")
        before = "None" if step.before is None else short(step.before)
        line.append(f"   ({before} → {short(step.after) if step.after is not None else '?'})")
        if step.incoming_parts > 1:
            line.append(f"  ({_w('sum_of_edges', n=step.incoming_parts)})", style="dim")
        lines.append(line)
        return lines
    title = Text(f"{step.index}. ")
    title.append(display_name(step.node), style="bold")
    if step.expr and step.expr != step.out_label:
        title.append(
            f" — {step.out_label} = {step.expr}" if _is_name(step.out_label) else f" — {step.expr}"
        )
    else:
        title.append(f" — {step.out_label}")
    lines.append(title)
    if step.grad_in is None:
        lines.append(Text("   " + _w("no_gradient_reached"), style="dim"))
        return lines
    incoming = Text(f"   {_w('in')}∂{R}/∂{wrap_sym(step.out_label)} = ")
    if step.index == _first_index(ex) and ex.grad_root is not None and uniform(ex.grad_root) != 1:
        incoming = Text(f"   {_w('in')}v = ")
        incoming.append(_every(step.grad_in), style="cyan")
        incoming.append(f"  ({_w('given_to_backward')})", style="dim")
    else:
        incoming.append(_every(step.grad_in), style="cyan")
        if step.incoming_parts > 1:
            incoming.append(f"  ({_w('sum_of_edges', n=step.incoming_parts)})", style="dim")
    lines.append(incoming)
    shown_merged: set = set()
    for edge in step.edges:
        if edge.target is None:
            continue
        if edge.grad is None:
            lines.append(Text(f"   → {edge.label}: {_w('no_gradient_needed')}", style="dim"))
            continue
        local = edge.local
        if local is not None and local.kind != "map":
            key = (edge.target, edge.target_nr)
            if local.merged is not None and key not in shown_merged:
                shown_merged.add(key)
                merged_value = sum(
                    np.broadcast_to(np.asarray(e.local.value, np.float64), e.grad.shape)
                    for e in step.edges
                    if e.local is not None and (e.target, e.target_nr) == key
                )
                lines.append(
                    _local_line(
                        step, edge.label, local.merged, merged_value, False, f"   {_w('local')}"
                    )
                )
                lines.append(
                    Text(
                        f"         ({_w('uses_twice', expr=step.expr, name=edge.label)})",
                        style="dim",
                    )
                )
            elif local.merged is None:
                lines.append(
                    _local_line(
                        step, edge.label, local.rhs, local.value, local.exact, f"   {_w('local')}"
                    )
                )
        out = Text(
            f"   → {edge.label}" + (f" [input {edge.index}]" if _dup(step, edge) else "") + ": "
        )
        copies = 0
        if local is not None and local.kind == "map":
            out.append(f"{local.rhs} = ")
        elif local is not None:
            out.append(f"∂{R}/∂{wrap_sym(edge.label)} = ")
            factor = wrap_sym(local.rhs) if local.exact else _value_text(np.asarray(local.value))
            product = f"{_value_text(step.grad_in)} · {factor}"
            copies = _broadcast_copies(step.grad_in, local.value, edge.grad)
            out.append(f"sum({product}) = " if copies else f"{product} = ")
        out.append(short(edge.grad), style="green")
        lines.append(out)
        if copies:
            lines.append(Text(f"     ({_w('broadcast', name=edge.label, n=copies)})", style="dim"))
        if local is None:
            why = edge.note or _w("no_formula", node=display_name(step.node))
            lines.append(Text(f"     ({why})", style="dim"))
    return lines


def _w(key: str, **fields: Any) -> str:
    from gradshell.viz.words import word

    return word(None, key, **fields)


def _broadcast_copies(grad_in: Any, factor: Any, grad: Any) -> int:
    """How many elements `grad_in · factor` has when the edge's gradient was summed down
    from them (a broadcast input); 0 when nothing was summed."""
    try:
        shape = np.broadcast_shapes(np.shape(grad_in), np.shape(factor))
    except ValueError:
        return 0
    size = int(np.prod(shape)) if shape else 1
    got = int(np.size(grad)) if grad is not None else size
    return size if size > got else 0


def _dup(step: Step, edge: Edge) -> bool:
    return (
        sum(1 for e in step.edges if e.target is edge.target and e.target_nr == edge.target_nr) > 1
    )


def _is_name(label: str) -> bool:
    return label.replace(".", "").replace("[", "").replace("]", "").replace("'", "").isidentifier()


def _first_index(ex: Explanation) -> int:
    for s in ex.steps:
        return s.index
    return 0


def _local_line(step: Step, wrt: str, rhs: str, value: Any, exact: bool, prefix: str) -> Any:
    from rich.text import Text

    expr = step.expr or step.out_label
    line = Text(prefix + f"∂{wrap_sym(expr)}/∂{wrap_sym(wrt)} = ")
    line.append(rhs, style="yellow")
    text = _value_text(np.asarray(value, np.float64))
    if text != rhs:
        line.append(f" = {text}")
    return line


def chain_lines(ex: Explanation) -> list[Any]:
    """'why x.grad is 4.5: ∂out/∂x = 1/4 · 3 · 2y = 1/4 · 3 · 6 = 4.5' per leaf."""
    from rich.text import Text

    lines = []
    for chain in ex.chains:
        value = _value_text(chain.value)
        from gradshell.viz.words import current

        if current.get() == "zh":
            line = Text("为什么 ")
            line.append(f"∂{ex.root_label}/∂{chain.leaf_label}", style="bold")
            line.append(f" 是 {value}：  ")
        else:
            line = Text("why ")
            line.append(f"∂{ex.root_label}/∂{chain.leaf_label}", style="bold")
            line.append(f" is {value}:  ")
        if chain.symbolic != chain.numeric:
            line.append(f"{chain.symbolic} = ")
        line.append(f"{chain.numeric} = ")
        line.append(value, style="bold green")
        lines.append(line)
    return lines


def explanation_view(ex: Explanation, *, upto: int | None = None) -> Any:
    """The whole explanation as one rich renderable (or its first `upto` steps)."""
    from rich.console import Group
    from rich.panel import Panel
    from rich.text import Text

    body: list[Any] = [Text(header_text(ex), style="italic")]
    steps = ex.steps if upto is None else ex.steps[:upto]
    for step in steps:
        body.extend(step_lines(ex, step))
    if not ex.steps:
        body.append(Text(_w("nothing_ran"), style="dim"))
    if upto is None or upto >= len(ex.steps):
        if ex.chains:
            body.append(Text(""))
            body.extend(chain_lines(ex))
        if ex.error:
            body.append(Text(_w("stopped_error", error=ex.error), style="red"))
        for note in ex.notes:
            body.append(Text(_w("note", note=note), style="dim"))
        if any(isinstance(s, Step) and s.expr and _CONSTANT.search(s.expr) for s in ex.steps):
            body.append(Text(_w("constant_c"), style="dim"))
    return Panel(
        Group(*body),
        title=Text(f"%explain {ex.root_label}", style="bold"),
        title_align="left",
        expand=False,
        padding=(0, 1),
    )


def step_view(ex: Explanation, i: int) -> Any:
    """Step `i` (0-based) alone, for `%step`, with the chain summary after the last."""
    from rich.console import Group
    from rich.text import Text

    parts: list[Any] = [Text(f"step {i + 1}/{len(ex.steps)}", style="dim")]
    parts.extend(step_lines(ex, ex.steps[i]))
    if i == len(ex.steps) - 1:
        parts.extend(chain_lines(ex))
    return Group(*parts)
