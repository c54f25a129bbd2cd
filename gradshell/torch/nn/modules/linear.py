"""Identity and Linear (y = x Wᵀ + b, initialised as PyTorch initialises it)."""

from __future__ import annotations

import math

from gradshell.core.tensor import Tensor
from gradshell.ops import creation
from gradshell.ops.nn import linear
from gradshell.torch.nn import init
from gradshell.torch.nn.modules.module import Module
from gradshell.torch.nn.parameter import Parameter


class Identity(Module):
    """Returns its input unchanged (accepts and ignores any constructor arguments)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__()

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002 - PyTorch's name
        """The input itself."""
        return input


class Linear(Module):
    """y = x Wᵀ + b with W of shape (out_features, in_features)."""

    def __init__(
        self,
        in_features: int,
        out_features: int,
        bias: bool = True,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(
            creation.empty((out_features, in_features), device=device, dtype=dtype)
        )
        if bias:
            self.bias = Parameter(creation.empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """PyTorch's initialisation: kaiming_uniform_(a=sqrt(5)) for the weight, then
        U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for the bias (drawn in that order)."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002 - PyTorch's name
        """x Wᵀ + b."""
        return linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (
            f"in_features={self.in_features}, out_features={self.out_features}, "
            f"bias={self.bias is not None}"
        )


class NonDynamicallyQuantizableLinear(Linear):
    """A Linear under another name: MultiheadAttention's output projection, which PyTorch
    keeps out of dynamic quantization this way (it prints under this name)."""
