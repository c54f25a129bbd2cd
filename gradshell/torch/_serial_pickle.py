"""Pickling as torch.save does: tensors become `torch._utils._rebuild_tensor_v2` calls on
storages kept outside the pickle (persistent ids), and gradshell's classes are written
under PyTorch's names, so real PyTorch can read the result.

The pure-Python pickler is used because it lets `save_global` write a global by name
(`torch FloatStorage`) without importing it: gradshell runs without PyTorch installed.
"""

from __future__ import annotations

import copyreg
import io
import pickle
from collections import OrderedDict

import numpy as np

from gradshell.core.device import Device, to_numpy
from gradshell.core.dtypes import DType
from gradshell.core.size import Size
from gradshell.core.tensor import Tensor

STORAGE_NAMES = {
    "float32": "FloatStorage",
    "float64": "DoubleStorage",
    "float16": "HalfStorage",
    "bfloat16": "BFloat16Storage",
    "int64": "LongStorage",
    "int32": "IntStorage",
    "int16": "ShortStorage",
    "int8": "CharStorage",
    "uint8": "ByteStorage",
    "bool": "BoolStorage",
}

# The module attributes a torch.nn.Module pickle carries, in PyTorch's order, with the
# hook tables gradshell does not keep written empty.
_HOOK_TABLES = (
    "_backward_pre_hooks",
    "_backward_hooks",
    "_is_full_backward_hook",
    "_forward_hooks",
    "_forward_hooks_with_kwargs",
    "_forward_hooks_always_called",
    "_forward_pre_hooks",
    "_forward_pre_hooks_with_kwargs",
    "_state_dict_hooks",
    "_state_dict_pre_hooks",
    "_load_state_dict_pre_hooks",
    "_load_state_dict_post_hooks",
)


class TorchGlobal:
    """A global written into the pickle by name only (`module name`)."""

    __slots__ = ("module", "name")

    def __init__(self, module: str, name: str) -> None:
        self.module = module
        self.name = name

    def __call__(self, *args):
        # Callable only so that pickle accepts it as a reduce function; never called.
        raise TypeError(f"{self.module}.{self.name} is a name for pickling, not a function")


_GLOBALS: dict[tuple[str, str], TorchGlobal] = {}


def torch_global(module: str, name: str) -> TorchGlobal:
    """One shared object per name, so the pickle memo writes each global once."""
    key = (module, name)
    g = _GLOBALS.get(key)
    if g is None:
        g = _GLOBALS[key] = TorchGlobal(module, name)
    return g


def torch_module_path(cls: type) -> str:
    """The module PyTorch keeps `cls` in (gradshell.torch.nn.modules.linear -> torch.nn...)."""
    home = cls.__dict__.get("_gs_home") or cls.__module__
    return home[len("gradshell.") :] if home.startswith("gradshell.torch.") else home


class Storage:
    """One storage to write as `archive/data/<key>`: a flat array of one dtype."""

    __slots__ = ("key", "dtype", "array", "location")

    def __init__(self, key: str, dtype: DType, array: np.ndarray, location: str) -> None:
        self.key = key
        self.dtype = dtype
        self.array = array
        self.location = location

    def payload(self) -> bytes:
        """The raw bytes PyTorch keeps for this storage."""
        array = np.ascontiguousarray(self.array)
        if self.dtype.name == "bfloat16":
            # gradshell holds bfloat16 values in float32: their top 16 bits are the bfloat16
            return (array.view(np.uint32) >> 16).astype(np.uint16).tobytes()
        return array.tobytes()


class TorchPickler(pickle._Pickler):
    """Writes gradshell objects the way PyTorch pickles its own."""

    def __init__(self, file: io.BufferedIOBase, protocol: int = 2) -> None:
        super().__init__(file, protocol)
        self.storages: list[Storage] = []
        self._by_root: dict[int, tuple[Storage, np.ndarray]] = {}

    # -- storages ---------------------------------------------------------------------------
    def persistent_id(self, obj):
        if type(obj) is Storage:
            name = STORAGE_NAMES.get(obj.dtype.name)
            if name is None:
                raise pickle.PicklingError(f"cannot save tensors of dtype {obj.dtype}")
            return ("storage", torch_global("torch", name), obj.key, obj.location, obj.array.size)
        return None

    def _storage_of(self, t: Tensor) -> tuple[Storage, int, tuple]:
        """The storage holding `t`, its offset and strides (in elements)."""
        data = t._data
        location = "cpu"
        if not isinstance(data, np.ndarray):
            location = f"cuda:{t.device.index or 0}"
            data = to_numpy(data)
        root = data
        # the array the views were taken from (not a reinterpretation of other bits)
        while isinstance(root.base, np.ndarray) and root.base.dtype == data.dtype:
            root = root.base
        itemsize = data.dtype.itemsize
        shares = (
            root.dtype == data.dtype
            and root.flags.c_contiguous
            and all(s >= 0 and s % itemsize == 0 for s in data.strides)
        )
        if shares:
            offset_bytes = data.__array_interface__["data"][0] - root.__array_interface__["data"][0]
            shares = offset_bytes >= 0 and offset_bytes % itemsize == 0
        if not shares:
            root = np.ascontiguousarray(data)
            offset_bytes = 0
        entry = self._by_root.get(id(root))
        if entry is None:
            storage = Storage(str(len(self.storages)), t._dtype, root.reshape(-1), location)
            self.storages.append(storage)
            self._by_root[id(root)] = (storage, root)  # keeps root alive while saving
        else:
            storage = entry[0]
        strides = tuple(s // itemsize for s in data.strides) if shares else _c_strides(data.shape)
        return storage, offset_bytes // itemsize, strides

    # -- objects ----------------------------------------------------------------------------
    def reducer_override(self, obj):
        tp = type(obj)
        if tp is TorchGlobal:
            return obj.name  # a string: pickle calls save_global, below
        if isinstance(obj, Tensor):
            return self._reduce_tensor(obj)
        if tp is DType:
            return obj.name
        if tp is Device:
            args = (obj.type,) if obj.index is None else (obj.type, obj.index)
            return (torch_global("torch", "device"), args)
        if tp is Size:
            return (torch_global("torch", "Size"), (tuple(obj),))
        if _is_module(obj):
            return (copyreg.__newobj__, (tp,), _module_state(obj))
        return NotImplemented

    def _reduce_tensor(self, t: Tensor):
        if t._is_parameter:
            from gradshell.core.tensor import wrap

            plain = wrap(t._data, t._dtype)
            return (
                torch_global("torch._utils", "_rebuild_parameter"),
                (plain, t._requires_grad, OrderedDict()),
            )
        storage, offset, strides = self._storage_of(t)
        args = (storage, offset, tuple(t._data.shape), strides, t._requires_grad, OrderedDict())
        return (torch_global("torch._utils", "_rebuild_tensor_v2"), args)

    def save_global(self, obj, name=None):
        if type(obj) is TorchGlobal:
            return self._write_global(obj, obj.module, obj.name)
        if type(obj) is DType:
            return self._write_global(obj, "torch", obj.name)
        if isinstance(obj, type) and torch_module_path(obj).startswith("torch."):
            return self._write_global(obj, torch_module_path(obj), obj.__qualname__)
        if _is_learner_class(obj):
            # The shell runs the learner's code in a namespace named __main__ that is not
            # sys.modules["__main__"]: written by name, as PyTorch writes a script's class.
            return self._write_global(obj, "__main__", obj.__qualname__)
        return super().save_global(obj, name)

    def _write_global(self, obj, module: str, name: str) -> None:
        if self.proto >= 4:
            self.save(module)
            self.save(name)
            self.write(pickle.STACK_GLOBAL)
        else:
            self.write(pickle.GLOBAL + f"{module}\n{name}\n".encode())
        self.memoize(obj)


def _c_strides(shape: tuple) -> tuple:
    strides, step = [], 1
    for s in reversed(shape):
        strides.append(step)
        step *= max(s, 1)
    return tuple(reversed(strides))


def _is_learner_class(obj) -> bool:
    """A class defined at the top level of the learner's code (the shell's __main__)."""
    from gradshell.torch import serialization

    namespace = serialization.main_namespace
    return (
        isinstance(obj, type)
        and namespace is not None
        and obj.__module__ == "__main__"
        and namespace.get(obj.__qualname__) is obj
    )


def _is_module(obj) -> bool:
    from gradshell.torch.nn.modules.module import Module

    return isinstance(obj, Module)


def _module_state(m) -> dict:
    """A module's attributes laid out as torch.nn.Module keeps them."""
    d = m.__dict__
    state: dict = {
        "training": d.get("training", True),
        "_parameters": dict(d.get("_parameters", {})),
        "_buffers": dict(d.get("_buffers", {})),
        "_non_persistent_buffers_set": set(d.get("_non_persistent_buffers_set", ())),
    }
    for key in _HOOK_TABLES:
        state[key] = None if key == "_is_full_backward_hook" else OrderedDict()
    state["_modules"] = dict(d.get("_modules", {}))
    for key, value in d.items():
        if not key.startswith("_") and key != "training":
            state[key] = value
    return state


def dumps(obj, protocol: int = 2) -> tuple[bytes, list[Storage]]:
    """The pickle of `obj` and the storages it refers to."""
    buf = io.BytesIO()
    pickler = TorchPickler(buf, protocol)
    pickler.dump(obj)
    return buf.getvalue(), pickler.storages
