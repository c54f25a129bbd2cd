"""RMSprop: divide the gradient by a running root-mean-square of recent gradients
(optionally centred, with momentum, weight decay, maximize), as PyTorch's single-tensor
implementation computes it."""

from __future__ import annotations

from gradshell.core.device import array_module
from gradshell.torch.optim import _fused
from gradshell.torch.optim.optimizer import Optimizer, scalar_state, zeros_state


class RMSprop(Optimizer):
    """v ← α v + (1 - α) g²; p ← p - lr · g / (sqrt(v) + eps) (centred: v - ḡ² under the
    root; with momentum: b ← μ b + g / (sqrt(v) + eps), p ← p - lr · b)."""

    def __init__(
        self,
        params,
        lr: float = 1e-2,
        alpha: float = 0.99,
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum: float = 0,
        centered: bool = False,
        capturable: bool = False,
        foreach=None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        if capturable or differentiable:
            raise NotImplementedError(
                "gradshell's RMSprop has no capturable or differentiable mode"
            )
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "alpha": alpha,
            "eps": eps,
            "centered": centered,
            "weight_decay": weight_decay,
            "capturable": capturable,
            "foreach": foreach,
            "maximize": maximize,
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
            if group["momentum"] > 0:
                state["momentum_buffer"] = zeros_state(p)
            if group["centered"]:
                state["grad_avg"] = zeros_state(p)
        if group["maximize"]:
            grad = -grad
        state["step"]._data += 1
        wd = group["weight_decay"]
        if wd != 0:
            grad = _fused.add_alpha(grad, data, wd)
        alpha = group["alpha"]
        sq = state["square_avg"]._data
        sq *= t(alpha)
        sq[...] = _fused.addcmul(sq, grad, grad, 1 - alpha)
        if group["centered"]:
            ga = state["grad_avg"]._data
            w = 1 - alpha
            if abs(w) < 0.5:
                ga[...] = _fused.lerp(ga, grad, w)
            else:  # from the far end, as PyTorch's lerp does for weights >= 0.5
                ga[...] = grad - (grad - ga) * t(1 - w)
            avg = xp.sqrt(_fused.addcmul(sq, ga, ga, -1))
        else:
            avg = xp.sqrt(sq)
        avg += t(group["eps"])
        lr = group["lr"]
        if group["momentum"] > 0:
            buf = state["momentum_buffer"]._data
            buf *= t(group["momentum"])
            buf[...] = _fused.addcdiv(buf, grad, avg, 1)
            data[...] = _fused.add_alpha(data, buf, -lr)
        else:
            data[...] = _fused.addcdiv(data, grad, avg, -lr)
        for value in state.values():
            value._bump_version()
        p._bump_version()
