"""Changing dtype or device: to(), float(), double(), long(), ..., type(), cpu(), cuda()."""

from __future__ import annotations

from gradshell.core import dtypes
from gradshell.core.device import Device, as_device, device_of, to_numpy
from gradshell.ops.base import Node, Tensor, install, needs_grad, record, tensor_method, wrap
from gradshell.ops.explanation import (
    Ctx,
    Formula,
    const,
)


class ToCopyBackward0(Node):
    """A dtype/device copy: convert the gradient back."""

    legacy_name_02 = "TypeBackward"

    def backward(self, g):
        return (g.to(dtype=self.dtype, device=self.device),)

    def explain(self, c: Ctx) -> Formula:
        return Formula(f"{c.sym(0)} converted", [const(1)])


def _convert(self: Tensor, dtype: dtypes.DType | None, device: Device | None, copy: bool):
    dt = self._dtype if dtype is None else dtype
    src_dev = device_of(self._data)
    dst_dev = src_dev if device is None else device
    if dst_dev.type == "cuda" and dst_dev.index is None:
        dst_dev = Device("cuda", 0)
    same = dt is self._dtype and dst_dev == src_dev
    if same and not copy:
        return self
    data = self._data
    if dst_dev != src_dev:
        if dst_dev.type == "cpu":
            data = to_numpy(data)
        else:
            from gradshell.core.backends import cuda_module

            data = cuda_module(dst_dev).asarray(data)
    if data.dtype != dt.np or data is self._data:
        data = data.astype(dt.np, copy=True)
    out = wrap(data, dt)
    if needs_grad(self):
        if dt.category != dtypes.FLOAT:
            return out
        node = ToCopyBackward0()
        node.dtype = self._dtype
        node.device = src_dev
        record(node, (self,), out)
    return out


_TO_SIGNATURES = (
    " * (torch.device device = None, torch.dtype dtype = None, bool non_blocking = False, "
    "bool copy = False, *, torch.memory_format memory_format = None)\n"
    " * (torch.dtype dtype, bool non_blocking = False, bool copy = False, *, "
    "torch.memory_format memory_format = None)\n"
    " * (Tensor tensor, bool non_blocking = False, bool copy = False, *, "
    "torch.memory_format memory_format = None)\n"
)


def _arg_type(value) -> str:
    """A value's type as PyTorch's argument parser names it."""
    if isinstance(value, dtypes.DType):
        return "torch.dtype"
    if isinstance(value, Device):
        return "torch.device"
    if isinstance(value, Tensor):
        return "Tensor"
    return type(value).__name__


def _invalid_to(args, kwargs) -> TypeError:
    """PyTorch's error for arguments no signature of `to` takes (`requires_grad=True`, a
    0.3-era spelling): the given types, then the signatures it accepts."""
    given = [_arg_type(a) for a in args]
    # the parser lists keywords last-given first; with no positional argument the list
    # keeps its trailing separator
    named = [f"{k}={_arg_type(v)}" for k, v in reversed(list(kwargs.items()))]
    got = ", ".join(given + named) + (", " if named and not given else "")
    return TypeError(
        f"to() received an invalid combination of arguments - got ({got}), but expected "
        f"one of:\n{_TO_SIGNATURES}"
    )


def _parse_to(args, kwargs):
    given = dict(kwargs)
    dtype = kwargs.pop("dtype", None)
    device = kwargs.pop("device", None)
    copy = kwargs.pop("copy", False)
    kwargs.pop("non_blocking", None)
    kwargs.pop("memory_format", None)
    if kwargs:
        raise _invalid_to(args, given)
    for a in args:
        if isinstance(a, dtypes.DType):
            dtype = a
        elif isinstance(a, Tensor):
            dtype, device = a._dtype, a.device
        elif isinstance(a, (str, Device, int)) and not isinstance(a, bool):
            device = a
        elif isinstance(a, bool):
            continue
        else:
            raise TypeError(
                f"to() received an invalid combination of arguments - got ({type(a).__name__})"
            )
    return dtype, None if device is None else as_device(device), copy


@tensor_method("to")
def to(self, *args, **kwargs):
    """This tensor with another dtype and/or device (itself when nothing changes)."""
    dtype, device, copy = _parse_to(args, dict(kwargs))
    return _convert(self, dtype, device, copy)


def _caster(name: str, dt: dtypes.DType):
    def cast(self, memory_format=None):
        return _convert(self, dt, None, False)

    cast.__name__ = name
    cast.__doc__ = f"This tensor as {dt} (itself if it already is)."
    return cast


for _n, _dt in (
    ("float", dtypes.float32),
    ("double", dtypes.float64),
    ("half", dtypes.float16),
    ("long", dtypes.int64),
    ("int", dtypes.int32),
    ("short", dtypes.int16),
    ("char", dtypes.int8),
    ("byte", dtypes.uint8),
    ("bool", dtypes.bool_),
):
    install(_n, _caster(_n, _dt))


def legacy_type_name(t: Tensor) -> str:
    """'torch.FloatTensor', 'torch.cuda.LongTensor', ..."""
    prefix = "torch.cuda." if t.device.type == "cuda" else "torch."
    return prefix + t._dtype.legacy_name


@tensor_method("type")
def type_(self, dtype=None, non_blocking: bool = False, **kwargs):
    """With no argument, the legacy type name; else this tensor converted to that type."""
    if dtype is None:
        return legacy_type_name(self)
    if isinstance(dtype, str):
        name = dtype
        cuda = name.startswith("torch.cuda.")
        base = name.split(".")[-1]
        match = [d for d in dtypes.ALL if d.legacy_name == base]
        if not match:
            raise ValueError(f"invalid type: '{name}'")
        return _convert(self, match[0], Device("cuda", 0) if cuda else None, False)
    if isinstance(dtype, dtypes.DType):
        return _convert(self, dtype, None, False)
    dt = getattr(dtype, "dtype", None)
    if isinstance(dt, dtypes.DType):
        cuda = getattr(dtype, "is_cuda", False)
        return _convert(self, dt, Device("cuda", 0) if cuda else None, False)
    raise ValueError(f"invalid type: '{dtype}'")


@tensor_method("type_as")
def type_as(self, other: Tensor) -> Tensor:
    """This tensor converted to `other`'s dtype."""
    return _convert(self, other._dtype, other.device, False)


@tensor_method("cpu")
def cpu(self, memory_format=None) -> Tensor:
    """This tensor in host memory."""
    return _convert(self, None, Device("cpu"), False)


@tensor_method("cuda")
def cuda(self, device=None, non_blocking: bool = False, memory_format=None) -> Tensor:
    """This tensor on a CUDA device (needs CuPy and a GPU)."""
    d = Device("cuda", 0) if device is None else as_device(device)
    if d.type != "cuda":
        raise RuntimeError(f"Invalid device, must be cuda device: {d}")
    return _convert(self, None, d, False)
