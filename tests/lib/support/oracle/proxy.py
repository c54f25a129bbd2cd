"""Proxies for PyTorch objects: every operation a test makes on one goes through the
oracle (`engine`), which runs it on real PyTorch and records the answer, or replays the
recorded answer when PyTorch is not there.

A proxy has no state of its own besides its label; `_o_real` holds the PyTorch object
while recording. Dunder lookups Python makes implicitly (NumPy's `__array_interface__`
probes, `__length_hint__`) are answered "not there" without an event, so that a
recording does not depend on the NumPy or Python version that replays it.
"""

from __future__ import annotations

#: dunder attributes read explicitly by tests, forwarded as events
_FORWARDED_DUNDERS = frozenset(
    {
        "__class__",
        "__name__",
        "__qualname__",
        "__module__",
        "__doc__",
        "__version__",
        "__deepcopy__",
        "__copy__",
    }
)


class Proxy:
    """A PyTorch object seen through the oracle."""

    __slots__ = ("_o_label", "_o_real", "__weakref__")
    __array_priority__ = 1000  # NumPy defers binary operators to us, as it does to tensors

    def __init__(self, label: str, real=None) -> None:
        object.__setattr__(self, "_o_label", label)
        object.__setattr__(self, "_o_real", real)

    def _o(self, op: str, *args, **kwargs):
        from support.oracle.engine import ORACLE

        return ORACLE.operate(self, op, args, kwargs)

    # attributes
    def __getattr__(self, name: str):
        if name.startswith("__") and name.endswith("__") and name not in _FORWARDED_DUNDERS:
            raise AttributeError(name)
        if name.startswith("_o_"):
            raise AttributeError(name)
        return self._o("getattr", name)

    def __setattr__(self, name: str, value) -> None:
        self._o("setattr", name, value)

    def __delattr__(self, name: str) -> None:
        self._o("delattr", name)

    def __dir__(self):
        return self._o("dir")

    # conversions
    def __repr__(self) -> str:
        if self._o_label.startswith("mod:"):  # a module: also shown in failure reports
            return f"<module {self._o_label[4:]!r} (PyTorch, through the oracle)>"
        return self._o("repr")

    def __str__(self) -> str:
        return self._o("str")

    def __format__(self, spec: str) -> str:
        return self._o("format", spec)

    def __bool__(self) -> bool:
        return self._o("bool")

    def __float__(self) -> float:
        return self._o("float")

    def __int__(self) -> int:
        return self._o("int")

    def __index__(self) -> int:
        return self._o("index")

    def __complex__(self) -> complex:
        return self._o("complex")

    def __array__(self, dtype=None, copy=None):
        out = self._o("array")
        return out if dtype is None else out.astype(dtype)

    def __hash__(self) -> int:
        return id(self)

    # containers
    def __len__(self) -> int:
        return self._o("len")

    def __iter__(self):
        return self._o("iter")

    def __next__(self):
        return self._o("next")

    def __reversed__(self):
        return self._o("reversed")

    def __contains__(self, item) -> bool:
        return self._o("contains", item)

    def __getitem__(self, key):
        return self._o("getitem", key)

    def __setitem__(self, key, value) -> None:
        self._o("setitem", key, value)

    def __delitem__(self, key) -> None:
        self._o("delitem", key)

    # context managers and type checks
    def __enter__(self):
        return self._o("enter")

    def __exit__(self, kind, value, tb):
        return self._o("exit", kind, value)

    def __instancecheck__(self, obj) -> bool:
        return self._o("instancecheck", obj)

    def __subclasscheck__(self, cls) -> bool:
        return self._o("subclasscheck", cls)

    def __mro_entries__(self, bases):
        # A class written on top of a PyTorch class runs PyTorch's own machinery on its
        # instances; while recording it is the real class, and a replay cannot stand in:
        # such a test asks PyTorch in one piece instead (`support.oracle.computed`).
        from support.oracle.engine import ORACLE, Mismatch

        if ORACLE.mode == "record":
            return (self._o_real,)
        raise Mismatch(
            f"a class derived from {self._o_label} cannot be replayed: compute what the "
            "program prints with real PyTorch in one piece (support.oracle.computed)"
        )

    def __round__(self, ndigits=None):
        return self._o("round") if ndigits is None else self._o("round", ndigits)

    def __trunc__(self):
        return self._o("trunc")

    def __floor__(self):
        return self._o("floor")

    def __ceil__(self):
        return self._o("ceil")

    def __abs__(self):
        return self._o("abs")

    def __neg__(self):
        return self._o("neg")

    def __pos__(self):
        return self._o("pos")

    def __invert__(self):
        return self._o("invert")


class CallableProxy(Proxy):
    """A proxy for something callable (functions, classes, bound methods)."""

    __slots__ = ()

    def __call__(self, *args, **kwargs):
        return self._o("call", *args, **kwargs)


#: binary operators: name -> (forward, reflected, in-place) spellings
BINARY = (
    "add",
    "sub",
    "mul",
    "matmul",
    "truediv",
    "floordiv",
    "mod",
    "pow",
    "and",
    "or",
    "xor",
    "lshift",
    "rshift",
)
COMPARE = ("eq", "ne", "lt", "le", "gt", "ge")


def _binary(op: str):
    def method(self, other):
        return self._o(op, other)

    method.__name__ = f"__{op}__"
    return method


for _name in BINARY:
    for _op in (_name, "r" + _name, "i" + _name):
        setattr(Proxy, f"__{_op}__", _binary(_op))
for _name in COMPARE:
    setattr(Proxy, f"__{_name}__", _binary(_name))
Proxy.__divmod__ = _binary("divmod")
Proxy.__rdivmod__ = _binary("rdivmod")
del _name, _op


_CLASSES: dict[tuple, type] = {}


def proxy_class(module: str, qualname: str, flags: str) -> type:
    """A proxy class named like the PyTorch type it stands for, so that `type(x).__name__`
    and `type(x).__module__` read the same through the oracle; flags: c (callable), t (a
    class itself: `isinstance(x, type)` holds, through `__class__`)."""
    key = (module, qualname, flags)
    if key not in _CLASSES:
        base = CallableProxy if "c" in flags else Proxy
        attrs = {"__slots__": (), "__module__": module}
        if "t" in flags:
            attrs["__class__"] = property(lambda self: type)
            # a class's own names are the PyTorch class's, not this proxy type's
            for name in ("__module__", "__name__", "__doc__"):
                attrs[name] = property(lambda self, name=name: self._o("getattr", name))
        kind = type(qualname.rsplit(".", 1)[-1], (base,), attrs)
        if "t" not in flags:
            kind.__qualname__ = qualname
        _CLASSES[key] = kind
    return _CLASSES[key]
