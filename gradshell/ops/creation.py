"""Creating tensors: torch.tensor, from_numpy, ones/zeros/full/empty/eye/arange/linspace,
the *_like and new_* forms, and the legacy constructors (torch.Tensor, FloatTensor, ...)."""

from __future__ import annotations

import math
import numbers
import warnings

import numpy as np

from gradshell.core import dtypes
from gradshell.core.device import Device, array_module, as_device
from gradshell.core.fma import fma64
from gradshell.core.limits import check_numel
from gradshell.core.random import get_capability
from gradshell.core.size import Size
from gradshell.core.tensor import Tensor, wrap
from gradshell.core.threads import GRAIN_SIZE, _chunks, get_num_threads
from gradshell.ops import registry


class _Defaults:
    """The device creation functions use when none is given (`%device`, `--device`)."""

    device: Device = Device("cpu")


defaults = _Defaults()


def backend_for(device) -> object:
    """The array module that holds tensors on `device` (NumPy for the CPU)."""
    d = defaults.device if device is None else as_device(device)
    if d.type == "cpu":
        return np
    from gradshell.core.backends import cuda_module

    return cuda_module(d)


def _finish(data, dtype: dtypes.DType, requires_grad: bool, device=None) -> Tensor:
    if device is not None or defaults.device.type != "cpu":
        xp = backend_for(device)
        if xp is not np:
            data = xp.asarray(data)
    t = wrap(data, dtype)
    if requires_grad:
        if dtype.category != dtypes.FLOAT:
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients"
            )
        t._requires_grad = True
    return t


def size_args(args, fname: str) -> tuple:
    """Sizes given as `f(2, 3)`, `f((2, 3))` or `f([2, 3])`, checked as PyTorch checks them."""
    if len(args) == 1 and isinstance(args[0], (tuple, list, Size)):
        args = tuple(args[0])
    n = 1
    for a in args:
        if a.__class__ is not int or a < 0:
            break
        n *= a
    else:  # the common case: plain non-negative ints
        check_numel(n)
        return args
    out = []
    for i, a in enumerate(args):
        if isinstance(a, Tensor) and a._data.ndim == 0 and a._dtype.category != dtypes.FLOAT:
            a = a.item()
        if not isinstance(a, (int, np.integer)) or isinstance(a, bool):
            raise TypeError(
                f"{fname}(): argument 'size' (position 1) must be tuple of ints, "
                f"but found element of type {type(a).__name__} at pos {i}"
                if len(args) > 1 or isinstance(a, (tuple, list))
                else f"{fname}(): argument 'size' (position 1) must be tuple of ints, not "
                f"{type(a).__name__}"
            )
        out.append(int(a))
    for s in out:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {out}")
    check_numel(math.prod(out))
    return tuple(out)


def _dtype_or_default(dtype) -> dtypes.DType:
    return dtypes.get_default_dtype() if dtype is None else dtype


def _filled(fname: str, sizes, value, dtype, device, requires_grad) -> Tensor:
    shape = size_args(sizes, fname)
    dt = _dtype_or_default(dtype)
    xp = backend_for(device)
    data = xp.empty(shape, dt.np)
    data.fill(value)
    return _finish(data, dt, requires_grad, device)


@registry.op(torch=("ones",))
def ones(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False, **kw):
    """A tensor of ones."""
    return _filled("ones", size, 1, dtype, device, requires_grad)


@registry.op(torch=("zeros",))
def zeros(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False, **kw):
    """A tensor of zeros."""
    return _filled("zeros", size, 0, dtype, device, requires_grad)


@registry.op(torch=("empty",))
def empty(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False, **kw):
    """A tensor whose values are not set (gradshell fills it with zeros)."""
    return _filled("empty", size, 0, dtype, device, requires_grad)


@registry.op(torch=("full",))
def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """A tensor filled with `fill_value` (its dtype follows the value, as in PyTorch)."""
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    if dtype is None:
        dtype = dtypes.scalar_dtype(fill_value)
    return _filled(
        "full",
        (size,) if not isinstance(size, (tuple, list)) else size,
        fill_value,
        dtype,
        device,
        requires_grad,
    )


def _like(fname: str, t: Tensor, value, dtype, device, requires_grad) -> Tensor:
    dt = t._dtype if dtype is None else dtype
    xp = array_module(t._data) if device is None else backend_for(device)
    data = xp.full(t._data.shape, value, dt.np)
    return _finish(data, dt, requires_grad, device)


@registry.op(torch=("ones_like",))
def ones_like(
    input,
    *,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,  # noqa: A002
    memory_format=None,
):
    """Ones with the shape (and by default dtype and device) of `input`."""
    return _like("ones_like", input, 1, dtype, device, requires_grad)


@registry.op(torch=("zeros_like",))
def zeros_like(
    input,
    *,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,  # noqa: A002
    memory_format=None,
):
    """Zeros with the shape of `input`."""
    return _like("zeros_like", input, 0, dtype, device, requires_grad)


@registry.op(torch=("empty_like",))
def empty_like(
    input,
    *,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,  # noqa: A002
    memory_format=None,
):
    """An unset tensor (zeros in gradshell) with the shape of `input`."""
    return _like("empty_like", input, 0, dtype, device, requires_grad)


@registry.op(torch=("full_like",))
def full_like(
    input,
    fill_value,
    *,
    dtype=None,
    layout=None,
    device=None,  # noqa: A002
    requires_grad=False,
    memory_format=None,
):
    """`fill_value` everywhere, with the shape of `input`."""
    return _like("full_like", input, fill_value, dtype, device, requires_grad)


@registry.op(torch=("eye",))
def eye(
    n: int,
    m: int | None = None,
    *,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
) -> Tensor:
    """The n×m identity matrix."""
    m = n if m is None else m
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    check_numel(n * m)
    dt = _dtype_or_default(dtype)
    return _finish(backend_for(device).eye(n, m, dtype=dt.np), dt, requires_grad, device)


@registry.op(torch=("arange",))
def arange(
    start, end=None, step=1, *, out=None, dtype=None, layout=None, device=None, requires_grad=False
) -> Tensor:
    """Values from start (default 0) up to but excluding end, every `step`."""
    if end is None:
        start, end = 0, start
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    start, end, step = vals
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0 and end != start:
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    if dtype is None:
        dtype = (
            dtypes.get_default_dtype() if any(isinstance(v, float) for v in vals) else dtypes.int64
        )
    n = max(0, math.ceil((end - start) / step))
    check_numel(n)
    xp = backend_for(device)
    if dtype.category == dtypes.FLOAT and dtype.np in (np.float32, np.float64):
        data = xp.asarray(arange_float(start, step, n, dtype.np))
    elif dtype.category == dtypes.FLOAT:
        # half precision: start + i*step in float (its accumulate type), then cast
        data = (start + xp.arange(n, dtype=np.float64) * step).astype(dtype.np)
    else:
        data = (start + xp.arange(n, dtype=np.int64) * int(step)).astype(dtype.np)
    return _finish(data, dtype, requires_grad, device)


#: the elements of one AVX2 vector register (32 bytes)
_VEC_BYTES = 32


def arange_float(start: float, step: float, n: int, np_dtype) -> np.ndarray:
    """PyTorch's float32/float64 arange on the CPU, bit for bit.

    ATen's kernel computes in double. Each thread's share is filled two vectors at a
    time: a vector's first value is `start + step*i` rounded to the dtype, and the others
    that value plus `k*step` (k = 1, 2, ...) in double, rounded; the leftover elements
    are `start + step*i` each. The AVX2 build fuses these multiply-adds (so does
    gradshell under the "avx2" capability); PyTorch's portable build does not.
    """
    t = np.dtype(np_dtype).type
    fused = get_capability() == "avx2"

    def madd(a, b, c):
        return fma64(a, b, c) if fused else np.asarray(a) * b + c

    width = _VEC_BYTES // np.dtype(np_dtype).itemsize
    out = np.empty(n, np_dtype)
    for begin, end in _chunks(n, GRAIN_SIZE, get_num_threads()):
        vectored = (end - begin) // (2 * width) * 2 * width
        if vectored:
            firsts = np.arange(begin, begin + vectored, width, dtype=np.float64)
            ones = np.ones_like(firsts)
            base = madd(np.full_like(firsts, step), firsts, ones * start).astype(t)
            k = np.arange(width, dtype=np.float64)[None, :]
            lanes = madd(k * np.ones((len(firsts), 1)), step, base.astype(np.float64)[:, None])
            out[begin : begin + vectored] = lanes.reshape(-1).astype(t)
        rest = np.arange(begin + vectored, end, dtype=np.float64)
        if rest.size:
            out[begin + vectored : end] = madd(np.full_like(rest, step), rest, rest * 0 + start)
    return out


@registry.op(torch=("range",))
def range_(start=0, end=None, step=1, *, dtype=None, device=None, requires_grad=False):
    """Deprecated torch.range: like arange but includes `end`."""
    warnings.warn(
        "torch.range is deprecated and will be removed in a future release because its "
        "behavior is inconsistent with Python's range builtin. Instead, use torch.arange, "
        "which produces values in [start, end).",
        UserWarning,
        stacklevel=2,
    )
    dt = _dtype_or_default(dtype)
    n = int(math.floor((end - start) / step)) + 1
    data = (start + backend_for(device).arange(n, dtype=np.float64) * step).astype(dt.np)
    return _finish(data, dt, requires_grad, device)


@registry.op(torch=("linspace",))
def linspace(
    start, end, steps: int, *, out=None, dtype=None, layout=None, device=None, requires_grad=False
) -> Tensor:
    """`steps` evenly spaced values from start to end inclusive."""
    if not isinstance(steps, int) or steps < 0:
        raise RuntimeError("linspace(): argument 'steps' must be a non-negative integer")
    check_numel(steps)
    dt = _dtype_or_default(dtype)
    xp = backend_for(device)
    start = start.item() if isinstance(start, Tensor) else start
    end = end.item() if isinstance(end, Tensor) else end
    if dt.category == dtypes.FLOAT and steps > 1:
        data = _linspace_float(start, end, steps, dt.np)
        return _finish(data, dt, requires_grad, device)
    if steps == 1:
        data = xp.full((1,), start, np.float64)
    else:
        # integer results: computed in double, then truncated
        step = (end - start) / (steps - 1)
        idx = xp.arange(steps, dtype=np.float64)
        half = steps // 2
        data = xp.where(idx < half, start + step * idx, end - step * (steps - 1 - idx))
    if dt.category != dtypes.FLOAT:
        data = xp.trunc(data)
    return _finish(data.astype(dt.np), dt, requires_grad, device)


def _linspace_float(start: float, end: float, steps: int, np_dtype) -> np.ndarray:
    """PyTorch's float linspace, bit for bit: the first half as start + step*i and the
    second as end - step*(steps-1-i), in the output dtype — fused multiply-adds for
    float32/float64, every operation rounded to half for float16."""
    t = np.dtype(np_dtype).type
    idx = np.arange(steps)
    if t is np.float16:
        f32 = np.float32
        s, e = t(start), t(end)
        step = t(f32(e - s) / f32(steps - 1))
        first = (s + (step * idx.astype(t)).astype(t)).astype(t)
        second = (e - (step * (steps - 1 - idx).astype(t)).astype(t)).astype(t)
        return np.where(idx < steps // 2, first, second)
    from gradshell.core.fma import fma32, fma64

    s, e = t(start), t(end)
    step = t((e - s) / t(steps - 1))
    fma = fma64 if t is np.float64 else fma32
    first = fma(np.full(steps, step, t), idx.astype(t), np.full(steps, s, t))
    back = (steps - 1 - idx).astype(t)
    second = fma(np.full(steps, -step, t), back, np.full(steps, e, t))
    return np.where(idx < steps // 2, first, second)


@registry.op(torch=("logspace",))
def logspace(
    start, end, steps: int, base: float = 10.0, *, dtype=None, device=None, requires_grad=False
) -> Tensor:
    """`steps` values from base**start to base**end, evenly spaced in the exponent."""
    e = linspace(start, end, steps, dtype=dtypes.float64)
    dt = _dtype_or_default(dtype)
    return _finish((base**e._data).astype(dt.np), dt, requires_grad, device)


# -- torch.tensor ------------------------------------------------------------------------------
def _infer(data, depth: int = 0):
    """(shape, dtype) of nested Python data, with PyTorch's errors for ragged input."""
    if isinstance(data, Tensor):
        return data._data.shape, data._dtype
    if isinstance(data, np.ndarray):
        return data.shape, dtypes.from_numpy(data.dtype)
    if isinstance(data, np.generic) and not isinstance(data, np.complexfloating):
        return (), dtypes.from_numpy(data.dtype)  # a NumPy scalar keeps its dtype
    if isinstance(data, bool):
        return (), dtypes.bool_
    if isinstance(data, (numbers.Integral,)):
        return (), dtypes.int64
    if isinstance(data, numbers.Real):
        return (), dtypes.get_default_dtype()
    if isinstance(data, complex):
        raise NotImplementedError("gradshell does not support complex tensors")
    if isinstance(data, (list, tuple)):
        if not data:
            return (0,), None
        shapes_dtypes = [_infer(x, depth + 1) for x in data]
        first = shapes_dtypes[0][0]
        for s, _ in shapes_dtypes[1:]:
            if s != first:
                if len(s) != len(first):
                    raise ValueError(
                        f"expected sequence of length {first[0] if first else 0} at dim "
                        f"{depth + 1} (got {s[0] if s else 0})"
                        if s and first
                        else "setting an array element with a sequence."
                    )
                for i, (a, b) in enumerate(zip(first, s, strict=True)):
                    if a != b:
                        raise ValueError(
                            f"expected sequence of length {a} at dim {depth + 1 + i} (got {b})"
                        )
        dt = None
        for _, d in shapes_dtypes:
            if d is None:
                continue
            dt = d if dt is None else dtypes.promote_types(dt, d)
        return (len(data),) + first, dt
    raise TypeError(f"Could not infer dtype of {type(data).__name__}")


def _to_nested(data):
    if isinstance(data, Tensor):
        from gradshell.core.device import to_numpy

        return to_numpy(data._data)
    if isinstance(data, (list, tuple)):
        return [_to_nested(x) for x in data]
    return data


@registry.op(torch=("tensor",))
def tensor(
    data, *, dtype=None, device=None, requires_grad: bool = False, pin_memory: bool = False
) -> Tensor:
    """A new tensor holding a copy of `data` (numbers, nested lists, arrays, tensors)."""
    if isinstance(data, Tensor):
        warnings.warn(
            "To copy construct from a tensor, it is recommended to use "
            "sourceTensor.detach().clone() or sourceTensor.detach().clone().requires_grad_(True), "
            "rather than torch.tensor(sourceTensor).",
            UserWarning,
            stacklevel=2,
        )
        dt = data._dtype if dtype is None else dtype
        xp = array_module(data._data) if device is None else backend_for(device)
        return _finish(xp.array(data._data, dtype=dt.np, copy=True), dt, requires_grad, device)
    shape, inferred = _infer(data)
    if inferred is None:
        inferred = dtypes.get_default_dtype()
    dt = inferred if dtype is None else dtype
    check_numel(math.prod(shape))
    if isinstance(data, np.ndarray):
        arr = np.array(data, dtype=dt.np, copy=True)
    else:
        nested = _to_nested(data)
        if dt.category == dtypes.INT and inferred.category == dtypes.FLOAT:
            arr = np.trunc(np.array(nested, dtype=np.float64)).astype(dt.np)
        else:
            arr = np.array(nested, dtype=dt.np)
    if arr.shape != shape:
        arr = arr.reshape(shape)
    return _finish(arr, dt, requires_grad, device)


@registry.op(torch=("as_tensor",))
def as_tensor(data, dtype=None, device=None) -> Tensor:
    """`data` as a tensor, sharing memory with tensors and NumPy arrays where possible."""
    if isinstance(data, Tensor):
        if (dtype is None or dtype is data._dtype) and device is None:
            return data
        return data.to(dtype=dtype, device=device)
    if isinstance(data, np.ndarray) and (dtype is None or dtypes.from_numpy(data.dtype) is dtype):
        return from_numpy(data)
    return tensor(data, dtype=dtype, device=device)


@registry.op(torch=("from_numpy",))
def from_numpy(a) -> Tensor:
    """A tensor sharing memory with the NumPy array `a`."""
    if not isinstance(a, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(a).__name__})")
    dt = dtypes.from_numpy(a.dtype)
    if any(s < 0 for s in a.strides):
        raise ValueError(
            "At least one stride in the given numpy array is negative, and tensors with negative "
            "strides are not currently supported. (You can probably work around this by making "
            "a copy of your array  with array.copy().) "
        )
    return wrap(a, dt)


# -- the legacy constructors -------------------------------------------------------------------
_LEGACY_NEW_SIGNATURES = (
    " * (*, torch.device device = None)\n"
    "      didn't match because some of the keywords were incorrect: {kw}\n"
    " * (torch.Storage storage)\n"
    " * (Tensor other)\n"
    " * (tuple of ints size, *, torch.device device = None)\n"
    " * (object data, *, torch.device device = None)\n"
)


def legacy_new(dtype: dtypes.DType, args: tuple, kwargs: dict) -> Tensor:
    """torch.Tensor(...) / torch.FloatTensor(...): sizes, a sequence, an array or a tensor."""
    device = kwargs.pop("device", None)
    if kwargs:
        got = ", ".join(
            [type(a).__name__ for a in args]
            + [f"{k}={type(v).__name__}" for k, v in kwargs.items()]
        )
        raise TypeError(
            f"new() received an invalid combination of arguments - got ({got}), but expected one "
            "of:\n" + _LEGACY_NEW_SIGNATURES.format(kw=", ".join(kwargs))
        )
    if not args:
        return _finish(np.zeros((0,), dtype.np), dtype, False, device)
    if len(args) == 1:
        a = args[0]
        if isinstance(a, Tensor):
            if a._dtype is not dtype:
                raise TypeError(f"expected {dtype} (got {a._dtype})")
            return a.detach()
        if isinstance(a, np.ndarray):
            return tensor(a, dtype=dtype, device=device)
        if isinstance(a, (list, tuple)) and not isinstance(a, Size):
            return tensor(a, dtype=dtype, device=device)
        if isinstance(a, Size):
            args = tuple(a)
        elif not isinstance(a, (int, np.integer)) or isinstance(a, bool):
            raise TypeError(f"new(): data must be a sequence (got {type(a).__name__})")
    shape = size_args(args, "new")
    return _finish(np.zeros(shape, dtype.np), dtype, False, device)


def legacy_tensor_constructor(cls, *args, **kwargs) -> Tensor:
    """`torch.Tensor(...)`: the legacy constructor, creating default-dtype tensors."""
    return legacy_new(dtypes.get_default_dtype(), args, kwargs)


class _LegacyTypeMeta(type):
    def __instancecheck__(cls, obj) -> bool:
        return (
            isinstance(obj, Tensor)
            and obj._dtype is cls.dtype
            and ((obj.device.type == "cuda") == cls.is_cuda)
        )

    def __repr__(cls) -> str:
        return f"<class '{cls.__module__}.{cls.__name__}'>"


def _legacy_type(dt: dtypes.DType, cuda: bool = False):
    def new(cls, *args, **kwargs):
        if cuda:
            kwargs.setdefault("device", "cuda")
        return legacy_new(dt, args, kwargs)

    name = dt.legacy_name
    cls = _LegacyTypeMeta(
        name,
        (),
        {
            "__new__": new,
            "dtype": dt,
            "is_cuda": cuda,
            "__doc__": f"The legacy constructor for {dt} tensors.",
        },
    )
    cls.__module__ = "torch.cuda" if cuda else "torch"
    return cls


FloatTensor = _legacy_type(dtypes.float32)
DoubleTensor = _legacy_type(dtypes.float64)
HalfTensor = _legacy_type(dtypes.float16)
LongTensor = _legacy_type(dtypes.int64)
IntTensor = _legacy_type(dtypes.int32)
ShortTensor = _legacy_type(dtypes.int16)
CharTensor = _legacy_type(dtypes.int8)
ByteTensor = _legacy_type(dtypes.uint8)
BoolTensor = _legacy_type(dtypes.bool_)
LEGACY_TYPES = {
    c.__name__: c
    for c in (
        FloatTensor,
        DoubleTensor,
        HalfTensor,
        LongTensor,
        IntTensor,
        ShortTensor,
        CharTensor,
        ByteTensor,
        BoolTensor,
    )
}
for _name, _cls in LEGACY_TYPES.items():
    registry.function(_name, _cls)
CUDA_LEGACY_TYPES = {name: _legacy_type(c.dtype, cuda=True) for name, c in LEGACY_TYPES.items()}


# -- tensor.new_* ------------------------------------------------------------------------------
def _new_like(self: Tensor, shape, value, dtype, device, requires_grad):
    dt = self._dtype if dtype is None else dtype
    xp = array_module(self._data) if device is None else backend_for(device)
    return _finish(xp.full(size_args(shape, "new"), value, dt.np), dt, requires_grad, device)


def _new_ones(self, *size, dtype=None, device=None, requires_grad=False, **kw):
    """Returns a tensor of the given size filled with 1, with this tensor's dtype and
    device unless told otherwise."""
    return _new_like(self, size, 1, dtype, device, requires_grad)


def _new_zeros(self, *size, dtype=None, device=None, requires_grad=False, **kw):
    """Returns a tensor of the given size filled with 0, with this tensor's dtype and
    device unless told otherwise."""
    return _new_like(self, size, 0, dtype, device, requires_grad)


def _new_empty(self, *size, dtype=None, device=None, requires_grad=False, **kw):
    """Returns a tensor of the given size with uninitialized data (zeros here), with this
    tensor's dtype and device unless told otherwise."""
    return _new_like(self, size, 0, dtype, device, requires_grad)


def _new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False, **kw):
    """Returns a tensor of size `size` filled with `fill_value`, with this tensor's dtype
    and device unless told otherwise."""
    return _new_like(
        self,
        (size,) if not isinstance(size, (tuple, list)) else size,
        fill_value,
        dtype,
        device,
        requires_grad,
    )


def _new_tensor(self, data, *, dtype=None, device=None, requires_grad=False, **kw):
    """Returns a new tensor with `data` as its data, with this tensor's dtype and device
    unless told otherwise (a copy: it never shares memory with `data`)."""
    dt = self._dtype if dtype is None else dtype
    if isinstance(data, Tensor):
        warnings.warn(
            "To copy construct from a tensor, it is recommended to use "
            "sourceTensor.detach().clone() or sourceTensor.detach().clone().requires_grad_(True), "
            "rather than tensor.new_tensor(sourceTensor).",
            UserWarning,
            stacklevel=2,
        )
    return tensor(_to_nested(data), dtype=dt, device=device, requires_grad=requires_grad)


registry.method("new_ones", _new_ones)
registry.method("new_zeros", _new_zeros)
registry.method("new_empty", _new_empty)
registry.method("new_full", _new_full)
registry.method("new_tensor", _new_tensor)


def _new(self, *args, **kw):
    """The legacy constructor: a tensor of this tensor's type from sizes or data
    (`x.new(2, 3)`, `x.new([1, 2])`); modern code uses new_empty or new_tensor."""
    return legacy_new(self._dtype, args, kw)


registry.method("new", _new)
