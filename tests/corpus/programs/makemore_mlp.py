# Karpathy's makemore part 2 (Bengio et al. MLP): embeddings by indexing C[X], minibatches,
# a learning-rate sweep and F.cross_entropy.
import torch
import torch.nn.functional as F
import random

words = ['emma', 'olivia', 'ava', 'isabella', 'sophia', 'charlotte', 'mia', 'amelia',
         'harper', 'evelyn', 'abigail', 'emily', 'elizabeth', 'mila', 'ella', 'avery',
         'sofia', 'camila', 'aria', 'scarlett', 'victoria', 'madison', 'luna', 'grace']
chars = sorted(list(set(''.join(words))))
stoi = {s: i + 1 for i, s in enumerate(chars)}
stoi['.'] = 0
itos = {i: s for s, i in stoi.items()}
vocab_size = len(itos)

block_size = 3  # context length: how many characters do we take to predict the next one?


def build_dataset(words):
    X, Y = [], []
    for w in words:
        context = [0] * block_size
        for ch in w + '.':
            ix = stoi[ch]
            X.append(context)
            Y.append(ix)
            context = context[1:] + [ix]  # crop and append
    X = torch.tensor(X)
    Y = torch.tensor(Y)
    print(X.shape, Y.shape)
    return X, Y


random.seed(42)
random.shuffle(words)
n1 = int(0.8 * len(words))
Xtr, Ytr = build_dataset(words[:n1])
Xdev, Ydev = build_dataset(words[n1:])

g = torch.Generator().manual_seed(2147483647)  # for reproducibility
C = torch.randn((vocab_size, 2), generator=g)
emb = C[Xtr]
print(emb.shape)
W1 = torch.randn((6, 50), generator=g)
b1 = torch.randn(50, generator=g)
h = torch.tanh(emb.view(-1, 6) @ W1 + b1)
print(h.shape)
print(torch.cat([emb[:, 0, :], emb[:, 1, :], emb[:, 2, :]], 1).shape)
print(torch.cat(torch.unbind(emb, 1), 1).shape)
a = torch.arange(18)
print(a.view(3, 3, 2))

W2 = torch.randn((50, vocab_size), generator=g)
b2 = torch.randn(vocab_size, generator=g)
parameters = [C, W1, b1, W2, b2]
print(sum(p.nelement() for p in parameters))  # number of parameters in total
for p in parameters:
    p.requires_grad = True

lre = torch.linspace(-3, 0, 1000)
lrs = 10**lre
print(lrs[:3], lrs[-1])

lri = []
lossi = []
stepi = []
for i in range(300):
    # minibatch construct
    ix = torch.randint(0, Xtr.shape[0], (32,), generator=g)

    # forward pass
    emb = C[Xtr[ix]]  # (32, 3, 2)
    h = torch.tanh(emb.view(-1, 6) @ W1 + b1)  # (32, 50)
    logits = h @ W2 + b2  # (32, 27)
    loss = F.cross_entropy(logits, Ytr[ix])

    # backward pass
    for p in parameters:
        p.grad = None
    loss.backward()

    # update
    lr = 0.1 if i < 200 else 0.01
    for p in parameters:
        p.data += -lr * p.grad

    stepi.append(i)
    lossi.append(loss.log10().item())
    if i % 50 == 0:
        print(f'{i:7d}: {loss.item():.4f}')

emb = C[Xdev]
h = torch.tanh(emb.view(-1, 6) @ W1 + b1)
logits = h @ W2 + b2
loss = F.cross_entropy(logits, Ydev)
print(f"dev loss {loss.item():.3f}")

for _ in range(5):
    out = []
    context = [0] * block_size  # initialize with all ...
    while True:
        emb = C[torch.tensor([context])]  # (1,block_size,d)
        h = torch.tanh(emb.view(1, -1) @ W1 + b1)
        logits = h @ W2 + b2
        probs = F.softmax(logits, dim=1)
        ix = torch.multinomial(probs, num_samples=1, generator=g).item()
        context = context[1:] + [ix]
        out.append(ix)
        if ix == 0 or len(out) > 12:
            break
    print(''.join(itos[i] for i in out))
