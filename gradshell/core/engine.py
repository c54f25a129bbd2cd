"""The backward engine: `backward()` and `grad()`.

It works as PyTorch's does on the CPU: count each node's dependencies, then run nodes
whose gradients are complete, the most recently created first (AccumulateGrad as soon
as it is ready), summing gradients that arrive along several edges. It is iterative,
so a graph 100,000 nodes deep needs no recursion, and it frees saved tensors as it
goes unless `retain_graph` is set.
"""

from __future__ import annotations

import heapq
import itertools
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gradshell.core import events, grad_mode, gradients
from gradshell.core.autograd import AccumulateGrad, Node, accumulator_of, edge
from gradshell.core.device import array_module
from gradshell.core.tensor import Tensor, wrap

_calls = itertools.count(1)
_add = gradients.add


def _as_tuple(x) -> tuple:
    if isinstance(x, Tensor):
        return (x,)
    if isinstance(x, (list, tuple)):
        return tuple(x)
    if x is None:
        return ()
    return (x,)


def _make_grads(outputs: tuple, grads: tuple | None) -> tuple:
    if grads is None:
        grads = (None,) * len(outputs)
    made = []
    for i, (out, g) in enumerate(zip(outputs, grads, strict=False)):
        if not isinstance(out, Tensor):
            raise TypeError(
                f"backward(): argument 'tensors' must be tuple of Tensors, not {type(out).__name__}"
            )
        if isinstance(g, Tensor):
            if g._data.shape != out._data.shape:
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and "
                    f"output[{i}] has a shape of {out.shape}."
                )
            if g._dtype.category != out._dtype.category and out._dtype.is_floating_point:
                if not g._dtype.is_floating_point:
                    raise RuntimeError(
                        "For complex Tensors, both grad_output and output are required to "
                        f"have the same dtype. Mismatch in dtype: grad_output[{i}] has a "
                        f"dtype of {g.dtype} and output[{i}] has a dtype of {out.dtype}."
                    )
            made.append(g)
        elif g is None:
            if out._requires_grad:
                if out._data.size != 1:
                    raise RuntimeError("grad can be implicitly created only for scalar outputs")
                if not out._dtype.is_floating_point:
                    raise RuntimeError(
                        "grad can be implicitly created only for real scalar outputs but got "
                        f"{out.dtype}"
                    )
                made.append(wrap(_ones_like(out._data), out._dtype))
            else:
                made.append(None)
        else:
            raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
    return tuple(made)


def _ones_like(a):
    out = array_module(a).empty(a.shape, a.dtype)
    out.fill(1)
    return out


def backward(
    tensors,
    grad_tensors=None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    inputs=None,
) -> None:
    """Accumulate gradients of `tensors` into the `.grad` of the graph's leaves."""
    roots = _as_tuple(tensors)
    if inputs is not None:
        inputs = _as_tuple(inputs)
        if not inputs:
            raise RuntimeError("'inputs' argument to backward() cannot be empty.")
    grads = _make_grads(roots, None if grad_tensors is None else _as_tuple(grad_tensors))
    if len(grads) != len(roots):
        raise RuntimeError(f"got {len(grads)} gradients for {len(roots)} tensors")
    if retain_graph is None:
        retain_graph = create_graph
    run_backward(roots, grads, retain_graph, create_graph, inputs, accumulate=True)


def grad(
    outputs,
    inputs,
    grad_outputs=None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    only_inputs: bool = True,
    allow_unused: bool | None = None,
    is_grads_batched: bool = False,
    materialize_grads: bool = False,
) -> tuple:
    """The gradients of `outputs` with respect to `inputs`, without touching `.grad`."""
    if is_grads_batched:
        raise NotImplementedError("gradshell does not support is_grads_batched=True")
    outs = _as_tuple(outputs)
    ins = _as_tuple(inputs)
    if not ins:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    if allow_unused is None:
        allow_unused = materialize_grads
    if materialize_grads and allow_unused is False:
        raise ValueError(
            "Expected allow_unused to be True or not passed when materialize_grads=True, but "
            "got: allow_unused=False."
        )
    for i, t in enumerate(outs):
        if isinstance(t, Tensor) and not t._requires_grad:
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn"
            )
    for t in ins:
        if not isinstance(t, Tensor):
            raise TypeError(
                f"grad(): argument 'inputs' must be tuple of Tensors, not {type(t).__name__}"
            )
        if not t._requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    grads = _make_grads(outs, None if grad_outputs is None else _as_tuple(grad_outputs))
    if retain_graph is None:
        retain_graph = create_graph
    result = run_backward(outs, grads, retain_graph, create_graph, ins, accumulate=False)
    final = []
    for i, (t, g) in enumerate(zip(ins, result, strict=True)):
        if g is None:
            if materialize_grads:
                g = wrap(_zeros_like(t._data), t._dtype)
            elif not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in "
                    "the graph. Set allow_unused=True if this is the desired behavior."
                )
        final.append(g)
    return tuple(final)


def _zeros_like(a):
    return array_module(a).zeros(a.shape, a.dtype)


class _Capture:
    __slots__ = ("index", "output_nr", "tensor")

    def __init__(self, index: int, output_nr: int, tensor: Tensor) -> None:
        self.index = index
        self.output_nr = output_nr
        self.tensor = tensor


def run_backward(
    roots: tuple,
    root_grads: tuple,
    retain_graph: bool,
    create_graph: bool,
    inputs: tuple | None,
    accumulate: bool,
    observer: Callable[[Any], None] | None = None,
):
    """Run the backward pass from `roots`; returns the gradients captured for `inputs`.

    With an `observer` it is a dry run (see `observe`): the nodes' backward functions run
    in the same order, but no `.grad` changes, no hook runs, nothing is freed and no event
    is published; `observer` gets a record of each step instead.
    """
    if observer is not None:
        retain_graph = True
    root_edges = []
    for i, t in enumerate(roots):
        if not t._requires_grad:
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn"
            )
        root_edges.append(edge(t))

    deps, parents = _dependencies(root_edges, inputs is not None)

    captures: dict | None = None
    needed = None
    if inputs is not None:
        captures = {}
        for k, t in enumerate(inputs):
            if not t._requires_grad:
                raise RuntimeError("One of the differentiated Tensors does not require grad")
            node, nr = edge(t)
            captures.setdefault(node, []).append(_Capture(k, nr, t))
        needed = _needed(captures, parents, accumulate)
    captured = [None] * (len(inputs) if inputs is not None else 0)

    listening = bool(events.active) and observer is None
    call = next(_calls) if observer is None else 0
    if listening:
        events.emit(
            events.BackwardStarted(call, roots, root_grads, inputs, retain_graph, create_graph)
        )

    buffers: dict = {}
    ready: list = []
    order = itertools.count()
    for (node, nr), g in zip(root_edges, root_grads, strict=True):
        _add_to_buffer(buffers, node, nr, g)
        deps[node] -= 1
        if deps[node] == 0:
            heapq.heappush(ready, (-node._seq, next(order), node))

    prev_mode = grad_mode.state.enabled
    grad_mode.state.enabled = create_graph
    error = None
    heappop, heappush = heapq.heappop, heapq.heappush
    try:
        while ready:
            node = heappop(ready)[2]
            grads = buffers.pop(node, None)
            if grads is None:
                grads = [None] * node.num_outputs
            if node._tensor_hooks is not None:
                if observer is None:
                    grads = _run_tensor_hooks(node, grads)
                else:
                    _observe_tensor_hooks(node, grads, observer)
            if captures is not None:
                for cap in captures.get(node, ()):
                    g = grads[cap.output_nr]
                    if accumulate and node.__class__ is not AccumulateGrad:
                        _accumulate_non_leaf(call, cap.tensor, g, create_graph)
                    else:
                        captured[cap.index] = g
                if node not in needed:
                    continue
            if node.__class__ is AccumulateGrad:
                if accumulate and grads[0] is not None:
                    if observer is None:
                        _accumulate_leaf(call, node.variable, grads[0], create_graph)
                    else:
                        _observe_leaf(node.variable, grads[0], observer)
                continue
            if observer is not None and (node._pre_hooks or node._post_hooks):
                observer(HooksSkipped(node, "node"))
            nexts = node.next_functions
            if node.num_outputs == 1:
                live = grads[0] is not None
            else:
                live = any(g is not None for g in grads)
                if live:
                    grads = _materialize(node, grads)
            if live:
                if node._pre_hooks and observer is None:
                    grads = _run_node_pre_hooks(node, grads)
                outs = node.apply(grads)
                if not retain_graph:
                    node.release()
                if len(outs) != len(nexts):
                    raise RuntimeError(
                        f"function {node.name()} returned an incorrect number of gradients "
                        f"(expected {len(nexts)}, got {len(outs)})"
                    )
                if node._post_hooks and observer is None:
                    outs = _run_node_post_hooks(node, outs, grads)
            else:
                outs = (None,) * len(nexts)
            if listening:
                events.emit(events.NodeRun(call, node, tuple(grads), tuple(outs)))
            elif observer is not None:
                observer(NodeRan(node, tuple(grads), tuple(outs)))
            meta = node._meta
            for i, (nxt, nr) in enumerate(nexts):
                if nxt is None:
                    continue
                if needed is not None and nxt not in needed and nxt not in captures:
                    continue
                g = outs[i]
                if g is not None:
                    m = meta[i] if meta is not None else None
                    if m is not None and (g._data.shape != m[0] or g._dtype is not m[1]):
                        g = _conform(node, i, g, m)
                    if listening:
                        events.emit(events.GradFlow(call, node, nxt, nr, g, i))
                    buf = buffers.get(nxt)
                    if buf is None:
                        buf = buffers[nxt] = [None] * nxt.num_outputs
                    old = buf[nr]
                    buf[nr] = g if old is None else _add(old, g)
                d = deps[nxt] - 1
                deps[nxt] = d
                if d == 0:
                    heappush(ready, (-nxt._seq, next(order), nxt))
    except BaseException as e:
        error = e
        raise
    finally:
        grad_mode.state.enabled = prev_mode
        if listening:
            events.emit(events.BackwardFinished(call, error))
    return captured


@dataclass(frozen=True)
class NodeRan:
    """A dry run reached `node`: the gradients it got (one per output) and gave (one per
    input edge, before they were reduced to the inputs' shapes)."""

    node: Node
    grads_in: tuple
    grads_out: tuple


@dataclass(frozen=True)
class WouldAccumulate:
    """A dry run would add `added` into `tensor.grad` (`before` → `after`); `retain` for
    a non-leaf tensor that called retain_grad()."""

    tensor: Tensor
    before: Tensor | None
    added: Tensor
    after: Tensor
    retain: bool = False


@dataclass(frozen=True)
class HooksSkipped:
    """A dry run did not run hooks registered on `node`: on its `"output"` tensors, on
    the `"leaf"` tensor of an AccumulateGrad, or on the `"node"` itself."""

    node: Node
    where: str


def observe(root: Tensor, grad: Tensor, observer: Callable[[Any], None]) -> None:
    """Run the backward pass from `root` (seeded with `grad`) as a dry run, in the
    engine's real order, reporting each step to `observer` as a `NodeRan`,
    `WouldAccumulate` or `HooksSkipped` record.

    Nothing changes: no `.grad` is written, no hook runs, no saved value is freed (the
    graph can still run backward afterwards) and no event is published. The nodes'
    backward functions do run, with grad mode off.
    """
    run_backward((root,), (grad,), True, False, None, True, observer)


def _observe_tensor_hooks(node: Node, grads: list, observer: Callable[[Any], None]) -> None:
    for nr, (hooks, retain) in node._tensor_hooks.items():
        if hooks:
            observer(HooksSkipped(node, "output"))
        t = retain() if retain is not None else None
        g = grads[nr]
        if t is not None and t._retains_grad and t._grad_fn is node and g is not None:
            before = t._grad
            after = g if before is None else _add(before, g)
            observer(WouldAccumulate(t, before, g, after, retain=True))


def _observe_leaf(leaf: Tensor, g: Tensor, observer: Callable[[Any], None]) -> None:
    if leaf._hooks:
        observer(HooksSkipped(accumulator_of(leaf), "leaf"))
    before = leaf._grad
    observer(WouldAccumulate(leaf, before, g, g if before is None else _add(before, g)))


def _dependencies(root_edges: list, want_parents: bool):
    deps: dict = {}
    parents: dict | None = {} if want_parents else None
    stack = []
    for node, _ in root_edges:
        if node not in deps:
            deps[node] = 0
            stack.append(node)
        deps[node] += 1
    while stack:
        node = stack.pop()
        for nxt, _ in node.next_functions:
            if nxt is None:
                continue
            if parents is not None:
                parents.setdefault(nxt, []).append(node)
            if nxt in deps:
                deps[nxt] += 1
            else:
                deps[nxt] = 1
                stack.append(nxt)
    return deps, parents


def _needed(captures: dict, parents: dict, accumulate: bool) -> set:
    # Nodes that must run: strict ancestors of a capture point (and, when accumulating,
    # the AccumulateGrad sinks of the inputs themselves).
    needed: set = set()
    stack = []
    for node in captures:
        if accumulate and node.__class__ is AccumulateGrad:
            needed.add(node)
        stack.extend(parents.get(node, ()))
    while stack:
        node = stack.pop()
        if node in needed:
            continue
        needed.add(node)
        stack.extend(parents.get(node, ()))
    return needed


def _add_to_buffer(buffers: dict, node: Node, nr: int, g) -> None:
    buf = buffers.get(node)
    if buf is None:
        buf = buffers[node] = [None] * node.num_outputs
    if g is None:
        return
    old = buf[nr]
    buf[nr] = g if old is None else _add(old, g)


def _materialize(node: Node, grads: list) -> list:
    shapes = getattr(node, "output_meta", None)
    if shapes is None:
        return grads
    out = []
    for g, (shape, dtype, xp) in zip(grads, shapes, strict=True):
        out.append(wrap(xp.zeros(shape, dtype.np), dtype) if g is None else g)
    return out


def _conform(node: Node, i: int, g: Tensor, meta: tuple) -> Tensor:
    """Reduce a broadcast gradient to its input's shape and cast it to the input's dtype,
    or raise PyTorch's error for a gradient of the wrong shape."""
    shape, dtype = meta
    if g._data.shape != shape:
        if not _expandable(shape, g._data.shape):
            raise RuntimeError(
                f"Function {node.name()} returned an invalid gradient at index {i} - got "
                f"[{', '.join(map(str, g._data.shape))}] but expected shape compatible with "
                f"[{', '.join(map(str, shape))}]"
            )
        g = gradients.sum_to_size(g, shape)
    if g._dtype is not dtype:
        g = gradients.cast(g, dtype)
    return g


def _expandable(shape: tuple, target: tuple) -> bool:
    if len(shape) > len(target):
        return False
    for s, t in zip(reversed(shape), reversed(target), strict=False):
        if s != t and s != 1:
            return False
    return True


def _run_tensor_hooks(node: Node, grads: list) -> list:
    grads = list(grads)
    for nr, (hooks, retain) in node._tensor_hooks.items():
        g = grads[nr]
        if g is None:
            continue
        for hook in list(hooks.values()):
            r = hook(g)
            if r is not None:
                g = _check_hook_result(r, g, "hook")
        grads[nr] = g
        t = retain() if retain is not None else None
        # .grad keeps the gradient of the tensor's current history (an in-place op moves it)
        if t is not None and t._retains_grad and t._grad_fn is node:
            _retain(t, g)
    return grads


def _retain(t: Tensor, g: Tensor) -> None:
    before = t._grad
    if before is None:
        t._grad = gradients.detached_copy(g) if not grad_mode.state.enabled else gradients.clone(g)
    else:
        t._grad = _add(before, g)
    if events.active:
        _emit_accumulated(0, t, None if before is None else gradients.detached_copy(before), g)


def _check_hook_result(r, g: Tensor, what: str) -> Tensor:
    if not isinstance(r, Tensor):
        raise TypeError(f"expected Tensor or None (got {type(r).__name__})")
    if r._data.shape != g._data.shape:
        raise RuntimeError(
            f"{what} returned a gradient of shape {list(r.shape)} but expected {list(g.shape)}"
        )
    return r


def _run_node_pre_hooks(node: Node, grads: list) -> list:
    for hook in list(node._pre_hooks.values()):
        r = hook(tuple(grads))
        if r is not None:
            grads = list(r)
    return grads


def _run_node_post_hooks(node: Node, outs: tuple, grads: list) -> tuple:
    for hook in list(node._post_hooks.values()):
        r = hook(tuple(outs), tuple(grads))
        if r is not None:
            outs = tuple(r)
    return outs


def _accumulate_leaf(call: int, leaf: Tensor, g: Tensor, create_graph: bool) -> None:
    hooks = leaf._hooks
    if hooks:
        for hook in list(hooks.values()):
            r = hook(g)
            if r is not None:
                g = _check_hook_result(r, g, "hook")
    before = leaf._grad
    listening = bool(events.active)
    snapshot = gradients.detached_copy(before) if (listening and before is not None) else None
    if before is None:
        if create_graph:
            # PyTorch copies into a fresh tensor, so the new .grad hangs off CopyBackwards
            new = wrap(array_module(g._data).zeros(g._data.shape, g._dtype.np), g._dtype)
            gradients.copy_into(new, g)
        else:
            new = wrap(g._data.copy(), g._dtype)
        new._legacy_variable = True  # in 0.3, .grad was a Variable
        leaf._grad = new
    elif not create_graph:
        before._data += g._data
        before._bump_version()
    else:
        leaf._grad = _add(before, g)
    post = leaf._post_accumulate_hooks
    if post:
        for hook in list(post.values()):
            hook(leaf)
    if listening:
        _emit_accumulated(call, leaf, snapshot, g)


def _emit_accumulated(call: int, t: Tensor, before, added: Tensor) -> None:
    grad = t._grad
    copy = gradients.detached_copy
    events.emit(events.GradAccumulated(call, t, before, copy(added), copy(grad), grad))


def _accumulate_non_leaf(call: int, t: Tensor, g, create_graph: bool) -> None:
    if g is None:
        return
    before = t._grad
    snapshot = gradients.detached_copy(before) if (events.active and before is not None) else None
    if before is None:
        t._grad = gradients.clone(g) if create_graph else gradients.detached_copy(g)
    else:
        t._grad = _add(before, g)
    if events.active:
        _emit_accumulated(call, t, snapshot, g)


def tensor_hook_registry(t: Tensor) -> dict:
    """The dict of hooks run when `t`'s gradient is computed (on its node for non-leaves)."""
    node = t._grad_fn
    if node is None:
        if t._hooks is None:
            t._hooks = {}
        return t._hooks
    if node._tensor_hooks is None:
        node._tensor_hooks = {}
    entry = node._tensor_hooks.get(t._output_nr)
    if entry is None:
        entry = node._tensor_hooks[t._output_nr] = ({}, None)
    return entry[0]


def register_retain_grad(t: Tensor) -> None:
    """Arrange for non-leaf `t` to keep its gradient in `.grad`."""
    node = t._grad_fn
    if node._tensor_hooks is None:
        node._tensor_hooks = {}
    hooks, _ = node._tensor_hooks.get(t._output_nr, ({}, None))
    node._tensor_hooks[t._output_nr] = (hooks, weakref.ref(t))
