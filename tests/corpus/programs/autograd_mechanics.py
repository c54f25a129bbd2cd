# Autograd mechanics notes and tutorials: hooks, retain_grad, leaf checks and in-place errors.
import torch

a = torch.tensor([2.0, 3.0], requires_grad=True)
b = a * 2
b.retain_grad()
c = b.sum() * 3
c.backward()
print(a.grad, b.grad, a.is_leaf, b.is_leaf, c.is_leaf)

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
h = x.register_hook(lambda grad: grad * 2)
y = (x ** 2).sum()
y.backward()
print(x.grad)
h.remove()

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 3
y.register_hook(lambda g: print("grad at y:", g))
y.sum().backward()
print(x.grad)

try:
    x = torch.ones(3, requires_grad=True)
    x.add_(1)
except RuntimeError as e:
    print(e)

try:
    x = torch.ones(3, requires_grad=True)
    y = x.sigmoid()
    y.mul_(2)
    y.sum().backward()
    print(x.grad)
except RuntimeError as e:
    print(e)

try:
    x = torch.ones(3, requires_grad=True)
    y = x.exp()
    y += 1
    y.sum().backward()
except RuntimeError as e:
    print(e)

try:
    z = torch.ones(3)
    z.sum().backward()
except RuntimeError as e:
    print(e)

try:
    w = torch.ones(3, requires_grad=True)
    (w * 2).backward()
except RuntimeError as e:
    print(e)

try:
    t = torch.tensor([1, 2, 3], requires_grad=True)
except RuntimeError as e:
    print(e)

x = torch.tensor([1.0, 2.0], requires_grad=True)
print(x.grad_fn, (x + 1).grad_fn.next_functions)
with torch.no_grad():
    y = x * 2
print(y.requires_grad, y.grad_fn)
torch.set_grad_enabled(False)
print((x * 2).requires_grad)
torch.set_grad_enabled(True)
print((x * 2).requires_grad, torch.is_grad_enabled())


@torch.no_grad()
def doubler(t):
    return t * 2


print(doubler(x).requires_grad)
with torch.enable_grad():
    print((x * 2).requires_grad)

x = torch.ones(2, 2, requires_grad=True)
y = x.view(4)
print(y._version, y.grad_fn)
z = x.detach()
z.zero_()
print(x)
print(x.data_ptr() == z.data_ptr())
