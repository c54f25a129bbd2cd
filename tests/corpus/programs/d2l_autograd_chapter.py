# Dive into Deep Learning 2.5: Automatic Differentiation, incl. detach and control flow.
import torch

x = torch.arange(4.0)
print(x)
x.requires_grad_(True)  # Better create `x = torch.arange(4.0, requires_grad=True)`
print(x.grad)  # The default value is None

y = 2 * torch.dot(x, x)
print(y)
y.backward()
print(x.grad)
print(x.grad == 4 * x)

x.grad.zero_()  # Reset the gradient
y = x.sum()
y.backward()
print(x.grad)

x.grad.zero_()
y = x * x
y.backward(gradient=torch.ones(len(y)))  # Faster: y.sum().backward()
print(x.grad)

x.grad.zero_()
y = x * x
u = y.detach()
z = u * x

z.sum().backward()
print(x.grad == u)

x.grad.zero_()
y.sum().backward()
print(x.grad == 2 * x)


def f(a):
    b = a * 2
    while b.norm() < 1000:
        b = b * 2
    if b.sum() > 0:
        c = b
    else:
        c = 100 * b
    return c


torch.manual_seed(0)
a = torch.randn(size=(), requires_grad=True)
d = f(a)
d.backward()
print(a.grad == d / a)
print(a, d, a.grad)

a = torch.randn(size=(3,), requires_grad=True)
d = f(a)
d.sum().backward()
print(a.grad)

try:
    y = x * x
    y.backward()
except RuntimeError as e:
    print(e)

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x ** 3
y.sum().backward(retain_graph=True)
print(x.grad)
y.sum().backward()
print(x.grad)
try:
    y.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)
