"""Upsample and its fixed-mode forms UpsamplingNearest2d and UpsamplingBilinear2d (the
latter with align_corners=True): layers that call F.interpolate."""

from __future__ import annotations

from gradshell.core.tensor import Tensor
from gradshell.ops.upsample import interpolate
from gradshell.torch.nn.modules.module import Module


class Upsample(Module):
    """Resizes (N, C, ...) input to `size`, or by `scale_factor`, with `mode`."""

    def __init__(
        self,
        size=None,
        scale_factor=None,
        mode: str = "nearest",
        align_corners: bool | None = None,
        recompute_scale_factor: bool | None = None,
    ) -> None:
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        if isinstance(scale_factor, tuple):
            self.scale_factor = tuple(float(f) for f in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002 - PyTorch's name
        """interpolate(input, ...)."""
        return interpolate(
            input,
            self.size,
            self.scale_factor,
            self.mode,
            self.align_corners,
            recompute_scale_factor=self.recompute_scale_factor,
        )

    def extra_repr(self) -> str:
        if self.scale_factor is not None:
            info = f"scale_factor={self.scale_factor!r}"
        else:
            info = f"size={self.size!r}"
        return f"{info}, mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    """Nearest-neighbour resizing of (N, C, H, W) input."""

    def __init__(self, size=None, scale_factor=None) -> None:
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """Bilinear resizing of (N, C, H, W) input, corners aligned."""

    def __init__(self, size=None, scale_factor=None) -> None:
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)


__all__ = ["Upsample", "UpsamplingBilinear2d", "UpsamplingNearest2d"]
