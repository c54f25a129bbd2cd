"""Shape ops: views that share storage (view, reshape, t, transpose, permute, expand,
squeeze, unsqueeze, select, slice, narrow, flatten) and their copying cousins
(contiguous, clone, sum_to_size), view(dtype), cat, stack, atleast_1d/2d/3d and the
stacks built on cat (hstack, vstack/row_stack, dstack, column_stack), split, chunk,
unbind, flip, roll, tril/triu, repeat and diagonal."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from gradshell.core import dtypes
from gradshell.core.size import Size
from gradshell.core.warn_once import warn_once
from gradshell.ops.base import (
    Node,
    Tensor,
    array_module,
    install,
    needs_grad,
    norm_dims,
    record,
    tensor_method,
    wrap,
    wrap_dim,
)
from gradshell.ops.explanation import (
    BACKWARD_OF_BACKWARD,
    Ctx,
    Formula,
    Local,
    copy_formula,
    part_formula,
    reshape_formula,
    transposed,
)
from gradshell.ops.inplace import check_inplace, write_out
from gradshell.ops.viewgrad import MULTI, register_view


def make_view(base: Tensor, data, node: Node | None) -> Tensor:
    """A tensor viewing `base`'s storage through `data`, recorded with `node` if needed."""
    out = wrap(data, base._dtype)
    out._version_counter = base._counter()
    register_view(base, out)
    if node is not None and needs_grad(base):
        record(node, (base,), out)
    return out


def _sizes(args) -> tuple:
    if len(args) == 1 and isinstance(args[0], (tuple, list, Size)):
        args = tuple(args[0])
    out = []
    for a in args:
        if isinstance(a, Tensor):
            a = a.item()
        if not isinstance(a, int) or isinstance(a, bool):
            raise TypeError(
                f"view(): argument 'size' (position 1) must be tuple of ints, but found element "
                f"of type {type(a).__name__} at pos {len(out)}"
            )
        out.append(a)
    return tuple(out)


def infer_shape(shape: tuple, numel: int) -> tuple:
    """`shape` with a -1 filled in, or PyTorch's error when it cannot hold `numel` elements."""
    infer = None
    known = 1
    for i, s in enumerate(shape):
        if s == -1:
            if infer is not None:
                raise RuntimeError("only one dimension can be inferred")
            infer = i
        elif s < 0:
            raise RuntimeError(f"invalid shape dimension {s}")
        else:
            known *= s
    bad = RuntimeError(
        f"shape '[{', '.join(str(s) for s in shape)}]' is invalid for input of size {numel}"
    )
    if infer is None:
        if known != numel:
            raise bad
        return shape
    if known == 0 or numel % known:
        if known == 0 and numel == 0:
            raise RuntimeError(
                f"cannot reshape tensor of 0 elements into shape "
                f"[{', '.join(str(s) for s in shape)}] because the unspecified dimension size "
                "-1 can be any value and is ambiguous"
            )
        raise bad
    shape = list(shape)
    shape[infer] = numel // known
    return tuple(shape)


def _try_view(data, shape):
    v = data.view()
    try:
        v.shape = shape
    except AttributeError:
        return None
    return v


class ViewBackward0(Node):
    """A view's gradient is the incoming gradient reshaped back."""

    legacy_name_02 = "ViewBackward"

    def backward(self, g):
        return (g.reshape(self.input_shape),)

    explain = reshape_formula


@tensor_method("view")
def view(self, *shape):
    """The same data seen with another shape (no copy; fails if the strides do not allow it)."""
    if len(shape) == 1 and not isinstance(shape[0], (int, tuple, list, Size, Tensor)):
        return view_dtype(self, shape[0])
    shape = infer_shape(_sizes(shape), self._data.size)
    v = _try_view(self._data, shape)
    if v is None:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
        )
    node = ViewBackward0() if needs_grad(self) else None
    if node is not None:
        node.input_shape = self._data.shape
    return make_view(self, v, node)


@tensor_method("view_as")
def view_as(self, other: Tensor) -> Tensor:
    """view(other.shape)."""
    return view(self, other._data.shape)


class ReshapeAliasBackward0(ViewBackward0):
    """reshape of a non-contiguous tensor that needed no copy: reshape the gradient back."""

    explain = reshape_formula


class UnsafeViewBackward0(ViewBackward0):
    """reshape that had to copy: the gradient is reshaped back."""

    explain = reshape_formula


@tensor_method("reshape", torch=("reshape",))
def reshape(self, *shape):
    """The data with another shape: a view when the strides allow it, else a copy."""
    shape = infer_shape(_sizes(shape), self._data.size)
    v = _try_view(self._data, shape)
    if v is not None:
        node = None
        if needs_grad(self):
            # a view of a row-major tensor is a view; of any other layout, PyTorch's alias
            node = ViewBackward0() if self.is_contiguous() else ReshapeAliasBackward0()
            node.input_shape = self._data.shape
        return make_view(self, v, node)
    c = clone(self)
    data = c._data.reshape(shape)
    out = wrap(data, self._dtype)
    if needs_grad(c):
        node = UnsafeViewBackward0()
        node.input_shape = c._data.shape
        record(node, (c,), out)
    return out


@tensor_method("reshape_as")
def reshape_as(self, other: Tensor) -> Tensor:
    """reshape(other.shape)."""
    return reshape(self, other._data.shape)


@tensor_method("flatten", torch=("flatten",))
def flatten(self, start_dim: int = 0, end_dim: int = -1):
    """Merge dimensions start_dim..end_dim into one."""
    nd = self._data.ndim
    if nd == 0:
        return reshape(self, 1)
    s = wrap_dim(start_dim, nd)
    e = wrap_dim(end_dim, nd)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return self
    shp = self._data.shape
    return reshape(self, shp[:s] + (math.prod(shp[s : e + 1]),) + shp[e + 1 :])


@tensor_method("unflatten", torch=("unflatten",))
def unflatten(self, dim: int, sizes):
    """Split dimension `dim` into `sizes`."""
    d = wrap_dim(dim, self._data.ndim)
    shp = self._data.shape
    sizes = tuple(sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    if sizes.count(-1) <= 1:  # (two -1s fall through to infer_shape's own error)
        known = math.prod(s for s in sizes if s != -1)
        bad = known != shp[d] if -1 not in sizes else (known == 0 or shp[d] % known)
        if bad:
            raise RuntimeError(
                f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim "
                f"{d} ({shp[d]}) in the input tensor"
            )
    sizes = infer_shape(sizes, shp[d])
    return view(self, shp[:d] + sizes + shp[d + 1 :])


class TBackward0(Node):
    """The gradient of a transpose is the transposed gradient."""

    legacy_name_02 = "TransposeBackward"

    def backward(self, g):
        return (g.t(),)

    def explain(self, c: Ctx) -> Formula:
        return Formula(transposed(c.sym(0)), [Local("gradᵀ", kind="map", apply=lambda g: g.T)])


@tensor_method("t", torch=("t",))
def t(self):
    """Transpose a tensor of at most 2 dimensions."""
    nd = self._data.ndim
    if nd > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {nd}D")
    node = TBackward0() if needs_grad(self) else None
    return make_view(self, self._data.T, node)


class TransposeBackward0(Node):
    """Swap the same two dimensions back."""

    legacy_name_02 = "TransposeBackward"

    def backward(self, g):
        return (g.transpose(self.dim0, self.dim1),)

    def explain(self, c: Ctx) -> Formula:
        d0, d1 = c.attr("dim0"), c.attr("dim1")
        return Formula(
            f"{c.sym(0)}.transpose({d0}, {d1})",
            [
                Local(
                    f"grad.transpose({d0}, {d1})",
                    kind="map",
                    apply=lambda g: np.swapaxes(g, d0, d1),
                )
            ],
        )


class TransposeBackward1(TransposeBackward0):
    """transpose_ (in place): swap the same two dimensions of the gradient back."""

    legacy_name_02 = None
    explain = TransposeBackward0.explain


@tensor_method("transpose_", "swapaxes_", "swapdims_")
def transpose_(self, dim0: int, dim1: int) -> Tensor:
    """Swap two dimensions of this tensor itself (its shape and strides change)."""
    check_inplace(self)
    nd = max(self._data.ndim, 1)
    d0, d1 = wrap_dim(dim0, nd), wrap_dim(dim1, nd)
    before = None
    if needs_grad(self):
        # The tensor as it was: the new node's edge leads to its old history.
        before = wrap(self._data, self._dtype)
        before._requires_grad = True
        before._grad_fn = self._grad_fn
        before._output_nr = self._output_nr
        before._accumulator = self._accumulator
    if self._data.ndim:
        self._data = self._data.swapaxes(d0, d1)
    self._bump_version()
    if before is not None:
        node = TransposeBackward1()
        node.dim0, node.dim1 = d0, d1
        record(node, (before,), self)
    return self


@tensor_method("transpose", "swapaxes", "swapdims", torch=("transpose", "swapaxes", "swapdims"))
def transpose(self, dim0: int, dim1: int):
    """Swap two dimensions (a view)."""
    nd = self._data.ndim
    d0, d1 = wrap_dim(dim0, nd), wrap_dim(dim1, nd)
    node = None
    if needs_grad(self):
        node = TransposeBackward0()
        node.dim0, node.dim1 = d0, d1
    data = self._data if nd == 0 else array_module(self._data).swapaxes(self._data, d0, d1)
    return make_view(self, data, node)


class PermuteBackward0(Node):
    """Apply the inverse permutation to the gradient."""

    legacy_name_02 = "PermuteBackward"

    def backward(self, g):
        inv = [0] * len(self.dims)
        for i, d in enumerate(self.dims):
            inv[d] = i
        return (g.permute(*inv),)

    def explain(self, c: Ctx) -> Formula:
        dims = tuple(c.attr("dims"))
        inv = [0] * len(dims)
        for i, d in enumerate(dims):
            inv[d] = i
        return Formula(
            f"{c.sym(0)}.permute{dims}",
            [Local(f"grad.permute{tuple(inv)}", kind="map", apply=lambda g: np.transpose(g, inv))],
        )


@tensor_method("permute", torch=("permute",))
def permute(self, *dims):
    """Reorder the dimensions (a view)."""
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = tuple(dims[0])
    nd = self._data.ndim
    if len(dims) != nd:
        raise RuntimeError(
            "permute(sparse_coo): number of dimensions in the tensor input does not match the "
            "length of the desired ordering of dimensions i.e. input.dim() = "
            f"{nd} is not equal to len(dims) = {len(dims)}"
        )
    dims = tuple(wrap_dim(d, nd) for d in dims)
    if len(set(dims)) != nd:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    node = None
    if needs_grad(self):
        node = PermuteBackward0()
        node.dims = dims
    return make_view(self, self._data.transpose(dims), node)


_T_NOT_2D = (
    "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
    "deprecated and it will throw an error in a future release. Consider `x.mT` to "
    "transpose batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to "
    "reverse the dimensions of a tensor. (Triggered internally at "
    "/__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4314.)"
)


_T_0D = (
    "Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases. "
    "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4321.)"
)


def _permute_T(self):
    nd = self._data.ndim
    if nd != 2:
        warn_once(_T_NOT_2D if nd else _T_0D, stacklevel=2)
    return permute(self, tuple(range(nd - 1, -1, -1)))


install("T", property(_permute_T, doc="All dimensions reversed (a view)."))
install("mT", property(lambda self: transpose(self, -2, -1), doc="The last two dims swapped."))


class ExpandBackward0(Node):
    """Sum the gradient over the broadcast dimensions."""

    legacy_name_02 = "ExpandBackward"

    def backward(self, g):
        return (g.sum_to_size(self.input_shape),)

    def explain(self, c: Ctx) -> Formula:
        shape = tuple(c.attr("input_shape"))
        text = "[" + ", ".join(str(s) for s in shape) + "]"
        return Formula(
            f"{c.sym(0)}.expand(...)",
            [
                Local(
                    f"grad summed over the copies back to {text}",
                    kind="map",
                    apply=lambda g: g,  # summing to the input's shape follows for every edge
                )
            ],
        )


@tensor_method("expand")
def expand(self, *sizes):
    """Broadcast size-1 dimensions to `sizes` without copying (-1 keeps a size)."""
    sizes = _sizes(sizes)
    shp = self._data.shape
    if len(sizes) < len(shp):
        raise RuntimeError(
            f"expand({self._type_desc()}{{{list(shp)}}}, size={list(sizes)}): the number of "
            "sizes provided ("
            f"{len(sizes)}) must be greater or equal to the number of dimensions in the tensor "
            f"({len(shp)})"
        )
    lead = len(sizes) - len(shp)
    target = []
    # PyTorch checks from the last dimension backwards: report the rightmost mismatch
    for i in range(len(sizes) - 1, lead - 1, -1):
        cur, s = shp[i - lead], sizes[i]
        if s != -1 and cur != s and cur != 1:
            raise RuntimeError(
                f"The expanded size of the tensor ({s}) must match the existing size ({cur}) at "
                f"non-singleton dimension {i}.  Target sizes: {list(sizes)}.  Tensor sizes: "
                f"{list(shp)}"
            )
    for i, s in enumerate(sizes):
        if i < lead:
            if s < 0:
                raise RuntimeError(
                    f"The expanded size of the tensor ({s}) isn't allowed in a leading, "
                    "non-existing dimension 0"
                )
            target.append(s)
            continue
        cur = shp[i - lead]
        if s == -1:
            s = cur
        if cur != s and cur != 1:
            raise RuntimeError(
                f"The expanded size of the tensor ({s}) must match the existing size ({cur}) at "
                f"non-singleton dimension {i}.  Target sizes: {list(sizes)}.  Tensor sizes: "
                f"{list(shp)}"
            )
        target.append(s)
    xp = array_module(self._data)
    data = xp.broadcast_to(self._data, tuple(target))
    if xp is np and self._data.flags.writeable:
        # NumPy's broadcast is read-only; PyTorch lets one write into an expanded tensor
        data = np.lib.stride_tricks.as_strided(self._data, data.shape, data.strides)
    node = None
    if needs_grad(self):
        node = ExpandBackward0()
        node.input_shape = shp
    return make_view(self, data, node)


def _type_desc(self) -> str:
    return "torch." + self._dtype.legacy_name


install("_type_desc", _type_desc)


@tensor_method("expand_as")
def expand_as(self, other: Tensor) -> Tensor:
    """expand(other.shape)."""
    return expand(self, other._data.shape)


class SqueezeBackward0(Node):
    """Put the removed size-1 dimensions back."""

    legacy_name_02 = "SqueezeBackward"

    def backward(self, g):
        return (g.reshape(self.input_shape),)

    explain = reshape_formula


class SqueezeBackward1(SqueezeBackward0):
    """squeeze(dim): put the removed dimension back."""

    explain = reshape_formula


class SqueezeBackward2(SqueezeBackward0):
    """squeeze(dims): put the removed dimensions back."""

    explain = reshape_formula


@tensor_method("squeeze", torch=("squeeze",))
def squeeze(self, dim=None):
    """Remove size-1 dimensions (all, or the given ones)."""
    shp = self._data.shape
    nd = len(shp)
    if dim is None:
        keep = [s for s in shp if s != 1]
        cls = SqueezeBackward0
    else:
        if isinstance(dim, (tuple, list)):
            dims = {wrap_dim(d, nd) for d in dim}
            cls = SqueezeBackward2
        else:
            dims = {wrap_dim(dim, nd)}
            cls = SqueezeBackward1
        keep = [s for i, s in enumerate(shp) if not (i in dims and s == 1)]
    node = None
    if needs_grad(self):
        node = cls()
        node.input_shape = shp
    return make_view(self, self._data.reshape(tuple(keep)), node)


class UnsqueezeBackward0(Node):
    """Remove the inserted dimension again."""

    legacy_name_02 = "UnsqueezeBackward"

    def backward(self, g):
        return (g.squeeze(self.dim),)

    def explain(self, c: Ctx) -> Formula:
        dim = c.attr("dim")
        return Formula(
            f"{c.sym(0)}.unsqueeze({dim})",
            [Local(f"grad.squeeze({dim})", kind="map", apply=lambda g: np.squeeze(g, axis=dim))],
        )


@tensor_method("unsqueeze", torch=("unsqueeze",))
def unsqueeze(self, dim: int):
    """Insert a size-1 dimension at `dim`."""
    nd = self._data.ndim
    d = wrap_dim(dim, nd + 1)
    node = None
    if needs_grad(self):
        node = UnsqueezeBackward0()
        node.dim = d
    return make_view(self, array_module(self._data).expand_dims(self._data, d), node)


class AliasBackward0(Node):
    """An alias passes its gradient through."""

    def backward(self, g):
        return (g,)

    explain = copy_formula


def alias(self):
    """A new view of the whole tensor."""
    return make_view(self, self._data.view(), AliasBackward0() if needs_grad(self) else None)


# -- select / slice ----------------------------------------------------------------------------
class SelectBackward0(Node):
    """Place the gradient at the selected index of a zero tensor of the input's shape."""

    legacy_name_02 = "IndexBackward"

    def backward(self, g):
        return (embed(g, self.input_shape, self.key, SelectBackwardBackward0),)

    explain = part_formula


class SliceBackward0(Node):
    """Place the gradient in the sliced region of a zero tensor of the input's shape."""

    legacy_name_02 = "IndexBackward"

    def backward(self, g):
        return (embed(g, self.input_shape, self.key, SliceBackwardBackward0),)

    explain = part_formula


class SelectBackwardBackward0(Node):
    """The gradient of select_backward is the selection of the gradient."""

    def backward(self, gg):
        return (gg[self.key],)

    no_explanation = BACKWARD_OF_BACKWARD


class SliceBackwardBackward0(SelectBackwardBackward0):
    """The gradient of slice_backward is the slice of the gradient."""

    no_explanation = BACKWARD_OF_BACKWARD


def embed(g: Tensor, shape: tuple, key, node_cls) -> Tensor:
    """A zero tensor of `shape` holding `g` at `key` (the backward of an indexing view)."""
    xp = array_module(g._data)
    data = xp.zeros(shape, g._dtype.np)
    data[key] = g._data
    out = wrap(data, g._dtype)
    if needs_grad(g):
        node = node_cls()
        node.key = key
        record(node, (g,), out)
    return out


@tensor_method("select", torch=("select",))
def select(self, dim: int, index: int):
    """The slice at `index` along `dim`, with that dimension removed (a view)."""
    nd = self._data.ndim
    if nd == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, nd)
    size = self._data.shape[d]
    if isinstance(index, Tensor):
        index = int(index.item())
    if not -size <= index < size:
        raise IndexError(f"index {index} is out of bounds for dimension {d} with size {size}")
    if index < 0:
        index += size
    key = (slice(None),) * d + (index,)
    node = None
    if needs_grad(self):
        node = SelectBackward0()
        node.input_shape = self._data.shape
        node.key = key
    # The trailing Ellipsis makes NumPy return a 0-d view rather than a copied scalar when
    # the last dimension is selected, so `x[0, 0].add_(1)` writes through to x.
    return make_view(self, self._data[key + (Ellipsis,)], node)


def slice_dim(self, dim: int, start, stop, step: int = 1):
    """self[start:stop:step] along `dim` (a view)."""
    d = wrap_dim(dim, self._data.ndim)
    if step is not None and step <= 0:
        raise ValueError("step must be greater than zero")
    key = (slice(None),) * d + (slice(start, stop, step),)
    node = None
    if needs_grad(self):
        node = SliceBackward0()
        node.input_shape = self._data.shape
        node.key = key
    return make_view(self, self._data[key], node)


@tensor_method("narrow", torch=("narrow",))
def narrow(self, dim: int, start: int, length: int):
    """`length` elements from `start` along `dim` (a view)."""
    d = wrap_dim(dim, self._data.ndim)
    size = self._data.shape[d]
    if isinstance(start, Tensor):
        start = int(start.item())
    if start < 0:
        start += size
    if not 0 <= start <= size or length < 0 or start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return slice_dim(self, d, start, start + length, 1)


# -- copies ------------------------------------------------------------------------------------
class CloneBackward0(Node):
    """A copy passes its gradient through."""

    legacy_name_02 = "CloneBackward"

    def backward(self, g):
        return (g,)

    explain = copy_formula


@tensor_method("clone", torch=("clone",))
def clone(self, *, memory_format=None):
    """A copy with its own storage (recorded, so gradients flow back)."""
    xp = array_module(self._data)
    data = self._data
    # PyTorch keeps the layout of a dense tensor but lays out an expanded one (a stride
    # of 0) row-major; NumPy's copy would put the broadcast dimension innermost
    expanded = any(st == 0 and n > 1 for st, n in zip(data.strides, data.shape, strict=True))
    out = wrap(xp.array(data, copy=True, order="C" if expanded else "K"), self._dtype)
    if needs_grad(self):
        record(CloneBackward0(), (self,), out)
    return out


@tensor_method("contiguous")
def contiguous(self, memory_format=None):
    """Self if already laid out in row-major order, else a row-major copy."""
    if self.is_contiguous():
        return self
    xp = array_module(self._data)
    out = wrap(xp.ascontiguousarray(self._data), self._dtype)
    if needs_grad(self):
        record(CloneBackward0(), (self,), out)
    return out


@tensor_method("sum_to_size")
def sum_to_size(self, *size):
    """Sum broadcast dimensions away so the result has shape `size`."""
    size = _sizes(size)
    shp = self._data.shape
    if shp == size:
        return self
    from gradshell.core.engine import _expandable

    if not _expandable(size, shp):
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(shp)}}}.")
    if not size:  # to a 0-dim shape PyTorch sums everything at once: SumBackward0
        return self.sum()
    lead = len(shp) - len(size)
    dims = tuple(range(lead)) + tuple(
        lead + i for i, s in enumerate(size) if s == 1 and shp[lead + i] != 1
    )
    r = self.sum(dims, keepdim=True) if dims else self
    if lead:
        r = r.view(size)
    return r


@tensor_method("movedim", "moveaxis", torch=("movedim", "moveaxis"))
def movedim(self, source, destination):
    """Move dimension(s) `source` to position(s) `destination`."""
    nd = self._data.ndim
    src = norm_dims(source, nd) if isinstance(source, (tuple, list)) else (wrap_dim(source, nd),)
    if isinstance(source, (tuple, list)):
        src = tuple(wrap_dim(s, nd) for s in source)
    dst = (
        tuple(wrap_dim(d, nd) for d in destination)
        if isinstance(destination, (tuple, list))
        else (wrap_dim(destination, nd),)
    )
    order = [d for d in range(nd) if d not in src]
    for d, s in sorted(zip(dst, src, strict=True)):
        order.insert(d, s)
    return permute(self, order)


# -- cat, stack, split/chunk/unbind, flip, roll, tril/triu, repeat, diagonal -----------
def _tensor_list(fname: str, tensors) -> list:
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(
            f"{fname}(): argument 'tensors' (position 1) must be tuple of Tensors, not "
            f"{type(tensors).__name__}"
        )
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}"
            )
    return list(tensors)


class CatBackward0(Node):
    """Each input gets its slice of the gradient along the concatenation dimension."""

    legacy_name_02 = "ConcatBackward"

    def backward(self, g):
        out = []
        start = 0
        for size, needed in zip(self.sizes, self.needs, strict=True):
            if size is None:  # a skipped legacy empty tensor: an empty gradient
                xp = array_module(g._data)
                out.append(wrap(xp.zeros((0,), g._dtype.np), g._dtype) if needed else None)
                continue
            out.append(narrow(g, self.dim, start, size) if needed else None)
            start += size
        return tuple(out)

    def explain(self, c: Ctx) -> Formula:
        dim, sizes = c.attr("dim"), list(c.attr("sizes"))
        locals_: list[Local | None] = []
        start = 0
        for size in sizes:
            if size is None:
                locals_.append(None)
                continue

            def apply(g: np.ndarray, lo: int = start, n: int = size) -> np.ndarray:
                index = [slice(None)] * g.ndim
                index[dim % g.ndim] = slice(lo, lo + n)
                return g[tuple(index)]

            rhs = f"grad[{start}:{start + size}] along dim {dim}"
            locals_.append(Local(rhs, kind="map", apply=apply))
            start += size
        names = ", ".join(c.sym(i) for i in range(len(sizes)))
        return Formula(f"cat([{names}], dim={dim})", locals_)


@tensor_method(torch=("cat", "concat", "concatenate"))
def cat(tensors, dim: int = 0, *, out=None) -> Tensor:
    """Join tensors along an existing dimension `dim`."""
    from gradshell.core import dtypes

    ts = _tensor_list("cat", tensors)
    if not ts:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    for i, t in enumerate(ts):
        if t._data.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    # legacy rule: 1-D empty tensors are skipped whatever the other shapes
    used = [t for t in ts if not (t._data.ndim == 1 and t._data.shape[0] == 0)]
    used_ids = {id(t) for t in used}  # by identity: `in` would compare tensors elementwise
    ref = used[0] if used else ts[0]
    nd = ref._data.ndim
    d = wrap_dim(dim, nd)
    for t in used[1:]:
        if t._data.ndim != nd:
            raise RuntimeError(
                f"Tensors must have same number of dimensions: got {nd} and {t._data.ndim}"
            )
    for i, t in enumerate(ts):
        if id(t) not in used_ids and t is not ref:
            continue
        for k in range(nd):
            if k != d and t._data.shape[k] != ref._data.shape[k]:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size "
                    f"{ref._data.shape[k]} but got size {t._data.shape[k]} for tensor number "
                    f"{i} in the list."
                )
    dt = dtypes.result_type(*ts) if len({t._dtype for t in ts}) > 1 else ref._dtype
    xp = array_module(ref._data)
    arrays = [t._data.astype(dt.np, copy=False) for t in (used or [ref])]
    res = wrap(xp.concatenate(arrays, axis=d), dt)
    if needs_grad(*ts):
        node = CatBackward0()
        node.dim = d
        node.sizes = [t._data.shape[d] if (id(t) in used_ids or not used) else None for t in ts]
        node.needs = [t._requires_grad for t in ts]
        record(node, tuple(ts), res)
    if out is not None:
        return write_out(out, res)
    return res


concat = concatenate = cat


class StackBackward0(Node):
    """Each input gets its slice (select) of the gradient along the new dimension."""

    legacy_name_02 = "StackBackward"

    def backward(self, g):
        return tuple(select(g, self.dim, i) if n else None for i, n in enumerate(self.needs))

    def explain(self, c: Ctx) -> Formula:
        dim = c.attr("dim")
        count = len(c.attr("needs"))

        def pick(i: int) -> Any:
            return lambda g: np.take(g, i, axis=dim % g.ndim)

        locals_ = [
            Local(f"grad[{i}] along dim {dim}", kind="map", apply=pick(i)) for i in range(count)
        ]
        names = ", ".join(c.sym(i) for i in range(count))
        return Formula(f"stack([{names}], dim={dim})", locals_)


@tensor_method(torch=("stack",))
def stack(tensors, dim: int = 0, *, out=None) -> Tensor:
    """Join equally-shaped tensors along a new dimension `dim`."""
    from gradshell.core import dtypes

    ts = _tensor_list("stack", tensors)
    if not ts:
        raise RuntimeError("stack expects a non-empty TensorList")
    shape = ts[0]._data.shape
    for i, t in enumerate(ts[1:], 1):
        if t._data.shape != shape:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(shape)} at entry 0 "
                f"and {list(t._data.shape)} at entry {i}"
            )
    d = wrap_dim(dim, len(shape) + 1)
    dt = dtypes.result_type(*ts) if len({t._dtype for t in ts}) > 1 else ts[0]._dtype
    xp = array_module(ts[0]._data)
    res = wrap(xp.stack([t._data.astype(dt.np, copy=False) for t in ts], axis=d), dt)
    if needs_grad(*ts):
        node = StackBackward0()
        node.dim = d
        node.needs = [t._requires_grad for t in ts]
        record(node, tuple(ts), res)
    if out is not None:
        return write_out(out, res)
    return res


# -- atleast_nd and the stacking shortcuts built on cat --------------------------------------
def _atleast(name: str, nd: int, tensors: tuple):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return tuple(_atleast(name, nd, (t,)) for t in tensors[0])
    if len(tensors) != 1:
        return tuple(_atleast(name, nd, (t,)) for t in tensors)
    t = tensors[0]
    if not isinstance(t, Tensor):
        raise TypeError(f"{name}(): argument 'input' must be Tensor, not {type(t).__name__}")
    dim = t._data.ndim
    if dim >= nd:
        return t
    if dim == 0:
        return reshape(t, (1,) * nd)
    # PyTorch unsqueezes: a row for atleast_2d; front and back for atleast_3d
    if nd == 2 or dim == 1:
        t = unsqueeze(t, 0)
    return unsqueeze(t, -1) if nd == 3 else t


@tensor_method(torch=("atleast_1d",))
def atleast_1d(*tensors):
    """The tensor (or each of several) with at least one dimension."""
    return _atleast("atleast_1d", 1, tensors)


@tensor_method(torch=("atleast_2d",))
def atleast_2d(*tensors):
    """The tensor (or each of several) with at least two dimensions (a 1-D one as a row)."""
    return _atleast("atleast_2d", 2, tensors)


@tensor_method(torch=("atleast_3d",))
def atleast_3d(*tensors):
    """The tensor (or each of several) with at least three dimensions."""
    return _atleast("atleast_3d", 3, tensors)


def _stack_list(name: str, tensors) -> list:
    ts = _tensor_list(name, tensors)
    if not ts:
        raise RuntimeError(f"{name} expects a non-empty TensorList")
    return ts


@tensor_method(torch=("hstack",))
def hstack(tensors, *, out=None) -> Tensor:
    """Join along the second dimension (the first for 1-D tensors)."""
    ts = [_atleast("atleast_1d", 1, (t,)) for t in _stack_list("hstack", tensors)]
    return cat(ts, 0 if ts[0]._data.ndim == 1 else 1, out=out)


def _rows(name: str, tensors, out) -> Tensor:
    # PyTorch checks the argument under the name called, the emptiness as vstack
    ts = [
        _atleast("atleast_2d", 2, (t,)) for t in _stack_list("vstack", _tensor_list(name, tensors))
    ]
    return cat(ts, 0, out=out)


@tensor_method(torch=("vstack",))
def vstack(tensors, *, out=None) -> Tensor:
    """Join as rows: 1-D tensors become rows, then cat along the first dimension."""
    return _rows("vstack", tensors, out)


@tensor_method(torch=("row_stack",))
def row_stack(tensors, *, out=None) -> Tensor:
    """vstack's other name."""
    return _rows("row_stack", tensors, out)


@tensor_method(torch=("dstack",))
def dstack(tensors, *, out=None) -> Tensor:
    """Join along the third dimension (depth), after atleast_3d."""
    ts = [_atleast("atleast_3d", 3, (t,)) for t in _stack_list("dstack", tensors)]
    return cat(ts, 2, out=out)


@tensor_method(torch=("column_stack",))
def column_stack(tensors, *, out=None) -> Tensor:
    """Join as columns: 0-D and 1-D tensors become columns, then hstack."""
    ts = _stack_list("column_stack", tensors)
    cols = [reshape(t, (t._data.size, 1)) if t._data.ndim <= 1 else t for t in ts]
    return cat(cols, 1, out=out)


def _multi_view(base: Tensor, parts: list, node: Node | None) -> tuple:
    """Views of `base` (one per array in `parts`) sharing one multi-output node."""
    outs = []
    for data in parts:
        o = wrap(data, base._dtype)
        o._version_counter = base._counter()
        register_view(base, o)
        if o._view_kind is None:
            o._view_kind = MULTI  # PyTorch forbids writing into one of several views
        outs.append(o)
    if node is not None and needs_grad(base):
        node.num_outputs = len(outs)
        node.output_meta = [(o._data.shape, o._dtype, array_module(o._data)) for o in outs]
        for i, o in enumerate(outs):
            record(node, (base,), o, output_nr=i)
    return tuple(outs)


class SplitBackward0(Node):
    """The pieces' gradients (zeros for unused pieces) concatenated back."""

    def backward(self, *grads):
        return (cat(list(grads), self.dim),)

    no_explanation = "several outputs: %explain shows formulas for nodes with one output"


class SplitWithSizesBackward0(SplitBackward0):
    """split with explicit sizes: the pieces' gradients concatenated back."""

    no_explanation = "several outputs: %explain shows formulas for nodes with one output"


def _split_sizes(size: int, split_size: int) -> list:
    if split_size == 0:
        return [0] if size == 0 else []
    n = max(1, -(-size // split_size))
    return [min(split_size, size - i * split_size) for i in range(n)]


@tensor_method("split", torch=("split",))
def split(self, split_size_or_sections, dim: int = 0) -> tuple:
    """Views of consecutive pieces along `dim`: of `split_size` each, or of the given sizes."""
    nd = self._data.ndim
    d = wrap_dim(dim, nd)
    size = self._data.shape[d] if nd else 0
    if isinstance(split_size_or_sections, (list, tuple)):
        sizes = [int(s) for s in split_size_or_sections]
        if sum(sizes) != size or any(s < 0 for s in sizes):
            raise RuntimeError(
                f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's "
                f"size at dimension {d}), but got split_sizes={sizes}"
            )
        node_cls = SplitWithSizesBackward0
    else:
        s = int(split_size_or_sections)
        if s < 0:
            raise RuntimeError(f"split expects split_size be non-negative, but got split_size={s}")
        if s == 0 and size != 0:
            raise RuntimeError(
                f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}"
            )
        sizes = _split_sizes(size, s)
        node_cls = SplitBackward0
    return _split_views(self, d, sizes, node_cls)


def _split_views(self: Tensor, d: int, sizes: list, node_cls) -> tuple:
    parts = []
    start = 0
    for s in sizes:
        key = (slice(None),) * d + (slice(start, start + s),)
        parts.append(self._data[key])
        start += s
    node = None
    if needs_grad(self):
        node = node_cls()
        node.dim = d
    return _multi_view(self, parts, node)


@tensor_method("chunk", torch=("chunk",))
def chunk(self, chunks: int, dim: int = 0) -> tuple:
    """Split into `chunks` pieces of (nearly) equal size along `dim` (maybe fewer)."""
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    nd = self._data.ndim
    d = wrap_dim(dim, nd)
    size = self._data.shape[d]
    return _split_views(self, d, _split_sizes(size, max(1, -(-size // chunks))), SplitBackward0)


class UnsafeSplitBackward0(SplitBackward0):
    """unsafe_split / unsafe_chunk: the pieces' gradients concatenated back."""

    no_explanation = "several outputs: %explain shows formulas for nodes with one output"


class UnsafeSplitWithSizesBackward0(SplitBackward0):
    """unsafe_split_with_sizes: the pieces' gradients concatenated back."""

    no_explanation = "several outputs: %explain shows formulas for nodes with one output"


def _unsafe_pieces(self: Tensor, d: int, sizes: list, node_cls) -> tuple:
    # PyTorch's unsafe variants share the input's memory but are not tracked as views:
    # no base, and each piece counts its own in-place versions.
    outs = []
    start = 0
    node = node_cls() if needs_grad(self) else None
    for s in sizes:
        outs.append(wrap(self._data[(slice(None),) * d + (slice(start, start + s),)], self._dtype))
        start += s
    if node is not None:
        node.dim = d
        node.num_outputs = len(outs)
        node.output_meta = [(o._data.shape, o._dtype, array_module(o._data)) for o in outs]
        for i, o in enumerate(outs):
            record(node, (self,), o, output_nr=i)
    return tuple(outs)


@tensor_method("unsafe_split", torch=("unsafe_split",))
def unsafe_split(self, split_size: int, dim: int = 0) -> tuple:
    """split without view tracking (pieces of `split_size` along `dim`)."""
    pieces = split(self.detach(), int(split_size), dim)
    d = wrap_dim(dim, self._data.ndim)
    return _unsafe_pieces(self, d, [p._data.shape[d] for p in pieces], UnsafeSplitBackward0)


@tensor_method("unsafe_split_with_sizes", torch=("unsafe_split_with_sizes",))
def unsafe_split_with_sizes(self, split_sizes, dim: int = 0) -> tuple:
    """split_with_sizes without view tracking."""
    pieces = split(self.detach(), [int(s) for s in split_sizes], dim)
    d = wrap_dim(dim, self._data.ndim)
    return _unsafe_pieces(
        self, d, [p._data.shape[d] for p in pieces], UnsafeSplitWithSizesBackward0
    )


@tensor_method("unsafe_chunk", torch=("unsafe_chunk",))
def unsafe_chunk(self, chunks: int, dim: int = 0) -> tuple:
    """chunk without view tracking: the pieces share memory but are not views."""
    pieces = chunk(self.detach(), chunks, dim)
    d = wrap_dim(dim, self._data.ndim)
    return _unsafe_pieces(self, d, [p._data.shape[d] for p in pieces], UnsafeSplitBackward0)


class UnbindBackward0(Node):
    """The slices' gradients (zeros for unused ones) stacked back."""

    def backward(self, *grads):
        return (stack(list(grads), self.dim),)

    no_explanation = "several outputs: %explain shows formulas for nodes with one output"


@tensor_method("unbind", torch=("unbind",))
def unbind(self, dim: int = 0) -> tuple:
    """The slices along `dim`, with that dimension removed (views)."""
    nd = self._data.ndim
    if nd == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = wrap_dim(dim, nd)
    parts = [self._data[(slice(None),) * d + (i,)] for i in range(self._data.shape[d])]
    node = None
    if needs_grad(self):
        node = UnbindBackward0()
        node.dim = d
    return _multi_view(self, parts, node)


class FlipBackward0(Node):
    """Flip the gradient back along the same dimensions."""

    def backward(self, g):
        return (flip(g, self.dims),)

    def explain(self, c: Ctx) -> Formula:
        dims = tuple(c.attr("dims"))
        return Formula(
            f"{c.sym(0)}.flip{dims}",
            [Local(f"grad.flip{dims}", kind="map", apply=lambda g: np.flip(g, dims))],
        )


@tensor_method("flip", torch=("flip",))
def flip(self, *dims, **kwargs) -> Tensor:
    """A copy with the order of elements reversed along `dims`."""
    if "dims" in kwargs:
        dims = (kwargs.pop("dims"),)
    if kwargs:
        raise TypeError(f"flip() got an unexpected keyword argument '{next(iter(kwargs))}'")
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = tuple(dims[0])
    nd = self._data.ndim
    axes = norm_dims(list(dims), nd) if dims else ()
    xp = array_module(self._data)
    data = xp.flip(self._data, axis=axes) if (axes and nd) else self._data
    res = wrap(xp.array(data, copy=True), self._dtype)
    if needs_grad(self):
        node = FlipBackward0()
        node.dims = axes
        record(node, (self,), res)
    return res


@tensor_method("fliplr", torch=("fliplr",))
def fliplr(self) -> Tensor:
    """Flip the columns (dimension 1)."""
    if self._data.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(self, 1)


@tensor_method("flipud", torch=("flipud",))
def flipud(self) -> Tensor:
    """Flip the rows (dimension 0)."""
    if self._data.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(self, 0)


class RollBackward0(Node):
    """Roll the gradient back by the opposite shifts."""

    def backward(self, g):
        return (roll(g, tuple(-s for s in self.shifts), self.dims),)

    def explain(self, c: Ctx) -> Formula:
        shifts, dims = tuple(c.attr("shifts")), c.attr("dims")
        back = tuple(-s for s in shifts)
        axes = None if dims is None else tuple(dims)

        def apply(g: np.ndarray) -> np.ndarray:
            if axes is None:
                return np.roll(g.reshape(-1), back).reshape(g.shape)
            return np.roll(g, back, axes)

        return Formula(
            f"{c.sym(0)}.roll{shifts}",
            [Local(f"grad rolled back by {back}", kind="map", apply=apply)],
        )


@tensor_method("roll", torch=("roll",))
def roll(self, shifts, dims=None) -> Tensor:
    """A copy with elements shifted cyclically along `dims` (the flattened tensor if None)."""
    sh = tuple(shifts) if isinstance(shifts, (tuple, list)) else (shifts,)
    dm = () if dims is None else (tuple(dims) if isinstance(dims, (tuple, list)) else (dims,))
    if (dims is None and len(sh) != 1) or (dims is not None and len(sh) != len(dm)):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(sh)}, dims:{len(dm)}")
    xp = array_module(self._data)
    nd = self._data.ndim
    if dims is None:
        data = xp.roll(self._data.reshape(-1), sh[0]).reshape(self._data.shape)
        axes = None
    else:
        axes = tuple(wrap_dim(d, nd) for d in dm)
        data = xp.roll(self._data, sh, axis=axes)
    res = wrap(xp.array(data, copy=True), self._dtype)
    if needs_grad(self):
        node = RollBackward0()
        node.shifts, node.dims = sh, axes
        record(node, (self,), res)
    return res


class TrilBackward0(Node):
    """Only the kept lower triangle passes the gradient."""

    legacy_name_02 = "TrilBackward"

    def backward(self, g):
        return (tril(g, self.diagonal),)

    def explain(self, c: Ctx) -> Formula:
        k = c.attr("diagonal")
        arg = "" if k == 0 else str(k)
        return Formula(
            f"tril({c.sym(0)}{', ' + arg if arg else ''})",
            [
                Local(
                    f"tril(grad{', ' + arg if arg else ''})",
                    kind="map",
                    apply=lambda g: np.tril(g, k),
                )
            ],
        )


class TriuBackward0(Node):
    """Only the kept upper triangle passes the gradient."""

    legacy_name_02 = "TriuBackward"

    def backward(self, g):
        return (triu(g, self.diagonal),)

    def explain(self, c: Ctx) -> Formula:
        k = c.attr("diagonal")
        arg = "" if k == 0 else str(k)
        return Formula(
            f"triu({c.sym(0)}{', ' + arg if arg else ''})",
            [
                Local(
                    f"triu(grad{', ' + arg if arg else ''})",
                    kind="map",
                    apply=lambda g: np.triu(g, k),
                )
            ],
        )


def _triangle(self: Tensor, name: str, diagonal: int, node_cls):
    if self._data.ndim < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
    xp = array_module(self._data)
    res = wrap(getattr(xp, name)(self._data, diagonal), self._dtype)
    if needs_grad(self):
        node = node_cls()
        node.diagonal = diagonal
        record(node, (self,), res)
    return res


@tensor_method("tril", torch=("tril",))
def tril(self, diagonal: int = 0) -> Tensor:
    """The lower triangle of the last two dimensions (the rest zeroed)."""
    return _triangle(self, "tril", diagonal, TrilBackward0)


@tensor_method("triu", torch=("triu",))
def triu(self, diagonal: int = 0) -> Tensor:
    """The upper triangle of the last two dimensions (the rest zeroed)."""
    return _triangle(self, "triu", diagonal, TriuBackward0)


class RepeatBackward0(Node):
    """Sum the gradient over the copies back into the original shape."""

    legacy_name_02 = "RepeatBackward"

    def backward(self, g):
        shape = self.input_shape
        reps = self.repeats
        lead = len(reps) - len(shape)
        padded = (1,) * lead + tuple(shape)
        if g._data.size == 0:
            return (wrap(array_module(g._data).zeros(shape, g._dtype.np), g._dtype),)
        inter = []
        for r, s in zip(reps, padded, strict=True):
            inter.extend((r, s))
        summed = g.reshape(tuple(inter)).sum(tuple(range(0, 2 * len(reps), 2)))
        return (summed.reshape(shape),)

    def explain(self, c: Ctx) -> Formula:
        shape, reps = tuple(c.attr("input_shape")), tuple(c.attr("repeats"))
        padded = (1,) * (len(reps) - len(shape)) + shape

        def apply(g: np.ndarray) -> np.ndarray:
            inter = [n for pair in zip(reps, padded, strict=True) for n in pair]
            summed = g.reshape(inter).sum(axis=tuple(range(0, 2 * len(reps), 2)))
            return summed.reshape(shape)

        text = "[" + ", ".join(str(s) for s in shape) + "]"
        return Formula(
            f"{c.sym(0)}.repeat{reps}",
            [Local(f"grad summed over the copies back to {text}", kind="map", apply=apply)],
        )


@tensor_method("repeat")
def repeat(self, *sizes) -> Tensor:
    """Tile the tensor: `sizes[i]` copies along dimension i (extra leading sizes add dims)."""
    reps = _sizes(sizes)
    shape = self._data.shape
    if len(reps) < len(shape):
        raise RuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions "
            "of tensor"
        )
    padded = (1,) * (len(reps) - len(shape)) + tuple(shape)
    target = [r * s for r, s in zip(reps, padded, strict=True)]
    for t in target:
        if t < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {t}: {target}")
    xp = array_module(self._data)
    res = wrap(xp.tile(self._data.reshape(padded), reps), self._dtype)
    if needs_grad(self):
        node = RepeatBackward0()
        node.repeats, node.input_shape = reps, shape
        record(node, (self,), res)
    return res


class DiagonalBackward0(Node):
    """Place the gradient on the diagonal of a zero tensor of the input's shape."""

    def backward(self, g):
        return (diagonal_embed(g, self.input_shape, self.offset, self.dim1, self.dim2),)

    def explain(self, c: Ctx) -> Formula:
        shape, offset = tuple(c.attr("input_shape")), c.attr("offset")
        d1, d2 = c.attr("dim1"), c.attr("dim2")

        def apply(g: np.ndarray) -> np.ndarray:
            out = np.zeros(shape, dtype=np.float64)
            i = np.arange(g.shape[-1])
            np.moveaxis(out, (d1, d2), (-2, -1))[..., i + max(-offset, 0), i + max(offset, 0)] = g
            return out

        return Formula(
            f"diagonal({c.sym(0)})",
            [Local("grad placed on the diagonal of zeros", kind="map", apply=apply)],
        )


class DiagonalBackwardBackward0(Node):
    """The gradient of placing values on a diagonal is that diagonal of the gradient."""

    def backward(self, gg):
        return (diagonal(gg, self.offset, self.dim1, self.dim2),)

    no_explanation = BACKWARD_OF_BACKWARD


def _diag_index(shape: tuple, offset: int, d1: int, d2: int):
    n1, n2 = shape[d1], shape[d2]
    if offset >= 0:
        length = max(0, min(n1, n2 - offset))
        return length, 0, offset
    length = max(0, min(n1 + offset, n2))
    return length, -offset, 0


def diagonal_embed(g: Tensor, shape: tuple, offset: int, d1: int, d2: int) -> Tensor:
    """A zero tensor of `shape` with `g` on its (offset, d1, d2) diagonal."""
    xp = array_module(g._data)
    z = xp.zeros(shape, g._dtype.np)
    length, s1, s2 = _diag_index(shape, offset, d1, d2)
    zm = xp.moveaxis(z, (d1, d2), (-2, -1))
    i = xp.arange(length)
    zm[..., i + s1, i + s2] = g._data
    out = wrap(z, g._dtype)
    if needs_grad(g):
        node = DiagonalBackwardBackward0()
        node.offset, node.dim1, node.dim2 = offset, d1, d2
        record(node, (g,), out)
    return out


@tensor_method("diagonal", torch=("diagonal",))
def diagonal(self, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """The diagonal of dimensions dim1 and dim2 as the last dimension (a view)."""
    nd = self._data.ndim
    d1, d2 = wrap_dim(dim1, nd), wrap_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    xp = array_module(self._data)
    data = self._data
    length, s1, s2 = _diag_index(data.shape, offset, d1, d2)
    st = data.strides
    rest = [k for k in range(nd) if k not in (d1, d2)]
    shape = tuple(data.shape[k] for k in rest) + (length,)
    strides = tuple(st[k] for k in rest) + (st[d1] + st[d2],)
    start = data[(slice(None),) * 0]
    if length:
        idx = [slice(None)] * nd
        idx[d1] = slice(s1, None)
        idx[d2] = slice(s2, None)
        start = data[tuple(idx)]
    if xp.__name__ == "numpy":
        # NumPy's own diagonal() is read-only; a strided view is writable, like PyTorch's
        view = xp.lib.stride_tricks.as_strided(start, shape=shape, strides=strides)
    else:  # CuPy's diagonal is already a writable view
        view = xp.diagonal(data, offset, d1, d2)
    node = None
    if needs_grad(self):
        node = DiagonalBackward0()
        node.input_shape, node.offset, node.dim1, node.dim2 = data.shape, offset, d1, d2
    return make_view(self, view, node)


def view_dtype(self: Tensor, dtype) -> Tensor:
    """Reinterpret the bytes as another dtype of the same size (Tensor.view(dtype))."""
    if not isinstance(dtype, dtypes.DType):
        raise TypeError(f"view(): argument 'dtype' must be torch.dtype, not {type(dtype).__name__}")
    if dtypes.bfloat16 in (dtype, self._dtype) and dtype is not self._dtype:
        raise NotImplementedError(
            "gradshell does not support Tensor.view(dtype) on bfloat16 tensors yet"
        )
    if dtype.itemsize != self._dtype.itemsize:
        raise RuntimeError(
            "gradshell: view(dtype) between dtypes of different sizes is not supported"
        )
    return make_view(self, self._data.view(dtype.np), None)
