"""Determinants: det / linalg.det (LinalgDetBackward0), slogdet / linalg.slogdet
(LinalgSlogdetBackward0, two outputs) and logdet (composed as PyTorch composes it).

The values come from LAPACK's LU factorisation, as PyTorch's do, but from NumPy's LAPACK
build: they agree with PyTorch's to rounding, not always to the last bit. The backward
nodes compute first derivatives; a derivative of them (create_graph=True) is not
supported yet.
"""

from __future__ import annotations

import numpy as np

from gradshell.core import grad_mode
from gradshell.ops import return_types
from gradshell.ops.base import FLOAT, Node, Tensor, needs_grad, record, tensor_method, wrap
from gradshell.ops.selection import where


def _square(fname: str, A: Tensor) -> None:
    if not isinstance(A, Tensor):
        raise TypeError(
            f"{fname}(): argument 'A' (position 1) must be Tensor, not {type(A).__name__}"
        )
    if A._data.ndim < 2:
        raise RuntimeError(f"{fname}: The input tensor A must have at least 2 dimensions.")
    if A._data.shape[-1] != A._data.shape[-2]:
        raise RuntimeError(
            f"{fname}: A must be batches of square matrices, but they are "
            f"{A._data.shape[-2]} by {A._data.shape[-1]} matrices"
        )
    if A._dtype.category != FLOAT:
        raise RuntimeError(
            f"{fname}: Expected a floating point or complex tensor as input. Got "
            f"{A._dtype.scalar_name}"
        )


def _no_double_backward(name: str) -> None:
    if grad_mode.state.enabled:  # create_graph=True: a graph of this backward is asked for
        raise NotImplementedError(
            f"gradshell does not support differentiating the backward of {name} yet"
        )


def _cofactors(a: np.ndarray, det: np.ndarray) -> np.ndarray:
    """The cofactor matrix ∂det/∂A = det(A)·A⁻ᵀ; zero where det(A) is exactly 0, as
    PyTorch's gradient is there."""
    a = a.astype(np.float64)
    det = det.astype(np.float64)
    singular = det == 0
    eye = np.broadcast_to(np.eye(a.shape[-1]), a.shape)
    safe = np.where(singular[..., None, None], eye, a)
    inv_t = np.swapaxes(np.linalg.inv(safe), -1, -2)
    return np.where(singular[..., None, None], 0.0, det[..., None, None] * inv_t)


class LinalgDetBackward0(Node):
    """∂det(A)/∂A is the cofactor matrix, det(A)·A⁻ᵀ (0 where det(A) is 0)."""

    no_explanation = "its local derivative is a matrix of cofactors, one per batch"

    def backward(self, g):
        _no_double_backward("det")
        A, d = self.saved("A"), self.saved("result")
        cof = _cofactors(A._data, d._data)
        data = g._data.astype(np.float64)[..., None, None] * cof
        return (wrap(data.astype(A._dtype.np), A._dtype),)


@tensor_method("det", torch=("det",))
def det(self) -> Tensor:
    """The determinant of a square matrix (or of each in a batch)."""
    _square("linalg.det", self)
    value = np.asarray(np.linalg.det(self._data)).astype(self._dtype.np)
    res = wrap(value, self._dtype)
    if needs_grad(self):
        node = LinalgDetBackward0()
        node.save("A", self)
        node.save("result", res, is_output=True)
        record(node, (self,), res)
    return res


def linalg_det(A: Tensor, *, out=None) -> Tensor:
    """torch.linalg.det."""
    if out is not None:
        raise NotImplementedError("gradshell does not support torch.linalg.det(out=...) yet")
    return det(A)


class LinalgSlogdetBackward0(Node):
    """∂ log|det A| / ∂A = A⁻ᵀ; the sign has no gradient."""

    no_explanation = "several outputs: %explain shows formulas for nodes with one output"

    def backward(self, g_sign, g_logabsdet):
        _no_double_backward("slogdet")
        A = self.saved("A")
        if g_logabsdet is None:
            return (None,)
        with np.errstate(all="ignore"):
            try:
                inv_t = np.swapaxes(np.linalg.inv(A._data.astype(np.float64)), -1, -2)
            except np.linalg.LinAlgError:
                inv_t = np.full(A._data.shape, np.nan)
        data = g_logabsdet._data.astype(np.float64)[..., None, None] * inv_t
        return (wrap(data.astype(A._dtype.np), A._dtype),)


def _slogdet(A: Tensor, fname: str, result_cls):
    _square(fname, A)
    sign, logabs = np.linalg.slogdet(A._data)
    s = wrap(np.asarray(sign).astype(A._dtype.np), A._dtype)
    la = wrap(np.asarray(logabs).astype(A._dtype.np), A._dtype)
    if needs_grad(A):
        node = LinalgSlogdetBackward0()
        node.num_outputs = 2
        node.output_meta = [(o._data.shape, o._dtype, np) for o in (s, la)]
        node.save("A", A)
        record(node, (A,), s, output_nr=0)
        record(node, (A,), la, output_nr=1)
    return result_cls((s, la))


@tensor_method("slogdet", torch=("slogdet",))
def slogdet(self):
    """(sign, log|det|) of a square matrix: the log-determinant without overflow."""
    return _slogdet(self, "linalg.slogdet", return_types.slogdet)


def linalg_slogdet(A: Tensor, *, out=None):
    """torch.linalg.slogdet."""
    if out is not None:
        raise NotImplementedError("gradshell does not support torch.linalg.slogdet(out=...) yet")
    return _slogdet(A, "linalg.slogdet", return_types.linalg_slogdet)


@tensor_method("logdet", torch=("logdet",))
def logdet(self) -> Tensor:
    """log det(A): NaN for a negative determinant, -inf for a zero one."""
    sign, logabs = _slogdet(self, "linalg.slogdet", return_types.slogdet)
    nan = wrap(np.asarray(np.nan, self._dtype.np), self._dtype)
    return where(sign < 0, nan, logabs)
