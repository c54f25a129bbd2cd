"""MultiStepLR, LambdaLR, MultiplicativeLR, CosineAnnealingLR and ReduceLROnPlateau
against PyTorch (found by the tutorial corpus: training loops that schedule the learning
rate): every epoch's learning rate to the last bit, state_dict, errors, and the closed
form step(epoch)."""

from __future__ import annotations

import warnings

from support.tutorials import printed

from gradshell import torch as gtorch

SCHEDULES = """
S = torch.optim.lr_scheduler
p = [torch.nn.Parameter(torch.zeros(1))]

def run(make, n=12, metric=None):
    opt = torch.optim.SGD(p, lr=0.1, momentum=0.9)
    sch = make(opt)
    lrs = []
    for epoch in range(n):
        opt.step()
        if metric is None:
            sch.step()
        else:
            sch.step(metric(epoch))
        lrs.append(opt.param_groups[0]['lr'])
    print(type(sch).__name__, lrs, sch.get_last_lr())
    return sch

run(lambda o: S.MultiStepLR(o, milestones=[3, 6, 6, 9], gamma=0.5))
run(lambda o: S.LambdaLR(o, lr_lambda=lambda epoch: 0.95 ** epoch))
run(lambda o: S.MultiplicativeLR(o, lr_lambda=lambda epoch: 0.9))
run(lambda o: S.CosineAnnealingLR(o, T_max=5, eta_min=0.001), n=25)
s = run(lambda o: S.ReduceLROnPlateau(o, 'min', factor=0.5, patience=2), metric=lambda e: 1.0 if e > 2 else 2.0 - e)
print(s.num_bad_epochs, s.best, s.in_cooldown, s.state_dict()['best'])
s = run(lambda o: S.ReduceLROnPlateau(o, mode='max', patience=1, cooldown=2, min_lr=0.02, threshold_mode='abs'), metric=lambda e: torch.tensor(0.5))
sd = run(lambda o: S.LambdaLR(o, lr_lambda=lambda epoch: 1 / (epoch + 1))).state_dict()
print(sorted(sd.keys()), sd['lr_lambdas'])
try:
    S.ReduceLROnPlateau(torch.optim.SGD(p, lr=0.1), factor=1.5)
except ValueError as e:
    print(e)
try:
    S.LambdaLR(torch.optim.SGD(p, lr=0.1), lr_lambda=[lambda e: 1, lambda e: 2])
except ValueError as e:
    print(e)
print(S.CosineAnnealingLR, issubclass(S.ReduceLROnPlateau, S.LRScheduler))
opt = torch.optim.SGD(p, lr=1.0)
c = S.CosineAnnealingLR(opt, T_max=10)
c.step(3)
print(opt.param_groups[0]['lr'])
"""


def test_schedules(real_torch):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # step(epoch)'s deprecation: shown by the shell
        assert printed(SCHEDULES, gtorch) == printed(SCHEDULES, real_torch)
