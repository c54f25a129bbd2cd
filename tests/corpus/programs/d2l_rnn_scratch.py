# Dive into Deep Learning 9.5: an RNN from scratch on a tiny corpus (one-hot inputs,
# hidden state, gradient clipping by hand, perplexity, greedy prediction).
import math
import torch
from torch.nn import functional as F

text = "the time machine by h g wells the time traveller for so it will be convenient to speak of him "
text = text * 4
vocab = sorted(set(text))
char_to_idx = {c: i for i, c in enumerate(vocab)}
corpus = [char_to_idx[c] for c in text]
vocab_size = len(vocab)
print(vocab_size, len(corpus))
print(F.one_hot(torch.tensor([0, 2]), vocab_size))

X = torch.arange(10).reshape((2, 5))
print(F.one_hot(X.T, 28).shape)


def get_params(vocab_size, num_hiddens, device):
    num_inputs = num_outputs = vocab_size

    def normal(shape):
        return torch.randn(size=shape, device=device) * 0.01

    # Hidden layer parameters
    W_xh = normal((num_inputs, num_hiddens))
    W_hh = normal((num_hiddens, num_hiddens))
    b_h = torch.zeros(num_hiddens, device=device)
    # Output layer parameters
    W_hq = normal((num_hiddens, num_outputs))
    b_q = torch.zeros(num_outputs, device=device)
    # Attach gradients
    params = [W_xh, W_hh, b_h, W_hq, b_q]
    for param in params:
        param.requires_grad_(True)
    return params


def init_rnn_state(batch_size, num_hiddens, device):
    return (torch.zeros((batch_size, num_hiddens), device=device), )


def rnn(inputs, state, params):
    # Here `inputs` shape: (`num_steps`, `batch_size`, `vocab_size`)
    W_xh, W_hh, b_h, W_hq, b_q = params
    H, = state
    outputs = []
    # Shape of `X`: (`batch_size`, `vocab_size`)
    for X in inputs:
        H = torch.tanh(torch.mm(X, W_xh) + torch.mm(H, W_hh) + b_h)
        Y = torch.mm(H, W_hq) + b_q
        outputs.append(Y)
    return torch.cat(outputs, dim=0), (H,)


class RNNModelScratch:  #@save
    """A RNN Model implemented from scratch."""
    def __init__(self, vocab_size, num_hiddens, device,
                 get_params, init_state, forward_fn):
        self.vocab_size, self.num_hiddens = vocab_size, num_hiddens
        self.params = get_params(vocab_size, num_hiddens, device)
        self.init_state, self.forward_fn = init_state, forward_fn

    def __call__(self, X, state):
        X = F.one_hot(X.T, self.vocab_size).type(torch.float32)
        return self.forward_fn(X, state, self.params)

    def begin_state(self, batch_size, device):
        return self.init_state(batch_size, self.num_hiddens, device)


torch.manual_seed(0)
num_hiddens = 64
device = torch.device('cpu')
net = RNNModelScratch(vocab_size, num_hiddens, device, get_params, init_rnn_state, rnn)
state = net.begin_state(X.shape[0], device)
X = torch.tensor(corpus[:10]).reshape(2, 5)
Y, new_state = net(X, state)
print(Y.shape, len(new_state), new_state[0].shape)


def predict_ch8(prefix, num_preds, net, device):  #@save
    """Generate new characters following the `prefix`."""
    state = net.begin_state(batch_size=1, device=device)
    outputs = [char_to_idx[prefix[0]]]
    get_input = lambda: torch.tensor([outputs[-1]], device=device).reshape((1, 1))
    for y in prefix[1:]:  # Warm-up period
        _, state = net(get_input(), state)
        outputs.append(char_to_idx[y])
    for _ in range(num_preds):  # Predict `num_preds` steps
        y, state = net(get_input(), state)
        outputs.append(int(y.argmax(dim=1).reshape(1)))
    return ''.join([vocab[i] for i in outputs])


print(repr(predict_ch8('time ', 10, net, device)))


def grad_clipping(net, theta):  #@save
    """Clip the gradient."""
    params = net.params
    norm = torch.sqrt(sum(torch.sum((p.grad ** 2)) for p in params))
    if norm > theta:
        for param in params:
            param.grad[:] *= theta / norm


num_steps, batch_size, lr = 8, 4, 1.0
n = (len(corpus) - 1) // num_steps
Xs = torch.tensor(corpus[:n * num_steps]).reshape(n, num_steps)
Ys = torch.tensor(corpus[1:n * num_steps + 1]).reshape(n, num_steps)
loss = torch.nn.CrossEntropyLoss()
for epoch in range(30):
    total, count = 0.0, 0
    for i in range(0, n - batch_size + 1, batch_size):
        X, Y = Xs[i:i + batch_size], Ys[i:i + batch_size]
        state = net.begin_state(batch_size=X.shape[0], device=device)
        y_hat, state = net(X, state)
        l = loss(y_hat, Y.T.reshape(-1)).mean()
        for p in net.params:
            p.grad = None
        l.backward()
        grad_clipping(net, 1)
        with torch.no_grad():
            for p in net.params:
                p -= lr * p.grad
        total += l.item() * Y.numel()
        count += Y.numel()
    if (epoch + 1) % 10 == 0:
        print(f'epoch {epoch + 1}, perplexity {math.exp(total / count):.2f}')
print(predict_ch8('time ', 20, net, device))
