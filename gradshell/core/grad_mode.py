"""Whether operations record the graph: no_grad, enable_grad, set_grad_enabled, inference_mode."""

from __future__ import annotations

import functools


class _State:
    __slots__ = ("enabled", "inference")

    def __init__(self) -> None:
        self.enabled = True
        self.inference = False


state = _State()


def is_grad_enabled() -> bool:
    """True when operations on tensors that require grad build a graph."""
    return state.enabled


def is_inference_mode_enabled() -> bool:
    """True inside `torch.inference_mode()`."""
    return state.inference


class _GradModeContext:
    """Base for the grad-mode context managers; each also works as a decorator."""

    def _target(self) -> bool:
        raise NotImplementedError

    def __enter__(self):
        self._prev = state.enabled
        state.enabled = self._target()
        return None

    def __exit__(self, *exc) -> bool:
        state.enabled = self._prev
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.__class__(*self._args()):
                return func(*args, **kwargs)

        return wrapper

    def _args(self) -> tuple:
        return ()

    def clone(self):
        """A fresh copy of this context manager."""
        return self.__class__(*self._args())


class no_grad(_GradModeContext):  # noqa: N801 - PyTorch's name
    """Context manager / decorator that disables graph recording."""

    __module__ = "torch.autograd.grad_mode"  # as type() prints it in PyTorch

    def _target(self) -> bool:
        return False


class enable_grad(_GradModeContext):  # noqa: N801
    """Context manager / decorator that enables graph recording."""

    __module__ = "torch.autograd.grad_mode"  # as type() prints it in PyTorch

    def _target(self) -> bool:
        return True


class set_grad_enabled(_GradModeContext):  # noqa: N801
    """Enable or disable graph recording; takes effect at once, and also a context manager."""

    __module__ = "torch.autograd.grad_mode"  # as type() prints it in PyTorch

    def __init__(self, mode: bool) -> None:
        if not isinstance(mode, bool):
            raise TypeError(
                f"set_grad_enabled(): argument 'mode' (position 1) must be bool, not "
                f"{type(mode).__name__}"
            )
        self.mode = mode
        self._prev = state.enabled
        state.enabled = mode

    def _target(self) -> bool:
        return self.mode

    def __enter__(self):
        return None

    def __exit__(self, *exc) -> bool:
        state.enabled = self._prev
        return False

    def _args(self) -> tuple:
        return (self.mode,)

    def __str__(self) -> str:
        # PyTorch's own: `torch.set_grad_enabled(True)` echoes as this at the prompt
        return f"torch.autograd.grad_mode.set_grad_enabled(mode={self.mode})"

    __repr__ = __str__

    def clone(self) -> set_grad_enabled:
        """A copy of this context manager (the same mode)."""
        return type(self)(self.mode)

    def __call__(self, func):
        state.enabled = self._prev  # used as a decorator: undo the immediate effect
        return super().__call__(func)


class inference_mode(_GradModeContext):  # noqa: N801
    """Like no_grad, and marks the tensors it creates as inference tensors."""

    __module__ = "torch.autograd.grad_mode"  # as type() prints it in PyTorch

    def __init__(self, mode: bool = True) -> None:
        self.mode = mode

    def _target(self) -> bool:
        return not self.mode and state.enabled

    def __enter__(self):
        self._prev_inf = state.inference
        state.inference = self.mode
        return super().__enter__()

    def __exit__(self, *exc) -> bool:
        state.inference = self._prev_inf
        return super().__exit__(*exc)

    def _args(self) -> tuple:
        return (self.mode,)
