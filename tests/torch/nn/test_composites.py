"""F.normalize, F.softsign and nn.Softsign against PyTorch (found by the tutorial corpus's
survey of missing torch.nn names): PyTorch writes them in Python out of other ops, so the
values, gradients and nodes (DivBackward0) must be PyTorch's."""

from __future__ import annotations

from support.tutorials import printed

from gradshell import torch as gtorch

COMPOSITES = """
F = torch.nn.functional
x = torch.tensor([[-7., -1., 0.], [0.5, 6., 8.]], requires_grad=True)
y = F.normalize(x, dim=1)
print(y, F.normalize(x, p=1, dim=0), F.normalize(torch.zeros(2, 2)))
(y * torch.tensor([1., 2., 3.])).sum().backward()
print(x.grad)
s = F.softsign(x)
print(s, torch.nn.Softsign(), torch.nn.Softsign()(x).grad_fn)
s.sum().backward()
print(x.grad)
print(F.normalize(torch.tensor([3., 4.]), dim=0), F.normalize(torch.ones(2, 3, 4), dim=-1).shape)
"""


def test_normalize_and_softsign(real_torch):
    assert printed(COMPOSITES, gtorch) == printed(COMPOSITES, real_torch)
