"""torch.distributions.constraints: the sets a parameter or a sample must lie in.

Each constraint answers `check(value)` with a boolean tensor (per element, or per event
for constraints over a last dimension) and prints as PyTorch prints it, since validation
errors quote it ("to satisfy the constraint GreaterThan(lower_bound=0.0)").
"""

from __future__ import annotations

from typing import Any

from gradshell.core.tensor import Tensor


class Constraint:
    """A set of valid values; `event_dim` is how many rightmost dimensions form one event."""

    is_discrete = False
    event_dim = 0

    def check(self, value: Tensor) -> Tensor:
        """A boolean tensor: which values (or events) lie in the set."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return type(self).__name__[1:] + "()"


class _Real(Constraint):
    """Every real number: anything but NaN."""

    def check(self, value: Tensor) -> Tensor:
        return value == value  # NaN is the one value unequal to itself


class _Boolean(Constraint):
    """{0, 1}."""

    is_discrete = True

    def check(self, value: Tensor) -> Tensor:
        return (value == 0) | (value == 1)


class _GreaterThan(Constraint):
    """(lower_bound, ∞)."""

    def __init__(self, lower_bound: Any) -> None:
        self.lower_bound = lower_bound

    def check(self, value: Tensor) -> Tensor:
        return self.lower_bound < value

    def __repr__(self) -> str:
        return f"GreaterThan(lower_bound={self.lower_bound})"


class _GreaterThanEq(Constraint):
    """[lower_bound, ∞)."""

    def __init__(self, lower_bound: Any) -> None:
        self.lower_bound = lower_bound

    def check(self, value: Tensor) -> Tensor:
        return self.lower_bound <= value

    def __repr__(self) -> str:
        return f"GreaterThanEq(lower_bound={self.lower_bound})"


class _OneHot(Constraint):
    """Vectors along the last dimension with a single 1 and 0 elsewhere."""

    is_discrete = True
    event_dim = 1

    def check(self, value: Tensor) -> Tensor:
        is_boolean = (value == 0) | (value == 1)
        is_normalized = value.sum(-1).eq(1)
        return is_boolean.all(-1) & is_normalized


class _LessThan(Constraint):
    """(-∞, upper_bound)."""

    def __init__(self, upper_bound: Any) -> None:
        self.upper_bound = upper_bound

    def check(self, value: Tensor) -> Tensor:
        return value < self.upper_bound

    def __repr__(self) -> str:
        return f"LessThan(upper_bound={self.upper_bound})"


class _Interval(Constraint):
    """[lower_bound, upper_bound]."""

    def __init__(self, lower_bound: Any, upper_bound: Any) -> None:
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound

    def check(self, value: Tensor) -> Tensor:
        return (self.lower_bound <= value) & (value <= self.upper_bound)

    def __repr__(self) -> str:
        return f"Interval(lower_bound={self.lower_bound}, upper_bound={self.upper_bound})"


class _IntegerInterval(Constraint):
    """The integers lower_bound, ..., upper_bound."""

    is_discrete = True

    def __init__(self, lower_bound: Any, upper_bound: Any) -> None:
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound

    def check(self, value: Tensor) -> Tensor:
        return (value % 1 == 0) & (self.lower_bound <= value) & (value <= self.upper_bound)

    def __repr__(self) -> str:
        return f"IntegerInterval(lower_bound={self.lower_bound}, upper_bound={self.upper_bound})"


class _Simplex(Constraint):
    """Non-negative vectors along the last dimension that sum to 1."""

    event_dim = 1

    def check(self, value: Tensor) -> Tensor:
        return (value >= 0).all(dim=-1) & ((value.sum(-1) - 1).abs() < 1e-6)


class _IndependentConstraint(Constraint):
    """`base_constraint` holding for every element of the rightmost `reinterpreted_batch_ndims`
    dimensions at once."""

    def __init__(self, base_constraint: Constraint, reinterpreted_batch_ndims: int) -> None:
        self.base_constraint = base_constraint
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        self.event_dim = base_constraint.event_dim + reinterpreted_batch_ndims

    def check(self, value: Tensor) -> Tensor:
        result = self.base_constraint.check(value)
        for _ in range(self.reinterpreted_batch_ndims):
            result = result.all(dim=-1)
        return result

    def __repr__(self) -> str:
        return f"IndependentConstraint({self.base_constraint!r}, {self.reinterpreted_batch_ndims})"


class _MixtureSameFamilyConstraint(Constraint):
    """A mixture's support: its components' support."""

    def __init__(self, base_constraint: Constraint) -> None:
        self.base_constraint = base_constraint
        self.event_dim = base_constraint.event_dim
        self.is_discrete = base_constraint.is_discrete

    def check(self, value: Tensor) -> Tensor:
        return self.base_constraint.check(value)

    def __repr__(self) -> str:
        return f"MixtureSameFamilyConstraint({self.base_constraint!r})"


real = _Real()
boolean = _Boolean()
simplex = _Simplex()
positive = _GreaterThan(0.0)
nonnegative = _GreaterThanEq(0.0)
one_hot = _OneHot()
greater_than_eq = _GreaterThanEq
unit_interval = _Interval(0.0, 1.0)
real_vector = _IndependentConstraint(real, 1)
greater_than = _GreaterThan
less_than = _LessThan
interval = _Interval
integer_interval = _IntegerInterval
independent = _IndependentConstraint

__all__ = [
    "Constraint",
    "boolean",
    "greater_than",
    "greater_than_eq",
    "independent",
    "integer_interval",
    "interval",
    "less_than",
    "nonnegative",
    "one_hot",
    "positive",
    "real",
    "real_vector",
    "simplex",
    "unit_interval",
]
