# Errors learners meet in tutorials, caught and printed.
import torch
import torch.nn as nn

torch.manual_seed(0)
a = torch.randn(2, 3)
b = torch.randn(4, 5)
for f in [lambda: a @ b, lambda: torch.mm(a, b), lambda: a + b, lambda: a.view(4, 2),
          lambda: torch.cat([a, b]), lambda: a.t().view(6), lambda: torch.stack([a, b]),
          lambda: nn.Linear(4, 2)(a), lambda: a[5], lambda: a.reshape(5, -1),
          lambda: torch.tensor([1, 2]) + torch.tensor([1.5]).long().float().int().bool().item() * "x"]:
    try:
        f()
    except (RuntimeError, IndexError, TypeError) as e:
        print(type(e).__name__ + ":", e)

loss_fn = nn.CrossEntropyLoss()
try:
    loss_fn(torch.randn(3, 5), torch.tensor([1, 2, 7]))
except IndexError as e:
    print("IndexError:", e)
try:
    loss_fn(torch.randn(3, 5), torch.tensor([1.0, 2.0, 0.0]))
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    nn.MSELoss()(torch.randn(3), torch.randn(3, 1))
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    x = torch.randn(3, requires_grad=True)
    x.numpy()
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    torch.tensor([[1, 2], [3]])
except ValueError as e:
    print("ValueError:", e)
try:
    torch.ones(2, 2).item()
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    torch.zeros(3).long() / 0
    print(torch.tensor([1, 2]) // 0)
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    torch.ones(2, dtype=torch.int64).mean()
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    nn.Linear(2, 2)(torch.ones(2, 2, dtype=torch.float64))
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    torch.ones(2, 3).expand(4, 3)
except RuntimeError as e:
    print("RuntimeError:", e)
x = torch.ones(2, requires_grad=True)
y = (x * x).sum()
y.backward()
try:
    y.backward()
except RuntimeError as e:
    print("RuntimeError:", e)
