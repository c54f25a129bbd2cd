# In the style of PyTorch's "Defining new autograd Functions" tutorial (LegendrePolynomial3)
# and the MyReLU example of the autograd notes.
import math

import torch
from torch.autograd import Function
from torch.autograd.function import once_differentiable


class LegendrePolynomial3(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return 0.5 * (5 * input**3 - 3 * input)

    @staticmethod
    def backward(ctx, grad_output):
        (input,) = ctx.saved_tensors
        return grad_output * 1.5 * (5 * input**2 - 1)


dtype = torch.float
device = torch.device("cpu")
x = torch.linspace(-math.pi, math.pi, 200, device=device, dtype=dtype)
y = torch.sin(x)
a = torch.full((), 0.0, device=device, dtype=dtype, requires_grad=True)
b = torch.full((), -1.0, device=device, dtype=dtype, requires_grad=True)
c = torch.full((), 0.0, device=device, dtype=dtype, requires_grad=True)
d = torch.full((), 0.3, device=device, dtype=dtype, requires_grad=True)

learning_rate = 5e-5
for t in range(300):
    P3 = LegendrePolynomial3.apply
    y_pred = a + b * P3(c + d * x)
    loss = (y_pred - y).pow(2).sum()
    if t % 100 == 99:
        print(t, f"{loss.item():.4f}")
    loss.backward()
    with torch.no_grad():
        a -= learning_rate * a.grad
        b -= learning_rate * b.grad
        c -= learning_rate * c.grad
        d -= learning_rate * d.grad
        a.grad = None
        b.grad = None
        c.grad = None
        d.grad = None
print(f"Result: y = {a.item():.4f} + {b.item():.4f} * P3({c.item():.4f} + {d.item():.4f} x)")
print(y_pred.grad_fn.next_functions[1][0].next_functions[1][0])


class MyReLU(Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return input.clamp(min=0)

    @staticmethod
    def backward(ctx, grad_output):
        (input,) = ctx.saved_tensors
        grad_input = grad_output.clone()
        grad_input[input < 0] = 0
        return grad_input


torch.manual_seed(0)
x = torch.randn(2, 3, requires_grad=True)
out = MyReLU.apply(x)
print(out)
print(out.grad_fn.name(), out.grad_fn.needs_input_grad, out.is_leaf)
out.sum().backward()
print(x.grad)


class MulConstant(Function):
    @staticmethod
    def forward(ctx, tensor, constant):
        ctx.constant = constant
        return tensor * constant

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.constant, None


class Exp(Function):
    @staticmethod
    def forward(ctx, i):
        result = i.exp()
        ctx.save_for_backward(result)
        return result

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        (result,) = ctx.saved_tensors
        return grad_output * result


w = torch.tensor([1.0, 2.0], requires_grad=True)
z = MulConstant.apply(w, 3.0)
e = Exp.apply(z)
print(z, e)
e.sum().backward()
print(w.grad)
try:
    e.sum().backward()
except RuntimeError as err:
    print("RuntimeError:", str(err)[:60])

inp = torch.randn(4, dtype=torch.double, requires_grad=True)
print(torch.autograd.gradcheck(LegendrePolynomial3.apply, (inp,), eps=1e-6, atol=1e-4))
print(torch.autograd.gradcheck(MulConstant.apply, (inp, 2.0)))
