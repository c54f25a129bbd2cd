"""Plain events the core publishes for visualisers: gradients accumulated and wiped,
backward passes started, nodes run and finished.

The core imports no UI. Publishers check `events.active` (a plain list, empty when no one
listens) before building an event, so with no subscriber an event costs one truth test.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

active: list[Callable[[Any], None]] = []


def subscribe(listener: Callable[[Any], None]) -> Callable[[], None]:
    """Call `listener(event)` for every event; returns a function that unsubscribes."""
    active.append(listener)

    def unsubscribe() -> None:
        if listener in active:
            active.remove(listener)

    return unsubscribe


def emit(event: Any) -> None:
    """Deliver `event` to every subscriber (callers check `active` first)."""
    for listener in tuple(active):
        listener(event)


@dataclass(frozen=True)
class BackwardStarted:
    """A backward pass (tensor.backward or autograd.grad) begins at `roots`."""

    call: int
    roots: tuple
    grad_roots: tuple
    inputs: tuple | None
    retain_graph: bool
    create_graph: bool


@dataclass(frozen=True)
class NodeRun:
    """A graph node ran: `grad_inputs` came in, `grad_outputs` went to `node.next_functions`."""

    call: int
    node: Any
    grad_inputs: tuple
    grad_outputs: tuple


@dataclass(frozen=True)
class GradFlow:
    """Gradient `grad` flowed from `src` along its edge `src_index` (a position in
    `src.next_functions`) into input `input_nr` of `dst`."""

    call: int
    src: Any
    dst: Any
    input_nr: int
    grad: Any
    src_index: int = 0


@dataclass(frozen=True)
class BackwardFinished:
    """The backward pass numbered `call` finished (or failed with `error`)."""

    call: int
    error: BaseException | None = None


@dataclass(frozen=True)
class GradAccumulated:
    """`tensor.grad` went from `before` by adding `added` to `after` (all three copies
    taken at that moment; `before` is None for the first gradient). `grad` is the live
    `.grad` tensor itself. `call` numbers the backward pass (0 for retain_grad copies)."""

    call: int
    tensor: Any
    before: Any
    added: Any
    after: Any
    grad: Any = None


@dataclass(frozen=True)
class GradZeroed:
    """`tensor` was zeroed in place (`zero_()` on any tensor: listeners decide whether it
    was, or aliased, some `.grad`); `before` is a copy of what it held."""

    tensor: Any
    before: Any


@dataclass(frozen=True)
class GradSetToNone:
    """`owner.grad` was set to None (or replaced); `before` is what it held."""

    owner: Any
    before: Any
    after: Any = None
