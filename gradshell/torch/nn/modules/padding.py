"""The padding layers: ConstantPad, ZeroPad, ReflectionPad and ReplicationPad in 1, 2 and
3 dimensions, each holding its amounts (one number for every side, or one per side, the
last dimension's first) and calling F.pad."""

from __future__ import annotations

from gradshell.core.tensor import Tensor
from gradshell.ops.padding import pad
from gradshell.torch.nn.modules.module import Module


def _amounts(padding, dims: int) -> tuple:
    """One number for every side, or the amounts themselves."""
    if isinstance(padding, int):
        return (padding,) * (2 * dims)
    return tuple(padding)


class _ConstantPadNd(Module):
    _dims = 1

    def __init__(self, padding, value: float) -> None:
        super().__init__()
        self.padding = _amounts(padding, self._dims)
        self.value = value

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002 - PyTorch's name
        """The input padded with `value`."""
        return pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pads the last dimension with a constant."""

    _dims = 1


class ConstantPad2d(_ConstantPadNd):
    """Pads the last two dimensions with a constant."""

    _dims = 2


class ConstantPad3d(_ConstantPadNd):
    """Pads the last three dimensions with a constant."""

    _dims = 3


class ZeroPad1d(ConstantPad1d):
    """Pads the last dimension with zeros."""

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    """Pads the last two dimensions with zeros."""

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    """Pads the last three dimensions with zeros."""

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _CopyPadNd(Module):
    _dims = 1
    _mode = "reflect"

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _amounts(padding, self._dims)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002 - PyTorch's name
        """The input padded with copies of its own elements."""
        return pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ReflectionPad1d(_CopyPadNd):
    """Pads the last dimension with its mirror image (the edge not repeated)."""

    _dims, _mode = 1, "reflect"


class ReflectionPad2d(_CopyPadNd):
    """Pads the last two dimensions with their mirror images."""

    _dims, _mode = 2, "reflect"


class ReflectionPad3d(_CopyPadNd):
    """Pads the last three dimensions with their mirror images."""

    _dims, _mode = 3, "reflect"


class ReplicationPad1d(_CopyPadNd):
    """Pads the last dimension by repeating its edge values."""

    _dims, _mode = 1, "replicate"


class ReplicationPad2d(_CopyPadNd):
    """Pads the last two dimensions by repeating their edge values."""

    _dims, _mode = 2, "replicate"


class ReplicationPad3d(_CopyPadNd):
    """Pads the last three dimensions by repeating their edge values."""

    _dims, _mode = 3, "replicate"


__all__ = [
    "ConstantPad1d",
    "ConstantPad2d",
    "ConstantPad3d",
    "ReflectionPad1d",
    "ReflectionPad2d",
    "ReflectionPad3d",
    "ReplicationPad1d",
    "ReplicationPad2d",
    "ReplicationPad3d",
    "ZeroPad1d",
    "ZeroPad2d",
    "ZeroPad3d",
]
