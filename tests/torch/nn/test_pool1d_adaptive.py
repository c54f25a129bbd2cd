"""1-d pooling (F.max_pool1d, F.avg_pool1d, F.adaptive_avg_pool1d, F.adaptive_max_pool1d),
adaptive max pooling in 2-d, and their layers against PyTorch: values, indices, node
chains (PyTorch pools 1-d inputs as 2-d images of height 1), gradients checked by finite
differences in float64, reprs and error messages."""

from __future__ import annotations

import numpy as np
import pytest
from support.op_checks import check, check_error, gradcheck, gradgradcheck
from support.tutorials import printed

from gradshell import torch as gtorch

RNG = np.random.default_rng(7)
X3 = RNG.standard_normal((2, 3, 9)).astype(np.float32)
X2 = RNG.standard_normal((3, 10)).astype(np.float32)
X4 = RNG.standard_normal((2, 2, 7, 6)).astype(np.float32)


@pytest.mark.parametrize(
    "fn",
    [
        lambda F, x: F.max_pool1d(x, 2),
        lambda F, x: F.max_pool1d(x, 3, 2, 1, ceil_mode=True),
        lambda F, x: F.max_pool1d(x, 2, dilation=2, return_indices=True),
        lambda F, x: F.max_pool1d(x, (3,), (1,), return_indices=True),
        lambda F, x: F.avg_pool1d(x, 3),
        lambda F, x: F.avg_pool1d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
        lambda F, x: F.avg_pool1d(x, 4, 3, 2),
        lambda F, x: F.adaptive_avg_pool1d(x, 4),
        lambda F, x: F.adaptive_avg_pool1d(x, 1),
        lambda F, x: F.adaptive_avg_pool1d(x, (5,)),
        lambda F, x: F.adaptive_max_pool1d(x, 4),
        lambda F, x: F.adaptive_max_pool1d(x, 1, return_indices=True),
        lambda F, x: F.adaptive_max_pool1d(x, 7, True),
    ],
)
@pytest.mark.parametrize("data", [X3, X2], ids=["batched", "unbatched"])
def test_pool1d_matches_pytorch(fn, data, real_torch):
    check(lambda lib, x: fn(lib.nn.functional, x), data)


@pytest.mark.parametrize(
    "fn",
    [
        lambda F, x: F.adaptive_max_pool2d(x, 3),
        lambda F, x: F.adaptive_max_pool2d(x, (2, 4), return_indices=True),
        lambda F, x: F.adaptive_max_pool2d(x, (None, 4)),
        lambda F, x: F.adaptive_max_pool2d(x, 1),
        lambda F, x: F.adaptive_max_pool2d(x[0], (5, 5), True),
    ],
)
def test_adaptive_max_pool2d_matches_pytorch(fn, real_torch):
    check(lambda lib, x: fn(lib.nn.functional, x), X4)


def test_ties_and_nan_pick_as_pytorch(real_torch):
    ties = np.array([[[1.0, 3, 3, 2, 5, 5, np.nan, 1, np.nan]]], dtype=np.float32)
    check(lambda lib, x: lib.nn.functional.adaptive_max_pool1d(x, 3, True), ties, backward=False)
    check(
        lambda lib, x: lib.nn.functional.max_pool1d(x, 3, 1, return_indices=True),
        ties,
        backward=False,
    )
    check(lambda lib, x: lib.nn.functional.adaptive_max_pool1d(x, 2, True), ties[..., :6])


def test_integer_average_pooling(real_torch):
    ints = np.arange(-9, 9).reshape(2, 9)
    check(lambda lib, x: lib.nn.functional.avg_pool1d(x, 2), ints, backward=False)


F = gtorch.nn.functional


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: F.max_pool1d(x, 3, 2, 1),
        lambda x: F.avg_pool1d(x, 3, 2, 1, count_include_pad=False),
        lambda x: F.adaptive_avg_pool1d(x, 4),
        lambda x: F.adaptive_max_pool1d(x, 4),
        lambda x: F.adaptive_max_pool2d(x.reshape(2, 3, 3), (2, 2)),
    ],
)
def test_gradients_by_finite_differences(fn):
    x = gtorch.tensor(RNG.standard_normal((2, 9)), requires_grad=True)
    gradcheck(fn, x)
    gradgradcheck(fn, x)


ERRORS = [
    lambda F, x: F.max_pool1d(x, 0),
    lambda F, x: F.max_pool1d(x, 2, 0),
    lambda F, x: F.max_pool1d(x, 2, dilation=0),
    lambda F, x: F.max_pool1d(x, 2, padding=-1),
    lambda F, x: F.max_pool1d(x, (2, 2)),
    lambda F, x: F.max_pool1d(x, 2, padding=2),
    lambda F, x: F.max_pool1d(x, 10),
    lambda F, x: F.max_pool1d(x, 10, return_indices=True),
    lambda F, x: F.max_pool1d(x, 2, padding=2, return_indices=True),
    lambda F, x: F.max_pool1d(x[None], 2),
    lambda F, x: F.max_pool1d(x.long(), 2),
    lambda F, x: F.avg_pool1d(x, 0),
    lambda F, x: F.avg_pool1d(x, 10),
    lambda F, x: F.avg_pool1d(x, 2, padding=2),
    lambda F, x: F.avg_pool1d(x[None], 2),
    lambda F, x: F.avg_pool1d(x, (2, 2)),
    lambda F, x: F.adaptive_avg_pool1d(x[0, 0], 2),
    lambda F, x: F.adaptive_avg_pool1d(x, (2, 2)),
    lambda F, x: F.adaptive_avg_pool1d(x.long(), 2),
    lambda F, x: F.adaptive_max_pool1d(x.long(), 2),
    lambda F, x: F.adaptive_max_pool1d(x[..., :0], 2),
    lambda F, x: F.adaptive_max_pool2d(x[0, 0], 2),
    lambda F, x: F.adaptive_max_pool2d(x[None, None], 2),
]


@pytest.mark.parametrize("fn", ERRORS)
def test_errors_match_pytorch(fn, real_torch):
    check_error(lambda lib, x: fn(lib.nn.functional, x), X3)


LAYERS = """
nn = torch.nn
print(nn.MaxPool1d(2), nn.MaxPool1d((3,), 2, 1, return_indices=True, ceil_mode=True))
print(nn.AvgPool1d(3), nn.AvgPool1d(3, 1, 1, count_include_pad=False), nn.AvgPool1d((2,)))
print(nn.AdaptiveAvgPool1d(3), nn.AdaptiveAvgPool1d((3,)), nn.AdaptiveMaxPool1d(2, True))
print(nn.AdaptiveMaxPool2d((2, None)), nn.AdaptiveMaxPool2d(3, return_indices=True))
print(isinstance(nn.MaxPool1d(2), nn.MaxPool2d), isinstance(nn.AdaptiveAvgPool1d(2), nn.AdaptiveAvgPool2d))
torch.manual_seed(0)
x = torch.randn(2, 3, 8, requires_grad=True)
for m in [nn.MaxPool1d(2), nn.AvgPool1d(3, 2, 1), nn.AdaptiveAvgPool1d(3), nn.AdaptiveMaxPool1d(3)]:
    y = m(x)
    print(y.shape, y.grad_fn.name(), y.grad_fn.next_functions[0][0].name())
    print(y.sum(-1))
y, i = nn.MaxPool1d(3, return_indices=True)(x)
print(i, y.grad_fn)
y, i = nn.AdaptiveMaxPool2d((2, 3), return_indices=True)(x)
print(y, i)
y.sum().backward()
print(x.grad)
"""


def test_layers_print_as_pytorch(real_torch):
    assert printed(LAYERS, gtorch) == printed(LAYERS, real_torch)


# -- max_unpool2d ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "fn",
    [
        lambda F, x: F.max_unpool2d(*F.max_pool2d(x, 2, return_indices=True), 2),
        lambda F, x: F.max_unpool2d(
            *F.max_pool2d(x[..., :5], 3, 2, 1, return_indices=True), 3, 2, 1
        ),
        lambda F, x: F.max_unpool2d(
            *F.max_pool2d(x, 2, return_indices=True), 2, output_size=(7, 7)
        ),
        lambda F, x: F.max_unpool2d(
            *F.max_pool2d(x[0], 2, return_indices=True), 2, output_size=[2, 2, 7, 6]
        ),
        lambda F, x: F.max_unpool2d(*F.max_pool2d(x, 3, 1, return_indices=True), 3, 1),
    ],
)
def test_max_unpool2d_matches_pytorch(fn, real_torch):
    check(lambda lib, x: fn(lib.nn.functional, x), X4)


def test_max_unpool2d_second_derivative(real_torch):
    def fn(lib, x):
        y, i = lib.nn.functional.max_pool2d(x, 2, return_indices=True)
        u = lib.nn.functional.max_unpool2d(y, i, 2)
        (g,) = lib.autograd.grad((u * u).sum(), y, create_graph=True)
        return g

    check(fn, X4)


def test_max_unpool2d_gradients_by_finite_differences():
    idx = gtorch.tensor([[[[0, 3], [9, 14]], [[5, 2], [12, 11]]]])

    def fn(y):
        return F.max_unpool2d(y, idx, 2)

    y = gtorch.tensor(RNG.standard_normal((1, 2, 2, 2)), requires_grad=True)
    gradcheck(fn, y)
    gradgradcheck(fn, y)


UNPOOL_ERRORS = [
    lambda F, y, i: F.max_unpool2d(y, i, 2, output_size=(9, 9)),
    lambda F, y, i: F.max_unpool2d(y, i, 2, output_size=(5, 5, 5)),
    lambda F, y, i: F.max_unpool2d(y, i.float(), 2),
    # one invalid index: with several, which one PyTorch names depends on its threads
    lambda F, y, i: F.max_unpool2d(y[:1, :1], i[:1, :1] + (i[:1, :1] == i[:1, :1].max()) * 100, 2),
    lambda F, y, i: F.max_unpool2d(y, i[:, :, :1], 2),
    lambda F, y, i: F.max_unpool2d(y[0, 0], i[0, 0], 2),
]


@pytest.mark.parametrize("fn", UNPOOL_ERRORS)
def test_max_unpool2d_errors(fn, real_torch):
    def run(lib, x):
        y, i = lib.nn.functional.max_pool2d(x, 2, return_indices=True)
        return fn(lib.nn.functional, y, i)

    check_error(run, X4)


UNPOOL_LAYERS = """
nn = torch.nn
print(nn.MaxUnpool2d(2), nn.MaxUnpool2d((3, 2), stride=1, padding=1))
pool, unpool = nn.MaxPool2d(2, return_indices=True), nn.MaxUnpool2d(2)
x = torch.arange(16.).reshape(1, 1, 4, 4)
y, i = pool(x)
print(unpool(y, i), unpool(y, i, output_size=x.size()).shape)
"""


def test_max_unpool2d_layer(real_torch):
    assert printed(UNPOOL_LAYERS, gtorch) == printed(UNPOOL_LAYERS, real_torch)
