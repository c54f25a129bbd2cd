"""Indexing: `x[...]` (ints, slices, None, Ellipsis as views; tensors, lists and bool
masks as copies) and `x[...] = v`, with PyTorch's nodes (SelectBackward0,
SliceBackward0, IndexBackward0, IndexPutBackward0; a write through a view is CopySlices)."""

from __future__ import annotations

import re
import warnings

import numpy as np

from gradshell.core import dtypes, grad_mode
from gradshell.core.autograd import settings
from gradshell.ops import shape as shape_ops
from gradshell.ops.base import (
    Node,
    Tensor,
    array_module,
    as_array,
    check_same_device,
    install,
    is_scalar,
    needs_grad,
    record,
    tensor_method,
    wrap,
    wrap_dim,
)
from gradshell.ops.base import broadcast_fail as _broadcast_fail
from gradshell.ops.explanation import (
    BACKWARD_OF_BACKWARD,
    Ctx,
    Formula,
    Local,
    const,
    needs,
    num,
    wrap_sym,
)
from gradshell.ops.inplace import (
    VIEW_OF_LEAF_INPLACE,
    _caller_level,
    _snapshot_graph,
    apply_inplace,
    check_inplace,
    commit_write,
)
from gradshell.ops.selection import where

_INDEX_DTYPE_ERROR = "tensors used as indices must be long, int, byte or bool tensors"


_SEQUENCE_AS_TUPLE = (
    "Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed "
    "in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be "
    "interpreted as tensor index, x[torch.tensor(seq)], which will result either in an error "
    "or a different result (Triggered internally at "
    "/__w/pytorch/pytorch/torch/csrc/autograd/python_variable_indexing.cpp:349.)"
)


def normalize_key(key):
    """PyTorch's reading of an index: a short list holding a tensor, a sequence, a slice,
    None or Ellipsis counts as a tuple (with its deprecation warning), and `range`s and
    tuples inside a tuple are index lists."""
    if isinstance(key, range):
        return list(key)
    if isinstance(key, str):
        # PyTorch reads a short string as a sequence of indices, then fails to make a tensor
        if len(key) < 32:
            warnings.warn(_SEQUENCE_AS_TUPLE, UserWarning, stacklevel=_caller_level())
        raise TypeError("new(): invalid data type 'str'")
    if isinstance(key, list) and len(key) < 32:
        for k in key:
            if isinstance(k, (Tensor, list, tuple, range, slice)) or k is None or k is Ellipsis:
                warnings.warn(_SEQUENCE_AS_TUPLE, UserWarning, stacklevel=_caller_level())
                key = tuple(key)
                break
    if isinstance(key, tuple):
        return tuple(list(k) if isinstance(k, (range, tuple)) else k for k in key)
    return key


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
    if isinstance(k, list) and arr.dtype.kind == "f":
        # a list of numbers becomes a long index tensor, floats truncated (x[[]] is empty)
        arr = arr.astype(np.int64)
    if arr.dtype.kind == "f":
        raise IndexError(_INDEX_DTYPE_ERROR)
    if arr.dtype == object:
        raise TypeError(
            "only integers, slices (`:`), ellipsis (`...`), None and long or byte "
            "Variables are valid indices (got list)"
        )
    return xp.asarray(arr)


_NUMPY_BROADCAST = re.compile(
    r"shape mismatch: indexing arrays could not be broadcast together with shapes (.*?)\s*$"
)


def _index_error(e: IndexError) -> IndexError:
    """NumPy's indexing error in PyTorch's words."""
    msg = str(e)
    found = _NUMPY_BROADCAST.match(msg)
    if found:
        # NumPy lists the shapes as tuples, `(32,) (228146,)`; PyTorch as `[32], [228146]`
        shapes = re.findall(r"\(([^)]*)\)", found.group(1))
        listed = ", ".join(
            "[" + ", ".join(d.strip() for d in shape.split(",") if d.strip()) + "]"
            for shape in shapes
        )
        return IndexError(
            f"shape mismatch: indexing tensors could not be broadcast together with shapes {listed}"
        )
    return IndexError(msg.replace("axis", "dimension"))


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
        # the indices count as saved (PyTorch saves the index tensors: freed by backward)
        return (index_backward(g, self.input_shape, self.saved("indices")),)

    no_explanation = "its saved indices are a tuple of index tensors, which formulas cannot read"


class IndexPutImplBackward0(Node):
    """The gradient of index_backward is the gradient gathered at the same indices."""

    def backward(self, gg):
        return (wrap(as_array(gg._data[self.key]), gg._dtype),)

    no_explanation = BACKWARD_OF_BACKWARD


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
        node.save_scalar("indices", key)
        record(node, (t,), res)
    return res


def _expand_key(t: Tensor, key) -> tuple:
    if not isinstance(key, tuple):
        key = (key,)
    used = sum(_dims_used(k) for k in key)
    nd = t._data.ndim
    if used > nd:
        raise IndexError(f"too many indices for tensor of dimension {nd}")
    return key, used


_INT64 = (-(2**63), 2**63 - 1)
_ZERO_DIM_INDEX = (
    "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
    "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number"
)


def _check_int(k) -> None:
    """PyTorch's error for an integer index that does not fit in 64 bits."""
    if not _INT64[0] <= k <= _INT64[1]:
        raise ValueError("Overflow when unpacking long long")


def _select_at(cur: Tensor, d: int, k: int, pos: int) -> Tensor:
    """cur.select(d, k) for the index at position `pos` of the key: PyTorch names that
    position in its out-of-bounds error, and a dimension just past the end has size 0
    (several ellipses can push `d` there)."""
    nd = cur._data.ndim
    if d >= nd:
        # PyTorch reads the size past the last dimension from its inline storage of sizes
        # (5 slots, then the strides): 0 in an unused slot
        size = 0 if d < 5 else (cur.stride()[d - 5] if nd <= 5 and d - 5 < nd else None)
        if size is None or -size <= k < size:
            wrap_dim(d, nd)
        raise IndexError(f"index {k} is out of bounds for dimension {pos} with size {size}")
    size = cur._data.shape[d]
    if not -size <= k < size:
        raise IndexError(f"index {k} is out of bounds for dimension {pos} with size {size}")
    return shape_ops.select(cur, d, int(k))


def _walk(self: Tensor, key, setting: bool = False) -> tuple:
    """Apply the basic parts of the index `key` (ints, slices, None, ellipses) as views of
    `self`, as PyTorch does, in order; returns the view and the advanced parts left
    ((dim, index) pairs, applied afterwards)."""
    nd = self._data.ndim
    if nd == 0 and not isinstance(key, tuple):
        if _is_int(key):
            raise IndexError(_ZERO_DIM_INDEX)
        if isinstance(key, slice):
            raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    key, used = _expand_key(self, key)
    cur = self
    d = 0
    adv: list = []  # (dim in cur, index, position in the key) for advanced parts
    for pos, k in enumerate(key):
        if isinstance(k, Tensor) and k._data.ndim == 0 and k._dtype.category == dtypes.INT:
            k = int(k.item())
        if k is Ellipsis:
            # the original dims no other index consumes (PyTorch skips them again at each
            # further ellipsis)
            d += nd - used
            continue
        if k is None or (setting and k is True):  # writing, True is a new dimension too
            cur = shape_ops.unsqueeze(cur, d)
            d += 1
            continue
        if _is_int(k):
            _check_int(k)
            if cur._data.ndim == 0:
                raise IndexError(_ZERO_DIM_INDEX)
            cur = _select_at(cur, d, k, pos)
            continue
        if isinstance(k, slice):
            start, stop, step = _slice_args(k)
            wrap_dim(d, cur._data.ndim)
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
    return cur, adv


def getitem(self: Tensor, key):
    """self[key] with PyTorch's semantics (views for basic indexing)."""
    if type(key) is not int and not isinstance(key, (slice, Tensor)):
        key = normalize_key(key)
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
            _check_int(key)
            if nd == 0:
                if settings.legacy and key == 0 and self._data.size == 1:
                    return self.item() if not self._requires_grad else self
                raise IndexError(_ZERO_DIM_INDEX)
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
    cur, adv = _walk(self, key)
    if adv:
        return _advanced(cur, _advanced_key(cur, adv))
    if cur is self:
        return shape_ops.alias(self)
    if settings.legacy and cur._data.ndim == 0 and not self._requires_grad:
        return cur.item()
    return cur


def _advanced_key(cur: Tensor, adv: list) -> tuple:
    """The NumPy index for the advanced parts `adv` ((dim, index) pairs) of an index into
    `cur`, checked as PyTorch checks them (its messages count the indexed dimensions)."""
    xp = array_module(cur._data)
    np_key: list = []
    pos = 0
    last = adv[-1]
    needed = last[0] + (_dims_used(last[1]) if not isinstance(last[1], bool) else 0)
    if needed > cur._data.ndim:
        raise IndexError(
            f"too many indices for tensor of dimension {cur._data.ndim} (got {needed})"
        )
    shape = cur._data.shape
    ordinal = 0
    for dim, k in adv:
        while pos < dim:
            np_key.append(slice(None))
            pos += 1
        arr = _as_index_array(k, xp)
        if isinstance(k, bool):
            np_key.append(arr)
            continue
        if arr.dtype == np.uint8:
            warnings.warn(_UINT8_MASK, UserWarning, stacklevel=_caller_level())
            arr = arr.astype(bool)
        if arr.dtype == bool:
            for i, n in enumerate(arr.shape):
                if dim + i >= len(shape) or n != shape[dim + i]:
                    raise IndexError(
                        f"The shape of the mask {list(arr.shape)} at index {i} does not match "
                        f"the shape of the indexed tensor {list(shape)} at index {dim + i}"
                    )
            ordinal += max(arr.ndim, 1)
            pos += max(arr.ndim, 1) if arr.ndim else 0
        else:
            size = shape[dim]
            flat = arr.reshape(-1)
            bad = (flat < -size) | (flat >= size)
            if flat.size and bool(bad.any()):
                v = int(flat[bad][0])
                raise IndexError(
                    f"index {v} is out of bounds for dimension {ordinal} with size {size}"
                )
            ordinal += 1
            pos += 1
        np_key.append(arr)
    return tuple(np_key)


_UINT8_MASK = (
    "indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool "
    "instead. (Triggered internally at "
    "/__w/pytorch/pytorch/aten/src/ATen/native/IndexingUtils.h:37.)"
)


def _slice_args(k: slice):
    def conv(v):
        if isinstance(v, Tensor):
            return int(v.item())
        return v

    step = conv(k.step)
    if step == 0:
        raise ValueError("slice step cannot be zero")
    if step is not None and step < 0:
        raise ValueError("step must be greater than zero")
    return conv(k.start), conv(k.stop), step if step is not None else 1


install("__getitem__", getitem)


# -- assignment --------------------------------------------------------------------------------
class IndexPutBackward0(Node):
    """x[advanced index] = v: the old x gets the gradient with the written positions
    zeroed (whole, when index_put accumulates), v gets the gradient at those positions."""

    accumulate = False

    def backward(self, g):
        self.saved("indices")  # PyTorch saves the index tensors: a second backward fails
        key = self.key
        xp = array_module(g._data)
        ga = None
        if self.needs_a and self.accumulate:
            ga = g
        elif self.needs_a:
            mask = xp.ones(g._data.shape, dtype=bool)
            mask[key] = False
            ga = g * wrap(mask, dtypes.bool_)
        gv = None
        if self.needs_v:
            gv = _advanced(g, key)
            if gv._data.shape != self.value_shape:
                gv = gv.sum_to_size(self.value_shape) if self.value_shape else gv.sum()
        return ga, gv

    no_explanation = (
        "an in-place write through an advanced index: its positions are a tuple of index "
        "tensors, which formulas cannot read"
    )


def setitem(self: Tensor, key, value) -> None:
    """self[key] = value, as PyTorch does it: the basic parts of the index give a view of
    self, which the value (a number or a tensor, stripped of leading size-1 dimensions and
    expanded to the view's shape) is copied into, or put into at the advanced parts."""
    if type(key) is not int and not isinstance(key, (slice, Tensor)):
        key = normalize_key(key)
    if key is False or (isinstance(key, tuple) and any(k is False for k in key)):
        _walk(self, key, setting=True)  # PyTorch's errors still apply; nothing is written
        return
    if grad_mode.state.enabled and self._requires_grad and self._grad_fn is None:
        raise RuntimeError(VIEW_OF_LEAF_INPLACE)  # PyTorch writes through a view of the leaf
    if isinstance(value, Tensor):
        if type(value._data) is not type(self._data):
            check_same_device(self, value)
    elif not is_scalar(value):
        raise TypeError(f"can't assign a {type(value).__name__} to a {self._type_desc()}")
    target, adv = _walk(self, key, setting=True)
    if adv:
        _index_put(target, _advanced_key(target, adv), value)
        return
    if isinstance(value, Tensor):
        v = value
        if v._data.ndim > target._data.ndim:
            v = v.view(_squeeze_lead(v._data.shape, target._data.ndim))
        if v._data.shape != target._data.shape:
            v = v.expand(target._data.shape)
    else:
        v = wrap(array_module(self._data).asarray(value, dtype=self._dtype.np), self._dtype)
    target.copy_(v)


def _index_put(self: Tensor, np_key: tuple, value) -> None:
    """self[np_key] = value for an advanced NumPy index, in place, recorded as
    IndexPutBackward0."""
    check_inplace(self, value)
    v = value._data if isinstance(value, Tensor) else value
    grad = needs_grad(self, value)
    old = _snapshot_graph(self) if grad else None
    target_shape = self._data[np_key].shape
    try:
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
    if grad:
        node = IndexPutBackward0()
        node.key = np_key
        node.needs_a = old._requires_grad
        node.needs_v = isinstance(value, Tensor) and value._requires_grad
        node.value_shape = value._data.shape if isinstance(value, Tensor) else ()
        node.save_scalar("indices", np_key)
        record(node, (old, value if isinstance(value, Tensor) else None), self)
    commit_write(self, grad)


def _squeeze_lead(shape: tuple, n: int) -> tuple:
    shape = list(shape)
    while len(shape) > n and shape[0] == 1:
        shape.pop(0)
    return tuple(shape)


install("__setitem__", setitem)


# -- masked_fill, gather, scatter, scatter_add, index_select, index_add ----------------


def _zeros(shape: tuple, like: Tensor) -> Tensor:
    return wrap(array_module(like._data).zeros(shape, like._dtype.np), like._dtype)


class MaskedFillBackward0(Node):
    """masked_fill with a number: the filled positions get no gradient."""

    legacy_name_02 = "MaskedFillBackward"

    def backward(self, g):
        return (masked_fill(g, self.saved("mask"), 0),)

    def explain(self, c: Ctx) -> Formula:
        mask = c.saved("mask") != 0
        return Formula(
            f"{wrap_sym(c.sym(0))}.masked_fill(mask, c)",
            [Local("0 where mask, else 1", (~mask) * 1.0)],
        )


class MaskedFillBackward1(Node):
    """masked_fill with a 0-dim tensor: the value gets the sum of the filled positions'
    gradient, self the rest."""

    legacy_name_02 = "MaskedFillBackward"

    def backward(self, g):
        mask = self.saved("mask")
        gs = masked_fill(g, mask, 0) if self.needs[0] else None
        gv = where(mask, g, g * 0).sum() if self.needs[1] else None
        return gs, gv

    def explain(self, c: Ctx) -> Formula:
        mask = c.saved("mask") != 0
        ls = Local("0 where mask, else 1", (~mask) * 1.0) if needs(c, 0) else None
        lv = Local("1 where mask, else 0", mask * 1.0, kind="reduce") if needs(c, 1) else None
        return Formula(f"{wrap_sym(c.sym(0))}.masked_fill(mask, {c.sym(1)})", [ls, lv])


@tensor_method("masked_fill", torch=("masked_fill",))
def masked_fill(self, mask, value) -> Tensor:
    """A copy with `value` wherever the boolean `mask` (broadcast) is True."""
    if not isinstance(mask, Tensor):
        raise TypeError(
            f"masked_fill(): argument 'mask' (position 1) must be Tensor, not {type(mask).__name__}"
        )
    if mask._dtype is not dtypes.bool_:
        raise RuntimeError(
            "masked_fill_ only supports boolean masks, but got mask with dtype "
            f"{mask._dtype.cpp_name}"
        )
    tensor_value = isinstance(value, Tensor)
    if tensor_value and value._data.ndim != 0:
        raise RuntimeError(
            "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
            f"{value._data.ndim} dimension(s)."
        )
    xp = array_module(self._data)
    try:
        shape = xp.broadcast_shapes(mask._data.shape, self._data.shape)
    except ValueError:
        raise _broadcast_fail(mask, self) from None
    v = value._data if tensor_value else value
    data = xp.where(mask._data, xp.asarray(v).astype(self._dtype.np), self._data)
    res = wrap(as_array(data.astype(self._dtype.np, copy=False).reshape(shape)), self._dtype)
    if tensor_value:
        if needs_grad(self, value):
            node = MaskedFillBackward1()
            node.needs = (self._requires_grad, value._requires_grad)
            node.save("mask", mask)
            record(node, (self, value), res)
    elif needs_grad(self):
        node = MaskedFillBackward0()
        node.save("mask", mask)
        record(node, (self,), res)
    return res


def _check_index(fname: str, index, expect: str = "int32/int64") -> None:
    if not isinstance(index, Tensor):
        raise TypeError(
            f"{fname}(): argument 'index' (position 2) must be Tensor, not {type(index).__name__}"
        )
    if index._dtype not in (dtypes.int64, dtypes.int32):
        raise RuntimeError(f"{fname}(): Expected dtype {expect} for index")


def _check_bounds(index_data, size: int, dim: int) -> None:
    if index_data.size == 0:
        return
    bad = (index_data < 0) | (index_data >= size)
    if bool(bad.any()):
        v = int(index_data[bad].reshape(-1)[0])
        raise RuntimeError(f"index {v} is out of bounds for dimension {dim} with size {size}")


def _grids(index_data, dim: int):
    """Full index tuples addressing, for each element of `index`, its target along `dim`."""
    xp = array_module(index_data)
    if index_data.ndim == 0:  # a 0-d index into a 1-d tensor addresses one element
        return (index_data.reshape(1),)
    grids = list(xp.indices(index_data.shape, sparse=True))
    grids[dim] = index_data
    return tuple(grids)


class GatherBackward0(Node):
    """gather's gradient is scatter-added back to the gathered positions."""

    legacy_name_02 = "GatherBackward"

    def backward(self, g):
        x = self.saved("self")
        idx = self.saved("index")
        return (scatter_add(_zeros(x._data.shape, g), self.dim, idx, g),)

    def explain(self, c: Ctx) -> Formula:
        shape, dim = c.saved("self").shape, c.attr("dim")
        index = c.saved("index").astype(np.int64)

        def apply(g: np.ndarray) -> np.ndarray:
            out = np.zeros(shape, dtype=np.float64)
            where = list(np.indices(index.shape, sparse=True))
            where[dim] = index
            np.add.at(out, tuple(where), g)
            return out

        rhs = "grad added back at the gathered positions (0 elsewhere)"
        return Formula(f"gather({c.sym(0)}, {dim}, index)", [Local(rhs, kind="map", apply=apply)])


@tensor_method("gather", torch=("gather",))
def gather(self, dim: int, index, *, sparse_grad: bool = False) -> Tensor:
    """out[i][j] = self[index[i][j]][j] (dim 0), and so on: values picked along `dim`."""
    _check_index("gather", index)
    nd = self._data.ndim
    d = wrap_dim(dim, nd)
    if index._data.ndim != nd and not (nd <= 1 and index._data.ndim <= 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    ishape, sshape = index._data.shape, self._data.shape
    for k in range(min(len(ishape), len(sshape))):
        if k != d and ishape[k] > sshape[k]:
            raise RuntimeError(
                f"Size does not match at dimension {k} expected index {list(ishape)} to be no "
                f"larger than self {list(sshape)} apart from dimension {d}"
            )
    size = sshape[d] if nd else 1
    _check_bounds(index._data, size, d)
    xp = array_module(self._data)
    if nd == 0:
        data = self._data.reshape(ishape).copy() if index._data.size else self._data.copy()
    else:
        data = self._data[_grids(index._data.astype(np.int64), d)].reshape(index._data.shape)
    res = wrap(as_array(xp.array(data, copy=True)), self._dtype)
    if needs_grad(self):
        node = GatherBackward0()
        node.dim = d
        node.save("self", self)
        node.save("index", index)
        record(node, (self,), res)
    return res


class ScatterBackward0(Node):
    """scatter with a tensor src: self loses the overwritten positions, src gathers them."""

    legacy_name_02 = "ScatterBackward"

    def backward(self, g):
        idx = self.saved("index")
        gs = scatter(g, self.dim, idx, 0) if self.needs[0] else None
        gsrc = gather(g, self.dim, idx) if self.needs[1] else None
        return gs, gsrc

    def explain(self, c: Ctx) -> Formula:
        return _scatter_formula(c, overwrite=True, src=True)


class ScatterBackward1(Node):
    """scatter with a number: the overwritten positions get no gradient."""

    legacy_name_02 = "ScatterBackward"

    def backward(self, g):
        return (scatter(g, self.dim, self.saved("index"), 0),)

    def explain(self, c: Ctx) -> Formula:
        return _scatter_formula(c, overwrite=True, src=False)


def _scatter_checks(fname: str, self: Tensor, dim: int, index, src) -> int:
    _check_index(fname, index)
    nd = self._data.ndim
    d = wrap_dim(dim, nd)
    if index._data.ndim != nd and not (nd <= 1 and index._data.ndim <= 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    if isinstance(src, Tensor):
        if src._dtype is not self._dtype:
            raise RuntimeError(f"{fname}(): Expected self.dtype to be equal to src.dtype")
        if max(src._data.ndim, 1) != max(index._data.ndim, 1) and index._data.size:
            raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
        for k in range(index._data.ndim):
            if index._data.shape[k] > src._data.shape[k]:
                raise RuntimeError(
                    f"Expected index {list(index._data.shape)} to be no larger than self "
                    f"{list(self._data.shape)} apart from dimension {d} and to be no larger "
                    f"than src {list(src._data.shape)}"
                )
    for k in range(min(index._data.ndim, nd)):
        if k != d and index._data.shape[k] > self._data.shape[k]:
            raise RuntimeError(
                f"Expected index {list(index._data.shape)} to be no larger than self "
                f"{list(self._data.shape)} apart from dimension {d}"
                + (
                    f" and to be no larger than src {list(src._data.shape)}"
                    if isinstance(src, Tensor)
                    else ""
                )
            )
    _check_bounds(index._data, self._data.shape[d] if nd else 1, d)
    return d


def _src_part(src: Tensor, index) -> object:
    if index._data.ndim == 0:  # one element: the first of src
        return src._data.reshape(-1)[:1]
    return src._data[tuple(slice(0, s) for s in index._data.shape)]


@tensor_method("scatter", torch=("scatter",))
def scatter(self, dim: int, index, src=None, *, value=None, reduce=None) -> Tensor:
    """A copy with values from `src` (a tensor or number) written at `index` along `dim`."""
    if reduce is not None:
        raise NotImplementedError("gradshell does not support scatter(reduce=...)")
    if src is None:
        src = value
    d = _scatter_checks("scatter", self, dim, index, src)
    xp = array_module(self._data)
    out = xp.array(self._data, copy=True)
    if index._data.size:
        key = _grids(index._data.astype(np.int64), d) if out.ndim else ()
        if isinstance(src, Tensor):
            out[key] = _src_part(src, index)
        else:
            out[key] = src
    res = wrap(out, self._dtype)
    tensor_src = isinstance(src, Tensor)
    if needs_grad(self, src if tensor_src else None):
        if tensor_src:
            node = ScatterBackward0()
            node.needs = (self._requires_grad, src._requires_grad)
            node.dim = d
            node.save("index", index)
            record(node, (self, src), res)
        else:
            node = ScatterBackward1()
            node.dim = d
            node.save("index", index)
            record(node, (self,), res)
    return res


class ScatterAddBackward0(Node):
    """scatter_add: self passes its gradient through, src gathers it at `index`."""

    def backward(self, g):
        gsrc = gather(g, self.dim, self.saved("index")) if self.needs[1] else None
        return (g if self.needs[0] else None), gsrc

    def explain(self, c: Ctx) -> Formula:
        return _scatter_formula(c, overwrite=False, src=True)


@tensor_method("scatter_add", torch=("scatter_add",))
def scatter_add(self, dim: int, index, src) -> Tensor:
    """A copy with `src` added at `index` along `dim` (repeated indices accumulate)."""
    if not isinstance(src, Tensor):
        raise TypeError(
            f"scatter_add(): argument 'src' (position 3) must be Tensor, not {type(src).__name__}"
        )
    d = _scatter_checks("scatter_add", self, dim, index, src)
    xp = array_module(self._data)
    out = xp.array(self._data, copy=True)
    if index._data.size:
        key = _grids(index._data.astype(np.int64), d) if out.ndim else ()
        xp.add.at(out, key, _src_part(src, index))
    res = wrap(out, self._dtype)
    if needs_grad(self, src):
        node = ScatterAddBackward0()
        node.needs = (self._requires_grad, src._requires_grad)
        node.dim = d
        node.save("index", index)
        record(node, (self, src), res)
    return res


def _vector_index(fname: str, index, expect: str) -> None:
    if not isinstance(index, Tensor):
        raise TypeError(
            f"{fname}(): argument 'index' (position 2) must be Tensor, not {type(index).__name__}"
        )
    if index._dtype not in (dtypes.int64, dtypes.int32):
        raise RuntimeError(f"{fname}(): Expected dtype {expect} for index")
    if index._data.ndim > 1:
        raise IndexError(f"{fname}(): Index is supposed to be a vector")


class IndexSelectBackward0(Node):
    """index_select's gradient is index-added back (repeated indices accumulate)."""

    legacy_name_02 = "IndexSelectBackward"

    def backward(self, g):
        return (index_add(_zeros(self.input_shape, g), self.dim, self.saved("index"), g),)

    def explain(self, c: Ctx) -> Formula:
        shape, dim = tuple(c.attr("input_shape")), c.attr("dim")
        index = c.saved("index").astype(np.int64).reshape(-1)

        def apply(g: np.ndarray) -> np.ndarray:
            out = np.zeros(shape, dtype=np.float64)
            np.add.at(np.moveaxis(out, dim, 0), index, np.moveaxis(g, dim, 0))
            return out

        rhs = "grad added back at the selected indices (0 elsewhere)"
        return Formula(
            f"index_select({c.sym(0)}, {dim}, index)", [Local(rhs, kind="map", apply=apply)]
        )


@tensor_method("index_select", torch=("index_select",))
def index_select(self, dim: int, index) -> Tensor:
    """The slices at `index` (a vector) along `dim`, copied."""
    _vector_index("index_select", index, "int32 or int64")
    nd = self._data.ndim
    d = wrap_dim(dim, nd)
    size = self._data.shape[d] if nd else 1
    idx = index._data.reshape(-1).astype(np.int64)
    if idx.size and bool(((idx < 0) | (idx >= size)).any()):
        raise IndexError("index out of range in self")
    xp = array_module(self._data)
    if nd == 0:
        data = self._data.reshape(index._data.shape).copy() if idx.size else self._data.copy()
    else:
        data = xp.take(self._data, idx, axis=d)
    res = wrap(as_array(data), self._dtype)
    if needs_grad(self):
        node = IndexSelectBackward0()
        node.dim, node.input_shape = d, self._data.shape
        node.save("index", index)
        record(node, (self,), res)
    return res


class IndexAddBackward0(Node):
    """index_add: self passes its gradient through, source selects it at `index` (× alpha)."""

    def backward(self, g):
        gsrc = None
        if self.needs[1]:
            gsrc = index_select(g, self.dim, self.saved("index"))
            if self.alpha != 1:
                gsrc = gsrc * self.alpha
            if gsrc._data.shape != self.source_shape:
                gsrc = gsrc.reshape(self.source_shape)
        return (g if self.needs[0] else None), gsrc

    def explain(self, c: Ctx) -> Formula:
        dim, alpha = c.attr("dim"), c.attr("alpha")
        index = c.saved("index").astype(np.int64).reshape(-1)
        shape = tuple(c.attr("source_shape"))
        k = "" if alpha == 1 else f"{num(alpha)}·"
        ls = const(1) if needs(c, 0) else None
        lsrc = None
        if needs(c, 1):
            lsrc = Local(
                f"{k}grad at the indices",
                kind="map",
                apply=lambda g: (alpha * np.take(g, index, axis=dim)).reshape(shape),
            )
        return Formula(f"index_add({c.sym(0)}, {dim}, index, {c.sym(1)})", [ls, lsrc])


@tensor_method("index_add", torch=("index_add",))
def index_add(self, dim: int, index, source, *, alpha=1) -> Tensor:
    """A copy with alpha * source added at the positions `index` (a vector) along `dim`."""
    _vector_index("index_add", index, "int32 or int64")
    nd = self._data.ndim
    d = wrap_dim(dim, nd)
    xp = array_module(self._data)
    out = xp.array(self._data, copy=True)
    idx = index._data.reshape(-1).astype(np.int64)
    size = self._data.shape[d] if nd else 1
    if idx.size and bool(((idx < 0) | (idx >= size)).any()):
        raise IndexError("index out of range in self")
    src = source._data if alpha == 1 else source._data * alpha
    if nd == 0:
        out = out + src.reshape(())
    else:
        moved = xp.moveaxis(out, d, 0)
        xp.add.at(moved, idx, xp.moveaxis(src.reshape(source._data.shape), d, 0))
    res = wrap(as_array(out.astype(self._dtype.np, copy=False)), self._dtype)
    if needs_grad(self, source):
        node = IndexAddBackward0()
        node.needs = (self._requires_grad, source._requires_grad)
        node.dim, node.alpha, node.source_shape = d, alpha, source._data.shape
        node.save("index", index)
        record(node, (self, source), res)
    return res


def _inplace_of(name: str, func):
    def method(self, *args, **kwargs):
        return apply_inplace(self, func, args, kwargs, name)

    method.__name__ = name
    method.__doc__ = f"In-place {name[:-1]}."
    return method


for _fn in (masked_fill, scatter, scatter_add, index_add):
    install(_fn.__name__ + "_", _inplace_of(_fn.__name__ + "_", _fn))


def _scatter_formula(c: Ctx, *, overwrite: bool, src: bool) -> Formula:
    """scatter / scatter_add: self keeps its gradient (less the overwritten positions for
    scatter), src takes the gradient at the positions it was written to."""
    dim = c.attr("dim")
    index = c.saved("index").astype(np.int64)

    def keep(g: np.ndarray) -> np.ndarray:
        out = np.array(g, dtype=np.float64)
        np.put_along_axis(out, index, 0.0, axis=dim)
        return out

    if overwrite:
        ls = Local("grad, 0 at the overwritten positions", kind="map", apply=keep)
    else:
        ls = const(1)
    ls = ls if needs(c, 0) else None
    locals_: list[Local | None] = [ls]
    if src:
        lsrc = Local(
            "grad at the positions written",
            kind="map",
            apply=lambda g: np.take_along_axis(g, index, axis=dim),
        )
        locals_.append(lsrc if needs(c, 1) else None)
    name = "scatter" if overwrite else "scatter_add"
    value = c.sym(1) if src else "c"
    return Formula(f"{name}({c.sym(0)}, {dim}, index, {value})", locals_)
