"""Arrangements composed of the shape family's views and copies, recording the nodes
PyTorch records for them: broadcast_to, broadcast_tensors, meshgrid (expand), tile
(repeat), ravel (contiguous + view) and atleast_1d/2d/3d (reshape, unsqueeze)."""

from __future__ import annotations

from gradshell.core import warn_once
from gradshell.ops.base import Tensor, array_module, broadcast_error, tensor_method
from gradshell.ops.inplace import _caller_level
from gradshell.ops.shape import _sizes, contiguous, expand, repeat, reshape, unsqueeze, view

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
