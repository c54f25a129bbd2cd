"""Activation modules: thin wrappers over torch.nn.functional with PyTorch's reprs."""

from __future__ import annotations

from gradshell.core.tensor import Tensor
from gradshell.ops import activation as A
from gradshell.ops import creation
from gradshell.ops import nn as F
from gradshell.torch._missing import not_supported
from gradshell.torch.nn import init as nn_init
from gradshell.torch.nn.modules.module import Module
from gradshell.torch.nn.parameter import Parameter


class ReLU(Module):
    """max(x, 0)."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002 - PyTorch's name
        """relu(x) (in place if inplace)."""
        return input.relu_() if self.inplace else F.relu(input)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class Sigmoid(Module):
    """1 / (1 + exp(-x))."""

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """sigmoid(x)."""
        return F.sigmoid(input)


class Tanh(Module):
    """tanh(x)."""

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """tanh(x)."""
        return F.tanh(input)


class Softmax(Module):
    """softmax along `dim`."""

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """softmax(x, dim)."""
        return F.softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class LogSoftmax(Module):
    """log(softmax(x)) along `dim`."""

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """log_softmax(x, dim)."""
        return F.log_softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmin(Softmax):
    """softmax(-x) along `dim`."""

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """softmin(x, dim)."""
        return F.softmin(input, self.dim, _stacklevel=5)


class LeakyReLU(Module):
    """x for x > 0, negative_slope * x otherwise."""

    def __init__(self, negative_slope: float = 0.01, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """leaky_relu(x)."""
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class GELU(Module):
    """x Φ(x) (or the tanh approximation)."""

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """gelu(x)."""
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class ELU(Module):
    """x for x > 0, alpha (exp(x) - 1) otherwise."""

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """elu(x)."""
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class SiLU(Module):
    """x * sigmoid(x)."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """silu(x)."""
        return F.silu(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class Softplus(Module):
    """log(1 + exp(beta x)) / beta."""

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """softplus(x)."""
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class Softsign(Module):
    """x / (1 + |x|)."""

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """softsign(x)."""
        from gradshell.torch.nn._composites import softsign

        return softsign(input)


class Hardtanh(Module):
    """x clamped to [min_val, max_val]."""

    def __init__(
        self,
        min_val: float = -1.0,
        max_val: float = 1.0,
        inplace: bool = False,
        min_value: float | None = None,
        max_value: float | None = None,
    ) -> None:
        super().__init__()
        if min_value is not None or max_value is not None:
            raise not_supported("torch.nn.Hardtanh's deprecated min_value/max_value")
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace
        if self.max_val <= self.min_val:
            raise AssertionError  # PyTorch asserts max_val > min_val, without a message

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """hardtanh(x)."""
        from gradshell.ops.clamping import hardtanh

        return hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self) -> str:
        inplace = ", inplace=True" if self.inplace else ""
        return f"min_val={self.min_val}, max_val={self.max_val}{inplace}"


class ReLU6(Hardtanh):
    """min(max(x, 0), 6)."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


# -- the further activations (prelu, selu, celu, mish, hard gates, shrinkage, glu) -----------
class PReLU(Module):
    """x where x > 0, else a · x, with `num_parameters` learned slopes a (one shared, or one
    per channel), each initialised to `init`."""

    def __init__(
        self, num_parameters: int = 1, init: float = 0.25, device=None, dtype=None
    ) -> None:
        self.num_parameters = num_parameters
        super().__init__()
        self.init = init
        self.weight = Parameter(creation.empty(num_parameters, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Every slope = init."""
        nn_init.constant_(self.weight, self.init)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """prelu(x, weight)."""
        return A.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


class _Inplace(Module):
    """An activation whose only option is `inplace` (shown in the repr when True)."""

    _show_inplace = True

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace and self._show_inplace else ""


class SELU(_Inplace):
    """scale · elu(x, alpha) with SELU's fixed constants."""

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """selu(x)."""
        return A.selu(input, self.inplace)


class CELU(Module):
    """x where x > 0, else alpha (exp(x / alpha) − 1)."""

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """celu(x, alpha)."""
        return A.celu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class Mish(_Inplace):
    """x · tanh(softplus(x))."""

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """mish(x)."""
        return A.mish(input, inplace=self.inplace)


class Hardswish(_Inplace):
    """x · relu6(x + 3) / 6."""

    _show_inplace = False  # PyTorch's repr leaves it out

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """hardswish(x)."""
        return A.hardswish(input, self.inplace)


class Hardsigmoid(_Inplace):
    """relu6(x + 3) / 6."""

    _show_inplace = False  # PyTorch's repr leaves it out

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """hardsigmoid(x)."""
        return A.hardsigmoid(input, self.inplace)


class LogSigmoid(Module):
    """log σ(x)."""

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """logsigmoid(x)."""
        return A.logsigmoid(input)


class GLU(Module):
    """a · σ(b) over the two halves of `dim`."""

    def __init__(self, dim: int = -1) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """glu(x, dim)."""
        return A.glu(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Threshold(Module):
    """x where x > threshold, else value."""

    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """threshold(x, threshold, value)."""
        return A.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self) -> str:
        inplace = ", inplace=True" if self.inplace else ""
        return f"threshold={self.threshold}, value={self.value}{inplace}"


class Softshrink(Module):
    """x ∓ lambd outside [−lambd, lambd], 0 inside."""

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """softshrink(x, lambd)."""
        return A.softshrink(input, self.lambd)

    def extra_repr(self) -> str:
        return str(self.lambd)


class Hardshrink(Softshrink):
    """x outside [−lambd, lambd], 0 inside."""

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """hardshrink(x, lambd)."""
        return A.hardshrink(input, self.lambd)


class Tanhshrink(Module):
    """x − tanh(x)."""

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """tanhshrink(x)."""
        return A.tanhshrink(input)
