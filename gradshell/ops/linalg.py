"""Matrix products: mm, mv, dot, bmm, and matmul/@ composed from them the way PyTorch
composes it (so the graph shows the same nodes)."""

from __future__ import annotations

from gradshell.core import dtypes
from gradshell.ops.base import (
    Node,
    Tensor,
    array_module,
    as_array,
    check_same_device,
    needs_grad,
    record,
    tensor_method,
    wrap,
)


def _c10(d) -> str:
    return {
        "float32": "float",
        "float64": "double",
        "float16": "c10::Half",
        "int64": "long int",
        "int32": "int",
        "int16": "short int",
        "int8": "signed char",
        "uint8": "unsigned char",
        "bool": "bool",
    }[d.name]


def _check_pair(a: Tensor, b: Tensor) -> None:
    if not isinstance(b, Tensor):
        raise TypeError(
            f"mm(): argument 'mat2' (position 1) must be Tensor, not {type(b).__name__}"
        )
    check_same_device(a, b)
    if a._dtype is not b._dtype:
        raise RuntimeError(
            f"expected m1 and m2 to have the same dtype, but got: {_c10(a._dtype)} != "
            f"{_c10(b._dtype)}"
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

    def backward(self, g):
        ga = g.mm(self.saved("mat2").t()) if self.needs_a else None
        gb = self.saved("self").t().mm(g) if self.needs_b else None
        return ga, gb


@tensor_method("mm")
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
    return _product(self, mat2, MmBackward0, xp.matmul(self._data, mat2._data))


class MvBackward0(Node):
    """d(A@v): outer(g, v) for A, Aᵀ@g for v."""

    legacy_name_02 = "MvBackward"
    legacy_python = False

    def backward(self, g):
        ga = g.unsqueeze(1) * self.saved("mat2").unsqueeze(0) if self.needs_a else None
        gb = self.saved("self").t().mv(g) if self.needs_b else None
        return ga, gb


@tensor_method("mv")
def mv(self, vec):
    """Matrix-vector product."""
    _check_pair(self, vec)
    if self._data.ndim != 2 or vec._data.ndim != 1:
        raise RuntimeError(
            f"vector + matrix @ vector expected, got 1, {self._data.ndim}, {vec._data.ndim}"
        )
    n, k = self._data.shape
    if vec._data.shape[0] != k:
        raise RuntimeError(
            f"size mismatch, got input ({n}), mat ({n}x{k}), vec ({vec._data.shape[0]})"
        )
    xp = array_module(self._data)
    return _product(self, vec, MvBackward0, xp.matmul(self._data, vec._data))


class DotBackward0(Node):
    """d(a·b): g·b for a, g·a for b."""

    legacy_name_02 = "DotBackward"
    legacy_python = False

    def backward(self, g):
        ga = g * self.saved("mat2") if self.needs_a else None
        gb = g * self.saved("self") if self.needs_b else None
        return ga, gb


@tensor_method("dot", "inner")
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
            f"{_cap(self._dtype)} and {_cap(other._dtype)}"
        )
    n, m = self._data.shape[0], other._data.shape[0]
    if n != m:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to have the same "
            f"number of elements, but got {n} and {m} elements respectively"
        )
    xp = array_module(self._data)
    return _product(self, other, DotBackward0, xp.dot(self._data, other._data))


def _cap(d) -> str:
    return {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long"}.get(
        d.name, d.name
    )


class BmmBackward0(Node):
    """Batched d(A@B): g@Bᵀ for A, Aᵀ@g for B."""

    legacy_name_02 = "BmmBackward"
    legacy_python = False

    def backward(self, g):
        ga = g.bmm(self.saved("mat2").transpose(1, 2)) if self.needs_a else None
        gb = self.saved("self").transpose(1, 2).bmm(g) if self.needs_b else None
        return ga, gb


@tensor_method("bmm")
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


def _squeeze_dim(t: Tensor, dim: int) -> Tensor:
    from gradshell.ops.shape import make_view

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


def unsafe_view(t: Tensor, shape: tuple) -> Tensor:
    """Reshape a freshly computed tensor (PyTorch's _unsafe_view)."""
    out = wrap(t._data.reshape(shape), t._dtype)
    if needs_grad(t):
        node = UnsafeViewBackward0()
        node.input_shape = t._data.shape
        record(node, (t,), out)
    return out


@tensor_method("matmul", "__matmul__")
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
    if d1 >= 3 and d2 <= 2:
        return _fold(self, other)
    if d2 >= 3 and d1 <= 2:
        # (B^T @ A^T)^T, as PyTorch folds the batched operand
        t1 = other.mT
        t2 = self.t() if d1 == 2 else self
        out = _fold(t1, t2)
        return out.mT.contiguous() if d1 == 2 else out
    return _batched(self, other)


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
    if a._data.ndim == 1:
        return _squeeze_dim(_batched(a.unsqueeze(0), b), -2 + b._data.ndim)
    if b._data.ndim == 1:
        out = _batched(a, b.unsqueeze(-1))
        return _squeeze_dim(out, out._data.ndim - 1)
    n, k = a._data.shape[-2:]
    k2, m = b._data.shape[-2:]
    ba, bb = a._data.shape[:-2], b._data.shape[:-2]
    try:
        batch = tuple(_broadcast_shapes(ba, bb))
    except ValueError:
        raise RuntimeError(
            f"The size of tensor a ({_mismatch(ba, bb)[0]}) must match the size of tensor b "
            f"({_mismatch(ba, bb)[1]}) at non-singleton dimension {_mismatch(ba, bb)[2]}"
        ) from None
    if k != k2:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: "
            f"[{_prod(batch)}, {k}] but got: [{_prod(batch)}, {k2}]."
        )
    nb = _prod(batch)
    ea = a.expand(batch + (n, k)).reshape(nb, n, k)
    eb = b.expand(batch + (k2, m)).reshape(nb, k2, m)
    return unsafe_view(bmm(ea, eb), batch + (n, m))


def _broadcast_shapes(a: tuple, b: tuple) -> list:
    out = []
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else 1
        y = b[-i] if i <= len(b) else 1
        if x != y and x != 1 and y != 1:
            raise ValueError
        out.append(max(x, y) if x != 1 and y != 1 else (y if x == 1 else x))
    return out[::-1]


def _mismatch(a: tuple, b: tuple):
    n = max(len(a), len(b))
    for i in range(1, n + 1):
        x = a[-i] if i <= len(a) else 1
        y = b[-i] if i <= len(b) else 1
        if x != y and x != 1 and y != 1:
            return x, y, n - i
    return 0, 0, 0


@tensor_method("__rmatmul__")
def rmatmul(self, other):
    """other @ self."""
    if not isinstance(other, Tensor):
        return NotImplemented
    return matmul(other, self)


def outer(self: Tensor, vec2: Tensor) -> Tensor:
    """Outer product of two vectors (as PyTorch: view then multiply)."""
    return self.reshape(-1, 1) * vec2


Tensor.outer = outer
Tensor.ger = outer
_ = dtypes


# -- issue 6: addmm (what nn.Linear runs) and einsum --------------------------------------------
class AddmmBackward0(Node):
    """d(beta*bias + alpha*(A@B)): beta for bias, alpha*g@Bᵀ for A, alpha*Aᵀ@g for B."""

    def backward(self, g):
        beta, alpha = self.beta, self.alpha
        gs = None
        if self.needs[0]:
            gs = g if beta == 1 else g * beta
        ga = gb = None
        if self.needs[1]:
            ga = g.mm(self.saved("mat2").t())
            if alpha != 1:
                ga = ga * alpha
        if self.needs[2]:
            gb = self.saved("mat1").t().mm(g)
            if alpha != 1:
                gb = gb * alpha
        return gs, ga, gb


@tensor_method("addmm")
def addmm(self, mat1, mat2, *, beta=1, alpha=1):
    """beta * self + alpha * (mat1 @ mat2), with self broadcast to the product's shape."""
    _check_pair(mat1, mat2)
    if mat1._data.ndim != 2:
        raise RuntimeError("mat1 must be a matrix, got " + f"{mat1._data.ndim}-D tensor")
    if mat2._data.ndim != 2:
        raise RuntimeError("mat2 must be a matrix, got " + f"{mat2._data.ndim}-D tensor")
    (n, k), (k2, m) = mat1._data.shape, mat2._data.shape
    if k != k2:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({n}x{k} and {k2}x{m})")
    if self._dtype is not mat1._dtype:
        raise RuntimeError(
            f"self and mat2 must have the same dtype, but got {_cap(self._dtype)} and "
            f"{_cap(mat2._dtype)}"
        )
    shp = self._data.shape
    if len(shp) > 2 or any(
        s != t and s != 1 for s, t in zip(reversed(shp), reversed((n, m)), strict=False)
    ):
        # PyTorch expands self to the product's shape: report its error
        self.expand(n, m)
    xp = array_module(mat1._data)
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
        if mat2._requires_grad:
            node.save("mat1", mat1)
        if mat1._requires_grad:
            node.save("mat2", mat2)
        record(node, (self, mat1, mat2), res)
    return res
