"""F.pad (constant, reflect, replicate) with the padding layers, and F.interpolate
(nearest, nearest-exact, linear, bilinear, trilinear; size or scale_factor; align_corners)
with nn.Upsample, UpsamplingNearest2d and UpsamplingBilinear2d, against PyTorch: values,
node names (ConstantPadNdBackward0, ReflectionPad2DBackward0, UpsampleBilinear2DBackward0,
...), gradients, second-order graphs, reprs, warnings and errors; and the gradients by
float64 finite differences (first and second order)."""

from __future__ import annotations

import numpy as np
import pytest
from support.op_checks import check, check_error, gradcheck, gradgradcheck
from support.tutorials import printed

from gradshell import torch as gtorch

F = gtorch.nn.functional

RNG = np.random.default_rng(21)
X3 = RNG.standard_normal((2, 3, 5)).astype(np.float32)
X4 = RNG.standard_normal((1, 2, 3, 4)).astype(np.float32)
X5 = RNG.standard_normal((1, 2, 3, 2, 4)).astype(np.float32)

PADS = [
    (X3, (1, 2)),
    (X3, (0, 0)),
    (X3, (-1, 3)),
    (X3, (-2, -2)),
    (X4, (-2, -2, 0, 1)),
    (X3[0], (2, 1)),
    (X4, (1, 1, 2, 0)),
    (X4, (2, 3, 1, 2)),
    (X4[0], (0, 1, 1, 0)),
    (X5, (1, 0, 1, 1, 2, 1)),
]


@pytest.mark.parametrize("mode", ["reflect", "replicate"])
@pytest.mark.parametrize("i", range(len(PADS)))
def test_copy_padding_matches_pytorch(mode, i):
    x, pad = PADS[i]
    check(lambda t, a: t.nn.functional.pad(a, pad, mode=mode), x)
    check(lambda t, a: t.nn.functional.pad(a, pad, mode=mode), x.astype(np.float64))


@pytest.mark.parametrize(
    "x,pad,value",
    [
        (X3, (1, 2), None),
        (X3, (1, 2, 0, 1, 1, 1), 2.5),
        (X4, (-1, 2, 1, -2), -1.0),
        (X4, (0, 0), 0),
        (X3[0, 0], (3, 0), 4),
    ],
)
def test_constant_padding_matches_pytorch(x, pad, value):
    check(lambda t, a: t.nn.functional.pad(a, pad, value=value), x)
    check(lambda t, a: t.nn.functional.pad(a, pad, "constant", value), x.astype(np.float64))


def test_padding_integer_and_bool_inputs_match_pytorch():
    ints = np.arange(6).reshape(1, 2, 3)
    check(lambda t, a: t.nn.functional.pad(a, (1, 1), value=2.5), ints, backward=False)
    check(lambda t, a: t.nn.functional.pad(a, (1, 2), mode="reflect"), ints, backward=False)
    check(lambda t, a: t.nn.functional.pad(a, (3, 1), mode="replicate"), ints, backward=False)
    check(lambda t, a: t.nn.functional.pad(a > 2, (1, 1), value=2.5), ints, backward=False)


PAD_ERRORS = [
    lambda t, x: t.nn.functional.pad(x, (1,)),
    lambda t, x: t.nn.functional.pad(x, (1, 1, 1, 1, 1, 1, 1, 1)),
    lambda t, x: t.nn.functional.pad(x, (1, 1), mode="reflect", value=1.0),
    lambda t, x: t.nn.functional.pad(x, (5, 5), mode="reflect"),
    lambda t, x: t.nn.functional.pad(x, (1, 5), mode="reflect"),
    lambda t, x: t.nn.functional.pad(x.view(2, 3, 5, 1), (0, 0, 5, 1), mode="reflect"),
    lambda t, x: t.nn.functional.pad(x.view(2, 3, 5, 1), (1, 0, 1, 1), mode="reflect"),
    lambda t, x: t.nn.functional.pad(x.view(1, 2, 3, 5, 1), (0, 0, 1, 1, 3, 0), mode="reflect"),
    lambda t, x: t.nn.functional.pad(x, (-3, -3)),
    lambda t, x: t.nn.functional.pad(x, (-3, -2), mode="reflect"),
    lambda t, x: t.nn.functional.pad(x, (-3, -3), mode="replicate"),
    lambda t, x: t.nn.functional.pad(x.view(1, 2, 3, 5), (0, 0, -2, -2), mode="reflect"),
    lambda t, x: t.nn.functional.pad(x.view(1, 2, 3, 5), (-3, -3, 0, 0), mode="replicate"),
    lambda t, x: t.nn.functional.pad(x.view(1, 2, 3, 5, 1), (0, 0, -3, -3, 0, 0), mode="reflect"),
    lambda t, x: t.nn.functional.pad(x, (1, 1), mode="bogus"),
    lambda t, x: t.nn.functional.pad(x[0, 0], (1, 1), mode="reflect"),
    lambda t, x: t.nn.functional.pad(x[0], (1, 1, 1, 1), mode="replicate"),
    lambda t, x: t.nn.functional.pad(x[:, :0], (1, 1), mode="replicate"),
    lambda t, x: t.nn.functional.pad(x, (1.5, 1)),
    lambda t, x: t.nn.ReflectionPad1d(1)(x[0, 0]),
]


@pytest.mark.parametrize("i", range(len(PAD_ERRORS)))
def test_padding_errors_match_pytorch(i):
    check_error(PAD_ERRORS[i], X3)


UPSAMPLES = [
    (X4, dict(scale_factor=2)),
    (X4, dict(scale_factor=2.5)),
    (X4, dict(scale_factor=(2, 3))),
    (X4, dict(size=(5, 3))),
    (X4, dict(size=4, mode="nearest-exact")),
    (X4, dict(scale_factor=0.6, mode="nearest-exact")),
    (X4, dict(scale_factor=2, mode="bilinear")),
    (X4, dict(scale_factor=1.7, mode="bilinear")),
    (X4, dict(scale_factor=0.6, mode="bilinear")),
    (X4, dict(size=(5, 7), mode="bilinear", align_corners=True)),
    (X4, dict(size=(1, 3), mode="bilinear", align_corners=True)),
    (X4, dict(size=(3, 4), mode="bilinear")),
    (X4, dict(scale_factor=1.5, mode="bilinear", recompute_scale_factor=True)),
    (X3, dict(scale_factor=2)),
    (X3, dict(size=8, mode="linear")),
    (X3, dict(size=3, mode="linear", align_corners=True)),
    (X3, dict(scale_factor=1.3, mode="nearest-exact")),
    (X5, dict(scale_factor=2, mode="trilinear")),
    (X5, dict(size=(2, 3, 5))),
    # PyTorch's nearest backward maps output o to input o (same size) or o // 2 (twice
    # the size) whatever the scale factor, unlike its forward
    (X3, dict(scale_factor=1.1)),
    (X3, dict(scale_factor=2.1)),
    (X4, dict(scale_factor=(1.2, 2.1))),
    (X3, dict(scale_factor=2.1, mode="nearest-exact")),
    (X4, dict(size=(2, 3), mode="area")),
    (X4, dict(scale_factor=0.5, mode="area")),
]


@pytest.mark.parametrize("i", range(len(UPSAMPLES)))
def test_interpolate_matches_pytorch(i):
    x, kw = UPSAMPLES[i]
    check(lambda t, a: t.nn.functional.interpolate(a, **kw), x)
    check(lambda t, a: t.nn.functional.interpolate(a, **kw), x.astype(np.float64))


UPSAMPLE_ERRORS = [
    lambda t, x: t.nn.functional.interpolate(x, size=5, scale_factor=2),
    lambda t, x: t.nn.functional.interpolate(x),
    lambda t, x: t.nn.functional.interpolate(x, size=5, align_corners=True),
    lambda t, x: t.nn.functional.interpolate(x[0], size=5, mode="bilinear"),
    lambda t, x: t.nn.functional.interpolate(x, size=5, mode="linear"),
    lambda t, x: t.nn.functional.interpolate(x, size=(5, 6, 7)),
    lambda t, x: t.nn.functional.interpolate(x, scale_factor=(2, 3, 4)),
    lambda t, x: t.nn.functional.interpolate(x, size=3, mode="bogus"),
    lambda t, x: t.nn.functional.interpolate(x.long(), size=5),
    lambda t, x: t.nn.functional.interpolate(x.long(), size=5, mode="bilinear"),
    lambda t, x: t.nn.functional.interpolate(x[0].long(), size=5, mode="linear"),
    lambda t, x: t.nn.functional.interpolate(x, size=0),
    lambda t, x: t.nn.functional.interpolate(x, scale_factor=0.1),
    lambda t, x: t.nn.functional.interpolate(x[0], scale_factor=0.1),
    lambda t, x: t.nn.functional.interpolate(x, size=5, recompute_scale_factor=True),
    lambda t, x: t.nn.functional.interpolate(x[0, 0], size=5),
    lambda t, x: t.nn.functional.interpolate(x, size=5, antialias=True),
]


@pytest.mark.parametrize("i", range(len(UPSAMPLE_ERRORS)))
def test_interpolate_errors_match_pytorch(i):
    check_error(UPSAMPLE_ERRORS[i], X4)


def test_unsupported_modes_say_so():
    x = gtorch.zeros(1, 1, 2, 2)
    for kw in (dict(mode="circular"),):
        with pytest.raises(NotImplementedError, match="gradshell does not support"):
            F.pad(x, (1, 1), **kw)
    with pytest.raises(NotImplementedError, match="gradshell does not support"):
        F.interpolate(x, scale_factor=2, mode="bicubic")
    with pytest.raises(NotImplementedError, match="gradshell does not support"):
        F.interpolate(x[0], scale_factor=2, mode="area")


SCRIPT = """
import warnings
nn, F = torch.nn, torch.nn.functional
def graph(f):
    if f is None:
        return None
    return (f.name().split(':')[-1], [graph(g) for g, _ in f.next_functions])
print(nn.ZeroPad1d(2), nn.ZeroPad2d(2), nn.ZeroPad2d((1, 1, 2, 0)), nn.ConstantPad1d(2, 3.5),
      nn.ConstantPad2d((1, 0, 2, 0), 1), nn.ConstantPad3d(1, 0.), nn.ReflectionPad1d((1, 2)),
      nn.ReflectionPad2d(2), nn.ReflectionPad3d(1), nn.ReplicationPad1d(3),
      nn.ReplicationPad2d((1, 1, 0, 2)), nn.ReplicationPad3d(1), nn.ZeroPad3d(1))
print(type(nn.ZeroPad2d(1)), nn.ZeroPad2d(1).value, nn.ReflectionPad2d([1, 2, 3, 4]).padding)
x = torch.arange(12.).view(1, 1, 3, 4).requires_grad_()
for m in [nn.ZeroPad2d((1, 1, 2, 0)), nn.ConstantPad2d(1, -1.5), nn.ReflectionPad2d((2, 1, 1, 2)),
          nn.ReplicationPad2d((3, 0, 1, 1)), nn.ReflectionPad1d(2), nn.ReplicationPad1d((0, 2))]:
    y = m(x)
    (y * y).sum().backward()
    print(y, graph(y.grad_fn), x.grad)
    g, = torch.autograd.grad((y * y).sum(), x, create_graph=True)
    print(graph(g.grad_fn))
    x.grad = None
print(nn.Upsample(scale_factor=2), nn.Upsample(size=5, mode='bilinear'),
      nn.Upsample(scale_factor=2.0, mode='bilinear', align_corners=True),
      nn.UpsamplingNearest2d(scale_factor=2), nn.UpsamplingBilinear2d(size=(3, 4)),
      nn.Upsample(size=(3, 4)), nn.Upsample(scale_factor=(2, 3)), type(nn.Upsample(size=2)))
u = nn.Upsample(scale_factor=2)
print(u.name, u.size, u.scale_factor, u.mode, u.align_corners, u.recompute_scale_factor)
for m in [nn.Upsample(scale_factor=2), nn.Upsample(size=(4, 5), mode='bilinear'),
          nn.UpsamplingBilinear2d(scale_factor=2), nn.UpsamplingNearest2d(size=5),
          nn.Upsample(scale_factor=1.5, mode='nearest-exact')]:
    y = m(x)
    (y * y).sum().backward()
    print(y, graph(y.grad_fn), x.grad)
    g, = torch.autograd.grad((y * y).sum(), x, create_graph=True)
    print(graph(g.grad_fn))
    x.grad = None
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter('always')
    print(F.upsample(x, scale_factor=2).shape, F.upsample_nearest(x, size=5).shape,
          F.upsample_bilinear(x, scale_factor=2))
    print([(m.category.__name__, str(m.message)) for m in w])
s = nn.Sequential(nn.Conv2d(1, 2, 3, padding=1), nn.ReflectionPad2d(1), nn.Upsample(scale_factor=2))
print(s, s(x).shape)
"""


def test_script_matches_pytorch(real_torch):
    assert printed(SCRIPT, gtorch) == printed(SCRIPT, real_torch)


@pytest.mark.parametrize(
    "fn",
    [
        lambda a: F.pad(a, (1, 2, 2, 1), mode="reflect"),
        lambda a: F.pad(a, (2, 3, 0, 1), mode="replicate"),
        lambda a: F.pad(a, (1, -1, 2, 0), value=0.5),
        lambda a: F.interpolate(a, scale_factor=2),
        lambda a: F.interpolate(a, scale_factor=1.7, mode="bilinear"),
        lambda a: F.interpolate(a, size=(4, 6), mode="bilinear", align_corners=True),
        lambda a: F.interpolate(a, scale_factor=0.7, mode="nearest-exact"),
        lambda a: F.interpolate(a.flatten(2), size=9, mode="linear"),
    ],
)
def test_gradients_by_finite_differences(fn):
    x = gtorch.tensor(RNG.standard_normal((1, 2, 3, 4)), requires_grad=True)
    assert gradcheck(fn, x)
    assert gradgradcheck(fn, x)


# -- pixel_shuffle / pixel_unshuffle ------------------------------------------------------------
@pytest.mark.parametrize(
    "shape,r", [((1, 8, 2, 3), 2), ((2, 1, 9, 2, 2), 3), ((4, 2, 2), 2), ((3, 2, 2), 1)]
)
def test_pixel_shuffle_matches_pytorch(shape, r):
    x = RNG.standard_normal(shape).astype(np.float32)
    check(lambda t, a: t.nn.functional.pixel_shuffle(a, r), x)
    check(lambda t, a: t.nn.PixelShuffle(r)(a), x)
    y = RNG.standard_normal(shape[:-2] + (shape[-2] * r, shape[-1] * r))
    check(lambda t, a: t.nn.functional.pixel_unshuffle(a, r), y)
    check(lambda t, a: t.nn.PixelUnshuffle(r)(a), y.astype(np.float32))


SHUFFLE_ERRORS = [
    (lambda t, x: t.nn.functional.pixel_shuffle(x[0], 2), (4, 2, 2)),
    (lambda t, x: t.nn.functional.pixel_shuffle(x, 2), (5, 2, 2)),
    (lambda t, x: t.nn.functional.pixel_shuffle(x, 0), (4, 2, 2)),
    (lambda t, x: t.nn.functional.pixel_shuffle(x, -1), (4, 2, 2)),
    (lambda t, x: t.nn.functional.pixel_shuffle(x, 2.0), (4, 2, 2)),
    (lambda t, x: t.nn.functional.pixel_unshuffle(x[0], 2), (4, 2, 2)),
    (lambda t, x: t.nn.functional.pixel_unshuffle(x, 2), (1, 3, 2)),
    (lambda t, x: t.nn.functional.pixel_unshuffle(x, 2), (1, 2, 3)),
    (lambda t, x: t.nn.functional.pixel_unshuffle(x, 0), (1, 2, 2)),
]


@pytest.mark.parametrize("i", range(len(SHUFFLE_ERRORS)))
def test_pixel_shuffle_errors_match_pytorch(i):
    fn, shape = SHUFFLE_ERRORS[i]
    check_error(fn, np.zeros(shape, np.float32))


SHUFFLE_SCRIPT = """
nn, F = torch.nn, torch.nn.functional
def graph(f):
    if f is None:
        return None
    return (f.name().split(':')[-1], [graph(g) for g, _ in f.next_functions])
print(nn.PixelShuffle(2), nn.PixelUnshuffle(3), type(nn.PixelShuffle(2)))
print(F.pixel_shuffle(torch.arange(16).view(4, 2, 2), 2))
x = torch.arange(16.).view(1, 4, 2, 2).requires_grad_()
y = nn.PixelShuffle(2)(x)
(y * y).sum().backward()
print(y, graph(y.grad_fn), x.grad)
g, = torch.autograd.grad((y * y).sum(), x, create_graph=True)
print(graph(g.grad_fn))
z = F.pixel_unshuffle(y, 2)
print(z, graph(z.grad_fn))
"""


def test_pixel_shuffle_script_matches_pytorch(real_torch):
    assert printed(SHUFFLE_SCRIPT, gtorch) == printed(SHUFFLE_SCRIPT, real_torch)


def test_pixel_shuffle_gradients_by_finite_differences():
    x = gtorch.tensor(RNG.standard_normal((2, 8, 2, 3)), requires_grad=True)
    assert gradcheck(lambda a: F.pixel_shuffle(a, 2), x)
    assert gradgradcheck(lambda a: F.pixel_shuffle(a, 2), x)
    y = gtorch.tensor(RNG.standard_normal((2, 1, 4, 6)), requires_grad=True)
    assert gradcheck(lambda a: F.pixel_unshuffle(a, 2), y)
    assert gradgradcheck(lambda a: F.pixel_unshuffle(a, 2), y)


def test_torch_namespace_forms_match_pytorch():
    check(lambda t, a: t.constant_pad_nd(a, (1, -1, 0, 2), 1.5), X4)
    check(lambda t, a: t.pixel_shuffle(a, 2), X4.reshape(1, 8, 1, 3))
    check(lambda t, a: t.pixel_unshuffle(a, 2), X4.reshape(2, 1, 2, 6))
