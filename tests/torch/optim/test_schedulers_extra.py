"""ConstantLR, LinearLR, PolynomialLR, CosineAnnealingWarmRestarts, CyclicLR and
OneCycleLR against PyTorch: every step's learning rate (and momentum, for the cyclic
schedules) to the last bit over many steps, get_last_lr(), state_dict keys, the closed
form step(epoch), and argument errors."""

from __future__ import annotations

import warnings

from support.tutorials import printed

from gradshell import torch as gtorch

SCHEDULES = """
S = torch.optim.lr_scheduler
p = [torch.nn.Parameter(torch.zeros(1))]
q = [torch.nn.Parameter(torch.zeros(1))]

def run(make, n=40, opt='SGD', **kw):
    if opt == 'SGD':
        o = torch.optim.SGD([{'params': p}, {'params': q, 'lr': 0.5}], lr=0.1, momentum=0.9, **kw)
    else:
        o = torch.optim.Adam([{'params': p}, {'params': q, 'lr': 0.5}], lr=0.1, **kw)
    sch = make(o)
    rows = []
    for _ in range(n):
        o.step()
        sch.step()
        g = o.param_groups
        m = g[0]['momentum'] if 'momentum' in g[0] else g[0]['betas'][0]
        rows.append((g[0]['lr'], g[1]['lr'], m))
    print(type(sch).__name__, rows)
    print(sch.get_last_lr(), sorted(sch.state_dict()), sorted(o.param_groups[1]))
    return sch

run(lambda o: S.ConstantLR(o))
run(lambda o: S.ConstantLR(o, factor=0.5, total_iters=7), n=10)
run(lambda o: S.LinearLR(o))
run(lambda o: S.LinearLR(o, start_factor=0.1, end_factor=0.7, total_iters=13))
run(lambda o: S.LinearLR(o, start_factor=1.0, end_factor=0.0, total_iters=30))
run(lambda o: S.PolynomialLR(o))
run(lambda o: S.PolynomialLR(o, total_iters=25, power=2.0))
run(lambda o: S.PolynomialLR(o, total_iters=17, power=0.5))
run(lambda o: S.CosineAnnealingWarmRestarts(o, T_0=5), n=60)
run(lambda o: S.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=0.001), n=60)
run(lambda o: S.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=4), n=60)
run(lambda o: S.CyclicLR(o, 0.01, [0.1, 0.2], step_size_up=3, step_size_down=5, mode='triangular2'), n=60)
run(lambda o: S.CyclicLR(o, 0.001, 0.1, step_size_up=5, mode='exp_range', gamma=0.97), n=60)
run(lambda o: S.CyclicLR(o, 0.001, 0.1, 5, scale_fn=lambda x: 0.5 ** x, scale_mode='iterations', cycle_momentum=False), n=30)
run(lambda o: S.CyclicLR(o, 0.001, 0.1, 4, base_momentum=0.7, max_momentum=[0.95, 0.9]), opt='Adam', n=30)
run(lambda o: S.OneCycleLR(o, max_lr=0.1, total_steps=100), n=100)
run(lambda o: S.OneCycleLR(o, max_lr=[0.1, 1.0], epochs=5, steps_per_epoch=9, anneal_strategy='linear'), n=45)
run(lambda o: S.OneCycleLR(o, max_lr=0.3, total_steps=50, pct_start=0.25, three_phase=True, div_factor=10.0, final_div_factor=100.0), n=50)
run(lambda o: S.OneCycleLR(o, max_lr=0.01, total_steps=30, base_momentum=0.8, max_momentum=0.99), opt='Adam', n=30)
run(lambda o: S.OneCycleLR(o, max_lr=0.01, total_steps=20, cycle_momentum=False), n=20)

o = torch.optim.SGD(p, lr=1.0)
for make, epochs in [(lambda: S.LinearLR(o, 0.2, total_iters=8), [3, 11]),
                     (lambda: S.PolynomialLR(o, 10, 2.0), [4, 20]),
                     (lambda: S.ConstantLR(o, 0.3, 4), [2, 5]),
                     (lambda: S.CosineAnnealingWarmRestarts(o, 4, 2), [3, 9, 2.5, 30])]:
    s = make()
    for e in epochs:
        s.step(e)
        print(type(s).__name__, e, o.param_groups[0]['lr'], s.last_epoch)
s = S.CyclicLR(torch.optim.SGD(p, lr=1.0, momentum=0.5), 0.1, 1.0, scale_fn=lambda x: 1.0)
print(s.state_dict()['_scale_fn_custom'], 'scale_fn' in s.state_dict(), s.scale_mode)
o = torch.optim.SGD(p, lr=1.0, momentum=0.5)
s = S.OneCycleLR(o, 1.0, total_steps=3)
try:
    for _ in range(5):
        s.step()
except ValueError as e:
    print(e)

makers = [
    lambda: S.ConstantLR(torch.optim.SGD(p, lr=1.0), factor=2),
    lambda: S.LinearLR(torch.optim.SGD(p, lr=1.0), start_factor=0),
    lambda: S.LinearLR(torch.optim.SGD(p, lr=1.0), end_factor=1.5),
    lambda: S.CosineAnnealingWarmRestarts(torch.optim.SGD(p, lr=1.0), T_0=0),
    lambda: S.CosineAnnealingWarmRestarts(torch.optim.SGD(p, lr=1.0), T_0=2, T_mult=1.5),
    lambda: S.CosineAnnealingWarmRestarts(torch.optim.SGD(p, lr=1.0), T_0=2, eta_min='x'),
    lambda: S.CosineAnnealingWarmRestarts(torch.optim.SGD(p, lr=1.0), 2).step(-1),
    lambda: S.CyclicLR(torch.optim.SGD(p, lr=1.0, momentum=0.9), 0.1, 1.0, mode='bad'),
    lambda: S.CyclicLR(torch.optim.SGD(p, lr=1.0), 0.1, 1.0),
    lambda: S.CyclicLR(torch.optim.SGD(p, lr=1.0, momentum=0.9), [0.1, 0.2], 1.0),
    lambda: S.OneCycleLR(torch.optim.SGD(p, lr=1.0, momentum=0.9), 1.0),
    lambda: S.OneCycleLR(torch.optim.SGD(p, lr=1.0, momentum=0.9), 1.0, total_steps=0),
    lambda: S.OneCycleLR(torch.optim.SGD(p, lr=1.0, momentum=0.9), 1.0, epochs=0, steps_per_epoch=3),
    lambda: S.OneCycleLR(torch.optim.SGD(p, lr=1.0, momentum=0.9), 1.0, epochs=2, steps_per_epoch=-3),
    lambda: S.OneCycleLR(torch.optim.SGD(p, lr=1.0, momentum=0.9), 1.0, 10, pct_start=1),
    lambda: S.OneCycleLR(torch.optim.SGD(p, lr=1.0, momentum=0.9), 1.0, 10, anneal_strategy='exp'),
    lambda: S.OneCycleLR(torch.optim.SGD(p, lr=1.0), 1.0, 10),
    lambda: S.OneCycleLR(torch.optim.SGD(p, lr=1.0, momentum=0.9), [1.0, 2.0], 10),
    lambda: S.CyclicLR(p, 0.1, 1.0),
]
for make in makers:
    try:
        make()
    except (ValueError, TypeError) as e:
        print(type(e).__name__, e)
"""


def test_schedules_match_pytorch(real_torch):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # step(epoch)'s deprecation: shown by the shell
        ours = printed(SCHEDULES, gtorch)
        assert ours == printed(SCHEDULES, real_torch)
    assert len(ours.splitlines()) > 60  # the whole program ran
