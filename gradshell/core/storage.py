"""Storages: the memory a tensor and all its views share (`x.untyped_storage()`, the
deprecated `x.storage()`). A storage is the whole block the tensor's array was cut from,
so `a.storage().data_ptr() == a[1:].storage().data_ptr()`; writing into it changes every
tensor that shares it. It prints as PyTorch prints one: an element per line, then
`[torch.storage.TypedStorage(dtype=..., device=...) of size n]`.
"""

from __future__ import annotations

import numpy as np

from gradshell.core.device import device_of, to_numpy
from gradshell.core.warn_once import warn_once

TYPED_STORAGE_WARNING = (
    "TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be "
    "the only storage class. This should only matter to you if you are using storages "
    "directly.  To access UntypedStorage directly, use tensor.untyped_storage() instead of "
    "tensor.storage()"
)


def warn_typed_storage(stacklevel: int) -> None:
    """PyTorch's deprecation warning for TypedStorage, given once in a process's life."""
    warn_once(TYPED_STORAGE_WARNING, UserWarning, stacklevel=stacklevel + 1)


def _address(a) -> int:
    iface = getattr(a, "__array_interface__", None) or a.__cuda_array_interface__
    return iface["data"][0]


def _flat(root):
    """The owning array as one flat run of its elements (a view, never a copy)."""
    return root.reshape(-1)


def _item(value):
    """An element as the Python number PyTorch's storages give."""
    return value.item() if hasattr(value, "item") else value


def _lines(items: list, info: str) -> str:
    return " " + "\n ".join(str(v) for v in items) + "\n" + info


class UntypedStorage:
    """The bytes behind a tensor and its views."""

    __module__ = "torch.storage"

    def __init__(self, data) -> None:
        self._bytes = _flat(data).view(np.uint8)

    @property
    def device(self):
        """Where the bytes live."""
        return device_of(self._bytes)

    def nbytes(self) -> int:
        """The size in bytes."""
        return int(self._bytes.size)

    def size(self) -> int:
        """The size in bytes."""
        return self.nbytes()

    def __len__(self) -> int:
        return self.nbytes()

    def element_size(self) -> int:
        """1: an untyped storage counts bytes."""
        return 1

    def data_ptr(self) -> int:
        """The address of the first byte."""
        return _address(self._bytes)

    def tolist(self) -> list:
        """The bytes as Python ints."""
        return [int(b) for b in to_numpy(self._bytes)]

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return UntypedStorage(self._bytes[idx])
        if not isinstance(idx, int):
            raise RuntimeError(f"can't index a {type(self)} with {type(idx)}")
        n = self.nbytes()
        if not -n <= idx < n:
            raise IndexError(f"index {idx} out of range for storage of size {n}")
        return int(self._bytes[idx])

    def __setitem__(self, idx, value) -> None:
        self._bytes[idx] = value

    def __iter__(self):
        return iter(self.tolist())

    def __str__(self) -> str:
        info = f"[torch.storage.UntypedStorage(device={self.device}) of size {len(self)}]"
        return _lines(self.tolist(), info)

    __repr__ = __str__


class TypedStorage:
    """A tensor's storage seen as elements of its dtype (deprecated in PyTorch)."""

    __module__ = "torch.storage"

    def __init__(self, data, dtype) -> None:
        self._data = _flat(data).view(dtype.np)
        self.dtype = dtype

    @property
    def device(self):
        """Where the elements live."""
        return device_of(self._data)

    @property
    def is_cuda(self) -> bool:
        """True for a storage on a GPU."""
        return self.device.type == "cuda"

    @property
    def _untyped_storage(self) -> UntypedStorage:
        return UntypedStorage(self._data)

    def untyped(self) -> UntypedStorage:
        """The same memory as bytes."""
        return UntypedStorage(self._data)

    def size(self) -> int:
        """The number of elements."""
        return int(self._data.size)

    def __len__(self) -> int:
        return self.size()

    def nbytes(self) -> int:
        """The size in bytes."""
        return int(self._data.nbytes)

    def element_size(self) -> int:
        """The size of one element in bytes."""
        return self.dtype.itemsize

    def data_ptr(self) -> int:
        """The address of the first element."""
        return _address(self._data)

    def is_shared(self) -> bool:
        """False: gradshell's storages are never in shared memory."""
        return False

    def type(self) -> str:
        """The legacy storage type name ('torch.FloatStorage')."""
        return "torch." + self.dtype.legacy_name.replace("Tensor", "Storage")

    def tolist(self) -> list:
        """The elements as Python numbers."""
        return [_item(v) for v in to_numpy(self._data)]

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            raise RuntimeError("slices are only supported in UntypedStorage.__getitem__")
        if not isinstance(idx, int):
            raise RuntimeError(f"can't index a {type(self)} with {type(idx)}")
        n = self.size()
        if not -n <= idx < n:
            raise IndexError(f"index {idx} out of range for storage of size {n}")
        return _item(self._data[idx])

    def __setitem__(self, idx, value) -> None:
        if not isinstance(value, (bool, int, float)) and not hasattr(value, "dtype"):
            raise TypeError(
                f"can't assign a {type(value).__name__} to a torch.{self.dtype.legacy_name}"
            )
        self._data[idx] = value

    def __iter__(self):
        return iter(self.tolist())

    def __str__(self) -> str:
        info = (
            f"[torch.storage.TypedStorage(dtype=torch.{self.dtype.name}, device={self.device}) "
            f"of size {len(self)}]"
        )
        return _lines(self.tolist(), info)

    __repr__ = __str__
