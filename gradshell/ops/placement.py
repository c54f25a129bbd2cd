"""Reading and writing elements by mask or by flat/per-dimension index: masked_select,
masked_scatter, take, index_fill, index_copy and index_put, with their in-place forms
(which record the same nodes as PyTorch's in-place variants)."""

from __future__ import annotations

import numpy as np

from gradshell.core import dtypes
from gradshell.ops.base import (
    Node,
    Tensor,
    array_module,
    as_array,
    install,
    needs_grad,
    record,
    tensor_method,
    wrap,
    wrap_dim,
)
from gradshell.ops.base import broadcast_fail as _broadcast_fail
from gradshell.ops.explanation import Ctx, Formula, Local, needs
from gradshell.ops.indexing import (
    IndexPutBackward0,
    _as_index_array,
    _slice_args,
    index_backward,
    index_select,
    masked_fill,
)
from gradshell.ops.inplace import apply_inplace
from gradshell.ops.shape import cat


def _np_key(t: Tensor, key) -> tuple:
    """The NumPy index for index_put's tuple of indices (tensors become arrays)."""
    xp = array_module(t._data)
    out = []
    for k in key if isinstance(key, tuple) else (key,):
        if isinstance(k, Tensor):
            if k._data.ndim == 0 and k._dtype.category == dtypes.INT:
                out.append(int(k.item()))
                continue
            out.append(_as_index_array(k, xp))
        elif isinstance(k, (list, np.ndarray)):
            out.append(_as_index_array(k, xp))
        elif isinstance(k, slice):
            out.append(slice(*_slice_args(k)))
        else:
            out.append(k)
    return tuple(out), True


def _bool_mask(fname: str, mask) -> None:
    if not isinstance(mask, Tensor):
        raise TypeError(
            f"{fname}(): argument 'mask' (position 1) must be Tensor, not {type(mask).__name__}"
        )
    if mask._dtype is not dtypes.bool_:
        raise RuntimeError(f"{fname}: expected BoolTensor for mask")


def _broadcast(self: Tensor, mask: Tensor) -> tuple:
    try:
        return tuple(array_module(self._data).broadcast_shapes(mask._data.shape, self._data.shape))
    except ValueError:
        raise _broadcast_fail(mask, self) from None


# -- masked_select -------------------------------------------------------------------------------
class MaskedSelectBackward0(Node):
    """The selected elements' gradient goes back to their positions (0 elsewhere), summed
    over any broadcast of self against the mask."""

    def backward(self, g):
        mask = self.saved("mask")  # PyTorch saves the mask: a second backward fails
        xp = array_module(mask._data)
        key = tuple(xp.nonzero(xp.broadcast_to(mask._data, self.shape)))
        full = index_backward(g, self.shape, key)
        if full._data.shape != self.input_shape:
            full = full.sum_to_size(self.input_shape)
        return (full,)

    def explain(self, c: Ctx) -> Formula:
        shape, input_shape = tuple(c.attr("shape")), tuple(c.attr("input_shape"))
        key = np.nonzero(np.broadcast_to(c.saved("mask") != 0, shape))

        def apply(g: np.ndarray) -> np.ndarray:
            out = np.zeros(shape)
            out[key] = g
            lead = len(shape) - len(input_shape)
            out = out.sum(axis=tuple(range(lead))) if lead else out
            axes = tuple(i for i, s in enumerate(input_shape) if s == 1 and out.shape[i] != 1)
            return out.sum(axis=axes, keepdims=True) if axes else out

        rhs = "grad put back where the mask is True (0 elsewhere)"
        return Formula(f"masked_select({c.sym(0)}, mask)", [Local(rhs, kind="map", apply=apply)])


@tensor_method("masked_select", torch=("masked_select",))
def masked_select(self, mask) -> Tensor:
    """The elements where the boolean `mask` (broadcast with self) is True, as 1-d."""
    _bool_mask("masked_select", mask)
    shape = _broadcast(self, mask)
    xp = array_module(self._data)
    m = xp.broadcast_to(mask._data, shape)
    key = tuple(xp.nonzero(m))
    res = wrap(as_array(xp.broadcast_to(self._data, shape)[key]), self._dtype)
    if needs_grad(self):
        node = MaskedSelectBackward0()
        node.shape, node.input_shape = shape, tuple(self._data.shape)
        node.save("mask", mask)
        record(node, (self,), res)
    return res


# -- masked_scatter ------------------------------------------------------------------------------
class MaskedScatterBackward0(Node):
    """self keeps the gradient where the mask is False; source takes, in order, the
    gradient of the positions it was written to (0 for its unused elements)."""

    def backward(self, g):
        mask = self.saved("mask")
        gs = masked_fill(g, mask, 0) if self.needs[0] else None
        gsrc = None
        if self.needs[1]:
            picked = masked_select(g, mask)
            n = int(np.prod(self.source_shape))
            if picked._data.size < n:
                pad = wrap(
                    array_module(g._data).zeros(n - picked._data.size, g._dtype.np), g._dtype
                )
                picked = cat([picked, pad])
            gsrc = picked.reshape(self.source_shape)
        return gs, gsrc

    def explain(self, c: Ctx) -> Formula:
        mask = np.broadcast_to(c.saved("mask") != 0, c.attr("out_shape"))
        n = int(np.prod(c.attr("source_shape")))
        source_shape = tuple(c.attr("source_shape"))

        def to_source(g: np.ndarray) -> np.ndarray:
            flat = np.zeros(n)
            picked = g[mask]
            flat[: picked.size] = picked
            return flat.reshape(source_shape)

        ls = Local("0 where mask, else 1", (~mask) * 1.0) if needs(c, 0) else None
        lsrc = Local("grad where mask, in order", kind="map", apply=to_source)
        return Formula(
            f"{c.sym(0)}.masked_scatter(mask, {c.sym(1)})",
            [ls, lsrc if needs(c, 1) else None],
        )


@tensor_method("masked_scatter", torch=("masked_scatter",))
def masked_scatter(self, mask, source) -> Tensor:
    """A copy of self with the positions where `mask` is True filled, in row-major order,
    by the first elements of `source`."""
    _bool_mask("masked_scatter", mask)
    shape = _broadcast(self, mask)
    xp = array_module(self._data)
    m = xp.broadcast_to(mask._data, shape)
    count = int(m.sum())
    if count > source._data.size:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    out = xp.array(xp.broadcast_to(self._data, shape), copy=True)
    out[m] = source._data.reshape(-1)[:count].astype(self._dtype.np)
    res = wrap(out, self._dtype)
    if needs_grad(self, source):
        node = MaskedScatterBackward0()
        node.needs = (self._requires_grad, source._requires_grad)
        node.source_shape, node.out_shape = tuple(source._data.shape), shape
        node.save("mask", mask)
        record(node, (self, source), res)
    return res


# -- take ----------------------------------------------------------------------------------------
class TakeBackward0(Node):
    """take's gradient is added back at the flat positions it read (repeats accumulate)."""

    def backward(self, g):
        idx = self.saved("index")
        n = int(np.prod(self.input_shape))
        key = (array_module(g._data).asarray(idx._data, dtype=np.int64).reshape(-1) % max(n, 1),)
        return (index_backward(g.reshape(-1), (n,), key).reshape(self.input_shape),)

    def explain(self, c: Ctx) -> Formula:
        shape = tuple(c.attr("input_shape"))
        n = int(np.prod(shape))
        idx = c.saved("index").astype(np.int64).reshape(-1) % max(n, 1)

        def apply(g: np.ndarray) -> np.ndarray:
            out = np.zeros(n)
            np.add.at(out, idx, g.reshape(-1))
            return out.reshape(shape)

        rhs = "grad added back at the flat indices taken"
        return Formula(f"take({c.sym(0)}, index)", [Local(rhs, kind="map", apply=apply)])


@tensor_method("take", torch=("take",))
def take(self, index) -> Tensor:
    """The elements at flat (row-major) positions `index`, shaped like `index`."""
    if not isinstance(index, Tensor):
        raise TypeError(
            f"take(): argument 'index' (position 1) must be Tensor, not {type(index).__name__}"
        )
    if index._dtype is not dtypes.int64:
        raise RuntimeError(
            f"take(): Expected a long tensor for index, but got {index._dtype.scalar_name}"
        )
    n = self._data.size
    idx = index._data.astype(np.int64)
    bad = (idx < -n) | (idx >= n)
    if bool(bad.any()):
        v = int(idx[bad].reshape(-1)[0])
        raise IndexError(f"out of range: tried to access index {v} on a tensor of {n} elements.")
    res = wrap(as_array(self._data.reshape(-1)[idx % max(n, 1)]), self._dtype)
    if needs_grad(self):
        node = TakeBackward0()
        node.input_shape = tuple(self._data.shape)
        node.save("index", index)
        record(node, (self,), res)
    return res


# -- index_fill / index_copy ---------------------------------------------------------------------
def _dim_index(fname: str, self: Tensor, dim: int, index) -> tuple:
    """(dim, index array) after PyTorch's checks on a vector index along `dim`."""
    if not isinstance(index, Tensor):
        raise TypeError(
            f"{fname}(): argument 'index' (position 2) must be Tensor, not {type(index).__name__}"
        )
    if index._dtype is not dtypes.int64:
        raise IndexError(f"{fname}_(): Expected dtype int64 for index.")
    if index._data.ndim > 1:
        raise IndexError(f"{fname}_(): Index is supposed to be a vector")
    nd = self._data.ndim
    d = wrap_dim(dim, nd)
    size = self._data.shape[d] if nd else 1
    idx = index._data.reshape(-1).astype(np.int64)
    bad = (idx < -size) | (idx >= size)
    if bool(bad.any()):
        v = int(idx[bad][0])
        raise IndexError(f"index {v} is out of bounds for dimension {d} with size {size}")
    return d, idx % max(size, 1)


def _along(data, d: int, idx):
    """The index tuple addressing positions `idx` along dimension `d` of `data`."""
    return (slice(None),) * d + (idx,) if data.ndim else ()


class IndexFillBackward0(Node):
    """index_fill with a number: the filled slices get no gradient."""

    def backward(self, g):
        return (g.index_fill(self.dim, self.saved("index"), 0),)

    def explain(self, c: Ctx) -> Formula:
        return Formula(
            f"{c.sym(0)}.index_fill({c.attr('dim')}, index, c)",
            [Local("0 in the filled slices, else 1", _filled_mask(c) * 1.0)],
        )


def _filled_mask(c: Ctx) -> np.ndarray:
    keep = np.ones(c.attr("input_shape"), dtype=bool)
    keep[_along(keep, c.attr("dim"), c.saved("index").astype(np.int64).reshape(-1))] = False
    return keep


class IndexFillBackward1(Node):
    """index_fill with a 0-d tensor: the value gets the summed gradient of the filled
    slices, self the rest."""

    def backward(self, g):
        index = self.saved("index")
        gs = g.index_fill(self.dim, index, 0) if self.needs[0] else None
        gv = index_select(g, self.dim, index).sum() if self.needs[1] else None
        return gs, gv

    def explain(self, c: Ctx) -> Formula:
        keep = _filled_mask(c)
        ls = Local("0 in the filled slices, else 1", keep * 1.0) if needs(c, 0) else None
        lv = Local("1 in the filled slices", (~keep) * 1.0, kind="reduce") if needs(c, 1) else None
        return Formula(f"{c.sym(0)}.index_fill({c.attr('dim')}, index, {c.sym(1)})", [ls, lv])


@tensor_method("index_fill", torch=("index_fill",))
def index_fill(self, dim: int, index, value) -> Tensor:
    """A copy with the slices at `index` along `dim` set to `value`."""
    d, idx = _dim_index("index_fill", self, dim, index)
    tensor_value = isinstance(value, Tensor)
    if tensor_value and value._data.ndim != 0:
        raise RuntimeError(
            "index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
            f"{value._data.ndim} dimension(s)."
        )
    xp = array_module(self._data)
    out = xp.array(self._data, copy=True)
    out[_along(out, d, idx)] = value._data if tensor_value else value
    res = wrap(out, self._dtype)
    if tensor_value and needs_grad(self, value):
        node = IndexFillBackward1()
        node.needs = (self._requires_grad, value._requires_grad)
        node.dim, node.input_shape = d, tuple(self._data.shape)
        node.save("index", index)
        record(node, (self, value), res)
    elif not tensor_value and needs_grad(self):
        node = IndexFillBackward0()
        node.dim, node.input_shape = d, tuple(self._data.shape)
        node.save("index", index)
        record(node, (self,), res)
    return res


class IndexCopyBackward0(Node):
    """index_copy: self keeps the gradient outside the copied slices, source takes the
    gradient of the slices it was copied to."""

    def backward(self, g):
        index = self.saved("index")
        gs = g.index_fill(self.dim, index, 0) if self.needs[0] else None
        gsrc = index_select(g, self.dim, index) if self.needs[1] else None
        if gsrc is not None and gsrc._data.shape != self.source_shape:
            gsrc = gsrc.reshape(self.source_shape)
        return gs, gsrc

    def explain(self, c: Ctx) -> Formula:
        dim = c.attr("dim")
        idx = c.saved("index").astype(np.int64).reshape(-1)
        shape = tuple(c.attr("source_shape"))
        ls = Local("0 in the copied slices, else 1", _filled_mask(c) * 1.0) if needs(c, 0) else None
        lsrc = None
        if needs(c, 1):
            lsrc = Local(
                "grad of the slices copied to",
                kind="map",
                apply=lambda g: np.take(g, idx, axis=dim).reshape(shape),
            )
        return Formula(f"{c.sym(0)}.index_copy({dim}, index, {c.sym(1)})", [ls, lsrc])


@tensor_method("index_copy", torch=("index_copy",))
def index_copy(self, dim: int, index, source) -> Tensor:
    """A copy with the slices at `index` along `dim` replaced by `source`'s slices."""
    d, idx = _dim_index("index_copy", self, dim, index)
    nd = self._data.ndim
    sshape = source._data.shape
    if nd and source._data.ndim and source._data.ndim != nd:
        raise IndexError(
            "index_copy_(): When source and destination are not scalars, their dimensionality "
            f"must match. Source dimensionality ({source._data.ndim}), destination "
            f"dimensionality ({nd})"
        )
    if nd and source._data.ndim:
        dest_slice = self._data.shape[:d] + self._data.shape[d + 1 :]
        src_slice = sshape[:d] + sshape[d + 1 :]
        if dest_slice != src_slice:
            raise RuntimeError(
                "index_copy_(): Source/destination tensor must have same slice shapes. "
                f"Destination slice shape: {' '.join(map(str, dest_slice))} at dimension {d} "
                f"and source slice shape: {' '.join(map(str, src_slice))} at dimension 0."
            )
    nsrc = sshape[d] if source._data.ndim else 1
    if idx.size != nsrc:
        raise IndexError(
            f"index_copy_(): Number of indices ({idx.size}) should be equal to "
            f"source.size(dim) ({nsrc})"
        )
    xp = array_module(self._data)
    out = xp.array(self._data, copy=True)
    out[_along(out, d, idx)] = source._data.astype(self._dtype.np).reshape(
        out[_along(out, d, idx)].shape
    )
    res = wrap(out, self._dtype)
    if needs_grad(self, source):
        node = IndexCopyBackward0()
        node.needs = (self._requires_grad, source._requires_grad)
        node.dim, node.input_shape, node.source_shape = d, tuple(self._data.shape), sshape
        node.save("index", index)
        record(node, (self, source), res)
    return res


# -- index_put -----------------------------------------------------------------------------------
@tensor_method("index_put", torch=("index_put",))
def index_put(self, indices, values, accumulate: bool = False) -> Tensor:
    """A copy with `values` written (or, with accumulate, added) at the advanced index
    `indices` (a tuple of index tensors)."""
    if not isinstance(indices, (tuple, list)):
        raise TypeError(
            "index_put(): argument 'indices' (position 1) must be tuple of Tensors, not "
            f"{type(indices).__name__}"
        )
    if not isinstance(values, Tensor):
        raise TypeError(
            "index_put(): argument 'values' (position 2) must be Tensor, not "
            f"{type(values).__name__}"
        )
    key, _ = _np_key(self, tuple(indices))
    xp = array_module(self._data)
    out = xp.array(self._data, copy=True)
    try:
        target = out[key].shape
        v = xp.broadcast_to(values._data.astype(self._dtype.np), target)
        if accumulate:
            xp.add.at(out, key, v)
        else:
            out[key] = v
    except IndexError as e:
        raise IndexError(str(e).replace("axis", "dimension")) from None
    except ValueError:
        raise RuntimeError(
            f"shape mismatch: value tensor of shape [{', '.join(map(str, values.shape))}] "
            f"cannot be broadcast to indexing result of shape [{', '.join(map(str, target))}]"
        ) from None
    res = wrap(out, self._dtype)
    if needs_grad(self, values):
        node = IndexPutBackward0()
        node.key, node.accumulate = key, accumulate
        node.needs_a, node.needs_v = self._requires_grad, values._requires_grad
        node.value_shape = values._data.shape
        node.save_scalar("indices", key)
        record(node, (self, values), res)
    return res


def _inplace_of(name: str, func):
    def method(self, *args, **kwargs):
        return apply_inplace(self, func, args, kwargs, name)

    method.__name__ = name
    method.__doc__ = f"In-place {name[:-1]}: records the same node as {name[:-1]}."
    return method


for _fn in (masked_scatter, index_fill, index_copy, index_put):
    install(_fn.__name__ + "_", _inplace_of(_fn.__name__ + "_", _fn))
