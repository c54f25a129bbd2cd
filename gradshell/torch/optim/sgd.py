"""Stochastic gradient descent with momentum, dampening, weight decay and Nesterov."""

from __future__ import annotations

from gradshell.core.device import array_module
from gradshell.core.grad_mode import no_grad
from gradshell.core.tensor import wrap
from gradshell.torch.optim._fused import add_alpha
from gradshell.torch.optim.optimizer import Optimizer


class SGD(Optimizer):
    """p ← p - lr·d, where d is the gradient (plus weight_decay·p), or its momentum buffer
    b ← momentum·b + (1 - dampening)·d (the first step: b = d), or with Nesterov
    d + momentum·b."""

    def __init__(
        self,
        params,
        lr: float = 1e-3,
        momentum: float = 0,
        dampening: float = 0,
        weight_decay: float = 0,
        nesterov: bool = False,
        *,
        maximize: bool = False,
        foreach=None,
        differentiable: bool = False,
        fused=None,
    ) -> None:
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        if differentiable or fused:
            raise NotImplementedError("gradshell's SGD has no differentiable or fused mode")
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "dampening": dampening,
            "weight_decay": weight_decay,
            "nesterov": nesterov,
            "maximize": maximize,
            "foreach": foreach,
            "differentiable": differentiable,
            "fused": fused,
        }
        super().__init__(params, defaults)

    def step(self, closure=None) -> object:
        """One update of every parameter that has a gradient; returns closure()'s loss."""
        loss = self._closure_loss(closure)
        with no_grad():
            for group in self.param_groups:
                lr = group["lr"]
                momentum = group["momentum"]
                dampening = group["dampening"]
                wd = group["weight_decay"]
                for p in group["params"]:
                    if p._grad is None:
                        continue
                    self._update(p, p._grad._data, lr, momentum, dampening, wd, group)
        return loss

    def _update(self, p, grad, lr, momentum, dampening, wd, group) -> None:
        data = p._data
        t = data.dtype.type
        xp = array_module(data)
        if group["maximize"]:
            grad = -grad
        if wd != 0:
            grad = add_alpha(grad, data, wd)  # grad.add(p, alpha=wd): one fused rounding
        if momentum != 0:
            state = self.state[p]
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = wrap(xp.array(grad, copy=True), p._dtype)
                state["momentum_buffer"] = buf
            else:
                b = buf._data
                b *= t(momentum)
                b[...] = add_alpha(b, grad, 1 - dampening)  # buf.add_(grad, alpha=1 - dampening)
                buf._bump_version()
            grad = add_alpha(grad, buf._data, momentum) if group["nesterov"] else buf._data
        # p.add_(grad, alpha=-lr): PyTorch's CPU add fuses alpha * grad + p into one FMA
        data[...] = add_alpha(data, grad, -lr)
        p._bump_version()
