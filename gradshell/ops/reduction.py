"""Reductions: sum, mean, norm (over everything or over dimensions, keepdim)."""

from __future__ import annotations

import math

import numpy as np

from gradshell.core import dtypes, grad_mode
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


def _dims_arg(dim, ndim):
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0):
        return None
    return norm_dims(dim, ndim)


def unsqueeze_to(g: Tensor, input_shape: tuple, dims: tuple | None, keepdim: bool) -> Tensor:
    """Reshape a reduced gradient so it broadcasts against the input again."""
    if keepdim or dims is None:
        return g
    shape = list(input_shape)
    for d in dims:
        shape[d] = 1
    return g.reshape(tuple(shape))


def expand_grad(g: Tensor, shape: tuple, count: int = 1) -> Tensor:
    """`g` broadcast to `shape` (and divided by `count`): the backward of sum and mean.

    Without create_graph a plain broadcasting copy is enough (and much cheaper than
    recording a view), so that is what runs then."""
    if not grad_mode.state.enabled and g._data.__class__ is np.ndarray:
        out = np.empty(shape, g._dtype.np)
        out[...] = g._data if count == 1 else g._data / count
        return wrap(out, g._dtype)
    r = g.expand(shape)
    return r if count == 1 else r / count


class SumBackward0(Node):
    """Every element contributed once: expand the gradient back."""

    legacy_name_02 = "SumBackward"

    def backward(self, g):
        return (expand_grad(g, self.input_shape),)


class SumBackward1(Node):
    """sum(dim): put the reduced dims back and expand."""

    legacy_name_02 = "SumBackward"

    def backward(self, g):
        g = unsqueeze_to(g, self.input_shape, self.dims, self.keepdim)
        return (expand_grad(g, self.input_shape),)


def _sum_dtype(x: Tensor, dtype):
    if dtype is not None:
        return dtype
    return dtypes.int64 if x._dtype.category in (INT, BOOL) else x._dtype


@tensor_method("sum")
def sum(self, dim=None, keepdim: bool = False, *, dtype=None):  # noqa: A001 - PyTorch's name
    """Sum of all elements, or over `dim` (an int or tuple)."""
    nd = self._data.ndim
    dims = _dims_arg(dim, nd)
    dt = _sum_dtype(self, dtype)
    xp = array_module(self._data)
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


class MeanBackward1(Node):
    """mean(dim): put the reduced dims back, expand, divide by the count."""

    legacy_name_02 = "MeanBackward"

    def backward(self, g):
        g = unsqueeze_to(g, self.input_shape, self.dims, self.keepdim)
        return (expand_grad(g, self.input_shape, self.count),)


_C10 = {
    "int64": "Long",
    "int32": "Int",
    "int16": "Short",
    "int8": "Char",
    "uint8": "Byte",
    "bool": "Bool",
}


@tensor_method("mean")
def mean(self, dim=None, keepdim: bool = False, *, dtype=None):
    """Mean of all elements, or over `dim`."""
    dt = dtype if dtype is not None else self._dtype
    if dt.category != FLOAT:
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point "
            f"or complex dtype. Got: {_C10[dt.name]}"
        )
    nd = self._data.ndim
    dims = _dims_arg(dim, nd)
    xp = array_module(self._data)
    data = self._data if self._data.dtype == dt.np else self._data.astype(dt.np)
    shp = data.shape
    n = math.prod(shp[d] for d in dims) if dims is not None else data.size
    kd = keepdim if dims is not None else False
    r = as_array(xp.add.reduce(data, axis=dims, keepdims=kd))
    r = as_array(r / n) if n else xp.full(r.shape, math.nan, dt.np)
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
        from gradshell.ops.unary import where

        x = self.saved("self")
        r = self.saved("result")
        p = self.p
        g = unsqueeze_to(g, self.input_shape, self.dims, self.keepdim)
        r = unsqueeze_to(r, self.input_shape, self.dims, self.keepdim)
        zero = (r == 0).detach()
        if p == 2:
            scale = x / where(zero, r * 0 + 1, r)
        elif p == 1:
            return (g * x.sign(),)
        elif p == math.inf or p == -math.inf:
            mask = (x.abs() == r).detach()
            cnt = mask.sum(self.dims, keepdim=True) if self.dims is not None else mask.sum()
            return (g * x.sign() * mask / cnt,)
        else:
            scale = x * x.abs() ** (p - 2) / where(zero, r * 0 + 1, r) ** (p - 1)
        return (where(zero, scale * 0, g * scale),)


@tensor_method("norm")
def norm(self, p="fro", dim=None, keepdim: bool = False, dtype=None):
    """The vector p-norm over all elements or over `dim` (p=2, 'fro', 1, inf, ...)."""
    if self._dtype.category != FLOAT:
        raise RuntimeError(
            "linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
            + _C10[self._dtype.name]
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
    xp = array_module(self._data)
    a = xp.abs(self._data)
    p = float(ord)
    kd = keepdim if dims is not None else False
    if p == 2:
        r = xp.sqrt(xp.sum(a * a, axis=dims, keepdims=kd))
    elif p == math.inf:
        r = xp.max(a, axis=dims, keepdims=kd) if a.size else xp.zeros(())
    elif p == -math.inf:
        r = xp.min(a, axis=dims, keepdims=kd)
    elif p == 0:
        r = xp.sum(a != 0, axis=dims, keepdims=kd).astype(self._dtype.np)
    elif p == 1:
        r = xp.sum(a, axis=dims, keepdims=kd)
    else:
        r = xp.sum(a**p, axis=dims, keepdims=kd) ** (1.0 / p)
    r = as_array(r).astype(self._dtype.np, copy=False)
    if dims is None and keepdim:
        r = r.reshape((1,) * nd)
    res = wrap(r, self._dtype)
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
