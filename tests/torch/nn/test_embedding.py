"""nn.Embedding and F.embedding against PyTorch (found by the tutorial corpus: the
official word-embeddings tutorial): the initial table after a seed, the lookup's node
EmbeddingBackward0, the gradient with padding_idx and scale_grad_by_freq, reprs,
from_pretrained, and the errors for bad indices."""

from __future__ import annotations

from support.tutorials import printed

from gradshell import torch as gtorch

LOOKUP = """
nn, F = torch.nn, torch.nn.functional
torch.manual_seed(0)
e = nn.Embedding(4, 3, padding_idx=1)
print(e, e.weight)
out = e(torch.tensor([[1, 2], [2, 0]]))
print(out)
out.sum().backward()
print(e.weight.grad)
print(F.embedding(torch.tensor([0, 1]), torch.ones(2, 2, requires_grad=True)))
print(out.grad_fn.next_functions[0][0].variable is e.weight)
f = nn.Embedding(5, 2, scale_grad_by_freq=True)
f(torch.tensor([0, 0, 0, 3, 3, 1])).sum().backward()
print(f.weight.grad, type(f), type(f.weight))
print(f.state_dict().keys(), nn.Embedding(2, 2, dtype=torch.float64).weight.dtype)
print(e(torch.tensor(2)), e(torch.tensor([1], dtype=torch.int32)))
"""

REPRS = """
nn = torch.nn
print(nn.Embedding(3, 2, max_norm=1.0), nn.Embedding(3, 2, scale_grad_by_freq=True, sparse=True))
print(nn.Embedding(3, 2, padding_idx=-1), nn.Embedding(10, 3, norm_type=1.0))
p = nn.Embedding.from_pretrained(torch.tensor([[1., 2.], [3., 4.]]))
print(p, p.weight.requires_grad, p(torch.tensor([1])))
q = nn.Embedding.from_pretrained(torch.tensor([[1., 2.], [3., 4.]]), freeze=False)
print(q.weight.requires_grad)
"""

ERRORS = """
e = torch.nn.Embedding(4, 3)
for bad in [torch.tensor([1.0]), torch.tensor([4]), torch.tensor([-1]), torch.tensor([1], dtype=torch.uint8)]:
    try:
        e(bad)
    except (RuntimeError, IndexError) as ex:
        print(type(ex).__name__, ex)
torch.nn.Embedding(3, 2, padding_idx=5)
"""


def test_lookup_and_gradient(real_torch):
    assert printed(LOOKUP, gtorch) == printed(LOOKUP, real_torch)


def test_reprs_and_from_pretrained(real_torch):
    assert printed(REPRS, gtorch) == printed(REPRS, real_torch)


def test_errors(real_torch):
    assert printed(ERRORS, gtorch) == printed(ERRORS, real_torch)
