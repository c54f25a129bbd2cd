"""torch.optim: SGD (momentum, dampening, weight decay, Nesterov, maximize), Adam and AdamW
(amsgrad, weight decay, maximize) follow PyTorch's parameter trajectories step by step;
zero_grad, param groups, state_dict/load_state_dict, reprs and errors match PyTorch."""

from __future__ import annotations

import numpy as np
import pytest

from gradshell import torch as gtorch

torch = pytest.importorskip("torch")

W0 = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], np.float32)
B0 = np.array([0.1, -0.2], np.float32)
X = np.linspace(-1, 1, 12).reshape(4, 3).astype(np.float32)


def trajectory(lib, opt_name, kwargs, steps=15):
    """Parameters after each of `steps` optimiser steps on a small non-quadratic loss."""
    w = lib.nn.Parameter(lib.tensor(W0))
    b = lib.nn.Parameter(lib.tensor(B0))
    opt = getattr(lib.optim, opt_name)([w, b], **kwargs)
    x = lib.tensor(X)
    out = []
    for _ in range(steps):
        opt.zero_grad()
        loss = ((x @ w.t() + b).tanh() ** 2).sum() + (w**4).sum() * 0.01
        loss.backward()
        opt.step()
        out.append((w.detach().numpy().copy(), b.detach().numpy().copy()))
    return out, opt


CONFIGS = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.05, "momentum": 0.9}),
    ("SGD", {"lr": 0.05, "momentum": 0.9, "dampening": 0.3}),
    ("SGD", {"lr": 0.05, "momentum": 0.8, "nesterov": True}),
    ("SGD", {"lr": 0.05, "momentum": 0.5, "weight_decay": 0.1}),
    ("SGD", {"lr": 0.05, "maximize": True}),
    ("Adam", {}),
    ("Adam", {"lr": 0.05}),
    ("Adam", {"lr": 0.05, "betas": (0.8, 0.9), "eps": 1e-6}),
    ("Adam", {"lr": 0.05, "weight_decay": 0.1}),
    ("Adam", {"lr": 0.05, "amsgrad": True}),
    ("Adam", {"lr": 0.05, "maximize": True}),
    ("Adam", {"lr": 0.05, "betas": (0.3, 0.5)}),
    ("AdamW", {}),
    ("AdamW", {"lr": 0.05, "weight_decay": 0.5}),
    ("AdamW", {"lr": 0.05, "amsgrad": True}),
]


@pytest.mark.parametrize("name,kwargs", CONFIGS, ids=[f"{n}{k}" for n, k in CONFIGS])
def test_trajectories_match_pytorch(name, kwargs):
    ours, gopt = trajectory(gtorch, name, kwargs)
    theirs, topt = trajectory(torch, name, kwargs)
    for step, ((w1, b1), (w2, b2)) in enumerate(zip(ours, theirs, strict=True)):
        np.testing.assert_allclose(w1, w2, rtol=2e-5, atol=2e-6, err_msg=f"step {step}")
        np.testing.assert_allclose(b1, b2, rtol=2e-5, atol=2e-6, err_msg=f"step {step}")
    assert repr(gopt) == repr(topt)
    gsd, tsd = gopt.state_dict(), topt.state_dict()
    assert gsd["param_groups"] == tsd["param_groups"]
    assert list(gsd["state"]) == list(tsd["state"])
    for k in tsd["state"]:
        assert list(gsd["state"][k]) == list(tsd["state"][k])
        for key, value in tsd["state"][k].items():
            ours_v = gsd["state"][k][key]
            assert repr(ours_v.dtype) == repr(value.dtype), key
            np.testing.assert_allclose(ours_v.numpy(), value.numpy(), rtol=2e-5, atol=5e-6)


def test_state_dict_printed_like_pytorch():
    _, gopt = trajectory(gtorch, "SGD", {"lr": 0.1, "momentum": 0.9}, steps=0)
    _, topt = trajectory(torch, "SGD", {"lr": 0.1, "momentum": 0.9}, steps=0)
    assert repr(gopt.state_dict()) == repr(topt.state_dict())
    _, gopt = trajectory(gtorch, "Adam", {}, steps=1)
    _, topt = trajectory(torch, "Adam", {}, steps=1)
    assert repr(gopt.state_dict()["state"][0]["step"]) == repr(
        topt.state_dict()["state"][0]["step"]
    )


def test_zero_grad_defaults_to_none():
    w = gtorch.nn.Parameter(gtorch.ones(2))
    opt = gtorch.optim.SGD([w], lr=0.1)
    (w * w).sum().backward()
    opt.zero_grad(set_to_none=False)
    np.testing.assert_array_equal(w.grad.numpy(), [0, 0])
    opt.zero_grad()
    assert w.grad is None


def test_param_groups_and_load_state_dict():
    a, b = gtorch.nn.Parameter(gtorch.ones(2)), gtorch.nn.Parameter(gtorch.ones(3))
    opt = gtorch.optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.5}], lr=0.1, momentum=0.9)
    ta, tb = torch.nn.Parameter(torch.ones(2)), torch.nn.Parameter(torch.ones(3))
    topt = torch.optim.SGD([{"params": [ta]}, {"params": [tb], "lr": 0.5}], lr=0.1, momentum=0.9)
    assert repr(opt) == repr(topt)
    for p, q, o in ((a, b, opt), (ta, tb, topt)):
        ((p * p).sum() + (q**3).sum()).backward()
        o.step()
    np.testing.assert_allclose(b.detach().numpy(), tb.detach().numpy(), rtol=1e-6)
    fresh = gtorch.optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.5}], lr=0.1, momentum=0.9)
    fresh.load_state_dict(opt.state_dict())
    np.testing.assert_array_equal(
        fresh.state[b]["momentum_buffer"].numpy(), opt.state[b]["momentum_buffer"].numpy()
    )
    assert fresh.param_groups[1]["lr"] == 0.5


@pytest.mark.parametrize(
    "make",
    [
        lambda lib, p: lib.optim.SGD([p], lr=-1),
        lambda lib, p: lib.optim.SGD([p], lr=0.1, momentum=-1),
        lambda lib, p: lib.optim.SGD([p], lr=0.1, nesterov=True),
        lambda lib, p: lib.optim.SGD([p], lr=0.1, weight_decay=-1),
        lambda lib, p: lib.optim.Adam([p], lr=-1),
        lambda lib, p: lib.optim.Adam([p], betas=(1.0, 0.9)),
        lambda lib, p: lib.optim.Adam([p], betas=(0.9, -0.1)),
        lambda lib, p: lib.optim.Adam([p], eps=-1),
        lambda lib, p: lib.optim.AdamW([p], weight_decay=-1),
        lambda lib, p: lib.optim.SGD([], lr=0.1),
        lambda lib, p: lib.optim.SGD(p, lr=0.1),
        lambda lib, p: lib.optim.SGD([p * 2], lr=0.1),
        lambda lib, p: lib.optim.SGD([{"params": [p]}, {"params": [p]}], lr=0.1),
    ],
)
def test_errors_match_pytorch(make):
    msgs = []
    for lib in (gtorch, torch):
        p = lib.nn.Parameter(lib.ones(2))
        with pytest.raises(Exception) as e:
            make(lib, p)
        msgs.append((type(e.value).__name__, str(e.value)))
    assert msgs[0] == msgs[1]


def test_closure_and_module_parameters():
    model = gtorch.nn.Linear(3, 1)
    opt = gtorch.optim.SGD(model.parameters(), lr=0.1)
    x, y = gtorch.ones(4, 3), gtorch.zeros(4, 1)

    def closure():
        opt.zero_grad()
        loss = gtorch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        return loss

    first = opt.step(closure).item()
    for _ in range(20):
        last = opt.step(closure).item()
    assert last < first
