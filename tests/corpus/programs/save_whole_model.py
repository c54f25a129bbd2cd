# Saving and loading: a whole model object, tensors that share storage, map_location,
# and weights_only errors, as the serialization recipes show.
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)

    def forward(self, x):
        return torch.sigmoid(self.fc(x))


torch.manual_seed(0)
net = Net()
torch.save(net, 'net.pt')
try:
    torch.load('net.pt')
except Exception as e:
    print(type(e).__name__)
loaded = torch.load('net.pt', weights_only=False)
print(loaded)
print(torch.equal(loaded.fc.weight, net.fc.weight), type(loaded).__name__)
x = torch.randn(2, 3)
print(loaded(x))

big = torch.arange(10.)
small = big[:3]
torch.save([big, small], 'views.pt')
b2, s2 = torch.load('views.pt')
s2[0] = 100
print(b2[:3], s2)

torch.save({'w': net.fc.weight, 'step': 3, 'name': 'run-1'}, 'ckpt.pt')
ck = torch.load('ckpt.pt', map_location='cpu')
print(ck['w'].requires_grad, ck['step'], ck['name'])
print(ck['w'])
ck2 = torch.load('ckpt.pt', map_location=torch.device('cpu'), weights_only=True)
print(ck2.keys())
