"""nn.LayerNorm (normalisation over each sample's last dimensions, with an elementwise
weight and bias when elementwise_affine) and nn.GroupNorm (over groups of channels, with a
per-channel weight and bias when affine); weights start at ones, biases at zeros."""

from __future__ import annotations

from gradshell.core.tensor import Tensor
from gradshell.ops import creation
from gradshell.ops.group_norm import group_norm
from gradshell.ops.layer_norm import layer_norm
from gradshell.torch.nn import init
from gradshell.torch.nn.modules.module import Module
from gradshell.torch.nn.parameter import Parameter


class LayerNorm(Module):
    """y = (x - E[x]) / sqrt(Var[x] + eps) * weight + bias over `normalized_shape`."""

    def __init__(
        self,
        normalized_shape,
        eps: float = 1e-5,
        elementwise_affine: bool = True,
        bias: bool = True,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(
                creation.empty(self.normalized_shape, device=device, dtype=dtype)
            )
            if bias:
                self.bias = Parameter(
                    creation.empty(self.normalized_shape, device=device, dtype=dtype)
                )
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """weight = 1, bias = 0."""
        if self.elementwise_affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002 - PyTorch's name
        """The normalised input."""
        return layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.normalized_shape}, eps={self.eps}, "
            f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}"
        )


class GroupNorm(Module):
    """Each sample's channels split into `num_groups` groups, each normalised over its
    channels and positions, then scaled and shifted per channel."""

    def __init__(
        self,
        num_groups: int,
        num_channels: int,
        eps: float = 1e-5,
        affine: bool = True,
        device=None,
        dtype=None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(
                f"num_channels ({num_channels}) must be divisible by num_groups ({num_groups})"
            )
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        if affine:
            self.weight = Parameter(creation.empty(num_channels, device=device, dtype=dtype))
            if bias:
                self.bias = Parameter(creation.empty(num_channels, device=device, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """weight = 1, bias = 0."""
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002 - PyTorch's name
        """The normalised input."""
        return group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.num_groups}, {self.num_channels}, eps={self.eps}, "
            f"affine={self.affine}, bias={self.bias is not None}"
        )
