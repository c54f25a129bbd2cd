"""Adagrad: per-element learning rates that shrink with the sum of squared gradients
(with lr_decay, weight decay, an initial accumulator value and maximize), as PyTorch's
single-tensor implementation computes it."""

from __future__ import annotations

from gradshell.core import dtypes
from gradshell.core.device import array_module
from gradshell.core.tensor import wrap
from gradshell.torch.optim import _fused
from gradshell.torch.optim.optimizer import Optimizer


class Adagrad(Optimizer):
    """s ← s + g²; p ← p - clr · g / (sqrt(s) + eps), clr = lr / (1 + (t - 1) lr_decay)."""

    def __init__(
        self,
        params,
        lr: float = 1e-2,
        lr_decay: float = 0,
        weight_decay: float = 0,
        initial_accumulator_value: float = 0,
        eps: float = 1e-10,
        foreach=None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        fused=None,
    ) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(
                f"Invalid initial_accumulator_value value: {initial_accumulator_value}"
            )
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if differentiable or fused:
            raise NotImplementedError("gradshell's Adagrad has no differentiable or fused mode")
        defaults = {
            "lr": lr,
            "lr_decay": lr_decay,
            "eps": eps,
            "weight_decay": weight_decay,
            "initial_accumulator_value": initial_accumulator_value,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "fused": fused,
        }
        super().__init__(params, defaults)
        # PyTorch creates Adagrad's state up front, so state_dict() shows it before a step
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = wrap(
                    array_module(p._data).zeros((), dtypes.float32.np), dtypes.float32
                )
                init = group["initial_accumulator_value"]
                xp = array_module(p._data)
                state["sum"] = wrap(xp.full(p._data.shape, init, p._data.dtype), p._dtype)

    def _update(self, p, grad, group) -> None:
        data = p._data
        xp = array_module(data)
        t = data.dtype.type
        state = self.state[p]
        step_t = state["step"]
        step_t._data += 1
        step = float(step_t._data)
        if group["maximize"]:
            grad = -grad
        wd = group["weight_decay"]
        if wd != 0:
            grad = _fused.add_alpha(grad, data, wd)
        clr = group["lr"] / (1 + (step - 1) * group["lr_decay"])
        s = state["sum"]._data
        s[...] = _fused.addcmul(s, grad, grad, 1)
        std = xp.sqrt(s)
        std += t(group["eps"])
        data[...] = _fused.addcdiv(data, grad, std, -clr)
        for value in state.values():
            value._bump_version()
        p._bump_version()
