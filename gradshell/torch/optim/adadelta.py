"""Adadelta: steps scaled by the ratio of running RMS of past updates to running RMS of
gradients (with weight decay and maximize), as PyTorch's single-tensor implementation
computes it. The official MNIST example trains with it (and StepLR)."""

from __future__ import annotations

from gradshell.core.device import array_module
from gradshell.torch.optim import _fused
from gradshell.torch.optim.optimizer import Optimizer, scalar_state, zeros_state


class Adadelta(Optimizer):
    """v ← ρ v + (1 - ρ) g²; Δ = sqrt(u + eps) / sqrt(v + eps) · g; u ← ρ u + (1 - ρ) Δ²;
    p ← p - lr · Δ."""

    def __init__(
        self,
        params,
        lr: float = 1.0,
        rho: float = 0.9,
        eps: float = 1e-6,
        weight_decay: float = 0,
        foreach=None,
        *,
        capturable: bool = False,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if capturable or differentiable:
            raise NotImplementedError(
                "gradshell's Adadelta has no capturable or differentiable mode"
            )
        defaults = {
            "lr": lr,
            "rho": rho,
            "eps": eps,
            "weight_decay": weight_decay,
            "maximize": maximize,
            "capturable": capturable,
            "foreach": foreach,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def _update(self, p, grad, group) -> None:
        data = p._data
        xp = array_module(data)
        t = data.dtype.type
        state = self.state[p]
        if not state:
            state["step"] = scalar_state(p)
            state["square_avg"] = zeros_state(p)
            state["acc_delta"] = zeros_state(p)
        state["step"]._data += 1
        if group["maximize"]:
            grad = -grad
        wd = group["weight_decay"]
        if wd != 0:
            grad = _fused.add_alpha(grad, data, wd)
        rho, eps = group["rho"], t(group["eps"])
        sq = state["square_avg"]._data
        acc = state["acc_delta"]._data
        sq *= t(rho)
        sq[...] = _fused.addcmul(sq, grad, grad, 1 - rho)
        std = xp.sqrt(sq + eps)
        delta = xp.sqrt(acc + eps)
        delta /= std
        delta *= grad
        acc *= t(rho)
        acc[...] = _fused.addcmul(acc, delta, delta, 1 - rho)
        data[...] = _fused.add_alpha(data, delta, -group["lr"])
        for value in state.values():
            value._bump_version()
        p._bump_version()
