"""ASGD: stochastic gradient descent with a decaying step size ηₜ and a running average
`ax` of the parameters (from step t0 on), as PyTorch's single-tensor implementation
computes it (η and μ kept as float32 tensors, as PyTorch keeps them)."""

from __future__ import annotations

import numpy as np

from gradshell.torch.optim import _fused
from gradshell.torch.optim._checks import no_special_modes
from gradshell.torch.optim.optimizer import Optimizer, scalar_state, zeros_state


class ASGD(Optimizer):
    """p ← p·(1 - λη) - η g; ax ← ax + μ (p - ax); η ← lr/(1 + λ·lr·t)^α;
    μ ← 1/max(1, t - t0)."""

    def __init__(
        self,
        params,
        lr: float = 1e-2,
        lambd: float = 1e-4,
        alpha: float = 0.75,
        t0: float = 1e6,
        weight_decay: float = 0,
        foreach=None,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
    ) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        no_special_modes("ASGD", capturable, differentiable)
        defaults = {
            "lr": lr,
            "lambd": lambd,
            "alpha": alpha,
            "t0": t0,
            "weight_decay": weight_decay,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
        }
        super().__init__(params, defaults)

    def _update(self, p, grad, group) -> None:
        data = p._data
        t = data.dtype.type
        lr, lambd = group["lr"], group["lambd"]
        state = self.state[p]
        if not state:
            state["step"] = scalar_state(p)
            state["eta"] = scalar_state(p, lr)
            state["mu"] = scalar_state(p, 1)
            state["ax"] = zeros_state(p)
        if group["maximize"]:
            grad = -grad
        state["step"]._data += 1
        wd = group["weight_decay"]
        if wd != 0:
            grad = _fused.add_alpha(grad, data, wd)
        eta = float(state["eta"]._data)
        data *= t(1 - lambd * eta)
        data[...] = _fused.add_alpha(data, grad, -eta)
        ax = state["ax"]._data
        mu = state["mu"]._data
        if float(mu) != 1:
            ax += (data - ax) * mu.astype(data.dtype)
        else:
            ax[...] = data
        step = float(state["step"]._data)
        state["eta"]._data[...] = np.float32(lr / ((1 + lambd * lr * step) ** group["alpha"]))
        state["mu"]._data[...] = np.float32(1 / max(1, step - group["t0"]))
        for value in state.values():
            value._bump_version()
        p._bump_version()
