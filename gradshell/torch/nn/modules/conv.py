"""Conv1d, Conv2d, ConvTranspose1d and ConvTranspose2d: convolution layers, initialised as
PyTorch initialises them."""

from __future__ import annotations

import math

from gradshell.core.tensor import Tensor
from gradshell.ops import creation
from gradshell.ops.conv import _single, conv1d, conv2d, pair
from gradshell.ops.conv_transpose import conv_transpose1d, conv_transpose2d
from gradshell.torch.nn import init
from gradshell.torch.nn.modules.module import Module
from gradshell.torch.nn.parameter import Parameter

_PADDING_STRINGS = {"valid", "same"}
_PADDING_MODES = {"zeros", "reflect", "replicate", "circular"}


class _ConvNd(Module):
    """What Conv1d and Conv2d share (nd: the number of spatial dimensions)."""

    _nd = 2
    _transposed = False

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size,
        stride=1,
        padding=0,
        dilation=1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        device=None,
        dtype=None,
        output_padding=0,
    ) -> None:
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        tup = pair if self._nd == 2 else (lambda v: (_single(v),))
        stride = tup(stride)
        dilation = tup(dilation)
        kernel_size = tup(kernel_size)
        if isinstance(padding, str) and self._transposed:
            padding = tuple(padding)  # (PyTorch's transposed layers take a string apart)
        elif isinstance(padding, str):
            if padding not in _PADDING_STRINGS:
                raise ValueError(
                    f"Invalid padding string {padding!r}, should be one of {_PADDING_STRINGS}"
                )
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        else:
            padding = tup(padding)
        if padding_mode not in _PADDING_MODES:
            raise ValueError(
                f"padding_mode must be one of {_PADDING_MODES}, but got padding_mode='{padding_mode}'"
            )
        if padding_mode != "zeros":
            raise NotImplementedError(
                f"gradshell does not support torch.nn.{type(self).__name__}"
                f"(padding_mode='{padding_mode}') yet"
            )
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = self._transposed
        self.output_padding = tup(output_padding)
        self.groups = groups
        self.padding_mode = padding_mode
        if self._transposed:
            shape = (in_channels, out_channels // groups) + kernel_size
        else:
            shape = (out_channels, in_channels // groups) + kernel_size
        self.weight = Parameter(creation.empty(shape, device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(creation.empty(out_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """kaiming_uniform_(a=sqrt(5)) for the weight, then U(-1/sqrt(fan_in), 1/sqrt(fan_in))
        for the bias, drawn in that order as PyTorch draws them."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002 - PyTorch's name
        """The convolution of the input with this layer's weight and bias."""
        conv = conv2d if self._nd == 2 else conv1d
        return conv(
            input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups
        )

    def extra_repr(self) -> str:
        s = (
            f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
            f"stride={self.stride}"
        )
        pad = self.padding
        if isinstance(pad, str) or pad != (0,) * self._nd:
            s += f", padding={pad}"
        if self.dilation != (1,) * self._nd:
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * self._nd:
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class Conv1d(_ConvNd):
    """out = conv1d(x, weight, bias) with weight (out_channels, in_channels/groups, k)."""

    _nd = 1


class Conv2d(_ConvNd):
    """out = conv2d(x, weight, bias) with weight (out_channels, in_channels/groups, kh, kw)."""

    _nd = 2


class _ConvTransposeNd(_ConvNd):
    """What ConvTranspose1d and ConvTranspose2d share: weight (in_channels,
    out_channels/groups, k...), output_padding, and forward's output_size."""

    _transposed = True

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size,
        stride=1,
        padding=0,
        output_padding=0,
        groups: int = 1,
        bias: bool = True,
        dilation=1,
        padding_mode: str = "zeros",
        device=None,
        dtype=None,
    ) -> None:
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        super().__init__(
            in_channels,
            out_channels,
            kernel_size,
            stride,
            padding,
            dilation,
            groups,
            bias,
            padding_mode,
            device,
            dtype,
            output_padding=output_padding,
        )

    def _output_padding(self, input: Tensor, output_size) -> tuple:  # noqa: A002
        """The output_padding that gives `output_size` (PyTorch's checks and messages)."""
        if output_size is None:
            return self.output_padding
        nd = self._nd
        non_spatial = 2 if input.dim() == nd + 2 else 1
        output_size = list(output_size)
        if len(output_size) == non_spatial + nd:
            output_size = output_size[non_spatial:]
        if len(output_size) != nd:
            raise ValueError(
                f"ConvTranspose{nd}D: for {input.dim()}D input, output_size must have {nd} "
                f"or {non_spatial + nd} elements (got {len(output_size)})"
            )
        lows, highs = [], []
        for d in range(nd):
            low = (
                (input.size(d + non_spatial) - 1) * self.stride[d]
                - 2 * self.padding[d]
                + self.dilation[d] * (self.kernel_size[d] - 1)
                + 1
            )
            lows.append(low)
            highs.append(low + self.stride[d] - 1)
        for d in range(nd):
            if not lows[d] <= output_size[d] <= highs[d]:
                raise ValueError(
                    f"requested an output size of {output_size}, but valid sizes range from "
                    f"{lows} to {highs} (for an input of {input.size()[2:]})"
                )
        return tuple(output_size[d] - lows[d] for d in range(nd))

    def forward(self, input: Tensor, output_size=None) -> Tensor:  # noqa: A002
        """The transposed convolution of the input (output_size picks the output_padding
        that gives that size)."""
        opad = self._output_padding(input, output_size)
        conv = conv_transpose2d if self._nd == 2 else conv_transpose1d
        return conv(
            input,
            self.weight,
            self.bias,
            self.stride,
            self.padding,
            opad,
            self.groups,
            self.dilation,
        )


class ConvTranspose1d(_ConvTransposeNd):
    """out = conv_transpose1d(x, weight, bias), weight (in_channels, out_channels/groups, k)."""

    _nd = 1


class ConvTranspose2d(_ConvTransposeNd):
    """out = conv_transpose2d(x, weight, bias), weight (in_channels, out_channels/groups,
    kh, kw)."""

    _nd = 2


__all__ = ["Conv1d", "Conv2d", "ConvTranspose1d", "ConvTranspose2d"]
