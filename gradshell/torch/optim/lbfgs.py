"""L-BFGS: a quasi-Newton method that approximates the inverse Hessian from the last
`history_size` steps and gradient changes (the two-loop recursion), with a fixed step
`lr` or a strong-Wolfe line search. Every quantity is a tensor computed with the same
tensor operations in the same order as PyTorch's implementation, so its decisions (and
results) follow PyTorch's."""

from __future__ import annotations

from gradshell.core.grad_mode import enable_grad, no_grad
from gradshell.ops import creation
from gradshell.ops.shape import cat
from gradshell.torch.optim.optimizer import Optimizer

__all__ = ["LBFGS"]


def _cubic_min(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimiser of the cubic through (x1, f1, slope g1) and (x2, f2, slope g2),
    clamped to `bounds` (the interval between the points by default); the interval's
    middle when the cubic has no minimum."""
    lo, hi = bounds if bounds is not None else ((x1, x2) if x1 <= x2 else (x2, x1))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    disc = d1**2 - g1 * g2
    if disc < 0:
        return (lo + hi) / 2.0
    d2 = disc.sqrt()
    if x1 <= x2:
        at = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        at = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(at, lo), hi)


class _Bracket:
    """The line search's interval: step sizes with their loss, gradient and slope."""

    def __init__(self, steps, losses, grads, slopes) -> None:
        self.t, self.f, self.g, self.gtd = list(steps), list(losses), list(grads), list(slopes)

    def set(self, i: int, t, f, g, gtd) -> None:
        self.t[i], self.f[i], self.g[i], self.gtd[i] = t, f, g, gtd

    def ends(self) -> tuple[int, int]:
        """(index of the lower loss, index of the other)."""
        return (0, 1) if self.f[0] <= self.f[-1] else (1, 0)


def _strong_wolfe(evaluate, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9, max_ls=25):
    """A step t along d satisfying the strong Wolfe conditions: (loss, flat gradient, t,
    evaluations)."""
    d_norm = d.abs().max()
    g = g.clone()
    f_new, g_new = evaluate(x, t, d)
    evals = 1
    gtd_new = g_new.dot(d)
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    done = False
    it = 0
    bracket = None
    # 1. grow the step until an interval holds a point satisfying the conditions
    while it < max_ls:
        if f_new > f + c1 * t * gtd or (it > 1 and f_new >= f_prev):
            bracket = _Bracket(
                [t_prev, t], [f_prev, f_new], [g_prev, g_new.clone()], [gtd_prev, gtd_new]
            )
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket = _Bracket([t], [f_new], [g_new], [gtd_new])
            done = True
            break
        if gtd_new >= 0:
            bracket = _Bracket(
                [t_prev, t], [f_prev, f_new], [g_prev, g_new.clone()], [gtd_prev, gtd_new]
            )
            break
        low, high = t + 0.01 * (t - t_prev), t * 10
        t_prev, t = t, _cubic_min(t_prev, f_prev, gtd_prev, t, f_new, gtd_new, bounds=(low, high))
        f_prev, g_prev, gtd_prev = f_new, g_new.clone(), gtd_new
        f_new, g_new = evaluate(x, t, d)
        evals += 1
        gtd_new = g_new.dot(d)
        it += 1
    if it == max_ls:
        bracket = _Bracket([0, t], [f, f_new], [g, g_new], [None, None])
    # 2. shrink the interval (zoom) until a point satisfies them
    stalled = False
    low, high = bracket.ends()
    while not done and it < max_ls:
        if abs(bracket.t[1] - bracket.t[0]) * d_norm < tolerance_change:
            break
        b = bracket
        t = _cubic_min(b.t[0], b.f[0], b.gtd[0], b.t[1], b.f[1], b.gtd[1])
        top, bottom = max(b.t), min(b.t)
        eps = 0.1 * (top - bottom)
        if min(top - t, t - bottom) < eps:
            # too near an end: move it inside unless the last step already did poorly
            if stalled or t >= top or t <= bottom:
                t = top - eps if abs(t - top) < abs(t - bottom) else bottom + eps
                stalled = False
            else:
                stalled = True
        else:
            stalled = False
        f_new, g_new = evaluate(x, t, d)
        evals += 1
        gtd_new = g_new.dot(d)
        it += 1
        if f_new > f + c1 * t * gtd or f_new >= b.f[low]:
            b.set(high, t, f_new, g_new.clone(), gtd_new)
            low, high = b.ends()
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (b.t[high] - b.t[low]) >= 0:
                b.set(high, b.t[low], b.f[low], b.g[low], b.gtd[low])
            b.set(low, t, f_new, g_new.clone(), gtd_new)
    return bracket.f[low], bracket.g[low], bracket.t[low], evals


class LBFGS(Optimizer):
    """L-BFGS over all parameters as one flat vector; step(closure) runs up to max_iter
    iterations (the closure recomputes the loss and its gradients)."""

    def __init__(
        self,
        params,
        lr: float = 1,
        max_iter: int = 20,
        max_eval: int | None = None,
        tolerance_grad: float = 1e-7,
        tolerance_change: float = 1e-9,
        history_size: int = 100,
        line_search_fn: str | None = None,
    ) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = {
            "lr": lr,
            "max_iter": max_iter,
            "max_eval": max_eval,
            "tolerance_grad": tolerance_grad,
            "tolerance_change": tolerance_change,
            "history_size": history_size,
            "line_search_fn": line_search_fn,
        }
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    # -- the parameters as one flat vector -----------------------------------------------------
    def _flat_grad(self):
        parts = []
        for p in self._params:
            if p.grad is None:
                parts.append(creation.zeros(p.numel(), dtype=p.dtype, device=p.device))
            else:
                parts.append(p.grad.view(-1))
        return cat(parts, 0)

    def _step_params(self, step_size, direction) -> None:
        offset = 0
        for p in self._params:
            n = p.numel()
            p.add_(direction[offset : offset + n].view_as(p), alpha=step_size)
            offset += n

    def _evaluate_at(self, closure, x, t, d):
        """(loss, flat gradient) at x + t·d, the parameters put back to x afterwards."""
        self._step_params(t, d)
        loss = float(self._closure(closure))
        grad = self._flat_grad()
        for p, saved in zip(self._params, x, strict=True):
            p.copy_(saved)
        return loss, grad

    def step(self, closure):  # type: ignore[override]
        """Up to max_iter L-BFGS iterations; returns the closure's first loss."""
        with no_grad():
            return self._step(closure)

    def _closure(self, closure):
        with enable_grad():
            return closure()

    def _step(self, closure):
        group = self.param_groups[0]
        lr, max_iter, max_eval = group["lr"], group["max_iter"], group["max_eval"]
        tol_grad, tol_change = group["tolerance_grad"], group["tolerance_change"]
        history = group["history_size"]
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        first_loss = self._closure(closure)
        loss = float(first_loss)
        evals = 1
        state["func_evals"] += 1
        grad = self._flat_grad()
        if grad.abs().max() <= tol_grad:
            return first_loss
        d, t = state.get("d"), state.get("t")
        dirs, steps, ro = state.get("old_dirs"), state.get("old_stps"), state.get("ro")
        h_diag = state.get("H_diag")
        prev_grad, prev_loss = state.get("prev_flat_grad"), state.get("prev_loss")
        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d = grad.neg()
                dirs, steps, ro = [], [], []
                h_diag = 1
            else:
                y = grad.sub(prev_grad)
                s = d.mul(t)
                ys = y.dot(s)
                if ys > 1e-10:  # keep the pair only if the curvature is positive
                    if len(dirs) == history:
                        dirs.pop(0)
                        steps.pop(0)
                        ro.pop(0)
                    dirs.append(y)
                    steps.append(s)
                    ro.append(1.0 / ys)
                    h_diag = ys / y.dot(y)
                if "al" not in state:
                    state["al"] = [None] * history
                d = _two_loop(grad, dirs, steps, ro, h_diag, state["al"])
            if prev_grad is None:
                prev_grad = grad.clone()
            else:
                prev_grad.copy_(grad)
            prev_loss = loss
            t = min(1.0, 1.0 / grad.abs().sum()) * lr if state["n_iter"] == 1 else lr
            gtd = grad.dot(d)
            if gtd > -tol_change:  # not a descent direction
                break
            ls_evals = 0
            if group["line_search_fn"] is not None:
                if group["line_search_fn"] != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x0 = [p.clone() for p in self._params]

                def evaluate(x, t, d):
                    return self._evaluate_at(closure, x, t, d)

                loss, grad, t, ls_evals = _strong_wolfe(
                    evaluate, x0, t, d, loss, grad, gtd, max_ls=max_eval - evals
                )
                self._step_params(t, d)
                converged = grad.abs().max() <= tol_grad
            else:
                self._step_params(t, d)
                converged = False
                if n_iter != max_iter:
                    loss = float(self._closure(closure))
                    grad = self._flat_grad()
                    converged = grad.abs().max() <= tol_grad
                    ls_evals = 1
            evals += ls_evals
            state["func_evals"] += ls_evals
            if n_iter == max_iter or evals >= max_eval or converged:
                break
            if d.mul(t).abs().max() <= tol_change or abs(loss - prev_loss) < tol_change:
                break
        state.update(
            d=d,
            t=t,
            old_dirs=dirs,
            old_stps=steps,
            ro=ro,
            H_diag=h_diag,
            prev_flat_grad=prev_grad,
            prev_loss=prev_loss,
        )
        return first_loss


def _two_loop(grad, dirs, steps, ro, h_diag, al):
    """The L-BFGS direction -H·grad from the stored pairs (the two-loop recursion)."""
    q = grad.neg()
    for i in range(len(dirs) - 1, -1, -1):
        al[i] = steps[i].dot(q) * ro[i]
        q.add_(dirs[i], alpha=-al[i])
    r = q * h_diag
    for i in range(len(dirs)):
        be_i = dirs[i].dot(r) * ro[i]
        r.add_(steps[i], alpha=al[i] - be_i)
    return r
