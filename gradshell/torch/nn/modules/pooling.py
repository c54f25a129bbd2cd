"""The pooling layers: MaxPool1d/2d, AvgPool1d/2d, AdaptiveAvgPool1d/2d and
AdaptiveMaxPool1d/2d, the module forms of the F.*_pool* functions."""

from __future__ import annotations

from gradshell.core.tensor import Tensor
from gradshell.ops.adaptive_max_pool import adaptive_max_pool2d
from gradshell.ops.conv import pair
from gradshell.ops.pooling import adaptive_avg_pool2d, avg_pool2d, max_pool2d
from gradshell.ops.pooling1d import (
    adaptive_avg_pool1d,
    adaptive_max_pool1d,
    avg_pool1d,
    max_pool1d,
)
from gradshell.ops.unpool import max_unpool2d
from gradshell.torch.nn.modules.module import Module


class _MaxPoolNd(Module):
    """What MaxPool1d and MaxPool2d share: their settings and repr."""

    def __init__(
        self,
        kernel_size,
        stride=None,
        padding=0,
        dilation=1,
        return_indices: bool = False,
        ceil_mode: bool = False,
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def extra_repr(self) -> str:
        return (
            f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
            f"dilation={self.dilation}, ceil_mode={self.ceil_mode}"
        )


class MaxPool2d(_MaxPoolNd):
    """The maximum over each kernel window (stride defaults to the kernel size)."""

    def forward(self, input: Tensor):  # noqa: A002 - PyTorch's name
        """F.max_pool2d with this layer's settings."""
        return max_pool2d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.dilation,
            ceil_mode=self.ceil_mode,
            return_indices=self.return_indices,
        )


class AvgPool2d(Module):
    """The mean over each kernel window (stride defaults to the kernel size)."""

    def __init__(
        self,
        kernel_size,
        stride=None,
        padding=0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
        divisor_override=None,
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002 - PyTorch's name
        """F.avg_pool2d with this layer's settings."""
        return avg_pool2d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.ceil_mode,
            self.count_include_pad,
            self.divisor_override,
        )

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class _AdaptiveAvgPoolNd(Module):
    """What AdaptiveAvgPool1d and AdaptiveAvgPool2d share: the output size and repr."""

    def __init__(self, output_size) -> None:
        super().__init__()
        self.output_size = output_size

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    """Average pooling to a fixed output size (an int, a pair, None keeps that size)."""

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002 - PyTorch's name
        """F.adaptive_avg_pool2d to this layer's output size."""
        return adaptive_avg_pool2d(input, self.output_size)


class MaxPool1d(_MaxPoolNd):
    """The maximum over each kernel window along the last dimension."""

    def forward(self, input: Tensor):  # noqa: A002 - PyTorch's name
        """F.max_pool1d with this layer's settings."""
        return max_pool1d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.dilation,
            ceil_mode=self.ceil_mode,
            return_indices=self.return_indices,
        )


def _single(value):
    """An int as a 1-tuple, as PyTorch's AvgPool1d stores its arguments."""
    return tuple(value) if isinstance(value, (list, tuple)) else (value,)


class AvgPool1d(Module):
    """The mean over each kernel window along the last dimension."""

    def __init__(
        self,
        kernel_size,
        stride=None,
        padding=0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
    ) -> None:
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002 - PyTorch's name
        """F.avg_pool1d with this layer's settings."""
        return avg_pool1d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.ceil_mode,
            self.count_include_pad,
        )

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    """Average pooling along the last dimension to a fixed output size."""

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002 - PyTorch's name
        """F.adaptive_avg_pool1d to this layer's output size."""
        return adaptive_avg_pool1d(input, self.output_size)


class _AdaptiveMaxPoolNd(Module):
    """What AdaptiveMaxPool1d and AdaptiveMaxPool2d share: the output size and repr."""

    def __init__(self, output_size, return_indices: bool = False) -> None:
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """Max pooling to a fixed output size (an int, a pair, None keeps that size)."""

    def forward(self, input: Tensor):  # noqa: A002 - PyTorch's name
        """F.adaptive_max_pool2d to this layer's output size."""
        return adaptive_max_pool2d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """Max pooling along the last dimension to a fixed output size."""

    def forward(self, input: Tensor):  # noqa: A002 - PyTorch's name
        """F.adaptive_max_pool1d to this layer's output size."""
        return adaptive_max_pool1d(input, self.output_size, self.return_indices)


class MaxUnpool2d(Module):
    """The partial inverse of MaxPool2d: values put back where their indices say."""

    def __init__(self, kernel_size, stride=None, padding=0) -> None:
        super().__init__()
        self.kernel_size = pair(kernel_size)
        self.stride = pair(stride if stride is not None else kernel_size)
        self.padding = pair(padding)

    def forward(self, input: Tensor, indices: Tensor, output_size=None) -> Tensor:  # noqa: A002
        """F.max_unpool2d with this layer's settings."""
        return max_unpool2d(
            input, indices, self.kernel_size, self.stride, self.padding, output_size
        )

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


__all__ = [
    "AdaptiveAvgPool1d",
    "AdaptiveAvgPool2d",
    "AdaptiveMaxPool1d",
    "AdaptiveMaxPool2d",
    "AvgPool1d",
    "AvgPool2d",
    "MaxPool1d",
    "MaxPool2d",
    "MaxUnpool2d",
]
