# cs231n-style numerical gradient checks of analytic gradients (relative error).
import torch


def eval_numerical_gradient(f, x, h=1e-5):
    grad = torch.zeros_like(x)
    flat = x.view(-1)
    for i in range(flat.numel()):
        old = flat[i].item()
        flat[i] = old + h
        fxph = f(x)
        flat[i] = old - h
        fxmh = f(x)
        flat[i] = old
        grad.view(-1)[i] = (fxph - fxmh) / (2 * h)
    return grad


def rel_error(x, y):
    """ returns relative error """
    return torch.max(torch.abs(x - y) / torch.clamp(torch.abs(x) + torch.abs(y), min=1e-8)).item()


torch.manual_seed(231)
N, D, H, C = 5, 4, 6, 3
X = torch.randn(N, D, dtype=torch.float64)
y = torch.tensor([0, 1, 2, 2, 1])
W1 = (1e-1 * torch.randn(D, H, dtype=torch.float64)).requires_grad_()
W2 = (1e-1 * torch.randn(H, C, dtype=torch.float64)).requires_grad_()
reg = 0.05


def loss_fn(W1, W2):
    hidden = torch.clamp(X @ W1, min=0)
    scores = hidden @ W2
    scores = scores - scores.max(dim=1, keepdim=True).values
    probs = scores.exp() / scores.exp().sum(dim=1, keepdim=True)
    data_loss = -probs[torch.arange(N), y].log().mean()
    return data_loss + reg * ((W1 * W1).sum() + (W2 * W2).sum())


loss = loss_fn(W1, W2)
loss.backward()
print('loss: %f' % loss.item())

for name, param in [('W1', W1), ('W2', W2)]:
    with torch.no_grad():
        num = eval_numerical_gradient(lambda p: loss_fn(W1, W2).item(), param.data)
    err = rel_error(num, param.grad)
    print('%s max relative error: %s' % (name, 'ok' if err < 1e-7 else 'BAD %e' % err))

# softmax loss, vectorised vs naive
scores = torch.randn(N, C, dtype=torch.float64, requires_grad=True)
loss = torch.nn.functional.cross_entropy(scores, y)
loss.backward()
probs = torch.softmax(scores.detach(), dim=1)
dscores = probs.clone()
dscores[range(N), y] -= 1
dscores /= N
print('softmax grad difference: ', 'ok' if rel_error(dscores, scores.grad) < 1e-10 else 'BAD')
print(torch.autograd.gradcheck(lambda s: torch.nn.functional.cross_entropy(s, y), (scores.detach().requires_grad_(),)))
print(scores.grad.shape, scores.grad.dtype)
