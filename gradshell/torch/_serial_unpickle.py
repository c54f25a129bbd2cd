"""Reading torch.save pickles without executing arbitrary code.

`TorchUnpickler` resolves every global through an allow-list: with `weights_only`
(PyTorch's default) only tensors, parameters, dtypes, sizes, devices, OrderedDict and
the few builtins PyTorch allows, plus what `add_safe_globals` added; without it also
torch.nn module classes (gradshell's) and classes defined in `__main__`. The opcodes
that call or build objects (REDUCE, NEWOBJ, BUILD) check their target again, and the
opcodes that instantiate by other routes (INST, OBJ, extension codes) are refused.
Tensors are rebuilt as views of their storage only after a bounds check.
"""

from __future__ import annotations

import _compat_pickle
import codecs
import importlib
import io
import pickle
import sys
from collections import Counter, OrderedDict

import numpy as np

from gradshell.core import dtypes
from gradshell.core.device import Device
from gradshell.core.size import Size, strided
from gradshell.core.tensor import Tensor, wrap
from gradshell.torch._serial_pickle import STORAGE_NAMES
from gradshell.torch.serialization import USER_SAFE_GLOBALS

_STORAGE_DTYPES = {name: dtypes.from_name(d) for d, name in STORAGE_NAMES.items()}
_UNSUPPORTED_DTYPES = {"complex64", "complex128", "uint16", "uint32", "uint64"}


class StorageType:
    """What `torch.FloatStorage` & co. stand for in a pickle: the storage's dtype."""

    __slots__ = ("dtype",)

    def __init__(self, dtype: dtypes.DType) -> None:
        self.dtype = dtype


class LoadedStorage:
    """One `archive/data/<key>` record as a flat array (bfloat16 held in float32)."""

    __slots__ = ("array", "dtype", "location")

    def __init__(self, array: np.ndarray, dtype: dtypes.DType, location: str) -> None:
        self.array = array
        self.dtype = dtype
        self.location = location


def _rebuild_tensor_v2(
    storage, storage_offset, size, stride, requires_grad, backward_hooks, metadata=None
) -> Tensor:
    """A tensor viewing `storage` (checked to lie inside it)."""
    if type(storage) is not LoadedStorage:
        raise pickle.UnpicklingError("tensor data must come from a storage in the archive")
    size = tuple(int(s) for s in size)
    stride = tuple(int(s) for s in stride)
    offset = int(storage_offset)
    array = storage.array
    if len(size) != len(stride) or offset < 0 or any(s < 0 for s in size + stride):
        raise RuntimeError(f"invalid tensor layout: sizes {list(size)}, strides {list(stride)}")
    needed = (
        0 if 0 in size else offset + 1 + sum((n - 1) * s for n, s in zip(size, stride, strict=True))
    )
    if needed > array.size:
        raise RuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, "
            f"and itemsize {array.itemsize} requiring a storage size of "
            f"{needed * array.itemsize} are out of bounds for storage of size "
            f"{array.size * array.itemsize}"
        )
    item = array.itemsize
    # A view whose base is the storage array itself, so views loaded from one storage
    # keep sharing it (and storage_offset() reads as saved).
    view = np.ndarray(
        size,
        dtype=array.dtype,
        buffer=array,
        offset=offset * item if needed else 0,
        strides=tuple(s * item for s in stride),
    )
    t = wrap(view, storage.dtype)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_parameter(data, requires_grad, backward_hooks, state=None):
    """An nn.Parameter around `data`."""
    from gradshell.torch.nn.parameter import Parameter

    if not isinstance(data, Tensor):
        raise pickle.UnpicklingError("a parameter must wrap a tensor")
    return Parameter(data, bool(requires_grad))


def _rebuild_from_type_v2(func, new_type, args, state):
    """A tensor rebuilt by `func(*args)`, as `new_type` (Tensor or Parameter only)."""
    from gradshell.torch.nn.parameter import Parameter

    if func not in (_rebuild_tensor_v2, _rebuild_parameter):
        raise pickle.UnpicklingError(f"Trying to call reduce for unrecognized function {func}")
    result = func(*args)
    if new_type is Parameter and not isinstance(result, Parameter):
        result = Parameter(result, result.requires_grad)
    return result


def _encode(obj, encoding="utf-8", errors="strict"):
    # Protocol 2 writes bytes as _codecs.encode(text, 'latin1'); nothing else is needed.
    if not isinstance(obj, str) or encoding not in ("latin1", "latin-1", "utf-8", "utf8"):
        raise pickle.UnpicklingError("_codecs.encode is allowed for text only")
    return codecs.encode(obj, encoding, errors)


def _get_layout(name: str):
    if name != "torch.strided":
        raise NotImplementedError(f"gradshell does not support tensors with layout {name} yet")
    return strided


def _allowed_globals() -> dict[str, object]:
    from gradshell.torch.nn.parameter import Parameter

    table: dict[str, object] = {
        "collections.OrderedDict": OrderedDict,
        "collections.Counter": Counter,
        "torch.nn.parameter.Parameter": Parameter,
        "torch.serialization._get_layout": _get_layout,
        "torch.Size": Size,
        "torch.Tensor": Tensor,
        "torch.device": Device,
        "_codecs.encode": _encode,
        "builtins.bytearray": bytearray,
        "builtins.set": set,
        "builtins.complex": complex,
        "torch._utils._rebuild_tensor_v2": _rebuild_tensor_v2,
        "torch._utils._rebuild_parameter": _rebuild_parameter,
        "torch._utils._rebuild_parameter_with_state": _rebuild_parameter,
        "torch._tensor._rebuild_from_type_v2": _rebuild_from_type_v2,
    }
    for d in dtypes.ALL:
        table[f"torch.{d.name}"] = d
    for name, d in _STORAGE_DTYPES.items():
        table[f"torch.{name}"] = StorageType(d)
    return table


_ALLOWED: dict[str, object] | None = None

# What weights_only=False loads besides: NumPy arrays and a few harmless builtins.
# (NumPy's own reduce functions, found without naming numpy.core / numpy._core.)
_NP_RECONSTRUCT = np.arange(1).__reduce__()[0]
_NP_SCALAR = np.float64(0).__reduce__()[0]
_TRUSTED_EXTRA: dict[str, object] = {
    "numpy._core.multiarray._reconstruct": _NP_RECONSTRUCT,
    "numpy.core.multiarray._reconstruct": _NP_RECONSTRUCT,
    "numpy._core.multiarray.scalar": _NP_SCALAR,
    "numpy.core.multiarray.scalar": _NP_SCALAR,
    "numpy.ndarray": np.ndarray,
    "numpy.dtype": np.dtype,
    "builtins.frozenset": frozenset,
    "builtins.slice": slice,
    "builtins.range": range,
}


def allowed_globals() -> dict[str, object]:
    """The globals a weights-only load accepts by default (built once)."""
    global _ALLOWED
    if _ALLOWED is None:
        _ALLOWED = _allowed_globals()
    return _ALLOWED


class UnsupportedGlobal(pickle.UnpicklingError):
    """A global outside the allow-list (the message follows PyTorch's)."""


def _unsupported(full_path: str) -> UnsupportedGlobal:
    if full_path.startswith("builtins."):
        full_path = full_path[len("builtins.") :]
    return UnsupportedGlobal(
        f"Unsupported global: GLOBAL {full_path} was not an allowed global by default. Please "
        f"use `torch.serialization.add_safe_globals([{full_path}])` or the "
        f"`torch.serialization.safe_globals([{full_path}])` context manager to allowlist this "
        "global if you trust this class/function."
    )


def _module_class(module: str, name: str):
    """gradshell's class for torch.nn.modules.<file>.<Name>, or None."""
    from gradshell.torch.nn.modules.module import Module

    if not module.startswith("torch.nn.modules."):
        return None
    try:
        mod = importlib.import_module("gradshell." + module)
    except ImportError:
        mod = None
    cls = getattr(mod, name, None) if mod is not None else None
    if not (isinstance(cls, type) and issubclass(cls, Module)):
        raise NotImplementedError(f"gradshell does not support {module}.{name} yet")
    return cls


def _main_class(name: str):
    from gradshell.torch import serialization

    namespace = serialization.main_namespace
    if namespace is not None:  # the shell's learner code: its namespace is its __main__
        cls = namespace.get(name)
    else:
        main = sys.modules.get("__main__")
        cls = getattr(main, name, None) if main is not None else None
    if isinstance(cls, type) and cls.__module__ == "__main__":
        return cls
    return None


def pickle_global_name(module: str, name: str, proto: int) -> str:
    """`module.name` for a pickle global, with Python 2 names (`__builtin__`) mapped as
    pickle maps them for protocols below 3."""
    if proto < 3 and (module, name) in _compat_pickle.NAME_MAPPING:
        module, name = _compat_pickle.NAME_MAPPING[(module, name)]
    elif proto < 3 and module in _compat_pickle.IMPORT_MAPPING:
        module = _compat_pickle.IMPORT_MAPPING[module]
    return f"{module}.{name}"


class TorchUnpickler(pickle._Unpickler):
    """Rebuilds a torch.save pickle from an allow-list of globals (see the module doc)."""

    def __init__(self, data: bytes, storages, weights_only: bool) -> None:
        super().__init__(io.BytesIO(data), encoding="utf-8")
        self._storages = storages
        self.weights_only = weights_only
        self._callables: set[int] = set()

    def find_class(self, module: str, name: str):
        full_path = pickle_global_name(module, name, self.proto)
        module, _, name = full_path.rpartition(".")
        found = allowed_globals().get(full_path)
        if found is None:
            found = USER_SAFE_GLOBALS.get(full_path)
        if found is None and module == "torch" and name in _UNSUPPORTED_DTYPES:
            raise NotImplementedError(f"gradshell does not support torch.{name} tensors yet")
        if found is None and not self.weights_only:
            found = _TRUSTED_EXTRA.get(full_path) or _module_class(module, name)
            if found is None and module == "__main__":
                found = _main_class(name)
            if found is None:
                raise pickle.UnpicklingError(
                    f"gradshell cannot load the global {full_path}: besides tensors and plain "
                    "data it loads torch.nn modules, NumPy arrays and classes defined in "
                    "__main__"
                )
        if found is None:
            raise _unsupported(full_path)
        self._callables.add(id(found))
        return found

    def persistent_load(self, pid):
        if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage"):
            raise pickle.UnpicklingError("unsupported persistent id encountered")
        _, storage_type, key, location, numel = pid
        if type(storage_type) is not StorageType:
            raise pickle.UnpicklingError("unsupported persistent id encountered")
        return self._storages(str(key), storage_type.dtype, str(location), int(numel))

    # -- the opcodes that call or build objects, checked again ------------------------------
    def load_reduce(self):
        args = self.stack.pop()
        func = self.stack[-1]
        if id(func) not in self._callables:
            raise pickle.UnpicklingError(f"Trying to call reduce for unrecognized function {func}")
        self.stack[-1] = func(*args)

    def load_newobj(self):
        args = self.stack.pop()
        cls = self.stack.pop()
        from gradshell.torch.nn.parameter import Parameter

        if cls is Parameter:
            self.append(Parameter(*args))
        elif isinstance(cls, type) and id(cls) in self._callables:
            self.append(cls.__new__(cls, *args))
        else:
            raise pickle.UnpicklingError(
                "Can only create new object for nn.Parameter or classes allowlisted via "
                f"`add_safe_globals` but got {cls}"
            )

    def load_build(self):
        from gradshell.torch.nn.modules.module import Module

        state = self.stack.pop()
        inst = self.stack[-1]
        if type(inst) is OrderedDict:
            if isinstance(state, dict):
                inst.__dict__.update(state)
        elif isinstance(inst, Module):
            _set_module_state(inst, state)
        elif self._may_build(inst):
            setstate = getattr(inst, "__setstate__", None)
            if setstate is not None:
                setstate(state)
            elif isinstance(state, dict):
                inst.__dict__.update(state)
            if isinstance(inst, np.dtype):
                _check_dtype(inst)
        else:
            raise pickle.UnpicklingError(
                "Can only build Tensor, Parameter, OrderedDict or types allowlisted via "
                f"`add_safe_globals`, but got {type(inst)}"
            )

    def _may_build(self, inst) -> bool:
        if isinstance(inst, Tensor):
            return False
        if self.weights_only:
            return id(type(inst)) in self._callables
        # NumPy builds dtypes of subclasses of the np.dtype it named (Int64DType ...)
        return any(id(c) in self._callables for c in type(inst).__mro__[:-1])

    def _refuse(self):
        raise pickle.UnpicklingError("Unsupported operand in a torch.save pickle")

    dispatch = dict(pickle._Unpickler.dispatch)
    dispatch[pickle.REDUCE[0]] = load_reduce
    dispatch[pickle.NEWOBJ[0]] = load_newobj
    dispatch[pickle.BUILD[0]] = load_build
    for _op in (pickle.INST, pickle.OBJ, pickle.NEWOBJ_EX, pickle.EXT1, pickle.EXT2, pickle.EXT4):
        dispatch[_op[0]] = _refuse
    del _op


def _check_dtype(built: np.dtype) -> None:
    """Refuse a dtype whose pickled state disagrees with what NumPy would make of it: a
    state can claim 'no objects inside' for a dtype of object pointers, and the array's
    raw bytes would then be read as pointers. Structured dtypes are refused whole (a
    tensor file never holds them)."""
    if built.fields is not None or built.subdtype is not None:
        raise pickle.UnpicklingError("structured NumPy dtypes are not loaded from a torch file")
    canonical = np.dtype(built.str)
    if (built.flags, built.itemsize, built.kind) != (
        canonical.flags,
        canonical.itemsize,
        canonical.kind,
    ):
        raise pickle.UnpicklingError("a NumPy dtype in the file is inconsistent")


_MODULE_KEYS = ("_parameters", "_buffers", "_modules")


def _set_module_state(m, state) -> None:
    """Give a module the attributes a torch.nn.Module pickle carries (hooks are dropped)."""
    from gradshell.torch.nn.modules.module import Module

    if not isinstance(state, dict):
        raise pickle.UnpicklingError(f"bad state for {type(m).__name__}")
    Module.__init__(m)
    d = m.__dict__
    d["training"] = bool(state.get("training", True))
    for key in _MODULE_KEYS:
        d[key] = dict(state.get(key) or {})
    d["_non_persistent_buffers_set"] = set(state.get("_non_persistent_buffers_set") or ())
    for key, value in state.items():
        if isinstance(key, str) and not key.startswith("_") and key != "training":
            d[key] = value
