# fast.ai lesson style: SGD from scratch on a line, with `with torch.no_grad(): p -= lr * p.grad`.
import torch
from torch import tensor

torch.manual_seed(42)
n = 100
x = torch.ones(n, 2)
x[:, 0].uniform_(-1., 1)
print(x[:5])
a = tensor([3., 2])
print(a)
y = x @ a + torch.rand(n)


def mse(y_hat, y): return ((y_hat - y)**2).mean()


a = tensor([-1., 1])
y_hat = x @ a
print(mse(y_hat, y))

a = torch.nn.Parameter(a)
print(a)


def update():
    y_hat = x @ a
    loss = mse(y, y_hat)
    if t % 10 == 0: print(loss)
    loss.backward()
    with torch.no_grad():
        a.sub_(lr * a.grad)
        a.grad.zero_()


lr = 1e-1
for t in range(100): update()
print(a)

# the same with a weights tensor and a bias, as in "fastbook" chapter 4
weights = torch.randn(2, 1).requires_grad_()
bias = torch.randn(1).requires_grad_()
params = weights, bias
for epoch in range(20):
    preds = x @ weights + bias
    loss = ((preds.squeeze() - y) ** 2).mean()
    loss.backward()
    for p in params:
        p.data -= p.grad.data * lr
        p.grad.zero_()
    if epoch % 5 == 4:
        print(epoch, round(loss.item(), 4))
print(weights.T, bias)
