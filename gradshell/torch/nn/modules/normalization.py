"""nn.LayerNorm: normalisation over each sample's last dimensions, with an elementwise
weight (ones) and bias (zeros) when elementwise_affine."""

from __future__ import annotations

from gradshell.core.tensor import Tensor
from gradshell.ops import creation
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
