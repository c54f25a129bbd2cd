"""RAdam: Adam whose adaptive step is switched on, and rectified, once the variance of
the adaptive learning rate is tractable (ρₜ > 5), as PyTorch's single-tensor
implementation computes it."""

from __future__ import annotations

from gradshell.core.device import array_module
from gradshell.torch.optim import _fused
from gradshell.torch.optim._checks import check_adam_like, no_special_modes
from gradshell.torch.optim.optimizer import Optimizer, scalar_state, zeros_state


class RAdam(Optimizer):
    """m̂ = m/(1-β1ᵗ); with ρₜ > 5, p ← p - lr · m̂ · sqrt(1-β2ᵗ)/(sqrt(v) + eps) · r,
    else p ← p - lr · m̂ (r: the variance rectification term)."""

    def __init__(
        self,
        params,
        lr: float = 1e-3,
        betas: tuple = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        decoupled_weight_decay: bool = False,
        *,
        foreach=None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
    ) -> None:
        check_adam_like(lr, eps, betas, weight_decay)
        no_special_modes("RAdam", capturable, differentiable)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "decoupled_weight_decay": decoupled_weight_decay,
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
            state["exp_avg"] = zeros_state(p)
            state["exp_avg_sq"] = zeros_state(p)
        if group["maximize"]:
            grad = -grad
        state["step"]._data += 1
        step = float(state["step"]._data)
        wd = group["weight_decay"]
        if wd != 0:
            if group["decoupled_weight_decay"]:
                data *= t(1 - lr * wd)
            else:
                grad = _fused.add_alpha(grad, data, wd)
        m = state["exp_avg"]._data
        v = state["exp_avg_sq"]._data
        m[...] = _fused.lerp_any(m, grad, 1 - beta1)
        v *= t(beta2)
        v[...] = _fused.addcmul(v, grad, grad, 1 - beta2)
        bias_correction1 = 1 - beta1**step
        bias_correction2 = 1 - beta2**step
        corrected = m / t(bias_correction1)
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2**step) / bias_correction2
        if rho_t > 5.0:
            rect = (
                (rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)
            ) ** 0.5
            # (a number divided by a tensor is, in PyTorch, the tensor's reciprocal times it)
            adaptive = t(1) / (xp.sqrt(v) + t(group["eps"])) * t(bias_correction2**0.5)
            data[...] = _fused.add_alpha(data, corrected * t(lr) * adaptive * t(rect), -1.0)
        else:
            data[...] = _fused.add_alpha(data, corrected * t(lr), -1.0)
        for value in state.values():
            value._bump_version()
        p._bump_version()
