"""nn.LayerNorm and F.layer_norm against PyTorch (found by the tutorial corpus): reprs
and class name, parameters, forward values over one and several normalised dimensions,
the node NativeLayerNormBackward0 and its gradients for input, weight and bias, and the
errors for a wrong shape, mixed dtypes and integer input."""

from __future__ import annotations

from support.tutorials import printed

from gradshell import torch as gtorch

LAYER_NORM = """
nn, F = torch.nn, torch.nn.functional
torch.manual_seed(0)
ln = nn.LayerNorm(4)
print(ln, ln.weight, ln.bias, type(ln))
x = torch.randn(2, 3, 4, requires_grad=True)
y = ln(x); print(y)
(y * torch.arange(4.)).sum().backward()
print(x.grad, ln.weight.grad, ln.bias.grad)
print(y.grad_fn, y.grad_fn.next_functions)
print(nn.LayerNorm([3, 4], elementwise_affine=False), nn.LayerNorm(4, bias=False, eps=1e-6))
print(F.layer_norm(torch.arange(6.).view(2, 3), (3,)))
for f in [lambda: F.layer_norm(torch.randn(2, 4), (5,)), lambda: F.layer_norm(torch.randn(2,4), [2, 4, 1]), lambda: nn.LayerNorm(4)(torch.randn(2, 4).double()), lambda: F.layer_norm(torch.arange(4).view(1,4), (4,))]:
    try:
        f()
    except Exception as e:
        print(type(e).__name__, e)
print(nn.LayerNorm(4, bias=False).state_dict().keys())
print(F.layer_norm(x, (4,)).grad_fn)
l2 = nn.LayerNorm([3, 4])
z = torch.randn(5, 3, 4, requires_grad=True)
out = l2(z)
(out ** 3).sum().backward()
print(out[0], z.grad[1], l2.weight.grad, l2.bias.grad)
w = torch.randn(4, requires_grad=True)
v = torch.randn(4, requires_grad=True)
o = F.layer_norm(v, (4,), weight=w)
o.sum().backward()
print(o, w.grad, v.grad)
print(F.layer_norm(torch.randn(3, 4, dtype=torch.float64), (4,), eps=0.1))
"""


def test_layer_norm(real_torch):
    assert printed(LAYER_NORM, gtorch) == printed(LAYER_NORM, real_torch)
