"""The two tutorial scripts of issue 6, run on gradshell and on PyTorch from the same
initial weights: every one of 200 losses must agree to 1e-5.

1. Fit y = 3x + 1 with nn.Linear(1, 1), MSELoss and SGD.
2. A 2-layer MLP (Linear-ReLU-Linear) with CrossEntropyLoss and Adam on a synthetic
   2-class problem (two Gaussian blobs).
"""

from __future__ import annotations

import numpy as np
import pytest

from gradshell import torch as gtorch

torch = pytest.importorskip("torch")

STEPS = 200


def copy_weights(src, dst, lib) -> None:
    """Copy the parameters of PyTorch module `src` into module `dst` (built with `lib`)."""
    with lib.no_grad():
        for (name, p), (name2, q) in zip(
            src.named_parameters(), dst.named_parameters(), strict=True
        ):
            assert name == name2
            q.copy_(lib.tensor(p.detach().numpy().copy()))


def fit_line(lib, x_np, y_np, init):
    """Tutorial 1: linear regression of y = 3x + 1 (with noise) by SGD."""
    nn = lib.nn
    model = nn.Linear(1, 1)
    copy_weights(init, model, lib)
    loss_fn = nn.MSELoss()
    opt = lib.optim.SGD(model.parameters(), lr=0.1)
    x, y = lib.tensor(x_np), lib.tensor(y_np)
    losses = []
    for _ in range(STEPS):
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses, model


def two_class_mlp(lib, x_np, labels_np, init):
    """Tutorial 2: a 2-16-2 ReLU MLP classifying two blobs with cross entropy and Adam."""
    nn = lib.nn
    model = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 2))
    copy_weights(init, model, lib)
    loss_fn = nn.CrossEntropyLoss()
    opt = lib.optim.Adam(model.parameters(), lr=0.01)
    x, labels = lib.tensor(x_np), lib.tensor(labels_np)
    losses = []
    for _ in range(STEPS):
        opt.zero_grad()
        loss = loss_fn(model(x), labels)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    accuracy = (model(x).argmax(1) == labels).float().mean().item()
    return losses, accuracy


def test_fit_line_matches_pytorch_at_every_step():
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, (64, 1)).astype(np.float32)
    y = (3 * x + 1 + 0.1 * rng.standard_normal((64, 1))).astype(np.float32)
    torch.manual_seed(0)
    init = torch.nn.Linear(1, 1)
    ours, model = fit_line(gtorch, x, y, init)
    theirs, tmodel = fit_line(torch, x, y, init)
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-7)
    assert ours[-1] < 0.02  # it has learnt the line
    assert abs(model.weight.item() - 3) < 0.1 and abs(model.bias.item() - 1) < 0.1
    np.testing.assert_allclose(model.weight.item(), tmodel.weight.item(), rtol=1e-5)


def test_two_class_mlp_matches_pytorch_at_every_step():
    rng = np.random.default_rng(1)
    n = 100
    a = rng.standard_normal((n, 2)) * 0.7 + np.array([1.5, 1.0])
    b = rng.standard_normal((n, 2)) * 0.7 + np.array([-1.0, -1.5])
    x = np.concatenate([a, b]).astype(np.float32)
    labels = np.concatenate([np.zeros(n), np.ones(n)]).astype(np.int64)
    torch.manual_seed(0)
    init = torch.nn.Sequential(torch.nn.Linear(2, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2))
    ours, acc = two_class_mlp(gtorch, x, labels, init)
    theirs, tacc = two_class_mlp(torch, x, labels, init)
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-7)
    assert acc == tacc and acc > 0.9


def test_same_seed_gives_pytorchs_initial_weights():
    torch.manual_seed(3)
    t = torch.nn.Sequential(torch.nn.Linear(2, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2))
    gtorch.manual_seed(3)
    g = gtorch.nn.Sequential(gtorch.nn.Linear(2, 16), gtorch.nn.ReLU(), gtorch.nn.Linear(16, 2))
    for p, q in zip(t.parameters(), g.parameters(), strict=True):
        np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())
