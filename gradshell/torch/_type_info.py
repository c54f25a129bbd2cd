"""torch.finfo and torch.iinfo: the numeric limits of a floating point or integer dtype,
with PyTorch's attributes, printout (six significant digits) and errors."""

from __future__ import annotations

import numpy as np

from gradshell.core import dtypes
from gradshell.core.dtypes import DType

_MISSING = object()


def _dtype_arg(fname: str, type_) -> DType:
    """The dtype argument, or PyTorch's argument errors."""
    if type_ is _MISSING:
        raise TypeError(f'{fname}() missing 1 required positional arguments: "type"')
    if not isinstance(type_, DType):
        raise TypeError(
            f"{fname}(): argument 'type' (position 1) must be torch.dtype, "
            f"not {type(type_).__name__}"
        )
    return type_


def _g(x) -> str:
    """A number as PyTorch's info printout writes it (C's %g)."""
    return f"{x:g}"


# bfloat16 has float32's exponent and an 8-bit significand (NumPy has no such type)
_BFLOAT16 = {
    "bits": 16,
    "eps": 2.0**-7,
    "max": float(np.float32(3.3895313892515355e38)),
    "tiny": 2.0**-126,
    "resolution": 0.01,
}


def _float_limits(dt: DType) -> dict:
    if dt is dtypes.bfloat16:
        return dict(_BFLOAT16)
    fi = np.finfo(dt.np)
    return {
        "bits": int(fi.bits),
        "eps": float(fi.eps),
        "max": float(fi.max),
        "tiny": float(fi.smallest_normal),
        "resolution": 10.0 ** -int(fi.precision),
    }


class finfo:  # noqa: N801 - PyTorch's name
    """Machine limits of a floating point dtype (default: the default dtype)."""

    __module__ = "torch"

    def __hash__(self) -> int:
        raise TypeError("unhashable type: 'torch.finfo'")

    def __init__(self, type=_MISSING) -> None:  # noqa: A002 - PyTorch's keyword
        if type is _MISSING:
            type = dtypes.get_default_dtype()  # noqa: A001
        dt = _dtype_arg("finfo", type)
        if dt.category != dtypes.FLOAT:
            raise TypeError(
                "torch.finfo() requires a floating point input type. Use torch.iinfo to "
                "handle 'torch.finfo'"
            )
        lim = _float_limits(dt)
        object.__setattr__(self, "_values", lim | {"dtype": dt.name})

    bits = property(lambda self: self._values["bits"])
    eps = property(lambda self: self._values["eps"])
    max = property(lambda self: self._values["max"])
    min = property(lambda self: -self._values["max"])
    tiny = property(lambda self: self._values["tiny"])
    smallest_normal = property(lambda self: self._values["tiny"])
    resolution = property(lambda self: self._values["resolution"])
    dtype = property(lambda self: self._values["dtype"])

    def __setattr__(self, name: str, value) -> None:
        raise AttributeError(f"attribute '{name}' of 'torch.finfo' objects is not writable")

    def __eq__(self, other) -> bool:
        return isinstance(other, finfo) and self._values == other._values

    def __repr__(self) -> str:
        return (
            f"finfo(resolution={_g(self.resolution)}, min={_g(self.min)}, max={_g(self.max)}, "
            f"eps={_g(self.eps)}, smallest_normal={_g(self.smallest_normal)}, "
            f"tiny={_g(self.tiny)}, dtype={self.dtype})"
        )


class iinfo:  # noqa: N801 - PyTorch's name
    """Machine limits of an integer dtype."""

    __module__ = "torch"

    def __hash__(self) -> int:
        raise TypeError("unhashable type: 'torch.iinfo'")

    def __init__(self, type=_MISSING) -> None:  # noqa: A002 - PyTorch's keyword
        dt = _dtype_arg("iinfo", type)
        if dt is dtypes.bool_:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if dt.category != dtypes.INT:
            raise TypeError(
                "torch.iinfo() requires an integer input type. Use torch.finfo to handle "
                "'torch.iinfo'"
            )
        ii = np.iinfo(dt.np)
        values = {"bits": int(ii.bits), "min": int(ii.min), "max": int(ii.max), "dtype": dt.name}
        object.__setattr__(self, "_values", values)

    bits = property(lambda self: self._values["bits"])
    max = property(lambda self: self._values["max"])
    min = property(lambda self: self._values["min"])
    dtype = property(lambda self: self._values["dtype"])

    def __setattr__(self, name: str, value) -> None:
        raise AttributeError(f"attribute '{name}' of 'torch.iinfo' objects is not writable")

    def __eq__(self, other) -> bool:
        return isinstance(other, iinfo) and self._values == other._values

    def __repr__(self) -> str:
        return f"iinfo(min={_g(self.min)}, max={_g(self.max)}, dtype={self.dtype})"
