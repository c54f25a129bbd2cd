"""Turning a list of samples into a batch: `default_collate` (stack tensors, numbers to
tensors, recurse into tuples, lists and dicts) and `default_convert` (no batching)."""

from __future__ import annotations

import collections.abc
import copy
import re

import numpy as np

from gradshell.core import dtypes
from gradshell.core.tensor import Tensor
from gradshell.ops.creation import as_tensor, tensor
from gradshell.ops.shape import stack

__all__ = ["default_collate", "default_convert"]

_ERR = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"
)
_STR_OBJ_DTYPE = re.compile(r"[SaUO]")


def _collate_leaf(batch):
    """The batch for samples of a non-container type, or None if the type has no rule."""
    elem = batch[0]
    if isinstance(elem, Tensor):
        return stack(batch, 0)
    if isinstance(elem, np.ndarray):
        if _STR_OBJ_DTYPE.search(elem.dtype.str) is not None:
            raise TypeError(_ERR.format(elem.dtype))
        return default_collate([as_tensor(b) for b in batch])
    if isinstance(elem, (np.bool_, np.number, np.object_)):
        return as_tensor(batch)
    if isinstance(elem, float):
        return tensor(batch, dtype=dtypes.float64)
    if isinstance(elem, int):  # bool too: a bool tensor, as in PyTorch
        return tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    return None


def default_collate(batch):
    """Merge a list of samples into a batch the way PyTorch's DataLoader does."""
    out = _collate_leaf(batch)
    if out is not None:
        return out
    elem = batch[0]
    elem_type = type(elem)
    if isinstance(elem, collections.abc.Mapping):
        merged = {key: default_collate([d[key] for d in batch]) for key in elem}
        try:
            if isinstance(elem, collections.abc.MutableMapping):
                clone = copy.copy(elem)
                clone.update(merged)
                return clone
            return elem_type(merged)
        except TypeError:
            return merged
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # a namedtuple
        return elem_type(*(default_collate(s) for s in zip(*batch, strict=False)))
    if isinstance(elem, collections.abc.Sequence):
        it = iter(batch)
        elem_size = len(next(it))
        if not all(len(e) == elem_size for e in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch, strict=False))  # tuples: strings come back as tuples
        if isinstance(elem, tuple):
            return [default_collate(s) for s in transposed]  # a list, as in PyTorch
        try:
            if isinstance(elem, collections.abc.MutableSequence):
                clone = copy.copy(elem)
                for i, samples in enumerate(transposed):
                    clone[i] = default_collate(samples)
                return clone
            return elem_type([default_collate(s) for s in transposed])
        except TypeError:
            return [default_collate(s) for s in transposed]
    raise TypeError(_ERR.format(elem_type))


def default_convert(data):
    """Convert NumPy arrays (inside containers too) to tensors, without batching."""
    if isinstance(data, Tensor):
        return data
    elem_type = type(data)
    if elem_type.__module__ == "numpy" and elem_type.__name__ not in ("str_", "string_"):
        if isinstance(data, np.ndarray) and _STR_OBJ_DTYPE.search(data.dtype.str) is not None:
            return data
        return as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        converted = {key: default_convert(data[key]) for key in data}
        try:
            if isinstance(data, collections.abc.MutableMapping):
                clone = copy.copy(data)
                clone.update(converted)
                return clone
            return elem_type(converted)
        except TypeError:
            return converted
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return elem_type(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        try:
            if isinstance(data, collections.abc.MutableSequence):
                clone = copy.copy(data)
                for i, d in enumerate(data):
                    clone[i] = default_convert(d)
                return clone
            return elem_type([default_convert(d) for d in data])
        except TypeError:
            return [default_convert(d) for d in data]
    return data
