"""InstanceNorm1d and InstanceNorm2d: each channel of each sample normalised over its own
positions; optionally a per-channel weight and bias (affine) and running statistics."""

from __future__ import annotations

import warnings

from gradshell.core.tensor import Tensor
from gradshell.ops.instance_norm import instance_norm
from gradshell.torch.nn.modules.batchnorm import _BatchNorm


class _InstanceNorm(_BatchNorm):
    """What InstanceNorm1d and InstanceNorm2d share; they differ only in the input ranks."""

    #: the rank of an unbatched input (C, ...)
    _no_batch_dim = 0

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = False,
        track_running_stats: bool = False,
        device=None,
        dtype=None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__(
            num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias
        )

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002 - PyTorch's name
        """Normalise with each slice's own statistics (or the running ones in eval mode
        when they are tracked)."""
        self._check_input_dim(input)
        feature_dim = input.dim() - self._no_batch_dim
        size = input.shape[feature_dim]
        if size != self.num_features:
            if self.affine:
                raise ValueError(
                    f"expected input's size at dim={feature_dim} to match num_features "
                    f"({self.num_features}), but got: {size}."
                )
            warnings.warn(
                f"input's size at dim={feature_dim} does not match num_features. You can "
                "silence this warning by not passing in num_features, which is not used "
                "because affine=False",
                stacklevel=2,
            )
        if input.dim() == self._no_batch_dim:  # unbatched: as a batch of one
            return self._normalise(input.unsqueeze(0)).squeeze(0)
        return self._normalise(input)

    def _normalise(self, input: Tensor) -> Tensor:  # noqa: A002
        return instance_norm(
            input,
            self.running_mean,
            self.running_var,
            self.weight,
            self.bias,
            self.training or not self.track_running_stats,
            self.momentum if self.momentum is not None else 0.0,
            self.eps,
        )


class InstanceNorm1d(_InstanceNorm):
    """Instance normalisation over (N, C, L) or unbatched (C, L) input."""

    _no_batch_dim = 2

    def _check_input_dim(self, input: Tensor) -> None:  # noqa: A002
        if input.dim() not in (2, 3):
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class InstanceNorm2d(_InstanceNorm):
    """Instance normalisation over (N, C, H, W) or unbatched (C, H, W) input."""

    _no_batch_dim = 3

    def _check_input_dim(self, input: Tensor) -> None:  # noqa: A002
        if input.dim() not in (3, 4):
            raise ValueError(f"expected 3D or 4D input (got {input.dim()}D input)")


__all__ = ["InstanceNorm1d", "InstanceNorm2d"]
