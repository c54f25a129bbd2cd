"""The engine's dry run (`engine.observe`) and the read-only views of a node that tools
such as %explain use instead of the node's private fields."""

from __future__ import annotations

from gradshell import torch as gtorch
from gradshell.core import engine, events
from gradshell.core.autograd import SavedTensor, existing_accumulator


def _graph():
    x = gtorch.tensor([1.0, 2.0], requires_grad=True)
    w = gtorch.tensor([[3.0], [4.0]], requires_grad=True)
    y = x * w  # broadcast: w's gradient is summed down to [2, 1]
    out = (y * y).sum() + y.mean()
    return x, w, y, out


def _observed(out):
    records = []
    engine.observe(out, gtorch.ones_like(out), records.append)
    return records


def _real_order(out):
    seen = []
    stop = events.subscribe(seen.append)
    try:
        out.backward(retain_graph=True)
    finally:
        stop()
    return [e.node for e in seen if isinstance(e, events.NodeRun)]


def test_a_dry_run_visits_nodes_in_the_real_order_and_changes_nothing():
    x, w, y, out = _graph()
    records = _observed(out)
    ran = [r.node for r in records if isinstance(r, engine.NodeRan)]
    assert x.grad is None and w.grad is None
    assert not y.grad_fn.freed and y.grad_fn.saved_values
    assert ran == _real_order(out)  # and the graph still runs backward for real


def test_a_dry_run_reports_what_would_be_added_to_each_grad():
    x, w, _, out = _graph()
    would = {id(r.tensor): r for r in _observed(out) if isinstance(r, engine.WouldAccumulate)}
    out.backward()
    assert would[id(x)].after.tolist() == x.grad.tolist()
    assert would[id(w)].after.tolist() == w.grad.tolist()
    assert would[id(w)].before is None and not would[id(w)].retain


def test_a_dry_run_skips_hooks_and_says_so():
    x, _, y, out = _graph()
    called = []
    y.register_hook(lambda g: called.append("tensor"))
    x.register_hook(lambda g: called.append("leaf"))
    out.grad_fn.register_hook(lambda gi, go: called.append("node"))
    y.retain_grad()
    records = _observed(out)
    skipped = {r.where for r in records if isinstance(r, engine.HooksSkipped)}
    assert called == [] and skipped == {"output", "leaf", "node"}
    retained = [r for r in records if isinstance(r, engine.WouldAccumulate) and r.retain]
    assert [r.tensor for r in retained] == [y]
    assert y._grad is None  # retain_grad's .grad is not written either


def test_a_dry_run_publishes_no_events():
    *_, out = _graph()
    seen = []
    stop = events.subscribe(seen.append)
    try:
        _observed(out)
    finally:
        stop()
    assert seen == []


def test_node_views():
    x, w, y, out = _graph()
    node = y.grad_fn
    saved = node.saved_values
    assert set(saved) == set(node.saved_names)
    assert all(type(v) is SavedTensor for v in saved.values())
    saved.clear()  # a copy: the node keeps its own
    assert node.saved_values
    assert [m[0] for m in node.input_metadata] == [(2,), (2, 1)]
    assert node.sequence_nr < out.grad_fn.sequence_nr
    assert existing_accumulator(x) is node.next_functions[0][0]
    assert not node.has_hooks
    node.register_prehook(lambda g: None)
    assert node.has_hooks
    out.backward()
    assert node.freed and node.saved_values == {} and node.kept_after_free == {}


def test_release_empties_the_saved_dict():
    x = gtorch.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    node = y.grad_fn
    held = node._saved  # the engine drops its saved tensors, not just its reference
    y.sum().backward()
    assert held == {}


def test_the_shell_hides_the_tool_views_from_learners():
    from gradshell.shell.policy import hidden_names

    hidden = hidden_names(type(gtorch.ones(1, requires_grad=True).exp().grad_fn))
    for name in ("sequence_nr", "freed", "saved_values", "kept_after_free", "input_metadata"):
        assert name in hidden
