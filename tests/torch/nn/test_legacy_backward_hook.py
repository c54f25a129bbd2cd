"""Module.register_backward_hook, PyTorch's deprecated non-full hook (issue 27: the
`former_torchies` nn tutorial registers one): it sees the gradients of the node that made
the module's output, and PyTorch's FutureWarning when the forward made more nodes."""

from __future__ import annotations

import warnings

import pytest

from gradshell import torch as gtorch


def _run(t, make):
    t.manual_seed(0)
    module = make(t)
    seen = []

    def hook(m, grad_input, grad_output):
        seen.append(
            (
                type(m).__name__,
                [
                    None if g is None else [round(v, 5) for v in g.flatten().tolist()]
                    for g in grad_input
                ],
                [g.shape for g in grad_output],
            )
        )

    module.register_backward_hook(hook)
    x = t.randn(2, 3, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module(x.relu()).sum().backward()
    return seen, [f"{w.category.__name__}: {w.message}" for w in caught]


MODULES = {
    "linear": lambda t: t.nn.Linear(3, 2),
    "sequential": lambda t: t.nn.Sequential(t.nn.Linear(3, 2), t.nn.Tanh()),
    "mlp_in_module": lambda t: t.nn.Sequential(t.nn.Linear(3, 4), t.nn.ReLU(), t.nn.Linear(4, 1)),
}


@pytest.mark.parametrize("name", sorted(MODULES))
def test_hook_sees_what_pytorchs_sees(real_torch, name):
    got = _run(gtorch, MODULES[name])
    want = _run(real_torch, MODULES[name])
    assert got[1] == want[1]
    assert [(n, gi, [tuple(s) for s in go]) for n, gi, go in got[0]] == [
        (n, gi, [tuple(s) for s in go]) for n, gi, go in want[0]
    ]


def test_mixing_with_full_hooks_is_refused(real_torch):
    for t in (gtorch, real_torch):
        m = t.nn.Linear(1, 1)
        m.register_backward_hook(lambda *a: None)
        with pytest.raises(RuntimeError, match="Cannot use both regular backward hooks"):
            m.register_full_backward_hook(lambda *a: None)
