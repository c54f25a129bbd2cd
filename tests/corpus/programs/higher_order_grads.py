# torch.autograd.grad with create_graph: second derivatives, gradient penalties, Hessian-vector.
import torch

x = torch.tensor(2.0, requires_grad=True)
y = x ** 3
dy_dx, = torch.autograd.grad(y, x, create_graph=True)
print(dy_dx)
d2y_dx2, = torch.autograd.grad(dy_dx, x)
print(d2y_dx2)

x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
y = torch.sin(x).sum()
g, = torch.autograd.grad(y, x, create_graph=True)
print(g)
g.sum().backward()
print(x.grad)

torch.manual_seed(0)
w = torch.randn(3, requires_grad=True)
inp = torch.randn(4, 3, requires_grad=True)
out = torch.tanh(inp @ w).sum()
grads = torch.autograd.grad(out, inp, create_graph=True)[0]
penalty = grads.pow(2).sum()
print(penalty)
penalty.backward()
print(w.grad)

x = torch.randn(3, requires_grad=True)
v = torch.tensor([1.0, 0.0, 0.0])
f = (x ** 2 * x.sum()).sum()
gx, = torch.autograd.grad(f, x, create_graph=True)
hv, = torch.autograd.grad(gx, x, grad_outputs=v)
print(hv)

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * x
try:
    torch.autograd.grad(y, x)
except RuntimeError as e:
    print(e)
print(torch.autograd.grad(y, x, grad_outputs=torch.ones(2), retain_graph=True))
print(torch.autograd.grad(y.sum(), [x], retain_graph=True))
z = torch.tensor([3.0], requires_grad=True)
try:
    torch.autograd.grad(y.sum(), [x, z])
except RuntimeError as e:
    print(e)
print(torch.autograd.grad((x * 2).sum(), [x, z], allow_unused=True))
from torch.autograd.functional import jacobian, hessian
print(jacobian(lambda t: t ** 2, torch.tensor([1.0, 2.0])))
print(hessian(lambda t: (t ** 3).sum(), torch.tensor([1.0, 2.0])))
