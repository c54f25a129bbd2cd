"""Adamax: Adam with the infinity norm in place of the second moment, as PyTorch's
single-tensor implementation computes it."""

from __future__ import annotations

from gradshell.core.device import array_module
from gradshell.torch.optim import _fused
from gradshell.torch.optim._checks import check_adam_like, no_special_modes
from gradshell.torch.optim.optimizer import Optimizer, scalar_state, zeros_state


class Adamax(Optimizer):
    """m ← β1 m + (1-β1) g; u ← max(β2 u, |g| + eps); p ← p - lr/(1-β1ᵗ) · m / u."""

    def __init__(
        self,
        params,
        lr: float = 2e-3,
        betas: tuple = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        foreach=None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
    ) -> None:
        check_adam_like(lr, eps, betas, weight_decay)
        no_special_modes("Adamax", capturable, differentiable)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
        }
        super().__init__(params, defaults)

    def _update(self, p, grad, group) -> None:
        data = p._data
        xp = array_module(data)
        t = data.dtype.type
        beta1, beta2 = group["betas"]
        state = self.state[p]
        if not state:
            state["step"] = scalar_state(p)
            state["exp_avg"] = zeros_state(p)
            state["exp_inf"] = zeros_state(p)
        if group["maximize"]:
            grad = -grad
        state["step"]._data += 1
        wd = group["weight_decay"]
        if wd != 0:
            grad = _fused.add_alpha(grad, data, wd)
        m = state["exp_avg"]._data
        u = state["exp_inf"]._data
        m[...] = _fused.lerp_any(m, grad, 1 - beta1)
        u *= t(beta2)
        xp.maximum(u, xp.abs(grad) + t(group["eps"]), out=u)
        step = float(state["step"]._data)
        clr = group["lr"] / (1 - beta1**step)
        data[...] = _fused.addcdiv(data, m, u, -clr)
        for value in state.values():
            value._bump_version()
        p._bump_version()
