"""Size checks for the torch functions and tensor methods whose result can be far larger
than their inputs (`torch.outer`, `x.repeat`, `torch.cat([x] * 10**4)`, a matrix
product, elementwise work on an expanded view): the elements about to be allocated are
counted from the arguments before the call, and a call over the limit is refused.

Installed when learner code first imports torch (`install`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from gradshell.shell import guards, limits, policy

Estimate = Callable[..., int]


def _tensor_type() -> type:
    return guards._TENSOR


def _numel(x: Any) -> int:
    """Elements of a tensor, counting an expanded view in full (1 for anything else)."""
    if isinstance(x, _tensor_type()):
        return max(guards._materialised_elements(x), 1)
    return 1


def _shape(x: Any) -> tuple[int, ...]:
    if isinstance(x, _tensor_type()):
        return tuple(x._data.shape)
    return ()


def _sizes(args: tuple) -> tuple:
    """`f(2, 3)` or `f((2, 3))`: the sizes as given."""
    if len(args) == 1 and not isinstance(args[0], int) and hasattr(args[0], "__iter__"):
        return tuple(args[0])
    return args


def _product(a: Any, b: Any, *rest: Any, **kwargs: Any) -> int:
    return _numel(a) * _numel(b)


def _matmul(a: Any, b: Any, *rest: Any, **kwargs: Any) -> int:
    sa, sb = _shape(a), _shape(b)
    if len(sa) < 2 or len(sb) < 2:
        return max(_numel(a), _numel(b))
    batch = max(math.prod(sa[:-2]), math.prod(sb[:-2]), 1)
    return batch * sa[-2] * sb[-1]


def _joined(tensors: Any, *rest: Any, **kwargs: Any) -> int:
    if not isinstance(tensors, list | tuple):
        return 0
    limits.check_length(len(tensors))
    return sum(_numel(t) for t in tensors)


def _read_sequence(args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """`cat(seq)`: a sequence that is not a list or tuple is read once, into a tuple, and
    that tuple is what is counted and what the function gets."""
    if args and not isinstance(args[0], list | tuple | _tensor_type()):
        if not _learner(args[0]):
            limits.check_iterable(args[0])
        args = (tuple(_each(args[0])), *args[1:])
    elif "tensors" in kwargs and not isinstance(kwargs["tensors"], list | tuple):
        kwargs = {**kwargs, "tensors": tuple(_each(kwargs["tensors"]))}
    return args, kwargs


def _read_sizes(args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """`x.repeat(sizes)`: the sizes are read once, as plain ints, and passed on as such."""
    if args:
        args = tuple(limits.as_shape(_sizes(args)))
    return args, kwargs


def _learner(value: Any) -> bool:
    return any(policy.is_learner_class(cls) for cls in type(value).__mro__)


def _each(value: Any) -> Any:
    yield from value


def _elementwise(*args: Any, **kwargs: Any) -> int:
    """The broadcast of every tensor argument (what an elementwise result holds)."""
    import numpy as np

    shapes = [_shape(a) for a in (*args, *kwargs.values()) if isinstance(a, _tensor_type())]
    if not shapes:
        return 0
    if math.prod(max(_numel(a), 1) for a in args if isinstance(a, _tensor_type())) <= (
        limits.CURRENT.max_elements
    ):
        return 0  # the common case: small enough whatever the broadcast
    try:
        return math.prod(np.broadcast_shapes(*shapes))
    except ValueError:
        return 0  # the function raises its own error


def _repeat(self: Any, *sizes: Any) -> int:
    if not sizes:
        return 0
    counts = _sizes(sizes)
    return _numel(self) * math.prod(max(int(c), 0) for c in counts)


#: Functions of torch -> the elements of their result.
FUNCTIONS: dict[str, Estimate] = {
    "outer": _product,
    "ger": _product,
    "matmul": _matmul,
    "mm": _matmul,
    "bmm": _matmul,
    "cat": _joined,
    "concat": _joined,
    "concatenate": _joined,
    "stack": _joined,
    **{
        name: lambda x, *rest, **kwargs: _numel(x)
        for name in "zeros_like ones_like empty_like full_like rand_like randn_like".split()
    },
    **{
        name: _elementwise
        for name in """add sub subtract mul multiply div divide true_divide pow maximum
        minimum where atan2 remainder fmod floor_divide eq ne lt le gt ge""".split()
    },
}

#: Tensor methods -> the elements of their result (the tensor comes first).
METHODS: dict[str, Estimate] = {
    "repeat": _repeat,
    "outer": _product,
    "ger": _product,
    "matmul": _matmul,
    "mm": _matmul,
    "bmm": _matmul,
}


#: How the arguments of some calls are read once before they are counted.
PREPARE: dict[str, Callable[[tuple, dict], tuple[tuple, dict]]] = {
    "cat": _read_sequence,
    "concat": _read_sequence,
    "concatenate": _read_sequence,
    "stack": _read_sequence,
    "repeat": _read_sizes,
}


class SizedTorchCall:
    """A torch function or bound tensor method with its result size checked first."""

    __slots__ = ("fn", "estimate", "subject", "prepare")

    def __init__(
        self,
        fn: Callable[..., Any],
        estimate: Estimate,
        subject: Any = None,
        prepare: Callable[[tuple, dict], tuple[tuple, dict]] | None = None,
    ) -> None:
        self.fn = fn
        self.estimate = estimate
        self.subject = subject
        self.prepare = prepare

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.prepare is not None:
            args, kwargs = self.prepare(args, kwargs)
        try:
            if self.subject is not None:
                n = self.estimate(self.subject, *args, **kwargs)
            else:
                n = self.estimate(*args, **kwargs)
        except (TypeError, ValueError, IndexError, OverflowError):
            n = 0  # unusual arguments: the function reports them itself
        limits.check_elements(n, "this result")
        return self.fn(*args, **kwargs)

    @property
    def __wrapped__(self) -> Callable[..., Any]:
        """The function itself: `help()`, `?` and `inspect.unwrap` show its documentation,
        not this wrapper's."""
        return self.fn

    def __getattr__(self, name: str) -> Any:
        return getattr(self.fn, name)  # `__name__`, `__qualname__`: the function's

    def __repr__(self) -> str:
        return repr(self.fn)


policy.CALLABLE_TYPES.add(SizedTorchCall)


def install(torch: Any, tensor: type) -> None:
    """Check the functions of `torch` and the methods of `tensor` listed above."""
    for name, estimate in FUNCTIONS.items():
        fn = getattr(torch, name, None)
        if fn is not None:
            guards.substitute_call(fn, SizedTorchCall(fn, estimate, None, PREPARE.get(name)))
    for name, estimate in METHODS.items():
        if hasattr(tensor, name):
            guards.register_replacement(
                tensor,
                name,
                lambda t, _n=name, _e=estimate: SizedTorchCall(
                    getattr(t, _n), _e, t, PREPARE.get(_n)
                ),
                SizedTorchCall(getattr(tensor, name), estimate),  # `torch.Tensor.mm(a, b)`
            )
