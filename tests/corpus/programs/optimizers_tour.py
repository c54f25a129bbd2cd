# Optimizer comparisons from blog tutorials: SGD+nesterov, Adagrad, RMSprop(momentum),
# Adam(amsgrad), AdamW on a Rosenbrock-style function, and optimizer.state inspection.
import torch

def rosenbrock(xy):
    x, y = xy
    return (1 - x) ** 2 + 100 * (y - x ** 2) ** 2


for name, make in [
    ("SGD", lambda p: torch.optim.SGD([p], lr=1e-3)),
    ("SGD-nesterov", lambda p: torch.optim.SGD([p], lr=1e-3, momentum=0.9, nesterov=True)),
    ("Adagrad", lambda p: torch.optim.Adagrad([p], lr=0.1)),
    ("RMSprop", lambda p: torch.optim.RMSprop([p], lr=1e-3, momentum=0.5)),
    ("Adam", lambda p: torch.optim.Adam([p], lr=0.05)),
    ("Adam-amsgrad", lambda p: torch.optim.Adam([p], lr=0.05, amsgrad=True)),
    ("AdamW", lambda p: torch.optim.AdamW([p], lr=0.05, weight_decay=0.1)),
]:
    xy = torch.tensor([-1.5, 2.0], requires_grad=True)
    opt = make(xy)
    for step in range(100):
        opt.zero_grad()
        loss = rosenbrock(xy)
        loss.backward()
        opt.step()
    print(f"{name:13s} loss={rosenbrock(xy).item():.5f} xy={xy.detach().numpy().round(4)}")

p = torch.nn.Parameter(torch.tensor([1.0, -1.0]))
opt = torch.optim.Adam([p], lr=0.1)
(p ** 2).sum().backward()
opt.step()
state = opt.state[p]
print(sorted(state.keys()))
print(state['step'], state['exp_avg'], state['exp_avg_sq'])
print(opt.param_groups[0]['lr'], opt.defaults['betas'])
opt.param_groups[0]['lr'] = 0.01
print(opt)
sd = opt.state_dict()
print(sd['state'][0]['exp_avg'], sd['param_groups'][0]['params'])
