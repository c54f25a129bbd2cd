"""Arrangements composed of the shape family's views and copies, recording the nodes
PyTorch records for them: broadcast_to, broadcast_tensors, meshgrid (expand), tile
(repeat), ravel (contiguous + view), atleast_1d/2d/3d (reshape, unsqueeze), diff (slices
and sub), tensor_split / vsplit / hsplit / dsplit (slices), cartesian_prod and
combinations (meshgrid, then flatten or masked_select, and stack); and rot90
(Rot90Backward0) and block_diag (BlockDiagBackward0)."""

from __future__ import annotations

import numpy as np

from gradshell.core import dtypes, warn_once
from gradshell.ops.base import (
    Node,
    Tensor,
    array_module,
    broadcast_error,
    needs_grad,
    record,
    tensor_method,
    wrap,
    wrap_dim,
)
from gradshell.ops.explanation import Ctx, Formula, Local
from gradshell.ops.inplace import _caller_level, copy_
from gradshell.ops.placement import masked_select
from gradshell.ops.shape import (
    _sizes,
    cat,
    contiguous,
    expand,
    repeat,
    reshape,
    slice_dim,
    stack,
    unsqueeze,
    view,
)

BOOL_DTYPE = dtypes.bool_

MESHGRID_INDEXING = (
    "torch.meshgrid: in an upcoming release, it will be required to pass the indexing "
    "argument. (Triggered internally at "
    "/__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4215.)"
)


@tensor_method("broadcast_to", torch=("broadcast_to",))
def broadcast_to(self, size) -> Tensor:
    """expand(size): a broadcast view (ExpandBackward0)."""
    return expand(self, tuple(size))


def _tensors(args) -> list:
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        return list(args[0])
    return list(args)


def _broadcast_shape(shapes: list) -> tuple:
    out: tuple = ()
    for s in shapes:
        try:
            out = _pair_broadcast(out, s)
        except ValueError:
            raise broadcast_error(out, s) from None
    return out


def _pair_broadcast(a: tuple, b: tuple) -> tuple:
    # the broadcast of two shapes (ValueError if they do not broadcast)
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + tuple(a)
    b = (1,) * (n - len(b)) + tuple(b)
    out = []
    for x, y in zip(a, b, strict=True):
        if x != y and x != 1 and y != 1:
            raise ValueError
        out.append(y if x == 1 else x)
    return tuple(out)


@tensor_method(torch=("broadcast_tensors",))
def broadcast_tensors(*tensors) -> tuple:
    """The tensors expanded to their common shape; one already of that shape is returned
    as it is (as PyTorch does, no node)."""
    ts = _tensors(tensors)
    shape = _broadcast_shape([tuple(t._data.shape) for t in ts])
    return tuple(t if tuple(t._data.shape) == shape else expand(t, shape) for t in ts)


@tensor_method(torch=("meshgrid",))
def meshgrid(*tensors, indexing: str | None = None) -> tuple:
    """Coordinate grids from 0-d/1-d tensors: each is viewed along its own dimension and
    expanded to the grid (indexing 'ij': matrix order; 'xy': the first two swapped)."""
    ts = _tensors(tensors)
    if indexing is None:
        warn_once.warn_once(MESHGRID_INDEXING, stacklevel=_caller_level())
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(
            f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}'
        )
    if not ts:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in ts:
        if t._data.ndim > 1:
            raise RuntimeError(
                "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got a "
                f"{t._data.ndim}D tensor"
            )
    for t in ts[1:]:
        if t._dtype is not ts[0]._dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
        if array_module(t._data) is not array_module(ts[0]._data):
            raise RuntimeError("meshgrid expects all tensors to have the same device")
    order = list(range(len(ts)))
    if indexing == "xy" and len(ts) >= 2:
        order[0], order[1] = 1, 0  # input 0 runs along dim 1, input 1 along dim 0
    grid = [0] * len(ts)
    for i, d in enumerate(order):
        grid[d] = ts[i]._data.size
    out = []
    for i, t in enumerate(ts):
        shape = [1] * len(ts)
        shape[order[i]] = -1
        out.append(expand(view(t, tuple(shape)), tuple(grid)))
    return tuple(out)


@tensor_method("tile", torch=("tile",))
def tile(self, *dims) -> Tensor:
    """repeat with `dims` padded by leading ones to the tensor's rank (RepeatBackward0)."""
    reps = _sizes(dims)
    nd = self._data.ndim
    if len(reps) < nd:
        reps = (1,) * (nd - len(reps)) + tuple(reps)
    return repeat(self, reps)


@tensor_method("ravel", torch=("ravel",))
def ravel(self) -> Tensor:
    """The elements as one dimension: contiguous().view(-1), a view when it can be."""
    return view(contiguous(self), -1)


def _atleast(tensors: tuple, fix):
    if len(tensors) == 1 and isinstance(tensors[0], Tensor):
        return fix(tensors[0])
    return tuple(fix(t) for t in _tensors(tensors))


def _at_least_1d(t: Tensor) -> Tensor:
    return reshape(t, 1) if t._data.ndim == 0 else t


def _at_least_2d(t: Tensor) -> Tensor:
    nd = t._data.ndim
    if nd == 0:
        return reshape(t, (1, 1))
    return unsqueeze(t, 0) if nd == 1 else t


def _at_least_3d(t: Tensor) -> Tensor:
    nd = t._data.ndim
    if nd == 0:
        return reshape(t, (1, 1, 1))
    if nd == 1:
        return unsqueeze(unsqueeze(t, 0), -1)
    return unsqueeze(t, -1) if nd == 2 else t


@tensor_method(torch=("atleast_1d",))
def atleast_1d(*tensors):
    """A 0-d tensor as one element of 1-d; others as they are (a tuple for several)."""
    return _atleast(tensors, _at_least_1d)


@tensor_method(torch=("atleast_2d",))
def atleast_2d(*tensors):
    """Tensors of rank below 2 given leading dimensions of size 1."""
    return _atleast(tensors, _at_least_2d)


@tensor_method(torch=("atleast_3d",))
def atleast_3d(*tensors):
    """Tensors of rank below 3 given dimensions of size 1 (1-d: (1, n, 1); 2-d: (m, n, 1))."""
    return _atleast(tensors, _at_least_3d)


# -- diff, tensor_split and its named forms ------------------------------------------------------
@tensor_method("diff", torch=("diff",))
def diff(self, n: int = 1, dim: int = -1, prepend=None, append=None) -> Tensor:
    """The n-th forward difference along `dim` (after `prepend`/`append` are attached):
    each step is a slice minus the slice before it (xor for booleans)."""
    if self._data.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = wrap_dim(dim, self._data.ndim)
    parts = [p for p in (prepend, self, append) if p is not None]
    for p in parts:
        if p._data.ndim != self._data.ndim:
            raise RuntimeError("diff expects prepend or append to be the same dimension as input")
    out = cat(parts, d) if len(parts) > 1 else self
    if n == 0 and out is self:
        # PyTorch answers with a copy of the input (written by copy_: CopyBackwards)
        return copy_(wrap(array_module(self._data).empty_like(self._data), self._dtype), self)
    for _ in range(n):
        length = out._data.shape[d]
        later = slice_dim(out, d, 1, None)
        earlier = slice_dim(out, d, 0, max(length - 1, 0))
        # booleans differ where they are unequal (PyTorch: logical_xor)
        out = (later != earlier) if out._dtype is BOOL_DTYPE else later - earlier
    return out


def _split_at(self: Tensor, d: int, bounds: list) -> tuple:
    """Views self[b_i-1 : b_i] along `d`, with Python's slice rules (negative bounds
    count from the end, a bound before the previous one gives an empty view)."""
    out, start = [], 0
    for b in [*bounds, None]:
        out.append(slice_dim(self, d, start, b))
        start = b
    return tuple(out)


@tensor_method("tensor_split", torch=("tensor_split",))
def tensor_split(self, indices_or_sections, dim: int = 0) -> tuple:
    """Views splitting `dim` into n nearly equal sections (an int), or at the given
    indices (a list, tuple or 1-d tensor)."""
    if self._data.ndim == 0:
        raise RuntimeError(
            "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims"
        )
    d = wrap_dim(dim, self._data.ndim)
    spec = indices_or_sections
    if isinstance(spec, Tensor):
        spec = int(spec.item()) if spec._data.ndim == 0 else [int(v) for v in spec.tolist()]
    if isinstance(spec, int):
        if spec <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {spec}")
        size = self._data.shape[d]
        small, extra = divmod(size, spec)
        bounds, pos = [], 0
        for i in range(spec - 1):
            pos += small + (1 if i < extra else 0)
            bounds.append(pos)
        return _split_at(self, d, bounds)
    return _split_at(self, d, [int(i) for i in spec])


def _named_split(name: str, self: Tensor, spec, dim: int, min_dims: int) -> tuple:
    nd = self._data.ndim
    if nd < min_dims:
        raise RuntimeError(
            f"torch.{name} requires a tensor with at least {min_dims} dimension, but got a "
            f"tensor with {nd} dimensions!"
        )
    if isinstance(spec, int):
        size = self._data.shape[dim]
        if spec == 0 or size % spec:
            raise RuntimeError(
                f"torch.{name} attempted to split along dimension {dim}, but the size of the "
                f"dimension {size} is not divisible by the split_size {spec}!"
            )
    return tensor_split(self, spec, dim)


@tensor_method("vsplit", torch=("vsplit",))
def vsplit(self, indices_or_sections) -> tuple:
    """tensor_split along dimension 0 (equal sections only, for an int)."""
    return _named_split("vsplit", self, indices_or_sections, 0, 2)


@tensor_method("hsplit", torch=("hsplit",))
def hsplit(self, indices_or_sections) -> tuple:
    """tensor_split along dimension 1 (0 for a 1-d tensor)."""
    dim = 1 if self._data.ndim > 1 else 0
    return _named_split("hsplit", self, indices_or_sections, dim, 1)


@tensor_method("dsplit", torch=("dsplit",))
def dsplit(self, indices_or_sections) -> tuple:
    """tensor_split along dimension 2."""
    return _named_split("dsplit", self, indices_or_sections, 2, 3)


# -- rot90 ---------------------------------------------------------------------------------------
class Rot90Backward0(Node):
    """Rotating the gradient back: rot90(grad, -k, dims)."""

    def backward(self, g):
        return (rot90(g, -self.k, self.dims),)

    def explain(self, c: Ctx) -> Formula:
        k, dims = c.attr("k"), tuple(c.attr("dims"))
        return Formula(
            f"rot90({c.sym(0)}, {k}, {list(dims)})",
            [
                Local(
                    f"rot90(grad, {-k}, {list(dims)})",
                    kind="map",
                    apply=lambda g: np.rot90(g, -k, axes=dims),
                )
            ],
        )


@tensor_method("rot90", torch=("rot90",))
def rot90(self, k: int = 1, dims=(0, 1)) -> Tensor:
    """Rotate by 90° k times in the plane `dims`, from the first towards the second."""
    dims = list(dims)
    nd = self._data.ndim
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if nd < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {nd}")
    d0, d1 = wrap_dim(dims[0], nd), wrap_dim(dims[1], nd)
    if d0 == d1:
        raise RuntimeError(
            f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}"
        )
    xp = array_module(self._data)
    x = self._data
    k4 = k % 4
    # PyTorch's layout: flips copy, the transposes of k = 1 and 3 stay views of the copy
    if k4 == 1:
        data = xp.swapaxes(xp.flip(x, d1).copy(), d0, d1)
    elif k4 == 2:
        data = xp.flip(x, (d0, d1)).copy()
    elif k4 == 3:
        data = xp.swapaxes(xp.flip(x, d0).copy(), d0, d1)
    else:
        data = x.copy()
    res = wrap(data, self._dtype)
    if needs_grad(self):
        node = Rot90Backward0()
        node.k, node.dims = k, (d0, d1)
        record(node, (self,), res)
    return res


# -- cartesian_prod, combinations ----------------------------------------------------------------
def _vector(t: Tensor) -> None:
    if t._data.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(t._data.shape)}")


@tensor_method(torch=("cartesian_prod",))
def cartesian_prod(*tensors) -> Tensor:
    """Every combination of one element from each 1-d tensor, as the rows of a matrix (a
    single tensor is returned as it is)."""
    ts = _tensors(tensors)
    for t in ts:
        _vector(t)
    if len(ts) == 1:
        return ts[0]
    grids = meshgrid(*ts, indexing="ij")
    return stack([reshape(g, -1) for g in grids], 1)


def _triangle_mask(n: int, r: int, with_replacement: bool):
    """True at the index tuples (i1, ..., ir) of an r-dimensional n-grid that increase
    (or do not decrease, with replacement)."""
    grids = np.indices((n,) * r)
    mask = np.ones((n,) * r, dtype=bool)
    for i in range(r - 1):
        step = grids[i] <= grids[i + 1] if with_replacement else grids[i] < grids[i + 1]
        mask &= step
    return wrap(mask, dtypes.bool_)


@tensor_method(torch=("combinations",))
def combinations(input: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:  # noqa: A002
    """The r-element combinations of a 1-d tensor's elements, as rows, in order."""
    _vector(input)
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return wrap(array_module(input._data).empty(0, input._dtype.np), input._dtype)
    n = input._data.shape[0]
    grids = meshgrid(*([input] * r), indexing="ij")
    mask = _triangle_mask(n, r, with_replacement)
    return stack([masked_select(g, mask) for g in grids], 1)


# -- block_diag ----------------------------------------------------------------------------------
class BlockDiagBackward0(Node):
    """Each input gets its own block of the gradient (in its own shape and dtype)."""

    def backward(self, g):
        grads = []
        for (r0, c0), (rows, cols), shape, dt, need in zip(
            self.origins, self.sizes, self.shapes, self.dtypes, self.needs, strict=True
        ):
            if not need:
                grads.append(None)
                continue
            part = slice_dim(slice_dim(g, 0, r0, r0 + rows), 1, c0, c0 + cols).reshape(shape)
            grads.append(part if dt is g._dtype else part.to(dt))
        return tuple(grads)

    def explain(self, c: Ctx) -> Formula:
        locals_ = []
        for i, ((r0, c0), (rows, cols), shape) in enumerate(
            zip(c.attr("origins"), c.attr("sizes"), c.attr("shapes"), strict=True)
        ):

            def block(g, r0=r0, c0=c0, rows=rows, cols=cols, shape=tuple(shape)):
                return g[r0 : r0 + rows, c0 : c0 + cols].reshape(shape)

            local = Local(f"grad's block {i}", kind="map", apply=block)
            locals_.append(local if c.attr("needs")[i] else None)
        args = ", ".join(c.sym(i) for i in range(len(locals_)))
        return Formula(f"block_diag({args})", locals_)


@tensor_method(torch=("block_diag",))
def block_diag(*tensors) -> Tensor:
    """A block-diagonal matrix of the inputs (0-d as 1×1, 1-d as one row), zeros elsewhere."""
    ts = list(tensors)
    for i, t in enumerate(ts):
        if t._data.ndim > 2:
            raise RuntimeError(
                "torch.block_diag: Input tensors must have 2 or fewer dimensions. Input "
                f"{i} has {t._data.ndim} dimensions"
            )
    if not ts:
        dt = dtypes.get_default_dtype()
        return wrap(np.zeros((1, 0), dt.np), dt)
    dt = ts[0]._dtype
    for t in ts[1:]:
        dt = dtypes.promote_types(dt, t._dtype)
    blocks = [t._data.reshape((1,) * (2 - t._data.ndim) + t._data.shape) for t in ts]
    rows = sum(b.shape[0] for b in blocks)
    cols = sum(b.shape[1] for b in blocks)
    xp = array_module(blocks[0])
    out = xp.zeros((rows, cols), dt.np)
    origins, r, c = [], 0, 0
    for b in blocks:
        out[r : r + b.shape[0], c : c + b.shape[1]] = b
        origins.append((r, c))
        r, c = r + b.shape[0], c + b.shape[1]
    res = wrap(out, dt)
    if needs_grad(*ts):
        node = BlockDiagBackward0()
        node.origins, node.sizes = origins, [b.shape for b in blocks]
        node.shapes = [tuple(t._data.shape) for t in ts]
        node.dtypes = [t._dtype for t in ts]
        node.needs = [t._requires_grad for t in ts]
        record(node, tuple(ts), res)
    return res
