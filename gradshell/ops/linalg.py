"""Matrix products: mm, mv, dot, bmm, and matmul/@ composed from them the way PyTorch
composes it (so the graph shows the same nodes); outer, addmm, addmv, einsum, and
broadcast_shapes."""

from __future__ import annotations

import numpy as np

from gradshell.core import grad_mode, kernels
from gradshell.core.size import Size
from gradshell.ops import summation
from gradshell.ops.base import (
    Node,
    Tensor,
    array_module,
    as_array,
    broadcast_error,
    check_same_device,
    install,
    needs_grad,
    record,
    tensor_method,
    wrap,
)
from gradshell.ops.explanation import (
    Ctx,
    Formula,
    Local,
    const,
    needs,
    num,
    reshape_formula,
    transposed,
    wrap_sym,
)
from gradshell.ops.shape import make_view, squeeze


def _check_pair(a: Tensor, b: Tensor, dtypes: bool = True) -> None:
    if not isinstance(b, Tensor):
        raise TypeError(
            f"mm(): argument 'mat2' (position 1) must be Tensor, not {type(b).__name__}"
        )
    check_same_device(a, b)
    if dtypes and a._dtype is not b._dtype:
        raise RuntimeError(
            f"expected m1 and m2 to have the same dtype, but got: {a._dtype.cpp_name} != "
            f"{b._dtype.cpp_name}"
        )


def _product(a: Tensor, b: Tensor, node_cls, data) -> Tensor:
    res = wrap(as_array(data), a._dtype)
    if needs_grad(a, b):
        node = node_cls()
        node.needs_a, node.needs_b = a._requires_grad, b._requires_grad
        if b._requires_grad:
            node.save("self", a)
        if a._requires_grad:
            node.save("mat2", b)
        record(node, (a, b), res)
    return res


class MmBackward0(Node):
    """d(A@B): g@Bᵀ for A, Aᵀ@g for B."""

    legacy_name_02 = "MmBackward"
    legacy_python = False
    #: whether each input's strides were column-major in the forward (set by mm)
    mat1_column_major = False
    mat2_column_major = False

    def backward(self, g):
        # PyTorch's mm_mat1_backward / mm_mat2_backward: an input that was column-major
        # (a transposed contiguous matrix) gets its gradient column-major too, computed
        # as the transpose of the transposed product, so that a graph built from it
        # (create_graph=True) has the same transposes and views as PyTorch's
        ga = gb = None
        if self.needs_a:
            mat2 = self.saved("mat2")
            ga = mat2.mm(g.t()).t() if self.mat1_column_major else g.mm(mat2.t())
        if self.needs_b:
            mat1 = self.saved("self")
            gb = g.t().mm(mat1).t() if self.mat2_column_major else mat1.t().mm(g)
        return ga, gb

    def explain(self, c: Ctx) -> Formula:
        A, B = wrap_sym(c.sym(0)), wrap_sym(c.sym(1))
        la = lb = None
        if getattr(c.node, "needs_a", True):
            bv = c.saved("mat2")
            la = Local(f"grad @ {transposed(B)}", kind="map", apply=lambda g: g @ bv.T)
        if getattr(c.node, "needs_b", True):
            av = c.saved("self")
            lb = Local(f"{transposed(A)} @ grad", kind="map", apply=lambda g: av.T @ g)
        return Formula(f"{A} @ {B}", [la, lb])


@tensor_method("mm", torch=("mm",))
def mm(self, mat2):
    """Matrix product of two 2-D tensors."""
    _check_pair(self, mat2)
    if self._data.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if mat2._data.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    (n, k), (k2, m) = self._data.shape, mat2._data.shape
    if k != k2:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({n}x{k} and {k2}x{m})")
    xp = array_module(self._data)
    res = _product(self, mat2, MmBackward0, kernels.matmul(xp, self._data, mat2._data))
    node = res._grad_fn
    if isinstance(node, MmBackward0):
        node.mat1_column_major = _column_major(self)
        node.mat2_column_major = _column_major(mat2)
    return res


def _column_major(m: Tensor) -> bool:
    """Whether a matrix's strides are column-major (PyTorch's test: stride(0) == 1 and
    stride(1) == size(0)), as a transposed contiguous matrix's are."""
    strides = m.stride()
    return strides[0] == 1 and strides[1] == m._data.shape[0]


class MvBackward0(Node):
    """d(A@v): outer(g, v) for A, Aᵀ@g for v."""

    legacy_name_02 = "MvBackward"
    legacy_python = False

    def backward(self, g):
        ga = g.unsqueeze(1) * self.saved("mat2").unsqueeze(0) if self.needs_a else None
        gb = self.saved("self").t().mv(g) if self.needs_b else None
        return ga, gb

    def explain(self, c: Ctx) -> Formula:
        A, v = wrap_sym(c.sym(0)), wrap_sym(c.sym(1))
        la = lb = None
        if getattr(c.node, "needs_a", True):
            vv = c.saved("mat2")
            la = Local(f"outer(grad, {v})", kind="map", apply=lambda g: np.outer(g, vv))
        if getattr(c.node, "needs_b", True):
            av = c.saved("self")
            lb = Local(f"{transposed(A)} @ grad", kind="map", apply=lambda g: av.T @ g)
        return Formula(f"{A} @ {v}", [la, lb])


@tensor_method("mv", torch=("mv",))
def mv(self, vec):
    """Matrix-vector product."""
    if not isinstance(vec, Tensor):
        raise TypeError(
            f"mv(): argument 'vec' (position 1) must be Tensor, not {type(vec).__name__}"
        )
    check_same_device(self, vec)
    # PyTorch runs mv as addmv into a result of vec's dtype: its checks, in its order
    _check_addmv(1, self, vec, self._data.shape[0] if self._data.ndim else 0, vec._dtype)
    xp = array_module(self._data)
    return _product(self, vec, MvBackward0, xp.matmul(self._data, vec._data))


def _check_addmv(input_ndim: int, mat: Tensor, vec: Tensor, input_size: int, input_dtype) -> None:
    """addmv's checks, in PyTorch's order: dimensions, sizes, then dtypes."""
    if mat._data.ndim != 2 or vec._data.ndim != 1 or input_ndim > 1:
        raise RuntimeError(
            f"vector + matrix @ vector expected, got {input_ndim}, {mat._data.ndim}, "
            f"{vec._data.ndim}"
        )
    n, k = mat._data.shape
    if vec._data.shape[0] != k or input_size not in (n, 1):
        raise RuntimeError(
            f"size mismatch, got input ({input_size}), mat ({n}x{k}), vec ({vec._data.shape[0]})"
        )
    if not input_dtype is mat._dtype is vec._dtype:
        raise RuntimeError(
            "addmv input tensors must have the same dtype, but got "
            f"{input_dtype.scalar_name}, {mat._dtype.scalar_name}, and {vec._dtype.scalar_name}"
        )


class AddmvBackward0(Node):
    """d(beta·s + alpha·A@v): beta·g (summed to s's shape), alpha·outer(g, v), alpha·Aᵀ@g."""

    def backward(self, g):
        gs = ga = gv = None
        if self.needs[0]:
            gs = g if self.beta == 1 else g * self.beta
            if tuple(gs.shape) != self.input_shape:
                gs = gs.sum_to_size(self.input_shape) if self.input_shape else gs.sum()
        if self.needs[1]:
            ga = g.unsqueeze(1) * self.saved("vec").unsqueeze(0)
            ga = ga if self.alpha == 1 else ga * self.alpha
        if self.needs[2]:
            gv = self.saved("mat").t().mv(g)
            gv = gv if self.alpha == 1 else gv * self.alpha
        return gs, ga, gv

    def explain(self, c: Ctx) -> Formula:
        s, A, v = c.sym(0), wrap_sym(c.sym(1)), wrap_sym(c.sym(2))
        beta, alpha = c.attr("beta"), c.attr("alpha")
        k = "" if alpha == 1 else f"{num(alpha)}·"
        ls = la = lv = None
        if needs(c, 0):
            ls = const(beta)
        if needs(c, 1):
            vv = c.saved("vec")
            la = Local(f"{k}outer(grad, {v})", kind="map", apply=lambda g: alpha * np.outer(g, vv))
        if needs(c, 2):
            av = c.saved("mat")
            lv = Local(f"{k}{transposed(A)} @ grad", kind="map", apply=lambda g: alpha * (av.T @ g))
        head = "" if beta == 1 else f"{num(beta)}·"
        return Formula(f"{head}{wrap_sym(s)} + {k}{A} @ {v}", [ls, la, lv])


@tensor_method(torch=("addmv",))
def addmv(self, mat, vec, *, beta=1, alpha=1) -> Tensor:
    """beta * self + alpha * (mat @ vec), with self broadcast to the product's length."""
    for name, t in (("mat", mat), ("vec", vec)):
        if not isinstance(t, Tensor):
            raise TypeError(f"addmv(): argument '{name}' must be Tensor, not {type(t).__name__}")
    check_same_device(mat, vec)
    size = self._data.shape[0] if self._data.ndim else 1
    _check_addmv(self._data.ndim, mat, vec, size, self._dtype)
    xp = array_module(mat._data)
    prod = xp.matmul(mat._data, vec._data)
    if alpha != 1:
        prod = prod * prod.dtype.type(alpha)
    if beta != 0:
        prod = prod + (self._data if beta == 1 else self._data * self._dtype.np.type(beta))
    res = wrap(as_array(prod), mat._dtype)
    if needs_grad(self, mat, vec):
        node = AddmvBackward0()
        node.beta, node.alpha = beta, alpha
        node.input_shape = self._data.shape
        node.needs = (self._requires_grad, mat._requires_grad, vec._requires_grad)
        if vec._requires_grad:
            node.save("mat", mat)
        if mat._requires_grad:
            node.save("vec", vec)
        record(node, (self, mat, vec), res)
    return res


install("addmv", addmv)


class DotBackward0(Node):
    """d(a·b): g·b for a, g·a for b."""

    legacy_name_02 = "DotBackward"
    legacy_python = False

    def backward(self, g):
        ga = g * self.saved("mat2") if self.needs_a else None
        gb = g * self.saved("self") if self.needs_b else None
        return ga, gb

    def explain(self, c: Ctx) -> Formula:
        a, b = wrap_sym(c.sym(0)), wrap_sym(c.sym(1))
        la = lb = None
        if getattr(c.node, "needs_a", True):
            la = Local(b, c.saved("mat2"), kind="reduce")
        if getattr(c.node, "needs_b", True):
            lb = Local(a, c.saved("self"), kind="reduce")
        return Formula(f"dot({a}, {b})", [la, lb])


@tensor_method("dot", "inner", torch=("dot", "inner"))
def dot(self, other):
    """Inner product of two 1-D tensors."""
    check_same_device(self, other)
    if self._data.ndim != 1 or other._data.ndim != 1:
        raise RuntimeError(
            f"1D tensors expected, but got {self._data.ndim}D and {other._data.ndim}D tensors"
        )
    if self._dtype is not other._dtype:
        raise RuntimeError(
            "dot : expected both vectors to have same dtype, but found "
            f"{self._dtype.scalar_name} and {other._dtype.scalar_name}"
        )
    n, m = self._data.shape[0], other._data.shape[0]
    if n != m:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to have the same "
            f"number of elements, but got {n} and {m} elements respectively"
        )
    xp = array_module(self._data)
    return _product(self, other, DotBackward0, xp.dot(self._data, other._data))


class BmmBackward0(Node):
    """Batched d(A@B): g@Bᵀ for A, Aᵀ@g for B."""

    legacy_name_02 = "BmmBackward"
    legacy_python = False

    def backward(self, g):
        ga = g.bmm(self.saved("mat2").transpose(1, 2)) if self.needs_a else None
        gb = self.saved("self").transpose(1, 2).bmm(g) if self.needs_b else None
        return ga, gb

    def explain(self, c: Ctx) -> Formula:
        A, B = wrap_sym(c.sym(0)), wrap_sym(c.sym(1))
        la = lb = None
        if getattr(c.node, "needs_a", True):
            bv = c.saved("mat2")
            la = Local(f"grad @ {transposed(B)}", kind="map", apply=lambda g: g @ bv.swapaxes(1, 2))
        if getattr(c.node, "needs_b", True):
            av = c.saved("self")
            lb = Local(f"{transposed(A)} @ grad", kind="map", apply=lambda g: av.swapaxes(1, 2) @ g)
        return Formula(f"{A} @ {B}", [la, lb])


@tensor_method("bmm", torch=("bmm",))
def bmm(self, mat2):
    """Batched matrix product of two 3-D tensors."""
    _check_pair(self, mat2)
    if self._data.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if mat2._data.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    b, n, k = self._data.shape
    b2, k2, m = mat2._data.shape
    if (b2, k2) != (b, k):
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{b}, {k}] but got: "
            f"[{b2}, {k2}]."
        )
    xp = array_module(self._data)
    return _product(self, mat2, BmmBackward0, xp.matmul(self._data, mat2._data))


class SqueezeBackward4(Node):
    """matmul's internal squeeze of the added dimension."""

    def backward(self, g):
        return (g.unsqueeze(self.dim),)

    def explain(self, c: Ctx) -> Formula:
        """matmul's own squeeze of the dimension it added for a vector: the learner wrote
        `matmul(x, w)`, so the expression stays theirs."""
        dim = c.attr("dim")
        return Formula(
            c.sym(0),
            [Local(f"grad.unsqueeze({dim})", kind="map", apply=lambda g: np.expand_dims(g, dim))],
        )


def _squeeze_dim(t: Tensor, dim: int) -> Tensor:
    node = None
    if needs_grad(t):
        node = SqueezeBackward4()
        node.dim = dim
    shape = t._data.shape[:dim] + t._data.shape[dim + 1 :]
    return make_view(t, t._data.reshape(shape), node)


class UnsafeViewBackward0(Node):
    """A reshape of a fresh result: the gradient is reshaped back."""

    def backward(self, g):
        return (g.reshape(self.input_shape),)

    explain = reshape_formula


def unsafe_view(t: Tensor, shape: tuple) -> Tensor:
    """Reshape a freshly computed tensor (PyTorch's _unsafe_view)."""
    out = wrap(t._data.reshape(shape), t._dtype)
    if needs_grad(t):
        node = UnsafeViewBackward0()
        node.input_shape = t._data.shape
        record(node, (t,), out)
    return out


@tensor_method("matmul", "__matmul__", torch=("matmul",))
def matmul(self, other):
    """Matrix product with NumPy/PyTorch rules: dot, mv, mm, or batched with broadcasting."""
    if not isinstance(other, Tensor):
        return NotImplemented
    d1, d2 = self._data.ndim, other._data.ndim
    if d1 == 0 or d2 == 0:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {d1}D and {d2}D"
        )
    if d1 == 1 and d2 == 1:
        return dot(self, other)
    if d1 == 2 and d2 == 1:
        return mv(self, other)
    if d1 == 1 and d2 == 2:
        return _squeeze_dim(mm(self.unsqueeze(0), other), 0)
    if d1 == 2 and d2 == 2:
        return mm(self, other)
    if d1 == 3 and d2 == 3:
        # A batch of one that needs a gradient is squeezed first, so that the product is
        # folded into one mm (PyTorch does this to avoid an expanded gradient).
        if self._data.shape[0] == 1 and other._data.shape[0] > 1 and _rg(self):
            return matmul(_squeeze_batch(self), other)
        if other._data.shape[0] == 1 and self._data.shape[0] > 1 and _rg(other):
            return matmul(self, _squeeze_batch(other))
    if (d1 >= 3 and d2 <= 2) or (d2 >= 3 and d1 <= 2):
        if _should_fold(self, other):
            if d1 >= 3:
                return _fold(self, other)
            # (B^T @ A^T)^T, as PyTorch folds the batched operand
            t1 = other.mT
            t2 = self.t() if d1 == 2 else self
            out = _fold(t1, t2)
            return out.mT.contiguous() if d1 == 2 else out
    return _batched(self, other)


def _rg(t: Tensor) -> bool:
    from gradshell.core import grad_mode

    return t._requires_grad and grad_mode.state.enabled


def _should_fold(a: Tensor, b: Tensor) -> bool:
    """Whether PyTorch folds the batched operand into a matrix (one mm/mv) or uses bmm."""
    big, small = (a, b) if a._data.ndim >= b._data.ndim else (b.mT, a)
    if _rg(small):
        return True  # folding avoids an expanded gradient for the small operand
    if a._data.ndim == 2:
        return False  # folding would need a transposed copy of the result
    if big._data.size == 0:
        return True
    shape, strides = big._data.shape, big.stride()
    return all(strides[i] == strides[i + 1] * shape[i + 1] for i in range(len(shape) - 2))


def _squeeze_batch(t: Tensor) -> Tensor:
    return squeeze(t, 0)


def _fold(t1: Tensor, t2: Tensor) -> Tensor:
    shp = t1._data.shape
    k = shp[-1]
    if t2._data.ndim == 2 and t2._data.shape[0] != k:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({_prod(shp[:-1])}x{k} and "
            f"{t2._data.shape[0]}x{t2._data.shape[1]})"
        )
    flat = t1.reshape(-1, k)
    if t2._data.ndim == 1:
        r = mv(flat, t2)
        return unsafe_view(r, shp[:-1])
    r = mm(flat, t2)
    return unsafe_view(r, shp[:-1] + (t2._data.shape[1],))


def _prod(xs) -> int:
    n = 1
    for x in xs:
        n *= x
    return n


def _batched(a: Tensor, b: Tensor) -> Tensor:
    """Broadcast batch dimensions, one bmm, then reshape to the result (PyTorch's steps)."""
    vector_lhs, vector_rhs = a._data.ndim == 1, b._data.ndim == 1
    if vector_lhs:
        a = a.unsqueeze(0)
    n, k = a._data.shape[-2:]
    k2, m = (b._data.shape[0], 1) if vector_rhs else b._data.shape[-2:]
    ba, bb = a._data.shape[:-2], () if vector_rhs else b._data.shape[:-2]
    try:
        batch = tuple(_broadcast_shapes(ba, bb))
    except ValueError:
        raise broadcast_error(ba, bb) from None
    if k != k2:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: "
            f"[{_prod(batch)}, {k}] but got: [{_prod(batch)}, {k2}]."
        )
    nb = _prod(batch)
    ea = a.expand(batch + (n, k)).reshape(nb, n, k)
    if vector_rhs:
        eb = b.expand(batch + (k2,)).reshape(nb, k2).unsqueeze(2)
    else:
        eb = b.expand(batch + (k2, m)).reshape(nb, k2, m)
    out = bmm(ea, eb)
    if vector_rhs:
        out = out.squeeze(-1)
    shape = batch + (() if vector_lhs else (n,)) + (() if vector_rhs else (m,))
    return unsafe_view(out, shape)


def _broadcast_shapes(a: tuple, b: tuple) -> list:
    out = []
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else 1
        y = b[-i] if i <= len(b) else 1
        if x != y and x != 1 and y != 1:
            raise ValueError
        out.append(max(x, y) if x != 1 and y != 1 else (y if x == 1 else x))
    return out[::-1]


@tensor_method("__rmatmul__")
def rmatmul(self, other):
    """other @ self."""
    if not isinstance(other, Tensor):
        return NotImplemented
    return matmul(other, self)


@tensor_method(torch=("outer", "ger"))
def outer(self: Tensor, vec2: Tensor) -> Tensor:
    """Outer product of two vectors (as PyTorch: view then multiply)."""
    return self.reshape(-1, 1) * vec2


install("outer", outer)
install("ger", outer)


# -- addmm (what nn.Linear runs) and einsum --------------------------------------------
class AddmmBackward0(Node):
    """d(beta*bias + alpha*(A@B)): beta for bias, alpha*g@Bᵀ for A, alpha*Aᵀ@g for B."""

    legacy_name_02 = "AddmmBackward"

    def backward(self, g):
        beta, alpha = self.beta, self.alpha
        if not grad_mode.state.enabled:
            return self._backward_arrays(g)
        gs = None
        if self.needs[0]:
            gs = g if beta == 1 else g * beta
        ga = gb = None
        if self.needs[1]:
            ga = g.mm(self.saved("mat2").t())
            if alpha != 1:
                ga = ga * alpha
        if self.needs[2]:
            m1 = self.saved("mat1")
            if self.mat2_transposed:
                # mat2 is W.t() (nn.Linear): compute (gᵀ·mat1)ᵀ so that W's gradient comes
                # out row-major, and accumulating it into W.grad is a plain copy
                gb = g.t().mm(m1).t()
            else:
                gb = m1.t().mm(g)
            if alpha != 1:
                gb = gb * alpha
        return gs, ga, gb

    def _backward_arrays(self, g):
        # Without create_graph nothing needs recording: the same formulas on the arrays
        # (this is the hot path of every nn.Linear training step).
        gd, dt = g._data, g._dtype
        t = gd.dtype.type
        xp = array_module(gd)
        gs = ga = gb = None
        if self.needs[0]:
            s = gd if self.beta == 1 else gd * t(self.beta)
            bias_shape = self._meta[0][0]
            if bias_shape != s.shape:
                if len(bias_shape) == 1 and s.ndim == 2 and bias_shape[0] == s.shape[1]:
                    s = summation.torch_sum(s, (0,))  # the bias broadcast over rows
                elif bias_shape == ():
                    s = xp.asarray(summation.torch_sum(s))
            gs = wrap(as_array(s), dt)
        if self.needs[1]:
            a = kernels.matmul(xp, gd, self.saved("mat2")._data.T)
            ga = wrap(a if self.alpha == 1 else a * t(self.alpha), dt)
        if self.needs[2]:
            m1 = self.saved("mat1")._data
            b = (
                kernels.matmul(xp, gd.T, m1).T
                if self.mat2_transposed
                else kernels.matmul(xp, m1.T, gd)
            )
            gb = wrap(b if self.alpha == 1 else b * t(self.alpha), dt)
        return gs, ga, gb

    def explain(self, c: Ctx) -> Formula:
        bias, a, b = c.sym(0), wrap_sym(c.sym(1)), wrap_sym(c.sym(2))
        beta, alpha = c.attr("beta"), c.attr("alpha")
        scale = "" if alpha == 1 else f"{num(alpha)}·"
        lbias = la = lb = None
        if needs(c, 0):
            lbias = const(beta)
        if needs(c, 1):
            bv = c.saved("mat2")
            la = Local(
                f"{scale}grad @ {transposed(b)}", kind="map", apply=lambda g: alpha * (g @ bv.T)
            )
        if needs(c, 2):
            av = c.saved("mat1")
            lb = Local(
                f"{scale}{transposed(a)} @ grad", kind="map", apply=lambda g: alpha * (av.T @ g)
            )
        head = "" if beta == 1 else f"{num(beta)}·"
        return Formula(f"{head}{wrap_sym(bias)} + {scale}{a} @ {b}", [lbias, la, lb])


@tensor_method("addmm", torch=("addmm",))
def addmm(self, mat1, mat2, *, beta=1, alpha=1) -> Tensor:
    """beta * self + alpha * (mat1 @ mat2), with self broadcast to the product's shape."""
    _check_pair(mat1, mat2, dtypes=False)
    # PyTorch's addmm compares self with mat2 first, then mat1 with mat2
    if self._dtype is not mat2._dtype:
        raise RuntimeError(
            f"self and mat2 must have the same dtype, but got {self._dtype.scalar_name} and "
            f"{mat2._dtype.scalar_name}"
        )
    if mat1._dtype is not mat2._dtype:
        raise RuntimeError(
            f"mat1 and mat2 must have the same dtype, but got {mat1._dtype.scalar_name} and "
            f"{mat2._dtype.scalar_name}"
        )
    if mat1._data.ndim != 2:
        raise RuntimeError("mat1 must be a matrix, got " + f"{mat1._data.ndim}-D tensor")
    if mat2._data.ndim != 2:
        raise RuntimeError("mat2 must be a matrix, got " + f"{mat2._data.ndim}-D tensor")
    (n, k), (k2, m) = mat1._data.shape, mat2._data.shape
    if k != k2:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({n}x{k} and {k2}x{m})")
    shp = self._data.shape
    if len(shp) > 2 or any(
        s != t and s != 1 for s, t in zip(reversed(shp), reversed((n, m)), strict=False)
    ):
        # PyTorch expands self to the product's shape: report its error
        self.expand(n, m)
    xp = array_module(mat1._data)
    if alpha == 1 and beta == 1:  # MKL starts from the bias: the order decides the bits
        prod = kernels.matmul(xp, mat1._data, mat2._data, self._data)
    else:
        prod = xp.matmul(mat1._data, mat2._data)
        if alpha != 1:
            prod *= prod.dtype.type(alpha)
        bias = self._data if beta == 1 else self._data * self._dtype.np.type(beta)
        if beta != 0:
            prod += bias
    res = wrap(as_array(prod), mat1._dtype)
    if needs_grad(self, mat1, mat2):
        node = AddmmBackward0()
        node.beta, node.alpha = beta, alpha
        node.needs = (self._requires_grad, mat1._requires_grad, mat2._requires_grad)
        flags = getattr(mat2._data, "flags", None)
        node.mat2_transposed = bool(flags is not None and flags.f_contiguous and mat2.dim() == 2)
        if mat2._requires_grad:
            node.save("mat1", mat1)
        if mat1._requires_grad:
            node.save("mat2", mat2)
        record(node, (self, mat1, mat2), res)
    return res


def _einsum_terms(equation: str, n_ops: int):
    """Parse 'ij,jk->ik' into per-operand label lists ('...' kept as one token) and the
    output labels (None when implicit), checking the subscripts as PyTorch does."""
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    pos = 0
    terms: list = []
    for term in lhs.split(","):
        labels = []
        i = 0
        while i < len(term):
            if term.startswith("...", i):
                labels.append("...")
                i += 3
                continue
            ch = term[i]
            if not ch.isalpha() or not ch.isascii():
                raise RuntimeError(
                    f"einsum(): invalid subscript given at index {pos + i} in the equation "
                    "string, subscripts must be in [a-zA-Z]"
                )
            labels.append(ch)
            i += 1
        terms.append(labels)
        pos += len(term) + 1
    if len(terms) > n_ops:
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    if len(terms) < n_ops:
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    out = None
    if arrow:
        out = []
        i = 0
        while i < len(rhs):
            if rhs.startswith("...", i):
                out.append("...")
                i += 3
                continue
            ch = rhs[i]
            if not ch.isalpha() or not ch.isascii():
                raise RuntimeError(
                    f"einsum(): invalid subscript given at index {len(lhs) + 2 + i} in the "
                    "equation string, subscripts must be in [a-zA-Z]"
                )
            if ch in out:
                raise RuntimeError(
                    f"einsum(): output subscript {ch} appears more than once in the output"
                )
            if not any(ch in t for t in terms):
                raise RuntimeError(
                    f"einsum(): output subscript {ch} does not appear in the equation for any "
                    "input operand"
                )
            out.append(ch)
            i += 1
    return terms, out


@tensor_method(torch=("einsum",))
def einsum(equation: str, *operands) -> Tensor:
    """Einstein summation: contract operands by subscript labels ('ij,jk->ik' is a matrix
    product, 'ii->' a trace, 'i,j->ij' an outer product, 'bij,bjk->bik' batched).

    Built as PyTorch builds it: each operand's repeated labels become a diagonal, every
    operand is permuted (with size-1 dims for missing labels) into one order (output labels
    first), a single operand is summed, and pairs are multiplied (no shared summed label)
    or contracted with bmm."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    for i, op in enumerate(operands):
        if not isinstance(op, Tensor):
            raise TypeError(
                f"einsum(): argument 'operands' must be tuple of Tensors, but found element of "
                f"type {type(op).__name__} at pos {i}"
            )
    terms, out = _einsum_terms(equation, len(operands))
    if not operands:
        raise RuntimeError("einsum(): must provide at least one operand")
    dt0 = operands[0]._dtype
    for op in operands[1:]:
        if op._dtype is not dt0:
            raise RuntimeError(
                f"expected scalar type {dt0.scalar_name} but found {op._dtype.scalar_name}"
            )
    # expand '...' into numbered broadcast labels, right-aligned across operands
    n_ell = 0
    expanded = []
    for k, (labels, op) in enumerate(zip(terms, operands, strict=True)):
        nd = op._data.ndim
        if "..." in labels:
            covered = nd - (len(labels) - 1)
            if covered < 0:
                raise RuntimeError(
                    f"einsum(): the number of subscripts in the equation ({len(labels) - 1}) is "
                    f"more than the number of dimensions ({nd}) for operand {k}"
                )
            n_ell = max(n_ell, covered)
            i = labels.index("...")
            labels = labels[:i] + [("...", covered, j) for j in range(covered)] + labels[i + 1 :]
        elif len(labels) != nd:
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({len(labels)}) does not "
                f"match the number of dimensions ({nd}) for operand {k} and no ellipsis was given"
            )
        expanded.append(labels)
    # name the ellipsis dims by their distance from the right: 0 is the last one
    named = []
    for labels in expanded:
        named.append([(-(lab[1] - lab[2])) if isinstance(lab, tuple) else lab for lab in labels])
    ell_labels = [-(n_ell - j) for j in range(n_ell)]
    counts: dict = {}
    for labels in named:
        for lab in set(labels):
            counts[lab] = counts.get(lab, 0) + 1
    letters = [lab for lab in counts if isinstance(lab, str)]
    if out is None:
        single = [lab for lab in letters if sum(labels.count(lab) for labels in named) == 1]
        out_labels = ell_labels + sorted(single)
    else:
        out_labels = []
        for lab in out:
            out_labels.extend(ell_labels if lab == "..." else [lab])
        if "..." not in out:
            out_labels = [lab for lab in out_labels if not isinstance(lab, int)]
    seen_order = []
    for labels in named:
        for lab in labels:
            if lab not in seen_order:
                seen_order.append(lab)
    contract = [lab for lab in seen_order if lab not in out_labels]
    canon = out_labels + contract
    # check sizes (size 1 broadcasts)
    sizes: dict = {}
    for k, (labels, op) in enumerate(zip(named, operands, strict=True)):
        for lab, s in zip(labels, op._data.shape, strict=True):
            prev = sizes.get(lab)
            if prev is None or prev == 1:
                sizes[lab] = s
            elif s != prev and s != 1:
                raise RuntimeError(
                    f"einsum(): subscript {lab} has size {s} for operand {k} which does not "
                    f"broadcast with previously seen size {prev}"
                )
    aligned = [_einsum_align(op, labels, canon) for op, labels in zip(operands, named, strict=True)]
    present = [set(labels) for labels in named]
    n_out = len(out_labels)
    if len(aligned) == 1:
        result = aligned[0]
        if contract:
            result = result.sum(tuple(range(n_out, len(canon))))
        return result
    result, have = aligned[0], present[0]
    for i in range(1, len(aligned)):
        later = set().union(*present[i + 1 :]) if i + 1 < len(present) else set()
        other, other_have = aligned[i], present[i]
        # labels only one side has, that nothing later needs: sum them out first
        for side in (0, 1):
            t, h, o = (result, have, other_have) if side == 0 else (other, other_have, have)
            only = [
                canon.index(lab)
                for lab in contract
                if lab in h and lab not in o and lab not in later
            ]
            if only:
                t = t.sum(tuple(only), keepdim=True)
                h = h - {canon[d] for d in only}
            if side == 0:
                result, have = t, h
            else:
                other, other_have = t, h
        summed = [
            canon.index(lab)
            for lab in contract
            if lab in have and lab in other_have and lab not in later
        ]
        if summed:
            result = _sumproduct_pair(result, other, summed, have, other_have, canon)
        else:
            result = result * other
        have = (have | other_have) - {canon[d] for d in summed}
    if len(canon) > n_out:
        result = result.view(tuple(sizes.get(lab, 1) if lab in have else 1 for lab in out_labels))
    return result


def _einsum_align(op: Tensor, labels: list, canon: list) -> Tensor:
    """`op` with repeated labels reduced to diagonals, then unsqueezed and permuted so its
    dims follow `canon` (size 1 for labels it lacks)."""
    labels = list(labels)
    while True:
        dup = next((lab for lab in labels if labels.count(lab) > 1), None)
        if dup is None:
            break
        i = labels.index(dup)
        j = labels.index(dup, i + 1)
        # the diagonal lands last; move it back to where the label first appeared
        op = op.diagonal(0, i, j).movedim(-1, i)
        labels = [lab for k, lab in enumerate(labels) if k != j]
    missing = [lab for lab in canon if lab not in labels]
    for _ in missing:
        op = op.unsqueeze(op._data.ndim)
    labels = labels + missing
    return op.permute(tuple(labels.index(lab) for lab in canon))


def _sumproduct_pair(a: Tensor, b: Tensor, summed: list, a_has: set, b_has: set, canon: list):
    """Contract a and b (both in canonical layout) over the dims `summed` with one bmm:
    batch dims (in both), a-only dims, the summed dims, b-only dims."""
    nd = len(canon)
    both = [d for d in range(nd) if d not in summed and canon[d] in a_has and canon[d] in b_has]
    lo = [d for d in range(nd) if d not in summed and canon[d] in a_has and canon[d] not in b_has]
    ro = [d for d in range(nd) if d not in summed and canon[d] in b_has and canon[d] not in a_has]
    rest = [
        d for d in range(nd) if d not in summed and d not in both and d not in lo and d not in ro
    ]
    sa, sb = a._data.shape, b._data.shape
    batch = [max(sa[d], sb[d]) for d in both]
    if any(sa[d] != s for d, s in zip(both, batch, strict=True)):
        a = a.expand(tuple(batch[both.index(d)] if d in both else sa[d] for d in range(nd)))
    if any(sb[d] != s for d, s in zip(both, batch, strict=True)):
        b = b.expand(tuple(batch[both.index(d)] if d in both else sb[d] for d in range(nd)))
    sa, sb = a._data.shape, b._data.shape
    nb = _prod(sa[d] for d in both)
    nl = _prod(sa[d] for d in lo)
    ns = _prod(sa[d] for d in summed)
    nr = _prod(sb[d] for d in ro)
    left = a.permute(tuple(both + lo + summed + ro + rest)).reshape(nb, nl, ns)
    right = b.permute(tuple(both + summed + ro + lo + rest)).reshape(nb, ns, nr)
    prod = bmm(left, right)
    order = both + lo + summed + ro + rest
    shape = tuple(sa[d] if d in both or d in lo else (sb[d] if d in ro else 1) for d in order)
    prod = prod.view(shape)
    inverse = [order.index(d) for d in range(nd)]
    return prod.permute(tuple(inverse))


@tensor_method(torch=("broadcast_shapes",))
def broadcast_shapes(*shapes) -> Size:
    """The shape that tensors of `shapes` broadcast to."""
    out: list = []
    for s in shapes:
        s = (s,) if isinstance(s, int) else tuple(s)
        out = _broadcast_shapes(tuple(out), s) if out else list(s)
    return Size(out)
