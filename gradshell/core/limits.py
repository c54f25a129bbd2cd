"""Resource limits that keep a learner's session alive (e.g. no 10^12-element tensors)."""

from __future__ import annotations


class Limits:
    """Process-wide limits; the shell sets them from its options."""

    max_elements: int = 10**8


limits = Limits()


def check_numel(n: int) -> None:
    """Raise a clear error before allocating a tensor of more than `max_elements` elements."""
    if n > limits.max_elements:
        raise MemoryError(
            f"gradshell: a tensor of {n:,} elements is over the limit of "
            f"{limits.max_elements:,} elements (change it with --max-elements)"
        )
