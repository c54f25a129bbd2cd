"""Adamax, NAdam, RAdam and ASGD against PyTorch: every step's parameters (weight decay,
maximize, several parameter groups), state_dict contents, reprs and argument errors;
LBFGS with and without its strong-Wolfe line search.

Adamax and ASGD agree to the last bit. NAdam and RAdam divide by a square root, and
PyTorch's float32 CPU sqrt is not always correctly rounded (NumPy's is), so their numbers
are compared to a relative 1e-5 and everything else in their printout exactly."""

from __future__ import annotations

import re

import numpy as np
from support.tutorials import printed

from gradshell import torch as gtorch

TRAJECTORIES = """
W0 = [[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]]
X = torch.linspace(-1, 1, 12).reshape(4, 3)

def run(name, steps=12, dtype=torch.float32, **kw):
    w = torch.nn.Parameter(torch.tensor(W0, dtype=dtype))
    b = torch.nn.Parameter(torch.tensor([0.1, -0.2], dtype=dtype))
    opt = getattr(torch.optim, name)([{'params': [w]}, {'params': [b], 'lr': 0.03}], **kw)
    x = X.to(dtype)
    for _ in range(steps):
        opt.zero_grad()
        loss = ((x @ w.t() + b).tanh() ** 2).sum() + (w ** 4).sum() * 0.01
        loss.backward()
        opt.step()
        print(name, w.detach().flatten().tolist(), b.detach().tolist())
    sd = opt.state_dict()
    print(sd['param_groups'])
    for k, st in sd['state'].items():
        print(k, {key: (v.dtype, v.shape, v.flatten()[:3].tolist()) for key, v in st.items()})

run('Adamax')
run('Adamax', lr=0.05, betas=(0.8, 0.9), eps=1e-6, weight_decay=0.1)
run('Adamax', lr=0.05, maximize=True)
run('ASGD')
run('ASGD', lr=0.05, lambd=0.1, alpha=0.5, t0=3, weight_decay=0.1)
run('ASGD', lr=0.05, t0=0, maximize=True)
"""

SQRT_TRAJECTORIES = (
    TRAJECTORIES.split("run('Adamax')")[0]
    + """
run('NAdam')
run('NAdam', lr=0.05, momentum_decay=0.01, weight_decay=0.1)
run('NAdam', lr=0.05, weight_decay=0.1, decoupled_weight_decay=True, betas=(0.6, 0.7))
run('NAdam', lr=0.05, maximize=True)
run('RAdam')
run('RAdam', lr=0.05, betas=(0.9, 0.9), steps=15)
run('RAdam', lr=0.05, betas=(0.5, 0.8), weight_decay=0.1, decoupled_weight_decay=True)
run('RAdam', lr=0.05, betas=(0.5, 0.8), weight_decay=0.1)
"""
)


def test_trajectories_bit_for_bit(real_torch):
    assert printed(TRAJECTORIES, gtorch) == printed(TRAJECTORIES, real_torch)


_NUMBER = re.compile(r"-?\d+\.\d+(?:e-?\d+)?|-?\d+e-?\d+")


def test_trajectories_through_a_square_root(real_torch):
    ours = printed(SQRT_TRAJECTORIES, gtorch)
    theirs = printed(SQRT_TRAJECTORIES, real_torch)
    assert _NUMBER.sub("#", ours) == _NUMBER.sub("#", theirs)
    a = np.array([float(v) for v in _NUMBER.findall(ours)])
    b = np.array([float(v) for v in _NUMBER.findall(theirs)])
    np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-7)
    assert len(a) > 500


REPRS_AND_ERRORS = """
p = [torch.nn.Parameter(torch.zeros(2))]
for name in ['Adamax', 'NAdam', 'RAdam', 'ASGD']:
    print(getattr(torch.optim, name)(p))
print(torch.optim.NAdam(p, lr=0.1, foreach=False, maximize=True))
makers = [
    lambda: torch.optim.Adamax(p, lr=-1),
    lambda: torch.optim.Adamax(p, betas=(1.0, 0.9)),
    lambda: torch.optim.Adamax(p, eps=-1),
    lambda: torch.optim.NAdam(p, betas=(0.9, 1.5)),
    lambda: torch.optim.NAdam(p, momentum_decay=-1),
    lambda: torch.optim.NAdam(p, weight_decay=-1),
    lambda: torch.optim.RAdam(p, lr=-0.5),
    lambda: torch.optim.RAdam(p, eps=-0.5),
    lambda: torch.optim.ASGD(p, lr=-1),
    lambda: torch.optim.ASGD(p, weight_decay=-1),
    lambda: torch.optim.ASGD([]),
]
for make in makers:
    try:
        make()
    except ValueError as e:
        print(e)
print(issubclass(torch.optim.RAdam, torch.optim.Optimizer), torch.optim.ASGD.__name__)
"""


def test_reprs_and_errors(real_torch):
    assert printed(REPRS_AND_ERRORS, gtorch) == printed(REPRS_AND_ERRORS, real_torch)


LBFGS_RUNS = """
import warnings
warnings.simplefilter("ignore")

def run(steps=5, **kw):
    p = torch.nn.Parameter(torch.tensor([-1.5, 2.0, 0.5, -0.7], dtype=torch.float64))
    opt = torch.optim.LBFGS([p], **kw)
    def closure():
        opt.zero_grad()
        a, b = p[:-1], p[1:]
        loss = ((1 - a) ** 2 + 100 * (b - a * a) ** 2).sum()
        loss.backward()
        return loss
    for _ in range(steps):
        loss = opt.step(closure)
        st = opt.state[p]
        print(loss.item(), p.tolist(), st['func_evals'], st['n_iter'], len(st['old_dirs']))
    print(list(opt.state[p]), list(opt.state_dict()['state'][0]))
    return opt

print(run())
run(lr=0.5, history_size=3, max_iter=7)
run(line_search_fn='strong_wolfe')
run(line_search_fn='strong_wolfe', history_size=2, lr=0.8, max_iter=10)
run(steps=2, max_iter=50, tolerance_grad=1e-3, tolerance_change=1e-6)
p = [torch.nn.Parameter(torch.zeros(2))]
for make in [lambda: torch.optim.LBFGS(p, lr=-1),
             lambda: torch.optim.LBFGS([{'params': p}, {'params': [torch.nn.Parameter(torch.ones(1))]}]),
             lambda: torch.optim.LBFGS(p, line_search_fn='armijo').step(lambda: p[0].sum())]:
    try:
        make()
    except (ValueError, RuntimeError) as e:
        print(type(e).__name__, e)
"""

_FLOAT = re.compile(r"-?\d+\.\d+(?:e-?\d+)?")


def test_lbfgs_follows_pytorch(real_torch):
    """Float64 on the Rosenbrock function: the same iterations, evaluations and kept
    pairs, and the same points to 1e-9 (its float32 dot products round as PyTorch's
    kernels round only to about 1e-7, which L-BFGS amplifies)."""
    ours = printed(LBFGS_RUNS, gtorch)
    theirs = printed(LBFGS_RUNS, real_torch)
    assert _FLOAT.sub("#", ours) == _FLOAT.sub("#", theirs)
    a = np.array([float(v) for v in _FLOAT.findall(ours)])
    b = np.array([float(v) for v in _FLOAT.findall(theirs)])
    np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)
    assert "LBFGS (" in ours and "ValueError LBFGS doesn't support" in ours
