"""Comparisons and logical/bitwise ops: bool (or integer) results, never a gradient."""

from __future__ import annotations

from gradshell.core import dtypes
from gradshell.ops.base import (
    FLOAT,
    Tensor,
    array_module,
    as_array,
    binary_operands,
    is_scalar,
    tensor_method,
    wrap,
)
from gradshell.ops.base import broadcast_fail as _broadcast_fail


def _compare(ufunc: str, a, b):
    if not (isinstance(b, Tensor) or is_scalar(b)):
        return NotImplemented
    dt = dtypes.result_type(a, b)
    ad, bd, _, xp = binary_operands(a, b, dt)
    try:
        r = getattr(xp, ufunc)(ad, bd)
    except ValueError:
        raise _broadcast_fail(a, b) from None
    return wrap(as_array(r), dtypes.bool_)


def _make(name: str, ufunc: str, *aliases: str):
    """The comparison `name` (Tensor methods `name` and `aliases`; torch functions `name`
    and its spelled-out alias, e.g. torch.less)."""

    def op(self, other):
        return _compare(ufunc, self, other)

    op.__name__ = name
    op.__doc__ = f"Elementwise {name} comparison (a bool tensor, no gradient)."
    spelled = tuple(a for a in aliases if not a.startswith("__"))
    return tensor_method(name, *aliases, torch=(name, *spelled))(op)


eq = _make("eq", "equal", "__eq__")
ne = _make("ne", "not_equal", "__ne__", "not_equal")
lt = _make("lt", "less", "__lt__", "less")
le = _make("le", "less_equal", "__le__", "less_equal")
gt = _make("gt", "greater", "__gt__", "greater")
ge = _make("ge", "greater_equal", "__ge__", "greater_equal")


@tensor_method("equal", torch=("equal",))
def equal(self, other) -> bool:
    """True if both tensors have the same shape and elements."""
    if self._data.shape != other._data.shape:
        return False
    return bool((self._data == other._data).all())


def _logical(ufunc: str, a, b):
    bd = b._data if isinstance(b, Tensor) else b
    return wrap(as_array(getattr(array_module(a._data), ufunc)(a._data, bd)), dtypes.bool_)


@tensor_method("logical_and", torch=("logical_and",))
def logical_and(self, other):
    """Elementwise logical and (nonzero is true)."""
    return _logical("logical_and", self, other)


@tensor_method("logical_or", torch=("logical_or",))
def logical_or(self, other):
    """Elementwise logical or."""
    return _logical("logical_or", self, other)


@tensor_method("logical_xor", torch=("logical_xor",))
def logical_xor(self, other):
    """Elementwise logical xor."""
    return _logical("logical_xor", self, other)


@tensor_method("logical_not", torch=("logical_not",))
def logical_not(self):
    """Elementwise logical not."""
    return wrap(as_array(array_module(self._data).logical_not(self._data)), dtypes.bool_)


def _bitwise(ufunc: str, sym: str, a, b):
    if not (isinstance(b, Tensor) or is_scalar(b)):
        return NotImplemented
    dt = dtypes.result_type(a, b)
    if dt.category == FLOAT:
        raise RuntimeError(f"\"{ufunc}_cpu\" not implemented for 'Float'")
    ad, bd, _, xp = binary_operands(a, b, dt)
    return wrap(as_array(getattr(xp, ufunc)(ad, bd)), dt)


@tensor_method("__and__", "__rand__", "bitwise_and", torch=("bitwise_and",))
def bitwise_and(self, other):
    """Elementwise and of bool/integer tensors."""
    return _bitwise("bitwise_and", "&", self, other)


@tensor_method("__or__", "__ror__", "bitwise_or", torch=("bitwise_or",))
def bitwise_or(self, other):
    """Elementwise or of bool/integer tensors."""
    return _bitwise("bitwise_or", "|", self, other)


@tensor_method("__xor__", "__rxor__", "bitwise_xor", torch=("bitwise_xor",))
def bitwise_xor(self, other):
    """Elementwise xor of bool/integer tensors."""
    return _bitwise("bitwise_xor", "^", self, other)


@tensor_method("__invert__", "bitwise_not", torch=("bitwise_not",))
def bitwise_not(self):
    """~x: logical not for bool tensors, bitwise not for integers."""
    if self._dtype.category == FLOAT:
        raise TypeError(
            "~ (operator.invert) is only implemented on integer and Boolean-type tensors"
        )
    return wrap(as_array(array_module(self._data).invert(self._data)), self._dtype)


@tensor_method("isnan", torch=("isnan",))
def isnan(self):
    """True where the element is NaN."""
    return wrap(as_array(array_module(self._data).isnan(self._data)), dtypes.bool_)


@tensor_method("isinf", torch=("isinf",))
def isinf(self):
    """True where the element is ±inf."""
    return wrap(as_array(array_module(self._data).isinf(self._data)), dtypes.bool_)


@tensor_method("isfinite", torch=("isfinite",))
def isfinite(self):
    """True where the element is neither inf nor NaN."""
    return wrap(as_array(array_module(self._data).isfinite(self._data)), dtypes.bool_)


@tensor_method("isclose", torch=("isclose",))
def isclose(self, other, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False):
    """|self - other| <= atol + rtol * |other|, elementwise."""
    if self._dtype is not other._dtype:
        raise RuntimeError(f"{self._dtype.scalar_name} did not match {other._dtype.scalar_name}")
    xp = array_module(self._data)
    return wrap(
        as_array(xp.isclose(self._data, other._data, rtol=rtol, atol=atol, equal_nan=equal_nan)),
        dtypes.bool_,
    )


@tensor_method("allclose", torch=("allclose",))
def allclose(self, other, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False):
    """True if isclose holds for every element."""
    return bool(isclose(self, other, rtol, atol, equal_nan)._data.all())
