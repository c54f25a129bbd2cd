"""Matrix inverse: `torch.linalg.inv` (also `torch.inverse`, `Tensor.inverse`) and
`torch.linalg.inv_ex`, with PyTorch's node `LinalgInvExBackward0` and its errors,
including the LU pivot that makes a matrix singular ("The diagonal element 2 is zero").

The gradient -A⁻ᵀ g A⁻ᵀ is written with tensor operations, so it can be differentiated
again (as in PyTorch, its own graph starts with NegBackward0).
"""

from __future__ import annotations

import numpy as np

from gradshell.core import dtypes
from gradshell.core.device import to_numpy
from gradshell.ops import linalg
from gradshell.ops.base import (
    FLOAT,
    Node,
    Tensor,
    array_module,
    as_array,
    needs_grad,
    record,
    tensor_method,
    wrap,
)
from gradshell.ops.inplace import write_out
from gradshell.ops.return_types import _make

__all__ = ["LinAlgError", "inv", "inv_ex"]


class LinAlgError(RuntimeError):
    """An error of a linear algebra routine on a matrix it cannot handle (singular)."""


# Printed as PyTorch names it: torch._C._LinAlgError (torch.linalg.LinAlgError).
LinAlgError.__module__ = "torch._C"
LinAlgError.__name__ = LinAlgError.__qualname__ = "_LinAlgError"


def _first_zero_pivot(xp, a) -> int:
    """1-based index of the first exactly zero pivot of the LU factorisation with partial
    pivoting (LAPACK getrf's `info`), or 0 when every pivot is nonzero."""
    m = a.astype(a.dtype, copy=True)
    n = m.shape[0]
    info = 0
    for k in range(n):
        p = k + int(xp.argmax(xp.abs(m[k:, k])))
        if m[p, k] == 0:
            if info == 0:
                info = k + 1
            continue
        if p != k:
            m[[k, p]] = m[[p, k]]
        m[k + 1 :, k] /= m[k, k]
        m[k + 1 :, k + 1 :] -= xp.outer(m[k + 1 :, k], m[k, k + 1 :])
    return info


class LinalgInvExBackward0(Node):
    """d A⁻¹: -A⁻ᵀ g A⁻ᵀ."""

    def backward(self, g):
        inv_t = self.saved("inverse").mT
        return (-linalg.matmul(inv_t, linalg.matmul(g, inv_t)),)

    no_explanation = "several outputs (the inverse and an info code): %explain shows formulas for nodes with one output"


def _check(a) -> None:
    if not isinstance(a, Tensor):
        raise TypeError(
            f"linalg_inv(): argument 'A' (position 1) must be Tensor, not {type(a).__name__}"
        )
    if a._data.ndim < 2:
        raise RuntimeError("linalg.inv: The input tensor A must have at least 2 dimensions.")
    if a._data.shape[-1] != a._data.shape[-2]:
        raise RuntimeError(
            "linalg.inv: A must be batches of square matrices, but they are "
            f"{a._data.shape[-2]} by {a._data.shape[-1]} matrices"
        )
    if a._dtype.category != FLOAT:
        raise RuntimeError(
            "linalg.inv: Expected a floating point or complex tensor as input. Got "
            f"{a._dtype.scalar_name}"
        )
    if a._dtype is dtypes.float16:
        raise RuntimeError("linalg.inv: Low precision dtypes not supported. Got Half")


def _compute(a: Tensor, check_errors: bool):
    """(inverse array, info array of int32) for every matrix of the batch."""
    d = a._data
    xp = array_module(d)
    shape = d.shape
    n = shape[-1]
    batch = 1
    for s in shape[:-2]:
        batch *= s
    flat = d.reshape((batch, n, n))
    # the pivot search is a host-side check (a few scalar decisions per column)
    host = to_numpy(flat)
    infos = [_first_zero_pivot(np, host[i]) if n else 0 for i in range(batch)]
    batched = d.ndim > 2
    out = xp.empty_like(flat)
    for i in range(batch):
        info = infos[i]
        if info == 0 and n:
            try:
                out[i] = xp.linalg.inv(flat[i])
                continue
            except np.linalg.LinAlgError:  # LAPACK found a zero pivot our LU missed
                info = infos[i] = n
        if info:
            if check_errors:
                where = f"(Batch element {i}): " if batched else ""
                raise LinAlgError(
                    f"linalg.inv: {where}The diagonal element {info} is zero, the inversion "
                    "could not be completed because the input matrix is singular."
                )
            # LAPACK leaves partial results (inf/nan) that gradshell does not reproduce
            raise NotImplementedError(
                "gradshell does not support torch.linalg.inv_ex on singular matrices yet"
            )
    info_arr = xp.asarray(infos, dtype=xp.int32).reshape(shape[:-2])
    return out.reshape(shape), info_arr


def _result(a: Tensor, r) -> Tensor:
    res = wrap(as_array(r.astype(a._dtype.np, copy=False)), a._dtype)
    if needs_grad(a):
        node = LinalgInvExBackward0()
        node.save("inverse", res, is_output=True)
        record(node, (a,), res)
    return res


@tensor_method(torch=("inverse",))
def inv(A: Tensor, *, out=None) -> Tensor:  # noqa: N803 - PyTorch's name
    """The inverse of a square matrix (or of each matrix in a batch)."""
    _check(A)
    r, _ = _compute(A, check_errors=True)
    res = _result(A, r)
    if out is not None:
        return write_out(out, res)
    return res


def inv_ex(A: Tensor, *, check_errors: bool = False, out=None):  # noqa: N803
    """(inverse, info): info is the LU pivot (1-based) that is zero, 0 when invertible."""
    _check(A)
    r, info = _compute(A, check_errors=check_errors)
    res = _result(A, r)
    return _INV_EX((res, wrap(as_array(info), dtypes.int32)))


def _inv_ex_type():
    return _make("linalg_inv_ex", ("inverse", "info"))


_INV_EX = _inv_ex_type()


@tensor_method("inverse")
def inverse(self, *, out=None) -> Tensor:
    """torch.inverse: linalg.inv under its older name."""
    return inv(self, out=out)
