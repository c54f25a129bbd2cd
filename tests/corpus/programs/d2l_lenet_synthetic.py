# Dive into Deep Learning 7.6: LeNet, trained for a few steps on random 28x28 images.
import torch
from torch import nn

torch.manual_seed(0)
net = nn.Sequential(
    nn.Conv2d(1, 6, kernel_size=5, padding=2), nn.Sigmoid(),
    nn.AvgPool2d(kernel_size=2, stride=2),
    nn.Conv2d(6, 16, kernel_size=5), nn.Sigmoid(),
    nn.AvgPool2d(kernel_size=2, stride=2),
    nn.Flatten(),
    nn.Linear(16 * 5 * 5, 120), nn.Sigmoid(),
    nn.Linear(120, 84), nn.Sigmoid(),
    nn.Linear(84, 10))

X = torch.rand(size=(1, 1, 28, 28), dtype=torch.float32)
for layer in net:
    X = layer(X)
    print(layer.__class__.__name__, 'output shape: \t', X.shape)


def init_weights(m):
    if type(m) == nn.Linear or type(m) == nn.Conv2d:
        nn.init.xavier_uniform_(m.weight)


net.apply(init_weights)
imgs = torch.rand(16, 1, 28, 28)
labels = torch.randint(0, 10, (16,))
optimizer = torch.optim.SGD(net.parameters(), lr=0.9)
loss = nn.CrossEntropyLoss()
for epoch in range(3):
    net.train()
    optimizer.zero_grad()
    y_hat = net(imgs)
    l = loss(y_hat, labels)
    l.backward()
    optimizer.step()
    with torch.no_grad():
        acc = (y_hat.argmax(dim=1) == labels).float().mean()
    print(f'epoch {epoch}: loss {l.item():.3f}, train acc {acc:.3f}')

print(sum(p.numel() for p in net.parameters()))
print(net[0].weight.shape, net[0].bias.grad.shape)
