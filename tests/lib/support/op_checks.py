"""Shared test helpers for the op library (issue 6), next to support.gradcheck.

* `gradcheck` / `gradgradcheck`: analytical gradients (first and second order) against
  central finite differences in float64, as `torch.autograd.gradcheck` does, but through
  random projections of the output so that one backward pass checks every input.
* `check` / `check_error`: differential tests against real PyTorch 2.13 (the oracle). One
  function `fn(lib, *tensors)` is run with `lib` = gradshell's torch and with real torch,
  on the same values; values, dtypes, shapes, grad_fn names, next_functions, input
  gradients and the "backward twice" behaviour must agree, or both must raise the same
  error with the same message.
"""

from __future__ import annotations

import warnings

import numpy as np

from gradshell import torch as gtorch

# -- finite differences ------------------------------------------------------------------------


def _as_tuple(x):
    if isinstance(x, (tuple, list)):
        return tuple(x)
    return (x,)


def _outputs(fn, inputs):
    outs = [o for o in _as_tuple(fn(*inputs)) if isinstance(o, gtorch.Tensor)]
    return [o for o in outs if o.dtype.is_floating_point]


def _projected(fn, inputs, vs) -> float:
    with gtorch.no_grad():
        outs = _outputs(fn, inputs)
        return float(sum((o.double() * v).sum().item() for o, v in zip(outs, vs, strict=True)))


def gradcheck(fn, *inputs, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3, seed=0):
    """Check fn's gradients with respect to `inputs` (float64 tensors that require grad)
    against central differences of a random projection of its outputs."""
    rng = np.random.default_rng(seed)
    outs = _outputs(fn, inputs)
    vs = [gtorch.tensor(rng.standard_normal(o.shape)) for o in outs]
    loss = sum((o * v).sum() for o, v in zip(outs, vs, strict=True))
    diff = [t for t in inputs if t.requires_grad]
    grads = gtorch.autograd.grad(loss, diff, allow_unused=True)
    for t, g in zip(diff, grads, strict=True):
        data = t.detach().numpy()
        num = np.zeros(data.shape)
        for i in np.ndindex(data.shape):
            old = data[i]
            data[i] = old + eps
            hi = _projected(fn, inputs, vs)
            data[i] = old - eps
            lo = _projected(fn, inputs, vs)
            data[i] = old
            num[i] = (hi - lo) / (2 * eps)
        ana = np.zeros(data.shape) if g is None else g.detach().numpy()
        np.testing.assert_allclose(ana, num, rtol=rtol, atol=atol)
    return True


def gradgradcheck(fn, *inputs, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3, seed=1):
    """Check second derivatives: the gradient of a projection of fn's first derivatives
    (built with create_graph=True) against their finite differences."""
    rng = np.random.default_rng(seed)
    diff = [t for t in inputs if t.requires_grad]
    outs = _outputs(fn, inputs)
    vs = [gtorch.tensor(rng.standard_normal(o.shape)) for o in outs]
    us = [gtorch.tensor(rng.standard_normal(tuple(t.shape))) for t in diff]

    def first(*xs):
        out = _outputs(fn, xs)
        loss = sum((o * v).sum() for o, v in zip(out, vs, strict=True))
        ds = [x for x in xs if x.requires_grad]
        gs = gtorch.autograd.grad(loss, ds, create_graph=True, allow_unused=True)
        return tuple(gtorch.zeros_like(x) if g is None else g for x, g in zip(ds, gs, strict=True))

    gs = first(*inputs)
    total = sum((g * u).sum() for g, u in zip(gs, us, strict=True))
    if not total.requires_grad:  # second derivative is zero everywhere (a linear function)
        return True
    seconds = gtorch.autograd.grad(total, diff, allow_unused=True)

    def proj(*xs):
        with gtorch.enable_grad():
            gs2 = first(*xs)
        return float(sum((g * u).sum().item() for g, u in zip(gs2, us, strict=True)))

    for t, s in zip(diff, seconds, strict=True):
        data = t.detach().numpy()
        num = np.zeros(data.shape)
        for i in np.ndindex(data.shape):
            old = data[i]
            data[i] = old + eps
            hi = proj(*inputs)
            data[i] = old - eps
            lo = proj(*inputs)
            data[i] = old
            num[i] = (hi - lo) / (2 * eps)
        ana = np.zeros(data.shape) if s is None else s.detach().numpy()
        np.testing.assert_allclose(ana, num, rtol=rtol, atol=atol)
    return True


# -- differential tests against PyTorch ----------------------------------------------------------


class Arg:
    """An array argument with an explicit requires_grad flag (default: float arrays do)."""

    def __init__(self, array, requires_grad: bool | None = None) -> None:
        self.array = np.asarray(array)
        self.requires_grad = requires_grad


def _convert(lib, a, leaves: list):
    if isinstance(a, Arg):
        arr, rg = a.array, a.requires_grad
    elif isinstance(a, np.ndarray):
        arr, rg = a, None
    elif isinstance(a, list):
        return [_convert(lib, x, leaves) for x in a]
    elif isinstance(a, tuple):
        return tuple(_convert(lib, x, leaves) for x in a)
    else:
        return a
    floating = arr.dtype.kind == "f"
    if rg is None:
        rg = floating
    t = lib.tensor(arr.copy(), requires_grad=bool(rg and floating))
    leaves.append(t)
    return t


def _flat(out) -> list:
    if isinstance(out, (tuple, list)):
        items = []
        for o in out:
            items.extend(_flat(o))
        return items
    return [out]


def _np(t):
    try:
        return np.array(t.detach().cpu().numpy() if hasattr(t, "cpu") else t.detach().numpy())
    except RuntimeError:  # PyTorch's efficient zeros (sgn's gradient) have no storage
        return np.array(t.detach().clone().cpu().numpy())


def _node_name(n):
    # PyTorch's name() spells C++ nodes with their namespace (torch::autograd::AccumulateGrad)
    # while their repr does not; gradshell's nodes use the short form: compare that.
    return None if n is None else n.name().removeprefix("torch::autograd::")


def _next_names(fn):
    if fn is None:
        return None
    return [_node_name(n) for n, _ in fn.next_functions]


def _tol(dtype_name: str, rtol, atol):
    if rtol is not None:
        return rtol, (atol if atol is not None else 0.0)
    if dtype_name == "float64":
        return 1e-9, 1e-11 if atol is None else atol
    if dtype_name == "float16":
        return 1e-2, 1e-3 if atol is None else atol
    return 2e-5, 1e-6 if atol is None else atol


def assert_same_values(ours, theirs, rtol=None, atol=None, what="value") -> None:
    """Tensors (or numbers) equal in dtype, shape and values (NaN equals NaN)."""
    if not hasattr(theirs, "dtype") or not hasattr(theirs, "shape"):
        assert type(ours) is type(theirs) or (
            isinstance(ours, (int, float, bool)) and isinstance(theirs, (int, float, bool))
        ), f"{what}: {type(ours)} vs {type(theirs)}"
        if isinstance(theirs, float):
            np.testing.assert_allclose(ours, theirs, rtol=rtol or 1e-6, atol=atol or 0)
        else:
            assert ours == theirs, f"{what}: {ours!r} != {theirs!r}"
        return
    t_dtype = str(theirs.dtype).removeprefix("torch.")
    assert str(ours.dtype).removeprefix("torch.") == t_dtype, (
        f"{what} dtype: {ours.dtype} != {theirs.dtype}"
    )
    assert tuple(ours.shape) == tuple(theirs.shape), (
        f"{what} shape: {tuple(ours.shape)} != {tuple(theirs.shape)}"
    )
    a, b = _np(ours), _np(theirs)
    if a.dtype.kind in "fc":
        r, at = _tol(t_dtype, rtol, atol)
        np.testing.assert_allclose(a, b, rtol=r, atol=at, equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(a, b, err_msg=what)


def _run(lib, fn, args):
    leaves: list = []
    conv = [_convert(lib, a, leaves) for a in args]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = fn(lib, *conv)
    return out, leaves


def check(
    fn,
    *args,
    rtol=None,
    atol=None,
    grad_rtol=None,
    grad_atol=None,
    backward: bool = True,
    twice: bool = True,
    graph: bool = True,
    seed: int = 0,
):
    """Run `fn(lib, *tensors)` on gradshell and on PyTorch and require the same results.

    Compares every output (values, dtype, shape, grad_fn name and next_functions), then
    runs backward with the same random output gradients and compares each leaf's .grad,
    then runs backward a second time and requires the same outcome (success, or the same
    error). Returns (our outputs, torch outputs).
    """
    import torch

    ours, our_leaves = _run(gtorch, fn, args)
    theirs, their_leaves = _run(torch, fn, args)
    if type(theirs).__module__ == "torch.return_types":
        assert type(ours).__module__ == "torch.return_types"
        assert type(ours).__name__ == type(theirs).__name__
        assert repr(ours).split("(")[0] == repr(theirs).split("(")[0]
    o_flat, t_flat = _flat(ours), _flat(theirs)
    assert len(o_flat) == len(t_flat), f"{len(o_flat)} outputs, expected {len(t_flat)}"
    for i, (o, t) in enumerate(zip(o_flat, t_flat, strict=True)):
        assert_same_values(o, t, rtol, atol, what=f"output {i}")
        if isinstance(t, torch.Tensor):
            assert o.requires_grad == t.requires_grad, f"output {i} requires_grad"
            if graph:
                assert _node_name(o.grad_fn) == _node_name(t.grad_fn), (
                    f"output {i} grad_fn: {_node_name(o.grad_fn)} != {_node_name(t.grad_fn)}"
                )
                assert _next_names(o.grad_fn) == _next_names(t.grad_fn), (
                    f"output {i} next_functions: {_next_names(o.grad_fn)} != "
                    f"{_next_names(t.grad_fn)}"
                )
                assert o.output_nr == t.output_nr
    if not backward:
        return ours, theirs
    pairs = [
        (o, t)
        for o, t in zip(o_flat, t_flat, strict=True)
        if isinstance(t, torch.Tensor) and t.requires_grad
    ]
    if not pairs:
        return ours, theirs
    rng = np.random.default_rng(seed)
    gs = [rng.standard_normal(tuple(t.shape)).astype(_np(t).dtype) for _, t in pairs]

    def go(lib, outs, leaves):
        grads = [lib.tensor(g) for g in gs]
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                lib.autograd.backward(outs, grads)
        except Exception as e:  # noqa: BLE001 - compared below
            return (type(e).__name__, str(e))
        return None

    for leaf in our_leaves + their_leaves:
        leaf.grad = None
    e_ours = go(gtorch, [o for o, _ in pairs], our_leaves)
    e_theirs = go(torch, [t for _, t in pairs], their_leaves)
    assert e_ours == e_theirs, f"first backward: {e_ours} != {e_theirs}"
    for i, (a, b) in enumerate(zip(our_leaves, their_leaves, strict=True)):
        if b.grad is None:
            assert a.grad is None, f"grad of input {i} should be None"
        else:
            assert a.grad is not None, f"grad of input {i} is None"
            assert_same_values(a.grad, b.grad, grad_rtol, grad_atol, what=f"grad of input {i}")
    if twice:
        e_ours = go(gtorch, [o for o, _ in pairs], our_leaves)
        e_theirs = go(torch, [t for _, t in pairs], their_leaves)
        assert e_ours == e_theirs, f"second backward: {e_ours} != {e_theirs}"
    return ours, theirs


def check_error(fn, *args) -> str:
    """Both libraries must raise the same exception type with the same message."""
    import torch

    def attempt(lib):
        try:
            _run(lib, fn, args)
        except Exception as e:  # noqa: BLE001 - compared below
            return type(e).__name__, str(e)
        return None

    theirs = attempt(torch)
    assert theirs is not None, "PyTorch did not raise"
    ours = attempt(gtorch)
    assert ours == theirs, f"\nours:   {ours}\ntheirs: {theirs}"
    return theirs[1]
