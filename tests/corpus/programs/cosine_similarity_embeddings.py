# Embedding-similarity tutorial code: normalised embeddings, cosine similarity by matrix
# product, nearest neighbours, and a contrastive (InfoNCE-style) loss with a temperature.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
words = ["king", "queen", "man", "woman", "apple", "orange"]
emb = nn.Embedding(len(words), 8)
with torch.no_grad():
    emb.weight[1] = emb.weight[0] + 0.1 * torch.randn(8)
    emb.weight[5] = emb.weight[4] + 0.1 * torch.randn(8)

vectors = F.normalize(emb.weight, dim=1)
print(vectors.norm(dim=1))
sim = vectors @ vectors.T
print(sim.shape, sim.grad_fn)
for i, w in enumerate(words):
    scores = sim[i].clone()
    scores[i] = -1
    j = int(scores.argmax())
    print(f"{w:>7s} -> {words[j]:<7s} {scores[j].item():.3f}")

projector = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 4))
opt = torch.optim.SGD(list(emb.parameters()) + list(projector.parameters()), lr=0.5)
anchors = torch.tensor([0, 2, 4])
positives = torch.tensor([1, 3, 5])
temperature = 0.5
for step in range(20):
    za = F.normalize(projector(emb(anchors)), dim=1)
    zp = F.normalize(projector(emb(positives)), dim=1)
    logits = za @ zp.T / temperature
    loss = F.cross_entropy(logits, torch.arange(3))
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 5 == 0:
        print(step, round(loss.item(), 4))
print(logits.argmax(dim=1), emb.weight.grad.abs().sum() > 0)
print(F.softsign(torch.tensor([-2.0, 0.0, 2.0])))
