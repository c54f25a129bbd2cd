# Dive into Deep Learning 4.1-4.3: activation functions, an MLP from scratch, and concise.
import torch
from torch import nn

x = torch.arange(-8.0, 8.0, 2.0, requires_grad=True)
y = torch.relu(x)
y.backward(torch.ones_like(x), retain_graph=True)
print(y, x.grad)

y = torch.sigmoid(x)
x.grad.data.zero_()
y.backward(torch.ones_like(x), retain_graph=True)
print(y)
print(x.grad)

y = torch.tanh(x)
x.grad.data.zero_()
y.backward(torch.ones_like(x), retain_graph=True)
print(y)
print(x.grad)

torch.manual_seed(0)
num_inputs, num_outputs, num_hiddens = 20, 5, 32
W1 = nn.Parameter(torch.randn(num_inputs, num_hiddens, requires_grad=True) * 0.01)
b1 = nn.Parameter(torch.zeros(num_hiddens, requires_grad=True))
W2 = nn.Parameter(torch.randn(num_hiddens, num_outputs, requires_grad=True) * 0.01)
b2 = nn.Parameter(torch.zeros(num_outputs, requires_grad=True))
params = [W1, b1, W2, b2]


def relu(X):
    a = torch.zeros_like(X)
    return torch.max(X, a)


def net(X):
    X = X.reshape((-1, num_inputs))
    H = relu(X @ W1 + b1)  # Here '@' stands for matrix multiplication
    return (H @ W2 + b2)


loss = nn.CrossEntropyLoss(reduction='none')
Xs = torch.randn(64, num_inputs)
ys = torch.randint(0, num_outputs, (64,))
updater = torch.optim.SGD(params, lr=0.1)
for epoch in range(5):
    l = loss(net(Xs), ys)
    updater.zero_grad()
    l.mean().backward()
    updater.step()
    print(f"epoch {epoch + 1}, loss {l.mean().item():.6f}")

net2 = nn.Sequential(nn.Flatten(),
                     nn.Linear(20, 32),
                     nn.ReLU(),
                     nn.Linear(32, 5))


def init_weights(m):
    if type(m) == nn.Linear:
        nn.init.normal_(m.weight, std=0.01)


net2.apply(init_weights)
trainer = torch.optim.SGD(net2.parameters(), lr=0.1)
for epoch in range(5):
    l = loss(net2(Xs), ys)
    trainer.zero_grad()
    l.mean().backward()
    trainer.step()
print(net2)
print(l.mean())
