"""2-D convolution (`F.conv2d`, behind `nn.Conv2d`): stride, padding (numbers, 'valid',
'same'), dilation, groups and bias, with PyTorch's node `ConvolutionBackward0` and, for
gradients taken with create_graph=True, `ConvolutionBackwardBackward0`.

The forward reads the input through a strided window view (no copy) and contracts it with
the weight; the input gradient scatters the window gradients back, one kernel tap at a
time. Everything is computed with the array module of the inputs.
"""

from __future__ import annotations

import warnings

from gradshell.core import grad_mode
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

__all__ = ["conv2d", "pair", "conv_output_size"]


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
    """The geometry shared by a convolution's nodes."""

    __slots__ = ("pads", "stride", "dil", "groups")

    def __init__(self, pads, stride, dil, groups) -> None:
        self.pads, self.stride, self.dil, self.groups = pads, stride, dil, groups


class ConvolutionBackward0(Node):
    """d conv: the input gradient is the transposed convolution of the output gradient
    with the weight, the weight gradient the correlation of the input with it, the bias
    gradient its sum over batch and positions."""

    def backward(self, g):
        x = self.saved("input")
        w = self.saved("weight")
        p = self.params
        need_x, need_w, need_b = self.needs
        if grad_mode.state.enabled:  # create_graph: the gradients are differentiable too
            return _conv_backward_graph(g, x, w, p, self.needs)
        xp = array_module(g._data)
        gd = g._data
        gx = gw = gb = None
        if need_x:
            gx = wrap(
                as_array(_conv_input_grad(xp, gd, w._data, x._data.shape, *_geo(p))), x._dtype
            )
        if need_w:
            gw = wrap(
                as_array(_conv_weight_grad(xp, x._data, gd, w._data.shape, *_geo(p))), w._dtype
            )
        if need_b:
            gb = wrap(as_array(gd.sum(axis=(0, 2, 3))), g._dtype)
        return gx, gw, gb


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
        need_g, need_x, need_w = self.needs
        dg = dx = dw = None
        if need_g:
            acc = xp.zeros(g._data.shape, g._data.dtype)
            if ggx is not None:
                acc = acc + _conv_forward(xp, ggx._data, w._data, *_geo(p))
            if ggw is not None:
                acc = acc + _conv_forward(xp, x._data, ggw._data, *_geo(p))
            if ggb is not None:
                acc = acc + ggb._data.reshape(1, -1, 1, 1)
            dg = wrap(as_array(acc), g._dtype)
        if need_x and ggw is not None:
            dx = wrap(
                as_array(_conv_input_grad(xp, g._data, ggw._data, x._data.shape, *_geo(p))),
                x._dtype,
            )
        if need_w and ggx is not None:
            dw = wrap(
                as_array(_conv_weight_grad(xp, ggx._data, g._data, w._data.shape, *_geo(p))),
                w._dtype,
            )
        return dg, dx, dw


def _conv_backward_graph(g: Tensor, x: Tensor, w: Tensor, p: _ConvParams, needs: tuple):
    """ConvolutionBackward0 under create_graph=True: the three gradients as outputs of one
    ConvolutionBackwardBackward0 node."""
    xp = array_module(g._data)
    gd = g._data
    need_x, need_w, need_b = needs
    gx = gw = gb = None
    if need_x:
        gx = wrap(as_array(_conv_input_grad(xp, gd, w._data, x._data.shape, *_geo(p))), x._dtype)
    if need_w:
        gw = wrap(as_array(_conv_weight_grad(xp, x._data, gd, w._data.shape, *_geo(p))), w._dtype)
    if need_b:
        gb = wrap(as_array(gd.sum(axis=(0, 2, 3))), g._dtype)
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
def _check(x: Tensor, w: Tensor, b, stride, padding, dil, groups):
    if not isinstance(x, Tensor):
        raise TypeError(
            f"conv2d() received an invalid combination of arguments - got ({type(x).__name__}, ...)"
        )
    if x._data.ndim not in (3, 4):
        raise RuntimeError(
            "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: "
            f"[{', '.join(str(s) for s in x._data.shape)}]"
        )
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if not isinstance(padding, str) and any(q < 0 for q in padding):
        raise RuntimeError("negative padding is not supported")
    if any(d <= 0 for d in dil):
        raise RuntimeError("dilation should be greater than zero")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    check_same_device(x, w)
    if b is not None:
        check_same_device(x, b)


def _shape_text(shape) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _check_shapes(xs: tuple, w: Tensor, b, pads: tuple, dil: tuple, groups: int) -> None:
    ws = w._data.shape
    if len(ws) != 4:
        raise RuntimeError(
            "weight should have at least three dimensions"
            if len(ws) < 3
            else f"Expected 4-dimensional weight for 4-dimensional input {_shape_text(xs)}, "
            f"but got {len(ws)}-dimensional weight of size {_shape_text(ws)} instead"
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
    ph = xs[2] + pads[0] + pads[1]
    pw = xs[3] + pads[2] + pads[3]
    kh = dil[0] * (ws[2] - 1) + 1
    kw = dil[1] * (ws[3] - 1) + 1
    if ph < kh or pw < kw:
        raise RuntimeError(
            f"Calculated padded input size per channel: ({ph} x {pw}). Kernel size: "
            f"({kh} x {kw}). Kernel size can't be greater than actual input size"
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
            warnings.warn(_SAME_WARNING, UserWarning, stacklevel=4)
        for d, k in zip(dil, kernel, strict=True):
            total = d * (k - 1)
            # PyTorch pads the odd extra row or column at the end
            out += [total // 2, total - total // 2]
        return tuple(out)
    return (padding[0], padding[0], padding[1], padding[1])


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
    stride_p = pair(stride, "stride")
    dil = pair(dilation, "dilation")
    pad_arg = padding if isinstance(padding, str) else pair(padding, "padding")
    _check(input, weight, bias, stride_p, pad_arg, dil, groups)
    x = input
    unbatched = x._data.ndim == 3
    if unbatched:
        x = x.unsqueeze(0)
    pads = _pads(pad_arg, stride_p, dil, weight._data.shape[2:] if weight._data.ndim == 4 else ())
    _check_shapes(x._data.shape, weight, bias, pads, dil, groups)
    _check_dtypes(x, weight, bias)
    xp = array_module(x._data)
    p = _ConvParams(pads, stride_p, dil, groups)
    r = _conv_forward(xp, x._data, weight._data, *_geo(p))
    if bias is not None:
        r += bias._data.reshape(1, -1, 1, 1)
    res = wrap(as_array(r), x._dtype)
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
