"""`nn.Parameter`: a leaf tensor that a Module registers as one of its parameters.

It shares its data with the tensor it wraps, requires grad by default, prints as
`Parameter containing:` (the printers look at the class attribute `_is_parameter`), and
results of operations on it are plain tensors, as in PyTorch.
"""

from __future__ import annotations

from gradshell.core.tensor import Tensor


class Parameter(Tensor):
    """A tensor that is a module parameter (a leaf that requires grad by default)."""

    _is_parameter = True

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True):
        if data is None:
            from gradshell.ops.creation import empty

            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(
                f"Parameter.__new__(): argument 'data' must be Tensor, not {type(data).__name__}"
            )
        p = object.__new__(cls)
        p._data = data._data
        p._dtype = data._dtype
        p._version_counter = data._counter()
        if requires_grad:
            if not data._dtype.is_floating_point:
                raise RuntimeError(
                    "Only Tensors of floating point and complex dtype can require gradients"
                )
            p._requires_grad = True
        return p

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True) -> None:
        """(All the work happens in __new__.)"""

    def __deepcopy__(self, memo: dict) -> Parameter:
        if id(self) in memo:
            return memo[id(self)]
        from gradshell.ops.shape import clone

        with _no_grad():
            data = clone(self)
        out = Parameter(data, self._requires_grad)
        if self._grad is not None:
            out._grad = clone(self._grad)
        memo[id(self)] = out
        return out

    def __reduce_ex__(self, protocol):
        from gradshell.core.device import to_numpy

        return (_rebuild, (to_numpy(self._data).copy(), self._dtype.name, self._requires_grad))


def _rebuild(array, dtype_name: str, requires_grad: bool) -> Parameter:
    from gradshell.core.dtypes import from_name
    from gradshell.core.tensor import wrap

    return Parameter(wrap(array, from_name(dtype_name)), requires_grad)


def _no_grad():
    from gradshell.core.grad_mode import no_grad

    return no_grad()


class UninitializedParameter:
    """Lazy modules are not supported by gradshell."""

    def __new__(cls, *args, **kwargs):
        raise NotImplementedError("gradshell does not support lazy (uninitialized) parameters")


__all__ = ["Parameter", "UninitializedParameter"]
