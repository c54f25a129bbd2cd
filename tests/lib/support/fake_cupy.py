"""A test double for CuPy: arrays that live "on the device" (really NumPy arrays inside a
wrapper) and refuse what real CuPy arrays refuse — implicit conversion to NumPy, being
mixed with host arrays, and NumPy functions called on them. Running gradshell with this
backend finds every stray `np.` call and hidden host round trip without a GPU.
"""

from __future__ import annotations

import numbers
import operator
import types

import numpy as np

_HOST_ERROR = "Unsupported type <class 'numpy.ndarray'>"


class DeviceArray:
    """An array on the fake device: NumPy data that cannot be used as a host array."""

    __slots__ = ("_a",)
    __array_priority__ = 10_000

    def __init__(self, a: np.ndarray) -> None:
        self._a = a

    # -- what CuPy arrays refuse --------------------------------------------------------------
    def __array__(self, *args, **kwargs):
        raise TypeError(
            "Implicit conversion to a NumPy array is not allowed. Please use `.get()` to "
            "construct a NumPy array explicitly."
        )

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        raise TypeError(f"fake CuPy: NumPy ufunc np.{ufunc.__name__} called on a device array")

    def __array_function__(self, func, types_, args, kwargs):
        raise TypeError(f"fake CuPy: NumPy function np.{func.__name__} called on a device array")

    def __iter__(self):
        raise TypeError("fake CuPy: iterating a device array copies it to the host")

    # -- explicit transfer ----------------------------------------------------------------
    def get(self) -> np.ndarray:
        """A host copy (like cupy.ndarray.get())."""
        return self._a.copy()

    @property
    def device(self):
        return types.SimpleNamespace(id=0)

    # -- array protocol -------------------------------------------------------------------
    @property
    def shape(self):
        return self._a.shape

    @shape.setter
    def shape(self, value) -> None:  # reshape in place; AttributeError if it would copy
        self._a.shape = value

    dtype = property(lambda self: self._a.dtype)
    ndim = property(lambda self: self._a.ndim)
    size = property(lambda self: self._a.size)
    strides = property(lambda self: self._a.strides)
    itemsize = property(lambda self: self._a.itemsize)
    nbytes = property(lambda self: self._a.nbytes)
    T = property(lambda self: DeviceArray(self._a.T))
    flags = property(lambda self: self._a.flags)
    base = property(lambda self: None if self._a.base is None else DeviceArray(self._a.base))

    @property
    def __cuda_array_interface__(self):
        return self._a.__array_interface__

    def __getattr__(self, name):
        attr = getattr(self._a, name)
        if callable(attr):
            return lambda *a, **k: wrap(attr(*unwrap(a), **unwrap(k)))
        return wrap(attr)

    def __getitem__(self, key):
        return wrap(self._a[unwrap(key)])

    def __setitem__(self, key, value):
        self._a[unwrap(key)] = unwrap(value)

    def __len__(self) -> int:
        return len(self._a)

    def __bool__(self) -> bool:
        return bool(self._a)

    def __float__(self) -> float:
        return float(self._a)

    def __int__(self) -> int:
        return int(self._a)

    def __index__(self) -> int:
        return operator.index(self._a)

    def __repr__(self) -> str:
        return f"DeviceArray({self._a!r})"

    def __hash__(self):
        return id(self)


def _binary(op):
    def method(self, other):
        return wrap(op(self._a, unwrap(other)))

    return method


def _rbinary(op):
    def method(self, other):
        return wrap(op(unwrap(other), self._a))

    return method


def _inplace(op):
    def method(self, other):
        self._a = op(self._a, unwrap(other))
        return self

    return method


for _name, _op in [
    ("add", operator.add),
    ("sub", operator.sub),
    ("mul", operator.mul),
    ("truediv", operator.truediv),
    ("floordiv", operator.floordiv),
    ("mod", operator.mod),
    ("pow", operator.pow),
    ("matmul", operator.matmul),
    ("and", operator.and_),
    ("or", operator.or_),
    ("xor", operator.xor),
]:
    setattr(DeviceArray, f"__{_name}__", _binary(_op))
    setattr(DeviceArray, f"__r{_name}__", _rbinary(_op))
    setattr(DeviceArray, f"__i{_name}__", _inplace(getattr(operator, f"i{_name}")))
for _name, _op in [
    ("eq", operator.eq),
    ("ne", operator.ne),
    ("lt", operator.lt),
    ("le", operator.le),
    ("gt", operator.gt),
    ("ge", operator.ge),
]:
    setattr(DeviceArray, f"__{_name}__", _binary(_op))
DeviceArray.__neg__ = lambda self: DeviceArray(-self._a)
DeviceArray.__pos__ = lambda self: DeviceArray(+self._a)
DeviceArray.__abs__ = lambda self: DeviceArray(abs(self._a))
DeviceArray.__invert__ = lambda self: DeviceArray(~self._a)


def unwrap(x, allow_host: bool = False):
    """Device arrays → their NumPy data; host arrays are refused (as CuPy refuses them)."""
    if isinstance(x, DeviceArray):
        return x._a
    if isinstance(x, np.ndarray) and not allow_host:
        raise TypeError(_HOST_ERROR)
    if isinstance(x, (list, tuple)):
        return type(x)(unwrap(v, allow_host) for v in x)
    if isinstance(x, dict):
        return {k: unwrap(v, allow_host) for k, v in x.items()}
    return x


def wrap(x):
    """NumPy results → device arrays (scalars become 0-d device arrays, as in CuPy)."""
    if isinstance(x, np.ndarray):
        return DeviceArray(x)
    if isinstance(x, np.generic):
        return DeviceArray(np.asarray(x))
    if isinstance(x, tuple):
        return tuple(wrap(v) for v in x)
    if isinstance(x, list) and x and isinstance(x[0], np.ndarray):
        return [wrap(v) for v in x]
    return x


class _Ufunc:
    def __init__(self, uf) -> None:
        self._uf = uf
        self.__name__ = uf.__name__

    def __call__(self, *args, **kwargs):
        out = kwargs.get("out")
        res = self._uf(*unwrap(args), **unwrap(kwargs))
        return out if out is not None else wrap(res)

    def reduce(self, *a, **k):
        return wrap(self._uf.reduce(*unwrap(a), **unwrap(k)))

    def accumulate(self, *a, **k):
        return wrap(self._uf.accumulate(*unwrap(a), **unwrap(k)))

    def at(self, a, idx, b=None):
        args = (unwrap(a), unwrap(idx)) + (() if b is None else (unwrap(b),))
        self._uf.at(*args)


_HOST_TO_DEVICE = {"asarray", "array", "ascontiguousarray"}


class FakeCuPy(types.ModuleType):
    """The module object standing in for `cupy`."""

    ndarray = DeviceArray

    def __init__(self) -> None:
        super().__init__("fake_cupy")
        self.cuda = types.SimpleNamespace(
            runtime=types.SimpleNamespace(
                getDeviceCount=lambda: 1,
                getDeviceProperties=lambda i: {"name": b"Fake CUDA Device (gradshell tests)"},
            ),
            Device=lambda i=0: types.SimpleNamespace(
                id=i, use=lambda: None, synchronize=lambda: None
            ),
        )
        self.random = types.SimpleNamespace(seed=lambda s=None: None)

    def __getattr__(self, name):
        obj = getattr(np, name)
        if isinstance(obj, np.ufunc):
            return _Ufunc(obj)
        if isinstance(obj, (type, numbers.Number)) or name in ("newaxis", "pi", "e", "inf", "nan"):
            return obj
        if callable(obj):
            allow = name in _HOST_TO_DEVICE

            def fn(*args, **kwargs):
                return wrap(obj(*unwrap(args, allow), **unwrap(kwargs, allow)))

            fn.__name__ = name
            return fn
        return obj

    def asnumpy(self, a):
        """Device → host copy."""
        return a.get() if isinstance(a, DeviceArray) else np.asarray(a)


fake_cupy = FakeCuPy()
