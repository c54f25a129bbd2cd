"""PyTorch's warn-once warnings: given the first time only, in a process's whole life.

PyTorch's C++ side warns some things once per process (`TORCH_WARN_ONCE`), whatever the
Python warning filters say: a second `float(x)` of a tensor that requires grad, on
another line, is silent. A shell session is the learner's process, so the set of
warnings already given is part of a session's state (`given`/`restore`).
"""

from __future__ import annotations

import warnings

_given: set[str] = set()

SCALAR_OF_GRAD_TENSOR = (
    "Converting a tensor with requires_grad=True to a scalar may lead to unexpected "
    "behavior.\nConsider using tensor.detach() first. (Triggered internally at "
    "/__w/pytorch/pytorch/torch/csrc/autograd/generated/python_variable_methods.cpp:822.)"
)


def warn_once(message: str, category: type[Warning] = UserWarning, stacklevel: int = 1) -> None:
    """Warn `message` unless it was given before; `stacklevel` counts from the caller."""
    if message in _given:
        return
    _given.add(message)
    warnings.warn(message, category, stacklevel=stacklevel + 1)


def given() -> frozenset[str]:
    """The warn-once messages given so far."""
    return frozenset(_given)


def restore(messages: frozenset[str]) -> None:
    """Put back a process's set of given warn-once messages."""
    _given.clear()
    _given.update(messages)
