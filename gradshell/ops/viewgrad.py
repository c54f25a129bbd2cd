"""Writing into a view of a storage autograd tracks, as PyTorch does it.

An in-place op on a view records its node on the view; PyTorch then moves that history
onto the view's base: the base's grad_fn becomes `CopySlices`, which runs the op's node on
the part of the base's gradient the view covers and passes the rest through. Every view of
the storage gets a new grad_fn, `AsStridedBackward0`, that reads its elements out of the
base's new history. Views made in no_grad mode, or among the several views one function
returned (unbind, split, chunk), may not take part: writing into one raises PyTorch's
error, and one whose storage was written into otherwise answers with that error when its
history is asked for (printing shows `grad_fn=<Invalid>`).
"""

from __future__ import annotations

import re
import weakref

import numpy as np

from gradshell.core import grad_mode
from gradshell.core.autograd import InvalidView
from gradshell.core.engine import register_retain_grad
from gradshell.ops.base import Node, Tensor, array_module, needs_grad, record, wrap
from gradshell.ops.explanation import BACKWARD_OF_BACKWARD, Ctx, Formula, Local

NO_GRAD = "no_grad"
MULTI = "multi"

_NO_GRAD_TAIL = (
    " Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify "
    "your code by moving both the view and the inplace either both inside the no_grad block "
    "(if you don't want the inplace to be tracked) or both outside (if you want the inplace "
    "to be tracked)."
)
_MULTI_TAIL = (
    " This view is the output of a function that returns multiple views. Such functions do "
    "not allow the output views to be modified inplace. You should replace the inplace "
    "operation by an out-of-place one."
)
OVERLAP = (
    "unsupported operation: more than one element of the written-to tensor refers to a single "
    "memory location. Please clone() the tensor before performing the operation."
)


# -- where a view's elements sit in its base ---------------------------------------------------
def _address(a) -> int:
    iface = getattr(a, "__array_interface__", None) or a.__cuda_array_interface__
    return iface["data"][0]


def _byte_positions(shape: tuple, strides: tuple, start: int) -> np.ndarray:
    """The byte offset of every element of an array of `shape` and byte `strides`."""
    pos = np.asarray(start, dtype=np.int64)
    for n, s in zip(shape, strides, strict=True):
        pos = pos[..., None] + np.arange(n, dtype=np.int64) * s
    return pos


class Geometry:
    """A view's place in its base: both shapes and byte strides, and the byte offset of
    the view's first element from the base's."""

    __slots__ = ("base_shape", "base_strides", "shape", "strides", "offset", "itemsize", "_index")

    def __init__(self, base_data, view_data) -> None:
        self.base_shape = tuple(base_data.shape)
        self.base_strides = tuple(base_data.strides)
        self.shape = tuple(view_data.shape)
        self.strides = tuple(view_data.strides)
        self.offset = _address(view_data) - _address(base_data)
        self.itemsize = base_data.itemsize
        self._index = None
        if view_data.itemsize != base_data.itemsize:
            self.strides = None  # a view(dtype) of another size: not an element-wise view

    def index(self) -> np.ndarray:
        """For each element of the view, its position in the base read in row-major order."""
        if self._index is None:
            self._index = self._locate()
        return self._index

    def _locate(self) -> np.ndarray:
        missing = NotImplementedError(
            "gradshell does not support differentiating through a view whose elements are "
            "not elements of its base (a view with another dtype, or a base whose data was "
            "replaced)"
        )
        if self.strides is None:
            raise missing
        base = _byte_positions(self.base_shape, self.base_strides, 0).reshape(-1)
        view = _byte_positions(self.shape, self.strides, self.offset)
        order = np.argsort(base, kind="stable")
        ordered = base[order]
        at = np.searchsorted(ordered, view)
        if base.size == 0:
            if view.size:
                raise missing
            return view.astype(np.int64)
        at_c = np.minimum(at, base.size - 1)
        if not np.array_equal(ordered[at_c], view):
            raise missing
        return order[at_c]

    def replayable(self) -> bool:
        """True when the view can be taken again, by its strides, of a fresh row-major
        array of the base's shape (the base is row-major and no two elements share
        memory): the backward of a backward then builds PyTorch's nodes."""
        if self.strides is None or self.base_numel == 0:
            return False
        expected, strides = self.itemsize, []
        for n in reversed(self.base_shape):
            strides.append(expected)
            expected *= n
        row_major = all(
            n == 1 or s == e
            for n, s, e in zip(self.base_shape, self.base_strides, reversed(strides), strict=True)
        )
        shared = any(s == 0 and n > 1 for n, s in zip(self.shape, self.strides, strict=True))
        return row_major and not shared

    @property
    def base_numel(self) -> int:
        """The number of elements of the base."""
        return int(np.prod(self.base_shape, dtype=np.int64))


def _index_for(g: Tensor, geometry: Geometry):
    idx = geometry.index()
    xp = array_module(g._data)
    return idx if xp is np else xp.asarray(idx)


def gather(g: Tensor, geometry: Geometry) -> Tensor:
    """The view's elements of the base-shaped `g` (recorded as AsStridedBackward0)."""
    data = g._data.reshape(-1)[_index_for(g, geometry)]
    out = wrap(data, g._dtype)
    if needs_grad(g):
        node = AsStridedBackward0()
        node.geometry = geometry
        record(node, (g,), out)
    return out


def strided_view(t: Tensor, shape: tuple, strides: tuple, offset: int) -> Tensor:
    """A view of `t` (row-major data) with byte `strides` from byte `offset`, recorded as
    AsStridedBackward0 (PyTorch's as_strided)."""
    data = t._data
    xp = array_module(data)
    start = data.reshape(-1)[offset // data.itemsize :]
    view = xp.lib.stride_tricks.as_strided(start, shape=shape, strides=strides)
    out = wrap(view, t._dtype)
    out._version_counter = t._counter()
    register_view(t, out)
    if needs_grad(t):
        node = AsStridedBackward0()
        node.geometry = Geometry(data, view)
        record(node, (t,), out)
    return out


def _whole(t: Tensor) -> Tensor:
    """`t` seen again through as_strided with its own shape and strides."""
    return strided_view(t, t._data.shape, t._data.strides, 0)


def scatter(gv: Tensor, geometry: Geometry) -> Tensor:
    """A base-shaped zero tensor with the view-shaped `gv` added at the view's elements."""
    if needs_grad(gv) and geometry.replayable():
        # building a graph of gradients: PyTorch's nodes (a copy into an as_strided view
        # of zeros, CopySlices, seen again through as_strided)
        xp = array_module(gv._data)
        zeros = wrap(xp.zeros(geometry.base_shape, gv._dtype.np), gv._dtype)
        strided_view(zeros, geometry.shape, geometry.strides, geometry.offset).copy_(gv)
        return _whole(zeros)
    xp = array_module(gv._data)
    flat = xp.zeros(geometry.base_numel, gv._dtype.np)
    idx = _index_for(gv, geometry)
    xp.add.at(flat, idx.reshape(-1), gv._data.reshape(-1))
    out = wrap(flat.reshape(geometry.base_shape), gv._dtype)
    if needs_grad(gv):
        node = AsStridedScatterBackward0()
        node.geometry = geometry
        record(node, (gv,), out)
    return out


def _scatter_np(g: np.ndarray, geometry: Geometry) -> np.ndarray:
    flat = np.zeros(geometry.base_numel, dtype=np.float64)
    np.add.at(flat, geometry.index().reshape(-1), np.asarray(g, dtype=np.float64).reshape(-1))
    return flat.reshape(geometry.base_shape)


class AsStridedBackward0(Node):
    """A view read out of its base's elements: its gradient goes back to those elements."""

    def backward(self, g):
        return (scatter(g, self.geometry),)

    def explain(self, c: Ctx) -> Formula:
        geometry = self.geometry
        text = "[" + ", ".join(str(s) for s in geometry.base_shape) + "]"
        return Formula(
            f"part of {c.sym(0)}",
            [
                Local(
                    f"grad placed at the view's elements in zeros of shape {text}",
                    kind="map",
                    apply=lambda g: _scatter_np(g, geometry),
                )
            ],
        )


class AsStridedScatterBackward0(Node):
    """The gradient placed into a base's shape (a backward of a backward): its own
    gradient is read back out at the same elements."""

    def backward(self, gg):
        return (gather(gg, self.geometry),)

    no_explanation = BACKWARD_OF_BACKWARD


class CopySlices(Node):
    """An in-place op on a view, seen from the base: the op's node gets the view's part of
    the base's gradient; the base's other elements pass their gradient through."""

    def name(self) -> str:
        return "torch::autograd::CopySlices"

    def backward(self, g):
        geometry = self.geometry
        if needs_grad(g) and geometry.replayable():
            return self._backward_graph(g)
        part = gather(g, geometry)
        outs = self.fn.apply([part])
        ga = None
        if self.needs_base:
            g_self = outs[0]
            # the view's elements of the base take the op's gradient for its input
            inside = scatter(_ones(part), geometry)
            ga = g - g * inside
            if g_self is not None:
                if g_self._data.shape != part._data.shape:
                    g_self = g_self.sum_to_size(part._data.shape)
                ga = ga + scatter(g_self, geometry)
        return (ga,) + tuple(outs[1:])

    def _backward_graph(self, g: Tensor) -> tuple:
        """The backward with create_graph=True, built of PyTorch's nodes: the gradient
        copied into a fresh base, the view's part of it cloned for the wrapped node, and
        that node's gradient copied back into the part."""
        geometry = self.geometry
        xp = array_module(g._data)
        result = wrap(xp.zeros(geometry.base_shape, g._dtype.np), g._dtype)
        result.copy_(g)
        part = strided_view(result, geometry.shape, geometry.strides, geometry.offset)
        outs = self.fn.apply([part.clone()])
        if not self.needs_base:
            return (None,) + tuple(outs[1:])
        g_self = outs[0]
        if g_self is None:
            part.zero_()
        else:
            if g_self._data.shape != part._data.shape:
                g_self = g_self.sum_to_size(part._data.shape)
            part.copy_(g_self)
        return (result,) + tuple(outs[1:])

    def release(self) -> None:
        """Free the wrapped op's saved tensors too (unless a graph of gradients reaches
        that node on its own: it frees them itself when it runs)."""
        super().release()
        if not self.fn._in_graph:
            self.fn.release()

    no_explanation = (
        "wraps the backward of an in-place op on a view: the wrapped op's formula applies to "
        "the view's elements, and the base's other elements pass their gradient through"
    )


def _ones(like: Tensor) -> Tensor:
    return wrap(array_module(like._data).ones(like._data.shape, like._dtype.np), like._dtype)


# -- rebasing a view's history onto its base --------------------------------------------------
def rebase_view(view: Tensor) -> None:
    """After an in-place op recorded its node on `view`: make the base's grad_fn a
    CopySlices wrapping that node (the views regenerate when the write is counted)."""
    base = view._base
    fn = view._grad_fn
    node = CopySlices()
    node.fn = fn
    node.geometry = Geometry(base._data, view._data)
    node.needs_base = base._requires_grad
    record(node, (base,), wrap(base._data, base._dtype))
    node.next_functions = node.next_functions + tuple(fn.next_functions[1:])
    node._meta = node._meta + tuple((fn._meta or ())[1:])
    base._grad_fn = node
    base._requires_grad = True
    base._output_nr = 0
    if base._retains_grad:
        register_retain_grad(base)  # PyTorch's .grad follows the base's new history


def regenerate_views(t: Tensor) -> None:
    """After a write into `t`'s storage: give each live view of it its new history (the
    view hook installed in the core; PyTorch does this when the view is next used)."""
    base = t._base if t._base is not None else t
    if not base._requires_grad:
        return
    for v in list(t._views):
        if v._base is not base:
            continue
        if v._view_kind is None:
            node = AsStridedBackward0()
            node.geometry = Geometry(base._data, v._data)
            record(node, (base,), v)
        elif not (v._grad_fn is not None and v._grad_fn.invalid_view):
            v._grad_fn = InvalidView(view_error(v, direct=False))
            v._requires_grad = True


def register_view(base: Tensor, out: Tensor) -> None:
    """Note `out` as a view of `base`'s storage (made by a view op on `base`)."""
    root = base if base._base is None else base._base
    out._base = root
    family = root._views
    if family is None:
        family = root._views = weakref.WeakSet()
    family.add(out)
    out._views = family
    if not grad_mode.state.enabled:
        out._view_kind = NO_GRAD
        if not out._requires_grad and (base._requires_grad or root._requires_grad):
            # PyTorch's view of a storage that requires grad says it does too
            out._requires_grad = True
            out._grad_via_base = True
    elif base._view_kind is not None:
        out._view_kind = base._view_kind


def view_error(view: Tensor, direct: bool) -> str:
    """PyTorch's message for writing into a view it forbids writing into (`direct`), or
    for using one after its storage was written into."""
    fn = view._grad_fn
    named = fn is not None and not fn.invalid_view
    what = (
        "is being modified inplace"
        if direct
        else "its base or another view of its base has been modified inplace"
    )
    if view._view_kind == MULTI:
        if named:
            head = f"Output {view._output_nr} of {_short(fn)} is a view and {what}."
        else:
            head = f"A view was created in no_grad mode and {what} with grad mode enabled."
        return head + _MULTI_TAIL
    if named:
        head = (
            f"Output {view._output_nr} of {_short(fn)} is a view of a view which was created "
            f"in no_grad mode and {what} with grad mode enabled."
        )
    else:
        head = f"A view was created in no_grad mode and {what} with grad mode enabled."
    return head + _NO_GRAD_TAIL


def _short(fn: Node) -> str:
    return re.sub(r"Backward\d*$", "", fn.name())


def overlaps(t: Tensor) -> bool:
    """True for a view in which several elements share one memory location (expand)."""
    data = t._data
    if data.size == 0:
        return False  # nothing is written, whatever the strides say
    return any(s == 0 and n > 1 for n, s in zip(data.shape, data.strides, strict=True))
