"""Ordering ops: sort, argsort, msort, topk, kthvalue, unique and unique_consecutive.

Values come out as PyTorch's; so do the indices of equal elements, which PyTorch's CPU
kernels leave in the order their algorithms happen to (GCC's `std::sort` for sort
without `stable=True`, `std::partial_sort` / `std::nth_element` for topk, a quickselect
for kthvalue). A slice with no equal elements has one right answer, computed with
NumPy; a slice with ties is replayed step for step by `gradshell.ops.cpu_order` (except
where PyTorch's kernel is a stable one: a 1-D integer tensor of 32768 or more elements
sorted ascending goes through a radix sort).
NaN counts as larger than every number and equal to every NaN, as in PyTorch.
"""

from __future__ import annotations

import numpy as np

from gradshell.core import dtypes
from gradshell.core.device import to_numpy
from gradshell.ops import cpu_order, return_types
from gradshell.ops.base import (
    BOOL,
    INT,
    Node,
    Tensor,
    array_module,
    needs_grad,
    record,
    tensor_method,
    wrap,
    wrap_dim,
)
from gradshell.ops.explanation import Ctx, Formula, Local
from gradshell.ops.indexing import scatter
from gradshell.ops.shape import unsqueeze

_UNSET = object()  # `stable` not given: PyTorch then records SortBackward0, else SortBackward1


# -- orders of the rows of a (slices, n) array ---------------------------------------------------
def _has_ties(rows: np.ndarray) -> np.ndarray:
    """Per row: whether two of its elements compare equal (NaNs are all equal)."""
    if rows.shape[1] < 2:
        return np.zeros(rows.shape[0], dtype=bool)
    s = np.sort(rows, axis=1)
    eq = s[:, 1:] == s[:, :-1]
    if s.dtype.kind == "f":
        eq |= np.isnan(s[:, 1:]) & np.isnan(s[:, :-1])
    return eq.any(axis=1)


def _stable_order(rows: np.ndarray, descending: bool) -> np.ndarray:
    """Indices sorting each row, equal elements kept in their original order."""
    if not descending:
        return np.argsort(rows, axis=1, kind="stable")
    # sorting the reversed row ascending and reading the result backwards puts NaN (and
    # the largest values) first while keeping equal elements in their original order
    n = rows.shape[1]
    return n - 1 - np.argsort(rows[:, ::-1], axis=1, kind="stable")[:, ::-1]


def _keyed(row: np.ndarray, flip: bool) -> list:
    """(key, index) pairs for the replayed algorithms: keys are ranks (NaN on top)."""
    _, inv = np.unique(row, return_inverse=True)
    inv = inv.reshape(-1)
    return [(-int(r) if flip else int(r), j) for j, r in enumerate(inv)]


def _sort_rows(rows: np.ndarray, descending: bool, stable: bool) -> np.ndarray:
    idx = _stable_order(rows, descending)
    if not stable:
        for r in np.flatnonzero(_has_ties(rows)):
            q = _keyed(rows[r], descending)
            cpu_order.std_sort(q, 0, len(q))
            idx[r] = [j for _, j in q]
    return idx


def _topk_rows(rows: np.ndarray, k: int, largest: bool, ordered: bool) -> np.ndarray:
    n = rows.shape[1]
    idx = _stable_order(rows, largest)[:, :k]
    partial = k * 64 <= n
    # without ties the sorted top k is the only answer; unsorted, nth_element's order is
    # whatever its partitions leave
    replay = _has_ties(rows) if (partial or ordered) else np.ones(rows.shape[0], dtype=bool)
    for r in np.flatnonzero(replay):
        q = _keyed(rows[r], largest)
        if partial:
            cpu_order.partial_sort(q, 0, k, n)
        else:
            cpu_order.nth_element(q, 0, k - 1, n)
            if ordered:
                cpu_order.std_sort(q, 0, k - 1)
        idx[r] = [j for _, j in q[:k]]
    return idx


def _kth_rows(rows: np.ndarray, k: int) -> np.ndarray:
    idx = _stable_order(rows, False)[:, k - 1 : k]
    for r in np.flatnonzero(_has_ties(rows)):
        q = _keyed(rows[r], False)
        cpu_order.quickselect(q, k - 1)
        idx[r, 0] = q[k - 1][1]
    return idx


def _along(self: Tensor, d: int, fn) -> tuple:
    """Run `fn` on the slices along `d` as rows; (values, int64 indices) in `d` again."""
    data = self._data
    xp = array_module(data)
    host = to_numpy(data)
    if host.ndim == 0:
        host = host.reshape(1)
    moved = np.moveaxis(host, d, -1)
    lead = moved.shape[:-1]
    rows = moved.reshape(int(np.prod(lead)), moved.shape[-1])
    idx = np.asarray(fn(rows), dtype=np.int64)
    vals = np.take_along_axis(rows, idx, axis=1)
    out_shape = lead + (idx.shape[1],)
    vals = np.moveaxis(vals.reshape(out_shape), -1, d)
    idx = np.moveaxis(idx.reshape(out_shape), -1, d)
    if data.ndim == 0:
        vals, idx = vals.reshape(()), idx.reshape(())
    # (np.ascontiguousarray would turn a 0-d result into 1-d)
    return xp.asarray(np.array(vals, order="C")), xp.asarray(np.array(idx, order="C"))


# -- backward: each output element's gradient goes back to where it came from -----------------
class _ValueSelecting(Node):
    """The gradient is scattered into zeros at the saved indices along `dim`."""

    label = ""

    def backward(self, g):
        idx = self.saved("indices")
        shape = self.input_shape
        if not shape:
            return (g.reshape(()),)
        if not getattr(self, "keepdim", True):
            g, idx = unsqueeze(g, self.dim), unsqueeze(idx, self.dim)
        zeros = wrap(array_module(g._data).zeros(shape, g._dtype.np), g._dtype)
        return (scatter(zeros, self.dim, idx, g),)

    def explain(self, c: Ctx) -> Formula:
        shape, d = tuple(c.attr("input_shape")), c.attr("dim")
        keepdim = getattr(self, "keepdim", True)
        idx = c.saved("indices").astype(np.int64)

        def apply(g: np.ndarray) -> np.ndarray:
            if not shape:
                return g.reshape(())
            out = np.zeros(shape, dtype=np.float64)
            i, gg = (idx, g) if keepdim else (np.expand_dims(idx, d), np.expand_dims(g, d))
            np.put_along_axis(out, i, gg, axis=d)
            return out

        return Formula(
            f"{self.label}({c.sym(0)}, dim={d})",
            [Local("grad sent back to the position each value came from", kind="map", apply=apply)],
        )


class SortBackward0(_ValueSelecting):
    """sort: each sorted value's gradient goes back to its original position."""

    label = "sort"
    explain = _ValueSelecting.explain


class SortBackward1(_ValueSelecting):
    """sort(stable=...): as SortBackward0 (PyTorch's node for the `stable` overload)."""

    label = "sort"
    explain = _ValueSelecting.explain


class TopkBackward0(_ValueSelecting):
    """topk: the k values' gradients go back to their positions, zeros elsewhere."""

    label = "topk"
    explain = _ValueSelecting.explain


class KthvalueBackward0(_ValueSelecting):
    """kthvalue: the gradient goes to the position of each k-th smallest value."""

    label = "kthvalue"
    explain = _ValueSelecting.explain


def _record(node: _ValueSelecting, self: Tensor, d: int, values: Tensor, indices: Tensor) -> None:
    if needs_grad(self):
        node.dim, node.input_shape = d, self._data.shape
        node.save("indices", indices)
        record(node, (self,), values)


def _no_out(name: str, out) -> None:
    if out is not None:
        raise NotImplementedError(f"gradshell does not support torch.{name}(out=...) yet")


# -- sort, argsort, msort --------------------------------------------------------------------------
# PyTorch sorts a long 1-D integer tensor ascending with a radix sort, which is stable
_RADIX_MIN_NUMEL = 32768


def _sorted(self: Tensor, dim: int, descending: bool, stable: bool) -> tuple:
    d = wrap_dim(dim, self._data.ndim)
    if (
        self._data.ndim == 1
        and not descending
        and self._dtype.category == INT
        and self._data.size >= _RADIX_MIN_NUMEL
    ):
        stable = True
    vals, idx = _along(self, d, lambda rows: _sort_rows(rows, descending, stable))
    return d, wrap(vals, self._dtype), wrap(idx, dtypes.int64)


@tensor_method("sort", torch=("sort",))
def sort(self, dim: int = -1, descending: bool = False, *, stable=_UNSET, out=None):
    """(values, indices) sorted along `dim`; equal elements keep their order with stable=True."""
    _no_out("sort", out)
    d, values, indices = _sorted(self, dim, descending, bool(stable) and stable is not _UNSET)
    _record(SortBackward0() if stable is _UNSET else SortBackward1(), self, d, values, indices)
    return return_types.sort((values, indices))


@tensor_method("argsort", torch=("argsort",))
def argsort(self, dim: int = -1, descending: bool = False, *, stable: bool = False, out=None):
    """The indices that sort the tensor along `dim` (no gradient)."""
    _no_out("argsort", out)
    return _sorted(self, dim, descending, bool(stable))[2]


@tensor_method("msort", torch=("msort",))
def msort(self, *, out=None) -> Tensor:
    """The tensor sorted along its first dimension."""
    _no_out("msort", out)
    return sort(self, 0).values


# -- topk, kthvalue -------------------------------------------------------------------------------
@tensor_method("topk", torch=("topk",))
def topk(self, k: int, dim: int = -1, largest: bool = True, sorted: bool = True, *, out=None):  # noqa: A002
    """(values, indices) of the k largest (or smallest) elements along `dim`."""
    _no_out("topk", out)
    nd = self._data.ndim
    d = wrap_dim(dim, nd)
    size = self._data.shape[d] if nd else 1
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")
    if self._dtype.category == BOOL:
        raise RuntimeError("topk does not support bool dtypes on CPU")
    if nd == 0:
        k = 1  # PyTorch returns the element itself, also for k=0
    vals, idx = _along(self, d, lambda rows: _topk_rows(rows, k, largest, sorted))
    values, indices = wrap(vals, self._dtype), wrap(idx, dtypes.int64)
    _record(TopkBackward0(), self, d, values, indices)
    return return_types.topk((values, indices))


@tensor_method("kthvalue", torch=("kthvalue",))
def kthvalue(self, k: int, dim: int = -1, keepdim: bool = False, *, out=None):
    """(values, indices) of the k-th smallest element along `dim`."""
    _no_out("kthvalue", out)
    nd = self._data.ndim
    d = wrap_dim(dim, nd)
    if self._dtype.category == BOOL:
        raise NotImplementedError("\"kthvalue_cpu\" not implemented for 'Bool'")
    size = self._data.shape[d] if nd else 1
    if nd and size == 0:
        raise IndexError(f"kthvalue(): Expected reduction dim {d} to have non-zero size.")
    if not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    vals, idx = _along(self, d, lambda rows: _kth_rows(rows, k))
    if nd and not keepdim:
        vals, idx = vals.squeeze(d), idx.squeeze(d)
    values, indices = wrap(vals, self._dtype), wrap(idx, dtypes.int64)
    if needs_grad(self):
        node = KthvalueBackward0()
        node.keepdim = keepdim or nd == 0
        _record(node, self, d, values, indices)
    return return_types.kthvalue((values, indices))


# -- unique, unique_consecutive ------------------------------------------------------------------
class _NoDerivative(Node):
    """A node PyTorch records without a derivative: backward through it fails."""

    op_name = ""
    no_explanation = "PyTorch implements no derivative for it"

    def backward(self, g):
        raise NotImplementedError(f"the derivative for '{self.op_name}' is not implemented.")


class Unique2Backward0(_NoDerivative):
    """unique (dim=None): PyTorch implements no derivative."""

    op_name = "_unique2"
    no_explanation = "PyTorch implements no derivative for unique"


class UniqueDimBackward0(_NoDerivative):
    """unique(dim=...): PyTorch implements no derivative."""

    op_name = "unique_dim"
    no_explanation = "PyTorch implements no derivative for unique(dim=...)"


class UniqueConsecutiveBackward0(_NoDerivative):
    """unique_consecutive: PyTorch implements no derivative."""

    op_name = "unique_consecutive"
    no_explanation = "PyTorch implements no derivative for unique_consecutive"


def _differs(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Elementwise a != b as C compares (NaN differs from everything, itself included)."""
    return a != b


class _Row:
    """One slice of unique(dim=...), ordered as PyTorch's comparator orders them: the first
    element where one is `<` or `>` the other decides (NaN never does)."""

    __slots__ = ("v",)

    def __init__(self, v: np.ndarray) -> None:
        self.v = v

    def __lt__(self, other: _Row) -> bool:
        a, b = self.v, other.v
        lt, gt = a < b, a > b
        decided = np.flatnonzero(lt | gt)
        return bool(decided.size) and bool(lt[decided[0]])


def _results(self, out, inverse, counts, return_inverse, return_counts, node_cls):
    xp = array_module(self._data)
    output = wrap(xp.asarray(np.array(out, order="C")), self._dtype)
    if needs_grad(self):
        record(node_cls(), (self,), output)
    extra = []
    if return_inverse:
        extra.append(wrap(xp.asarray(inverse.astype(np.int64)), dtypes.int64))
    if return_counts:
        extra.append(wrap(xp.asarray(counts.astype(np.int64)), dtypes.int64))
    return (output, *extra) if extra else output


def _groups(flat: np.ndarray, order: np.ndarray):
    """Unique values of flat[order] (already grouped), the inverse map and the counts."""
    vals = flat[order]
    new = np.ones(vals.shape[0], dtype=bool)
    if vals.shape[0] > 1:
        new[1:] = _differs(vals[1:], vals[:-1])
    group = np.cumsum(new) - 1
    inverse = np.empty(vals.shape[0], dtype=np.int64)
    inverse[order] = group
    starts = np.flatnonzero(new)
    counts = np.diff(np.append(starts, vals.shape[0]))
    return vals[starts], inverse, counts


def _dim_groups(self: Tensor, d: int, consecutive: bool):
    host = to_numpy(self._data)
    for k, s in enumerate(host.shape):
        if s == 0 and k != d:
            raise RuntimeError(
                "There are 0 sized dimensions, and they aren't selected, so unique cannot be "
                "applied"
            )
    moved = np.moveaxis(host, d, 0)
    rows = moved.reshape(moved.shape[0], int(np.prod(moved.shape[1:])))
    n = rows.shape[0]
    if consecutive:
        order = list(range(n))
    else:
        q = [(_Row(rows[i]), i) for i in range(n)]
        cpu_order.std_sort(q, 0, n)
        order = [i for _, i in q]
    inverse = np.empty(n, dtype=np.int64)
    counts: list[int] = []
    kept: list[int] = []
    for i in order:
        # torch.equal: rows holding NaN never equal anything
        if kept and not _differs(rows[kept[-1]], rows[i]).any():
            counts[-1] += 1
        else:
            kept.append(i)
            counts.append(1)
        inverse[i] = len(kept) - 1
    out = np.moveaxis(moved[kept], 0, d) if n else host
    return out, inverse, np.asarray(counts, dtype=np.int64)


@tensor_method("unique", torch=("unique",))
def unique(
    self,
    sorted: bool = True,  # noqa: A002 - PyTorch's name
    return_inverse: bool = False,
    return_counts: bool = False,
    dim: int | None = None,
):
    """The distinct elements (or slices along `dim`), sorted; optionally the index of each
    input element's value in them and how often each occurs."""
    if dim is not None:
        d = wrap_dim(dim, self._data.ndim)
        out, inverse, counts = _dim_groups(self, d, consecutive=False)
        return _results(
            self, out, inverse, counts, return_inverse, return_counts, UniqueDimBackward0
        )
    host = to_numpy(self._data)
    flat = host.reshape(-1)
    # PyTorch's CPU unique sorts whatever `sorted` says; each NaN stays a value of its own
    order = np.argsort(flat, kind="stable")
    out, inverse, counts = _groups(flat, order)
    inverse = inverse.reshape(host.shape)
    return _results(self, out, inverse, counts, return_inverse, return_counts, Unique2Backward0)


@tensor_method("unique_consecutive", torch=("unique_consecutive",))
def unique_consecutive(
    self, return_inverse: bool = False, return_counts: bool = False, dim: int | None = None
):
    """Each run of equal consecutive elements (or slices along `dim`) reduced to one."""
    if dim is not None:
        d = wrap_dim(dim, self._data.ndim)
        out, inverse, counts = _dim_groups(self, d, consecutive=True)
    else:
        host = to_numpy(self._data)
        flat = host.reshape(-1)
        out, inverse, counts = _groups(flat, np.arange(flat.shape[0]))
        inverse = inverse.reshape(host.shape)
    return _results(
        self, out, inverse, counts, return_inverse, return_counts, UniqueConsecutiveBackward0
    )
