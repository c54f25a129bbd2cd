"""PixelShuffle and PixelUnshuffle: layers that trade channels for space and back."""

from __future__ import annotations

from gradshell.core.tensor import Tensor
from gradshell.ops.pixel_shuffle import pixel_shuffle, pixel_unshuffle
from gradshell.torch.nn.modules.module import Module


class PixelShuffle(Module):
    """(*, C·r², H, W) → (*, C, H·r, W·r)."""

    def __init__(self, upscale_factor: int) -> None:
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002 - PyTorch's name
        """pixel_shuffle(input, upscale_factor)."""
        return pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self) -> str:
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """(*, C, H·r, W·r) → (*, C·r², H, W)."""

    def __init__(self, downscale_factor: int) -> None:
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002 - PyTorch's name
        """pixel_unshuffle(input, downscale_factor)."""
        return pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self) -> str:
        return f"downscale_factor={self.downscale_factor}"


__all__ = ["PixelShuffle", "PixelUnshuffle"]
