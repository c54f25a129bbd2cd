"""RMSprop, Adagrad, Adadelta and the StepLR / ExponentialLR schedulers against PyTorch: parameter
trajectories from the same gradients, reprs, state_dict contents, scheduler warnings."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from support.tutorials import printed

from gradshell import torch as gtorch

RNG = np.random.default_rng(0)
W = RNG.standard_normal((3, 4)).astype(np.float32)
GRADS = [RNG.standard_normal((3, 4)).astype(np.float32) for _ in range(6)]

CONFIGS = [
    ("RMSprop", {}),
    ("RMSprop", {"lr": 0.05, "alpha": 0.9, "momentum": 0.5, "centered": True, "weight_decay": 0.1}),
    ("RMSprop", {"momentum": 0.9, "maximize": True}),
    ("RMSprop", {"centered": True}),
    ("Adagrad", {}),
    (
        "Adagrad",
        {"lr": 0.1, "lr_decay": 0.01, "weight_decay": 0.05, "initial_accumulator_value": 0.1},
    ),
    ("Adagrad", {"maximize": True, "eps": 1e-6}),
    ("Adadelta", {}),
    ("Adadelta", {"lr": 0.5, "rho": 0.8, "eps": 1e-4, "weight_decay": 0.1, "maximize": True}),
]


def trajectory(lib, name: str, kwargs: dict) -> list:
    w = lib.tensor(W.copy(), requires_grad=True)
    opt = getattr(lib.optim, name)([w], **kwargs)
    out = []
    for g in GRADS:
        w.grad = lib.tensor(g.copy())
        opt.step()
        out.append(w.detach().numpy().copy())
    return out, opt


@pytest.mark.parametrize("name,kwargs", CONFIGS)
def test_updates_follow_pytorch(real_torch, name, kwargs):
    ours, o_opt = trajectory(gtorch, name, kwargs)
    theirs, t_opt = trajectory(real_torch, name, kwargs)
    for a, b in zip(ours, theirs, strict=True):
        # the same formulas and fused multiply-adds; the last bit can still differ where
        # PyTorch's float32 sqrt does (see the float-exactness issue)
        np.testing.assert_allclose(a, b, rtol=2e-6, atol=1e-7)
    assert repr(o_opt) == repr(t_opt)
    o_state, t_state = o_opt.state_dict(), t_opt.state_dict()
    assert list(o_state["state"][0]) == list(t_state["state"][0])
    assert o_state["param_groups"] == t_state["param_groups"]


def test_adagrad_state_exists_before_the_first_step(real_torch):
    for lib in (gtorch, real_torch):
        opt = lib.optim.Adagrad([lib.zeros(2, requires_grad=True)], initial_accumulator_value=0.5)
        state = opt.state_dict()["state"][0]
        assert float(state["step"]) == 0.0
        assert state["sum"].tolist() == [0.5, 0.5]


@pytest.mark.parametrize(
    "make",
    [
        lambda lib: lib.optim.RMSprop([lib.zeros(1, requires_grad=True)], lr=-1),
        lambda lib: lib.optim.RMSprop([lib.zeros(1, requires_grad=True)], alpha=-1),
        lambda lib: lib.optim.Adagrad([lib.zeros(1, requires_grad=True)], lr_decay=-1),
        lambda lib: lib.optim.Adagrad(
            [lib.zeros(1, requires_grad=True)], initial_accumulator_value=-1
        ),
    ],
)
def test_invalid_hyperparameters(real_torch, make):
    with pytest.raises(ValueError) as theirs:
        make(real_torch)
    with pytest.raises(ValueError) as ours:
        make(gtorch)
    assert str(ours.value) == str(theirs.value)


SCHEDULE = """
w = torch.zeros(2, requires_grad=True)
opt = torch.optim.SGD([w], lr=0.1)
s = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
print(s.get_last_lr(), s.state_dict())
print(opt)
for e in range(5):
    opt.step()
    s.step()
    print(e, s.get_last_lr(), opt.param_groups[0]['lr'], s.last_epoch)
print(s.state_dict())
e = torch.optim.lr_scheduler.ExponentialLR(torch.optim.Adam([w], lr=1.0), gamma=0.9)
for i in range(3):
    e.optimizer.step()
    e.step()
print(e.get_last_lr(), e.last_epoch, type(e), type(s))
s2 = torch.optim.lr_scheduler.StepLR(opt, 3)
s2.load_state_dict(s.state_dict())
print(s2.step_size, s2.get_last_lr())
print(torch.optim.lr_scheduler.StepLR(opt, 3, last_epoch=4).get_last_lr())
s.step(7)
print(s.get_last_lr())
try:
    torch.optim.lr_scheduler.StepLR(torch.optim.SGD([w], lr=0.1), 2, last_epoch=3)
except KeyError as err:
    print('KeyError', err.args[0].splitlines()[0])
"""


def test_schedulers_print_what_pytorch_prints(real_torch):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert printed(SCHEDULE, gtorch) == printed(SCHEDULE, real_torch)


@pytest.mark.parametrize("order", ["scheduler_first", "optimizer_first"])
def test_order_warning(real_torch, order):
    def warned(lib) -> list:
        w = lib.zeros(1, requires_grad=True)
        opt = lib.optim.SGD([w], lr=0.1)
        sched = lib.optim.lr_scheduler.ExponentialLR(opt, 0.5)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            if order == "optimizer_first":
                opt.step()
            sched.step()
        return [str(c.message) for c in caught]

    assert warned(gtorch) == warned(real_torch)
