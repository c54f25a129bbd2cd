# Tutorials exploring nn.Module: children, modules, buffers, ModuleList/Dict, train/eval, hooks.
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(4, 4) for _ in range(3)])
        self.heads = nn.ModuleDict({'cls': nn.Linear(4, 2), 'reg': nn.Linear(4, 1)})
        self.register_buffer('running', torch.zeros(4))
        self.scale = nn.Parameter(torch.ones(1))
        self.act = nn.LeakyReLU(0.1)

    def forward(self, x, head='cls'):
        for layer in self.layers:
            x = self.act(layer(x))
        self.running += x.detach().mean(0)
        return self.heads[head](x) * self.scale


torch.manual_seed(0)
net = Net()
print(net)
for name, child in net.named_children():
    print(name, type(child).__name__)
print([n for n, _ in net.named_modules()])
print([n for n, _ in net.named_buffers()])
print(list(net.state_dict().keys()))
print(sum(p.numel() for p in net.parameters() if p.requires_grad))
x = torch.randn(5, 4)
print(net(x))
print(net(x, head='reg').shape)
print(net.running)
print(net.training)
net.eval()
print(net.training, net.layers[0].training)
net.train()

outputs = []


def hook(module, inp, out):
    outputs.append(out.shape)


handle = net.layers[1].register_forward_hook(hook)
net(x)
handle.remove()
net(x)
print(outputs)

for p in net.layers[0].parameters():
    p.requires_grad = False
print([n for n, p in net.named_parameters() if p.requires_grad])
net.requires_grad_(True)
print(all(p.requires_grad for p in net.parameters()))
print(net.layers[0].weight.dtype)
net.double()
print(net.layers[0].weight.dtype)
net.float()
net.zero_grad()
print(net.layers[2].weight.grad)
print(isinstance(net, nn.Module), isinstance(net.scale, torch.Tensor), type(net.scale))
print(nn.Linear(3, 2, bias=False))
print(nn.Sequential(nn.Linear(2, 2), nn.Sigmoid(), nn.Softmax(dim=-1), nn.Tanh(), nn.ELU(), nn.GELU()))
print(repr(nn.Identity()), nn.Dropout(0.3), nn.BatchNorm1d(4), nn.LayerNorm(4), nn.Embedding(10, 3))
