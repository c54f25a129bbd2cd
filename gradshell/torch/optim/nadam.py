"""NAdam: Adam with Nesterov momentum and PyTorch's momentum-decay schedule
μₜ = β1·(1 - ½·0.96^(t·ψ)), as its single-tensor implementation computes it (the running
product of the μ kept as a float32 tensor, as PyTorch keeps it)."""

from __future__ import annotations

import numpy as np

from gradshell.core.device import array_module
from gradshell.torch.optim import _fused
from gradshell.torch.optim._checks import check_adam_like, no_special_modes
from gradshell.torch.optim.optimizer import Optimizer, scalar_state, zeros_state


class NAdam(Optimizer):
    """p ← p - lr·(1-μₜ)/(1-Πμ) · g/d - lr·μₜ₊₁/(1-Πμ·μₜ₊₁) · m/d, d = sqrt(v/(1-β2ᵗ)) + eps."""

    def __init__(
        self,
        params,
        lr: float = 2e-3,
        betas: tuple = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum_decay: float = 4e-3,
        decoupled_weight_decay: bool = False,
        *,
        foreach=None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
    ) -> None:
        check_adam_like(lr, eps, betas, weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        no_special_modes("NAdam", capturable, differentiable)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "momentum_decay": momentum_decay,
            "decoupled_weight_decay": decoupled_weight_decay,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def _update(self, p, grad, group) -> None:
        data = p._data
        xp = array_module(data)
        t = data.dtype.type
        lr = group["lr"]
        beta1, beta2 = group["betas"]
        state = self.state[p]
        if not state:
            state["step"] = scalar_state(p)
            state["mu_product"] = scalar_state(p, 1)
            state["exp_avg"] = zeros_state(p)
            state["exp_avg_sq"] = zeros_state(p)
        if group["maximize"]:
            grad = -grad
        state["step"]._data += 1
        step = float(state["step"]._data)
        bias_correction2 = 1 - beta2**step
        wd = group["weight_decay"]
        if wd != 0:
            if group["decoupled_weight_decay"]:
                data *= t(1 - lr * wd)
            else:
                grad = _fused.add_alpha(grad, data, wd)
        decay = group["momentum_decay"]
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * decay)))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * decay)))
        prod = state["mu_product"]._data
        prod[...] = prod * np.float32(mu)  # (a float32 tensor times a number, in float32)
        mu_product = float(prod)
        mu_product_next = mu_product * mu_next
        m = state["exp_avg"]._data
        v = state["exp_avg_sq"]._data
        m[...] = _fused.lerp_any(m, grad, 1 - beta1)
        v *= t(beta2)
        v[...] = _fused.addcmul(v, grad, grad, 1 - beta2)
        denom = xp.sqrt(v / t(bias_correction2))
        denom += t(group["eps"])
        data[...] = _fused.addcdiv(data, grad, denom, -lr * (1.0 - mu) / (1.0 - mu_product))
        data[...] = _fused.addcdiv(data, m, denom, -lr * mu_next / (1.0 - mu_product_next))
        for value in state.values():
            value._bump_version()
        p._bump_version()
