"""Indexing: `x[...]` (ints, slices, None, Ellipsis as views; tensors, lists and bool
masks as copies) and `x[...] = v`, with PyTorch's nodes (SelectBackward0,
SliceBackward0, IndexBackward0, CopySlices, IndexPutBackward0)."""

from __future__ import annotations

import numpy as np

from gradshell.core import dtypes, grad_mode
from gradshell.core.autograd import settings
from gradshell.ops import shape as shape_ops
from gradshell.ops.base import (
    Node,
    Tensor,
    array_module,
    as_array,
    is_scalar,
    needs_grad,
    record,
    tensor_method,
    wrap,
)
from gradshell.ops.inplace import VIEW_OF_LEAF_INPLACE, _snapshot_graph, check_inplace

_INDEX_DTYPE_ERROR = "tensors used as indices must be long, int, byte or bool tensors"


def _is_int(k) -> bool:
    return isinstance(k, (int, np.integer)) and not isinstance(k, bool)


def _is_advanced(k) -> bool:
    return isinstance(k, (Tensor, list, np.ndarray)) or isinstance(k, bool)


def _as_index_array(k, xp):
    if isinstance(k, Tensor):
        if k._dtype.category == dtypes.FLOAT:
            raise IndexError(_INDEX_DTYPE_ERROR)
        return k._data
    if isinstance(k, bool):
        return k
    arr = np.asarray(k)
    if arr.dtype.kind == "f":
        raise IndexError(_INDEX_DTYPE_ERROR)
    if arr.dtype == object:
        raise TypeError(
            "only integers, slices (`:`), ellipsis (`...`), None and long or byte "
            "Variables are valid indices (got list)"
        )
    return xp.asarray(arr)


def _index_error(e: IndexError) -> IndexError:
    msg = str(e).replace("axis", "dimension")
    return IndexError(msg)


def _dims_used(k) -> int:
    if k is None or k is Ellipsis:
        return 0
    if isinstance(k, Tensor) and k._dtype.category == dtypes.BOOL:
        return max(k._data.ndim, 1) if k._data.ndim else 0
    if isinstance(k, bool):
        return 0
    return 1


class IndexBackward0(Node):
    """Advanced indexing: scatter-add the gradient back (repeated indices accumulate)."""

    legacy_name_02 = "IndexBackward"

    def backward(self, g):
        return (index_backward(g, self.input_shape, self.key),)


class IndexPutImplBackward0(Node):
    """The gradient of index_backward is the gradient gathered at the same indices."""

    def backward(self, gg):
        return (wrap(as_array(gg._data[self.key]), gg._dtype),)


def index_backward(g: Tensor, input_shape: tuple, key) -> Tensor:
    """A zero tensor of `input_shape` with `g` added at the advanced index `key`."""
    xp = array_module(g._data)
    data = xp.zeros(input_shape, g._dtype.np)
    if xp is np:
        np.add.at(data, key, g._data)
    else:  # CuPy's equivalent of ufunc.at
        xp.add.at(data, key, g._data)
    out = wrap(data, g._dtype)
    if needs_grad(g):
        node = IndexPutImplBackward0()
        node.key = key
        record(node, (g,), out)
    return out


def _advanced(t: Tensor, key: tuple) -> Tensor:
    xp = array_module(t._data)
    try:
        data = t._data[key]
    except IndexError as e:
        raise _index_error(e) from None
    res = wrap(as_array(xp.array(data, copy=True)), t._dtype)
    if needs_grad(t):
        node = IndexBackward0()
        node.input_shape = t._data.shape
        node.key = key
        record(node, (t,), res)
    return res


def _expand_key(t: Tensor, key) -> tuple:
    if not isinstance(key, tuple):
        key = (key,)
    used = sum(_dims_used(k) for k in key)
    nd = t._data.ndim
    n_ell = sum(1 for k in key if k is Ellipsis)
    if n_ell > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if used > nd:
        raise IndexError(f"too many indices for tensor of dimension {nd}")
    return key, used


def getitem(self: Tensor, key):
    """self[key] with PyTorch's semantics (views for basic indexing)."""
    nd = self._data.ndim
    if not isinstance(key, tuple):
        if (
            isinstance(key, Tensor)
            and key._dtype.category != dtypes.FLOAT
            and key._data.ndim == 0
            and key._dtype.category != dtypes.BOOL
        ):
            key = int(key.item())
        if _is_int(key):
            if nd == 0:
                if settings.legacy and key == 0 and self._data.size == 1:
                    return self.item() if not self._requires_grad else self
                raise IndexError(
                    "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                    "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number"
                )
            r = shape_ops.select(self, 0, int(key))
            if settings.legacy and r._data.ndim == 0 and not self._requires_grad:
                return r.item()
            return r
        if isinstance(key, slice):
            if nd == 0:
                raise IndexError("slice() cannot be applied to a 0-dim tensor.")
            return shape_ops.slice_dim(self, 0, *_slice_args(key))
        if key is None:
            return shape_ops.unsqueeze(self, 0)
        if key is Ellipsis:
            return shape_ops.alias(self)
    key, used = _expand_key(self, key)
    cur = self
    d = 0
    adv: list = []  # (dim in cur, index) for advanced parts
    for k in key:
        if isinstance(k, Tensor) and k._data.ndim == 0 and k._dtype.category == dtypes.INT:
            k = int(k.item())
        if k is Ellipsis:
            d += nd - used  # the original dims no other index consumes
            continue
        if k is None:
            cur = shape_ops.unsqueeze(cur, d)
            d += 1
            continue
        if _is_int(k):
            if cur._data.ndim == 0:
                raise IndexError(
                    "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                    "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number"
                )
            cur = shape_ops.select(cur, d, int(k))
            continue
        if isinstance(k, slice):
            start, stop, step = _slice_args(k)
            size = cur._data.shape[d]
            s0, s1, st = slice(start, stop, step).indices(size)
            if not (s0 == 0 and s1 == size and st == 1):
                cur = shape_ops.slice_dim(cur, d, start, stop, step)
            d += 1
            continue
        if _is_advanced(k):
            adv.append((d, k))
            d += _dims_used(k) if not isinstance(k, bool) else 0
            continue
        raise IndexError(
            "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
            "valid indices (got " + type(k).__name__ + ")"
        )
    if adv:
        xp = array_module(cur._data)
        np_key: list = []
        pos = 0
        for dim, k in adv:
            while pos < dim:
                np_key.append(slice(None))
                pos += 1
            np_key.append(_as_index_array(k, xp))
            pos += _dims_used(k) if not isinstance(k, bool) else 0
        return _advanced(cur, tuple(np_key))
    if cur is self:
        return shape_ops.alias(self)
    if settings.legacy and cur._data.ndim == 0 and not self._requires_grad:
        return cur.item()
    return cur


def _slice_args(k: slice):
    def conv(v):
        if isinstance(v, Tensor):
            return int(v.item())
        return v

    step = conv(k.step)
    if step is not None and step <= 0:
        raise ValueError("step must be greater than zero")
    return conv(k.start), conv(k.stop), step if step is not None else 1


Tensor.__getitem__ = getitem


# -- assignment --------------------------------------------------------------------------------
class CopySlices(Node):
    """x[key] = v: the old x gets the gradient with [key] zeroed, v gets grad[key]."""

    def name(self) -> str:
        return "torch::autograd::CopySlices"

    def backward(self, g):
        key = self.key
        xp = array_module(g._data)
        ga = None
        if self.needs_a:
            mask = xp.ones(g._data.shape, dtype=bool)
            mask[key] = False
            ga = g * wrap(mask, dtypes.bool_)
        gv = None
        if self.needs_v:
            gv = _advanced(g, key) if self.advanced else _basic_view(g, key)
            if isinstance(gv, Tensor) and gv._data.shape != self.value_shape:
                gv = gv.sum_to_size(self.value_shape) if self.value_shape else gv.sum()
        return ga, gv


class IndexPutBackward0(CopySlices):
    """x[advanced index] = v."""

    def name(self) -> str:
        return "IndexPutBackward0"


def _basic_view(g: Tensor, key: tuple) -> Tensor:
    """g[key] for a NumPy basic index, recorded as a differentiable view."""
    from gradshell.ops.shape import SelectBackward0, make_view

    node = None
    if needs_grad(g):
        node = SelectBackward0()
        node.input_shape = g._data.shape
        node.key = key
    return make_view(g, g._data[key], node)


def _np_key(t: Tensor, key):
    """The NumPy index equivalent to a PyTorch index (tensors become arrays)."""
    xp = array_module(t._data)
    if not isinstance(key, tuple):
        key = (key,)
    out = []
    advanced = False
    for k in key:
        if isinstance(k, Tensor):
            if k._data.ndim == 0 and k._dtype.category == dtypes.INT:
                out.append(int(k.item()))
                continue
            out.append(_as_index_array(k, xp))
            advanced = True
        elif isinstance(k, (list, np.ndarray)):
            out.append(_as_index_array(k, xp))
            advanced = True
        elif isinstance(k, slice):
            out.append(slice(*_slice_args(k)))
        else:
            out.append(k)
    return tuple(out), advanced


def setitem(self: Tensor, key, value) -> None:
    """self[key] = value (a number or a tensor broadcast to the indexed shape)."""
    np_key, advanced = _np_key(self, key)
    if not advanced and self._requires_grad and self._grad_fn is None and grad_mode.state.enabled:
        raise RuntimeError(VIEW_OF_LEAF_INPLACE)  # PyTorch writes through a view of the leaf
    check_inplace(self, value)
    if isinstance(value, Tensor):
        v = value._data  # cast silently to self's dtype, as PyTorch does in index assignment
        if type(v) is not type(self._data):
            from gradshell.ops.base import check_same_device

            check_same_device(self, value)
    elif is_scalar(value):
        v = value
    else:
        raise TypeError(f"can't assign a {type(value).__name__} to a {self._type_desc()}")
    grad = needs_grad(self, value)
    old = _snapshot_graph(self) if grad else None
    try:
        target_shape = self._data[np_key].shape
        if isinstance(value, Tensor):
            v = array_module(self._data).broadcast_to(
                v
                if v.ndim <= len(target_shape)
                else v.reshape(_squeeze_lead(v.shape, len(target_shape))),
                target_shape,
            )
        self._data[np_key] = v
    except IndexError as e:
        raise _index_error(e) from None
    except ValueError:
        raise RuntimeError(
            f"shape mismatch: value tensor of shape [{', '.join(map(str, value.shape))}] cannot "
            f"be broadcast to indexing result of shape [{', '.join(map(str, target_shape))}]"
        ) from None
    self._bump_version()
    if grad:
        node = IndexPutBackward0() if advanced else CopySlices()
        node.key = np_key
        node.advanced = advanced
        node.needs_a = old._requires_grad
        node.needs_v = isinstance(value, Tensor) and value._requires_grad
        node.value_shape = value._data.shape if isinstance(value, Tensor) else ()
        record(node, (old, value if isinstance(value, Tensor) else None), self)


def _squeeze_lead(shape: tuple, n: int) -> tuple:
    shape = list(shape)
    while len(shape) > n and shape[0] == 1:
        shape.pop(0)
    return tuple(shape)


Tensor.__setitem__ = setitem


@tensor_method("nonzero")
def nonzero(self, *, as_tuple: bool = False):
    """Indices of the non-zero elements (an N×ndim int64 tensor, or a tuple of index vectors)."""
    xp = array_module(self._data)
    idx = xp.nonzero(self._data) if self._data.ndim else xp.nonzero(self._data.reshape(1))
    if as_tuple:
        return tuple(wrap(as_array(i.astype(np.int64)), dtypes.int64) for i in idx)
    stacked = xp.stack(idx, axis=1) if idx else xp.zeros((0, 0), np.int64)
    return wrap(as_array(stacked.astype(np.int64)), dtypes.int64)
