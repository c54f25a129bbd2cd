# 0.3-era tutorial code (Variable, .data, volatile, loss.data[0]) run on a modern PyTorch.
import torch
from torch.autograd import Variable

x = Variable(torch.ones(2, 2), requires_grad=True)
print(x)
y = x + 2
print(y)
print(y.grad_fn)
z = y * y * 3
out = z.mean()
print(z, out)
out.backward()
print(x.grad)
print(x.data)
print(type(x), type(x.data))

torch.manual_seed(0)
dtype = torch.FloatTensor
N, D_in, H, D_out = 8, 5, 4, 2
x = Variable(torch.randn(N, D_in).type(dtype), requires_grad=False)
y = Variable(torch.randn(N, D_out).type(dtype), requires_grad=False)
w1 = Variable(torch.randn(D_in, H).type(dtype), requires_grad=True)
w2 = Variable(torch.randn(H, D_out).type(dtype), requires_grad=True)

learning_rate = 1e-3
for t in range(5):
    y_pred = x.mm(w1).clamp(min=0).mm(w2)
    loss = (y_pred - y).pow(2).sum()
    try:
        print(t, loss.data[0])
    except IndexError as e:
        print(t, "IndexError:", e)
        print(t, loss.item())
    loss.backward()
    w1.data -= learning_rate * w1.grad.data
    w2.data -= learning_rate * w2.grad.data
    w1.grad.data.zero_()
    w2.grad.data.zero_()

v = Variable(torch.randn(3), volatile=True)
print(v.requires_grad)
a = Variable(torch.FloatTensor([2, 3]), requires_grad=True)
b = a.sum()
print(b.data, b.data.item(), float(b.data))
print(Variable(torch.LongTensor([1, 2])).type())
print(torch.FloatTensor(2, 3).shape, torch.LongTensor(3).dtype)
