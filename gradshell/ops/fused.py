"""Backward formulas that PyTorch runs as one op, recorded as one node when the backward
pass itself is differentiated (`create_graph=True`).

`sigmoid`'s gradient is `sigmoid_backward(grad, result)` in PyTorch: differentiating it
again meets a `SigmoidBackwardBackward0` node with edges to the incoming gradient and to
the saved result, not the MulBackward0/RsubBackward1 chain the formula is written as.
`fused` computes such a formula with the graph off (same arithmetic, same bits) and
records the named node in its place.
"""

from __future__ import annotations

from collections.abc import Callable

from gradshell.core import grad_mode
from gradshell.core.dtypes import float16, float32
from gradshell.ops.base import Node, Tensor, needs_grad, record


class FusedBackward(Node):
    """A backward op recorded as one node; subclasses give `grads(gg, *saved)` for the
    inputs, written with tensor ops so that a third derivative works too."""

    #: names under which the inputs are saved, in edge order
    inputs: tuple[str, ...] = ()

    def backward(self, gg):
        kept = self._saved
        # inputs that were not tensors (an absent weight) were not saved; a freed node
        # raises PyTorch's backward-twice error from `saved`
        saved = [self.saved(n) if kept is None or n in kept else None for n in self.inputs]
        wanted = tuple(fn is not None for fn, _ in self.next_functions)
        return self.grads(gg, wanted, *saved)

    def grads(self, gg, wanted: tuple, *saved) -> tuple:
        """Gradients for each input (None where `wanted` is False)."""
        raise NotImplementedError

    no_explanation = "a base class: each fused node names its own formula"


def fused(
    node_cls: type[FusedBackward],
    inputs: tuple,
    compute: Callable[..., Tensor],
    *,
    opmath: bool = True,
    **attrs,
):
    """`compute(*inputs)` (a backward formula), recorded as one `node_cls` node when the
    gradient itself needs a graph; `attrs` are numbers the node keeps (slopes, dims).

    With `opmath` (PyTorch's fused CPU kernels), float16 inputs are computed in float32
    and the result rounded once, as those kernels do; without it each op rounds."""
    record_node = needs_grad(*inputs)
    state = grad_mode.state
    prev = state.enabled
    state.enabled = False
    try:
        out = _run(compute, inputs, opmath)
    finally:
        state.enabled = prev
    if not record_node:
        return out
    node = node_cls()
    for name, t in zip(node_cls.inputs, inputs, strict=True):
        if isinstance(t, Tensor):
            node.save(name, t)
    for k, v in attrs.items():
        setattr(node, k, v)
    record(node, inputs, out)
    return out


def _run(compute, inputs: tuple, opmath: bool) -> Tensor:
    half = opmath and any(isinstance(t, Tensor) and t._dtype is float16 for t in inputs)
    if not half:
        return compute(*inputs)
    wide = [t.to(float32) if isinstance(t, Tensor) and t._dtype is float16 else t for t in inputs]
    return compute(*wide).to(float16)
