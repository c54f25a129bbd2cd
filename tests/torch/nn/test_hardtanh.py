"""F.hardtanh, F.relu6, nn.Hardtanh and nn.ReLU6 against PyTorch (found by the tutorial
corpus's survey of missing torch.nn names): values, the node HardtanhBackward0, the
gradient cut at both bounds, reprs and errors."""

from __future__ import annotations

from support.tutorials import printed

from gradshell import torch as gtorch

HARDTANH = """
F = torch.nn.functional
x = torch.tensor([-7., -1., 0., 0.5, 6., 8.], requires_grad=True)
z = F.relu6(x)
print(z, F.hardtanh(x), F.hardtanh(x, -2, 2))
z.sum().backward()
print(x.grad)
x.grad = None
F.hardtanh(x * 2, -1.5, 0.5).sum().backward()
print(x.grad)
print(F.hardtanh(torch.tensor([1, 7, -3]), 0, 6), F.relu6(torch.tensor([1.5, 7.0], dtype=torch.float64)))
try:
    F.hardtanh(x, 2, 1)
except ValueError as e:
    print(type(e).__name__, e)
print(torch.nn.Hardtanh(-2.0, 2.0, inplace=True), torch.nn.ReLU6(True), torch.nn.ReLU6(), torch.nn.Hardtanh(), torch.nn.Hardtanh(-2, 2))
m = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.ReLU6())
print(m, type(m[1]), isinstance(m[1], torch.nn.Hardtanh), m(torch.ones(1, 2)).grad_fn)
"""


def test_hardtanh_and_relu6(real_torch):
    assert printed(HARDTANH, gtorch) == printed(HARDTANH, real_torch)


def test_inplace_says_it_is_not_supported():
    import pytest

    with pytest.raises(NotImplementedError, match="with inplace=True"):
        gtorch.nn.ReLU6(inplace=True)(gtorch.ones(2))
