"""Gradient clipping as PyTorch computes it: the total norm is the norm of the
per-tensor norms; each gradient is scaled in place by min(1, max_norm / (norm + 1e-6)),
or clamped in place to [-clip_value, clip_value]."""

from __future__ import annotations

import warnings
from collections.abc import Iterable

from gradshell.core.grad_mode import no_grad
from gradshell.core.tensor import Tensor
from gradshell.ops import creation
from gradshell.ops.clamping import clamp
from gradshell.ops.reduction import vector_norm
from gradshell.ops.shape import stack


def _tensors(tensors: Tensor | Iterable[Tensor]) -> list[Tensor]:
    return [tensors] if isinstance(tensors, Tensor) else list(tensors)


def _grads(parameters: Tensor | Iterable[Tensor]) -> list[Tensor]:
    return [p.grad for p in _tensors(parameters) if p.grad is not None]


def _by_device_and_dtype(tensors: list[Tensor]) -> list[Tensor]:
    """`tensors` in PyTorch's order: grouped by (device, dtype), groups in order of
    first appearance."""
    groups: dict = {}
    for t in tensors:
        groups.setdefault((str(t.device), t.dtype), []).append(t)
    return [t for group in groups.values() for t in group]


def get_total_norm(
    tensors: Tensor | Iterable[Tensor],
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """The `norm_type`-norm of all `tensors` together (a 0-d tensor)."""
    tensors = _tensors(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return creation.tensor(0.0)
    with no_grad():
        first_device = tensors[0].device
        norms = [vector_norm(t, norm_type) for t in _by_device_and_dtype(tensors)]
        total = vector_norm(stack([n.to(first_device) for n in norms]), norm_type)
    if error_if_nonfinite and bool(total.isnan() | total.isinf()):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. To disable this error and scale the "
            "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`"
        )
    return total


def clip_grads_with_norm_(
    parameters: Tensor | Iterable[Tensor],
    max_norm: float,
    total_norm: Tensor,
    foreach: bool | None = None,
) -> None:
    """Scale the gradients in place by min(1, max_norm / (total_norm + 1e-6))."""
    grads = _grads(parameters)
    max_norm = float(max_norm)
    if not grads:
        return
    with no_grad():
        coef = clamp(max_norm / (total_norm + 1e-6), max=1.0)
        for g in _by_device_and_dtype(grads):
            g.mul_(coef.to(g.device))


def clip_grad_norm_(
    parameters: Tensor | Iterable[Tensor],
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """Clip the gradients of `parameters` so their total norm is at most `max_norm`;
    returns the total norm before clipping."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        parameters = list(parameters)  # a generator is read twice below
    grads = _grads(parameters)
    total_norm = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


def clip_grad_norm(
    parameters: Tensor | Iterable[Tensor],
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """The deprecated name of clip_grad_norm_ (warns, as PyTorch does)."""
    warnings.warn(
        "`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
        "`torch.nn.utils.clip_grad_norm_`.",
        FutureWarning,
        stacklevel=2,
    )
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(
    parameters: Tensor | Iterable[Tensor],
    clip_value: float,
    foreach: bool | None = None,
) -> None:
    """Clamp every gradient in place to [-clip_value, clip_value]."""
    clip_value = float(clip_value)
    grads = _grads(parameters)
    with no_grad():
        for g in _by_device_and_dtype(grads):
            g.clamp_(min=-clip_value)
            g.clamp_(max=clip_value)


__all__ = [
    "clip_grad_norm",
    "clip_grad_norm_",
    "clip_grad_value_",
    "clip_grads_with_norm_",
    "get_total_norm",
]
