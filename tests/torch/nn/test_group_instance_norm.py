"""F.group_norm/nn.GroupNorm and F.instance_norm/nn.InstanceNorm1d/2d against PyTorch:
values, the nodes (NativeGroupNormBackward0; ViewBackward0 over NativeBatchNormBackward0
over RepeatBackward0 for instance norm), gradients for input, weight and bias, running
statistics, unbatched input, reprs, warnings and errors; and the gradients by float64
finite differences (first and second order)."""

from __future__ import annotations

import numpy as np
import pytest
from support.op_checks import check, check_error, gradcheck, gradgradcheck
from support.tutorials import printed

from gradshell import torch as gtorch

F = gtorch.nn.functional

RNG = np.random.default_rng(3)
X3 = RNG.standard_normal((2, 6, 5)).astype(np.float32)
X4 = RNG.standard_normal((2, 4, 3, 3)).astype(np.float32)
W6 = RNG.standard_normal(6).astype(np.float32)
B6 = RNG.standard_normal(6).astype(np.float32)
W4 = RNG.standard_normal(4).astype(np.float32)
B4 = RNG.standard_normal(4).astype(np.float32)


@pytest.mark.parametrize("groups", [1, 2, 3, 6])
def test_group_norm_matches_pytorch(groups):
    check(lambda t, x, w, b: t.nn.functional.group_norm(x, groups, w, b), X3, W6, B6)
    check(lambda t, x: t.nn.functional.group_norm(x, groups, eps=0.1), X3.astype(np.float64))
    if groups < 6:  # (one element per group normalises to rounding noise)
        check(lambda t, x, w: t.nn.functional.group_norm(x, groups, w), X3[:, :, 0], W6)


def test_group_norm_of_an_empty_batch_matches_pytorch():
    check(lambda t, x, w, b: t.nn.functional.group_norm(x[:0], 2, w, b), X4, W4, B4)


def test_group_norm_on_images_matches_pytorch():
    check(lambda t, x, w, b: t.nn.functional.group_norm(x, 2, w, b), X4, W4, B4)
    # a bias without a weight: PyTorch's backward fails, and so does ours
    check(lambda t, x, b: t.nn.functional.group_norm(x, 4, bias=b), X4, B4)
    check(lambda t, x, w: t.nn.functional.group_norm(x, 4, weight=w), X4, W4)


def test_instance_norm_matches_pytorch():
    check(lambda t, x: t.nn.functional.instance_norm(x), X3)
    check(lambda t, x, w, b: t.nn.functional.instance_norm(x, weight=w, bias=b), X4, W4, B4)
    check(lambda t, x: t.nn.functional.instance_norm(x, eps=0.5), X4.astype(np.float64))


def test_instance_norm_running_statistics_match_pytorch():
    def fn(t, x, w, b):
        rm, rv = t.zeros(4), t.ones(4)
        out = t.nn.functional.instance_norm(x, rm, rv, w, b, momentum=0.3)
        evaluated = t.nn.functional.instance_norm(x, rm, rv, w, b, use_input_stats=False)
        return out, rm, rv, evaluated

    check(fn, X4, W4, B4)


GROUP_ERRORS = [
    (lambda t, x: t.nn.functional.group_norm(x, 4), X3),
    (lambda t, x: t.nn.functional.group_norm(x[0, 0], 3), X3),
    (lambda t, x: t.nn.functional.group_norm(x[:1, :2, :1], 2), X3),
    (lambda t, x: t.nn.functional.group_norm(x[:1, :2, 0], 2), X3),
    (lambda t, x: t.nn.functional.group_norm(x, 3, t.ones(5)), X3),
    (lambda t, x: t.nn.functional.group_norm(x, 3, None, t.ones(6, 1)), X3),
    (lambda t, x: t.nn.functional.group_norm(x, 3, t.ones(6), t.ones(5)), X3),
    (lambda t, x: t.nn.functional.group_norm(x, 3, t.ones(6, 1)), X3),
    (lambda t, x: t.nn.functional.group_norm(x.double(), 3, t.ones(6)), X3),
    (lambda t, x: t.nn.functional.group_norm(x.long(), 3), X3),
    (lambda t, x: t.nn.GroupNorm(4, 6), X3),
    (lambda t, x: t.nn.functional.instance_norm(x[:, :, :1]), X3),
    (lambda t, x: t.nn.functional.instance_norm(x, use_input_stats=False), X3),
    (lambda t, x: t.nn.InstanceNorm1d(6)(x[0, 0]), X3),
    (lambda t, x: t.nn.InstanceNorm2d(6)(x), X3[0, 0]),
    (lambda t, x: t.nn.InstanceNorm1d(4, affine=True)(x), X3),
    (lambda t, x: t.nn.InstanceNorm1d(4, affine=True)(x[0]), X3),
    (lambda t, x: t.nn.InstanceNorm2d(3)(x[:, :, :1, :1]), X4),
]


@pytest.mark.parametrize("i", range(len(GROUP_ERRORS)))
def test_errors_match_pytorch(i):
    fn, x = GROUP_ERRORS[i]
    check_error(fn, x)


SCRIPT = """
import warnings
nn, F = torch.nn, torch.nn.functional
def graph(f):
    if f is None:
        return None
    return (f.name().split(':')[-1], [graph(g) for g, _ in f.next_functions])
torch.manual_seed(0)
g = nn.GroupNorm(3, 6)
print(g, nn.GroupNorm(2, 4, eps=1e-3, affine=False), nn.GroupNorm(2, 4, bias=False), type(g))
print(g.weight, g.bias, list(g.state_dict()), list(nn.GroupNorm(2, 4, bias=False).state_dict()))
x = torch.randn(2, 6, 3, requires_grad=True)
y = g(x)
(y * torch.arange(3.)).sum().backward()
print(y, graph(y.grad_fn), x.grad, g.weight.grad, g.bias.grad)
print(graph(F.group_norm(x, 2).grad_fn), graph(F.group_norm(x, 3, bias=torch.ones(6, requires_grad=True)).grad_fn))
for cls, shape in [(nn.InstanceNorm1d, (2, 3, 5)), (nn.InstanceNorm2d, (2, 3, 2, 3))]:
    xx = torch.randn(*shape, requires_grad=True)
    m = cls(3)
    print(m, cls(3, affine=True, track_running_stats=True), type(m))
    print(list(cls(3, affine=True, track_running_stats=True).state_dict()))
    y = m(xx)
    print(y, graph(y.grad_fn))
    m2 = cls(3, affine=True, track_running_stats=True, momentum=0.2)
    y = m2(xx)
    (y ** 2 * torch.arange(shape[-1] * 1.)).sum().backward()
    print(graph(y.grad_fn), m2.running_mean, m2.running_var, m2.num_batches_tracked, xx.grad, m2.weight.grad, m2.bias.grad)
    m2.eval()
    print(m2(xx), graph(m2(xx).grad_fn))
    u = m(xx[0])
    print(u.shape, graph(u.grad_fn))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        print(cls(4)(xx).shape, cls(4)(xx[0]).shape)
        print([str(m.message) for m in w])
    m3 = cls(3, track_running_stats=True, momentum=None)
    m3(xx)
    print(m3.running_mean, m3.running_var)
"""


def test_script_matches_pytorch(real_torch):
    assert printed(SCRIPT, gtorch) == printed(SCRIPT, real_torch)


def test_group_norm_gradients_by_finite_differences():
    rng = np.random.default_rng(4)
    x = gtorch.tensor(rng.standard_normal((2, 6, 3)), requires_grad=True)
    w = gtorch.tensor(rng.standard_normal(6), requires_grad=True)
    b = gtorch.tensor(rng.standard_normal(6), requires_grad=True)
    assert gradcheck(lambda a, c, d: F.group_norm(a, 3, c, d), x, w, b)
    assert gradgradcheck(lambda a, c, d: F.group_norm(a, 3, c, d), x, w, b)
    assert gradgradcheck(lambda a: F.group_norm(a, 2), x)


def test_instance_norm_gradients_by_finite_differences():
    rng = np.random.default_rng(5)
    x = gtorch.tensor(rng.standard_normal((2, 3, 2, 2)), requires_grad=True)
    w = gtorch.tensor(rng.standard_normal(3), requires_grad=True)
    b = gtorch.tensor(rng.standard_normal(3), requires_grad=True)
    assert gradcheck(lambda a, c, d: F.instance_norm(a, weight=c, bias=d), x, w, b)
    assert gradgradcheck(lambda a, c, d: F.instance_norm(a, weight=c, bias=d), x, w, b)


FLOAT16 = """
F = torch.nn.functional
torch.manual_seed(0)
x = torch.randn(2, 4, 3).half().requires_grad_()
w = torch.randn(4).half().requires_grad_()
b = torch.randn(4).half().requires_grad_()
y = F.group_norm(x, 2, w, b)
(y * torch.arange(3.).half()).sum().backward()
print(y, x.grad, w.grad, b.grad)
print(F.group_norm(x, 4))
"""


def test_group_norm_float16_matches_pytorch(real_torch):
    # computed in float32 and rounded once, as PyTorch's kernels do
    assert printed(FLOAT16, gtorch) == printed(FLOAT16, real_torch)
