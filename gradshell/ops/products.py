"""Products of whole tensors: cross / linalg.cross (LinalgCrossBackward0), and
tensordot, kron and matrix_power, composed from permutes, reshapes, mm/dot/matmul and mul
as PyTorch composes them, so their graphs hold PyTorch's nodes."""

from __future__ import annotations

import math

import numpy as np

from gradshell.core import warn_once
from gradshell.ops.base import (
    Node,
    Tensor,
    array_module,
    as_array,
    broadcast_error,
    needs_grad,
    record,
    tensor_method,
    wrap,
    wrap_dim,
)
from gradshell.ops.explanation import Ctx, Formula, Local
from gradshell.ops.inplace import _caller_level, copy_
from gradshell.ops.inverse import inv
from gradshell.ops.linalg import dot, matmul, mm
from gradshell.ops.shape import UnsafeViewBackward0, clone, permute, reshape

CROSS_WITHOUT_DIM = (
    "Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the "
    "dim explicitly or simply use torch.linalg.cross.\nThe default value of dim will change "
    "to agree with that of linalg.cross in a future release. (Triggered internally at "
    "/__w/pytorch/pytorch/aten/src/ATen/native/Cross.cpp:63.)"
)


# -- cross -----------------------------------------------------------------------------------
class LinalgCrossBackward0(Node):
    """d(a×b): a gets b×g, b gets g×a (each summed back over broadcasting)."""

    def backward(self, g):
        a, b = self.saved("self"), self.saved("other")
        d = self.dim
        ga = linalg_cross(b, g, dim=d) if self.needs[0] else None
        gb = linalg_cross(g, a, dim=d) if self.needs[1] else None
        if ga is not None and ga._data.shape != a._data.shape:
            ga = ga.sum_to_size(a._data.shape)
        if gb is not None and gb._data.shape != b._data.shape:
            gb = gb.sum_to_size(b._data.shape)
        return ga, gb

    def explain(self, c: Ctx) -> Formula:
        a, b, d = c.saved("self"), c.saved("other"), c.attr("dim")
        shape = np.broadcast_shapes(a.shape, b.shape)

        def to(arr, target):
            lead = arr.ndim - len(target)
            arr = arr.sum(axis=tuple(range(lead))) if lead else arr
            axes = tuple(i for i, s in enumerate(target) if s == 1 and arr.shape[i] != 1)
            return arr.sum(axis=axes, keepdims=True) if axes else arr

        la = Local(
            "other × grad",
            kind="map",
            apply=lambda g: to(np.cross(np.broadcast_to(b, shape), g, axis=d), a.shape),
        )
        lb = Local(
            "grad × self",
            kind="map",
            apply=lambda g: to(np.cross(g, np.broadcast_to(a, shape), axis=d), b.shape),
        )
        return Formula(f"cross({c.sym(0)}, {c.sym(1)})", [la, lb])


def linalg_cross(input: Tensor, other: Tensor, *, dim: int = -1) -> Tensor:  # noqa: A002
    """The cross product of 3-vectors along `dim` (inputs broadcast)."""
    na, nb = input._data.ndim, other._data.ndim
    if na != nb:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    d = wrap_dim(dim, na)
    if input._data.shape[d] != 3 or other._data.shape[d] != 3:
        raise RuntimeError(
            f"linalg.cross: inputs dimension {dim} must have length 3. Got "
            f"{input._data.shape[d]} and {other._data.shape[d]}"
        )
    if input._dtype is not other._dtype:
        raise RuntimeError(
            f"expected scalar type {input._dtype.scalar_name} but found {other._dtype.scalar_name}"
        )
    try:
        shape = np.broadcast_shapes(input._data.shape, other._data.shape)
    except ValueError:
        raise broadcast_error(tuple(input._data.shape), tuple(other._data.shape)) from None
    xp = array_module(input._data)
    a = xp.moveaxis(xp.broadcast_to(input._data, shape), d, -1)
    b = xp.moveaxis(xp.broadcast_to(other._data, shape), d, -1)
    # PyTorch's kernel: each component a_j*b_k - a_k*b_j, in the element type
    out = xp.stack(
        [
            a[..., 1] * b[..., 2] - a[..., 2] * b[..., 1],
            a[..., 2] * b[..., 0] - a[..., 0] * b[..., 2],
            a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0],
        ],
        axis=-1,
    )
    res = wrap(as_array(xp.moveaxis(out, -1, d).astype(input._dtype.np)), input._dtype)
    if needs_grad(input, other):
        node = LinalgCrossBackward0()
        node.dim = d
        node.needs = (input._requires_grad, other._requires_grad)
        node.save("self", input)
        node.save("other", other)
        record(node, (input, other), res)
    return res


@tensor_method("cross", torch=("cross",))
def cross(self, other: Tensor, dim: int | None = None) -> Tensor:
    """torch.cross: linalg.cross along `dim` (without it, the first dimension of size 3,
    with PyTorch's deprecation warning)."""
    if dim is None:
        warn_once.warn_once(CROSS_WITHOUT_DIM, stacklevel=_caller_level())
        try:
            shape = np.broadcast_shapes(self._data.shape, other._data.shape)
        except ValueError:
            shape = self._data.shape
        sizes = [i for i, s in enumerate(shape) if s == 3]
        if not sizes:
            raise RuntimeError("no dimension of size 3 in input")
        dim = sizes[0]
    return linalg_cross(self, other, dim=dim)


# -- tensordot -------------------------------------------------------------------------------
def _dims_lists(dims, na: int, nb: int) -> tuple[list, list]:
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(na, nb):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        return list(range(-dims, 0)), list(range(dims))
    da, db = dims
    da = [da] if isinstance(da, int) else list(da)
    db = [db] if isinstance(db, int) else list(db)
    if len(da) != len(db):
        raise RuntimeError("both dimension lists should have same length")
    return da, db


def _shaped(t: Tensor, shape: tuple) -> Tensor:
    # for dot, PyTorch reshapes only where the shape changes (for mm it always does)
    return t if tuple(t._data.shape) == tuple(shape) else reshape(t, shape)


@tensor_method(torch=("tensordot",))
def tensordot(a: Tensor, b: Tensor, dims=2, out=None) -> Tensor:
    """Sum of products over the dimension pairs `dims` (an int n: a's last n with b's
    first n), as permute + reshape + mm (or dot for a 0-d result) + view."""
    if out is not None:
        raise NotImplementedError("gradshell does not support torch.tensordot(out=...) yet")
    na, nb = a._data.ndim, b._data.ndim
    da_given, db_given = _dims_lists(dims, na, nb)
    if a._dtype is not b._dtype:
        raise RuntimeError("both inputs should have same dtype")
    da = [wrap_dim(d, na) for d in da_given]
    db = [wrap_dim(d, nb) for d in db_given]
    for i, (x, y) in enumerate(zip(da, db, strict=True)):
        sa, sb = a._data.shape[x], b._data.shape[y]
        if sa != sb:
            raise RuntimeError(
                f"contracted dimensions need to match, but first has size {sa} in dim "
                f"{da_given[i]} and second has size {sb} in dim {db_given[i]}"
            )
    free_a = [d for d in range(na) if d not in da]
    free_b = [d for d in range(nb) if d not in db]
    out_shape = tuple(a._data.shape[d] for d in free_a) + tuple(b._data.shape[d] for d in free_b)
    m = math.prod(a._data.shape[d] for d in free_a)
    n = math.prod(b._data.shape[d] for d in free_b)
    k = math.prod(a._data.shape[d] for d in da)
    pa = permute(a, free_a + da)
    pb = permute(b, db + free_b)
    if m == 1 and n == 1:
        prod = dot(_shaped(pa, (k,)), _shaped(pb, (k,)))
    else:
        prod = mm(reshape(pa, (m, k)), reshape(pb, (k, n)))
    return prod.view(out_shape)


# -- kron ------------------------------------------------------------------------------------
def _unsafe_view(t: Tensor, shape: tuple) -> Tensor:
    """ATen's _unsafe_view: a reshape recorded as UnsafeViewBackward0, always."""
    xp = array_module(t._data)
    out = wrap(xp.ascontiguousarray(t._data).reshape(shape), t._dtype)
    if needs_grad(t):
        node = UnsafeViewBackward0()
        node.input_shape = t._data.shape
        record(node, (t,), out)
    return out


@tensor_method("kron", torch=("kron",))
def kron(self, other: Tensor) -> Tensor:
    """The Kronecker product: every element of self times the whole of other."""
    nd = max(self._data.ndim, other._data.ndim)
    sa = (1,) * (nd - self._data.ndim) + tuple(self._data.shape)
    sb = (1,) * (nd - other._data.ndim) + tuple(other._data.shape)
    a_shape, b_shape = [], []
    for x, y in zip(sa, sb, strict=True):
        a_shape += [x, 1]
        b_shape += [1, y]
    prod = _unsafe_view(self, tuple(a_shape)) * _unsafe_view(other, tuple(b_shape))
    return _unsafe_view(prod, tuple(x * y for x, y in zip(sa, sb, strict=True)))


# -- matrix_power --------------------------------------------------------------------------------
@tensor_method("matrix_power", torch=("matrix_power",))
def matrix_power(self, n: int) -> Tensor:
    """A square matrix (or batch) to the integer power n, as PyTorch multiplies it:
    n = 0 the identity (a clone overwritten), 1 a clone, 2 and 3 directly, higher powers
    by repeated squaring; a negative n inverts first."""
    nd = self._data.ndim
    if nd < 2:
        raise RuntimeError(
            "linalg.matrix_power: The input tensor A must have at least 2 dimensions."
        )
    if self._data.shape[-1] != self._data.shape[-2]:
        raise RuntimeError(
            "linalg.matrix_power: A must be batches of square matrices, but they are "
            f"{self._data.shape[-2]} by {self._data.shape[-1]} matrices"
        )
    a = self
    if n == 0:
        xp = array_module(self._data)
        eye = wrap(
            xp.broadcast_to(xp.eye(self._data.shape[-1], dtype=self._dtype.np), self._data.shape),
            self._dtype,
        )
        return copy_(clone(self), eye)
    if n < 0:
        a, n = inv(self), -n
        if n == 1:
            return a
    elif n == 1:
        return clone(self)
    if n == 2:
        return matmul(a, a)
    if n == 3:
        return matmul(matmul(a, a), a)
    z = result = None
    while n > 0:  # binary powering: the squares, multiplied in where n has a 1 bit
        bit, n = n % 2, n // 2
        z = a if z is None else matmul(z, z)
        if bit:
            result = z if result is None else matmul(result, z)
    return result


def linalg_matrix_power(A: Tensor, n: int, *, out=None) -> Tensor:  # noqa: N803
    """torch.linalg.matrix_power."""
    if out is not None:
        raise NotImplementedError(
            "gradshell does not support torch.linalg.matrix_power(out=...) yet"
        )
    return matrix_power(A, n)
