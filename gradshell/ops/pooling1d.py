"""1-d pooling: `F.max_pool1d`, `F.avg_pool1d`, `F.adaptive_avg_pool1d` and
`F.adaptive_max_pool1d`. PyTorch computes each as its 2-d form on the input unsqueezed at
dimension -2 and squeezes the result back, so the graph shows `UnsqueezeBackward0`, the 2-d
node and `SqueezeBackward1`; gradshell builds the same chain. The 1-d argument checks and
their messages are PyTorch's own.
"""

from __future__ import annotations

from gradshell.ops.adaptive_max_pool import adaptive_max_pool2d
from gradshell.ops.base import BOOL, FLOAT, Tensor
from gradshell.ops.pooling import adaptive_avg_pool2d, avg_pool2d, max_pool2d_with_indices

__all__ = ["adaptive_avg_pool1d", "adaptive_max_pool1d", "avg_pool1d", "max_pool1d"]


def _shape_text(shape) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _one(value, what: str, fn: str, default=None) -> int:
    """A 1-d pooling argument (an int or a 1-sequence) as an int, with PyTorch's message
    for a longer sequence."""
    if isinstance(value, (list, tuple)):
        if len(value) == 0 and default is not None:
            return default
        if len(value) != 1:
            raise RuntimeError(
                f"{fn}() argument '{what}' should contain one int (got {len(value)})"
            )
        return int(value[0])
    return int(value)


def _dims_2_or_3(x, fn: str) -> None:
    if not isinstance(x, Tensor):
        raise TypeError(
            f"{fn}(): argument 'input' (position 1) must be Tensor, not {type(x).__name__}"
        )
    if x._data.ndim not in (2, 3):
        raise RuntimeError(
            f"Expected 2 to 3 dimensions, but got {x._data.ndim}-dimensional tensor for "
            f"argument #1 'self' (while checking arguments for {fn})"
        )


def _max_arg(value, what: str, default=None) -> int:
    if isinstance(value, (list, tuple)):
        if len(value) == 0 and default is not None:
            return default
        if len(value) != 1:
            raise RuntimeError(
                f"max_pool1d() {what} must be an int, list of ints or tuple of ints of size 1 "
                f"but got size {len(value)}"
            )
        return int(value[0])
    return int(value)


def _lift(x: Tensor) -> Tensor:
    return x.unsqueeze(-2)


def _drop(t: Tensor) -> Tensor:
    return t.squeeze(-2)


def max_pool1d(
    input: Tensor,  # noqa: A002 - PyTorch's name
    kernel_size,
    stride=None,
    padding=0,
    dilation=1,
    ceil_mode: bool = False,
    return_indices: bool = False,
):
    """The maximum of each kernel window along the last dimension (with return_indices,
    also where it was)."""
    x = input
    if not isinstance(x, Tensor):
        raise TypeError(
            f"max_pool1d(): argument 'input' (position 1) must be Tensor, not {type(x).__name__}"
        )
    shape = x._data.shape
    if len(shape) not in (2, 3) or any(s == 0 for s in shape[-2:]):
        raise RuntimeError(
            "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size "
            f"for input, but got:{_shape_text(shape)}"
        )
    k = _max_arg(kernel_size, "kernel_size")
    s = k if stride is None else _max_arg(stride, "stride", default=k)
    p = _max_arg(padding, "padding")
    d = _max_arg(dilation, "dilation")
    if not return_indices:
        # without indices PyTorch checks the arguments with its 1-d messages first
        for what, v in (("kernel_size", k), ("stride", s), ("dilation", d)):
            if v <= 0:
                raise RuntimeError(f"max_pool1d() {what} must be greater than zero, but got {v}")
        if p < 0:
            raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {p}")
        if p > k // 2:
            raise RuntimeError(
                "max_pool1d() padding should be at most half of kernel size, but got "
                f"padding={p} and kernel_size={k}"
            )
        span = shape[-1] + 2 * p - d * (k - 1) - 1
        out = (span + (s - 1 if ceil_mode else 0)) // s + 1
        if ceil_mode and (out - 1) * s >= shape[-1] + p:
            out -= 1
        if out < 1:
            raise RuntimeError(f"max_pool1d() Invalid computed output size: {out}")
        if x._dtype.category != FLOAT:  # (only its gradient-free kernel takes integers)
            name = "Bool" if x._dtype.category == BOOL else x._dtype.scalar_name
            raise NotImplementedError(f"\"max_pool1d_impl\" not implemented for '{name}'")
    res, idx = max_pool2d_with_indices(_lift(x), (1, k), (1, s), (0, p), (1, d), ceil_mode)
    res, idx = _drop(res), idx.squeeze(-2)
    return (res, idx) if return_indices else res


def avg_pool1d(
    input: Tensor,  # noqa: A002 - PyTorch's name
    kernel_size,
    stride=None,
    padding=0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
) -> Tensor:
    """The mean of each kernel window along the last dimension."""
    x = input
    _dims_2_or_3(x, "avg_pool1d")
    k = _one(kernel_size, "kernel_size", "avg_pool1d")
    s = k if stride is None else _one(stride, "stride", "avg_pool1d", default=k)
    p = _one(padding, "padding", "avg_pool1d")
    if k == 0 or s == 0:
        raise RuntimeError("stride should not be zero")
    return _drop(avg_pool2d(_lift(x), (1, k), (1, s), (0, p), ceil_mode, count_include_pad))


def adaptive_avg_pool1d(input: Tensor, output_size) -> Tensor:  # noqa: A002 - PyTorch's name
    """Average pooling along the last dimension to a fixed output size."""
    x = input
    _dims_2_or_3(x, "adaptive_avg_pool1d")
    out = _one(output_size, "output_size", "adaptive_avg_pool1d")
    return _drop(adaptive_avg_pool2d(_lift(x), (1, out)))


def adaptive_max_pool1d(
    input: Tensor,  # noqa: A002 - PyTorch's name
    output_size,
    return_indices: bool = False,
):
    """Max pooling along the last dimension to a fixed output size (with return_indices,
    also where each maximum was)."""
    x = input
    _dims_2_or_3(x, "adaptive_max_pool1d")
    out = _one(output_size, "output_size", "adaptive_max_pool1d")
    shape = x._data.shape
    for d in range(len(shape) - 2 + 1, len(shape)):
        if shape[d] == 0:
            raise RuntimeError(
                "adaptive_max_pool1d(): Expected input to have non-zero size for non-batch "
                f"dimensions, but input has sizes {_shape_text(shape)} with dimension {d} "
                "being empty"
            )
    res, idx = adaptive_max_pool2d(_lift(x), (1, out), return_indices=True)
    res, idx = _drop(res), idx.squeeze(-2)
    return (res, idx) if return_indices else res
