# Dive into Deep Learning 3.7: concise softmax regression on synthetic data.
import torch
from torch import nn
from torch.utils import data

torch.manual_seed(5)
n, d, k = 200, 8, 4
X = torch.randn(n, d)
W_true = torch.randn(d, k)
y = (X @ W_true).argmax(dim=1)
train_iter = data.DataLoader(data.TensorDataset(X, y), batch_size=25, shuffle=True)

# PyTorch does not implicitly reshape the inputs. Thus we define the flatten
# layer to reshape the inputs before the linear layer in our network
net = nn.Sequential(nn.Flatten(), nn.Linear(d, k))


def init_weights(m):
    if type(m) == nn.Linear:
        nn.init.normal_(m.weight, std=0.01)


net.apply(init_weights)
print(net)

loss = nn.CrossEntropyLoss(reduction='none')
trainer = torch.optim.SGD(net.parameters(), lr=0.1)

for epoch in range(5):
    total, correct, count = 0.0, 0, 0
    for Xb, yb in train_iter:
        l = loss(net(Xb), yb)
        trainer.zero_grad()
        l.mean().backward()
        trainer.step()
        total += l.sum().item()
        correct += (net(Xb).argmax(1) == yb).sum().item()
        count += yb.numel()
    print(f"epoch {epoch + 1}, loss {total / count:.4f}, acc {correct / count:.3f}")

print(l.shape, l.grad_fn)
print(nn.CrossEntropyLoss()(net(X[:4]), y[:4]))
print(net[1].weight.grad.norm())
