"""The backward engine: depth without recursion, PyTorch's execution order, freeing saved
tensors, flat memory over long training loops, and the events it publishes."""

import gc
import tracemalloc

import numpy as np
import pytest

from gradshell import torch as gtorch
from gradshell.core import events


def test_deep_chain_needs_no_recursion():
    x = gtorch.ones(3, requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y * 1.0
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0, 1.0]


def _hook_order(torch_mod):
    order = []
    x = torch_mod.ones(2, requires_grad=True)
    a = x * 2
    b = x * 3
    c = a + b
    d = a * c
    e = d.exp()
    for name, t in (("a", a), ("b", b), ("c", c), ("d", d), ("e", e), ("x", x)):
        t.register_hook(lambda g, name=name: order.append(name))
    (e.sum() + b.sum()).backward()
    return order


def test_execution_order_matches_pytorch(real_torch):
    assert _hook_order(gtorch) == _hook_order(real_torch)


def test_saved_tensors_are_freed_without_retain_graph():
    x = gtorch.ones(3, requires_grad=True)
    y = x.exp()
    node = y.grad_fn
    assert node.has_saved
    y.sum().backward()
    assert not node.has_saved
    z = x.exp()
    z.sum().backward(retain_graph=True)
    assert z.grad_fn.has_saved


@pytest.mark.slow  # 10,000 traced training steps: CI runs it (--run-slow)
def test_memory_stays_flat_over_a_training_loop():
    import gradshell

    # What is measured is the engine's bookkeeping, not the float kernels: NumPy's fast
    # math keeps 10,000 steps quick.
    was = gradshell.is_exact()
    gradshell.set_exact(False)
    try:
        _train_and_measure()
    finally:
        gradshell.set_exact(was)


def _train_and_measure() -> None:
    w = gtorch.ones(64, 64, requires_grad=True)
    data = gtorch.ones(32, 64)

    def step():
        loss = ((data @ w).tanh() ** 2).mean()
        loss.backward()
        with gtorch.no_grad():
            w.sub_(0.01 * w.grad)
        w.grad.zero_()

    for _ in range(200):
        step()
    gc.collect()
    tracemalloc.start()
    for _ in range(2000):
        step()
    first, _ = tracemalloc.get_traced_memory()
    for _ in range(8000):
        step()
    second, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert second - first < 200_000, (first, second)


def test_graph_is_released_when_outputs_die():
    import weakref

    x = gtorch.ones(3, requires_grad=True)
    y = (x * 2).exp()
    ref = weakref.ref(y.grad_fn)
    del y
    gc.collect()
    assert ref() is None


def test_events_describe_accumulation_and_zeroing():
    seen = []
    unsubscribe = events.subscribe(seen.append)
    try:
        x = gtorch.tensor([2.0, 2.0, 2.0], requires_grad=True)
        y = x * 2
        g = gtorch.tensor([0.1, 1.0, 10.0])
        y.backward(g, retain_graph=True)
        y.backward(g)
        x.grad.data.zero_()
        x.grad = None
    finally:
        unsubscribe()
    kinds = [type(e).__name__ for e in seen]
    assert kinds.count("BackwardStarted") == 2 and kinds.count("BackwardFinished") == 2
    acc = [e for e in seen if isinstance(e, events.GradAccumulated)]
    assert acc[0].before is None
    np.testing.assert_allclose(acc[0].after.numpy(), [0.2, 2.0, 20.0], rtol=1e-6)
    np.testing.assert_allclose(acc[1].before.numpy(), [0.2, 2.0, 20.0], rtol=1e-6)
    np.testing.assert_allclose(acc[1].after.numpy(), [0.4, 4.0, 40.0], rtol=1e-6)
    zeroed = [e for e in seen if isinstance(e, events.GradZeroed)]
    np.testing.assert_allclose(zeroed[0].before.numpy(), [0.4, 4.0, 40.0], rtol=1e-6)
    assert np.shares_memory(zeroed[0].tensor.numpy(), acc[1].grad.numpy())
    nones = [e for e in seen if isinstance(e, events.GradSetToNone)]
    assert nones and nones[-1].after is None
    runs = [e for e in seen if isinstance(e, events.NodeRun)]
    assert [r.node.name() for r in runs] == ["MulBackward0", "MulBackward0"]


def test_shared_subexpression_flows_twice():
    flows = []
    unsubscribe = events.subscribe(
        lambda e: flows.append(e) if isinstance(e, events.GradFlow) else None
    )
    try:
        a = gtorch.ones(2, requires_grad=True)
        b = a + a
        b.sum().backward()
    finally:
        unsubscribe()
    into_leaf = [f for f in flows if f.dst.name() == "torch::autograd::AccumulateGrad"]
    assert len(into_leaf) == 2
    assert a.grad.tolist() == [2.0, 2.0]


def test_events_cost_nothing_without_subscribers():
    assert events.active == []


@pytest.mark.parametrize("legacy", [False, True])
def test_backward_twice_depends_on_the_era(legacy):
    from gradshell.core.autograd import settings

    settings.legacy = legacy
    try:
        x = gtorch.tensor([2.0, 2.0, 2.0], requires_grad=True)
        y = x * 2
        y.backward(gtorch.tensor([0.1, 1.0, 10.0]))
        if legacy:
            y.backward(gtorch.tensor([0.1, 1.0, 10.0]))
            np.testing.assert_allclose(x.grad.numpy(), [0.4, 4.0, 40.0], rtol=1e-6)
            z = x.exp()
            z.sum().backward()
            with pytest.raises(RuntimeError, match="buffers have already been freed"):
                z.sum().backward()
        else:
            with pytest.raises(RuntimeError, match="Trying to backward through the graph a second"):
                y.backward(gtorch.tensor([0.1, 1.0, 10.0]))
    finally:
        settings.legacy = False
