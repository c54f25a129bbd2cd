"""Shape ops: views that share storage (view, reshape, t, transpose, permute, expand,
squeeze, unsqueeze, select, slice, narrow, flatten) and their copying cousins
(contiguous, clone, sum_to_size)."""

from __future__ import annotations

import math

from gradshell.core.size import Size
from gradshell.ops.base import (
    Node,
    Tensor,
    array_module,
    needs_grad,
    norm_dims,
    record,
    tensor_method,
    wrap,
    wrap_dim,
)


def make_view(base: Tensor, data, node: Node | None) -> Tensor:
    """A tensor viewing `base`'s storage through `data`, recorded with `node` if needed."""
    out = wrap(data, base._dtype)
    out._version_counter = base._counter()
    out._base = base if base._base is None else base._base
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


@tensor_method("view")
def view(self, *shape):
    """The same data seen with another shape (no copy; fails if the strides do not allow it)."""
    if len(shape) == 1 and not isinstance(shape[0], (int, tuple, list, Size, Tensor)):
        from gradshell.ops.conversion import view_dtype

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


class UnsafeViewBackward0(ViewBackward0):
    """reshape that had to copy: the gradient is reshaped back."""


@tensor_method("reshape")
def reshape(self, *shape):
    """The data with another shape: a view when the strides allow it, else a copy."""
    shape = infer_shape(_sizes(shape), self._data.size)
    v = _try_view(self._data, shape)
    if v is not None:
        node = ViewBackward0() if needs_grad(self) else None
        if node is not None:
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


@tensor_method("flatten")
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


@tensor_method("unflatten")
def unflatten(self, dim: int, sizes):
    """Split dimension `dim` into `sizes`."""
    d = wrap_dim(dim, self._data.ndim)
    shp = self._data.shape
    sizes = infer_shape(tuple(sizes), shp[d])
    return view(self, shp[:d] + sizes + shp[d + 1 :])


class TBackward0(Node):
    """The gradient of a transpose is the transposed gradient."""

    legacy_name_02 = "TransposeBackward"

    def backward(self, g):
        return (g.t(),)


@tensor_method("t")
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


@tensor_method("transpose", "swapaxes", "swapdims")
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


@tensor_method("permute")
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


def _permute_T(self):
    nd = self._data.ndim
    return permute(self, tuple(range(nd - 1, -1, -1))) if nd else self


Tensor.T = property(_permute_T, doc="All dimensions reversed (a view).")
Tensor.mT = property(lambda self: transpose(self, -2, -1), doc="The last two dims swapped.")


class ExpandBackward0(Node):
    """Sum the gradient over the broadcast dimensions."""

    legacy_name_02 = "ExpandBackward"

    def backward(self, g):
        return (g.sum_to_size(self.input_shape),)


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
    data = array_module(self._data).broadcast_to(self._data, tuple(target))
    node = None
    if needs_grad(self):
        node = ExpandBackward0()
        node.input_shape = shp
    return make_view(self, data, node)


def _type_desc(self) -> str:
    return "torch." + self._dtype.legacy_name


Tensor._type_desc = _type_desc


@tensor_method("expand_as")
def expand_as(self, other: Tensor) -> Tensor:
    """expand(other.shape)."""
    return expand(self, other._data.shape)


class SqueezeBackward0(Node):
    """Put the removed size-1 dimensions back."""

    legacy_name_02 = "SqueezeBackward"

    def backward(self, g):
        return (g.reshape(self.input_shape),)


class SqueezeBackward1(SqueezeBackward0):
    """squeeze(dim): put the removed dimension back."""


class SqueezeBackward2(SqueezeBackward0):
    """squeeze(dims): put the removed dimensions back."""


@tensor_method("squeeze")
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


@tensor_method("unsqueeze")
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


def alias(self):
    """A new view of the whole tensor."""
    return make_view(self, self._data.view(), AliasBackward0() if needs_grad(self) else None)


# -- select / slice ----------------------------------------------------------------------------
class SelectBackward0(Node):
    """Place the gradient at the selected index of a zero tensor of the input's shape."""

    legacy_name_02 = "IndexBackward"

    def backward(self, g):
        return (embed(g, self.input_shape, self.key, SelectBackwardBackward0),)


class SliceBackward0(Node):
    """Place the gradient in the sliced region of a zero tensor of the input's shape."""

    legacy_name_02 = "IndexBackward"

    def backward(self, g):
        return (embed(g, self.input_shape, self.key, SliceBackwardBackward0),)


class SelectBackwardBackward0(Node):
    """The gradient of select_backward is the selection of the gradient."""

    def backward(self, gg):
        return (gg[self.key],)


class SliceBackwardBackward0(SelectBackwardBackward0):
    """The gradient of slice_backward is the slice of the gradient."""


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


@tensor_method("select")
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
    return make_view(self, self._data[key], node)


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


@tensor_method("narrow")
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


@tensor_method("clone")
def clone(self, *, memory_format=None):
    """A copy with its own storage (recorded, so gradients flow back)."""
    xp = array_module(self._data)
    out = wrap(xp.array(self._data, copy=True), self._dtype)
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
    lead = len(shp) - len(size)
    dims = tuple(range(lead)) + tuple(
        lead + i for i, s in enumerate(size) if s == 1 and shp[lead + i] != 1
    )
    r = self.sum(dims, keepdim=True) if dims else self
    if lead:
        r = r.view(size)
    return r


@tensor_method("movedim", "moveaxis")
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
