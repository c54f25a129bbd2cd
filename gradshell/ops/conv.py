"""Convolution (`F.conv2d` and `F.conv1d`, behind `nn.Conv2d` and `nn.Conv1d`; 1-d runs as
images of height 1): stride, padding (numbers, 'valid', 'same'), dilation, groups and bias,
with PyTorch's node `ConvolutionBackward0` and, for gradients taken with
create_graph=True, `ConvolutionBackwardBackward0`.

The forward reads the input through a strided window view (no copy) and contracts it with
the weight; the input gradient scatters the window gradients back, one kernel tap at a
time. Everything is computed with the array module of the inputs.
"""

from __future__ import annotations

import warnings

import numpy as np

from gradshell.core import grad_mode, kernels
from gradshell.ops.base import (
    BOOL,
    Node,
    Tensor,
    array_module,
    as_array,
    check_same_device,
    needs_grad,
    record,
    wrap,
)
from gradshell.ops.explanation import BACKWARD_OF_BACKWARD
from gradshell.ops.padding import constant_pad_nd

__all__ = ["conv1d", "conv2d", "pair", "conv_output_size"]


def pair(value, name: str = "") -> tuple:
    """An int or a 1- or 2-sequence as a pair of ints (kernel_size=5 means (5, 5))."""
    if isinstance(value, (list, tuple)):
        if len(value) == 1:
            return (int(value[0]), int(value[0]))
        if len(value) != 2:
            raise RuntimeError(f"expected {name or 'argument'} to be a single integer or a pair")
        return (int(value[0]), int(value[1]))
    return (int(value), int(value))


def conv_output_size(size: int, kernel: int, stride: int, pad: int, dil: int) -> int:
    """floor((size + 2 pad - dil (kernel - 1) - 1) / stride) + 1."""
    return (size + 2 * pad - dil * (kernel - 1) - 1) // stride + 1


def windows(xp, data, kernel: tuple, stride: tuple, dil: tuple, out: tuple):
    """A (N, C, Ho, Wo, kh, kw) array of padded (N, C, H, W) data: the receptive field
    of every output position (one strided slice per kernel tap, so any array module
    holding the data can build it)."""
    taps = []
    for i in range(kernel[0]):
        r0 = i * dil[0]
        rows = slice(r0, r0 + stride[0] * (out[0] - 1) + 1, stride[0])
        for j in range(kernel[1]):
            c0 = j * dil[1]
            cols = slice(c0, c0 + stride[1] * (out[1] - 1) + 1, stride[1])
            taps.append(data[:, :, rows, cols])
    stacked = xp.stack(taps, axis=-1)
    return stacked.reshape(data.shape[:2] + tuple(out) + tuple(kernel))


def scatter_windows(xp, gwin, padded_shape: tuple, stride: tuple, dil: tuple):
    """The adjoint of `windows`: add each window's gradient (N, C, Ho, Wo, kh, kw) back
    onto the padded input positions it was read from."""
    out = xp.zeros(padded_shape, gwin.dtype)
    ho, wo, kh, kw = gwin.shape[2:]
    for i in range(kh):
        r0 = i * dil[0]
        rows = slice(r0, r0 + stride[0] * (ho - 1) + 1, stride[0])
        for j in range(kw):
            c0 = j * dil[1]
            cols = slice(c0, c0 + stride[1] * (wo - 1) + 1, stride[1])
            out[:, :, rows, cols] += gwin[:, :, :, :, i, j]
    return out


def _pad(xp, data, pads: tuple):
    """Zero padding: pads = (top, bottom, left, right)."""
    if not any(pads):
        return data
    top, bottom, left, right = pads
    return xp.pad(data, ((0, 0), (0, 0), (top, bottom), (left, right)))


def _conv_forward(xp, x, w, pads, stride, dil, groups):
    """The convolution of arrays x (N, C, H, W) and w (O, C/groups, kh, kw)."""
    xpad = _pad(xp, x, pads)
    kh, kw = w.shape[2:]
    ho = (xpad.shape[2] - dil[0] * (kh - 1) - 1) // stride[0] + 1
    wo = (xpad.shape[3] - dil[1] * (kw - 1) - 1) // stride[1] + 1
    win = windows(xp, xpad, (kh, kw), stride, dil, (ho, wo))
    n = x.shape[0]
    o = w.shape[0]
    cg, og = w.shape[1], o // groups
    out = xp.empty((n, o, ho, wo), x.dtype)
    for g in range(groups):
        part = win[:, g * cg : (g + 1) * cg]
        wg = w[g * og : (g + 1) * og]
        # (N, Ho, Wo, Og): contract channels and the kernel taps
        r = xp.tensordot(part, wg, axes=([1, 4, 5], [1, 2, 3]))
        out[:, g * og : (g + 1) * og] = r.transpose(0, 3, 1, 2)
    return out


def _conv_input_grad(xp, g, w, x_shape, pads, stride, dil, groups):
    """∂L/∂x of the convolution, given ∂L/∂out (N, O, Ho, Wo)."""
    n, c, h, wd = x_shape
    top, bottom, left, right = pads
    padded = (n, c, h + top + bottom, wd + left + right)
    cg, og = w.shape[1], w.shape[0] // groups
    gwin = xp.empty((n, c) + g.shape[2:] + w.shape[2:], g.dtype)
    for k in range(groups):
        gg = g[:, k * og : (k + 1) * og]
        wg = w[k * og : (k + 1) * og]
        # (N, Ho, Wo, Cg, kh, kw) -> (N, Cg, Ho, Wo, kh, kw)
        r = xp.tensordot(gg, wg, axes=([1], [0]))
        gwin[:, k * cg : (k + 1) * cg] = r.transpose(0, 3, 1, 2, 4, 5)
    gx = scatter_windows(xp, gwin, padded, stride, dil)
    return gx[:, :, top : top + h, left : left + wd]


def _conv_weight_grad(xp, x, g, w_shape, pads, stride, dil, groups):
    """∂L/∂w of the convolution, given ∂L/∂out (N, O, Ho, Wo)."""
    xpad = _pad(xp, x, pads)
    o, cg, kh, kw = w_shape
    og = o // groups
    win = windows(xp, xpad, (kh, kw), stride, dil, g.shape[2:])
    gw = xp.empty(w_shape, g.dtype)
    for k in range(groups):
        part = win[:, k * cg : (k + 1) * cg]
        gg = g[:, k * og : (k + 1) * og]
        # (Og, Cg, kh, kw): contract the batch and the output positions
        gw[k * og : (k + 1) * og] = xp.tensordot(gg, part, axes=([0, 2, 3], [0, 2, 3]))
    return gw


class _ConvParams:
    """The geometry shared by a convolution's nodes (nd: 1 for conv1d, whose arrays are
    computed as images of height 1; transposed: a transposed convolution, whose forward
    is the input gradient of the convolution with the same weight)."""

    __slots__ = ("pads", "stride", "dil", "groups", "nd", "transposed")

    def __init__(self, pads, stride, dil, groups, nd: int = 2, transposed: bool = False) -> None:
        self.pads, self.stride, self.dil, self.groups = pads, stride, dil, groups
        self.nd = nd
        self.transposed = transposed


def _lift(a, p: _ConvParams):
    """A conv1d array (N, C, L) as the (N, C, 1, L) image the kernels work on."""
    return a[:, :, None, :] if p.nd == 1 else a


def _drop(a, p: _ConvParams):
    """The inverse of _lift."""
    return a[:, :, 0, :] if p.nd == 1 else a


def _grads(g: Tensor, x: Tensor, w: Tensor, p: _ConvParams, needs: tuple):
    """(∂x, ∂w, ∂b) of a convolution, given its output gradient g."""
    xp = array_module(g._data)
    gd, xd, wd = _lift(g._data, p), _lift(x._data, p), _lift(w._data, p)
    need_x, need_w, need_b = needs
    gx = gw = gb = None
    if p.transposed:
        # y = convT(x, w) is the input gradient of conv(·, w): so ∂x = conv(g, w) and ∂w is
        # the weight gradient of a convolution reading g against output gradient x
        if need_x:
            r = _crop(_conv_forward(xp, gd, wd, *_geo(p)), xd.shape)
            gx = wrap(as_array(_drop(r, p)), x._dtype)
        if need_w:
            r = _conv_weight_grad(xp, gd, xd, wd.shape, *_geo(p))
            gw = wrap(as_array(_drop(r, p)), w._dtype)
        if need_b:
            gb = wrap(as_array(gd.sum(axis=(0, 2, 3))), g._dtype)
        return gx, gw, gb
    if need_x:
        r = _conv_input_grad(xp, gd, wd, xd.shape, *_geo(p))
        gx = wrap(as_array(_drop(r, p)), x._dtype)
    if need_w:
        r = _conv_weight_grad(xp, xd, gd, wd.shape, *_geo(p))
        gw = wrap(as_array(_drop(r, p)), w._dtype)
    if need_b:
        gb = wrap(as_array(gd.sum(axis=(0, 2, 3))), g._dtype)
    return gx, gw, gb


class ConvolutionBackward0(Node):
    """d conv: the input gradient is the transposed convolution of the output gradient
    with the weight, the weight gradient the correlation of the input with it, the bias
    gradient its sum over batch and positions."""

    def backward(self, g):
        x = self.saved("input")
        w = self.saved("weight")
        if grad_mode.state.enabled:  # create_graph: the gradients are differentiable too
            return _conv_backward_graph(g, x, w, self.params, self.needs)
        return _grads(g, x, w, self.params, self.needs)

    no_explanation = (
        "its local derivative is itself a convolution of the gradient: no one-line formula"
    )


def _geo(p: _ConvParams) -> tuple:
    return p.pads, p.stride, p.dil, p.groups


class ConvolutionBackwardBackward0(Node):
    """The backward of ConvolutionBackward0 (inputs: the output gradient g, the input x
    and the weight w; outputs: ∂x, ∂w, ∂b). Each output is bilinear, so its gradients
    are convolutions again: ∂g = conv(ggx, w) + conv(x, ggw) + ggb, ∂x = the input
    gradient of ggw against g, ∂w = the weight gradient of ggx against g."""

    num_outputs = 3

    def backward(self, ggx, ggw, ggb):
        g = self.saved("grad_output")
        x = self.saved("self")
        w = self.saved("weight")
        p = self.params
        xp = array_module(g._data)
        gd, xd, wd = _lift(g._data, p), _lift(x._data, p), _lift(w._data, p)
        need_g, need_x, need_w = self.needs
        if p.transposed:
            return _transposed_double(xp, (gd, xd, wd), (g, x, w), (ggx, ggw, ggb), p, self.needs)
        dg = dx = dw = None
        if need_g:
            acc = xp.zeros(gd.shape, gd.dtype)
            if ggx is not None:
                acc = acc + _conv_forward(xp, _lift(ggx._data, p), wd, *_geo(p))
            if ggw is not None:
                acc = acc + _conv_forward(xp, xd, _lift(ggw._data, p), *_geo(p))
            if ggb is not None:
                acc = acc + ggb._data.reshape(1, -1, 1, 1)
            dg = wrap(as_array(_drop(acc, p)), g._dtype)
        if need_x and ggw is not None:
            r = _conv_input_grad(xp, gd, _lift(ggw._data, p), xd.shape, *_geo(p))
            dx = wrap(as_array(_drop(r, p)), x._dtype)
        if need_w and ggx is not None:
            r = _conv_weight_grad(xp, _lift(ggx._data, p), gd, wd.shape, *_geo(p))
            dw = wrap(as_array(_drop(r, p)), w._dtype)
        return dg, dx, dw

    no_explanation = BACKWARD_OF_BACKWARD


def _crop(a, shape: tuple):
    """a's leading spatial block of `shape`: a convolution of a transposed convolution's
    output gradient reads output_padding rows past what any input position wrote, when it
    is at least the stride (with dilation), and gives more positions than the input had."""
    return a[:, :, : shape[2], : shape[3]]


def _transposed_double(xp, arrays, tensors, ggs, p: _ConvParams, needs):
    """ConvolutionBackwardBackward0 of a transposed convolution: its first derivatives
    ∂x = conv(g, w), ∂w = weight-grad(g, x), ∂b = Σg are bilinear, so ∂g = convT(ggx, w) +
    convT(x, ggw) + ggb, ∂x = conv(g, ggw) and ∂w = weight-grad(g, ggx)."""
    gd, xd, wd = arrays
    g, x, w = tensors
    ggx, ggw, ggb = ggs
    need_g, need_x, need_w = needs
    dg = dx = dw = None
    if need_g:
        acc = xp.zeros(gd.shape, gd.dtype)
        if ggx is not None:
            acc = acc + _conv_input_grad(xp, _lift(ggx._data, p), wd, gd.shape, *_geo(p))
        if ggw is not None:
            acc = acc + _conv_input_grad(xp, xd, _lift(ggw._data, p), gd.shape, *_geo(p))
        if ggb is not None:
            acc = acc + ggb._data.reshape(1, -1, 1, 1)
        dg = wrap(as_array(_drop(acc, p)), g._dtype)
    if need_x and ggw is not None:
        r = _crop(_conv_forward(xp, gd, _lift(ggw._data, p), *_geo(p)), xd.shape)
        dx = wrap(as_array(_drop(r, p)), x._dtype)
    if need_w and ggx is not None:
        r = _conv_weight_grad(xp, gd, _lift(ggx._data, p), wd.shape, *_geo(p))
        dw = wrap(as_array(_drop(r, p)), w._dtype)
    return dg, dx, dw


def _conv_backward_graph(g: Tensor, x: Tensor, w: Tensor, p: _ConvParams, needs: tuple):
    """ConvolutionBackward0 under create_graph=True: the three gradients as outputs of one
    ConvolutionBackwardBackward0 node."""
    gx, gw, gb = _grads(g, x, w, p, needs)
    if needs_grad(g, x, w):
        node = ConvolutionBackwardBackward0()
        node.params = p
        node.needs = (g._requires_grad, x._requires_grad, w._requires_grad)
        node.save("grad_output", g)
        node.save("self", x)
        node.save("weight", w)
        for nr, out in enumerate((gx, gw, gb)):
            if out is not None:
                if nr == 0 or node.next_functions == ():
                    record(node, (g, x, w), out, 0)  # (output 0 links the edges)
                    out._output_nr = nr
                else:
                    record(node, (g, x, w), out, nr)
    return gx, gw, gb


# -- argument checks, in PyTorch's order ----------------------------------------------------------
def check_arguments(
    x: Tensor, w: Tensor, b, stride, padding, dil, groups, nd: int = 2, *, output_padding=None
) -> None:
    """PyTorch's argument checks of a convolution, in its order; with `output_padding`,
    those of a transposed convolution."""
    name = f"conv{nd}d" if output_padding is None else f"conv_transpose{nd}d"
    if not isinstance(x, Tensor):
        raise TypeError(
            f"{name}() received an invalid combination of arguments - got ({type(x).__name__}, ...)"
        )
    if x._data.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(
            f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to {name}, but got "
            f"input of size: {_shape_text(x._data.shape)}"
        )
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if not isinstance(padding, str) and any(q < 0 for q in padding):
        raise RuntimeError("negative padding is not supported")
    if output_padding is not None and any(v < 0 for v in output_padding):
        raise RuntimeError("negative output_padding is not supported")
    if any(d <= 0 for d in dil):
        raise RuntimeError("dilation should be greater than zero")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    check_same_device(x, w)
    if b is not None:
        check_same_device(x, b)


def _shape_text(shape) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _check_shapes(xs: tuple, w: Tensor, b, pads: tuple, dil: tuple, groups: int, nd=2) -> None:
    """PyTorch's shape errors, for a batched input of shape xs (nd spatial dimensions)."""
    ws = w._data.shape
    if len(ws) != nd + 2:
        raise RuntimeError(
            "weight should have at least three dimensions"
            if len(ws) < 3
            else f"Expected {len(ws)}-dimensional input for {len(ws)}-dimensional weight "
            f"{_shape_text(ws)}, but got {len(xs)}-dimensional input of size "
            f"{_shape_text(xs)} instead"
        )
    if ws[0] % groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, "
            f"but got weight of size {_shape_text(ws)} instead"
        )
    if xs[1] != ws[1] * groups:
        prefix = f"Given groups={groups}, weight of size"
        raise RuntimeError(
            f"{prefix} {_shape_text(ws)}, expected input{_shape_text(xs)} to have "
            f"{ws[1] * groups} channels, but got {xs[1]} channels instead"
        )
    if b is not None and (b._data.ndim != 1 or b._data.shape[0] != ws[0]):
        raise RuntimeError(
            f"Given weight of size {_shape_text(ws)}, expected bias to be 1-dimensional with "
            f"{ws[0]} elements, but got bias of size {_shape_text(b._data.shape)} instead"
        )
    pad_sums = (pads[0] + pads[1], pads[2] + pads[3])[2 - nd :]
    dils = tuple(dil)[2 - nd :]
    padded = [size + q for size, q in zip(xs[2:], pad_sums, strict=True)]
    kernel = [d * (k - 1) + 1 for d, k in zip(dils, ws[2:], strict=True)]
    if any(q < k for q, k in zip(padded, kernel, strict=True)):
        raise RuntimeError(
            f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). "
            f"Kernel size: ({' x '.join(map(str, kernel))}). Kernel size can't be greater "
            "than actual input size"
        )


def _check_dtypes(x: Tensor, w: Tensor, b) -> None:
    # PyTorch compares the bias first, then the weight
    if b is not None and b._dtype is not x._dtype:
        raise RuntimeError(
            f"Input type ({x._dtype.cpp_name}) and bias type ({b._dtype.cpp_name}) should be "
            "the same"
        )
    if x._dtype is not w._dtype:
        raise RuntimeError(
            f"expected scalar type {x._dtype.scalar_name} but found {w._dtype.scalar_name}"
        )
    if x._dtype.category == BOOL:
        raise RuntimeError("\"slow_conv2d_cpu\" not implemented for 'Bool'")


_SAME_WARNING = (
    "Using padding='same' with even kernel lengths and odd dilation may require a zero-padded "
    "copy of the input be created (Triggered internally at "
    "/__w/pytorch/pytorch/aten/src/ATen/native/Convolution.cpp:1101.)"
)


def _pads(padding, stride, dil, kernel) -> tuple:
    """(top, bottom, left, right) zero padding for `padding` (pair, 'valid' or 'same')."""
    if isinstance(padding, str):
        if padding == "valid":
            return (0, 0, 0, 0)
        if padding != "same":
            raise RuntimeError(f"Invalid padding string: '{padding}'")
        if any(s != 1 for s in stride):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        out = []
        if any(d * (k - 1) % 2 for d, k in zip(dil, kernel, strict=True)):
            warnings.warn(_SAME_WARNING, UserWarning, stacklevel=5)
        for d, k in zip(dil, kernel, strict=True):
            total = d * (k - 1)
            # PyTorch pads the odd extra row or column at the end
            out += [total // 2, total - total // 2]
        return tuple(out)
    return (padding[0], padding[0], padding[1], padding[1])


def _pad_end(x: Tensor, bottom: int, right: int, nd: int) -> Tensor:
    """x zero-padded by `bottom` rows (2-d only) and `right` columns at the end."""
    return constant_pad_nd(x, (0, right, 0, bottom) if nd == 2 else (0, right), 0)


def _single(value, name: str = "") -> int:
    if isinstance(value, (list, tuple)):
        if len(value) != 1:
            raise RuntimeError(f"expected {name or 'argument'} to be a single integer")
        return int(value[0])
    return int(value)


def _exact_depthwise(x: Tensor, weight: Tensor, bias, p: _ConvParams):
    """A depthwise convolution (groups = input channels > 1) in PyTorch's float32 order
    (``kernels.conv``) when the exact kernels are on, else None."""
    xd, wd = _lift(x._data, p), _lift(weight._data, p)
    if p.groups < 2 or xd.shape[1] != p.groups or not kernels.applies(xd):
        return None
    pads, stride, dil, _ = _geo(p)
    xpad = _pad(np, xd, pads)
    kh, kw = wd.shape[2:]
    ho = (xpad.shape[2] - dil[0] * (kh - 1) - 1) // stride[0] + 1
    wo = (xpad.shape[3] - dil[1] * (kw - 1) - 1) // stride[1] + 1
    b = None if bias is None else bias._data
    return kernels.conv.depthwise(xpad, wd, b, stride, dil, (ho, wo), any(pads))


def _convolution(x, weight, bias, stride, padding, dilation, groups: int, nd: int) -> Tensor:
    """conv1d/conv2d: 1-d convolutions run as images of height 1."""
    if nd == 1:
        stride_p = (1, _single(stride, "stride"))
        dil = (1, _single(dilation, "dilation"))
        pad_arg = padding if isinstance(padding, str) else (0, _single(padding, "padding"))
    else:
        stride_p = pair(stride, "stride")
        dil = pair(dilation, "dilation")
        pad_arg = padding if isinstance(padding, str) else pair(padding, "padding")
    check_arguments(x, weight, bias, stride_p, pad_arg, dil, groups, nd)
    unbatched = x._data.ndim == nd + 1
    if unbatched:
        x = x.unsqueeze(0)
    ws = weight._data.shape
    kernel = ((1,) + tuple(ws[2:])) if nd == 1 else tuple(ws[2:])
    pads = _pads(pad_arg, stride_p, dil, kernel if len(ws) == nd + 2 else ())
    _check_shapes(x._data.shape, weight, bias, pads, dil, groups, nd)
    _check_dtypes(x, weight, bias)
    if pads[0] != pads[1] or pads[2] != pads[3]:
        # 'same' with an odd total: PyTorch pads the extra row/column first
        # (constant_pad_nd), then convolves with symmetric padding
        x = _pad_end(x, pads[1] - pads[0], pads[3] - pads[2], nd)
        pads = (pads[0], pads[0], pads[2], pads[2])
    xp = array_module(x._data)
    p = _ConvParams(pads, stride_p, dil, groups, nd)
    r = _exact_depthwise(x, weight, bias, p)
    if r is None:
        r = _conv_forward(xp, _lift(x._data, p), _lift(weight._data, p), *_geo(p))
        if bias is not None:
            r += bias._data.reshape(1, -1, 1, 1)
    return finish_convolution(xp, r, x, weight, bias, p, unbatched)


def finish_convolution(xp, r, x: Tensor, weight: Tensor, bias, p, unbatched: bool) -> Tensor:
    """The tensor of a convolution's (or transposed convolution's) computed array `r`,
    with its ConvolutionBackward0 recorded, and squeezed back for an unbatched input."""
    res = wrap(as_array(xp.ascontiguousarray(_drop(r, p))), x._dtype)
    if needs_grad(x, weight, bias):
        node = ConvolutionBackward0()
        node.params = p
        node.needs = (
            x._requires_grad,
            weight._requires_grad,
            bias is not None and bias._requires_grad,
        )
        node.save("input", x)
        node.save("weight", weight)
        record(node, (x, weight, bias), res)
    if unbatched:
        res = res.squeeze(0)
    return res


def conv2d(
    input: Tensor,  # noqa: A002 - PyTorch's name
    weight: Tensor,
    bias: Tensor | None = None,
    stride=1,
    padding=0,
    dilation=1,
    groups: int = 1,
) -> Tensor:
    """The 2-D cross-correlation of input (N, C, H, W) or (C, H, W) with weight
    (O, C/groups, kh, kw), plus bias (O,)."""
    return _convolution(input, weight, bias, stride, padding, dilation, groups, 2)


def conv1d(
    input: Tensor,  # noqa: A002 - PyTorch's name
    weight: Tensor,
    bias: Tensor | None = None,
    stride=1,
    padding=0,
    dilation=1,
    groups: int = 1,
) -> Tensor:
    """The 1-D cross-correlation of input (N, C, L) or (C, L) with weight (O, C/groups, k),
    plus bias (O,)."""
    return _convolution(input, weight, bias, stride, padding, dilation, groups, 1)
