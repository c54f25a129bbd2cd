"""torch.nn.functional.instance_norm: each channel of each sample normalised over its own
positions. PyTorch composes it from batch_norm over a (1, N·C, ...) view of the input, with
the weight, bias and running statistics repeated N times, so its graph is ViewBackward0
over NativeBatchNormBackward0 (over RepeatBackward0 for an affine weight and bias); so is
ours. The running statistics become the mean over the samples of the per-sample updates.
"""

from __future__ import annotations

import math

from gradshell.core.size import Size
from gradshell.ops.base import Tensor
from gradshell.ops.batchnorm import batch_norm

__all__ = ["instance_norm"]


def instance_norm(
    input: Tensor,  # noqa: A002 - PyTorch's name
    running_mean: Tensor | None = None,
    running_var: Tensor | None = None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    use_input_stats: bool = True,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """Normalise each (sample, channel) slice of `input` (N, C, ...) over its positions."""
    if use_input_stats:
        shape = tuple(input.shape)
        if math.prod(shape[2:]) == 1:
            raise ValueError(
                "Expected more than 1 spatial element when training, got input size "
                f"{Size(shape)!r}"
            )
    if not use_input_stats and (running_mean is None or running_var is None):
        raise RuntimeError(
            "Expected running_mean and running_var to be defined when use_input_stats is false"
        )
    n, c = input.shape[0], input.shape[1]
    shape = tuple(input.shape)
    folded = input.contiguous().view((1, n * c) + shape[2:])

    def repeated(t):
        return None if t is None else t.repeat(n)

    rm, rv = repeated(running_mean), repeated(running_var)
    out = batch_norm(
        folded, rm, rv, repeated(weight), repeated(bias), use_input_stats, momentum, eps
    )
    if use_input_stats:
        # each sample updated its own copy of the statistics: keep their mean
        for kept, copies in ((running_mean, rm), (running_var, rv)):
            if kept is not None:
                kept._data[...] = copies.detach().view(n, c).mean(0)._data
                kept._bump_version()
    return out.view(shape)
