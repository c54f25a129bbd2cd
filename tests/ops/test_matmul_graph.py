"""matmul composes the same nodes as PyTorch for every rank pairing, requires_grad
combination and layout (fold into mm/mv, transposed fold, batch-of-one squeeze, bmm)."""

import itertools

import numpy as np
import pytest

from gradshell import torch as gtorch

LHS = [(3,), (2, 3), (1, 2, 3), (5, 2, 3), (1, 5, 2, 3), (4, 1, 2, 3)]
RHS = [(3,), (3, 4), (1, 3, 4), (5, 3, 4), (4, 5, 3, 4)]


def _chain(t):
    out, stack = [], [t.grad_fn]
    while stack:
        n = stack.pop()
        if n is None or type(n).__name__ == "AccumulateGrad":
            continue
        out.append(type(n).__name__)
        stack.extend(f for f, _ in n.next_functions)
    return out


def _operands(mod, a, b, ra, rb, transposed):
    x = mod.ones(*a, requires_grad=bool(ra))
    if transposed and len(a) >= 2:
        x = mod.ones(*(a[:-2] + (a[-1], a[-2])), requires_grad=bool(ra)).transpose(-1, -2)
    y = mod.ones(*b, requires_grad=bool(rb))
    return x, y


@pytest.mark.parametrize(
    "a,b,ra,rb,transposed",
    [
        (a, b, ra, rb, tr)
        for a, b in itertools.product(LHS, RHS)
        for ra, rb in [(1, 1), (1, 0), (0, 1)]
        for tr in (0, 1)
    ],
)
def test_matmul_nodes_match_pytorch(real_torch, a, b, ra, rb, transposed):
    def run(mod):
        x, y = _operands(mod, a, b, ra, rb, transposed)
        try:
            r = x @ y
        except RuntimeError as e:
            return str(e)
        r.sum().backward()
        grads = [None if t.grad is None else t.grad.numpy() for t in (x, y) if t.is_leaf]
        return _chain(r), tuple(r.shape), grads

    ours, theirs = run(gtorch), run(real_torch)
    if isinstance(theirs, str):
        assert ours == theirs
        return
    assert ours[:2] == theirs[:2]
    for g, h in zip(ours[2], theirs[2], strict=True):
        assert (g is None) == (h is None)
        if g is not None:
            np.testing.assert_allclose(g, h, rtol=1e-6)
