# "Learning PyTorch with Examples" (older edition) MyReLU, plus a custom exp and gradcheck.
import torch


class MyReLU(torch.autograd.Function):
    """
    We can implement our own custom autograd Functions by subclassing
    torch.autograd.Function and implementing the forward and backward passes
    which operate on Tensors.
    """

    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return input.clamp(min=0)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        grad_input = grad_output.clone()
        grad_input[input < 0] = 0
        return grad_input


class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, i):
        result = i.exp()
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        result, = ctx.saved_tensors
        return grad_output * result


dtype = torch.float
N, D_in, H, D_out = 16, 10, 8, 3
torch.manual_seed(0)
x = torch.randn(N, D_in, dtype=dtype)
y = torch.randn(N, D_out, dtype=dtype)
w1 = torch.randn(D_in, H, dtype=dtype, requires_grad=True)
w2 = torch.randn(H, D_out, dtype=dtype, requires_grad=True)

learning_rate = 1e-4
for t in range(50):
    relu = MyReLU.apply
    y_pred = relu(x.mm(w1)).mm(w2)
    loss = (y_pred - y).pow(2).sum()
    if t % 10 == 9:
        print(t, loss.item())
    loss.backward()
    with torch.no_grad():
        w1 -= learning_rate * w1.grad
        w2 -= learning_rate * w2.grad
        w1.grad.zero_()
        w2.grad.zero_()

print(y_pred.grad_fn.next_functions[0][0])
inp = torch.tensor([0.5, -1.0], requires_grad=True)
out = Exp.apply(inp)
print(out)
out.sum().backward()
print(inp.grad)
print(torch.autograd.gradcheck(Exp.apply, (torch.randn(4, dtype=torch.double, requires_grad=True),)))
print(torch.autograd.gradcheck(MyReLU.apply, (torch.randn(4, dtype=torch.double, requires_grad=True) + 0.1,), eps=1e-6, atol=1e-4))
