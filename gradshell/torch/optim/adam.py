"""Adam and AdamW (decoupled weight decay), with amsgrad and maximize."""

from __future__ import annotations

import numpy as np

from gradshell.core import kernels
from gradshell.core.device import array_module
from gradshell.core.fma import fma64
from gradshell.core.kernels.fp32 import fma as fma32
from gradshell.torch.optim.optimizer import Optimizer, scalar_state, zeros_state


class Adam(Optimizer):
    """Adam: running averages m (of g) and v (of g²), bias-corrected, and
    p ← p - lr/(1-β1ᵗ) · m / (sqrt(v)/sqrt(1-β2ᵗ) + eps)."""

    _decoupled_default = False

    def __init__(
        self,
        params,
        lr: float = 1e-3,
        betas: tuple = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        amsgrad: bool = False,
        *,
        foreach=None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
        fused=None,
        decoupled_weight_decay: bool | None = None,
    ) -> None:
        if decoupled_weight_decay is None:
            decoupled_weight_decay = self._decoupled_default
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
        if capturable or differentiable or fused:
            raise NotImplementedError(
                f"gradshell's {type(self).__name__} has no capturable, differentiable or fused mode"
            )
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "amsgrad": amsgrad,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "differentiable": differentiable,
            "fused": fused,
            "decoupled_weight_decay": decoupled_weight_decay,
        }
        super().__init__(params, defaults)

    def _update(self, p, grad, group) -> None:
        data = p._data
        xp = array_module(data)
        t = data.dtype.type
        lr = group["lr"]
        beta1, beta2 = group["betas"]
        eps = group["eps"]
        wd = group["weight_decay"]
        state = self.state[p]
        if not state:
            state["step"] = scalar_state(p)
            state["exp_avg"] = zeros_state(p)
            state["exp_avg_sq"] = zeros_state(p)
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = zeros_state(p)
        if group["maximize"]:
            grad = -grad
        step_t = state["step"]
        step_t._data += 1
        if wd != 0:
            if group["decoupled_weight_decay"]:
                data *= t(1 - lr * wd)
            else:
                grad = grad + data * t(wd)  # (arrays first: a NumPy scalar must not lead)
        m = state["exp_avg"]._data
        v = state["exp_avg_sq"]._data
        # m.lerp_(grad, 1 - beta1): from the nearer end, as PyTorch's lerp does, its
        # multiply-add fused (measured: the vector kernel rounds once)
        w = 1 - beta1
        if abs(w) < 0.5:
            m[...] = _fused(np.full_like(m, w) if _host(m) else t(w), grad - m, m)
        else:
            m[...] = _fused(-(grad - m), np.full_like(m, 1 - w) if _host(m) else t(1 - w), grad)
        # v.mul_(beta2).addcmul_(grad, grad, value=1 - beta2): v*beta2 rounded, then
        # (grad * value) * grad fused into the addition
        v *= t(beta2)
        v[...] = _fused(grad * t(1 - beta2), grad, v)
        step = float(step_t._data)
        bias_correction1 = 1 - beta1**step
        bias_correction2 = 1 - beta2**step
        step_size = lr / bias_correction1
        bc2_sqrt = bias_correction2**0.5
        if group["amsgrad"]:
            vmax = state["max_exp_avg_sq"]._data
            xp.maximum(vmax, v, out=vmax)
            denom = xp.sqrt(vmax) / t(bc2_sqrt) + t(eps)
        else:
            denom = xp.sqrt(v) / t(bc2_sqrt) + t(eps)
        data += m * t(-step_size) / denom
        for key in state:
            state[key]._bump_version()
        p._bump_version()


def _host(a) -> bool:
    """Whether `a` takes PyTorch's rounding (the exact kernels on, a NumPy float array)."""
    return kernels.applies(a)


def _fused(a, b, c):
    """a*b + c rounded once, as PyTorch's vectorised CPU kernels compute it (NumPy float32
    and float64 arrays; other arrays round the product first)."""
    if not _host(c):
        if isinstance(a, np.generic):
            a, b = b, a  # the device array leads (a NumPy scalar first would call NumPy)
        return a * b + c
    a, b = np.broadcast_arrays(np.asarray(a, c.dtype), np.asarray(b, c.dtype))
    if c.dtype == np.float32:
        return fma32(a, b, c)
    return fma64(a, b, c)


class AdamW(Adam):
    """Adam with decoupled weight decay (p ← p·(1 - lr·wd) before the Adam step);
    weight_decay defaults to 0.01."""

    _decoupled_default = True

    def __init__(
        self,
        params,
        lr: float = 1e-3,
        betas: tuple = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
        amsgrad: bool = False,
        *,
        maximize: bool = False,
        foreach=None,
        capturable: bool = False,
        differentiable: bool = False,
        fused=None,
    ) -> None:
        super().__init__(
            params,
            lr,
            betas,
            eps,
            weight_decay,
            amsgrad,
            foreach=foreach,
            maximize=maximize,
            capturable=capturable,
            differentiable=differentiable,
            fused=fused,
            decoupled_weight_decay=True,
        )
