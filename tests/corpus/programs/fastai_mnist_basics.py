# fastbook chapter 4 style: a linear model with sigmoid loss on synthetic "3 vs 7" data.
import torch

torch.manual_seed(0)
threes = torch.rand(30, 16) + 0.2
sevens = torch.rand(30, 16) - 0.2
train_x = torch.cat([threes, sevens]).view(-1, 16)
train_y = torch.tensor([1] * len(threes) + [0] * len(sevens)).unsqueeze(1)
print(train_x.shape, train_y.shape)
dset = list(zip(train_x, train_y))
x, y = dset[0]
print(x.shape, y)


def init_params(size, std=1.0): return (torch.randn(size) * std).requires_grad_()


weights = init_params((16, 1))
bias = init_params(1)
print((train_x[0] * weights.T).sum() + bias)


def linear1(xb): return xb @ weights + bias


preds = linear1(train_x)
print(preds[:4])
corrects = (preds > 0.0).float() == train_y
print(corrects.float().mean().item())


def mnist_loss(predictions, targets):
    predictions = predictions.sigmoid()
    return torch.where(targets == 1, 1 - predictions, predictions).mean()


trgts = torch.tensor([1, 0, 1])
prds = torch.tensor([0.9, 0.4, 0.2])
print(torch.where(trgts == 1, 1 - prds, prds))
print(mnist_loss(prds, trgts))

dl = torch.utils.data.DataLoader(dset, batch_size=8, shuffle=True)
xb, yb = next(iter(dl))
print(xb.shape, yb.shape)


def calc_grad(xb, yb, model):
    preds = model(xb)
    loss = mnist_loss(preds, yb)
    loss.backward()


def train_epoch(model, lr, params):
    for xb, yb in dl:
        calc_grad(xb, yb, model)
        for p in params:
            p.data -= p.grad * lr
            p.grad.zero_()


def batch_accuracy(xb, yb):
    preds = xb.sigmoid()
    correct = (preds > 0.5) == yb
    return correct.float().mean()


def validate_epoch(model):
    accs = [batch_accuracy(model(xb), yb) for xb, yb in dl]
    return round(torch.stack(accs).mean().item(), 4)


lr = 1.
params = weights, bias
for i in range(5):
    train_epoch(linear1, lr, params)
    print(validate_epoch(linear1), end=' ')
print()

linear_model = torch.nn.Linear(16, 1)
w, b = linear_model.parameters()
print(w.shape, b.shape)


class BasicOptim:
    def __init__(self, params, lr): self.params, self.lr = list(params), lr

    def step(self, *args, **kwargs):
        for p in self.params: p.data -= p.grad.data * self.lr

    def zero_grad(self, *args, **kwargs):
        for p in self.params: p.grad = None


opt = BasicOptim(linear_model.parameters(), lr)
for i in range(5):
    for xb, yb in dl:
        calc_grad(xb, yb, linear_model)
        opt.step()
        opt.zero_grad()
    print(validate_epoch(linear_model), end=' ')
print()
simple_net = torch.nn.Sequential(
    torch.nn.Linear(16, 30),
    torch.nn.ReLU(),
    torch.nn.Linear(30, 1)
)
print(simple_net)
