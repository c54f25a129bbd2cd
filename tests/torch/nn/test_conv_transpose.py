"""Transposed convolution (F.conv_transpose1d/2d, nn.ConvTranspose1d/2d) against PyTorch:
values, node names (ConvolutionBackward0), gradients for stride, padding, output_padding,
groups, dilation and bias; second derivatives; finite differences in float64; reprs,
initial weights after the same seed, forward's output_size, and error messages."""

from __future__ import annotations

import numpy as np
import pytest
from support.op_checks import check, check_error, gradcheck, gradgradcheck
from support.tutorials import printed

from gradshell import torch as gtorch

RNG = np.random.default_rng(3)


def A(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


CASES_2D = [
    ({}, (2, 4, 5, 5), (4, 3, 3, 3)),
    ({"stride": 2}, (2, 4, 4, 5), (4, 3, 3, 2)),
    ({"stride": 2, "padding": 1, "output_padding": 1}, (1, 4, 5, 4), (4, 2, 3, 3)),
    ({"stride": (2, 3), "padding": (1, 0), "output_padding": (1, 2)}, (1, 2, 3, 4), (2, 2, 3, 4)),
    ({"groups": 2, "stride": 2}, (2, 4, 3, 3), (4, 3, 2, 2)),
    ({"dilation": 2, "output_padding": 1}, (1, 2, 4, 4), (2, 3, 3, 3)),
    ({"dilation": (1, 2), "padding": (2, 1), "stride": 3, "groups": 2}, (1, 4, 4, 4), (4, 1, 3, 3)),
]


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize(("kw", "xs", "ws"), CASES_2D)
def test_conv_transpose2d_matches_pytorch(kw, xs, ws, bias, real_torch):
    b = A(ws[1] * kw.get("groups", 1))
    if bias:
        check(
            lambda lib, x, w, b: lib.nn.functional.conv_transpose2d(x, w, b, **kw),
            A(*xs),
            A(*ws),
            b,
        )
    else:
        check(lambda lib, x, w: lib.nn.functional.conv_transpose2d(x, w, **kw), A(*xs), A(*ws))


CASES_1D = [
    ({}, (2, 4, 6), (4, 3, 3)),
    ({"stride": 2, "padding": 1, "output_padding": 1}, (1, 4, 5), (4, 2, 3)),
    ({"stride": (3,), "groups": 2, "dilation": 2, "output_padding": 2}, (2, 4, 3), (4, 1, 2)),
]


@pytest.mark.parametrize(("kw", "xs", "ws"), CASES_1D)
def test_conv_transpose1d_matches_pytorch(kw, xs, ws, real_torch):
    b = A(ws[1] * kw.get("groups", 1))
    check(lambda lib, x, w, b: lib.nn.functional.conv_transpose1d(x, w, b, **kw), A(*xs), A(*ws), b)


def test_unbatched_and_integer_inputs(real_torch):
    check(
        lambda lib, x, w: lib.nn.functional.conv_transpose2d(x, w, stride=2),
        A(4, 3, 3),
        A(4, 2, 2, 2),
    )
    check(
        lambda lib, x, w: lib.nn.functional.conv_transpose1d(x, w, padding=1), A(4, 5), A(4, 2, 3)
    )
    ints = np.arange(24).reshape(1, 2, 3, 4)
    check(
        lambda lib, x, w: lib.nn.functional.conv_transpose2d(x, w, stride=2),
        ints,
        np.arange(-4, 4).reshape(2, 1, 2, 2),
        backward=False,
    )


def test_second_derivatives_match_pytorch(real_torch):
    def fn(lib, x, w, b):
        y = lib.nn.functional.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1)
        gx, gw, gb = lib.autograd.grad((y * y).sum(), (x, w, b), create_graph=True)
        return gx, gw, gb

    check(fn, A(1, 2, 3, 3), A(2, 3, 3, 3), A(3))


F = gtorch.nn.functional


@pytest.mark.parametrize(
    "fn",
    [
        lambda x, w, b: F.conv_transpose2d(x, w, b[:2], stride=2, padding=1, output_padding=1),
        lambda x, w, b: F.conv_transpose2d(x, w, b, groups=2, dilation=(2, 1), stride=(1, 2)),
        lambda x, w, b: F.conv_transpose1d(
            x.flatten(2), w[..., 0], b, stride=2, output_padding=1, groups=2
        ),
    ],
)
def test_gradients_by_finite_differences(fn):
    def t(*shape):
        return gtorch.tensor(RNG.standard_normal(shape), requires_grad=True)

    args = (t(1, 2, 3, 2), t(2, 2, 2, 2), t(4))
    gradcheck(fn, *args)
    gradgradcheck(fn, *args)


ERRORS = [
    lambda F, x, w: F.conv_transpose2d(x, w, stride=2, output_padding=2),
    lambda F, x, w: F.conv_transpose2d(x, w, output_padding=1),
    lambda F, x, w: F.conv_transpose2d(x[:, :3], w),
    lambda F, x, w: F.conv_transpose2d(x, w, groups=3),
    lambda F, x, w: F.conv_transpose2d(x, w, w[0, 0]),
    lambda F, x, w: F.conv_transpose2d(x[0, 0], w),
    lambda F, x, w: F.conv_transpose2d(x, w, padding="same"),
    lambda F, x, w: F.conv_transpose2d(x, w, padding=-1),
    lambda F, x, w: F.conv_transpose2d(x, w, output_padding=-1),
    lambda F, x, w: F.conv_transpose2d(x, w, stride=0),
    lambda F, x, w: F.conv_transpose2d(x, w, padding=5),
    lambda F, x, w: F.conv_transpose2d(x.double(), w),
    lambda F, x, w: F.conv_transpose2d(x.bool(), w.bool()),
    lambda F, x, w: F.conv_transpose1d(x[0], w[..., 0]),
    lambda F, x, w: F.conv_transpose1d(x[:, :, 0], w[..., 0], stride=2, output_padding=2),
    lambda F, x, w: F.conv_transpose1d(x[:, :, 0], w[..., 0], padding=5),
]


@pytest.mark.parametrize("fn", ERRORS)
def test_errors_match_pytorch(fn, real_torch):
    check_error(lambda lib, x, w: fn(lib.nn.functional, x, w), A(1, 4, 5, 5), A(4, 3, 3, 3))


LAYERS = """
nn = torch.nn
print(nn.ConvTranspose2d(3, 4, 3, stride=2, output_padding=1))
print(nn.ConvTranspose1d(4, 3, 3, stride=2, padding=1, output_padding=1, bias=False, dilation=2))
print(nn.ConvTranspose2d(4, 2, (3, 2), stride=(2, 1), padding=(1, 0), groups=2))
print(nn.ConvTranspose2d(4, 3, 3, padding='same'))
m = nn.ConvTranspose2d(4, 3, 3, stride=2)
print([(n, p.shape) for n, p in m.named_parameters()], m.transposed, m.output_padding)
for make in [lambda: nn.ConvTranspose2d(4, 3, 3, padding_mode='reflect'),
             lambda: nn.ConvTranspose2d(4, 3, 3, groups=2)]:
    try:
        make()
    except ValueError as e:
        print(e)
torch.manual_seed(0)
a = nn.ConvTranspose2d(4, 6, 3, groups=2)
b = nn.ConvTranspose1d(3, 2, 4)
print(a.weight.flatten()[:6].tolist(), a.bias.tolist(), b.weight.flatten()[-4:].tolist(), b.bias.tolist())
x = torch.randn(1, 4, 5, 5)
up = nn.ConvTranspose2d(4, 3, 3, stride=2, padding=1)
print(up(x, output_size=[10, 10]).shape, up(x, output_size=[1, 4, 10, 9]).shape, up(x).shape)
for size in ([12, 12], [1, 10, 9]):
    try:
        up(x, output_size=size)
    except ValueError as e:
        print(e)
y = nn.ConvTranspose1d(4, 3, 3, stride=2)(x[0, :, 0], output_size=[12])
print(y.grad_fn, y.grad_fn.next_functions[0][0], y.shape)
y = up(x.requires_grad_())
print(y.grad_fn, y.sum())
"""


def test_layers_print_as_pytorch(real_torch):
    assert printed(LAYERS, gtorch) == printed(LAYERS, real_torch)
