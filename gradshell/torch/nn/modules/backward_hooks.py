"""A module's backward hooks (`register_full_backward_hook`, `..._pre_hook`), built the way
PyTorch builds them, so the graph a learner prints is PyTorch's: the module's tensor inputs
and its outputs each pass through an identity Function, whose node
(`BackwardHookFunctionBackward`) catches the gradients flowing through it. The output's
node sees grad_output first (pre-hooks may replace it); the input's node then sees
grad_input and calls the hooks with both.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from gradshell.core import grad_mode
from gradshell.core.tensor import Tensor
from gradshell.torch._autograd_function import Function

_NO_INPUT_GRAD = (
    "Full backward hook is firing when gradients are computed with respect to module "
    "outputs since no inputs require gradients. See "
    "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
    "#torch.nn.Module.register_full_backward_hook for more details."
)


class BackwardHookFunction(Function):
    """Identity on the module's tensors: its node is where the hooks listen."""

    @staticmethod
    def forward(ctx, *args):
        ctx.mark_non_differentiable(*[a for a in args if not a.requires_grad])
        return args

    @staticmethod
    def backward(ctx, *grads):
        return grads


def _spread(positions: list[int] | None, values: tuple, size: int) -> tuple:
    """`values` put back at their argument positions, None elsewhere."""
    out: list[Any] = [None] * size
    for pos, value in zip(positions or [], values, strict=False):
        out[pos] = value
    return tuple(out)


def _gather(positions: list[int] | None, values: tuple) -> tuple:
    """The values at the tensor positions (the inverse of `_spread`)."""
    return tuple(values[pos] for pos in positions or [])


class BackwardHook:
    """One forward call's hook state: what the output's node saw, for the input's node."""

    def __init__(self, module: Any, hooks: list[Callable], pre_hooks: list[Callable]) -> None:
        self.module = module
        self.hooks = hooks
        self.pre_hooks = pre_hooks
        self.grad_outputs: tuple | None = None
        self.n_inputs = 0
        self.input_positions: list[int] | None = None
        self.n_outputs = 0
        self.output_positions: list[int] | None = None

    def _through_identity(self, args: tuple, listen: Callable) -> tuple[tuple, list[int] | None]:
        positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        tensors = [args[i] for i in positions]
        if not (any(t.requires_grad for t in tensors) and grad_mode.is_grad_enabled()):
            return args, None
        passed = BackwardHookFunction.apply(*tensors)
        node = next(t.grad_fn for t in passed if t.grad_fn is not None)
        listen(node)
        out = list(args)
        for pos, value in zip(positions, passed, strict=True):
            out[pos] = value
        return tuple(out), positions

    # -- inputs: call the hooks with grad_input ------------------------------------------------
    def setup_input_hook(self, args: tuple) -> tuple:
        """The module's arguments, its tensors routed through a listening node."""

        def on_input_grads(grad_inputs: tuple, _grad_outputs: tuple):
            if self.grad_outputs is None:
                return None  # the outputs' gradient did not pass this forward's node
            grad_input = _spread(self.input_positions, grad_inputs, self.n_inputs)
            for hook in self.hooks:
                result = hook(self.module, grad_input, self.grad_outputs)
                if result is None:
                    continue
                if len(result) != len(grad_input):
                    raise RuntimeError(
                        "Backward hook returned an invalid number of grad_input, "
                        f"got {len(result)}, but expected {len(grad_input)}"
                    )
                grad_input = tuple(result)
            self.grad_outputs = None
            return _gather(self.input_positions, grad_input)

        self.n_inputs = len(args)
        out, self.input_positions = self._through_identity(
            args, lambda node: node.register_hook(on_input_grads)
        )
        return out

    # -- outputs: remember grad_output (pre-hooks may replace it) -------------------------------
    def setup_output_hook(self, result: Any) -> Any:
        """The module's result, its tensors routed through a listening node."""

        def on_output_grads(grads: tuple):
            grad_output = _spread(self.output_positions, grads, self.n_outputs)
            for hook in self.pre_hooks:
                new = hook(self.module, grad_output)
                if new is None:
                    continue
                if len(new) != len(grad_output):
                    raise RuntimeError(
                        "Backward pre hook returned an invalid number of grad_output, "
                        f"got {len(new)}, but expected {len(grad_output)}"
                    )
                grad_output = tuple(new)
            self.grad_outputs = grad_output
            if self.input_positions is None:
                self._fire_without_input_grads()
            if self.pre_hooks:
                return _gather(self.output_positions, grad_output)
            return None

        single = not isinstance(result, tuple)
        outputs = (result,) if single else result
        self.n_outputs = len(outputs)
        out, self.output_positions = self._through_identity(
            outputs, lambda node: node.register_prehook(on_output_grads)
        )
        return out[0] if single else out

    def _fire_without_input_grads(self) -> None:
        # no input needs a gradient, so the hooks run now, with grad_input all None
        warnings.warn(_NO_INPUT_GRAD, UserWarning, stacklevel=2)
        grad_input = (None,) * self.n_inputs
        for hook in self.hooks:
            result = hook(self.module, grad_input, self.grad_outputs)
            if result is not None and not all(r is None for r in result):
                raise RuntimeError(
                    "Backward hook for Modules where no input requires gradient should "
                    "always return None or None for all gradients."
                )
        self.grad_outputs = None
