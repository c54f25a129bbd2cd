"""Finite-difference gradient checks in float64 (like torch.autograd.gradcheck)."""

from __future__ import annotations

import numpy as np

from gradshell import torch as gtorch


def numerical_jacobian(fn, inputs: list, eps: float = 1e-6) -> list[np.ndarray]:
    """d(sum(fn(*inputs) * probe))/d input, by central differences, for each input."""
    out = fn(*inputs)
    probe = np.random.default_rng(0).standard_normal(out.shape)
    grads = []
    for t in inputs:
        base = t.detach().numpy()
        g = np.zeros_like(base)
        it = np.nditer(base, flags=["multi_index"])
        for _ in it:
            idx = it.multi_index
            old = base[idx]
            base[idx] = old + eps
            plus = (fn(*inputs).detach().numpy() * probe).sum()
            base[idx] = old - eps
            minus = (fn(*inputs).detach().numpy() * probe).sum()
            base[idx] = old
            g[idx] = (plus - minus) / (2 * eps)
        grads.append(g)
    return grads, probe


def gradcheck(fn, *arrays, atol: float = 1e-5, rtol: float = 1e-4) -> None:
    """Assert that backward through `fn` matches finite differences at `arrays` (float64)."""
    inputs = [gtorch.tensor(np.asarray(a, dtype=np.float64), requires_grad=True) for a in arrays]
    expected, probe = numerical_jacobian(fn, inputs)
    out = fn(*inputs)
    out.backward(gtorch.tensor(probe))
    for t, e in zip(inputs, expected, strict=True):
        got = np.zeros_like(e) if t.grad is None else t.grad.numpy()
        np.testing.assert_allclose(got, e, atol=atol, rtol=rtol)
