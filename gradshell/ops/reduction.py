"""Reductions: sum, mean, norm, prod, max/min, amax/amin, argmax/argmin, var/std,
logsumexp, cumsum/cumprod, all/any and dist (over everything or over dimensions, keepdim)."""

from __future__ import annotations

import builtins
import math

import numpy as np

from gradshell.core import dtypes, grad_mode, kernels
from gradshell.ops import clamping, return_types, summation
from gradshell.ops.base import (
    BOOL,
    FLOAT,
    INT,
    Node,
    Tensor,
    array_module,
    as_array,
    needs_grad,
    norm_dims,
    record,
    tensor_method,
    wrap,
)
from gradshell.ops.explanation import (
    Ctx,
    Formula,
    Local,
    Unavailable,
    kept,
    needs,
    num,
    others_product,
    reduction_formula,
    wrap_sym,
)
from gradshell.ops.indexing import scatter
from gradshell.ops.scalar import _apply, div_scalar, mul_scalar
from gradshell.ops.selection import where
from gradshell.ops.shape import cat, narrow, tril
from gradshell.ops.unary import exp, sgn


def _dims_arg(dim, ndim):
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0):
        return None
    dims = norm_dims(dim, ndim)
    # a 0-dim tensor accepts dim 0 / -1 and is left as it is
    return () if ndim == 0 else dims


def unsqueeze_to(g: Tensor, input_shape: tuple, dims: tuple | None, keepdim: bool) -> Tensor:
    """Reshape a reduced gradient so it broadcasts against the input again."""
    if keepdim or dims is None:
        return g
    if not grad_mode.state.enabled or not g._requires_grad:
        shape = list(input_shape)
        for d in dims:
            shape[d] = 1
        return g.reshape(tuple(shape))
    # recorded, PyTorch's unsqueeze_multiple: one unsqueeze per reduced dim, in order
    # (UnsqueezeBackward0 nodes, which a further derivative squeezes again)
    for d in sorted(dims):
        g = g.unsqueeze(d)
    return g


def expand_grad(g: Tensor, shape: tuple, count: int | None = None) -> Tensor:
    """`g` broadcast to `shape` (and divided by `count`, for a mean: even by 1, which
    PyTorch's graph records too): the backward of sum and mean.

    Without create_graph a plain broadcast array is enough (and much cheaper than
    recording a view), so that is what runs then."""
    if not grad_mode.state.enabled and g._data.__class__ is np.ndarray:
        if count is None:
            # a sum's: a read-only broadcast view, as PyTorch's expand gives a stride-0 tensor:
            # kernels that take another path for non-contiguous gradients (batch
            # norm's backward) see the layout PyTorch's do
            return wrap(np.broadcast_to(g._data, shape), g._dtype)
        out = np.empty(shape, g._dtype.np)
        out[...] = g._data if count == 1 else g._data / count  # a mean's: a new tensor
        return wrap(out, g._dtype)
    r = g.expand(shape)
    # PyTorch divides by the count, a number: div.Scalar (DivBackward1)
    return r if count is None else div_scalar(r, count)


class SumBackward0(Node):
    """Every element contributed once: expand the gradient back."""

    legacy_name_02 = "SumBackward"

    def backward(self, g):
        return (expand_grad(g, self.input_shape),)

    explain = reduction_formula("sum", False)


class SumBackward1(Node):
    """sum(dim): put the reduced dims back and expand."""

    legacy_name_02 = "SumBackward"

    def backward(self, g):
        g = unsqueeze_to(g, self.input_shape, self.dims, self.keepdim)
        return (expand_grad(g, self.input_shape),)

    explain = reduction_formula("sum", False)


def _sum_dtype(x: Tensor, dtype):
    if dtype is not None:
        return dtype
    return dtypes.int64 if x._dtype.category in (INT, BOOL) else x._dtype


@tensor_method("sum", torch=("sum",))
def sum(self, dim=None, keepdim: bool = False, *, dtype=None):  # noqa: A001 - PyTorch's name
    """Sum of all elements, or over `dim` (an int or tuple)."""
    nd = self._data.ndim
    dims = _dims_arg(dim, nd)
    dt = _sum_dtype(self, dtype)
    xp = array_module(self._data)
    if dt.category == FLOAT:
        # PyTorch's order of additions, so the last bits (and the printout) agree
        r = as_array(summation.torch_sum(self._data, dims, keepdim and dims is not None, dt.np))
    else:
        data = self._data if self._data.dtype == dt.np else self._data.astype(dt.np)
        r = as_array(xp.sum(data, axis=dims, keepdims=keepdim if dims is not None else False))
    if dims is None and keepdim and dim is not None:
        r = r.reshape((1,) * nd)
    if r.dtype != dt.np:
        r = r.astype(dt.np)
    res = wrap(r, dt)
    if needs_grad(self):
        if dim is None:
            node = SumBackward0()
        else:
            node = SumBackward1()
            node.dims = dims
            node.keepdim = keepdim
        node.input_shape = self._data.shape
        record(node, (self,), res)
    return res


class MeanBackward0(Node):
    """Each element contributed 1/N: expand the gradient back and divide."""

    legacy_name_02 = "MeanBackward"

    def backward(self, g):
        return (expand_grad(g, self.input_shape, self.count),)

    explain = reduction_formula("mean", True)


class MeanBackward1(Node):
    """mean(dim): put the reduced dims back, expand, divide by the count."""

    legacy_name_02 = "MeanBackward"

    def backward(self, g):
        g = unsqueeze_to(g, self.input_shape, self.dims, self.keepdim)
        return (expand_grad(g, self.input_shape, self.count),)

    explain = reduction_formula("mean", True)


@tensor_method("mean", torch=("mean",))
def mean(self, dim=None, keepdim: bool = False, *, dtype=None):
    """Mean of all elements, or over `dim`."""
    dt = dtype if dtype is not None else self._dtype
    if dt.category != FLOAT:
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point "
            f"or complex dtype. Got: {dt.scalar_name}"
        )
    nd = self._data.ndim
    dims = _dims_arg(dim, nd)
    kd = keepdim if dims is not None else False
    # PyTorch's sum (float16 in float32) divided by the count, rounded as PyTorch rounds it
    r = as_array(summation.torch_mean(self._data, dims, kd, dt.np))
    if dims is None and keepdim and dim is not None:
        r = r.reshape((1,) * nd)
    if r.dtype != dt.np:
        r = r.astype(dt.np)
    res = wrap(r, dt)
    if needs_grad(self):
        shp = self._data.shape
        if dim is None:
            node = MeanBackward0()
            node.count = self._data.size
        else:
            node = MeanBackward1()
            node.dims = dims
            node.keepdim = keepdim
            node.count = math.prod(shp[d] for d in (dims if dims is not None else range(nd)))
        node.input_shape = shp
        record(node, (self,), res)
    return res


class LinalgVectorNormBackward0(Node):
    """d‖x‖_p/dx = x·|x|^(p-2) / ‖x‖^(p-1) (0 where the norm is 0)."""

    legacy_name_02 = "NormBackward"

    def backward(self, g):
        x = self.saved("self")
        r = self.saved("result")
        return (norm_backward(g, x, r, self.p, self.dims, self.keepdim),)

    def explain(self, c: Ctx) -> Formula:
        if c.attr("p") != 2:
            raise Unavailable("shown for the 2-norm only")
        x, dims, keepdim = c.saved("self"), c.attr("dims"), c.attr("keepdim")
        r = kept(c.saved("result"), x.shape, dims, keepdim)
        unit = np.where(r == 0, 0.0, x / np.where(r == 0, 1.0, r))
        s = wrap_sym(c.sym(0))
        return Formula(
            f"‖{c.sym(0)}‖",
            [
                Local(
                    f"{s}/‖{c.sym(0)}‖",
                    kind="map",
                    apply=lambda g: kept(g, x.shape, dims, keepdim) * unit,
                )
            ],
        )


@tensor_method("norm", torch=("norm",))
def norm(self, p="fro", dim=None, keepdim: bool = False, dtype=None):
    """The vector p-norm over all elements or over `dim` (p=2, 'fro', 1, inf, ...)."""
    if self._dtype.category != FLOAT:
        raise RuntimeError(
            "linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
            + self._dtype.scalar_name
        )
    if p == "fro" or p is None:
        p = 2
    if isinstance(p, str):
        raise NotImplementedError(f"gradshell does not support norm(p={p!r})")
    return vector_norm(self, p, dim, keepdim, dtype=dtype)


def vector_norm(self, ord=2, dim=None, keepdim: bool = False, *, dtype=None):  # noqa: A002
    """torch.linalg.vector_norm."""
    nd = self._data.ndim
    dims = _dims_arg(dim, nd)
    p = float(ord)
    dt = dtype if isinstance(dtype, dtypes.DType) else self._dtype
    # summed in PyTorch's order (and with its kernels' FMAs), so the last bits agree
    r = summation.torch_vector_norm(self._data, p, dims, keepdim, dt.np)
    res = wrap(as_array(r), dt)
    if needs_grad(self):
        node = LinalgVectorNormBackward0()
        node.p = p
        node.dims = dims
        node.keepdim = keepdim or dims is None
        node.input_shape = self._data.shape
        node.save("self", self)
        node.save("result", res, is_output=True)
        record(node, (self,), res)
    return res


# -- prod, max/min, amax/amin, argmax/argmin, var/std, logsumexp, cumsum/cumprod,
#    all/any, dist ------------------------------------------------------------------------------
# (max, min, all and any shadow the builtins below: this section uses builtins.max etc.)


def _keep(t: Tensor, dims: tuple | None, keepdim: bool, input_shape: tuple) -> Tensor:
    """A reduced tensor reshaped so it broadcasts against the input (size-1 reduced dims)."""
    if not input_shape:
        return t.reshape(())
    if dims is None:
        return t.reshape((1,) * len(input_shape)) if input_shape else t.reshape(())
    return unsqueeze_to(t, input_shape, dims, keepdim)


def _reduced_data(r, nd: int, dims, keepdim: bool):
    """Finish a NumPy reduction: an array (not a scalar), with all-ones shape for keepdim
    over every dimension."""
    r = as_array(r)
    if dims is None and keepdim:
        r = r.reshape((1,) * nd)
    return r


def _count(shape: tuple, dims: tuple | None) -> int:
    if dims is None:
        return math.prod(shape)
    return math.prod(shape[d] for d in dims)


# prod ------------------------------------------------------------------------------------------
def _exclusive_cumprod(x: Tensor, dim: int, reverse: bool) -> Tensor:
    """Products of the elements strictly before (or after) each one along `dim`."""
    if reverse:
        return _exclusive_cumprod(x.flip(dim), dim, False).flip(dim)
    n = x._data.shape[dim]
    ones_shape = list(x._data.shape)
    ones_shape[dim] = 1
    ones = wrap(array_module(x._data).ones(tuple(ones_shape), x._dtype.np), x._dtype)
    if n <= 1:
        return ones.expand(x._data.shape) if n == 1 else x
    return cat([ones, narrow(cumprod(x, dim), dim, 0, n - 1)], dim)


def _prod_grad(g: Tensor, x: Tensor, result: Tensor, dim: int | None) -> Tensor:
    """d prod / dx_i = product of the other elements; through exclusive cumulative products
    when some element is zero (so 0s do not turn into 0/0)."""
    if x._data.ndim == 0:
        return g.clone() if g._data.shape == () else g.reshape(())
    zeros = int((x._data == 0).sum())
    if not zeros:
        return g * (result / x)  # PyTorch's order of operations (and nodes)
    if dim is None and zeros > 1 and not grad_mode.state.enabled:
        # two zeros or more: PyTorch answers zeros_like(input) (+0.0 everywhere)
        return wrap(array_module(x._data).zeros(x._data.shape, g._dtype.np), g._dtype)
    if dim is None:
        flat = x.reshape(-1)
        others = _exclusive_cumprod(flat, 0, False) * _exclusive_cumprod(flat, 0, True)
        return g * others.reshape(x._data.shape)
    others = _exclusive_cumprod(x, dim, False) * _exclusive_cumprod(x, dim, True)
    return g * others


class ProdBackward0(Node):
    """prod of everything: each element's gradient is the product of all the others."""

    legacy_name_02 = "ProdBackward"

    def backward(self, g):
        x = self.saved("self")
        r = self.saved("result")
        return (_prod_grad(g, x, r, None),)

    def explain(self, c: Ctx) -> Formula:
        x = c.saved("self")
        others = others_product(x.reshape(-1), 0).reshape(x.shape)
        return Formula(
            f"prod({c.sym(0)})", [Local("product of the other elements", others, kind="reduce")]
        )


class ProdBackward1(Node):
    """prod over `dim`: the product of the other elements in the same slice."""

    legacy_name_02 = "ProdBackward"

    def backward(self, g):
        x = self.saved("self")
        r = self.saved("result")
        shape = x._data.shape
        g = _keep(g, (self.dim,), self.keepdim, shape)
        r = _keep(r, (self.dim,), self.keepdim, shape)
        return (_prod_grad(g, x, r, self.dim),)

    def explain(self, c: Ctx) -> Formula:
        x, d, keepdim = c.saved("self"), c.attr("dim"), c.attr("keepdim")
        others = others_product(x, d) if x.ndim else np.ones_like(x)
        return Formula(
            f"prod({c.sym(0)}, dim={d})",
            [
                Local(
                    "product of the other elements in its slice",
                    kind="map",
                    apply=lambda g: kept(g, x.shape, (d,), keepdim) * others,
                )
            ],
        )


@tensor_method("prod", torch=("prod",))
def prod(self, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """Product of all elements, or along `dim`."""
    dt = _sum_dtype(self, dtype)
    xp = array_module(self._data)
    data = self._data if self._data.dtype == dt.np else self._data.astype(dt.np)
    nd = self._data.ndim
    if dim is not None:
        d = norm_dims(dim, nd)[0]
    if dt.category == FLOAT:
        # multiplied in the order of PyTorch's kernel, so the last bits agree
        axes = None if dim is None else ((d,) if nd else ())
        keep = keepdim and dim is not None and nd > 0
        r = as_array(summation.torch_prod(self._data, axes, keep, dt.np))
    elif dim is None:
        r = as_array(xp.prod(data)).astype(dt.np, copy=False)
    else:
        r = as_array(xp.prod(data, axis=d if nd else None, keepdims=keepdim and nd > 0))
        r = r.astype(dt.np, copy=False)
    res = wrap(r, dt)
    if needs_grad(self):
        if dim is None:
            node = ProdBackward0()
        else:
            node = ProdBackward1()
            node.dim, node.keepdim = (d if nd else 0), keepdim
        node.save("self", self)
        node.save("result", res, is_output=True)
        record(node, (self,), res)
    return res


# max / min (and amax / amin, argmax / argmin) --------------------------------------------------
def _tie_mask(x: Tensor, value: Tensor):
    """Where x equals its reduced value (NaN counts as equal to a NaN result)."""
    xd, vd = x._data, value._data
    xp = array_module(xd)
    return (xd == vd) | (xp.isnan(xd) & xp.isnan(vd))


class _EvenlyDistributed(Node):
    """Full max/min: the gradient is shared evenly by every element equal to the result."""

    def backward(self, g):
        x = self.saved("self")
        r = self.saved("result")
        mask = _tie_mask(x, r)
        # PyTorch's evenly_distribute_backward: zeros like the input, filled where the
        # input equals the result with grad / (their count) (MaskedFillBackward1)
        xp = array_module(mask)
        zeros = wrap(as_array(xp.zeros(mask.shape, g._dtype.np)), g._dtype)
        hits = wrap(as_array(mask), dtypes.bool_)
        return (zeros.masked_fill(hits, g / int(mask.sum())),)

    def explain(self, c: Ctx) -> Formula:
        x, r = c.saved("self"), c.saved("result")
        mask = (x == r) | (np.isnan(x) & np.isnan(r))
        share = mask / builtins.max(int(mask.sum()), 1)
        name = "max" if isinstance(self, MaxBackward1) else "min"
        return Formula(
            f"{name}({c.sym(0)})",
            [Local(f"1/k at the k elements equal to the {name}imum, else 0", share, kind="reduce")],
        )


class MaxBackward1(_EvenlyDistributed):
    """max(): the gradient is shared evenly by the maximal elements."""

    legacy_name_02 = "MaxBackward"

    explain = _EvenlyDistributed.explain


class MinBackward1(_EvenlyDistributed):
    """min(): the gradient is shared evenly by the minimal elements."""

    legacy_name_02 = "MinBackward"

    explain = _EvenlyDistributed.explain


class _ValueSelecting(Node):
    """max/min over `dim`: the gradient goes to the element each index names."""

    def backward(self, g):
        idx = self.saved("indices")
        shape = self.input_shape
        if not shape:
            return (g,)
        g = _keep(g, (self.dim,), self.keepdim, shape)
        idx = _keep(idx, (self.dim,), self.keepdim, shape)
        zeros = wrap(array_module(g._data).zeros(shape, g._dtype.np), g._dtype)
        return (scatter(zeros, self.dim, idx, g),)

    def explain(self, c: Ctx) -> Formula:
        shape, d, keepdim = tuple(c.attr("input_shape")), c.attr("dim"), c.attr("keepdim")
        idx = c.saved("indices").astype(np.int64)

        def apply(g: np.ndarray) -> np.ndarray:
            if not shape:
                return g
            out = np.zeros(shape, dtype=np.float64)
            i = idx if keepdim else np.expand_dims(idx, d)
            np.put_along_axis(out, i, g if keepdim else np.expand_dims(g, d), axis=d)
            return out

        name = "max" if isinstance(self, MaxBackward0) else "min"
        return Formula(
            f"{name}({c.sym(0)}, dim={d})",
            [Local(f"grad sent to the position of each {name}imum", kind="map", apply=apply)],
        )


class MaxBackward0(_ValueSelecting):
    """max(dim): the gradient goes to the position of each maximum."""

    legacy_name_02 = "MaxBackward"

    explain = _ValueSelecting.explain


class MinBackward0(_ValueSelecting):
    """min(dim): the gradient goes to the position of each minimum."""

    legacy_name_02 = "MinBackward"

    explain = _ValueSelecting.explain


_EXTREME_SIGNATURES = (
    " * ()\n"
    " * (Tensor other)\n"
    " * (int dim, bool keepdim = False)\n"
    " * (name dim, bool keepdim = False)\n"
)


def _extreme(self: Tensor, name: str, args: tuple, kwargs: dict):
    other = kwargs.pop("other", None)
    dim = kwargs.pop("dim", None)
    keepdim = kwargs.pop("keepdim", False)
    if kwargs:
        raise TypeError(f"{name}() got an unexpected keyword argument '{next(iter(kwargs))}'")
    if args:
        if isinstance(args[0], Tensor):
            other = args[0]
        else:
            dim = args[0]
        if len(args) > 1:
            keepdim = args[1]
    if other is not None:
        fn = clamping.maximum if name == "max" else clamping.minimum
        return fn(self, other)
    if dim is not None and (not isinstance(dim, int) or isinstance(dim, bool)):
        raise TypeError(
            f"{name}() received an invalid combination of arguments - got "
            f"({type(dim).__name__}), but expected one of:\n" + _EXTREME_SIGNATURES
        )
    xp = array_module(self._data)
    data = self._data
    reducer = xp.max if name == "max" else xp.min
    if dim is None:
        if data.size == 0:
            raise RuntimeError(
                f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument."
            )
        res = wrap(as_array(reducer(data)), self._dtype)
        if needs_grad(self):
            node = MaxBackward1() if name == "max" else MinBackward1()
            node.save("self", self)
            node.save("result", res, is_output=True)
            record(node, (self,), res)
        return res
    nd = data.ndim
    d = wrap_dim_(dim, nd)
    if nd and data.shape[d] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    arg = xp.argmax if name == "max" else xp.argmin
    if nd == 0:
        values = wrap(data.copy(), self._dtype)
        indices = wrap(xp.zeros((), np.int64), dtypes.int64)
    else:
        idx = arg(data, axis=d, keepdims=True)
        vals = xp.take_along_axis(data, idx, axis=d)
        if not keepdim:
            vals, idx = xp.squeeze(vals, d), xp.squeeze(idx, d)
        values = wrap(as_array(vals), self._dtype)
        indices = wrap(as_array(idx.astype(np.int64)), dtypes.int64)
    if needs_grad(self):
        node = MaxBackward0() if name == "max" else MinBackward0()
        node.dim, node.keepdim, node.input_shape = d, keepdim, data.shape
        node.save("indices", indices)
        record(node, (self,), values)
    cls = return_types.max if name == "max" else return_types.min
    return cls((values, indices))


def wrap_dim_(dim: int, nd: int) -> int:
    """A dimension index checked against `nd` dimensions (0-dim tensors accept 0 and -1)."""
    return norm_dims(dim, nd)[0]


@tensor_method("max", torch=("max",))
def max(self, *args, **kwargs) -> Tensor | tuple:  # noqa: A001 - PyTorch's name
    """The largest element; with `dim`, (values, indices) along it; with a tensor, maximum."""
    return _extreme(self, "max", args, kwargs)


@tensor_method("min", torch=("min",))
def min(self, *args, **kwargs) -> Tensor | tuple:  # noqa: A001 - PyTorch's name
    """The smallest element; with `dim`, (values, indices) along it; with a tensor, minimum."""
    return _extreme(self, "min", args, kwargs)


class _AmaxAmin(Node):
    """amax/amin: the gradient is shared evenly by the extreme elements of each slice."""

    def backward(self, g):
        x = self.saved("self")
        r = self.saved("result")
        shape = x._data.shape
        g = _keep(g, self.dims, self.keepdim, shape)
        r = _keep(r, self.dims, self.keepdim, shape)
        mask = _tie_mask(x, r)
        xp = array_module(mask)
        axes = self.dims if self.dims is not None else tuple(range(len(shape)))
        count = xp.sum(mask, axis=axes, keepdims=True) if shape else mask
        share = mask / xp.maximum(count, 1)
        return (g * wrap(as_array(share.astype(g._dtype.np)), g._dtype),)

    def explain(self, c: Ctx) -> Formula:
        x, dims, keepdim = c.saved("self"), c.attr("dims"), c.attr("keepdim")
        r = kept(c.saved("result"), x.shape, dims, keepdim)
        mask = (x == r) | (np.isnan(x) & np.isnan(r))
        axes = tuple(range(x.ndim)) if dims is None else tuple(dims)
        share = mask / np.maximum(mask.sum(axis=axes, keepdims=True), 1) if x.ndim else mask * 1.0
        name = "amax" if isinstance(self, AmaxBackward0) else "amin"
        return Formula(
            f"{name}({c.sym(0)})",
            [
                Local(
                    f"1/k at the k elements equal to the {name[1:]}imum, else 0",
                    kind="map",
                    apply=lambda g: kept(g, x.shape, dims, keepdim) * share,
                )
            ],
        )


class AmaxBackward0(_AmaxAmin):
    """amax: the gradient is shared evenly by the maximal elements of each slice."""

    explain = _AmaxAmin.explain


class AminBackward0(_AmaxAmin):
    """amin: the gradient is shared evenly by the minimal elements of each slice."""

    explain = _AmaxAmin.explain


def _amax_amin(self: Tensor, name: str, dim, keepdim: bool):
    data = self._data
    nd = data.ndim
    dims = _dims_arg(dim, nd)
    if data.size == 0:
        if dims is None or builtins.any(data.shape[d] == 0 for d in dims):
            raise RuntimeError(
                f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument."
                if dims is None
                else f"{name}(): Expected reduction dim {next(d for d in dims if data.shape[d] == 0)}"
                " to have non-zero size."
            )
    xp = array_module(data)
    fn = xp.max if name == "amax" else xp.min
    r = _reduced_data(fn(data, axis=dims, keepdims=keepdim if dims else False), nd, dims, keepdim)
    res = wrap(r, self._dtype)
    if needs_grad(self):
        node = AmaxBackward0() if name == "amax" else AminBackward0()
        node.dims, node.keepdim = dims, keepdim
        node.save("self", self)
        node.save("result", res, is_output=True)
        record(node, (self,), res)
    return res


@tensor_method("amax", torch=("amax",))
def amax(self, dim=(), keepdim: bool = False) -> Tensor:
    """The maximum over `dim` (an int or tuple; all dimensions by default)."""
    return _amax_amin(self, "amax", dim, keepdim)


@tensor_method("amin", torch=("amin",))
def amin(self, dim=(), keepdim: bool = False) -> Tensor:
    """The minimum over `dim` (an int or tuple; all dimensions by default)."""
    return _amax_amin(self, "amin", dim, keepdim)


def _arg_extreme(self: Tensor, name: str, dim, keepdim: bool):
    data = self._data
    if self._dtype.category == BOOL:
        raise RuntimeError(f"{name}(): does not support bool input")
    xp = array_module(data)
    fn = xp.argmax if name == "argmax" else xp.argmin
    if dim is None:
        if data.size == 0:
            raise IndexError(
                f"{name}(): Expected reduction dim to be specified for input.numel() == 0."
            )
        r = as_array(fn(data.reshape(-1)))
        if keepdim:
            r = r.reshape((1,) * data.ndim)
    else:
        d = wrap_dim_(dim, data.ndim)
        if data.ndim == 0:
            r = xp.zeros((), np.int64)
        else:
            if data.shape[d] == 0:
                raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
            r = as_array(fn(data, axis=d, keepdims=keepdim))
    return wrap(as_array(r.astype(np.int64)), dtypes.int64)


@tensor_method("argmax", torch=("argmax",))
def argmax(self, dim=None, keepdim: bool = False) -> Tensor:
    """The index of the largest element (of the flattened tensor, or along `dim`)."""
    return _arg_extreme(self, "argmax", dim, keepdim)


@tensor_method("argmin", torch=("argmin",))
def argmin(self, dim=None, keepdim: bool = False) -> Tensor:
    """The index of the smallest element (of the flattened tensor, or along `dim`)."""
    return _arg_extreme(self, "argmin", dim, keepdim)


# var / std -------------------------------------------------------------------------------------
DOF_WARNING = (
    "{name}(): degrees of freedom is <= 0. Correction should be strictly less than the reduction "
    "factor (input numel divided by output numel). (Triggered internally at "
    "/__w/pytorch/pytorch/aten/src/ATen/native/ReduceOps.cpp:1861.)"
)


class VarBackward0(Node):
    """d var / dx = 2 (x - mean) / (N - correction)."""

    def backward(self, g):
        x = self.saved("self")
        return (_var_backward(g, x, self.dims, self.dof, self.keepdim),)

    def explain(self, c: Ctx) -> Formula:
        x, dims, keepdim, dof = c.saved("self"), c.attr("dims"), c.attr("keepdim"), c.attr("dof")
        axes = tuple(range(x.ndim)) if dims is None else tuple(dims)
        centred = x - x.mean(axis=axes, keepdims=True)
        s = wrap_sym(c.sym(0))
        return Formula(
            f"var({c.sym(0)})",
            [
                Local(
                    f"2({s} − mean)/{num(dof)}",
                    kind="map",
                    apply=lambda g: kept(g, x.shape, dims, keepdim) * 2 * centred / dof,
                )
            ],
        )


class StdBackward0(Node):
    """d std / dx = (x - mean) / ((N - correction) * std), and 0 where std is 0."""

    def backward(self, g):

        x = self.saved("self")
        r = self.saved("result")
        # PyTorch: var_backward((grad / (result * 2)).masked_fill_(result == 0, 0)), on the
        # reduced shape: var_backward puts the reduced dims back
        scaled = (g / mul_scalar(r, 2)).masked_fill((r == 0).detach(), 0)
        return (_var_backward(scaled, x, self.dims, self.dof, self.keepdim),)

    def explain(self, c: Ctx) -> Formula:
        x, dims, keepdim, dof = c.saved("self"), c.attr("dims"), c.attr("keepdim"), c.attr("dof")
        axes = tuple(range(x.ndim)) if dims is None else tuple(dims)
        r = kept(c.saved("result"), x.shape, dims, keepdim)
        centred = x - x.mean(axis=axes, keepdims=True)
        factor = np.where(r == 0, 0.0, centred / (dof * np.where(r == 0, 1.0, r)))
        s = wrap_sym(c.sym(0))
        return Formula(
            f"std({c.sym(0)})",
            [
                Local(
                    f"({s} − mean)/({num(dof)}·std)",
                    kind="map",
                    apply=lambda g: kept(g, x.shape, dims, keepdim) * factor,
                )
            ],
        )


def _var_backward(g: Tensor, x: Tensor, dims, dof, keepdim: bool) -> Tensor:
    """PyTorch's var_backward: (2 / dof) * grad * (x - mean), in that order; a gradient
    over some dims gets them back (unsqueezed), one over all broadcasts as it is (so does
    one over the single dim of a vector, which PyTorch leaves 0-dim too)."""
    if dims is not None and x._data.ndim > 1:
        g = unsqueeze_to(g, x._data.shape, dims, keepdim)
    m = x.mean(dims, keepdim=True) if dims is not None else x.mean()
    return mul_scalar(g, 2.0 / dof if dof > 0 else math.inf) * (x - m)


def _var_args(name: str, args: tuple, kwargs: dict):
    dim = kwargs.pop("dim", None)
    unbiased = kwargs.pop("unbiased", None)
    keepdim = kwargs.pop("keepdim", False)
    correction = kwargs.pop("correction", None)
    if kwargs:
        raise TypeError(f"{name}() got an unexpected keyword argument '{next(iter(kwargs))}'")
    args = list(args)
    if args and isinstance(args[0], bool):
        unbiased = args.pop(0)
    if args:
        dim = args.pop(0)
    if args:
        if unbiased is None and isinstance(args[0], bool) and len(args) >= 1:
            unbiased = args.pop(0)
    if args:
        keepdim = args.pop(0)
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    return dim, correction, keepdim


def _var_std(self: Tensor, name: str, args: tuple, kwargs: dict):
    import warnings

    dim, correction, keepdim = _var_args(name, args, dict(kwargs))
    if self._dtype.category != FLOAT:
        raise RuntimeError("std and var only support floating point and complex dtypes")
    data = self._data
    nd = data.ndim
    dims = _dims_arg(dim, nd)
    n = _count(data.shape, dims)
    dof = builtins.max(0, n - correction)
    if dof <= 0:
        warnings.warn(DOF_WARNING.format(name=name), UserWarning, stacklevel=3)
    # PyTorch's algorithms (two passes in double for one output, else Welford's updates in
    # double) in its order, so the last bits agree
    r = summation.torch_var(data, dims, correction, keepdim, name == "std")
    r = _reduced_data(as_array(r).astype(self._dtype.np, copy=False), nd, dims, keepdim)
    res = wrap(r, self._dtype)
    if needs_grad(self):
        node = VarBackward0() if name == "var" else StdBackward0()
        node.dims, node.keepdim, node.dof = dims, keepdim, dof
        node.save("self", self)
        if name == "std":
            node.save("result", res, is_output=True)
        record(node, (self,), res)
    return res


@tensor_method("var", torch=("var",))
def var(self, *args, **kwargs) -> Tensor:
    """Variance over all elements or `dim`, divided by N - correction (1 by default)."""
    return _var_std(self, "var", args, kwargs)


@tensor_method("std", torch=("std",))
def std(self, *args, **kwargs) -> Tensor:
    """Standard deviation over all elements or `dim` (N - correction in the divisor)."""
    return _var_std(self, "std", args, kwargs)


# logsumexp -------------------------------------------------------------------------------------
class LogsumexpBackward0(Node):
    """d logsumexp / dx = exp(x - logsumexp): the softmax over the reduced dims."""

    def backward(self, g):
        x = self.saved("self")
        r = self.saved("result")
        shape = x._data.shape
        g = _keep(g, self.dims, self.keepdim, shape)
        r = _keep(r, self.dims, self.keepdim, shape)
        return (g * exp(x - r),)

    def explain(self, c: Ctx) -> Formula:
        x = c.saved("self")
        r = kept(c.saved("result"), x.shape, c.attr("dims"), c.attr("keepdim"))
        dims, keepdim = c.attr("dims"), c.attr("keepdim")
        return Formula(
            f"logsumexp({c.sym(0)})",
            [
                Local(
                    f"exp({wrap_sym(c.sym(0))} − logsumexp)",
                    kind="map",
                    apply=lambda g: kept(g, x.shape, dims, keepdim) * np.exp(x - r),
                )
            ],
        )


@tensor_method("logsumexp", torch=("logsumexp",))
def logsumexp(self, dim, keepdim: bool = False) -> Tensor:
    """log(sum(exp(x))) over `dim`, computed stably (shifted by the maximum)."""
    data = self._data
    dt = self._dtype
    if dt.category != FLOAT:
        dt = dtypes.get_default_dtype()
        data = data.astype(dt.np)
    nd = data.ndim
    dims = _dims_arg(dim, nd)
    xp = array_module(data)
    if data.size == 0:
        r = xp.log(xp.sum(xp.exp(data), axis=dims, keepdims=keepdim if dims else False))
    else:
        m = xp.max(data, axis=dims, keepdims=True)
        m = xp.where(xp.isinf(m), 0, m)
        # PyTorch composes it from its unary exp and log (the exact kernels where there are
        # some) and its sum's order
        shifted = data - m
        exp_ = kernels.lookup("exp", shifted) or xp.exp
        s = as_array(summation.torch_sum(exp_(shifted), dims, True)).astype(data.dtype, copy=False)
        log_ = kernels.lookup("log", s) or xp.log
        r = log_(s) + m
        if not keepdim:
            r = r.reshape(()) if dims is None else xp.squeeze(r, axis=dims)
    r = _reduced_data(as_array(r).astype(dt.np, copy=False), nd, dims, keepdim)
    res = wrap(r, dt)
    if needs_grad(self):
        node = LogsumexpBackward0()
        node.dims, node.keepdim = dims, keepdim
        node.save("self", self)
        node.save("result", res, is_output=True)
        record(node, (self,), res)
    return res


# cumsum / cumprod ------------------------------------------------------------------------------
class CumsumBackward0(Node):
    """d cumsum: each input feeds every later output — a reversed cumulative sum."""

    legacy_name_02 = "CumsumBackward"

    def backward(self, g):
        d = self.dim
        if g._data.ndim == 0:
            return (g,)
        return (cumsum(g.flip(d), d).flip(d),)

    def explain(self, c: Ctx) -> Formula:
        d = c.attr("dim")

        def apply(g: np.ndarray) -> np.ndarray:
            if g.ndim == 0:
                return g
            return np.flip(np.cumsum(np.flip(g, d), axis=d), d)

        return Formula(
            f"cumsum({c.sym(0)}, {d})",
            [Local("grad summed from the end (reversed cumsum)", kind="map", apply=apply)],
        )


@tensor_method("cumsum", torch=("cumsum",))
def cumsum(self, dim, *, dtype=None) -> Tensor:
    """Cumulative sums along `dim`."""
    dt = _sum_dtype(self, dtype)
    nd = self._data.ndim
    d = wrap_dim_(dim, nd)
    data = self._data if self._data.dtype == dt.np else self._data.astype(dt.np)
    xp = array_module(data)
    # PyTorch runs the sum in its CPU accumulate type (float32 in double, float16 in
    # float32) and rounds each output from it
    r = data.copy() if nd == 0 else summation.torch_cumulative(xp.cumsum, data, d, dt.np)
    if dt.category == FLOAT:
        r = r + dt.np.type(0)  # PyTorch's sums start from +0.0: a run of -0.0 sums to +0.0
    res = wrap(as_array(r), dt)
    if needs_grad(self):
        node = CumsumBackward0()
        node.dim = d
        record(node, (self,), res)
    return res


class CumprodBackward0(Node):
    """d cumprod: sum over later outputs of the product of the other elements up to them."""

    legacy_name_02 = "CumprodBackward"

    def backward(self, g):
        x = self.saved("self")
        r = self.saved("result")
        d = self.dim
        if x._data.ndim == 0:
            return (g,)
        if not bool((x._data == 0).any()):
            return (cumsum((g * r).flip(d), d).flip(d) / x,)
        return (_cumprod_grad_with_zeros(g, x, d),)

    def explain(self, c: Ctx) -> Formula:
        x, d = c.saved("self"), c.attr("dim")

        def apply(g: np.ndarray) -> np.ndarray:
            if x.ndim == 0:
                return g
            xm, gm = np.moveaxis(x, d, -1), np.moveaxis(g, d, -1)
            out = np.zeros(xm.shape)
            for i in range(xm.shape[-1]):  # output j depends on x_i for every j >= i
                for j in range(i, xm.shape[-1]):
                    others = np.prod(np.delete(xm[..., : j + 1], i, axis=-1), axis=-1)
                    out[..., i] += gm[..., j] * others
            return np.moveaxis(out, -1, d)

        rhs = "Σ over later outputs of grad × the product of the other elements up to it"
        return Formula(f"cumprod({c.sym(0)}, {d})", [Local(rhs, kind="map", apply=apply)])


def _cumprod_grad_with_zeros(g: Tensor, x: Tensor, d: int) -> Tensor:
    """grad_i = sum_{k >= i} g_k * prod_{j <= k, j != i} x_j, built with tensor ops (an n×n
    table per slice), so that zeros in x need no division."""
    xm = x.movedim(d, -1)
    gm = g.movedim(d, -1)
    n = xm._data.shape[-1]
    xp = array_module(x._data)
    eye = wrap(xp.eye(n, dtype=bool), dtypes.bool_)
    # rows i: x with element i replaced by 1
    table = xm.unsqueeze(-2).expand(xm._data.shape[:-1] + (n, n))
    table = where(eye, table * 0 + 1, table)
    partial = cumprod(table, -1)  # [..., i, k] = prod_{j<=k, j!=i} x_j
    upper = tril(wrap(xp.ones((n, n), x._dtype.np), x._dtype)).t()  # k >= i
    grad = (partial * upper * gm.unsqueeze(-2)).sum(-1)
    return grad.movedim(-1, d)


@tensor_method("cumprod", torch=("cumprod",))
def cumprod(self, dim, *, dtype=None) -> Tensor:
    """Cumulative products along `dim`."""
    dt = _sum_dtype(self, dtype)
    nd = self._data.ndim
    d = wrap_dim_(dim, nd)
    data = self._data if self._data.dtype == dt.np else self._data.astype(dt.np)
    xp = array_module(data)
    r = data.copy() if nd == 0 else summation.torch_cumulative(xp.cumprod, data, d, dt.np)
    res = wrap(as_array(r), dt)
    if needs_grad(self):
        node = CumprodBackward0()
        node.dim = d
        node.save("self", self)
        node.save("result", res, is_output=True)
        record(node, (self,), res)
    return res


# all / any -------------------------------------------------------------------------------------
def _logical_reduce(self: Tensor, name: str, dim, keepdim: bool):
    data = self._data
    nd = data.ndim
    dims = _dims_arg(dim, nd)
    xp = array_module(data)
    fn = xp.all if name == "all" else xp.any
    r = _reduced_data(fn(data, axis=dims, keepdims=keepdim if dims else False), nd, dims, keepdim)
    # uint8 inputs give uint8 results (a quirk PyTorch keeps for compatibility)
    dt = dtypes.uint8 if self._dtype is dtypes.uint8 else dtypes.bool_
    return wrap(as_array(r.astype(dt.np, copy=False)), dt)


@tensor_method("all", torch=("all",))
def all(self, dim=None, keepdim: bool = False) -> Tensor:  # noqa: A001 - PyTorch's name
    """True if every element (along `dim`) is nonzero."""
    return _logical_reduce(self, "all", dim, keepdim)


@tensor_method("any", torch=("any",))
def any(self, dim=None, keepdim: bool = False) -> Tensor:  # noqa: A001 - PyTorch's name
    """True if some element (along `dim`) is nonzero."""
    return _logical_reduce(self, "any", dim, keepdim)


# dist ------------------------------------------------------------------------------------------
def norm_backward(g: Tensor, x: Tensor, r: Tensor, p: float, dims, keepdim: bool):
    """PyTorch's norm_backward, op for op: the gradient of r = ‖x‖_p (over `dims`, or all
    of x) — 0 where the norm is 0, and for p = ±inf shared evenly by the elements of
    largest (smallest) |x|. None (no gradient at all) for p = 0, as in PyTorch."""
    if dims is not None and x._data.ndim:
        g = unsqueeze_to(g, x._data.shape, dims, keepdim)
        r = unsqueeze_to(r, x._data.shape, dims, keepdim)
    if p == 0:
        return None
    if p == 1:
        return sgn(x) * g
    if p == 2:
        return g * (x / r).masked_fill((r == 0).detach(), 0)
    if math.isinf(p):
        ax = x.abs().detach()
        mask = ((ax == r.detach()) | ax.isnan()).detach()
        count = mask.sum(dims, keepdim=True) if dims is not None else mask.sum()
        return sgn(x) * ((g / count) * mask)
    if p < 1:
        scaled = sgn(x) * x.abs().pow(p - 1).masked_fill((x == 0).detach(), 0)
        return scaled * g * r.pow(1 - p)
    scaled = sgn(x) * x.abs().pow(p - 1) if p < 2 else x * x.abs().pow(p - 2)
    scale = (g / r.pow(p - 1)).masked_fill((r == 0).detach(), 0)
    return scaled * scale


class DistBackward0(Node):
    """dist(a, b) = ‖a - b‖_p: the norm's gradient for a, its negative for b."""

    def backward(self, g):
        # PyTorch: norm_backward(grad, self - other, p, result) for self, and its
        # negation (computed again) for other
        a, b, r, p = self.saved("self"), self.saved("other"), self.saved("result"), self.p
        ga = norm_backward(g, a - b, r, p, None, False) if self.needs[0] else None
        gb = norm_backward(g, a - b, r, p, None, False) if self.needs[1] else None
        return ga, (-gb if gb is not None else None)

    def explain(self, c: Ctx) -> Formula:
        if c.attr("p") != 2:
            raise Unavailable("shown for p=2 only")
        diff, r = c.saved("self") - c.saved("other"), c.saved("result")
        unit = diff / r if r != 0 else diff * 0
        a, b = wrap_sym(c.sym(0)), wrap_sym(c.sym(1))
        la = Local(f"({a} − {b})/dist", unit, kind="reduce") if needs(c, 0) else None
        lb = Local(f"−({a} − {b})/dist", -unit, kind="reduce") if needs(c, 1) else None
        return Formula(f"dist({c.sym(0)}, {c.sym(1)})", [la, lb])


@tensor_method("dist", torch=("dist",))
def dist(self, other, p=2) -> Tensor:
    """The p-norm of self - other (broadcasting)."""
    dt = dtypes.result_type(self, other)
    if dt.category != FLOAT:
        raise RuntimeError(
            f"norm(): input dtype should be either floating point or complex. Got {dt.scalar_name} "
            "instead."
        )
    diff = _apply("subtract", self.detach(), other.detach(), dt)
    r = vector_norm(diff, float(p))
    res = wrap(r._data, dt)
    if needs_grad(self, other):
        node = DistBackward0()
        node.p = float(p)
        node.needs = (self._requires_grad, other._requires_grad)
        node.save("self", self)
        node.save("other", other)
        node.save("result", res, is_output=True)
        record(node, (self, other), res)
    return res
