"""`torch.baddbmm`: beta·self + alpha·(batch1 @ batch2) for 3-D batches, `self` broadcast
to the product's shape, with PyTorch's node `BaddbmmBackward0`."""

from __future__ import annotations

from gradshell.core.gradients import sum_to_size
from gradshell.ops.base import (
    Node,
    Tensor,
    array_module,
    as_array,
    check_same_device,
    needs_grad,
    record,
    tensor_method,
    wrap,
)
from gradshell.ops.explanation import Ctx, Formula, Local

__all__ = ["baddbmm"]


class BaddbmmBackward0(Node):
    """d(β·S + α·A@B): β·grad (summed to S's shape) for S, α·grad@Bᵀ for A, α·Aᵀ@grad
    for B."""

    def backward(self, g):
        beta, alpha = self.beta, self.alpha
        gs = ga = gb = None
        if self.needs[0]:
            gs = sum_to_size(g if beta == 1 else g * beta, self.self_shape)
        if self.needs[1]:
            ga = g.bmm(self.saved("batch2").transpose(1, 2))
            ga = ga if alpha == 1 else ga * alpha
        if self.needs[2]:
            gb = self.saved("batch1").transpose(1, 2).bmm(g)
            gb = gb if alpha == 1 else gb * alpha
        return gs, ga, gb

    def explain(self, c: Ctx) -> Formula:
        beta, alpha = c.attr("beta"), c.attr("alpha")
        a, b = c.saved("batch1"), c.saved("batch2")
        shape = c.attr("self_shape")

        def to_self(g):
            lead = g.ndim - len(shape)
            r = g.sum(axis=tuple(range(lead))) if lead else g
            dims = tuple(i for i, s in enumerate(shape) if s == 1 and r.shape[i] != 1)
            return (r.sum(axis=dims, keepdims=True) if dims else r) * beta

        return Formula(
            f"{beta}·{c.sym(0)} + {alpha}·{c.sym(1)} @ {c.sym(2)}",
            [
                Local(f"{beta}·grad", kind="map", apply=to_self),
                Local(
                    f"{alpha}·grad @ Bᵀ", kind="map", apply=lambda g: alpha * g @ b.swapaxes(1, 2)
                ),
                Local(
                    f"{alpha}·Aᵀ @ grad", kind="map", apply=lambda g: alpha * a.swapaxes(1, 2) @ g
                ),
            ],
        )


def _shape_text(shape) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _expand_error(have: tuple, target: tuple) -> RuntimeError:
    """PyTorch's message for a tensor that cannot be expanded to `target`."""
    lead = len(target) - len(have)
    dim = max(i for i in range(len(have)) if have[i] != 1 and have[i] != target[lead + i])
    return RuntimeError(
        f"The expanded size of the tensor ({target[lead + dim]}) must match the existing size "
        f"({have[dim]}) at non-singleton dimension {lead + dim}.  Target sizes: "
        f"{_shape_text(target)}.  Tensor sizes: {_shape_text(have)}"
    )


@tensor_method("baddbmm", torch=("baddbmm",))
def baddbmm(self: Tensor, batch1: Tensor, batch2: Tensor, *, beta=1, alpha=1) -> Tensor:
    """beta·self + alpha·(batch1 @ batch2), self broadcast to (b, n, m)."""
    for name, t in (("self", self), ("batch1", batch1), ("batch2", batch2)):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"baddbmm(): argument '{name if name != 'self' else 'input'}' must be Tensor, "
                f"not {type(t).__name__}"
            )
    check_same_device(self, batch1)
    check_same_device(self, batch2)
    xp = array_module(batch1._data)
    s1, s2 = batch1._data.shape, batch2._data.shape
    if len(s1) >= 2 and len(s2) >= 3:
        target = (s1[0], s1[1], s2[2])
        try:  # PyTorch expands self to the product's shape before checking the batches
            base = xp.broadcast_to(self._data, target)
        except ValueError:
            raise _expand_error(self._data.shape, target) from None
    if batch1._data.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if batch2._data.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    b, n, k = s1
    b2, k2, m = s2
    if (b2, k2) != (b, k):
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{b}, {k}] but got: "
            f"[{b2}, {k2}]."
        )
    if not (self._dtype is batch1._dtype is batch2._dtype):
        raise RuntimeError(
            f"expected scalar type {batch1._dtype.scalar_name} but found "
            f"{(batch2 if batch1._dtype is self._dtype else self)._dtype.scalar_name}"
        )
    prod = xp.matmul(batch1._data, batch2._data)
    dt = prod.dtype.type
    if alpha != 1:
        prod = prod * dt(alpha)
    out = prod if beta == 0 else (base + prod if beta == 1 else base * dt(beta) + prod)
    res = wrap(as_array(xp.ascontiguousarray(out.astype(prod.dtype, copy=False))), batch1._dtype)
    if needs_grad(self, batch1, batch2):
        node = BaddbmmBackward0()
        node.beta, node.alpha = beta, alpha
        node.self_shape = tuple(self._data.shape)
        node.needs = (self._requires_grad, batch1._requires_grad, batch2._requires_grad)
        node.save("batch1", batch1)
        node.save("batch2", batch2)
        record(node, (self, batch1, batch2), res)
    return res
