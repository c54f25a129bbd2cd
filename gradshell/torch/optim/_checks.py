"""The hyper-parameter checks the Adam family shares, with PyTorch's messages and order."""

from __future__ import annotations


def check_adam_like(lr: float, eps: float, betas: tuple, weight_decay: float) -> None:
    """Raise PyTorch's ValueError for a negative lr, eps or weight_decay, or a beta
    outside [0, 1)."""
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


def no_special_modes(name: str, capturable: bool, differentiable: bool) -> None:
    """gradshell's optimizers run PyTorch's plain single-tensor algorithm only."""
    if capturable or differentiable:
        raise NotImplementedError(f"gradshell's {name} has no capturable or differentiable mode")
