"""What a recording stores of PyTorch's answers: plain values to JSON and back.

Plain values are the ones a test reads out of PyTorch (numbers, strings, NumPy arrays,
torch.Size, and tuples/lists/dicts of them); everything else stays a proxy. Exceptions
and warnings are stored by class name, module, builtin base and message, and come back
as instances of a class with the same name (and the same builtin base).
"""

from __future__ import annotations

import base64
import builtins
import math

import numpy as np

_SCALARS = (type(None), bool, int, str)


class Size(tuple):
    """torch.Size as a recording gives it back: a tuple that prints like torch.Size."""

    def __repr__(self) -> str:
        return f"torch.Size({list(self)!r})"

    __str__ = __repr__

    def numel(self) -> int:
        """The product of the sizes (1 for a 0-d shape)."""
        return math.prod(self)

    def __getitem__(self, key):
        item = tuple.__getitem__(self, key)
        return Size(item) if isinstance(key, slice) else item


def _is_torch_size(value) -> bool:
    kind = type(value)
    return isinstance(value, Size) or (kind.__name__ == "Size" and kind.__module__ == "torch")


def is_plain(value, depth: int = 0) -> bool:
    """Whether `value` is stored by value (not kept as a proxy)."""
    kind = type(value)
    if kind in _SCALARS or kind in (float, complex, bytes):
        return True
    if kind is np.ndarray:
        return value.dtype != object
    if isinstance(value, np.generic):
        return value.dtype != object
    if depth > 8:
        return False
    if _is_torch_size(value):
        return True
    if kind in (tuple, list):
        return all(is_plain(v, depth + 1) for v in value)
    if kind is dict:
        return all(type(k) is str and is_plain(v, depth + 1) for k, v in value.items())
    return False


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def encode(value):
    """A JSON-ready form of a plain value."""
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is float:
        return value if math.isfinite(value) else {"f": repr(value)}
    if kind is complex:
        return {"c": [encode(value.real), encode(value.imag)]}
    if kind is bytes:
        return {"y": _b64(value)}
    if kind is np.ndarray:
        # tobytes() is C order for any layout; ascontiguousarray would make 0-d arrays 1-d
        return {"a": value.dtype.str, "s": list(value.shape), "b": _b64(value.tobytes())}
    if isinstance(value, np.generic):
        return {"g": value.dtype.str, "b": _b64(np.asarray(value).tobytes())}
    if _is_torch_size(value):
        return {"S": [int(v) for v in value]}
    if kind is tuple:
        return {"t": [encode(v) for v in value]}
    if kind is list:
        return [encode(v) for v in value]
    if kind is dict:
        return {"d": [[k, encode(v)] for k, v in value.items()]}
    raise TypeError(f"not a plain value: {kind.__name__}")


def decode(data):
    """The value `encode` stored."""
    if isinstance(data, list):
        return [decode(v) for v in data]
    if not isinstance(data, dict):
        return data
    if "f" in data:
        return float(data["f"])
    if "c" in data:
        return complex(decode(data["c"][0]), decode(data["c"][1]))
    if "y" in data:
        return base64.b64decode(data["y"])
    if "a" in data:
        raw = base64.b64decode(data["b"])
        return np.frombuffer(raw, dtype=np.dtype(data["a"])).reshape(tuple(data["s"])).copy()
    if "g" in data:
        return np.frombuffer(base64.b64decode(data["b"]), dtype=np.dtype(data["g"]))[0]
    if "S" in data:
        return Size(data["S"])
    if "t" in data:
        return tuple(decode(v) for v in data["t"])
    if "d" in data:
        return {k: decode(v) for k, v in data["d"]}
    raise ValueError(f"unknown recorded value: {data!r}")


_STRUCTSEQ: dict[tuple, type] = {}


def structseq_class(module: str, name: str, fields: list) -> type:
    """A stand-in for a torch.return_types class (values, indices): a tuple with named
    fields that prints like PyTorch's."""
    key = (module, name, tuple(fields))
    if key not in _STRUCTSEQ:

        def __repr__(self) -> str:
            body = ",\n".join(f"{f}={v!r}" for f, v in zip(fields, self, strict=False))
            return f"{module}.{name}(\n{body})"

        attrs = {"__slots__": (), "__module__": module, "__repr__": __repr__}
        attrs["__match_args__"] = tuple(fields)
        attrs["n_fields"] = attrs["n_sequence_fields"] = len(fields)
        for i, f in enumerate(fields):
            attrs[f] = property(lambda self, i=i: self[i])
        _STRUCTSEQ[key] = type(name, (tuple,), attrs)
    return _STRUCTSEQ[key]


# -- exceptions and warnings ----------------------------------------------------------------------


def _builtin_base(kind: type) -> type:
    return next(k for k in kind.__mro__ if k.__module__ == "builtins")


def encode_class(kind: type) -> list:
    """[name, module, builtin base name] of an exception or warning class."""
    return [kind.__qualname__, kind.__module__, _builtin_base(kind).__name__]


_CLASSES: dict[tuple, type] = {}


def decode_class(data: list) -> type:
    """The class `encode_class` stored: the builtin itself, or a look-alike subclass of
    its builtin base with the same name and module."""
    name, module, base = data
    if module == "builtins":
        return getattr(builtins, name)
    key = tuple(data)
    if key not in _CLASSES:
        _CLASSES[key] = type(
            name.rsplit(".", 1)[-1], (getattr(builtins, base),), {"__module__": module}
        )
        _CLASSES[key].__qualname__ = name
    return _CLASSES[key]


def encode_exception(exc: BaseException) -> list:
    """Class, args (when plain) and message of an exception."""
    args = encode(exc.args) if is_plain(exc.args) else None
    return [encode_class(type(exc)), args, str(exc)]


def decode_exception(data: list) -> BaseException:
    """An exception equal in class name, args and message to the recorded one."""
    kind = decode_class(data[0])
    args = decode(data[1]) if data[1] is not None else (data[2],)
    try:
        exc = kind(*args)
    except Exception:  # noqa: BLE001 - classes with unusual constructors
        exc = kind(data[2])
    if str(exc) != data[2]:
        exc = kind(data[2])
    return exc
